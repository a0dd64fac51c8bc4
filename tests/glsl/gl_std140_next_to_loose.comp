#version 430
// A std140 uniform block beside loose uniforms: both become uniform buffers.
layout(local_size_x = 64) in;

layout(std140, binding = 1) uniform Material {
    vec4 tint;
    float weights[4];
    ivec2 offsets[2];
} material;

uniform uint u_count;
uniform float u_gain;

layout(std430, binding = 0) buffer Samples { float samples[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
    float acc = 0.0;
    for (int k = 0; k < 4; ++k) {
        acc += material.weights[k] * samples[(i + uint(k)) % u_count];
    }
    samples[i] = acc * u_gain * material.tint.x + float(material.offsets[1].y);
}
