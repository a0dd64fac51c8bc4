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
// run: --groups 1 --buffer Latest=f32:[-1,-2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12,-13,-14,-15,-16] --buffer Previous=f32:64:fill=99
// Exact: which invocation's exchange lands last depends on the order the 64 lanes run in; one
// workgroup runs in lane order on lavapipe, natively and translated alike.
