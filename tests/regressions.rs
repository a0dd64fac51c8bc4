//! Inputs atomport once mishandled (tests/regressions/), each run on every
//! backend present and checked against what it computes by the spec; the
//! malformed ones must be refused in one line, exit status 1.

mod common;

use std::path::{Path, PathBuf};

use atomport::{Bind, Buffer, Context, Kernel, SourceOptions, Texture, TextureDesc, TextureDim};

fn input(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(name)
}

fn kernel(name: &str) -> Kernel {
    let path = input(name);
    Kernel::from_path(&path, None, &SourceOptions::named(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs `name` on every backend present with one buffer of `words` words
/// at `binding`, and returns (backend, words after) per backend.
fn run_one_buffer(
    name: &str,
    binding: &str,
    words: usize,
    groups: [u32; 3],
) -> Vec<(String, Vec<u32>)> {
    let k = kernel(name);
    common::contexts(k.required_features())
        .iter()
        .map(|ctx: &Context| {
            let b = Buffer::zeroed(ctx, words as u64 * 4).unwrap();
            ctx.dispatch(&k, groups, &[Bind::named(binding, &b)])
                .unwrap_or_else(|e| panic!("{name} on {}: {e}", ctx.backend_name()));
            (ctx.backend_name().to_string(), b.read::<u32>(ctx).unwrap())
        })
        .collect()
}

#[test]
fn unary_minus_on_uint_wraps() {
    // `uint y = -x; atomicAdd(h[x], y)`: h[x] = 0u - x.
    for (backend, h) in run_one_buffer("uint_negate.comp", "B", 64, [1, 1, 1]) {
        let want: Vec<u32> = (0..64u32).map(|x| 0u32.wrapping_sub(x)).collect();
        assert_eq!(h, want, "{backend}");
    }
}

#[test]
fn debug_information_at_module_scope_is_ignored() {
    // `glslangValidator -V -gV` of this shader: NonSemantic.Shader.DebugInfo.100
    // instructions at module scope (which rspirv's reader refused, "found
    // instruction ExtInst not inside block") and in every block.
    //
    //     layout(local_size_x = 64) in;
    //     layout(set = 0, binding = 0) buffer Out { uint o[]; };
    //     uint mixed(uint i) { uint h = i * 3u + 1u; return h ^ (h >> 4); }
    //     void main() { uint i = gl_GlobalInvocationID.x; o[i] = mixed(i); }
    let words = std::fs::read(input("debug_info_module_scope.spv")).unwrap();
    let text = String::from_utf8_lossy(&words);
    assert!(text.contains("NonSemantic.Shader.DebugInfo.100"));
    for (backend, o) in run_one_buffer("debug_info_module_scope.spv", "Out", 128, [2, 1, 1]) {
        let want: Vec<u32> = (0..128u32)
            .map(|i| {
                let h = i * 3 + 1;
                h ^ (h >> 4)
            })
            .collect();
        assert_eq!(o, want, "{backend}");
    }
}

#[test]
fn vector_by_scalar_remainder_translates() {
    // `ivec2 % int` over an 8×8 workgroup, 2×2 groups: every group writes
    // o[i] = x % 8 + y % 8 for its local index i.
    for (backend, o) in run_one_buffer("smod_ivec2.comp", "Out", 64, [2, 2, 1]) {
        let want: Vec<u32> = (0..64u32).map(|i| i % 8 + i / 8).collect();
        assert_eq!(o, want, "{backend}");
    }
}

#[test]
fn signed_remainder_takes_the_divisors_sign_exactly() {
    // OpSMod by the SPIR-V rule (what naga read through floats, inexact
    // past 2^24), on scalars and vectors, checked against Rust's rem_euclid
    // sign-adjusted to the divisor.
    let src = "#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Io { int a[16]; int b[16]; int s[16]; ivec2 v[16]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    s[i] = a[i] % b[i];
    v[i] = ivec2(a[i], a[15u - i]) % ivec2(b[i], b[15u - i]);
}
";
    let a: Vec<i32> = vec![
        7,
        16777219,
        2147483647,
        100,
        5,
        33,
        0,
        9,
        1 << 30,
        12345678,
        77,
        3,
        1000001,
        6,
        8,
        65537,
    ];
    let b: Vec<i32> = vec![3, 10, 16, 7, 5, 8, 4, 2, 3, 1000, 9, 3, 17, 4, 8, 256];
    let model = |x: i32, y: i32| {
        let r = x % y;
        if r != 0 && (r < 0) != (y < 0) {
            r + y
        } else {
            r
        }
    };
    let k = Kernel::from_glsl(src, &SourceOptions::named("smod.comp")).unwrap();
    for ctx in common::contexts(k.required_features()) {
        let mut io: Vec<i32> = a.iter().chain(&b).copied().collect();
        io.resize(16 * 5, 0);
        let buf = Buffer::from_slice(&ctx, &io).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("Io", &buf)])
            .unwrap();
        let out: Vec<i32> = buf.read(&ctx).unwrap();
        for i in 0..16 {
            assert_eq!(
                out[32 + i],
                model(a[i], b[i]),
                "{} s[{i}]",
                ctx.backend_name()
            );
            assert_eq!(
                out[48 + 2 * i],
                model(a[i], b[i]),
                "{} v[{i}].x",
                ctx.backend_name()
            );
            assert_eq!(
                out[48 + 2 * i + 1],
                model(a[15 - i], b[15 - i]),
                "{} v[{i}].y",
                ctx.backend_name()
            );
        }
    }
}

