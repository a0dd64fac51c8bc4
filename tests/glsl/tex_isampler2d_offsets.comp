#version 450
// Integer textures, texelFetchOffset and textureLodOffset.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform isampler2D heights;
layout(set = 0, binding = 1) buffer Slopes { ivec2 slope[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy) + 1;
    int dx = texelFetchOffset(heights, p, 0, ivec2(1, 0)).r - texelFetchOffset(heights, p, 0, ivec2(-1, 0)).r;
    int dy = texelFetch(heights, p + ivec2(0, 1), 0).r - texelFetchOffset(heights, p, 0, ivec2(0, -1)).r;
    slope[gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x] = ivec2(dx, dy);
}
// run: --groups 1,1 --texture heights=10x10:r32sint:iota --buffer Slopes=i32:128
