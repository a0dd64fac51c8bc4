#version 450
// Realistic kernel: 256-bin luminance histogram built in shared memory, merged into a global histogram with min/max tracking.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) uniform Params {
    uint pixel_count;
    float min_luma;
    float max_luma;
    uint pad;
} params;

layout(set = 0, binding = 1) readonly buffer Pixels {
    uint rgba8[];
} pixels;

layout(set = 0, binding = 2) buffer Histogram {
    uint total;
    uint darkest_bin;
    uint brightest_bin;
    uint groups_done;
    uint bins[256];
} hist;

shared uint s_bins[256];
shared uint s_count;

float luminance(uint packed) {
    vec4 c = unpackUnorm4x8(packed);
    return dot(c.rgb, vec3(0.2126, 0.7152, 0.0722));
}

uint bin_of(float luma) {
    float range = max(params.max_luma - params.min_luma, 1e-6);
    float t = clamp((luma - params.min_luma) / range, 0.0, 1.0);
    return min(uint(t * 256.0), 255u);
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_bins[lid] = 0u;
    if (lid == 0u) {
        s_count = 0u;
    }
    barrier();

    // Each invocation handles four pixels, strided across the workgroup.
    uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * 4u + lid;
    for (uint k = 0u; k < 4u; ++k) {
        uint idx = base + k * gl_WorkGroupSize.x;
        if (idx < params.pixel_count) {
            uint b = bin_of(luminance(pixels.rgba8[idx]));
            atomicAdd(s_bins[b], 1u);
            atomicAdd(s_count, 1u);
        }
    }
    memoryBarrierShared();
    barrier();

    uint count = s_bins[lid];
    if (count != 0u) {
        atomicAdd(hist.bins[lid], count);
        atomicMin(hist.darkest_bin, lid);
        atomicMax(hist.brightest_bin, lid);
    }
    if (lid == 0u) {
        atomicAdd(hist.total, s_count);
        memoryBarrierBuffer();
        atomicAdd(hist.groups_done, 1u);
    }
}
// run: --groups 3 --uniform pixel_count=2900 --uniform min_luma=0.0 --uniform max_luma=0.25 --uniform pad=0
// run: --buffer pixels=u32:3072:iota
// run: --buffer hist=u32:[0,4294967295,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
