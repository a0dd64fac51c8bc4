#version 450
// Whole-struct copy (`Cell c = grid.cells[i];`) of a struct whose member is used atomically: copied member by member.
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
// run: --groups 1 --buffer grid=u32:32:iota --buffer snap=u32:32
layout(local_size_x = 64) in;

struct Cell {
    uint count;
    uint owner;
};

layout(set = 0, binding = 0) buffer Grid {
    Cell cells[];
} grid;

layout(set = 0, binding = 1) buffer Snapshot {
    Cell copy[];
} snap;

void main() {
    uint i = gl_GlobalInvocationID.x % 16u;
    atomicAdd(grid.cells[i].count, 1u);
    memoryBarrierBuffer();
    barrier();
    Cell c = grid.cells[i];
    snap.copy[i] = c;
}
