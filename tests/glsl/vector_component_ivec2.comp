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
// run: --groups 1
// run: --buffer pts=i32:[-30,-20,-1,-7,28,6,-4,19,25,-15,-7,-2,22,11,-10,24,19,-10,-13,3,16,16,-16,-18,13,-5,-19,8,10,21,-22,-13,7,0,-25,13,4,26,-28,-8,1,5,30,18,-2,-16,27,-3,-5,10,24,23,-8,-11,21,2,-11,15,18,-19,-14,-6,15,7,-17,20,12,-14,-20,-1,9,12,-23,25,6,-9,-26,4,3,17,-29,-17,0,-4,29,9,-3,22,26,-12,-6,1,23,14,-9,-20,20,-7,-12,6,17,19,-15,-15,14,-2,-18,11,11,24,-21,-10,8,3,-24,16,5,-18,-27,-5,2,8,-30,21,-1,-13,28,0]
// run: --buffer box=i32:[2147483647,2147483647,-2147483648,-2147483648,0,0]
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
