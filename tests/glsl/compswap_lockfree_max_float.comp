#version 450
// Lock-free float maximum: atomicCompSwap (uint) retry loop on float bits, return value drives the loop.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Values {
    float values[];
};

layout(set = 0, binding = 1) buffer Result {
    uint max_bits;
    uint retries;
} result;

void main() {
    float v = values[gl_GlobalInvocationID.x];
    uint expected = result.max_bits;
    while (v > uintBitsToFloat(expected)) {
        uint seen = atomicCompSwap(result.max_bits, expected, floatBitsToUint(v));
        if (seen == expected) {
            break;
        }
        expected = seen;
        atomicAdd(result.retries, 1u);
    }
}
// run: --groups 4 --buffer Values=f32:256:iota --buffer Result=u32:[1132363776,0]
