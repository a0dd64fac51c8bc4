#version 430
// An OpenGL particle step that keeps its state in buffer textures, as GL
// particle systems do: positions in a texture buffer (texture unit 0),
// velocities in a read-write image buffer, the advanced positions in a
// write-only one, a per-cell count in a uimageBuffer and the last particle
// to reach each cell of a row in a uimage1DArray (one layer per row).
// Texture units, image units and buffer bindings are numbered apart.
layout(local_size_x = 32) in;
layout(binding = 0) uniform samplerBuffer positions;
layout(binding = 0, rgba32f) uniform imageBuffer velocities;
layout(binding = 1, rgba32f) uniform writeonly imageBuffer advanced;
layout(binding = 2, r32ui) uniform uimageBuffer cell_counts;
layout(binding = 3, r32ui) uniform uimage1DArray row_last;
layout(binding = 0, std430) buffer Stats {
    int particles;
    int cells;
    ivec2 grid;
    uint moved;
    uint first_in_cell;
} stats;

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int n = textureSize(positions);
    if (i >= n) return;
    vec4 p = texelFetch(positions, i) + vec4(float(i % 7), float(i / 7 % 5), 0.0, 0.0);
    vec4 v = imageLoad(velocities, i);
    v.xyz = v.xyz * 0.5 + vec3(0.25, -0.125, 0.0) * p.w;
    imageStore(velocities, i, v);
    vec3 q = p.xyz + v.xyz;
    imageStore(advanced, i, vec4(q, p.w));

    ivec2 grid = imageSize(row_last);
    ivec2 cell = ivec2(q.xy) % grid;
    int cells = imageSize(cell_counts);
    uint before = imageAtomicAdd(cell_counts, (cell.y * grid.x + cell.x) % cells, 1u);
    imageAtomicMax(row_last, cell, uint(i));
    if (i == 0) {
        stats.particles = n;
        stats.cells = cells;
        stats.grid = grid;
    }
    atomicAdd(stats.moved, uint(any(notEqual(q, p.xyz))));
    atomicAdd(stats.first_in_cell, uint(before == 1u));
}
// run: --groups 3 --image positions=80:fill=1 --image velocities=80:fill=2 --image advanced=80 --image cell_counts=24:fill=1 --image row_last=6x4 --buffer Stats=u32:6
