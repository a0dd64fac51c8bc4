#version 460
// Meshlet cone culling over meshlets laid out as a mesh optimiser packs
// them: a vec3 centre and radius, then an int8_t cone axis and cut-off and
// uint8_t counts in the same words, std430. Visible meshlets are appended
// with atomicAdd and their triangles counted.
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
struct Meshlet {
    vec3 center;
    float radius;
    int8_t cone_axis[3];
    int8_t cone_cutoff;
    uint data_offset;
    uint8_t vertex_count;
    uint8_t triangle_count;
};
layout(std430, binding = 0) readonly buffer Meshlets { Meshlet meshlets[]; };
layout(std430, binding = 1) writeonly buffer Visible { uint visibleCount; uint visible[]; };
layout(std430, binding = 2) buffer Counters { uint triangles; };
layout(push_constant) uniform Cull { vec3 eye; uint count; } cull;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= cull.count) {
        return;
    }
    Meshlet m = meshlets[i];
    vec3 axis = vec3(m.cone_axis[0], m.cone_axis[1], m.cone_axis[2]) / 127.0;
    float cutoff = float(m.cone_cutoff) / 127.0;
    vec3 dir = normalize(m.center - cull.eye);
    if (dot(dir, axis) >= cutoff + 0.0001) {
        return;
    }
    uint slot = atomicAdd(visibleCount, 1u);
    visible[slot] = i;
    atomicAdd(triangles, uint(m.triangle_count));
}
// run: --groups 2 --buffer Meshlets=u8:2048:iota --buffer Visible=u32:65:iota --buffer Counters=u32:1 --push eye=0.5,-1,2 --push count=64
// compare: Visible=multiset: atomicAdd hands out the slots in the order the invocations ran
