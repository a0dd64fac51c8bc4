#version 450
// A block decoder in the style of texture-compression kernels: the
// workgroup size is specialized by the host (local_size_x_id), and a
// constant scale comes from it, `(N + 0.5) / (size - 1)`. The defaults
// (1 by 1) make that a float division by zero, which the original computes
// when it runs and never uses; WGSL would evaluate it as a constant and
// refuse the infinity. Folding the workgroup size makes every
// specialization constant a plain constant.
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const float SHARPNESS = 0.0;
layout(set = 0, binding = 0) readonly buffer Blocks { uint weights[]; } blocks;
layout(set = 0, binding = 1) writeonly buffer Texels { ivec2 grid[4]; vec4 texels[]; } outp;

// The texel grid's fixed-point scale, a constant to the shader's author.
ivec2 grid_coord(ivec2 texel) {
    const ivec2 D = ivec2((vec2(1024 + ivec2(gl_WorkGroupSize.xy >> 1)) + 0.5) / vec2(gl_WorkGroupSize.xy - 1));
    return D * texel;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint w = blocks.weights[i];
    vec2 texel = vec2(float(w & 0xffu), float(w >> 8u));
    ivec2 c = grid_coord(ivec2(gl_LocalInvocationID.xy) + 1);
    // Only a real grid (more than one invocation a side) uses the scale:
    // with the defaults, `c` is a conversion of infinity, undefined.
    if (all(greaterThan(gl_WorkGroupSize.xy, uvec2(1u)))) {
        outp.grid[gl_LocalInvocationIndex & 3u] = c;
        texel *= vec2(c);
    } else if (i < 4u) {
        outp.grid[i] = ivec2(gl_WorkGroupSize.xy);
    }
    float sharp = SHARPNESS > 0.0 ? 1.0 / SHARPNESS : 1.0;
    outp.texels[i] = vec4(texel * sharp, float(gl_WorkGroupSize.x - 1u) / float(gl_WorkGroupSize.y), 1.0);
}

// run: --groups 8 --buffer Blocks=u32:[3,258,65535,7,1024,96,513,40] --buffer Texels=u32:48
