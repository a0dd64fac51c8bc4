#version 450
// Atomics on a `shared` uint scalar: a workgroup-local counter flushed once to a global buffer.
layout(local_size_x = 128) in;

layout(set = 0, binding = 0) readonly buffer Input {
    float values[];
} inp;

layout(set = 0, binding = 1) buffer Output {
    uint positive;
} outp;

shared uint local_positive;

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        local_positive = 0u;
    }
    barrier();
    if (inp.values[gl_GlobalInvocationID.x] > 0.0) {
        atomicAdd(local_positive, 1u);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        atomicAdd(outp.positive, local_positive);
    }
}
