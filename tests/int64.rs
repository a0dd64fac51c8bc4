//! 64-bit integers as hashes and random number generators write them:
//! shifts by 64-bit literals (`x >> 30ul`), 64-bit constants, conversions
//! down to 32 bits and signed shifts, with a specialization constant. naga
//! reads a shift's 64-bit amount as a conversion (`u32(30lu)`) that its WGSL
//! reader cannot evaluate; the translation folds it, and its text reads
//! back. Run translated where the adapter has SHADER_INT64 and natively on
//! Vulkan, every result equal to the CPU's; an adapter without it refuses
//! the kernel naming the feature, and runs it translated for itself
//! (`SourceOptions::fitted_to`: pairs of 32-bit words).

mod common;

use atomport::{Bind, Buffer, Error, Kernel, SourceOptions};
use common::Rng;

const SPLITMIX: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint ROUNDS = 2u;
layout(std430, set = 0, binding = 0) readonly buffer Seeds { uvec2 seeds[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec4 outv[]; };

uint64_t splitmix64(inout uint64_t state) {
    state += 0x9E3779B97F4A7C15ul;
    uint64_t z = state;
    z = (z ^ (z >> 30ul)) * 0xBF58476D1CE4E5B9ul;
    z = (z ^ (z >> 27ul)) * 0x94D049BB133111EBul;
    return z ^ (z >> 31ul);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec2 s = seeds[i];
    uint64_t state = (uint64_t(s.y) << 32ul) | uint64_t(s.x);
    uint64_t r = 0ul;
    for (uint k = 0u; k < ROUNDS; ++k) {
        r ^= splitmix64(state);
    }
    int64_t high = int64_t(r) >> 40l;
    uint64_t bound = uint64_t(s.x) * 1000ul;
    outv[i] = uvec4(uint(r), uint(r >> 32ul), uint(high),
                    (r < bound ? 1u : 0u) | (high < 0l ? 2u : 0u));
}
";

/// The CPU's result of [`SPLITMIX`] for one seed.
fn model(x: u32, y: u32, rounds: u32) -> [u32; 4] {
    let mut state = u64::from(y) << 32 | u64::from(x);
    let mut r = 0u64;
    for _ in 0..rounds {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        r ^= z ^ (z >> 31);
    }
    let high = (r as i64) >> 40;
    let bound = u64::from(x) * 1000;
    [
        r as u32,
        (r >> 32) as u32,
        high as u32,
        u32::from(r < bound) | u32::from(high < 0) << 1,
    ]
}

#[test]
fn shifts_by_64_bit_literals_translate_read_back_and_run_exactly() {
    let mut opts = SourceOptions::named("splitmix.comp");
    opts.specializations = vec![atomport::Specialization::parse("ROUNDS=3").unwrap()];
    let k = Kernel::from_glsl(SPLITMIX, &opts).unwrap();
    // The text a host would ship parses and validates on its own.
    let module = naga::front::wgsl::parse_str(k.wgsl()).expect("the WGSL reads back");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("the WGSL validates back");
    let converted_literal = k.wgsl().split("u32(").skip(1).any(|rest| {
        let arg = rest.split(')').next().unwrap_or("");
        arg.ends_with("lu") || arg.ends_with("li")
    });
    assert!(
        !converted_literal,
        "a 64-bit literal still converted:\n{}",
        k.wgsl()
    );

    let mut rng = Rng(0x5eed_0064);
    let edges = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    let seeds: Vec<[u32; 2]> = (0..128)
        .map(|n| match n {
            0..25 => [edges[n % 5], edges[n / 5]],
            _ => [rng.next_u32(), rng.next_u32()],
        })
        .collect();
    let want: Vec<u32> = seeds.iter().flat_map(|s| model(s[0], s[1], 3)).collect();
    let seed_bytes: Vec<u8> = bytemuck::cast_slice(&seeds).to_vec();
    let mut ran = 0;
    for ctx in common::contexts_with_available(
        wgpu::Features::SHADER_INT64 | wgpu::Features::PASSTHROUGH_SHADERS,
    ) {
        if !ctx
            .device()
            .features()
            .contains(wgpu::Features::SHADER_INT64)
        {
            let buf = Buffer::zeroed(&ctx, 4096).unwrap();
            let binds = [Bind::named("Seeds", &buf), Bind::named("Out", &buf)];
            match ctx.dispatch(&k, [2, 1, 1], &binds) {
                Err(e @ Error::MissingFeature { .. }) => {
                    assert!(e.to_string().contains("SHADER_INT64"), "{e}");
                    println!("{}: refused, naming the feature: {e}", ctx.backend_name());
                }
                other => panic!(
                    "{}: expected the missing feature, got {other:?}",
                    ctx.backend_name()
                ),
            }
            // Translated for this adapter, the integers are pairs of words.
            let fitted = opts.clone().fitted_to(ctx.device().features());
            let k = Kernel::from_glsl(SPLITMIX, &fitted).unwrap();
            assert_eq!(k.forms(), [atomport::Form::Int64Pairs]);
            assert!(k.required_features().is_empty());
            let seeds = Buffer::from_bytes(&ctx, &seed_bytes).unwrap();
            let out = Buffer::zeroed(&ctx, 128 * 16).unwrap();
            let binds = [Bind::named("Seeds", &seeds), Bind::named("Out", &out)];
            ctx.dispatch(&k, [2, 1, 1], &binds).unwrap();
            let got: Vec<u32> = out.read(&ctx).unwrap();
            assert_eq!(got, want, "{}, pairs", ctx.backend_name());
            ran += 1;
            continue;
        }
        for (backend, out) in common::translated_and_native(
            &ctx,
            &k,
            [2, 1, 1],
            &[("Seeds", seed_bytes.clone()), ("Out", vec![0u8; 128 * 16])],
        ) {
            let got: Vec<u32> = bytemuck::cast_slice(&out[1]).to_vec();
            assert_eq!(got, want, "{backend}");
            ran += 1;
        }
    }
    assert!(ran > 0, "no adapter with SHADER_INT64 ran the kernel");
}
