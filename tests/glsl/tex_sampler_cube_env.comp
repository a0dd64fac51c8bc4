#version 450
// Irradiance-style lookups into a samplerCube, and its size and levels.
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) uniform samplerCube env;
layout(set = 0, binding = 1) buffer Out { vec4 colour[6]; ivec4 info; };
const vec3 dirs[6] = vec3[](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
void main() {
    uint f = gl_LocalInvocationIndex;
    colour[f] = textureLod(env, dirs[f], 0.0);
    if (f == 0u) info = ivec4(textureSize(env, 0), textureQueryLevels(env), 0);
}
// run: --groups 1 --texture env=4x4:iota:fill=0,0.25,0.5,1:mips=3 --sampler env=nearest,clamp
// run: --buffer Out=f32:28
