#version 430
// Loose uniforms with initializers: used when the host sets none.
layout(local_size_x = 1) in;

uniform uint u_iterations = 4u;
uniform float u_scale = 0.25;
uniform vec3 u_bias = vec3(1.0, -2.0, 0.5);
uniform ivec2 u_step = ivec2(3);
uniform bool u_enabled = true;
uniform float u_required;

layout(std430, binding = 0) buffer Result { float result[]; };

void main() {
    float x = u_required;
    for (uint k = 0u; k < u_iterations; ++k) {
        x = x * u_scale + u_bias.x + u_bias.y + u_bias.z;
    }
    result[0] = u_enabled ? x + float(u_step.x * u_step.y) : 0.0;
}
// run: --groups 1 --uniform u_required=6 --buffer Result=f32:[-1,-1]
