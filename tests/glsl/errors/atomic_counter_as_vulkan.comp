#version 450
// dialect: vulkan
// Atomic counters are OpenGL GLSL: asked to read it as Vulkan GLSL, glslang refuses and the hint names the dialect.
layout(local_size_x = 64) in;
layout(binding = 0) uniform atomic_uint ctr;
void main() {
    atomicCounterIncrement(ctr);
}
