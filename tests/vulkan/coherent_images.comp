#version 450
// A visibility buffer: a coherent r32ui image claimed atomically, an
// ordinary-format image written next to it, and a declared but unused cube
// of a format WGSL has no storage texture for.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) coherent volatile restrict uniform uimage2D ids;
layout(set = 0, binding = 1, rgba8) coherent writeonly uniform image2D tint;
layout(set = 0, binding = 2, rgba16) uniform imageCube unused_probe;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint before = imageAtomicMax(ids, p, uint(p.x * 16 + p.y));
    imageStore(tint, p, vec4(float(before & 1u), 0.5, 0.0, 1.0));
}
// run: --groups 2,2 --image ids=16x16:fill=101 --image tint=16x16
