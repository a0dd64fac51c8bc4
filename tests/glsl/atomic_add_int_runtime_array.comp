#version 450
// atomicAdd (int) on elements of a runtime-sized int array, using the returned old value.
layout(local_size_x = 128) in;

layout(set = 0, binding = 0) readonly buffer Input {
    int values[];
} src;

layout(set = 0, binding = 1) buffer Sums {
    int bucket_sum[16];
    int before_last[];
} sums;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(src.values.length())) {
        return;
    }
    int v = src.values[i];
    uint bucket = uint(abs(v)) % 16u;
    int previous = atomicAdd(sums.bucket_sum[bucket], v);
    sums.before_last[i] = previous;
}
// run: --groups 3 --buffer Sums=i32:272:fill=100
// run: --buffer Input=i32:[-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-32,1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15]
// compare: Sums=multiset: before_last holds each atomicAdd's old value, a running sum in whatever order a bucket's invocations ran (every value of a bucket is the same, so the set of running sums is fixed)
