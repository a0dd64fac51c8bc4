#version 450
// textureGather and textureQueryLevels on a mipmapped texture.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler2D mipped;
layout(set = 0, binding = 1) buffer Out { int levels; vec4 gathered[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    gathered[p.y * 4 + p.x] = textureGather(mipped, (vec2(p) + 0.5) / 4.0, 1);
    if (p == ivec2(0)) levels = textureQueryLevels(mipped);
}
// run: --groups 1,1 --texture mipped=4x4:rgba16float:iota:fill=0,0.5,0.25,1:mips=3
// run: --sampler mipped=nearest,clamp --buffer Out=f32:68
