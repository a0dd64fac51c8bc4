#version 450
// An image-processing kernel in 32x32 tiles (1024 invocations, past
// WebGPU's default 256) with no shared memory or barriers: each invocation
// records the built-ins it sees, so a split workgroup that handed on the
// wrong workgroup or local IDs, index or count would show, and counts
// texels per tile row with atomics.
layout(local_size_x = 32, local_size_y = 32) in;
layout(set = 0, binding = 0) buffer Ids {
    uvec4 ids[];
};
layout(set = 0, binding = 1) buffer Rows {
    uint per_row[64];
    uint total;
};

void main() {
    uvec2 size = gl_NumWorkGroups.xy * gl_WorkGroupSize.xy;
    uvec3 g = gl_GlobalInvocationID;
    uint at = g.y * size.x + g.x;
    ids[at] = uvec4(gl_WorkGroupID.x * 1000u + gl_WorkGroupID.y,
                    gl_LocalInvocationID.x * 100u + gl_LocalInvocationID.y,
                    gl_LocalInvocationIndex,
                    gl_NumWorkGroups.x * 10u + gl_NumWorkGroups.y);
    atomicAdd(per_row[g.y % 64u], gl_LocalInvocationIndex + 1u);
    atomicMax(total, at);
}
// run: --groups 2,3 --buffer Ids=u32:24576 --buffer Rows=u32:65:iota
