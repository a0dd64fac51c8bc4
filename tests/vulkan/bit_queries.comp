#version 450
// Occupancy masks: the first free slot and the population, as int.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Masks { uint masks[]; };
layout(set = 0, binding = 1) buffer Result { int lsb[64]; int msb[64]; int pop[64]; ivec2 pair[64]; int slots; } r;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint m = masks[i];
    r.lsb[i] = findLSB(m);
    r.msb[i] = findMSB(m);
    r.pop[i] = bitCount(m);
    uvec2 two = uvec2(m, ~m);
    r.pair[i] = findLSB(two) + bitCount(two);
    atomicAdd(r.slots, bitCount(m));
}
