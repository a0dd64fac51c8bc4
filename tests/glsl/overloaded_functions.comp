#version 450
// A hashing library in the style of procedural-noise kernels: overloads of
// one name for scalars and vectors, and names WGSL gives a meaning of its
// own (`select`, `loop`). glslang names each by its signature
// (`hash(vu2;`); the WGSL keeps the names as written, overloads told
// apart by a suffix.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Cells { uint seeds[8]; uint hashes[]; } cells;

uint hash(uint x) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    return x;
}
uint hash(uvec2 v) { return hash(v.x ^ hash(v.y)); }
uint hash(uvec3 v) { return hash(uvec2(v.x, hash(v.yz))); }
uint select(uint a, uint b, bool first) { return first ? a : b; }
uint loop(uint x, uint n) {
    for (uint k = 0u; k < n; k++) x = hash(x);
    return x;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint s = cells.seeds[i];
    cells.hashes[i] = select(hash(uvec3(s, i, 7u)), loop(s, i & 3u), (s & 1u) == 0u);
}

// run: --groups 1 --buffer Cells=u32:[1,2,3,4,5,6,7,8,0,0,0,0,0,0,0,0]
