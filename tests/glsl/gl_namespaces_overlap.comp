#version 450
// OpenGL keeps binding numbers per kind: buffer binding 0, uniform-buffer
// binding 0, image unit 0 and atomic-counter binding 0 are four resources.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer Source { uint values[]; };
layout(std140, binding = 0) uniform Params { uint width; uint height; uint bins; } params;
layout(binding = 0, r32ui) uniform uimage2D histogramImage;
layout(binding = 0, offset = 0) uniform atomic_uint touched;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= params.width || p.y >= params.height) return;
    uint v = values[p.y * params.width + p.x] % params.bins;
    imageAtomicAdd(histogramImage, ivec2(int(v), 0), 1u);
    atomicCounterIncrement(touched);
}
