#version 450
// GL_EXT_shader_atomic_float: atomicExchange on elements of a float array, returned value stored plainly.
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Latest {
    float latest[16];
} latest;

layout(set = 0, binding = 1) buffer Previous {
    float previous[];
} prev;

void main() {
    uint i = gl_GlobalInvocationID.x;
    float value = float(i) * 0.5;
    float old = atomicExchange(latest.latest[i % 16u], value);
    prev.previous[i] = old;
}
