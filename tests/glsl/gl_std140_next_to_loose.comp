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

// Neighbours are read from one buffer and results written to another: in
// place, an invocation would read what another workgroup may have written.
layout(std430, binding = 0) readonly buffer Samples { float samples[]; };
layout(std430, binding = 2) writeonly buffer Filtered { float filtered[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
    float acc = 0.0;
    for (int k = 0; k < 4; ++k) {
        acc += material.weights[k] * samples[(i + uint(k)) % u_count];
    }
    filtered[i] = acc * u_gain * material.tint.x + float(material.offsets[1].y);
}
// run: --groups 4 --uniform u_count=200 --uniform u_gain=2 --buffer Filtered=f32:200
// run: --uniform tint=0.5,3,7,9 --uniform weights=1.5,0.25,0.25,0.5 --uniform offsets=5,6,7,-3
// run: --buffer Samples=f32:[8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,8,-4,0.5,1.5,2.5,3.5,4.5,5.5,6.5,7.5,8.5,9.5,10.5,11.5,12.5,13.5,14.5,15.5,16.5,17.5,18.5,19.5,20.5,21.5,22.5,23.5,24.5,25.5,26.5,27.5,28.5,29.5,30.5,31.5,32.5,33.5,34.5,35.5,36.5,37.5,38.5,39.5,40.5,41.5,42.5,43.5,44.5,45.5,46.5,47.5,48.5,49.5,50.5,51.5,52.5,53.5,54.5,55.5]
