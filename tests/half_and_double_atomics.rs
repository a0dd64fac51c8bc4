//! Atomics on 16- and 64-bit floats (GL_EXT_shader_atomic_float and
//! GL_EXT_shader_atomic_float2): `atomicAdd`, `atomicMin`, `atomicMax` and
//! `atomicExchange` on `float16_t` are compare-exchange loops on the word
//! holding the half, which change only its 16 bits; on `double` they are
//! compare-exchange loops on 64-bit words (SHADER_INT64_ATOMIC_ALL_OPS).
//! Reductions in buffers and shared memory checked against exact CPU
//! results (every partial sum is exact, so any order gives them), the
//! chain of values `atomicAdd` returned, a neighbour's store into the same
//! word kept, and the rules of min, max and rounding at their edges; on
//! Vulkan also beside the original SPIR-V run natively. Where the adapter
//! lacks 64-bit floats or atomics the dispatch names them.

mod common;

use atomport::{Bind, Buffer, Error, Kernel, SourceOptions, f32_to_half, half_to_f32};

const HALF_STATS: &str = "#version 450
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Samples { float16_t samples[]; };
layout(std430, binding = 1) buffer Stats {
    float16_t total;
    float16_t lowest;
    float16_t highest;
    uint16_t marker;
    float16_t latest;
    float16_t groupTotals[2];
    float16_t groupLowest[2];
    float16_t previous[];
};
shared float16_t groupTotal;
shared float16_t groupMin;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationIndex;
    float16_t s = samples[i];
    if (l == 0u) {
        groupTotal = float16_t(0.0);
        groupMin = float16_t(65504.0);
    }
    barrier();
    previous[i] = atomicAdd(total, s);
    atomicMin(lowest, s);
    atomicMax(highest, s);
    atomicExchange(latest, s);
    if (i == 70u) {
        marker = uint16_t(0xBEEF);
    }
    atomicAdd(groupTotal, s);
    atomicMin(groupMin, s);
    barrier();
    if (l == 0u) {
        groupTotals[gl_WorkGroupID.x] = groupTotal;
        groupLowest[gl_WorkGroupID.x] = atomicLoad(groupMin, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire);
    }
}
";

fn halfs(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(2)
        .map(|c| half_to_f32(u16::from_le_bytes([c[0], c[1]])))
        .collect()
}

/// `{olds} ∪ {last}` equals `{first} ∪ {old + value}` as multisets: each
/// add returned what the one before it left.
fn is_chain(first: f64, olds: &[f64], values: &[f64], last: f64) -> bool {
    let mut a: Vec<f64> = olds.iter().copied().chain([last]).collect();
    let mut b: Vec<f64> = olds
        .iter()
        .zip(values)
        .map(|(o, v)| o + v)
        .chain([first])
        .collect();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    a == b
}

#[test]
fn half_atomics_change_only_their_half_of_a_word() {
    let k = Kernel::from_glsl(HALF_STATS, &SourceOptions::named("half_stats.comp")).unwrap();
    // Multiples of 1/4 in [-3.75, 3.75]: every partial sum of 128 of
    // them is a half exactly, whatever the order.
    let mut rng = common::Rng(0x4a1f);
    let samples: Vec<f32> = (0..128)
        .map(|_| (rng.below(31) as f32 - 15.0) * 0.25)
        .collect();
    let bytes: Vec<u8> = samples
        .iter()
        .flat_map(|&s| f32_to_half(s).to_le_bytes())
        .collect();
    let mut stats = vec![0u8; 18 + 2 * 128];
    // lowest and highest start at +0, latest at no sample's value.
    stats[8..10].copy_from_slice(&f32_to_half(-100.0).to_le_bytes());
    let sum: f32 = samples.iter().sum();
    let group = |g: usize| &samples[g * 64..(g + 1) * 64];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(
            &ctx,
            &k,
            [2, 1, 1],
            &[("Samples", bytes.clone()), ("Stats", stats.clone())],
        ) {
            let got = halfs(&out[1]);
            assert_eq!(got[0], sum, "{backend}: total");
            let lowest = samples.iter().copied().fold(0.0, f32::min);
            let highest = samples.iter().copied().fold(0.0, f32::max);
            assert_eq!((got[1], got[2]), (lowest, highest), "{backend}: bounds");
            let marker = u16::from_le_bytes([out[1][6], out[1][7]]);
            assert_eq!(marker, 0xbeef, "{backend}: the neighbour's store kept");
            assert!(samples.contains(&got[4]), "{backend}: latest {}", got[4]);
            for g in 0..2 {
                assert_eq!(got[5 + g], group(g).iter().sum::<f32>(), "{backend}");
                let min = group(g).iter().copied().fold(65504.0, f32::min);
                assert_eq!(got[7 + g], min, "{backend}: group {g} lowest");
            }
            let olds: Vec<f64> = got[9..].iter().map(|&x| f64::from(x)).collect();
            let values: Vec<f64> = samples.iter().map(|&x| f64::from(x)).collect();
            assert!(
                is_chain(0.0, &olds, &values, f64::from(sum)),
                "{backend}: what atomicAdd returned is no chain of sums"
            );
        }
    }
}

