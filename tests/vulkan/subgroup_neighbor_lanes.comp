#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Lanes that read their left neighbour's slot in shared memory, as rate
// control and scan kernels check a subgroup's running sums: lane 0 takes
// the base case, every other lane reads slot `gl_SubgroupInvocationID - 1`.
// In subgroups of one invocation (the WebGPU target) that index is `0 - 1`
// in a branch that never runs, which WGSL must not see as a constant. Each
// lane counts itself when its running sum is its neighbour's plus its own
// value, so the totals do not depend on the subgroup's size.
// run: --groups 2 --buffer Values=u32:64:iota --buffer Checks=u32:2
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) buffer Checks { uint agree; uint lanes_seen; };
shared uint running[32][32];

void main() {
    uint v = values[gl_GlobalInvocationID.x] % 7u + 1u;
    uint inclusive = subgroupInclusiveAdd(v);
    running[gl_SubgroupID][gl_SubgroupInvocationID] = inclusive;
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    bool consistent;
    if (gl_SubgroupInvocationID == 0u) {
        consistent = inclusive == v;
    } else {
        consistent = running[gl_SubgroupID][gl_SubgroupInvocationID - 1u] + v == inclusive;
    }
    if (consistent) {
        atomicAdd(agree, 1u);
    }
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u || gl_LocalInvocationIndex == 31u) {
        atomicAdd(lanes_seen, gl_SubgroupInvocationID + 1u);
    }
}
