#version 450
// Parameters from a `uniform` block (threshold, stride) controlling atomicAdd/atomicOr on a buffer.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform Params {
    uint threshold;
    uint stride;
    uint mask;
} params;

layout(set = 0, binding = 1) readonly buffer Input {
    uint values[];
} inp;

layout(set = 0, binding = 2) buffer Output {
    uint above;
    uint bits;
} outp;

void main() {
    uint v = inp.values[gl_GlobalInvocationID.x * params.stride];
    if (v > params.threshold) {
        atomicAdd(outp.above, 1u);
        atomicOr(outp.bits, v & params.mask);
    }
}
// run: --groups 2 --uniform threshold=100 --uniform stride=2 --uniform mask=0xF0 --buffer inp=u32:256:iota
// run: --buffer outp=u32:[3,1]
