#version 450
// Light culling with shadow lookups done in helper functions, as deferred
// renderers write them: the shadow map's combined sampler is passed down
// two functions, a percentage-closer filter and a single tap, before a
// depth comparison samples through it. Each tile counts its lit samples
// with atomics.
// run: --groups 2 --texture shadow_map=4x4:depth32float:iota --sampler shadow_map=nearest,clamp,compare=greater
// run: --buffer Lights=f32:[0.1,0.1,0.02,0.9,0.9,0.3,0.5,0.5,0.5,0.3,0.7,0.9,0.7,0.2,0.04,0.05,0.95,0.2,0.6,0.4,0.01,0.45,0.55,0.8,0.2,0.8,0.1,0.8,0.8,0.06,0.33,0.66,0.5,0.66,0.33,0.07]
// run: --buffer Tally=u32:4
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) uniform sampler2DShadow shadow_map;
layout(set = 0, binding = 1) readonly buffer Lights { float lights[]; };
layout(set = 0, binding = 2) buffer Tally { uint lit; uint taps; uint full; uint filtered_sum; };

float tap(sampler2DShadow map, vec2 uv, float depth) {
    atomicAdd(taps, 1u);
    return textureLod(map, vec3(uv, depth), 0.0);
}

float filtered(sampler2DShadow map, vec2 uv, float depth) {
    const vec2 texel = vec2(1.0 / 4.0);
    float sum = 0.0;
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            sum += tap(map, uv + vec2(x, y) * texel, depth);
        }
    }
    return sum / 9.0;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec3 light = vec3(lights[i * 3u], lights[i * 3u + 1u], lights[i * 3u + 2u]);
    float visibility = filtered(shadow_map, light.xy, light.z);
    if (visibility > 0.0) {
        atomicAdd(lit, 1u);
    }
    if (visibility == 1.0) {
        atomicAdd(full, 1u);
    }
    atomicAdd(filtered_sum, uint(visibility * 900.0 + 0.5));
}
