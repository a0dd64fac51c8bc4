#version 450
// Refused by glslang: the mem argument must be a buffer or shared variable.
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint x; };
void main() {
    uint local = 0u;
    atomicAdd(local, 1u);
    x = local;
}
