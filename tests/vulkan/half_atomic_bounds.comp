#version 450
// Bounds and sums of a sample window in float16_t, by atomics on halves
// that share words (each a compare-exchange loop on its word) in a buffer
// and in shared memory, beside a 16-bit tag another invocation stores.
// Every value is an integer, so every order gives the same sums.
// run: --groups 2 --buffer Samples=f16:16:iota --buffer Bounds=f16:8
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Samples { float16_t samples[]; };
layout(std430, binding = 1) buffer Bounds {
    float16_t total;
    float16_t lowest;
    float16_t highest;
    uint16_t tag;
    float16_t groupHighest[2];
    float16_t groupTotal[2];
};
shared float16_t localTotal;
shared float16_t localHighest;

void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t s = samples[i % 16u] - float16_t(8.0) + float16_t(i / 16u);
    if (gl_LocalInvocationIndex == 0u) {
        localTotal = float16_t(0.0);
        localHighest = float16_t(-1000.0);
    }
    barrier();
    atomicAdd(total, s);
    atomicMin(lowest, s);
    atomicMax(highest, s);
    if (i == 3u) {
        tag = uint16_t(0xBEEF);
    }
    atomicAdd(localTotal, s);
    atomicMax(localHighest, s);
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        groupHighest[gl_WorkGroupID.x] = localHighest;
        groupTotal[gl_WorkGroupID.x] = localTotal;
    }
}
