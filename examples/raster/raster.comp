#version 450
// Software rasterization into a visibility buffer: one invocation per
// triangle walks its pixel bounding box with integer edge functions on
// 28.4 fixed-point vertices (pixel centres sampled, top-left fill rule) and
// keeps the nearest triangle per pixel with
// imageAtomicMin(vis, pixel, depth << 16 | triangle id).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D vis;
// Per triangle: (x0, y0, x1, y1), (x2, y2, key, 0), in 1/16 pixel.
layout(set = 0, binding = 1) readonly buffer Triangles { ivec4 tris[]; };
layout(set = 0, binding = 2) uniform Params { uint count; uint width; uint height; uint max_box; };

int edge(ivec2 a, ivec2 b, ivec2 p) {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// Pixels exactly on an edge belong to the triangle only for top and left edges.
int bias(ivec2 a, ivec2 b) {
    bool top = a.y == b.y && b.x < a.x;
    bool left = b.y > a.y;
    return (top || left) ? 0 : -1;
}

void main() {
    uint t = gl_GlobalInvocationID.x;
    if (t >= count) return;
    ivec4 a = tris[2u * t];
    ivec4 b = tris[2u * t + 1u];
    ivec2 v0 = a.xy;
    ivec2 v1 = a.zw;
    ivec2 v2 = b.xy;
    uint key = uint(b.z);
    int area = edge(v0, v1, v2);
    if (area == 0) return;
    if (area < 0) { ivec2 s = v1; v1 = v2; v2 = s; }
    int minx = max(min(v0.x, min(v1.x, v2.x)) >> 4, 0);
    int miny = max(min(v0.y, min(v1.y, v2.y)) >> 4, 0);
    int maxx = min((max(v0.x, max(v1.x, v2.x)) + 15) >> 4, int(width) - 1);
    int maxy = min((max(v0.y, max(v1.y, v2.y)) + 15) >> 4, int(height) - 1);
    if (maxx < minx || maxy < miny || maxx - minx >= int(max_box) || maxy - miny >= int(max_box)) return;
    int b0 = bias(v1, v2);
    int b1 = bias(v2, v0);
    int b2 = bias(v0, v1);
    for (int py = miny; py <= maxy; py++) {
        for (int px = minx; px <= maxx; px++) {
            ivec2 p = ivec2(px * 16 + 8, py * 16 + 8);
            if (edge(v1, v2, p) + b0 >= 0 && edge(v2, v0, p) + b1 >= 0 && edge(v0, v1, p) + b2 >= 0) {
                imageAtomicMin(vis, ivec2(px, py), key);
            }
        }
    }
}
