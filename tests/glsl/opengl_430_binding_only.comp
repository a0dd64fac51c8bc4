#version 430
// OpenGL-style GLSL 4.30: `layout(binding = N)` without set, std430 buffers, uint atomics.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Particles {
    vec4 positions[];
};

layout(std430, binding = 1) buffer Culling {
    uint visible;
    uint culled;
    uint visible_ids[];
} culling;

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 p = positions[i];
    if (p.w > 0.0 && all(lessThan(abs(p.xyz), vec3(p.w)))) {
        uint slot = atomicAdd(culling.visible, 1u);
        culling.visible_ids[slot] = i;
    } else {
        atomicAdd(culling.culled, 1u);
    }
}
