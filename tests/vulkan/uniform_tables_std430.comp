#version 450
#extension GL_EXT_scalar_block_layout : require
// A perceptual error metric in the style of codec quality tools: weight
// tables in a uniform block declared std430 (`float w[8][8]`, stride 4;
// `vec2` pairs, stride 8) and a scalar-layout block (a `vec3` then a
// `float` packed after it), neither of which WGSL's uniform rules can lay
// out, so both are read as words at the layout the shader declared. The
// weighted errors are summed with atomics.
// run: --groups 2 --buffer Weights=f32:[0.0,0.875,0.125,1.0,0.25,1.125,0.375,1.25,0.5,1.375,0.625,1.5,0.75,0.0,0.875,0.125,1.0,0.25,1.125,0.375,1.25,0.5,1.375,0.625,1.5,0.75,0.0,0.875,0.125,1.0,0.25,1.125,0.375,1.25,0.5,1.375,0.625,1.5,0.75,0.0,0.875,0.125,1.0,0.25,1.125,0.375,1.25,0.5,1.375,0.625,1.5,0.75,0.0,0.875,0.125,1.0,0.25,1.125,0.375,1.25,0.5,1.375,0.625,1.5,0.5,-1,2,0.25,-0.75,1.5,3,-2]
// run: --buffer Tone=f32:[0.5,2,4,0.125,3,0,0,0] --buffer Samples=u32:64:iota --buffer Error=u32:9
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0, std430) uniform Weights { float weights[8][8]; vec2 shift[4]; };
layout(set = 0, binding = 1, scalar) uniform Tone { vec3 gain; float bias; float scale; };
layout(set = 0, binding = 2) readonly buffer Samples { uint samples[]; };
layout(set = 0, binding = 3) buffer Error { uint total; uint rows[8]; };

void main() {
    uvec2 p = gl_LocalInvocationID.xy + uvec2(0u, 4u * gl_WorkGroupID.x);
    uint s = samples[p.y * 8u + p.x];
    float value = float(s % 17u) * gain[s % 3u] + bias;
    vec2 sh = shift[p.x % 4u];
    float e = abs(value - float(p.x) * sh.x - sh.y) * weights[p.y][p.x] * scale;
    uint q = uint(e * 16.0 + 0.5);
    atomicAdd(total, q);
    atomicMax(rows[p.y], q);
}
