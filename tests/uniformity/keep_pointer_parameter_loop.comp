#version 450
// An inference engine's softmax reduction: the number of passes comes
// from a push constant plus a count in a read-only buffer, and a helper
// (whose `in` parameter glslang passes by pointer) loops that many times
// with a barrier each round. Uniform: the pointer's memory holds a uniform
// value at the one call.
layout(local_size_x = 32) in;
layout(push_constant) uniform Params { uint rows; uint extra; } p;
layout(set = 0, binding = 0) readonly buffer Shape { uint passes; };
layout(set = 0, binding = 1) buffer Data { float values[]; };
shared float partial[32];

void reduceRows(uint rounds) {
    for (uint r = 0u; r < rounds; r++) {
        uint lane = gl_LocalInvocationID.x;
        partial[lane] = max(partial[lane], partial[(lane + 1u) & 31u]);
        barrier();
    }
}

void main() {
    partial[gl_LocalInvocationID.x] = values[gl_GlobalInvocationID.x];
    barrier();
    reduceRows(p.rows + passes);
    values[gl_GlobalInvocationID.x] = partial[0];
}
