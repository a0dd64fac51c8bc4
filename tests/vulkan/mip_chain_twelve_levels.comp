#version 450
// The output side of a single-pass downsampler, in the style of FidelityFX
// SPD: a twelve-level mip chain of rgba16f images bound whole as one image
// array, each workgroup layer (gl_WorkGroupID.z) filling one level from the
// source (the farthest and nearest depth of the block a texel covers, and a
// coverage count added to what the level held), every level's size read
// back through the array. Twelve texel buffers beside two buffers pass
// WebGPU's eight storage buffers per stage, so the WebGPU target holds the
// levels in one buffer, a region each; natively they are twelve bindings.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer Source { uint depth[]; };
layout(set = 0, binding = 1, rgba16f) uniform image2D levels[12];
layout(std430, set = 0, binding = 2) buffer Stats { ivec2 levelSize[12]; uint texels; };
layout(push_constant) uniform Extent { uint width; uint height; } extent;

void main() {
    uint level = gl_WorkGroupID.z;
    ivec2 size = imageSize(levels[level]);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p == ivec2(0)) {
        levelSize[level] = size;
    }
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    uint scale = 1u << level;
    float far = 0.0;
    float near = 1024.0;
    uint covered = 0u;
    for (uint y = uint(p.y) * scale; y < min(uint(p.y + 1) * scale, extent.height); ++y) {
        for (uint x = uint(p.x) * scale; x < min(uint(p.x + 1) * scale, extent.width); ++x) {
            float d = float(depth[y * extent.width + x] & 1023u);
            far = max(far, d);
            near = min(near, d);
            covered += 1u;
        }
    }
    vec4 before = imageLoad(levels[level], p);
    imageStore(levels[level], p, vec4(far, near, float(level), before.a + float(covered >> 4u)));
    atomicAdd(texels, 1u);
}
// run: --groups 8,4,12 --buffer Source=u32:2048:iota --buffer Stats=u32:26 --push width=64 --push height=32
// run: --image levels[0]=64x32:fill=1,0,0,0.5 --image levels[1]=32x16:fill=0,0,0,1.5 --image levels[2]=16x8:fill=0,0,0,2
// run: --image levels[3]=8x4 --image levels[4]=4x2 --image levels[5]=2x1 --image levels[6]=1x1:fill=0,0,0,3
// run: --image levels[7]=1x1 --image levels[8]=1x1 --image levels[9]=1x1 --image levels[10]=1x1 --image levels[11]=1x1:fill=0,0,0,0.25
