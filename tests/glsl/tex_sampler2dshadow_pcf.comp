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
