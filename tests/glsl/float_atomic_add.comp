#version 450
// GL_EXT_shader_atomic_float: atomicAdd on a float block member (sum of squares).
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Input {
    float values[];
} inp;

layout(set = 0, binding = 1) buffer Accum {
    float sum;
    float sum_sq;
} acc;

void main() {
    float v = inp.values[gl_GlobalInvocationID.x];
    atomicAdd(acc.sum, v);
    atomicAdd(acc.sum_sq, v * v);
}
// run: --groups 4 --buffer Input=f32:256:iota --buffer Accum=f32:[0.5,-2]
