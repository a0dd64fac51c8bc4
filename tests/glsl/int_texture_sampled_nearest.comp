#version 450
// A label map read with texture() and textureLod() on integer textures, as a segmentation pass reads one: the texel fetch a nearest sampler makes, wrapped by the sampler's address mode (repeat here), with an offset and an array layer.
// run: --groups 2,2 --texture labels=8x8:r32uint:iota --sampler labels=nearest,repeat --texture heights=4x4x3:rgba32sint:iota --sampler heights=nearest,mirror --buffer Out=u32:1024
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform usampler2D labels;
layout(set = 0, binding = 1) uniform isampler2DArray heights;
layout(std430, set = 0, binding = 2) writeonly buffer Out { uvec4 o[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 uv = (vec2(p) - 3.3) / 5.0;
    uint l = texture(labels, uv).x;
    uint l2 = textureLod(labels, uv * 0.5, 0.4).x;
    ivec4 h = textureLodOffset(heights, vec3(uv, float(p.x) * 0.3), 0.0, ivec2(1, -1));
    o[p.y * 16 + p.x] = uvec4(l, l2, uint(h.x), uint(h.y + 7));
}
