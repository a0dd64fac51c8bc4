#version 450
// Refused: the included file does not exist.
#include "no_such_header.glsl"
layout(local_size_x = 64) in;
void main() {
}
