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
// run: --groups 1 --buffer r=i32:322
// run: --buffer Masks=u32:[0,4294967295,1,2147483648,2147483647,4042322160,65536,3735928559,13884438,5472787,3512647,111954,795121,128363,210039,89781,8410,22514,6763,4803,609,658,404,252,230,93,17,26,9,1511588075,769103652,525874488,356756544,194006028,114648887,24826744,19675953,131746,3282367,86415,1675029,128816,145873,198602,91583,38751,10583,5869,1249,4037,1878,711,436,144,102,17,27,7,2999764156,893689378,332036070,272771609,184547082,74461886]
