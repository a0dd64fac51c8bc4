#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { uint n; } pc;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() { v[0] = pc.n; }
