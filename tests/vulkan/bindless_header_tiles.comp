#version 460
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_EXT_shader_image_load_formatted : require
// A tile classifier in the style of bindless renderers: a header shared by
// every kernel declares the whole "mega set" (unsized arrays of formatless
// storage images of three shapes, all at one binding, and sampled textures
// beside them), and this kernel uses none of it: it reads a tile table from
// an ordinary r32ui image and counts the dirty tiles. The unused arrays are
// dropped with their types, so nothing formatless reaches WGSL.
// run: --groups 2,2 --image table=8x8:r32ui --buffer Counts=u32:4 --buffer Seeds=u32:64:iota
layout(local_size_x = 4, local_size_y = 4) in;

layout(set = 1, binding = 0) uniform image2D bindlessImages[];
layout(set = 1, binding = 0) uniform image3D bindlessVolumes[];
layout(set = 1, binding = 0) uniform uimage2DArray bindlessLayers[];
layout(set = 1, binding = 1) uniform texture2D bindlessTextures[];

layout(set = 0, binding = 0, r32ui) uniform uimage2D table;
layout(set = 0, binding = 1) buffer Counts { uint backed; uint dirty; uint both; uint cleared; };
layout(set = 0, binding = 2) readonly buffer Seeds { uint seeds[]; };

const uint BACKED = 1u;
const uint DIRTY = 2u;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(table)))) {
        return;
    }
    // A table with every state in it: the entry's flags come from its seed.
    uint entry = (seeds[p.y * 8 + p.x] * 7u + uint(p.y) * 3u) & 3u;
    imageStore(table, p, uvec4(entry << 4u | entry));
    uint page = imageLoad(table, p).x;
    bool isBacked = (page & BACKED) != 0u;
    bool isDirty = (page & DIRTY) != 0u;
    if (isBacked) atomicAdd(backed, 1u);
    if (isDirty) atomicAdd(dirty, 1u);
    if (isBacked && isDirty) {
        atomicAdd(both, 1u);
        // Clear the dirty flag, as the renderer does once the page is queued.
        uint before = imageAtomicAnd(table, p, ~DIRTY);
        if ((before & DIRTY) != 0u) atomicAdd(cleared, 1u);
    }
}
