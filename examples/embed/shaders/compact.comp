#version 450
// Stream compaction: keeps the values at or above a threshold with
// atomicAdd, and writes the next pass's workgroup count (GPU culling style).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { uint values[]; };
layout(set = 0, binding = 1) buffer Kept { uint count; uint kept[]; };
layout(set = 0, binding = 2) buffer Args { uint groups_x; uint groups_y; uint groups_z; };
layout(set = 0, binding = 3) uniform Params { uint threshold; uint n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n && values[i] >= threshold) {
        uint slot = atomicAdd(count, 1u);
        kept[slot] = values[i];
        atomicMax(groups_x, slot / 64u + 1u);
    }
    if (i == 0u) { groups_y = 1u; groups_z = 1u; }
}
