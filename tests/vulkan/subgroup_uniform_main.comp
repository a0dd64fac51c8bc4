#version 450
#extension GL_EXT_subgroup_uniform_control_flow : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// A reduction whose entry point is marked subgroup-uniform, as mip
// generators and reduction kernels mark theirs so that subgroup operations
// after a branch see the whole subgroup: each subgroup sums its values and
// one elected lane adds the sums into the totals. The marking is dropped
// with a warning (WGSL cannot ask for it); the totals do not depend on how
// many lanes a subgroup has.
// run: --groups 4 --buffer Values=u32:256:iota --buffer Totals=u32:3
// no native: lavapipe lacks VK_KHR_shader_subgroup_uniform_control_flow, so the original cannot run; tests/spirv_compat.rs checks the totals against the CPU
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) buffer Totals { uint sum; uint squares; uint odd; };

void main() [[subgroup_uniform_control_flow]] {
    uint v = values[gl_GlobalInvocationID.x];
    uint s = subgroupAdd(v);
    uint q = subgroupAdd(v * v);
    if ((v & 1u) == 1u) {
        atomicAdd(odd, v);
    }
    if (subgroupElect()) {
        atomicAdd(sum, s);
        atomicAdd(squares, q);
    }
}
