#version 450
// 64-bit sort keys (depth in the high word, index in the low word) with
// 64-bit atomics, and the words taken apart again.
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Keys { uint64_t sum; int64_t lowest; int64_t highest; uint64_t nearest; uint64_t keys[32]; uvec2 halves[32]; } k;
shared uint64_t s_max;

void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) s_max = 0ul;
    barrier();
    uint64_t key = packUint2x32(uvec2(i, 1000u - i * 7u));
    k.keys[i] = key;
    k.halves[i] = unpackUint2x32(key ^ 0xff00000000ul);
    atomicAdd(k.sum, key >> 8);
    atomicMin(k.lowest, int64_t(i) - 40l);
    atomicMax(k.highest, -int64_t(i * i));
    atomicMin(k.nearest, key);
    atomicMax(s_max, key);
    barrier();
    if (i == 0u) k.keys[0] = s_max;
}
// run: --groups 1
// run: --buffer k=u32:[5,0,100,0,4294967280,4294967295,4294967295,4294967295,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
