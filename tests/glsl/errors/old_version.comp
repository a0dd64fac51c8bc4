#version 330
// Refused: compute shaders need GLSL 4.30 (or 3.10 ES).
layout(local_size_x = 64) in;
void main() {
}
