#version 450
// Reads the photo through a combined sampler (nearest, at texel centres, so
// every texel exactly) and stores its luma, 0..255, in integer arithmetic
// (weights 54, 183, 19 out of 256) so the CPU can check it exactly.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform sampler2D photo;
layout(set = 0, binding = 1) writeonly buffer Pixels { uint pixels[]; };
void main() {
    ivec2 size = textureSize(photo, 0);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, size))) return;
    vec3 c = texture(photo, (vec2(p) + 0.5) / vec2(size)).rgb;
    uvec3 c8 = uvec3(round(c * 255.0));
    pixels[p.y * size.x + p.x] = (54u * c8.r + 183u * c8.g + 19u * c8.b + 128u) >> 8u;
}
// run: --groups 3,2 --texture photo=40x24:fill=0.2,0.5,0.3,1:iota --sampler photo=nearest --buffer Pixels=u32:960
