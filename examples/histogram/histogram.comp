#version 450
// 256-bin histogram: each workgroup counts into shared memory with
// atomicAdd, then merges its bins into the global ones with atomicAdd.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout(set = 0, binding = 1) buffer Bins { uint bins[256]; };
layout(set = 0, binding = 2) uniform Params { uint count; };
shared uint local_bins[256];
void main() {
    uint lane = gl_LocalInvocationIndex;
    local_bins[lane] = 0u;
    barrier();
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        atomicAdd(local_bins[pixels[i] & 255u], 1u);
    }
    barrier();
    uint v = local_bins[lane];
    if (v != 0u) {
        atomicAdd(bins[lane], v);
    }
}
