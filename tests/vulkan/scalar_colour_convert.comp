#version 450
#extension GL_EXT_scalar_block_layout : require
// A compositor's colour-conversion pass: the uniform block is declared in
// scalar layout, so its arrays of vec2 (stride 8), float (stride 4) and
// mat3x4 (columns of 16 bytes, no padding between matrices) sit where WGSL's
// uniform rules cannot place them; atomport reads the block as words. Each
// invocation converts one packed YCbCr texel with the matrix of its plane
// and records the brightest output with an atomic maximum.
// run: --groups 2 --buffer Conversion=f32:[0.5,0.25,-0.5,0.0,0.125,0.75,1.0,0.5,2.0,1.5,1.164,1.164,1.164,0.0,0.0,-0.391,2.018,0.0,1.596,-0.813,0.0,0.0,-0.874,0.531,-1.086,0.0,1.0,0.0,0.0,0.5,0.0,1.0,0.0,0.0,0.03125,0.0]
// run: --buffer Texels=u32:16:iota --buffer Result=u32:65
layout(local_size_x = 8) in;

layout(set = 0, binding = 0, scalar) uniform Conversion {
    vec2 siting[3];
    float gain[4];
    mat3x4 yuvToRgb[2];
    float bias;
};
layout(set = 0, binding = 1, std430) readonly buffer Texels { uint packed[]; };
layout(set = 0, binding = 2, std430) buffer Result { uint brightest; uint converted[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint t = packed[i] * 2654435761u;
    vec3 ycc = vec3(float(t & 255u), float((t >> 8u) & 255u), float((t >> 16u) & 255u)) / 255.0;
    ycc.yz += siting[i % 3u] * 0.125;
    vec4 rgbx = yuvToRgb[i & 1u] * (ycc - vec3(0.0625, 0.5, 0.5));
    vec3 rgb = clamp(rgbx.rgb * gain[i & 3u] + bias, 0.0, 1.0);
    uvec3 q = uvec3(round(rgb * 255.0));
    converted[4u * i + 0u] = q.r;
    converted[4u * i + 1u] = q.g;
    converted[4u * i + 2u] = q.b;
    converted[4u * i + 3u] = uint(round(rgbx.w * 1000.0 + 1000.0));
    atomicMax(brightest, q.r + q.g + q.b);
}
