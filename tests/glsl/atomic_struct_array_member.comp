#version 450
// Atomics on members of structs in a runtime array (grid.cells[i].count / .owner), called from a helper, compswap in a while condition.
layout(local_size_x = 64) in;

struct Cell {
    uint count;
    uint owner;
    uvec2 span;
};

layout(set = 0, binding = 0) buffer Grid {
    Cell cells[];
} grid;

layout(set = 0, binding = 1) buffer Snapshot {
    Cell copy[];
} snap;

uint bump(uint cell) {
    return atomicAdd(grid.cells[cell].count, 1u);
}

void main() {
    uint id = gl_GlobalInvocationID.x;
    uint cell = id % 16u;
    uint rank = bump(cell);
    atomicMin(grid.cells[cell].span.x, id);
    atomicMax(grid.cells[cell].span.y, id);
    uint tries = 0u;
    while (atomicCompSwap(grid.cells[cell].owner, 0u, id + 1u) != 0u && tries < 1u) {
        tries++;
    }
    memoryBarrierBuffer();
    barrier();
    if (rank == 0u) {
        // Member by member: a whole `Cell c = grid.cells[cell];` copy fails today (see failing/).
        snap.copy[cell].count = grid.cells[cell].count;
        snap.copy[cell].owner = grid.cells[cell].owner;
        snap.copy[cell].span = uvec2(grid.cells[cell].span.x, grid.cells[cell].span.y);
    }
}
// run: --groups 1 --buffer Snapshot=u32:64:fill=9
// run: --buffer Grid=u32:[0,1000,4000000000,100,0,1001,3,30,0,1002,4000000000,30,0,1003,3,100,0,1004,4000000000,30,0,1005,3,30,0,1006,4000000000,100,0,1007,3,30,0,1008,4000000000,30,0,1009,3,100,0,1010,4000000000,30,0,1011,3,30,0,1012,4000000000,100,0,1013,3,30,0,1014,4000000000,30,0,1015,3,100]
// not on dx12: vkd3d 1.6 on lavapipe makes storage-buffer atomics visible across a barrier only from the first 8 invocations (tests/dx12/barrier_after_buffer_atomics.comp)
