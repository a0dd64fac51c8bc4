#version 450
// Bounding boxes of points with float atomicMin/atomicMax, in shared memory
// per workgroup and merged into the buffer (GL_EXT_shader_atomic_float2).
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Points { vec2 points[]; };
layout(set = 0, binding = 1) buffer Bounds {
    float min_x; float min_y; float max_x; float max_y; float total;
} bounds;
shared float s_min_x, s_max_y;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) { s_min_x = 1.0 / 0.0; s_max_y = -1.0 / 0.0; }
    barrier();
    vec2 p = points[gl_GlobalInvocationID.x];
    atomicMin(s_min_x, p.x);
    atomicMax(s_max_y, p.y);
    atomicMin(bounds.min_y, p.y);
    atomicMax(bounds.max_x, p.x);
    atomicAdd(bounds.total, 1.0);
    barrier();
    if (lid == 0u) {
        atomicMin(bounds.min_x, s_min_x);
        atomicMax(bounds.max_y, s_max_y);
    }
}
