#version 300 es
// Refused: ES compute shaders need 3.10.
layout(local_size_x = 64) in;
void main() {
}
