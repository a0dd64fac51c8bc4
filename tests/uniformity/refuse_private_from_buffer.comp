#version 450
// A global written once from a read-only buffer and branched on before a
// barrier: the same value in every invocation, but WGSL counts every read
// of a private variable as non-uniform, so browsers refuse it.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
layout(set = 0, binding = 1) readonly buffer Config { uint levels; };
shared uint level[16];
uint depth;

void main() {
    depth = levels * 2u;
    level[gl_LocalInvocationID.x] = depth;
    if (depth > 3u) {
        barrier();
    }
    result[gl_LocalInvocationID.x] = level[(gl_LocalInvocationID.x + 1u) & 15u];
}
