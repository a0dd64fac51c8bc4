#version 450
// defines: BINS=64
// Histogram whose bin count comes only from the command line (-D BINS=64): shared bins sized by the macro.
layout(local_size_x = BINS) in;

layout(set = 0, binding = 0) readonly buffer Input {
    uint samples[];
} inp;

layout(set = 0, binding = 1) buffer Histogram {
    uint bins[BINS];
} hist;

shared uint s_bins[BINS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    s_bins[lid] = 0u;
    barrier();
    atomicAdd(s_bins[inp.samples[gl_GlobalInvocationID.x] % uint(BINS)], 1u);
    barrier();
    atomicAdd(hist.bins[lid], s_bins[lid]);
}
