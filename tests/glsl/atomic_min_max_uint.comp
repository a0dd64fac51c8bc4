#version 450
// atomicMin / atomicMax (uint) on a runtime-sized uint array: per-cell depth bounds.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Depths {
    uint depth[];
} depths;

layout(set = 0, binding = 1) buffer Bounds {
    uint data[];
} bounds;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint d = depths.depth[i];
    uint cell = i / 64u;
    uint oldMin = atomicMin(bounds.data[2u * cell], d);
    uint oldMax = atomicMax(bounds.data[2u * cell + 1u], d);
    if (oldMin == 0xFFFFFFFFu && oldMax == 0u) {
        // first writer to touch this cell: nothing else to do
        return;
    }
}
