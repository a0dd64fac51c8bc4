//! Front-end behaviour beyond the golden corpus: SPIR-V input and its errors,
//! binding names, the GLSL dialects, and features the adapter must have.

mod common;

use atomport::{Bind, Buffer, Context, ContextOptions, Error, Kernel, SourceOptions};

const COUNTER: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counters { uint hits; uvec2 pair; } c;
void main() { atomicAdd(c.hits, 1u); atomicMax(c.pair.y, gl_LocalInvocationIndex); }
";

#[test]
fn spirv_input_runs_like_the_glsl_it_came_from() {
    let words = atomport::compile_glsl(COUNTER, &SourceOptions::named("c.comp")).unwrap();
    let from_spirv = Kernel::from_spirv(&words, &SourceOptions::named("c.spv")).unwrap();
    let from_glsl = Kernel::from_glsl(COUNTER, &SourceOptions::named("c.comp")).unwrap();
    assert_eq!(from_spirv.wgsl(), from_glsl.wgsl());
    for ctx in common::contexts(wgpu::Features::empty()) {
        let buf = Buffer::zeroed(&ctx, 16).unwrap();
        ctx.dispatch(&from_spirv, [3, 1, 1], &[Bind::new(0, 0, &buf)])
            .unwrap();
        assert_eq!(buf.read::<u32>(&ctx).unwrap(), vec![192, 0, 0, 63]);
    }
}

#[test]
fn not_spirv_and_truncated_spirv_are_clear_errors() {
    let e = atomport::spirv_words(b"#version 450\nvoid main() {}\n\0\0\0", "x.spv").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("x.spv: not a SPIR-V module (the first word is 0x72657623"),
        "{e}"
    );
    let e = atomport::spirv_words(&[3, 2, 35, 7], "x.spv").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.spv: not a SPIR-V module: 4 bytes is shorter than the 20-byte header"
    );
    let words = atomport::compile_glsl(COUNTER, &SourceOptions::named("c.comp")).unwrap();
    let bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    let e = atomport::spirv_words(&bytes[..bytes.len() - 2], "x.spv").unwrap_err();
    assert!(e.to_string().starts_with("x.spv: truncated SPIR-V"), "{e}");
    // Whole words missing at the end: the module is cut inside an instruction.
    let cut = &words[..words.len() - 3];
    let e = Kernel::from_spirv(cut, &SourceOptions::named("cut.spv")).unwrap_err();
    assert!(matches!(e, Error::Shader(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("cut.spv: truncated SPIR-V: the instruction at word"),
        "{e}"
    );
}

#[test]
fn binding_names_are_the_glsl_names() {
    let k = Kernel::from_glsl(
        "#version 430
layout(local_size_x = 1) in;
layout(binding = 0) buffer Anonymous { uint a; };
layout(binding = 3) buffer Named { uint b; } instance;
layout(std140, binding = 1) uniform Params { uint n; } params;
void main() { atomicAdd(a, params.n); atomicAdd(instance.b, 1u); }
",
        &SourceOptions::named("gl.comp"),
    )
    .unwrap();
    let names: Vec<(u32, u32, Option<&str>)> = k
        .bindings()
        .iter()
        .map(|b| (b.group, b.binding, b.name.as_deref()))
        .collect();
    assert_eq!(
        names,
        vec![
            (0, 0, Some("Anonymous")),
            (0, 1, Some("params")),
            (0, 3, Some("instance"))
        ]
    );
}

#[test]
fn es_and_vulkan_dialects_translate() {
    let es = "#version 310 es
precision highp int;
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer B { int v[]; };
shared int s;
void main() { if (gl_LocalInvocationIndex == 0u) s = 0; barrier(); atomicMin(s, -int(gl_LocalInvocationIndex)); barrier(); if (gl_LocalInvocationIndex == 0u) v[0] = s; }
";
    let vk = "#version 460
layout(local_size_x = 8) in;
layout(set = 2, binding = 5) buffer B { int v[]; };
void main() { atomicOr(v[1], 1 << int(gl_LocalInvocationIndex)); }
";
    let k = Kernel::from_glsl(es, &SourceOptions::named("es.comp")).unwrap();
    assert_eq!(k.workgroup_size(), [8, 1, 1]);
    let k2 = Kernel::from_glsl(vk, &SourceOptions::named("vk.comp")).unwrap();
    assert_eq!((k2.bindings()[0].group, k2.bindings()[0].binding), (2, 5));
    for ctx in common::contexts(wgpu::Features::empty()) {
        let b = Buffer::filled(&ctx, 77i32, 2).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &b)]).unwrap();
        assert_eq!(b.read::<i32>(&ctx).unwrap()[0], -7);
        ctx.dispatch(
            &k2,
            [1, 1, 1],
            &[Bind {
                target: atomport::Target::Slot {
                    group: 2,
                    binding: 5,
                },
                resource: atomport::Resource::Buffer(&b),
            }],
        )
        .unwrap();
        assert_eq!(b.read::<i32>(&ctx).unwrap()[1], 77 | 255);
    }
}

