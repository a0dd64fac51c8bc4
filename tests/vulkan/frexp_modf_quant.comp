#version 450
// Quantizer set-up in the style of wavelet and block codecs: each block's
// largest magnitude is split by frexp into mantissa and exponent to pick a
// power-of-two scale, modf splits the scaled value into its whole and
// fractional parts, and the exponents are gathered in a histogram with
// atomics. Scalars and vectors of both, so that each result type WGSL
// predeclares is met. modf is never given a negative whole number: GLSL
// gives its fraction the sign of x (-0.0), as lavapipe's Vulkan does, but
// llvmpipe's OpenGL modf gives +0.0, natively too.
// run: --groups 2 --buffer Blocks=f32:[0,1,-1,0.75,3.5,-1000,1e-3,6e20,0.5,-0.25,2,7.99,100.5,-3.25,1e-30,12345.678] --buffer Scales=f32:16 --buffer Parts=f32:32 --buffer Exponents=u32:67
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer Blocks { float blocks[]; };
layout(set = 0, binding = 1) writeonly buffer Scales { float scales[]; };
layout(set = 0, binding = 2) writeonly buffer Parts { vec2 parts[]; };
layout(set = 0, binding = 3) buffer Exponents { uint histogram[64]; int lowest; int highest; uint zero_blocks; };

void quant_scale(float peak, out int code, out float scale) {
    if (peak == 0.0) {
        code = 0;
        scale = 1.0;
        return;
    }
    int e;
    float m = frexp(peak, e);
    code = e;
    scale = m * 2.0;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    float peak = abs(blocks[i]);
    int code;
    float scale;
    quant_scale(peak, code, scale);
    scales[i] = scale;
    float whole;
    float fraction = modf(blocks[i] * 4.0 + 0.1, whole);
    parts[i] = vec2(whole, fraction);
    ivec2 pair_exp;
    vec2 pair = frexp(vec2(blocks[i], blocks[i] * 3.0), pair_exp);
    vec2 pair_whole;
    vec2 pair_fraction = modf(pair * 10.0 + 0.05, pair_whole);
    if (peak == 0.0) {
        atomicAdd(zero_blocks, 1u);
    } else {
        atomicAdd(histogram[uint(code + 128) % 64u], 1u);
        atomicMin(lowest, code);
        atomicMax(highest, pair_exp.y);
    }
    atomicAdd(histogram[uint(pair_whole.x + 10.0) % 64u], uint(pair_fraction.y * 1000.0 + 1000.0));
}
