#version 450
// A depth pyramid bound whole as an array of its levels, as occlusion
// culling and downsampling passes bind theirs: each workgroup layer
// (gl_WorkGroupID.z) builds one level, the farthest depth of the block of
// the 16x16 depth buffer it covers, so that levels do not wait on each other; the
// last level's size is read back through the array too. The level index
// is known only at run time: a binding array natively, where the adapter
// has them, and a switch over one binding per level elsewhere (GL,
// Debian 12's lavapipe, browsers).
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer Depth { float depths[]; };
layout(set = 0, binding = 1, r32f) uniform writeonly image2D pyramid[5];
layout(std430, set = 0, binding = 2) buffer Sizes { ivec2 levelSize[5]; };

void main() {
    uint level = gl_WorkGroupID.z;
    ivec2 extent = ivec2(16) >> level;
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x == 0 && p.y == 0) {
        levelSize[level] = imageSize(pyramid[level]);
    }
    if (p.x >= extent.x || p.y >= extent.y) {
        return;
    }
    int span = 1 << level;
    float farthest = 0.0;
    for (int y = 0; y < span; ++y) {
        for (int x = 0; x < span; ++x) {
            ivec2 q = p * span + ivec2(x, y);
            farthest = max(farthest, depths[q.y * 16 + q.x]);
        }
    }
    imageStore(pyramid[level], p, vec4(farthest));
}

// run: --groups 2,2,5 --buffer Depth=f32:256:iota --image pyramid=16x16:r32f --buffer Sizes=i32:10
