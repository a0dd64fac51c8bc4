#version 450
// Per-pixel linked lists: every pixel a disc covers becomes a fragment
// node. atomicAdd on the node counter allocates it; imageAtomicExchange on
// the list-head image links it in front of the pixel's list. When the node
// buffer is full, the fragment is counted as dropped instead of written.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D heads;
// Per disc: (center x, center y, radius, colour rgba8), (depth, 0, 0, 0).
layout(set = 0, binding = 1) readonly buffer Discs { uvec4 discs[]; };
// Per node: (colour rgba8, depth, next, disc).
layout(set = 0, binding = 2) writeonly buffer Nodes { uvec4 nodes[]; };
layout(set = 0, binding = 3) buffer Counters { uint allocated; uint dropped; };
layout(set = 0, binding = 4) uniform Params { uint count; uint width; uint height; uint capacity; };

void main() {
    uint d = gl_GlobalInvocationID.x;
    if (d >= count) return;
    uvec4 disc = discs[2u * d];
    uint depth = discs[2u * d + 1u].x;
    int cx = int(disc.x), cy = int(disc.y), r = int(disc.z);
    for (int y = max(cy - r, 0); y <= min(cy + r, int(height) - 1); y++) {
        for (int x = max(cx - r, 0); x <= min(cx + r, int(width) - 1); x++) {
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
            uint node = atomicAdd(allocated, 1u);
            if (node >= capacity) {
                atomicAdd(dropped, 1u);
                continue;
            }
            uint next = imageAtomicExchange(heads, ivec2(x, y), node);
            nodes[node] = uvec4(disc.w, depth, next, d);
        }
    }
}
