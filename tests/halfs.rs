//! 16-bit floats, computed in 32-bit floats rounded to half precision after
//! every operation, and stored as 16 bits in memory addressed as words: a
//! matrix-vector product over `float16_t` weights, checked against a CPU
//! model of half arithmetic (round to nearest even after each operation) on
//! every backend and, on Vulkan, beside the original SPIR-V run natively
//! (lavapipe computes in halfs); and a half's bits taken and given
//! (`float16BitsToUint16`, `packFloat2x16` and their inverses), the same
//! way.

mod common;

use atomport::{Kernel, SourceOptions};

const MATVEC: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer Weights { float16_t w[]; };
layout(std430, binding = 1) readonly buffer Input { f16vec4 x[4]; };
layout(std430, binding = 2) buffer Output { float total; float16_t y[]; };
void main() {
    uint r = gl_GlobalInvocationID.x;
    float16_t acc = float16_t(0.0);
    for (uint c = 0u; c < 16u; ++c) {
        acc += w[r * 16u + c] * x[c / 4u][c % 4u];
    }
    y[r] = acc * float16_t(0.5) + float16_t(1.0 / 3.0);
    if (r == 0u) {
        total = float(acc);
    }
}
";

/// The half nearest `x` (ties to even), as an f32; past the largest half, infinity.
fn round_half(x: f32) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let e = ((x.abs().to_bits() >> 23) & 0xff) as i32 - 127;
    let ulp = 2f64.powi(e.max(-14) - 10);
    let r = (f64::from(x) / ulp).round_ties_even() * ulp;
    if r.abs() > 65504.0 {
        f32::INFINITY.copysign(x)
    } else {
        r as f32
    }
}

/// Half bits as an f32 (finite values only, as the test makes).
fn half_value(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let (e, f) = (i32::from((h >> 10) & 0x1f), f32::from(h & 0x3ff));
    sign * if e == 0 {
        f * 2f32.powi(-24)
    } else {
        (1.0 + f / 1024.0) * 2f32.powi(e - 15)
    }
}

/// An f32 that is a half, as its bits.
fn half_bits(x: f32) -> u16 {
    (0..=0xffffu16)
        .find(|&h| half_value(h).to_bits() == x.to_bits() && (h & 0x7c00) != 0x7c00)
        .unwrap_or_else(|| panic!("{x} is not a half"))
}

#[test]
fn a_matrix_vector_product_over_half_weights_rounds_as_halfs_do() {
    let k = Kernel::from_glsl(MATVEC, &SourceOptions::named("matvec.comp")).unwrap();
    assert!(
        !k.required_features().contains(wgpu::Features::SHADER_F16),
        "halfs need no SHADER_F16"
    );
    let mut rng = common::Rng(0x0f16);
    // Halfs in [-4, 4) with their full 10-bit fractions.
    let random_half = |rng: &mut common::Rng| {
        let e = 13 + rng.below(4) as u16; // 2^-2 .. 2^1
        let f = rng.below(1024) as u16;
        let s = (rng.below(2) as u16) << 15;
        s | (e << 10) | f
    };
    let w: Vec<u16> = (0..256).map(|_| random_half(&mut rng)).collect();
    let x: Vec<u16> = (0..16).map(|_| random_half(&mut rng)).collect();
    let mut want_y = Vec::new();
    let mut total = 0.0;
    for r in 0..16 {
        let mut acc = 0.0f32;
        for c in 0..16 {
            let p = round_half(half_value(w[r * 16 + c]) * half_value(x[c]));
            acc = round_half(acc + p);
        }
        if r == 0 {
            total = acc;
        }
        let third = round_half(1.0 / 3.0);
        want_y.push(round_half(round_half(acc * 0.5) + third));
    }
    let bytes16 = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    let inputs = [
        ("Weights", bytes16(&w)),
        ("Input", bytes16(&x)),
        ("Output", vec![0; 36]),
    ];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs) {
            let y: Vec<u16> = out[2][4..36]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            let want: Vec<u16> = want_y.iter().map(|&v| half_bits(v)).collect();
            assert_eq!(y, want, "{backend}: y as half bits");
            let got_total = f32::from_le_bytes(out[2][0..4].try_into().unwrap());
            assert_eq!(got_total, total, "{backend}: total");
        }
    }
}

const BITS: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer Weights { float16_t w[]; };
layout(std430, binding = 1) buffer Quantized {
    uint16_t bits[32];
    int16_t negatedBits[32];
    float16_t doubled[32];
    uint packed[16];
    f16vec2 flipped[16];
    i16vec2 pairBits[16];
};
void main() {
    uint i = gl_LocalInvocationID.x;
    float16_t x = w[i];
    bits[i] = float16BitsToUint16(x);
    negatedBits[i] = float16BitsToInt16(-x);
    doubled[i] = uint16BitsToFloat16(bits[i] ^ uint16_t(0x8000)) + int16BitsToFloat16(negatedBits[i]);
    if (i < 16u) {
        f16vec2 pair = f16vec2(w[2u * i], w[2u * i + 1u]);
        packed[i] = packFloat2x16(pair);
        flipped[i] = unpackFloat2x16(packed[i] ^ 0x80008000u);
        pairBits[i] = float16BitsToInt16(pair);
    }
}
";

