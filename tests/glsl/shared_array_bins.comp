#version 450
// Atomics on elements of a `shared` uint array (workgroup-local bins), cleared and read with plain accesses.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Keys {
    uint keys[];
} keys;

layout(set = 0, binding = 1) buffer Bins {
    uint bins[64];
} global_bins;

shared uint s_bins[64];

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_bins[lid] = 0u;
    barrier();
    uint key = keys.keys[gl_GlobalInvocationID.x] & 63u;
    atomicAdd(s_bins[key], 1u);
    barrier();
    uint count = s_bins[lid];
    if (count != 0u) {
        atomicAdd(global_bins.bins[lid], count);
    }
}
