#version 450
// An array of combined samplers indexed at run time: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D layers[4];
layout(set = 0, binding = 1) buffer B { uint which; vec4 v; };
void main() { v = texelFetch(layers[which], ivec2(0), 0); }
