#version 450
// Refused by glslang: atomic counters are OpenGL-only; atomport points to buffer atomics.
layout(local_size_x = 64) in;
layout(binding = 0) uniform atomic_uint ctr;
void main() {
    atomicCounterIncrement(ctr);
}
