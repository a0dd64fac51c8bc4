//! GLSL built-ins that naga's reader or WGSL lack (`isnan`, `isinf`,
//! `umulExtended`, `imulExtended`, `uaddCarry`, `usubBorrow`), in kernels
//! written as real code writes them: each runs translated on every backend
//! and natively on Vulkan, and every result equals the CPU's.

mod common;

use common::Rng;

/// A path tracer's guard before accumulation: non-finite samples are
/// zeroed and counted, and each lane's class recorded.
const NAN_GUARD: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Radiance { vec4 radiance[]; };
layout(std430, set = 0, binding = 1) buffer Census {
    uint nanSamples;
    uint infSamples;
    uint classes[];
};
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 c = radiance[i];
    bvec4 nan = isnan(c);
    bvec4 inf = isinf(c);
    if (any(nan)) {
        atomicAdd(nanSamples, 1u);
    }
    if (any(inf)) {
        atomicAdd(infSamples, 1u);
    }
    uvec4 k = uvec4(nan) | (uvec4(inf) << 1u);
    classes[i] = k.x | (k.y << 2u) | (k.z << 4u) | (k.w << 6u) | (uint(isnan(c.w)) << 8u);
    radiance[i] = mix(c, vec4(0.0), bvec4(k));
}
";

/// Wide arithmetic as hashes, bignums and fixed point use it: a 64-bit
/// multiply-fold hash, a 96-bit add and subtract over three limbs with the
/// carries and borrows chained, a Q16.16 multiply, all component-wise
/// on `uvec2` too.
const WIDE: &str = "#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Words { uint w[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { uint r[]; };

uint fold(uint a, uint b) {
    uint hi, lo;
    umulExtended(a, b, hi, lo);
    return hi ^ lo;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint a0 = w[6u * i], a1 = w[6u * i + 1u], a2 = w[6u * i + 2u];
    uint b0 = w[6u * i + 3u], b1 = w[6u * i + 4u], b2 = w[6u * i + 5u];
    uint base = 16u * i;
    r[base] = fold(a0 ^ 0x9e3779b9u, b0);
    uint c0, c1, c2;
    uint s0 = uaddCarry(a0, b0, c0);
    uint s1 = uaddCarry(a1, b1 + c0, c1);
    uint s2 = uaddCarry(a2, b2 + c1, c2);
    r[base + 1u] = s0; r[base + 2u] = s1; r[base + 3u] = s2; r[base + 4u] = c2;
    uint d0, d1, d2;
    uint t0 = usubBorrow(a0, b0, d0);
    uint t1 = usubBorrow(a1, b1, d1);
    uint t2 = usubBorrow(a2, b2, d2);
    r[base + 5u] = t0; r[base + 6u] = t1 - d0; r[base + 7u] = t2; r[base + 8u] = d0 | (d1 << 1u) | (d2 << 2u);
    int hi, lo;
    imulExtended(int(a1), int(b1), hi, lo);
    // Q16.16: the middle 32 bits of the product.
    r[base + 9u] = (uint(hi) << 16u) | (uint(lo) >> 16u);
    r[base + 10u] = uint(hi);
    uvec2 vhi, vlo;
    umulExtended(uvec2(a0, a2), uvec2(b2, b0), vhi, vlo);
    r[base + 11u] = vhi.x; r[base + 12u] = vlo.y;
    ivec2 shi, slo;
    imulExtended(ivec2(a2, b2), ivec2(b1, a0), shi, slo);
    r[base + 13u] = uint(shi.x); r[base + 14u] = uint(shi.y);
    uvec2 carries;
    uvec2 sums = uaddCarry(uvec2(a0, a1), uvec2(b1, b2), carries);
    r[base + 15u] = (sums.x ^ sums.y) + carries.x + 2u * carries.y;
}
";

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn isnan_and_isinf_test_the_bits_on_scalars_and_vectors() {
    let k = common::glsl(NAN_GUARD);
    // Every class in every lane: finite, ±0, subnormal, ±∞, quiet and
    // signalling NaNs with payloads, the largest float.
    let specials = [
        1.5f32.to_bits(),
        0x8000_0000,
        0x0000_0001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xffff_ffff,
        0x7f7f_ffff,
        0x3f80_0000,
    ];
    let mut rng = Rng(0x15a7);
    let samples: Vec<u32> = (0..128 * 4)
        .map(|_| specials[rng.below(specials.len() as u32) as usize])
        .collect();
    let nan = |b: u32| b & 0x7fff_ffff > 0x7f80_0000;
    let inf = |b: u32| b & 0x7fff_ffff == 0x7f80_0000;
    let (mut nans, mut infs) = (0, 0);
    let mut classes = Vec::new();
    let mut cleaned = Vec::new();
    for v in samples.chunks_exact(4) {
        nans += u32::from(v.iter().any(|&b| nan(b)));
        infs += u32::from(v.iter().any(|&b| inf(b)));
        let k: Vec<u32> = v
            .iter()
            .map(|&b| u32::from(nan(b)) | u32::from(inf(b)) << 1)
            .collect();
        classes.push(k[0] | k[1] << 2 | k[2] << 4 | k[3] << 6 | u32::from(nan(v[3])) << 8);
        cleaned.extend(v.iter().zip(&k).map(|(&b, &k)| if k != 0 { 0 } else { b }));
    }
    let radiance: Vec<u8> = bytemuck::cast_slice(&samples).to_vec();
    let census = vec![0u8; 4 * (2 + 128)];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(
            &ctx,
            &k,
            [2, 1, 1],
            &[("Radiance", radiance.clone()), ("Census", census.clone())],
        ) {
            let got = words(&out[1]);
            assert_eq!((got[0], got[1]), (nans, infs), "{backend}: counts");
            assert_eq!(got[2..], classes[..], "{backend}: classes");
            assert_eq!(words(&out[0]), cleaned, "{backend}: cleaned samples");
        }
    }
}

