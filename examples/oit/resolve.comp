#version 450
// Resolves each pixel's list: gathers its fragments, sorts them far to near
// (depth, then disc), and blends them over the background.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D heads;
layout(set = 0, binding = 2) readonly buffer Nodes { uvec4 nodes[]; };
layout(set = 0, binding = 3) buffer Counters { uint allocated; uint dropped; uint truncated; };
layout(set = 0, binding = 4) uniform Params { uint count; uint width; uint height; uint capacity; };
layout(set = 0, binding = 5) writeonly buffer Colors { uint colors[]; };
const uint EMPTY = 0xFFFFFFFFu;
const uint MAX_FRAGMENTS = 32u;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    uvec4 frags[MAX_FRAGMENTS];
    uint n = 0u;
    uint node = imageLoad(heads, ivec2(p)).x;
    while (node != EMPTY && n < MAX_FRAGMENTS) {
        frags[n] = nodes[node];
        node = frags[n].z;
        n++;
    }
    if (node != EMPTY) atomicAdd(truncated, 1u);
    // Insertion sort, farthest first: larger depth, then larger disc index.
    for (uint i = 1u; i < n; i++) {
        uvec4 f = frags[i];
        uint j = i;
        for (; j > 0u; j--) {
            uvec4 g = frags[j - 1u];
            if (g.y > f.y || (g.y == f.y && g.w > f.w)) break;
            frags[j] = g;
        }
        frags[j] = f;
    }
    vec3 c = vec3(0.06, 0.07, 0.10);
    for (uint i = 0u; i < n; i++) {
        vec4 s = unpackUnorm4x8(frags[i].x);
        c = c * (1.0 - s.a) + s.rgb * s.a;
    }
    uvec3 rgb = uvec3(clamp(c, 0.0, 1.0) * 255.0 + 0.5);
    colors[p.y * width + p.x] = rgb.r | (rgb.g << 8) | (rgb.b << 16) | (255u << 24);
}
// run: --groups 3,2 --image heads=40x24:fill=5 --buffer Counters=u32:[48,0,0] --buffer Colors=u32:960
// run: --uniform count=30 --uniform width=40 --uniform height=24 --uniform capacity=48
// run: --buffer Nodes=u32:[1637840355,302,22,3,1305565785,104,30,10,2154147010,102,10,22,2485769970,300,29,4,2681571177,304,27,20,1236736748,101,13,23,2642028118,300,18,3,1765930148,202,44,13,0,0,0,0,2573999206,204,17,12,1784111767,303,35,23,0,0,0,0,0,0,0,0,828005090,100,3,5,0,0,0,0,0,0,0,0,1086354950,104,4294967295,14,921941312,104,41,24,2099575976,300,19,18,2443380364,201,23,4,828125117,203,0,24,1960123664,204,32,20,2323607456,203,28,24,873646872,204,26,7,0,0,0,0,0,0,0,0,920670613,303,45,7,1107977875,200,21,18,1775755305,104,7,9,2093154974,104,9,12,1183021055,201,37,21,3076859066,102,39,20,2368955287,201,43,8,2132520530,303,46,6,2186658320,301,33,19,2393952630,100,42,16,1568716891,203,47,18,3171259173,102,40,6,0,0,0,0,1262500393,104,34,2,2393689281,203,20,26,1077924173,101,1,9,1386086503,303,4,29,1229039851,203,36,13,3267530833,303,2,6,1408777056,202,31,21,1295539101,204,16,23,3136642755,303,6,21]
// (The heads image can only be filled: every pixel's list starts at node 5 and runs 40 nodes, past MAX_FRAGMENTS, with depth ties broken by disc.)
