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
// run: --groups 3 --buffer Counts=u32:32:fill=2 --buffer Overflow=u32:[7]
// run: --buffer Keys=u32:[13,15,24,5,19,34,20,16,1,22,32,5,2,28,21,35,26,17,31,1,13,4,27,2,11,34,21,8,30,9,33,33,28,31,37,5,14,28,33,35,18,35,40,10,33,32,35,16,19,24,39,13,19,9,34,33,17,36,31,12,26,34,7,32,0,38,24,1,34,2,33,25,34,36,7,31,5,10,4,34,29,26,25,17,15,30,31,8,21,27,30,33,20,6,12,26,39,1,16,8,1,2,12,9,14,0,18,20,22,15,39,31,6,31,37,7,32,39,16,12,33,27,1,24,40,26,33,39,10,34,13,40,34,40,13,33,13,34,39,37,8,14,40,22,11,20,38,20,12,13,12,6,8,15,8,5,16,24,6,27,26,34,8,12,25,40,1,6,12,36,22,23,7,32,40,21,32,12,4,30,6,1,2,35,39,32,36,30,9,12,11,7]
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
