#version 450
// texture() and textureLod() on a combined sampler in a compute shader:
// level 0 (plus the bias) as GLSL defines it outside fragment shaders.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1) buffer Out { vec4 samples[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec2 uv = vec2(float(i % 4u) + 0.25, float(i / 4u) + 0.75) / 4.0;
    samples[i] = texture(src, uv) + textureLod(src, uv, 0.0) * 0.5 + texture(src, uv, 1.0) * 0.25;
}
// run: --groups 1 --texture src=4x4:iota:fill=0,0.5,0.25,1:mips=3 --sampler src=nearest,clamp
// run: --buffer Out=f32:64
// no native: glslang compiles texture(src, uv, 1.0) in a compute shader to OpImageSampleExplicitLod with Bias|Lod, which spirv-val rejects (Bias needs ImplicitLod) and lavapipe fails to run (the submission is lost)
