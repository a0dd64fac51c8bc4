#version 450
// No `set =` in this file: the header names them. Was detected as OpenGL
// GLSL (the three blocks at binding 0 taken for OpenGL's per-kind
// numbering), so the views got bindings of their own with nothing saying
// they alias one buffer.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
#include "aliased_views.h"
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint s = source[i];
    words32.data[4u * i] = s;
    words16.data[8u * i + 2u] = uint16_t(s + 1u);
    words8.data[16u * i + 8u] = uint8_t(s + 2u);
}
