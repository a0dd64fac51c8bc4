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
// run: --groups 2,1 --uniform tiles_x=8 --uniform tiles_y=4 --uniform max_nodes=32
// run: --uniform fragment_count=32
// run: --buffer frags=u32:[0,100,1,101,2,102,4,103,5,104,6,105,7,106,65536,107,65537,108,65538,109,65539,110,65541,111,65542,112,65543,113,131072,114,131073,115,131074,116,131075,117,131076,118,131078,119,131079,120,196608,121,196609,122,196610,123,196611,124,196612,125,196613,126,196615,127,9,500,262146,501,65544,502,65535,503,5,999,5,999,5,999,5,999]
// run: --buffer heads=u32:32:fill=4294967295 --buffer list=u32:68
// compare: heads=labels: each tile's head is the node its last fragment was given by atomicAdd, which depends on the order invocations ran in; which tiles are empty (0xFFFFFFFF) and that heads are distinct is fixed
// compare: list=multiset: node slots come from atomicAdd in invocation order; with one fragment per tile every node's next is 0xFFFFFFFF, so the counts, payloads and links are fixed as a multiset