#[test]
fn int64_atomics_need_the_adapter_feature() {
    let src = "#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint64_t total; };
void main() { atomicAdd(total, uint64_t(gl_LocalInvocationIndex) << 33); }
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("i64.comp")).unwrap();
    let need = k.required_features();
    assert!(need.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS));
    for b in [atomport::BackendChoice::Vulkan, atomport::BackendChoice::Gl] {
        let opts = ContextOptions::default().with_backend(b);
        let Ok(features) = opts.adapter_features() else {
            println!("skipping {}: no adapter", b.name());
            continue;
        };
        match Context::new(&opts.with_features(need)) {
            Ok(ctx) => {
                assert!(features.contains(need));
                let buf = Buffer::zeroed(&ctx, 8).unwrap();
                ctx.dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &buf)])
                    .unwrap();
                let total = buf.read::<u64>(&ctx).unwrap()[0];
                assert_eq!(total, (0..64u64).sum::<u64>() << 33, "{}", b.name());
            }
            Err(e) => {
                assert!(!features.contains(need));
                assert!(
                    e.to_string()
                        .contains("SHADER_INT64_ATOMIC_ALL_OPS (64-bit integer atomics)"),
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn includes_and_defines() {
    let dir = common::scratch().join(format!("atomport-front-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/bins.glsl"), "#define BIN(x) ((x) % NBINS)\n").unwrap();
    let main = dir.join("main.comp");
    std::fs::write(
        &main,
        "#version 450\n#include \"sub/bins.glsl\"\nlayout(local_size_x = 64) in;\nlayout(binding = 0) buffer B { uint bins[NBINS]; };\nvoid main() { atomicAdd(bins[BIN(gl_LocalInvocationIndex)], 1u); }\n",
    )
    .unwrap();
    let e = Kernel::from_path(&main, None, &SourceOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("main.comp:4:42: error: 'NBINS'"),
        "{e}"
    );
    // Lines before #version keep the reported line right.
    let commented = dir.join("commented.comp");
    std::fs::write(
        &commented,
        format!(
            "// a header comment\n\n{}",
            std::fs::read_to_string(&main).unwrap()
        ),
    )
    .unwrap();
    let e = Kernel::from_path(&commented, None, &SourceOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("commented.comp:6:42: error: 'NBINS'"),
        "{e}"
    );
    let k = Kernel::from_path(&main, None, &SourceOptions::default().define("NBINS=4")).unwrap();
    assert_eq!(k.bindings()[0].min_size, 16);
    // The extension commented out (a project whose compiler enables it):
    // atomport enables it, and the lines stay the file's.
    let disabled = dir.join("disabled.comp");
    std::fs::write(
        &disabled,
        std::fs::read_to_string(&main).unwrap().replacen(
            "\n",
            "\n//#extension GL_GOOGLE_include_directive : enable\n",
            1,
        ),
    )
    .unwrap();
    let e = Kernel::from_path(&disabled, None, &SourceOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("disabled.comp:5:42: error: 'NBINS'"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn specialization_constant_expressions_are_folded_to_defaults() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(constant_id = 1) const uint BINS = 16;
const uint TWICE = BINS * 2u + (BINS > 8u ? 0u : 1u);
layout(binding = 0) buffer B { uint bins[]; };
void main() { atomicAdd(bins[gl_GlobalInvocationID.x % TWICE], 1u); }
";
    // naga alone cannot read the SpecConstantOp: the fold makes it translatable.
    let k = Kernel::from_glsl(src, &SourceOptions::named("spec.comp")).unwrap();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let b = Buffer::zeroed(&ctx, 32 * 4).unwrap();
        ctx.dispatch(&k, [2, 1, 1], &[Bind::new(0, 0, &b)]).unwrap();
        assert_eq!(
            b.read::<u32>(&ctx).unwrap(),
            vec![4u32; 32],
            "{}",
            ctx.backend_name()
        );
    }
}

/// Corrupted SPIR-V (words flipped at random) is an error or a kernel, never
/// a panic or an abort.
#[test]
fn corrupted_spirv_never_panics() {
    let src = "#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimageCube img;
layout(set = 0, binding = 1) buffer B { uvec4 v; float f; uint n[]; } b;
void main() {
    imageAtomicAdd(img, ivec3(gl_LocalInvocationID), 1u);
    atomicCompSwap(b.v.z, 0u, 1u);
    b.n[gl_LocalInvocationIndex] = imageLoad(img, ivec3(0)).x;
}
";
    let words = atomport::compile_glsl(src, &SourceOptions::named("fuzz.comp")).unwrap();
    Kernel::from_spirv(&words, &SourceOptions::named("fuzz.spv")).unwrap();
    let mut rng = common::Rng(99);
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..400 {
        let mut w = words.clone();
        for _ in 0..1 + rng.next_u32() % 3 {
            let at = 5 + (rng.next_u32() as usize) % (w.len() - 5);
            w[at] = match rng.next_u32() % 3 {
                0 => rng.next_u32(),
                1 => w[at] ^ (1 << (rng.next_u32() % 32)),
                _ => rng.next_u32() % 64,
            };
        }
        match std::panic::catch_unwind(|| Kernel::from_spirv(&w, &SourceOptions::named("fuzz.spv")))
        {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => errors += 1,
            Err(_) => panic!("a panic escaped for a corrupted module"),
        }
    }
    println!("{ok} corrupted modules still translated, {errors} refused with an error");
    assert!(errors > 0);
}

#[test]
fn shader_errors_show_the_line_with_a_caret() {
    // naga's WGSL parser: file:line:column, the line, a caret with naga's label.
    let e = Kernel::from_wgsl(
        "@compute @workgroup_size(1) fn main() {\n  let x = 1u +;\n}\n",
        &SourceOptions::named("k.wgsl"),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "k.wgsl:2:15: error: expected expression, found \";\"\n    2 |   let x = 1u +;\n      |               ^ expected expression"
    );
    // naga's validator: every span it names.
    let e = Kernel::from_wgsl(
        "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n@compute @workgroup_size(1) fn main() {\n  v[0] = 1.0;\n}\n",
        &SourceOptions::named("k.wgsl"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("k.wgsl:3:3: error: "), "{e}");
    assert!(e.contains("\n    3 |   v[0] = 1.0;\n      |   ^^^^"), "{e}");
    // glslang: the quoted token or the unexpected symbol found on the line.
    let e = Kernel::from_glsl(
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n  uint x = 1u\n}\n",
        &SourceOptions::named("k.comp"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("k.comp:5:1: error: "), "{e}");
    assert!(e.ends_with("\n    5 | }\n      | ^"), "{e}");
}
