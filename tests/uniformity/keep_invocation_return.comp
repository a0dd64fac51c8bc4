#version 450
// The common bounds check of single invocations before a barrier
// (`if (id >= n) return;`): the invocations past the end leave, the others
// wait. atomport turns the return into predication, so that browsers
// accept the barrier.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; };
layout(set = 0, binding = 1) readonly buffer Size { uint n; };
shared uint tile[64];

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) {
        return;
    }
    tile[gl_LocalInvocationID.x] = values[i];
    barrier();
    values[i] = tile[63u - gl_LocalInvocationID.x];
}
