#version 450
// atomicMin / atomicMax (int) on elements of a fixed-size int array: per-lane signed range.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Samples {
    int samples[];
};

layout(set = 0, binding = 1) buffer Range {
    int lo[4];
    int hi[4];
} range;

void main() {
    uint i = gl_GlobalInvocationID.x;
    int s = samples[i];
    uint lane = i & 3u;
    atomicMin(range.lo[lane], s);
    atomicMax(range.hi[lane], s);
}
