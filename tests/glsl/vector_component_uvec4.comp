#version 450
// Component atomics on a uvec4 member (b.v.x/.y/.w) plus whole-vector writes and reads of that same vector.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Stats {
    uvec4 v;
    uvec4 snapshot;
} b;

void main() {
    uint id = gl_GlobalInvocationID.x;
    if (id == 0u) {
        b.v = uvec4(0u);
    }
    memoryBarrierBuffer();
    barrier();
    atomicAdd(b.v.x, 1u);
    atomicAdd(b.v.y, id);
    atomicMax(b.v.z, id);
    atomicOr(b.v.w, 1u << (id % 32u));
    memoryBarrierBuffer();
    barrier();
    if (id == 0u) {
        uvec4 t = b.v;
        b.snapshot = t + uvec4(0u, 0u, 0u, 0u);
    }
}
// run: --groups 1 --buffer b=u32:8:fill=5
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
