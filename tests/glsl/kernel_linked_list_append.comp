#version 450
// Realistic kernel: per-tile linked lists (order-independent lists) with atomicAdd node allocation and atomicExchange on heads.
#include "include/common.glsl"
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform Params {
    uint tiles_x;
    uint tiles_y;
    uint max_nodes;
    uint fragment_count;
} params;

layout(set = 0, binding = 1) readonly buffer Fragments {
    uvec2 fragments[];          // x: packed tile coordinates, y: payload
} frags;

layout(set = 0, binding = 2) buffer Heads {
    uint heads[];
} heads;

layout(set = 0, binding = 3) buffer Nodes {
    uint node_count;
    uint overflow;
    uint pad0;
    uint pad1;
    Node nodes[];
} list;

void main() {
    uint index = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x) + gl_GlobalInvocationID.x;
    if (index >= params.fragment_count) {
        return;
    }
    uvec2 frag = frags.fragments[index];
    uint tx = frag.x & 0xFFFFu;
    uint ty = frag.x >> 16;
    if (tx >= params.tiles_x || ty >= params.tiles_y) {
        return;
    }

    uint node = atomicAdd(list.node_count, 1u);
    if (node >= params.max_nodes) {
        atomicAdd(list.overflow, 1u);
        return;
    }

    uint tile = ty * params.tiles_x + tx;
    list.nodes[node].value = frag.y;
    uint previous_head = atomicExchange(heads.heads[tile], node);
    list.nodes[node].next = previous_head;
}
