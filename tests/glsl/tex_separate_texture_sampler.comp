#version 450
// Vulkan GLSL's separate texture2D and sampler, combined at the call.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform texture2D albedo;
layout(set = 0, binding = 1) uniform sampler linearClamp;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D halfRes;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 uv = (vec2(p) * 2.0 + 1.0) / vec2(textureSize(sampler2D(albedo, linearClamp), 0));
    imageStore(halfRes, p, textureLod(sampler2D(albedo, linearClamp), uv, 0.0));
}
// run: --groups 1,1 --texture albedo=16x16:iota:fill=0,0.5,0.25,1 --sampler linearClamp=nearest,clamp
// run: --image halfRes=8x8
