#version 450
// Refused: whole-struct copy (`Cell c = grid.cells[i];`) of a struct whose member is used atomically.
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