#[test]
fn texel_fetch_offset_adds_its_offset() {
    let k = kernel("texel_fetch_offset.comp");
    for ctx in common::contexts(k.required_features()) {
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::R32Sint, &[8, 1], 1).unwrap();
        let texels: Vec<i32> = (0..8).map(|i| i * i).collect();
        let t = Texture::from_data(&ctx, desc, bytemuck::cast_slice(&texels)).unwrap();
        let out = Buffer::zeroed(&ctx, 32).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[Bind::named("t_tex", &t), Bind::named("Out", &out)],
        )
        .unwrap();
        let o: Vec<i32> = out.read(&ctx).unwrap();
        // o[i] = t[i + 1] - t[i] = 2i + 1 for i < 7; o[7] untouched.
        let want: Vec<i32> = (0..8).map(|i| if i < 7 { 2 * i + 1 } else { 0 }).collect();
        assert_eq!(o, want, "{}", ctx.backend_name());
    }
}

#[test]
fn nonuniform_combined_samplers_translate_and_sample() {
    let k = kernel("nonuniform_combined_sampler.comp");
    for ctx in common::contexts(k.required_features()) {
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::R32Float, &[8, 8], 1).unwrap();
        let texels: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let t = Texture::from_data(&ctx, desc, bytemuck::cast_slice(&texels)).unwrap();
        let s = atomport::Sampler::new(&ctx, atomport::SamplerDesc::default()).unwrap();
        let out = Buffer::zeroed(&ctx, 64).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[
                Bind::named("depthTex", &t),
                Bind::named("nearestClamp", &s),
                Bind::named("Out", &out),
            ],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        let o: Vec<f32> = out.read(&ctx).unwrap();
        // The far corner of each 2x2 block holds its largest texel.
        let want: Vec<f32> = (0..16)
            .map(|i| (8 * (2 * (i / 4) + 1) + 2 * (i % 4) + 1) as f32)
            .collect();
        assert_eq!(o, want, "{}", ctx.backend_name());
    }
}

