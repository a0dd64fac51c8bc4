#version 450
// A sky baked into a cube map by compute, one face per workgroup layer, and
// a cube-array tally of the texels each face covers: cube storage images
// are addressed ivec3(x, y, face), a cube array's z as 6 * cube + face, and
// imageSize gives a cube's (width, height) and a cube array's cubes.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba16f) uniform writeonly imageCube sky;
layout(set = 0, binding = 1, r32ui) uniform uimageCubeArray tally;
layout(set = 0, binding = 2) buffer Sizes {
    ivec2 sky_size;
    ivec4 tally_size;
    uint texels;
    uint highest;
} sizes;

// The direction through texel st (-1..1) of a face, major axis first.
vec3 face_dir(uint face, vec2 st) {
    switch (face) {
    case 0u: return vec3(1.0, -st.y, -st.x);
    case 1u: return vec3(-1.0, -st.y, st.x);
    case 2u: return vec3(st.x, 1.0, st.y);
    case 3u: return vec3(st.x, -1.0, -st.y);
    case 4u: return vec3(st.x, -st.y, 1.0);
    default: return vec3(-st.x, -st.y, -1.0);
    }
}

void main() {
    ivec2 size = imageSize(sky);
    uvec3 id = gl_GlobalInvocationID;
    uint face = id.z;
    if (any(greaterThanEqual(ivec2(id.xy), size))) return;
    vec2 st = (vec2(id.xy) + 0.5) / vec2(size) * 2.0 - 1.0;
    vec3 dir = face_dir(face, st);
    vec3 horizon = vec3(0.75, 0.5, 0.25) + 0.25 * dir;
    imageStore(sky, ivec3(id.xy, face), vec4(horizon, float(face) * 0.125));

    ivec3 t = imageSize(tally);
    int cube = int(id.x + id.y) % t.z;
    imageAtomicAdd(tally, ivec3(ivec2(id.xy) % t.xy, 6 * cube + int(face)), 1u);
    imageAtomicMax(tally, ivec3(0, 0, 6 * (t.z - 1) + int(face)), id.x * 16u + id.y);
    if (id == uvec3(0u)) {
        sizes.sky_size = size;
        sizes.tally_size = ivec4(t, 0);
    }
    atomicAdd(sizes.texels, 1u);
    atomicMax(sizes.highest, id.x * 100u + id.y * 10u + face);
}
// run: --groups 2,2,6 --image sky=8x8 --image tally=4x4x2:fill=1 --buffer Sizes=u32:12
