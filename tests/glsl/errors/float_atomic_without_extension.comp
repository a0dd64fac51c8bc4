#version 450
// Refused by glslang: float atomicAdd needs GL_EXT_shader_atomic_float.
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { float sum; };
void main() {
    atomicAdd(sum, 1.0);
}
