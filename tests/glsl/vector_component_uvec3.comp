#version 450
// Component atomics on uvec3 members (.x/.y/.z, uint only) with scalar members packed right after each uvec3.
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
// run: --groups 1,1 --buffer tally=u32:[5,6,7,1,4294967295,9,4294967295,3]
