#version 310 es
// OpenGL ES 3.10 compute shader with `precision highp int;`: int and uint atomics on a buffer and shared memory.
precision highp int;
precision highp float;
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Data {
    uint count;
    int signed_sum;
    uint values[];
} data;

shared uint s_max;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        s_max = 0u;
    }
    barrier();
    uint v = data.values[gl_GlobalInvocationID.x];
    atomicMax(s_max, v);
    atomicAdd(data.signed_sum, int(v & 7u) - 3);
    barrier();
    if (lid == 0u) {
        atomicAdd(data.count, s_max);
    }
}
