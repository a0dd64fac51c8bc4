#version 430
// OpenGL style: a sampler2D on texture unit 0 beside buffer binding 0 and a
// loose uniform; the texture and its sampler get WGSL bindings of their own.
layout(local_size_x = 8, local_size_y = 8) in;
uniform float u_threshold;
layout(binding = 0) uniform sampler2D mask;
layout(std430, binding = 0) buffer Count { uint above; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, textureSize(mask, 0)))) return;
    if (texelFetch(mask, p, 0).r > u_threshold) atomicAdd(above, 1u);
}
// run: --groups 3,2 --uniform u_threshold=0.4 --texture mask=20x14:iota --sampler mask=nearest --buffer Count=u32:[5]
