#version 430
// A loose mat2 is laid out with std140's 16-byte columns, which naga cannot read: named, with its line.
layout(local_size_x = 1) in;
uniform mat2 rotation;
layout(std430, binding = 0) buffer Out { vec2 v; };
void main() { v = rotation * v; }