/// The CPU's results of [`WIDE`] for one invocation's six words.
fn wide_model(w: &[u32]) -> [u32; 16] {
    let (a0, a1, a2, b0, b1, b2) = (w[0], w[1], w[2], w[3], w[4], w[5]);
    let umul = |a: u32, b: u32| {
        let p = u64::from(a) * u64::from(b);
        ((p >> 32) as u32, p as u32)
    };
    let imul = |a: u32, b: u32| {
        let p = i64::from(a as i32) * i64::from(b as i32);
        ((p >> 32) as u32, p as u32)
    };
    let add = |a: u32, b: u32| {
        let (s, c) = a.overflowing_add(b);
        (s, u32::from(c))
    };
    let sub = |a: u32, b: u32| {
        let (d, c) = a.overflowing_sub(b);
        (d, u32::from(c))
    };
    let mut r = [0u32; 16];
    let (h, l) = umul(a0 ^ 0x9e37_79b9, b0);
    r[0] = h ^ l;
    let (s0, c0) = add(a0, b0);
    let (s1, c1) = add(a1, b1.wrapping_add(c0));
    let (s2, c2) = add(a2, b2.wrapping_add(c1));
    r[1..5].copy_from_slice(&[s0, s1, s2, c2]);
    let (t0, d0) = sub(a0, b0);
    let (t1, d1) = sub(a1, b1);
    let (t2, d2) = sub(a2, b2);
    r[5..9].copy_from_slice(&[t0, t1.wrapping_sub(d0), t2, d0 | d1 << 1 | d2 << 2]);
    let (hi, lo) = imul(a1, b1);
    r[9] = hi << 16 | lo >> 16;
    r[10] = hi;
    r[11] = umul(a0, b2).0;
    r[12] = umul(a2, b0).1;
    r[13] = imul(a2, b1).0;
    r[14] = imul(b2, a0).0;
    let (sx, cx) = add(a0, b1);
    let (sy, cy) = add(a1, b2);
    r[15] = (sx ^ sy).wrapping_add(cx).wrapping_add(2 * cy);
    r
}

#[test]
fn extended_arithmetic_is_exact_at_every_edge() {
    let k = common::glsl(WIDE);
    let edges = [
        0,
        1,
        2,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
    ];
    let mut rng = Rng(0xa11c);
    let input: Vec<u32> = (0..64 * 6)
        .map(|_| match rng.below(3) {
            0 => edges[rng.below(edges.len() as u32) as usize],
            _ => rng.next_u32(),
        })
        .collect();
    let want: Vec<u32> = input.chunks_exact(6).flat_map(wide_model).collect();
    let results = vec![0u8; 4 * want.len()];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(
            &ctx,
            &k,
            [2, 1, 1],
            &[
                ("Words", bytemuck::cast_slice(&input).to_vec()),
                ("Results", results.clone()),
            ],
        ) {
            let got = words(&out[1]);
            for (i, (g, w)) in got.chunks(16).zip(want.chunks(16)).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{backend}: invocation {i}, inputs {:x?}",
                    &input[6 * i..6 * i + 6]
                );
            }
        }
    }
}
