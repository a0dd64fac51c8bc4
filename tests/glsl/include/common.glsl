// Shared helpers for the atomport GLSL corpus (not a corpus entry itself).
#ifndef ATOMPORT_COMMON_GLSL
#define ATOMPORT_COMMON_GLSL

#define INVALID_INDEX 0xFFFFFFFFu

struct Node {
    uint value;
    uint next;
};

uint hash_u32(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

uint bucket_of(uint key, uint bucket_count) {
    return hash_u32(key) % bucket_count;
}

#endif
