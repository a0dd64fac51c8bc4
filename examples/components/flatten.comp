#version 450
// Points every pixel straight at its root with atomicMin (a root is never
// larger than a parent on the way to it), so labels[i] is the component's
// smallest pixel index.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) buffer Parents { uint parent[]; };
layout(set = 0, binding = 1) uniform Params { uint width; uint height; };
const uint BACKGROUND = 0xFFFFFFFFu;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    uint i = p.y * width + p.x;
    uint x = parent[i];
    if (x == BACKGROUND) return;
    uint next = parent[x];
    while (next != x) {
        x = next;
        next = parent[x];
    }
    atomicMin(parent[i], x);
}
