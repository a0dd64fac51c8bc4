#version 450
// Component atomics (int) on an ivec2 member: min on .x, max on .y, with the ivec2 read back per component afterwards.
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
        // Whole-vector reads (`ivec2 lo = box.lo;`) fail today (see failing/).
        ivec2 lo = ivec2(box.lo.x, box.lo.y);
        ivec2 hi = ivec2(box.hi.x, box.hi.y);
        box.extent = hi - lo;
    }
}
