#version 450
// An array of atomic storage images indexed at run time, too long to switch over: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counters[32];
layout(set = 0, binding = 1) buffer B { uint which; };
void main() { imageAtomicAdd(counters[which], ivec2(0), 1u); }
