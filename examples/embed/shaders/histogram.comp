#version 450
// A 16-bin histogram of the kept values, dispatched indirectly: exactly
// enough workgroups for what the compaction kept.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Kept { uint count; uint kept[]; };
layout(set = 0, binding = 1) buffer Bins { uint bins[16]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) atomicAdd(bins[kept[i] % 16u], 1u);
}
