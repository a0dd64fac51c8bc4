#version 450
// A 64-bit atomic in memory that also holds bytes: that memory is 32-bit
// words, so the atomic is refused, naming the memory and its line.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Packed { uint8_t flags[4]; uint64_t visits; };
void main() { atomicAdd(visits, uint64_t(flags[0])); }