/// The native run (the reference every check compares with) of a switched
/// sampler array beside a texture array indexed `nonuniformEXT`: each
/// invocation reads its own texture. `check` translates without binding
/// arrays, so the sampler array is a switch in both modules; the
/// translation matches a CPU model and the native run matches it, on Mesa
/// 25's lavapipe (Debian 12's binds no arrays).
#[test]
fn switched_sampler_arrays_keep_nonuniform_indices_natively() {
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let path = input("switched_sampler_array_nonuniform.comp");
    let path = path.to_str().unwrap();
    let mut job: Vec<String> = (0..4)
        .flat_map(|k| {
            [
                "--texture".into(),
                format!("albedo[{k}]=2x2:r32float:fill={}", k + 1),
            ]
        })
        .collect();
    job.extend((0..2).flat_map(|k| ["--sampler".into(), format!("filters[{k}]=nearest")]));
    job.extend(["--buffer", "Out=f32:8", "--groups", "1"].map(String::from));
    let mut run = vec!["run", path, "--backend", "vulkan", "--json"];
    run.extend(job.iter().map(String::as_str));
    let got: Vec<f64> = common::binding(&common::json_on_lavapipe_25(&icd, &run), "Out")["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let want: Vec<f64> = (0..8).map(|i| f64::from(i % 4 + 1)).collect();
    assert_eq!(got, want);
    let flags = job.join(" ");
    let report = common::json_on_lavapipe_25(
        &icd,
        &[
            "check",
            path,
            "--backends",
            "vulkan",
            "--variants",
            "well-formed",
            "--run",
            &flags,
            "--json",
        ],
    );
    assert_eq!(report[0]["verdict"], "exact", "{report}");
}

#[test]
fn coherent_buffers_run() {
    for name in ["coherent_buffer_vulkan.comp", "coherent_buffer_opengl.comp"] {
        let k = kernel(name);
        assert!(
            k.warnings()
                .iter()
                .any(|w| w.message.contains("`coherent`")),
            "{name}: {:?}",
            k.warnings()
        );
        for (backend, counts) in run_one_buffer(name, "Counts", 4, [2, 1, 1]) {
            assert_eq!(counts, vec![32; 4], "{name} on {backend}");
        }
    }
}

#[test]
fn malformed_spirv_is_named_in_one_line() {
    for (name, what) in [
        ("stack_overflow.spv", "past the module's id bound"),
        ("pass_index_out_of_bounds.spv", "malformed SPIR-V"),
    ] {
        let path = input(name);
        let o = common::atomport(&["translate", "--lang", "spirv", path.to_str().unwrap()]);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(what), "{name}: {err}");
        assert!(!err.contains("internal error"), "{name}: {err}");
    }
}

#[test]
fn rgba32f_images_read_and_written_run() {
    // WebGPU has read-write storage textures of r32 formats only: the
    // image lives in a texel buffer. 1.0 everywhere, then v * 2 + 1.
    let k = kernel("rgba32f_read_write.comp");
    assert_eq!(k.bindings()[0].kind, atomport::BindingKind::Image);
    for ctx in common::contexts(k.required_features()) {
        let desc = atomport::ImageDesc::new(
            atomport::ImageDim::D2,
            atomport::ImageFormat::Rgba32Float,
            &[8, 8],
            1,
        )
        .unwrap();
        let img = atomport::Image::filled(&ctx, desc, [1.0f32; 4]).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("img", &img)])
            .unwrap();
        let texels: Vec<f32> = img.read(&ctx).unwrap();
        assert_eq!(texels, vec![3.0; 8 * 8 * 4], "{}", ctx.backend_name());
    }
}

