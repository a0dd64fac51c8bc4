#version 450
// Component atomics on vectors inside an array of vectors (uvec2 pairs[8] -> b.pairs[i].x / .y) and whole-element writes.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Pairs {
    uvec2 pairs[8];
    ivec4 quads[];
} b;

void main() {
    uint id = gl_GlobalInvocationID.x;
    uint i = id % 8u;
    if (id < 8u) {
        b.pairs[id] = uvec2(0u, 0xFFFFFFFFu);
    }
    memoryBarrierBuffer();
    barrier();
    atomicAdd(b.pairs[i].x, 1u);
    atomicMin(b.pairs[i].y, id);
    atomicAdd(b.quads[i].w, -1);
    memoryBarrierBuffer();
    barrier();
    if (id < 8u) {
        uvec2 p = b.pairs[id];
        b.quads[id + 8u] = ivec4(int(p.x), int(p.y), 0, 0);
    }
}
// run: --groups 1 --buffer b=i32:80:iota
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