const HALF_EDGES: &str = "#version 450
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Cells { float16_t cell[12]; float16_t old[12]; };
layout(std430, binding = 1) readonly buffer Values { float16_t value[12]; };
void main() {
    old[0] = atomicMin(cell[0], value[0]);
    old[1] = atomicMax(cell[1], value[1]);
    old[2] = atomicMin(cell[2], value[2]);
    old[3] = atomicMax(cell[3], value[3]);
    old[4] = atomicMin(cell[4], value[4]);
    old[5] = atomicMax(cell[5], value[5]);
    old[6] = atomicAdd(cell[6], value[6]);
    old[7] = atomicAdd(cell[7], value[7]);
    old[8] = atomicAdd(cell[8], value[8]);
    old[9] = atomicExchange(cell[9], value[9]);
    old[10] = atomicAdd(cell[10], value[10]);
    old[11] = atomicMin(cell[11], value[11]);
}
";

#[test]
fn half_atomics_keep_the_rules_of_min_max_and_rounding() {
    let k = Kernel::from_glsl(HALF_EDGES, &SourceOptions::named("half_edges.comp")).unwrap();
    let nan = 0x7e00u16;
    let tiny = f32_to_half(2f32.powi(-11));
    let h = f32_to_half;
    // (memory, value, memory after), as half bits.
    let cases: [(u16, u16, u16); 12] = [
        (h(0.0), 0x8000, 0x8000), // min(+0, -0) is -0
        (0x8000, h(0.0), h(0.0)), // max(-0, +0) is +0
        (h(1.0), nan, h(1.0)),    // a NaN value changes nothing
        (h(1.0), nan, h(1.0)),
        (nan, h(2.0), h(2.0)),             // memory's NaN takes the value
        (nan, h(-2.0), h(-2.0)),           //
        (h(1.0), tiny, h(1.0)),            // 1 + 2^-11: a tie, to even (1)
        (h(1.0) + 1, tiny, h(1.0) + 2),    // the next tie, to even (up)
        (h(65504.0), h(15.0), h(65504.0)), // below the halfway to infinity
        (h(-3.5), h(7.25), h(7.25)),       // exchange
        (h(65504.0), h(65504.0), 0x7c00),  // overflow: infinity
        (h(-65504.0), 0xfc00, 0xfc00),     // min with -infinity
    ];
    let cells: Vec<u8> = cases
        .iter()
        .flat_map(|c| c.0.to_le_bytes())
        .chain([0u8; 24])
        .collect();
    let values: Vec<u8> = cases.iter().flat_map(|c| c.1.to_le_bytes()).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let cb = Buffer::from_bytes(&ctx, &cells).unwrap();
        let vb = Buffer::from_bytes(&ctx, &values).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[Bind::named("Cells", &cb), Bind::named("Values", &vb)],
        )
        .unwrap();
        let out: Vec<u8> = cb.read(&ctx).unwrap();
        let bits: Vec<u16> = out
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let is_nan = |b: u16| b & 0x7fff > 0x7c00;
        for (n, c) in cases.iter().enumerate() {
            assert_eq!(
                bits[n],
                c.2,
                "{}: case {n}: memory after",
                ctx.backend_name()
            );
            // A NaN returned may come back with another payload.
            assert!(
                bits[12 + n] == c.0 || (is_nan(c.0) && is_nan(bits[12 + n])),
                "{}: case {n}: returned {:#x}, not {:#x}",
                ctx.backend_name(),
                bits[12 + n],
                c.0
            );
        }
    }
}

