#version 450
// A neighbour exchange through shared memory in the style of image and
// signal filters: each invocation past the end of the data returns at once
// (`if (i >= n) return;`), the others stage their value in shared memory,
// wait at the barrier and read their pair's. For the WebGPU target the
// return becomes predication: the invocations that returned still meet the
// barrier, and store nothing.
// run: --groups 2 --buffer Values=u32:128:iota --buffer Size=u32:[100] --buffer Out=u32:128:fill=7
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) readonly buffer Size { uint n; };
layout(set = 0, binding = 2) buffer Out { uint exchanged[]; };
shared uint tile[64];
shared uint stored;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) {
        stored = 0u;
    }
    barrier();
    if (i >= n) {
        return;
    }
    tile[lid] = values[i] * 3u + 1u;
    atomicAdd(stored, 1u);
    barrier();
    // The pair (lid ^ 1) is inside the data too: n is even.
    exchanged[i] = tile[lid ^ 1u] + (stored << 16u);
}
