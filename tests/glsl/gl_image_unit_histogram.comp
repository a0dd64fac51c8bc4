#version 430
// Histogram into image unit 0 beside buffer binding 0, the bin count a loose uniform.
layout(local_size_x = 16, local_size_y = 16) in;

uniform uint u_bins;
uniform ivec2 u_size;

layout(std430, binding = 0) readonly buffer Luma { float luma[]; };
layout(binding = 0, r32ui) uniform uimage1D bins;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, u_size))) return;
    float v = clamp(luma[p.y * u_size.x + p.x], 0.0, 1.0);
    int bin = min(int(v * float(u_bins)), int(u_bins) - 1);
    imageAtomicAdd(bins, bin, 1u);
}
