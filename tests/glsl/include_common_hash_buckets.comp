#version 450
// Uses `#include "include/common.glsl"` (hash helper + macro) to pick buckets for atomicAdd/atomicMin.
#include "include/common.glsl"
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Keys {
    uint keys[];
} keys;

layout(set = 0, binding = 1) buffer Buckets {
    uint counts[32];
    uint first_key[32];
} buckets;

void main() {
    uint key = keys.keys[gl_GlobalInvocationID.x];
    if (key == INVALID_INDEX) {
        return;
    }
    uint b = bucket_of(key, 32u);
    atomicAdd(buckets.counts[b], 1u);
    atomicMin(buckets.first_key[b], key);
}
// run: --groups 4 --buffer keys=u32:256:iota
// run: --buffer buckets=u32:[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295,4294967295]
