#version 450
// Colour and position transforms declared `row_major`, as renderers that
// share matrices with HLSL or upload them row by row write them: a
// uniform block with a row-major 4x3 matrix followed by a column-major
// mat3 (std140: the 4x3 spans three rows of 16 bytes, so the mat3 starts
// at 48), a storage buffer of row-major matrices read whole, by column,
// by element and at a column picked at run time, and one that three
// invocations write: a column, an element and a whole matrix, each its
// own (no invocation reads what another writes). WGSL's matrices are
// column-major, so the blocks are addressed as words at the declared
// layout. Each invocation also counts its bucket with an atomic.
// run: --groups 2 --buffer Transform=f32:[1,0.5,0.25,2,0,1,-1,0.5,0.75,0,1,-2,2,0,0,0,0,3,0,0,0,0,0.5,0]
// run: --buffer Poses=f32:64:iota --buffer Edits=f32:40 --buffer Out=f32:64 --buffer Counts=u32:4
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform Transform
{
    layout(row_major) mat4x3 to_linear;
    mat3 primaries;
} xf;
layout(set = 0, binding = 1, std430) buffer Poses
{
    layout(row_major) mat3x2 plane;
    float gain;
    layout(row_major) mat4 bones[2];
    layout(row_major) mat2x4 wide;
} poses;
layout(set = 0, binding = 2, std430) buffer Out { vec4 result[]; };
layout(set = 0, binding = 3, std430) buffer Counts { uint buckets[4]; };
layout(set = 0, binding = 4, std430) writeonly buffer Edits
{
    layout(row_major) mat3x2 plane;
    layout(row_major) mat4 bone;
    layout(row_major) mat2x4 wide;
} edits;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float x = float(i) * 0.25;
    vec3 linear = xf.to_linear * vec4(x, 1.0 - x, 0.5, 1.0);
    vec3 display = xf.primaries * linear;
    vec2 uv = poses.plane * vec3(x, 2.0, 1.0);
    mat4 bone = poses.bones[i & 1u];
    vec4 moved = bone * vec4(display, 1.0);
    float picked = poses.bones[1][i % 4u][(i / 4u) % 4u];
    vec4 column = poses.bones[0][i % 4u];
    result[i] = moved + vec4(uv, picked, column.w + poses.wide[i & 1u].z * poses.gain);
    if (i == 3u) {
        edits.plane[2] = vec2(x, -x);
    }
    if (i == 5u) {
        edits.bone[0][3] = 42.0;
    }
    if (i == 9u) {
        edits.wide = mat2x4(vec4(1.0, 2.0, 3.0, 4.0), vec4(5.0, 6.0, 7.0, 8.0));
    }
    atomicAdd(buckets[uint(abs(moved.x)) & 3u], 1u);
}
