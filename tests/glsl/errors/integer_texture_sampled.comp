#version 450
// Sampling a 3D integer texture has no WGSL form (2D ones become texel fetches): named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform isampler3D heights;
layout(set = 0, binding = 1) buffer Out { int v; };
void main() { v = textureLod(heights, vec3(0.5), 0.0).r; }
