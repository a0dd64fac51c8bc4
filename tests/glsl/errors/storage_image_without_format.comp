#version 450
// A storage image without a format qualifier: named, with its line.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) writeonly uniform image2D target;
void main() { imageStore(target, ivec2(0), vec4(1.0)); }
