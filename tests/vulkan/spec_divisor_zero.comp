#version 450
// Tiling constants that default to 0 ("set by the host") and guard their
// own divisions, in the style of clustered-shading culling kernels: the
// divisions never run with 0, but WGSL refuses a zero constant or override
// divisor wherever it stands. One constant also feeds a spec-constant
// operation, so the module's constants are folded to plain constants.
layout(local_size_x = 16) in;
layout(constant_id = 0) const uint TILE_SIZE = 0;
layout(constant_id = 1) const int BUCKETS = 0;
const uint TILE_AREA = TILE_SIZE * TILE_SIZE;
layout(set = 0, binding = 0) readonly buffer Screen { uvec2 size; int values[]; } screen;
layout(set = 0, binding = 1) buffer Tiles { uint area; uvec2 tiles[16]; int buckets[]; } outp;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec2 tiles = uvec2(0u);
    if (TILE_SIZE != 0u) tiles = (screen.size - 1u) / TILE_SIZE + 1u;
    outp.tiles[i] = tiles + uvec2(i, 0u);
    outp.area = TILE_AREA;
    int v = screen.values[i];
    // `%` of a negative value is undefined in GLSL: only of its magnitude.
    outp.buckets[i] = BUCKETS == 0 ? v : abs(v) % BUCKETS + v / BUCKETS;
}

// run: --groups 1 --buffer Screen=i32:[1920,1080,-7,0,5,12,-13,99,100,-101,3,4,-5,6,77,-88,9,10] --buffer Tiles=u32:50
