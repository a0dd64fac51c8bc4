#version 450
// A screen-space reflection pass's tile setup, in the style of its
// classify kernels: it clears a radiance image declared without a format
// (its format comes from what the host binds) and writes an 8-bit
// confidence image WebGPU cannot store natively, which the translation
// holds in a texel buffer sized by constants the host sets. The
// formatless image comes first in the bindings.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform Params { uvec2 resolution; float bias; } params;
layout(set = 0, binding = 1) writeonly uniform image2D radiance;
layout(set = 0, binding = 2, r8) writeonly uniform mediump image2D confidence;

void main() {
    uvec2 coord = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(coord, params.resolution)))
        return;
    imageStore(radiance, ivec2(coord), vec4(vec2(coord) * params.bias, 0.0, 1.0));
    // A checkerboard of rays: the others get no confidence.
    float c = ((coord.x ^ coord.y) & 1u) == 0u ? 1.0 : 0.25 * float(coord.y & 3u);
    imageStore(confidence, ivec2(coord), vec4(c, 0.0, 0.0, 0.0));
}

// run: --groups 2,2 --uniform resolution=uvec2(13,11) --uniform bias=0.125
// run: --image radiance=16x16:rgba16float:fill=3 --image confidence=16x16:fill=0.5
