#version 450
// Refused by glslang: a syntax error, reported with its line.
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint x; };
void main() {
    atomicAdd(x, 1u)
}
