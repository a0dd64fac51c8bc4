#version 450
// 64-bit integer arithmetic as hashing, sorting-key and fixed-point code
// writes it: every operation on uint64_t and int64_t, with edge values
// (carries across the words, shifts by 0, 31, 32, 33 and 63, the sign bit).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer A { uint64_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { int64_t b[]; };
layout(set = 0, binding = 2) readonly buffer Shifts { uint shifts[]; };
layout(set = 0, binding = 3) buffer Results { uint64_t r[]; };
layout(set = 0, binding = 4) buffer Flags { uint flags[]; };

const uint N = 24u;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[i];
    uint64_t y = a[(i + 1u) % 16u];
    int64_t s = b[i];
    int64_t t = b[(i + 5u) % 16u];
    uint n = shifts[i] % 64u;
    uint base = i * N;
    r[base + 0u] = x + y;
    r[base + 1u] = x - y;
    r[base + 2u] = x * y;
    r[base + 3u] = uint64_t(s * t);
    r[base + 4u] = x << n;
    r[base + 5u] = x >> n;
    r[base + 6u] = uint64_t(s >> n);
    r[base + 7u] = x & y | (~x ^ y);
    r[base + 8u] = uint64_t(-s);
    r[base + 9u] = uint64_t(uint(x) + 7u);
    r[base + 10u] = uint64_t(int64_t(int(s)));
    r[base + 11u] = uint64_t(int64_t(int(uint(x))));
    r[base + 12u] = min(x, y);
    r[base + 13u] = uint64_t(max(s, t));
    r[base + 14u] = x / 4096ul + x % 8ul;
    r[base + 15u] = uint64_t(floatBitsToUint(float(x)));
    r[base + 16u] = uint64_t(floatBitsToUint(float(s)));
    float f = float(uint(x) % 1000000u) * 4321.5;
    r[base + 17u] = uint64_t(f);
    r[base + 18u] = uint64_t(int64_t(-f));
    uvec2 halves = unpackUint2x32(x);
    r[base + 19u] = packUint2x32(uvec2(halves.y, halves.x));
    r[base + 20u] = (x > y ? 1ul : 0ul) | (x >= y ? 2ul : 0ul) | (x < y ? 4ul : 0ul)
        | (x <= y ? 8ul : 0ul) | (x == y ? 16ul : 0ul) | (x != y ? 32ul : 0ul)
        | (s > t ? 64ul : 0ul) | (s >= t ? 128ul : 0ul) | (s < t ? 256ul : 0ul)
        | (s <= t ? 512ul : 0ul);
    r[base + 21u] = x * 0x9E3779B97F4A7C15ul + (x >> 33);
    r[base + 22u] = uint64_t(s) << 31;
    r[base + 23u] = uint64_t(t >> 63);
    flags[i] = uint(x == 0ul) + (uint(s < 0l) << 1);
}
// run: --groups 1 --buffer A=u32:[0,0,4294967295,0,4294967295,4294967295,1,1,2147483648,2147483647,305419896,2596069104,4294967295,2147483647,0,2147483648,3735928559,12648430,1,0,65535,65536,4000000000,3000000000,7,4294967294,12345,67890,4294967292,4294967295,2863311530,1431655765]
// run: --buffer B=i32:[-1,-1,0,0,1,0,-2147483648,-1,2147483647,0,-5,-1,0,-2147483648,-1,2147483647,100,-100,-7,-7,65536,0,-65536,-1,42,42,-1000000,-1,999999,0,-123456789,-3]
// run: --buffer Shifts=u32:[0,1,31,32,33,63,64,17,48,5,62,30,34,95,127,16]
// run: --buffer Results=u32:768 --buffer Flags=u32:16
