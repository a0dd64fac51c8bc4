// The sampling unit linked with linked_units_jitter_histogram.comp: a
// compilation unit with its own #version and #include, no main.
#version 430 core

#include "bits.glsl"

layout(std430, binding = 1) buffer Stats {
    uint hits;
    uint peak;
    uint bins[8];
};

// Set when the program links, from the initializer: the host never sets it.
uniform float spread = 0.5;

vec2 jitter(uvec2 pixel, uint frame) {
    uvec3 h = scramble(uvec3(pixel, frame));
    atomicMax(peak, h.x >> 8);
    // 23 bits of each hash as a float in [0, 1), exactly.
    return vec2(h.xy >> 9) * (1.0 / 8388608.0) * spread;
}

uint bucket(float v) {
    return min(uint(v * 8.0), 7u);
}
