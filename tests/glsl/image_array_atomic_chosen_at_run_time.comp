#version 450
// An array of atomic storage images indexed at run time (a tile's counters picked per invocation): a switch over its four elements.
// run: --groups 2 --buffer Picks=u32:128:iota --image counters[0]=4x4:r32ui --image counters[1]=4x4:r32ui:fill=7 --image counters[2]=4x4:r32ui --image counters[3]=4x4:r32ui
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counters[4];
layout(std430, set = 0, binding = 1) readonly buffer Picks { uint picks[]; };
void main() {
    uint p = picks[gl_GlobalInvocationID.x] * 5u;
    imageAtomicAdd(counters[p % 4u], ivec2((p / 4u) % 4u, (p / 16u) % 4u), 1u);
}
