#version 450
// Component atomics on a uvec3 member (dynamic-free .x/.y/.z) followed by scalar members that pack after it.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) buffer Tally {
    uvec3 per_axis;
    uint total;
    uvec3 exchanged;
    uint pad;
} tally;

void main() {
    uvec3 id = gl_GlobalInvocationID;
    atomicAdd(tally.per_axis.x, id.x);
    atomicAdd(tally.per_axis.y, id.y);
    atomicXor(tally.per_axis.z, id.x ^ id.y);
    atomicAdd(tally.total, 1u);
    uint old = atomicExchange(tally.exchanged.z, gl_LocalInvocationIndex);
    atomicAnd(tally.exchanged.x, old | 0xFFFF0000u);
}