/// A shift by a `uint64_t` amount: naga read it as `x << bitcast<u64>(n)`,
/// WGSL a browser (or atomport itself) refuses to parse back. The amount
/// is converted to 32 bits, and the results are GLSL's.
#[test]
fn shifts_by_64_bit_amounts_give_wgsl_that_parses_and_runs() {
    let src = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Wide { uint64_t values[8]; uint64_t amounts[8]; int64_t signed_values[8]; };
layout(set = 0, binding = 1) buffer Out { uint64_t left[8]; uint64_t right[8]; int64_t arith[8]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    left[i] = values[i] << amounts[i];
    right[i] = values[i] >> amounts[i];
    arith[i] = signed_values[i] >> amounts[i];
}
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("wide_shift.comp")).unwrap();
    Kernel::from_wgsl(k.wgsl(), &SourceOptions::named("wide_shift.wgsl"))
        .unwrap_or_else(|e| panic!("the WGSL parses back: {e}"));
    let values: Vec<u64> = (0..8)
        .map(|i| 0x8123_4567_89ab_cdefu64.rotate_left(i * 7))
        .collect();
    let amounts: Vec<u64> = vec![0, 1, 5, 31, 32, 33, 47, 63];
    let signed: Vec<i64> = values.iter().map(|&v| v as i64).collect();
    let mut input = values.clone();
    input.extend(&amounts);
    input.extend(signed.iter().map(|&v| v as u64));
    let mut want = Vec::new();
    want.extend(values.iter().zip(&amounts).map(|(v, a)| v << a));
    want.extend(values.iter().zip(&amounts).map(|(v, a)| v >> a));
    want.extend(signed.iter().zip(&amounts).map(|(v, a)| (v >> a) as u64));
    for ctx in common::contexts_with_available(k.required_features()) {
        if !ctx.device().features().contains(k.required_features()) {
            println!("{}: no 64-bit integers", ctx.backend_name());
            continue;
        }
        let wide = Buffer::from_slice(&ctx, &input).unwrap();
        let out = Buffer::zeroed(&ctx, 24 * 8).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[Bind::named("Wide", &wide), Bind::named("Out", &out)],
        )
        .unwrap();
        let got: Vec<u64> = out.read(&ctx).unwrap();
        assert_eq!(got, want, "{}", ctx.backend_name());
    }
}

#[test]
fn blocks_aliased_in_a_header_that_names_the_sets_are_vulkan_aliases() {
    let k = kernel("aliased_views_in_header.comp");
    assert_eq!(k.dialect(), Some(atomport::Dialect::Vulkan));
    let first = k.binding_named("words32").unwrap();
    for view in ["words16", "words8"] {
        assert_eq!(
            k.binding_named(view).unwrap().alias_of,
            Some(first.binding),
            "{view}"
        );
    }
    let source: Vec<u32> = (0..64u32).map(|i| i * 1000 + 7).collect();
    let mut want = vec![0u32; 64 * 4];
    for (i, &s) in source.iter().enumerate() {
        want[4 * i] = s;
        want[4 * i + 1] = (s + 1) & 0xffff;
        want[4 * i + 2] = (s + 2) & 0xff;
    }
    for ctx in common::contexts(k.required_features()) {
        let words = Buffer::zeroed(&ctx, 64 * 16).unwrap();
        let src = Buffer::from_slice(&ctx, &source).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[Bind::named("words8", &words), Bind::named("Source", &src)],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        assert_eq!(
            words.read::<u32>(&ctx).unwrap(),
            want,
            "{}",
            ctx.backend_name()
        );
    }
}

/// A kernel that never ends on Mesa 25's lavapipe (its lock word taken in
/// `check`'s random variant) timed out, and then dropping the context hung:
/// lavapipe's pipeline destruction waits on the queue the kernel holds, so
/// the check ran to its child's deadline (over 100 s) and retried each
/// variant. The check now ends a few seconds after the timeout, and the
/// variant after the one that timed out runs on fresh contexts (it was
/// refused: the device was still busy).
#[test]
fn a_context_whose_kernel_never_ends_drops_at_once() {
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let path = input("spin_lock_never_free.comp");
    let start = std::time::Instant::now();
    let report = common::json_on_lavapipe_25(
        &icd,
        &[
            "check",
            path.to_str().unwrap(),
            "--backends",
            "vulkan",
            "--variants",
            "random,well-formed",
            "--timeout",
            "2",
            "--json",
        ],
    );
    let took = start.elapsed();
    let runs = report[0]["runs"].as_array().unwrap();
    let of = |variant: &str| {
        runs.iter()
            .find(|r| r["variant"] == variant)
            .unwrap_or_else(|| panic!("no {variant} run: {report}"))
    };
    assert_eq!(of("well-formed")["verdict"], "exact", "{report}");
    let random = of("random");
    assert_eq!(random["verdict"], "not-run", "{report}");
    let note = random["note"].as_str().unwrap();
    assert!(note.contains("did not finish within 2 s"), "{note}");
    assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
}
