#version 450
// Refused: whole-array copy (`buf.b = buf.a;`) of an array whose elements are used atomically.
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
