#version 450
// An array of storage images indexed at run time: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counters[4];
layout(set = 0, binding = 1) buffer B { uint which; };
void main() { imageAtomicAdd(counters[which], ivec2(0), 1u); }
