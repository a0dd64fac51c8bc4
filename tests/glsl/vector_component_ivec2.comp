#version 450
// Component atomics (int) on an ivec2 member: min on .x, max on .y, with a whole ivec2 read afterwards.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer Points {
    ivec2 points[];
} pts;

layout(set = 0, binding = 1) buffer Box {
    ivec2 lo;
    ivec2 hi;
    ivec2 extent;
} box;

void main() {
    ivec2 p = pts.points[gl_GlobalInvocationID.x];
    atomicMin(box.lo.x, p.x);
    atomicMin(box.lo.y, p.y);
    atomicMax(box.hi.x, p.x);
    atomicMax(box.hi.y, p.y);
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        ivec2 lo = box.lo;
        ivec2 hi = box.hi;
        box.extent = hi - lo;
    }
}
