#version 450
// A voxel occupancy grid in a usampler3D, counted per slab with atomics.
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(set = 0, binding = 0) uniform usampler3D occupancy;
layout(set = 0, binding = 1) buffer Slabs { uint filled[]; };
void main() {
    ivec3 v = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(v, textureSize(occupancy, 0)))) return;
    if (texelFetch(occupancy, v, 0).r != 0u) atomicAdd(filled[v.z], 1u);
}
// run: --groups 3,3,2 --texture occupancy=10x9x7:r32uint:iota --buffer Slabs=u32:8:fill=1
