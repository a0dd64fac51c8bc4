#version 430
// Blocks that name no binding: OpenGL gives each binding 0 of its kind until
// the application calls glShaderStorageBlockBinding; atomport gives each a
// WGSL binding of its own and marks it "auto" in the binding map.
layout(local_size_x = 64) in;

layout(std430) readonly buffer Keys { uint keys[]; };
layout(std430) buffer Counts { uint counts[]; };
layout(std430, binding = 3) buffer Overflow { uint overflow; };

void main() {
    uint k = keys[gl_GlobalInvocationID.x];
    if (k < uint(counts.length())) {
        atomicAdd(counts[k], 1u);
    } else {
        atomicAdd(overflow, 1u);
    }
}
