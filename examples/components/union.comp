#version 450
// Lock-free union-find: every foreground pixel unites with its right and
// lower neighbours. A union links the larger root under the smaller one with
// atomicCompSwap and retries from the root it lost to, so every root is the
// smallest pixel index of its component.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) buffer Parents { uint parent[]; };
layout(set = 0, binding = 1) uniform Params { uint width; uint height; };
const uint BACKGROUND = 0xFFFFFFFFu;

uint find(uint x) {
    uint p = parent[x];
    while (p != x) {
        x = p;
        p = parent[x];
    }
    return x;
}

void unite(uint a, uint b) {
    // Each attempt either finishes or follows a root that just moved.
    for (uint attempt = 0u; attempt < 4096u; attempt++) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (a < b) { uint t = a; a = b; b = t; }
        uint seen = atomicCompSwap(parent[a], a, b);
        if (seen == a) return;
        a = seen;
    }
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    uint i = p.y * width + p.x;
    if (parent[i] == BACKGROUND) return;
    if (p.x + 1u < width && parent[i + 1u] != BACKGROUND) unite(i, i + 1u);
    if (p.y + 1u < height && parent[i + width] != BACKGROUND) unite(i, i + width);
}
