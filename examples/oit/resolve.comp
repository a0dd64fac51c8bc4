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
