#version 450
// Shadow-map lookups through a sampler2DShadow: a comparison sampler.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2DShadow shadowMap;
layout(set = 0, binding = 1) readonly buffer Points { vec4 points[]; };
layout(set = 0, binding = 2) buffer Lit { float lit[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 p = points[i];
    lit[i] = texture(shadowMap, vec3(p.xy, p.z));
}
// run: --groups 2 --texture shadowMap=4x4:depth32float:fill=0.5
// run: --sampler shadowMap=nearest,clamp,compare=less
// run: --buffer Points=f32:[0.125,0.125,0.25,1,0.375,0.125,0.5,1,0.625,0.125,0.75,1,0.875,0.125,1.0,1,0.125,0.375,0.0,1,0.375,0.375,0.375,1,0.625,0.375,0.625,1,0.875,0.375,0.125,1,0.125,0.625,0.25,1,0.375,0.625,0.5,1,0.625,0.625,0.75,1,0.875,0.625,1.0,1,0.125,0.875,0.0,1,0.375,0.875,0.375,1,0.625,0.875,0.625,1,0.875,0.875,0.125,1,0.125,0.125,0.25,1,0.375,0.125,0.5,1,0.625,0.125,0.75,1,0.875,0.125,1.0,1,0.125,0.375,0.0,1,0.375,0.375,0.375,1,0.625,0.375,0.625,1,0.875,0.375,0.125,1,0.125,0.625,0.25,1,0.375,0.625,0.5,1,0.625,0.625,0.75,1,0.875,0.625,1.0,1,0.125,0.875,0.0,1,0.375,0.875,0.375,1,0.625,0.875,0.625,1,0.875,0.875,0.125,1]
// run: --buffer Lit=f32:32:fill=7