const DOUBLE_STATS: &str = "#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Samples { double samples[]; };
layout(std430, binding = 1) buffer Stats {
    double total;
    double lowest;
    double highest;
    double latest;
    double groupTotals[2];
    double groupHighest[2];
    double previous[];
};
shared double groupTotal;
shared double groupMax;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationIndex;
    double s = samples[i];
    if (l == 0u) {
        atomicStore(groupTotal, 0.0lf, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
        groupMax = -1.0e300;
    }
    barrier();
    previous[i] = atomicAdd(total, s, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    atomicMin(lowest, s);
    atomicMax(highest, s);
    atomicExchange(latest, s);
    atomicAdd(groupTotal, s);
    atomicMax(groupMax, s);
    barrier();
    if (l == 0u) {
        groupTotals[gl_WorkGroupID.x] = atomicLoad(groupTotal, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire);
        groupHighest[gl_WorkGroupID.x] = groupMax;
    }
}
";

#[test]
fn double_atomics_are_64_bit_compare_exchange_loops() {
    let k = Kernel::from_glsl(DOUBLE_STATS, &SourceOptions::named("double_stats.comp")).unwrap();
    let needed = k.required_features();
    assert!(
        needed.contains(wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS)
    );
    // Values with bits far below a float's precision: multiples of 2^-26
    // under 8, so that every partial sum of 128 is exact.
    let mut rng = common::Rng(0xd0b1e);
    let samples: Vec<f64> = (0..128)
        .map(|_| (f64::from(rng.below(1 << 30)) - f64::from(1 << 29)) * 2f64.powi(-26))
        .collect();
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    let stats = vec![0u8; 8 * (8 + 128)];
    let sum: f64 = samples.iter().sum();
    let native = common::native_compiles_apart(
        "double_stats",
        DOUBLE_STATS,
        &[
            "--groups",
            "2",
            "--buffer",
            "Samples=u64:128",
            "--buffer",
            "Stats=u64:136",
        ],
    );
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS | needed) {
        if !ctx.device().features().contains(needed) {
            let buf = Buffer::zeroed(&ctx, 8 * 136).unwrap();
            let binds = [Bind::named("Samples", &buf), Bind::named("Stats", &buf)];
            match ctx.dispatch(&k, [2, 1, 1], &binds) {
                Err(e @ Error::MissingFeature { .. }) => {
                    assert!(e.to_string().contains("SHADER_F64"), "{e}");
                }
                other => panic!(
                    "{}: expected a missing feature: {other:?}",
                    ctx.backend_name()
                ),
            }
            continue;
        }
        for (backend, out) in common::translated_and_native_where(
            &ctx,
            &k,
            [2, 1, 1],
            &[("Samples", bytes.clone()), ("Stats", stats.clone())],
            native,
        ) {
            let got: Vec<f64> = out[1]
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(got[0], sum, "{backend}: total");
            let lowest = samples.iter().copied().fold(0.0, f64::min);
            let highest = samples.iter().copied().fold(0.0, f64::max);
            assert_eq!((got[1], got[2]), (lowest, highest), "{backend}: bounds");
            assert!(samples.contains(&got[3]), "{backend}: latest");
            for g in 0..2 {
                let part = &samples[g * 64..(g + 1) * 64];
                assert_eq!(got[4 + g], part.iter().sum::<f64>(), "{backend}");
                let max = part.iter().copied().fold(-1.0e300, f64::max);
                assert_eq!(got[6 + g], max, "{backend}: group {g} highest");
            }
            assert!(
                is_chain(0.0, &got[8..], &samples, sum),
                "{backend}: what atomicAdd returned is no chain of sums"
            );
        }
    }
}
