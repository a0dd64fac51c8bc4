#version 450
// A luminance histogram read through a combined sampler with texelFetch:
// the usual way image tools count pixels.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D photo;
layout(set = 0, binding = 1) buffer Bins { uint bins[64]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, textureSize(photo, 0)))) return;
    vec3 c = texelFetch(photo, p, 0).rgb;
    float y = dot(c, vec3(0.2126, 0.7152, 0.0722));
    atomicAdd(bins[min(uint(y * 64.0), 63u)], 1u);
}
// run: --groups 3,2 --texture photo=20x12:iota:fill=0,0.6,0.3,1 --sampler photo=nearest,clamp
// run: --buffer Bins=u32:64:fill=2
