#version 450
// A formatless storage image of a shape WebGPU has no storage texture for: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) writeonly uniform imageCube target;
void main() { imageStore(target, ivec3(0), vec4(1.0)); }
