#version 460
// GLSL 4.60 with Vulkan set/binding: int and uint atomicAdd on a named block with mixed counters.
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) buffer Counters {
    uint pixels;
    int signed_balance;
    uint per_row[16];
} counters;

void main() {
    uvec2 p = gl_LocalInvocationID.xy;
    atomicAdd(counters.pixels, 1u);
    atomicAdd(counters.signed_balance, (p.x < p.y) ? 1 : -1);
    atomicAdd(counters.per_row[p.y], p.x);
}
// run: --groups 2,2 --buffer counters=u32:18:iota
