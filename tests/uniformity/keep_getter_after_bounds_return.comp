#version 450
// A bounds check before a tile's barrier, as image filters write it: the
// invocations past the image's end return, and the rest call a getter of
// the uniform block and use its result across the barrier. The return
// becomes predication; the getter has no effects, so its call is not
// guarded and its result stays in scope.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint width; uint bias; } params;
layout(set = 0, binding = 1) buffer Data { uint values[]; };
shared uint tile[64];

uint biasOf() {
    return params.bias;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    if (gl_GlobalInvocationID.x >= params.width) {
        return;
    }
    uint b = biasOf();
    tile[i] = values[gl_GlobalInvocationID.x] + b;
    barrier();
    uint mirrored = 63u - i;
    values[gl_GlobalInvocationID.x] = tile[i] * 2u + (mirrored < i ? b : 0u);
}
