#version 450
// Two float atomics, the second indexed through a short-circuit condition (a phi whose predecessor is the block the first one splits): found by tests/shapes.rs; naga refused the translation ("used by a statement before it was introduced").
// run: --groups 2 --buffer In=u32:64:iota --buffer Acc=f32:4
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[64]; };
layout(std430, set = 0, binding = 1) buffer Acc { float fsum[4]; };
void main() {
    uint d = gl_GlobalInvocationID.x, i2 = d * 3u;
    atomicAdd(fsum[(d & 7u) % 4u], float(d & 7u));
    atomicAdd(fsum[(((data[i2 & 63u] > 954u) || ((i2 & 3u) == 1u)) ? 219u : d) % 4u], float(d & 7u));
}
