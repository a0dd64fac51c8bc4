#version 450
#extension GL_KHR_shader_subgroup_basic : require
// A tree reduction in the style of prefix-sum libraries: the stride starts
// at the subgroup size, which the WebGPU target makes one invocation wide
// and holds in a variable so that nothing folds it; the loop around the
// barrier is uniform all the same.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; };
shared uint sums[64];

void main() {
    uint lane = gl_LocalInvocationID.x;
    sums[lane] = values[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = gl_SubgroupSize; stride < 64u; stride <<= 1u) {
        if ((lane & (2u * stride - 1u)) == 0u && lane + stride < 64u) {
            sums[lane] += sums[lane + stride];
        }
        barrier();
    }
    values[gl_GlobalInvocationID.x] = sums[0];
}
