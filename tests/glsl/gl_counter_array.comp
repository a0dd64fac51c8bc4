#version 430
// An array of atomic counters: one counter per bucket, indexed at run time.
layout(local_size_x = 64) in;
layout(binding = 0, offset = 0) uniform atomic_uint buckets[4];
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Slots { uint slots[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    slots[i] = atomicCounterIncrement(buckets[keys[i] & 3u]);
}
