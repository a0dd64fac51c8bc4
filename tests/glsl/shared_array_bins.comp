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
// run: --groups 4
// run: --buffer keys=u32:[5,15,39,77,32,1,81,78,89,17,56,12,79,63,61,73,2,42,96,67,52,51,64,91,35,90,62,48,48,62,90,35,91,64,51,52,67,96,42,2,73,61,63,79,12,56,17,89,78,81,1,32,77,39,15,5,9,27,59,8,68,45,36,41,60,93,43,7,82,74,80,3,37,85,50,29,22,29,50,85,37,3,80,74,82,7,43,93,60,41,36,45,68,8,59,27,9,5,15,39,77,32,1,81,78,89,17,56,12,79,63,61,73,2,42,96,67,52,51,64,91,35,90,62,48,48,62,90,35,91,64,51,52,67,96,42,2,73,61,63,79,12,56,17,89,78,81,1,32,77,39,15,5,9,27,59,8,68,45,36,41,60,93,43,7,82,74,80,3,37,85,50,29,22,29,50,85,37,3,80,74,82,7,43,93,60,41,36,45,68,8,59,27,9,5,15,39,77,32,1,81,78,89,17,56,12,79,63,61,73,2,42,96,67,52,51,64,91,35,90,62,48,48,62,90,35,91,64,51,52,67,96,42,2,73,61,63,79,12,56,17,89,78,81,1,32,77,39,15,5,9,27,59,8,68,45]
// run: --buffer global_bins=u32:64:fill=1
