#version 450
// A tile classifier whose helper writes the invocation's own index through
// its `inout` parameter, then waits at a barrier under a branch on it. GLSL
// requires the branch to be uniform (this one is not: the program is not
// valid), so atomport branches on the value the workgroup shares through a
// workgroupUniformLoad, which WGSL accepts; the stored slots are unchanged.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Tiles { uint tiles[]; };
layout(set = 0, binding = 1) readonly buffer Count { uint count; };

void classify(inout uint slot) {
    slot = gl_LocalInvocationID.x;
    if (slot > 3u) {
        barrier();
    }
}

void main() {
    uint slot = count;
    classify(slot);
    tiles[gl_GlobalInvocationID.x] = slot;
}
