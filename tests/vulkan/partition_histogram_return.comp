#version 450
// A radix-sort upsweep in the style of GPU sorting libraries: each
// workgroup histograms one partition of keys into shared memory; the
// workgroups past the element count (read from a buffer the host fills)
// return before the first barrier, whole. The digit counts are then
// reduced by a helper whose loop runs a number of rounds read from a
// read-only buffer, with a barrier each round. Every condition before a
// barrier is uniform by WGSL's rules once the work-group id is passed down
// as a value (it reaches main through a private copy).
// run: --groups 5 --buffer Count=u32:[300,3] --buffer Keys=u32:640:iota --uniform pass_=1
// run: --buffer Partition=u32:80 --buffer Global=u32:16
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Count { uint elementCount; uint reduceRounds; };
layout(set = 0, binding = 1) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 2) uniform Pass { int pass_; };
layout(set = 0, binding = 3) buffer Partition { uint partitionHistogram[]; };
layout(set = 0, binding = 4) buffer Global { uint globalHistogram[16]; };

const uint PARTITION = 128u;
shared uint localHistogram[16];
shared uint partial[64];

// Sums partial[] pairwise for `rounds` rounds (64 >> rounds left).
uint reduce(uint index, uint rounds) {
    uint width = 32u;
    for (uint r = 0u; r < rounds; r++) {
        if (index < width) {
            partial[index] += partial[index + width];
        }
        barrier();
        width >>= 1u;
    }
    return partial[0];
}

void main() {
    uint index = gl_LocalInvocationID.x;
    uint partitionIndex = gl_WorkGroupID.x;
    uint partitionStart = partitionIndex * PARTITION;
    if (partitionStart >= elementCount) {
        return;
    }
    if (index < 16u) {
        localHistogram[index] = 0u;
    }
    barrier();
    uint mine = 0u;
    for (int i = 0; i < 2; i++) {
        uint keyIndex = partitionStart + uint(64 * i) + index;
        uint key = keyIndex < elementCount ? keys[keyIndex] * 2654435761u : 0xffffffffu;
        uint digit = bitfieldExtract(key, 4 * pass_, 4);
        atomicAdd(localHistogram[digit], 1u);
        mine += key == 0xffffffffu ? 0u : 1u;
    }
    partial[index] = mine;
    barrier();
    uint counted = reduce(index, reduceRounds);
    if (index < 16u) {
        // Only the 16 buckets: the counts of every key this partition read,
        // padding included, which the last digit holds.
        partitionHistogram[16u * partitionIndex + index] = localHistogram[index];
        atomicAdd(globalHistogram[index], localHistogram[index]);
    }
    if (index == 0u) {
        // partial[0] after 3 rounds: the sum over lanes 0, 8, 16, … 56.
        atomicAdd(globalHistogram[15], counted << 16u);
    }
}
