#version 450
// Whole-array copy (`buf.b = buf.a;`) of an array whose elements are used atomically: copied element by element.
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
// run: --groups 1 --buffer buf=u32:[1,2,3,4,0,0,0,0]
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Buf {
    uint a[4];
    uint b[4];
} buf;

void main() {
    atomicAdd(buf.a[gl_LocalInvocationIndex % 4u], 1u);
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        buf.b = buf.a;
    }
}