#[test]
fn half_bits_pack_and_unpack_as_the_halfs_are_stored() {
    let k = Kernel::from_glsl(BITS, &SourceOptions::named("half_bits.comp")).unwrap();
    let mut rng = common::Rng(0xb175);
    // Halfs in [-4, 4), with their full fractions and both signs.
    let w: Vec<u16> = (0..32)
        .map(|_| {
            let e = 13 + rng.below(4) as u16;
            (rng.below(2) as u16) << 15 | e << 10 | rng.below(1024) as u16
        })
        .collect();
    let mut want: Vec<u16> = w.clone();
    want.extend(w.iter().map(|h| h ^ 0x8000));
    want.extend(
        w.iter()
            .map(|&h| half_bits(round_half(-2.0 * half_value(h)))),
    );
    want.extend(&w);
    want.extend(w.iter().map(|h| h ^ 0x8000));
    want.extend(&w);
    let bytes: Vec<u8> = w.iter().flat_map(|h| h.to_le_bytes()).collect();
    let inputs = [("Weights", bytes), ("Quantized", vec![0; 384])];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, read) in common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs) {
            let got: Vec<u16> = read[1]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            for (part, name) in [
                "bits",
                "negatedBits",
                "doubled",
                "packed",
                "flipped",
                "pairBits",
            ]
            .iter()
            .enumerate()
            {
                let r = part * 32..(part + 1) * 32;
                assert_eq!(got[r.clone()], want[r], "{backend}: {name}");
            }
        }
    }
}

/// Conversions to a half and a product of halfs over the whole range: ties
/// (to even), subnormal halfs (multiples of 2^-24), the largest half and
/// what rounds past it (to infinity), signs and zeros, against the CPU
/// model on every backend and beside the original run natively. The
/// rounding is integer arithmetic on the bits, which no driver folds away
/// (Mesa 25's lavapipe turns `unpack2x16float(pack2x16float(x))` into `x`):
/// the translation has no such round trip.
#[test]
fn every_range_of_halfs_rounds_to_nearest_even() {
    const CONVERT: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[64]; };
layout(std430, binding = 1) buffer Out { float converted[64]; float tripled[64]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float16_t h = float16_t(x[i]);
    converted[i] = float(h);
    tripled[i] = float(h * float16_t(3.0));
}
";
    let k = Kernel::from_glsl(CONVERT, &SourceOptions::named("convert.comp")).unwrap();
    assert!(!k.wgsl().contains("pack2x16float"), "{}", k.wgsl());
    let tiny = 2f32.powi(-24);
    let mut x = vec![
        1.0 + 2f32.powi(-11),       // a tie: down to the even 1.0
        1.0 + 3.0 * 2f32.powi(-11), // a tie: up to the even 1 + 2^-9
        2.5 * tiny,                 // subnormal ties, to even
        3.5 * tiny,
        0.49 * tiny, // below half the smallest subnormal: 0
        0.51 * tiny,
        6.0e-5, // just below the smallest normal half
        6.1035156e-5,
        65504.0,
        65519.99, // still the largest half
        65520.0,  // a tie past it: infinity
        1.0e6,
        -0.0,
        0.0,
        -1.0 - 2f32.powi(-11),
        -65520.0,
        -3.3e-7,
        21845.0, // tripled past the largest half
    ];
    let mut rng = common::Rng(0x0f17);
    while x.len() < 64 {
        // Magnitudes from 2^-26 to 2^17, every sign.
        let e = rng.below(44) as i32 - 26;
        let m = 1.0 + rng.below(1 << 23) as f32 / (1 << 23) as f32;
        let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        x.push(s * m * 2f32.powi(e));
    }
    let want_converted: Vec<f32> = x.iter().map(|&v| round_half(v)).collect();
    let want_tripled: Vec<f32> = want_converted
        .iter()
        .map(|&h| round_half(h * 3.0))
        .collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let inputs = [("In", bytes(&x)), ("Out", vec![0; 512])];
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0);
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs) {
            let got: Vec<f32> = out[1]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            for i in 0..64 {
                assert!(
                    same(got[i], want_converted[i]),
                    "{backend}: half({}) = {}, not {}",
                    x[i],
                    got[i],
                    want_converted[i]
                );
                assert!(
                    same(got[64 + i], want_tripled[i]),
                    "{backend}: 3 * half({}) = {}, not {}",
                    x[i],
                    got[64 + i],
                    want_tripled[i]
                );
            }
        }
    }
}
