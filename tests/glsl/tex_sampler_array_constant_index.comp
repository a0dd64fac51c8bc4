#version 450
// An array of combined samplers indexed by constants: one texture and one
// sampler per element, bound as `layers[0]`, `layers[1]`, …
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D layers[3];
layout(set = 0, binding = 1) buffer Out { vec4 blended[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec2 uv = vec2(float(i % 4u) + 0.5, float(i / 4u) + 0.5) / 4.0;
    blended[i] = textureLod(layers[0], uv, 0.0) * 0.5
        + texelFetch(layers[1], ivec2(i % 4u, i / 4u), 0) * 0.25
        + textureLod(layers[2], uv, 0.0) * 0.25;
}
// run: --groups 1 --texture layers[0]=4x4:iota:fill=0,0.5,0.25,1
// run: --texture layers[1]=4x4:rgba16float:iota:fill=1,2,3,4 --texture layers[2]=4x4:iota:fill=0,1,0.5,0
// run: --sampler layers[0]=nearest,clamp --sampler layers[1]=nearest,clamp
// run: --sampler layers[2]=nearest,repeat --buffer Out=f32:64
