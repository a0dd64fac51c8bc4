#version 450
// Sampling an integer texture has no WGSL form: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform isampler2D heights;
layout(set = 0, binding = 1) buffer Out { int v; };
void main() { v = textureLod(heights, vec2(0.5), 0.0).r; }
