#version 450
// Per-tile maximum of a height field, as a terrain or depth pyramid pass
// builds one: every texel samples the height map through a combined
// sampler, quantises it with a push-constant scale and folds it into its
// tile's texel of an r32ui image with imageAtomicMax. The image's size
// (imageSize) bounds the tiles; texels whose tile lies outside it are
// counted as clipped instead.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D heights;
layout(set = 0, binding = 1, r32ui) uniform uimage2D tileMax;
layout(set = 0, binding = 2, std430) buffer Stats {
    uint samples;
    uint clipped;
} stats;
layout(push_constant) uniform Params {
    uint tileSize;
    float scale;
} params;

void main() {
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(heights, 0);
    if (any(greaterThanEqual(texel, size))) {
        return;
    }
    // A nearest sampler at the texel's centre reads exactly that texel.
    vec2 uv = (vec2(texel) + 0.5) / vec2(size);
    float h = textureLod(heights, uv, 0.0).r;
    uint q = uint(clamp(h, 0.0, 1.0) * params.scale);
    ivec2 tile = texel / int(params.tileSize);
    if (any(greaterThanEqual(tile, imageSize(tileMax)))) {
        atomicAdd(stats.clipped, 1u);
        return;
    }
    imageAtomicMax(tileMax, tile, q);
    atomicAdd(stats.samples, 1u);
}
// run: --groups 3,2 --texture heights=19x13:r8unorm:iota --sampler heights=nearest
// run: --image tileMax=5x3 --buffer stats=u32:2 --push tileSize=4 --push scale=1000
