#version 450
// A luminance pyramid's reduction, as FidelityFX's passes write it: the
// level count comes from a uniform block through a getter, which the store
// helper also calls from divergent code. The getter still returns a
// uniform value where it is called in uniform control flow, so the early
// return and the loop on it keep the barriers after them uniform.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint levels; uint scale; } params;
layout(set = 0, binding = 1) buffer Data { uint values[]; };
shared uint tile[64];

uint levelCount() {
    return params.levels;
}

void store(uint level, uint i, uint v) {
    if (level == levelCount() - 1u) {
        values[gl_WorkGroupID.x * 64u + i] = v * params.scale;
    }
}

void main() {
    uint i = gl_LocalInvocationIndex;
    tile[i] = values[gl_GlobalInvocationID.x];
    if (i >= 32u) {
        store(0u, i, tile[i]);
    }
    if (levelCount() <= 1u) {
        return;
    }
    for (uint level = 1u; level < levelCount(); ++level) {
        barrier();
        uint half_ = 1u << (level - 1u);
        if ((i & ((half_ << 1u) - 1u)) == 0u && i + half_ < 64u) {
            tile[i] += tile[i + half_];
        }
    }
    barrier();
    if (i == 0u) {
        store(levelCount() - 1u, 0u, tile[0]);
    }
}
