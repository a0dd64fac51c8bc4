#version 450
// Histogram equalization in one workgroup: an inclusive prefix sum of the
// bins (the CDF) in shared memory, then the lookup table
// lut[v] = round((cdf[v] - cdf_min) * 255 / (count - cdf_min)).
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Bins { uint bins[256]; };
layout(set = 0, binding = 1) writeonly buffer Lut { uint lut[256]; };
layout(set = 0, binding = 2) uniform Params { uint count; };
shared uint cdf[256];
shared uint cdf_min;
void main() {
    uint lane = gl_LocalInvocationIndex;
    cdf[lane] = bins[lane];
    if (lane == 0u) cdf_min = 0xFFFFFFFFu;
    barrier();
    for (uint offset = 1u; offset < 256u; offset <<= 1u) {
        uint add = lane >= offset ? cdf[lane - offset] : 0u;
        barrier();
        cdf[lane] += add;
        barrier();
    }
    if (bins[lane] != 0u) atomicMin(cdf_min, cdf[lane]);
    barrier();
    uint span = max(count - cdf_min, 1u);
    uint above = cdf[lane] >= cdf_min ? cdf[lane] - cdf_min : 0u;
    lut[lane] = (above * 255u + span / 2u) / span;
}
// run: --groups 1 --buffer Lut=u32:256 --uniform count=960
// run: --buffer Bins=u32:[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,3,3,7,3,8,6,7,9,8,7,14,22,24,19,19,15,17,20,12,18,29,24,20,16,14,14,15,18,14,19,17,15,18,10,14,23,24,10,17,23,11,16,17,18,15,19,15,18,20,13,15,17,14,7,11,13,10,15,6,9,5,8,10,5,7,6,5,12,7,2,5,1,2,3,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
