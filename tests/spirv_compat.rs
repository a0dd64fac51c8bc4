//! SPIR-V as compilers emit it (issue 13): the shaders in `tests/vulkan/`,
//! written in the styles of glslang's own compute tests and of real
//! renderers, compiled for Vulkan 1.0 through 1.3 and read both from GLSL and
//! through the `.spv` path; then dispatched on every backend present and
//! checked against CPU models.

mod common;

use std::path::Path;

use atomport::validate::reference::float_min_max;
use atomport::{
    Bind, Buffer, Context, ContextOptions, Error, Image, ImageDesc, ImageDim, ImageFormat, Kernel,
    SourceOptions, Specialization, TargetEnv,
};
use common::Rng;

fn source(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vulkan")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn options(name: &str, env: TargetEnv, specs: &[&str]) -> SourceOptions {
    let mut o = SourceOptions::named(name);
    o.target_env = Some(env);
    o.specializations = specs
        .iter()
        .map(|s| Specialization::parse(s).unwrap())
        .collect();
    o
}

fn kernel(name: &str, env: TargetEnv, specs: &[&str]) -> Kernel {
    Kernel::from_glsl(&source(name), &options(name, env, specs))
        .unwrap_or_else(|e| panic!("{name} ({}): {e}", env.name()))
}

#[test]
fn every_shader_translates_for_every_target_from_glsl_and_from_spirv() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vulkan");
    let mut shaders: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "comp"))
        .collect();
    shaders.sort();
    assert!(shaders.len() >= 9, "the corpus is missing");
    let mut translated = 0;
    for path in &shaders {
        let name = path.file_name().unwrap().to_str().unwrap();
        let src = std::fs::read_to_string(path).unwrap();
        let mut envs = 0;
        for env in TargetEnv::ALL {
            let o = options(name, env, &[]);
            // Constructs newer than the target (subgroups before 1.1, a
            // broadcast from a non-constant id before 1.5) are glslang's
            // refusal, not atomport's.
            let compiled = match atomport::compile_glsl(&src, &o) {
                Ok(c) => c,
                // Every shader is written for Vulkan 1.2 and 1.3.
                Err(e) if matches!(env, TargetEnv::Vulkan1_2 | TargetEnv::Vulkan1_3) => {
                    panic!("{name} ({}): {e}", env.name())
                }
                Err(_) => continue,
            };
            let version = (compiled[1] >> 8) & 0xff;
            let expected = match env {
                TargetEnv::Vulkan1_0 => 0,
                TargetEnv::Vulkan1_1 => 3,
                TargetEnv::Vulkan1_2 => 5,
                TargetEnv::Vulkan1_3 => 6,
            };
            assert_eq!(
                version,
                expected,
                "{name}: SPIR-V 1.{version} for {}",
                env.name()
            );
            let from_glsl = Kernel::from_glsl(&src, &o)
                .unwrap_or_else(|e| panic!("{name} ({}): {e}", env.name()));
            let from_spirv = Kernel::from_spirv(&compiled, &o)
                .unwrap_or_else(|e| panic!("{name} ({}) as SPIR-V: {e}", env.name()));
            assert_eq!(
                from_glsl.wgsl(),
                from_spirv.wgsl(),
                "{name} ({})",
                env.name()
            );
            // The WGSL text itself parses and validates.
            let module = naga::front::wgsl::parse_str(from_glsl.wgsl()).unwrap_or_else(|e| {
                panic!(
                    "{name} ({}): {}",
                    env.name(),
                    e.emit_to_string(from_glsl.wgsl())
                )
            });
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name} ({}): {e:?}", env.name()));
            envs += 1;
            translated += 1;
        }
        // Every shader compiles for Vulkan 1.2 and 1.3 at least.
        assert!(envs >= 2, "{name} translated for only {envs} targets");
    }
    assert!(translated >= 30, "only {translated} translations");
}

#[test]
fn constructs_wgsl_lacks_are_refused_by_name() {
    let cases = [
        (
            "#version 450\n#extension GL_EXT_shader_8bit_storage : require\n#extension GL_EXT_shader_explicit_arithmetic_types : require\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint8_t bytes[4]; int lowest; };\nvoid main() { atomicMin(lowest, int(bytes[0])); }",
            "a signed atomicMin/atomicMax in memory atomport addresses as 32-bit words",
        ),
        (
            "#version 450\n#extension GL_EXT_shader_8bit_storage : require\n#extension GL_EXT_shader_explicit_arithmetic_types : require\nlayout(local_size_x = 1) in;\n#extension GL_EXT_shader_atomic_int64 : require\nlayout(set = 0, binding = 0) buffer B { uint8_t bytes[4]; uint64_t big; };\nvoid main() { atomicAdd(big, uint64_t(bytes[0])); }",
            "not 32 bits wide",
        ),
        (
            "#version 450\nlayout(local_size_x = 1) in;\nstruct Grid { uint cells[300]; };\nlayout(set = 0, binding = 0) buffer B { Grid grids[2]; };\nvoid main() { atomicAdd(grids[0].cells[1], 1u); grids[1] = grids[0]; }",
            "which holds memory used atomically; WGSL cannot copy atomics as values",
        ),
    ];
    for (src, needle) in cases {
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            let e = Kernel::from_glsl(src, &options("refused.comp", env, &[])).unwrap_err();
            assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
            let text = e.to_string();
            assert!(text.contains(needle), "{text}");
            assert!(!text.contains("internal error"), "{text}");
        }
    }
}

/// The words `spec_constant_ops.comp` writes, from its constants.
fn spec_model(tile: u32, bias: i32, wide: bool, shift: u32, size: u32) -> Vec<u32> {
    let mask = tile.wrapping_sub(1);
    let half = tile >> 1;
    // GLSL's % on int is SPIR-V's OpSMod: the sign follows the divisor.
    let smod = |a: i32, b: i32| {
        let r = a % b;
        if r != 0 && (r < 0) != (b < 0) {
            r + b
        } else {
            r
        }
    };
    vec![
        mask,
        half,
        (tile << shift) | 1,
        if wide { tile * 2 } else { tile / 2 },
        (tile < 16 && !wide) as u32,
        bias.wrapping_mul(tile as i32).wrapping_sub(smod(bias, 2)) as u32,
        !tile & 0xff,
        half + mask,
        tile % 3,
        bias.wrapping_neg() as u32,
        tile ^ shift,
        (tile == shift) as u32,
        bias as u32,
        size,
        tile,
        0,
    ]
}

#[test]
fn specialization_constants_fold_every_operation_with_the_values_given() {
    // (specializations, (TILE, BIAS, WIDE, SHIFT, workgroup size))
    type Set<'a> = (&'a [&'a str], (u32, i32, bool, u32, u32));
    let sets: [Set; 3] = [
        (&[], (8, -3, false, 2, 1)),
        (
            &["0=4", "TILE=32", "BIAS=5", "WIDE=true", "SHIFT=3"],
            (32, 5, true, 3, 4),
        ),
        (&["1=12", "2=-8", "SHIFT=0", "0=64"], (12, -8, false, 0, 64)),
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_3] {
            for (specs, (tile, bias, wide, shift, size)) in sets {
                let k = kernel("spec_constant_ops.comp", env, specs);
                assert_eq!(k.workgroup_size(), [size, 1, 1], "{specs:?}");
                let out = Buffer::zeroed(&ctx, 16 * 4).unwrap();
                ctx.dispatch(&k, [1, 1, 1], &[Bind::named("Out", &out)])
                    .unwrap();
                let got: Vec<u32> = out.read(&ctx).unwrap();
                assert_eq!(
                    got,
                    spec_model(tile, bias, wide, shift, size),
                    "{} {} {specs:?}",
                    ctx.backend_name(),
                    env.name()
                );
            }
        }
    }
}

/// `spec_sized_shared_tile.comp`'s pulls, from its bodies and constants:
/// the sum over every body (padding bodies are zero) of
/// `d * mass / (|d|₁ + soften)`, with GLSL's truncating division.
fn tile_model(bodies: &[[i32; 4]], tile: i32, soften: i32) -> Vec<[i32; 4]> {
    bodies
        .iter()
        .map(|me| {
            let mut acc = [0i32; 3];
            for b in bodies {
                let d = [b[0] - me[0], b[1] - me[1], b[2] - me[2]];
                let r = d[0].abs() + d[1].abs() + d[2].abs() + soften;
                for c in 0..3 {
                    acc[c] = acc[c].wrapping_add(d[c].wrapping_mul(b[3]) / r);
                }
            }
            [acc[0], acc[1], acc[2], tile]
        })
        .collect()
}

#[test]
fn a_shared_array_sized_by_a_specialization_constant_takes_the_value_given() {
    let mut rng = Rng(0x7115);
    let bodies: Vec<[i32; 4]> = (0..70)
        .map(|_| {
            let mut b = [0; 4];
            for c in &mut b[..3] {
                *c = rng.below(8192) as i32 - 4096;
            }
            b[3] = rng.below(9) as i32;
            b
        })
        .collect();
    // The default, a tile larger than the workgroup, a smaller one.
    let sets: [(&[&str], i32, i32); 3] = [
        (&[], 32, 4),
        (&["TILE=48"], 48, 4),
        (&["0=8", "SOFTEN=1"], 8, 1),
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (specs, tile, soften) in sets {
            let k = kernel("spec_sized_shared_tile.comp", TargetEnv::Vulkan1_1, specs);
            let input =
                Buffer::from_slice(&ctx, bytemuck::cast_slice::<[i32; 4], i32>(&bodies)).unwrap();
            let out = Buffer::zeroed(&ctx, bodies.len() as u64 * 16).unwrap();
            ctx.dispatch(
                &k,
                [3, 1, 1],
                &[Bind::named("Bodies", &input), Bind::named("Pulls", &out)],
            )
            .unwrap_or_else(|e| panic!("{} {specs:?}: {e}", ctx.backend_name()));
            let got: Vec<[i32; 4]> = out.read(&ctx).unwrap();
            assert_eq!(
                got,
                tile_model(&bodies, tile, soften),
                "{} {specs:?}",
                ctx.backend_name()
            );
        }
    }
}

#[test]
fn specialization_errors_name_the_constant_and_list_the_shader_s() {
    let src = source("spec_constant_ops.comp");
    let err = |spec: &str| {
        Kernel::from_glsl(&src, &options("s.comp", TargetEnv::Vulkan1_3, &[spec])).unwrap_err()
    };
    let e = err("NOPE=1");
    assert!(matches!(e, Error::UnknownName(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the shader has no specialization constant `NOPE` (--spec NOPE=1); it has: 0, 1 (TILE), 2 (BIAS), 3 (WIDE), 4 (SHIFT)"
    );
    let e = err("TILE=-1");
    assert!(matches!(e, Error::InvalidValue(_)), "{e:?}");
    assert!(e.to_string().contains("an unsigned 32-bit integer"), "{e}");
    let e = err("WIDE=maybe");
    assert!(e.to_string().contains("is a bool"), "{e}");
    assert!(
        err("BIAS=2147483648")
            .to_string()
            .contains("a signed 32-bit integer")
    );
    assert!(Specialization::parse("=3").is_err());
    assert!(Specialization::parse("X").is_err());
}

#[test]
fn vulkan_memory_model_shaders_run_with_their_warnings() {
    for ctx in common::contexts(wgpu::Features::empty()) {
        for env in TargetEnv::ALL {
            let k = kernel("memory_model_flag.comp", env, &[]);
            let warnings: Vec<String> = k
                .warnings()
                .iter()
                .map(|w| format!("{}: {}", w.line.unwrap_or(0), w.message))
                .collect();
            assert_eq!(warnings.len(), 2, "{warnings:?}");
            assert!(
                warnings[0].starts_with("18: atomics with acquire, release"),
                "{warnings:?}"
            );
            assert!(
                warnings[1].starts_with("8: `coherent` memory"),
                "{warnings:?}"
            );
            let mailbox = Buffer::zeroed(&ctx, 65 * 4).unwrap();
            let seen = Buffer::zeroed(&ctx, 64 * 4).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[Bind::named("box", &mailbox), Bind::named("Seen", &seen)],
            )
            .unwrap();
            let seen: Vec<u32> = seen.read(&ctx).unwrap();
            let mut winners = 0;
            for (i, &s) in seen.iter().enumerate() {
                let neighbour = ((i as u32 + 1) % 64) * 3 + 1;
                match s - neighbour {
                    0 => {}
                    1000 => winners += 1,
                    other => panic!(
                        "{} {}: invocation {i} saw {other} extra",
                        ctx.backend_name(),
                        env.name()
                    ),
                }
            }
            assert_eq!(winners, 1, "{}", ctx.backend_name());
            let mailbox: Vec<u32> = mailbox.read(&ctx).unwrap();
            assert_eq!(mailbox[0], 64);
        }
    }
}

#[test]
fn float_atomic_min_max_on_buffers_and_shared_memory() {
    let mut rng = Rng(13);
    let groups = 4usize;
    let mut points: Vec<f32> = (0..groups * 64 * 2)
        .map(|_| (rng.below(2001) as f32 - 1000.0) * 0.125)
        .collect();
    // Signed zeros and NaNs among the numbers.
    points[6] = -0.0;
    points[7] = 0.0;
    points[9] = f32::NAN;
    points[100] = f32::NAN;
    for ctx in common::contexts(wgpu::Features::empty()) {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_3] {
            let k = kernel("float_extremes.comp", env, &[]);
            let pts = Buffer::from_slice(&ctx, &points).unwrap();
            let init = [1.0e30f32, 1.0e30, -1.0e30, -1.0e30, 0.0];
            let bounds = Buffer::from_slice(&ctx, &init).unwrap();
            ctx.dispatch(
                &k,
                [groups as u32, 1, 1],
                &[Bind::named("Points", &pts), Bind::named("bounds", &bounds)],
            )
            .unwrap();
            let got: Vec<u32> = bounds.read(&ctx).unwrap();
            let xs = points.iter().step_by(2).map(|f| f.to_bits());
            let ys = points.iter().skip(1).step_by(2).map(|f| f.to_bits());
            let fold = |min: bool, init: f32, vals: &mut dyn Iterator<Item = u32>| {
                vals.fold(init.to_bits(), |m, v| float_min_max(min, m, v))
            };
            // The shared values start at ±infinity, then merge into the buffer.
            let min_x = float_min_max(
                true,
                init[0].to_bits(),
                fold(true, f32::INFINITY, &mut xs.clone()),
            );
            let max_y = float_min_max(
                false,
                init[3].to_bits(),
                fold(false, f32::NEG_INFINITY, &mut ys.clone()),
            );
            let expected = [
                min_x,
                fold(true, init[1], &mut ys.clone()),
                fold(false, init[2], &mut xs.clone()),
                max_y,
                ((groups * 64) as f32).to_bits(),
            ];
            assert_eq!(got, expected, "{} {}", ctx.backend_name(), env.name());
        }
    }
}

#[test]
fn float_image_atomics_add_min_max_exchange() {
    let (w, h) = (4u32, 3u32);
    let texels = (w * h) as usize;
    let mut rng = Rng(5);
    let n = 128usize;
    let splats: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            [
                rng.below(w) as f32 + 0.25,
                rng.below(h) as f32 + 0.5,
                (rng.below(400) as f32 - 200.0) * 0.25,
                rng.below(8) as f32 * 0.5,
            ]
        })
        .collect();
    let at = |s: &[f32; 4]| (s[1] as usize) * w as usize + s[0] as usize;
    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Float, &[w, h], 1).unwrap();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let k = kernel("float_image_splat.comp", TargetEnv::Vulkan1_1, &[]);
        let weights = Image::filled(&ctx, desc, 0.5f32).unwrap();
        let nearest = Image::filled(&ctx, desc, 1000.0f32).unwrap();
        let farthest = Image::filled(&ctx, desc, -1000.0f32).unwrap();
        let last = Image::filled(&ctx, desc, -1.0f32).unwrap();
        let buf = Buffer::from_slice(&ctx, &splats).unwrap();
        ctx.dispatch(
            &k,
            [(n / 64) as u32, 1, 1],
            &[
                Bind::named("weights", &weights),
                Bind::named("nearest", &nearest),
                Bind::named("farthest", &farthest),
                Bind::named("last", &last),
                Bind::named("Splats", &buf),
            ],
        )
        .unwrap();
        let weights: Vec<f32> = weights.read(&ctx).unwrap();
        let nearest: Vec<f32> = nearest.read(&ctx).unwrap();
        let farthest: Vec<f32> = farthest.read(&ctx).unwrap();
        let last: Vec<f32> = last.read(&ctx).unwrap();
        for t in 0..texels {
            let hits: Vec<usize> = (0..n).filter(|&i| at(&splats[i]) == t).collect();
            // Multiples of 0.5: exact whatever the order.
            let sum = hits.iter().fold(0.5, |a, &i| a + splats[i][3]);
            let near = hits.iter().fold(1000.0f32, |a, &i| a.min(splats[i][2]));
            let far = hits.iter().fold(-1000.0f32, |a, &i| a.max(splats[i][2]));
            assert_eq!(weights[t], sum, "{} texel {t}", ctx.backend_name());
            assert_eq!(nearest[t], near, "{} texel {t}", ctx.backend_name());
            assert_eq!(farthest[t], far, "{} texel {t}", ctx.backend_name());
            if hits.is_empty() {
                assert_eq!(last[t], -1.0);
            } else {
                assert!(
                    hits.contains(&(last[t] as usize)),
                    "{} texel {t}: {}",
                    ctx.backend_name(),
                    last[t]
                );
            }
        }
    }
}

#[test]
fn bit_queries_with_results_of_the_other_signedness() {
    let mut rng = Rng(77);
    let mut masks: Vec<u32> = (0..64).map(|_| rng.next_u32() >> rng.below(32)).collect();
    masks[0] = 0;
    masks[1] = 0x8000_0000;
    masks[2] = u32::MAX;
    masks[3] = 1;
    let lsb = |m: u32| {
        if m == 0 {
            -1
        } else {
            m.trailing_zeros() as i32
        }
    };
    let msb = |m: u32| {
        if m == 0 {
            -1
        } else {
            31 - m.leading_zeros() as i32
        }
    };
    for ctx in common::contexts(wgpu::Features::empty()) {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_3] {
            let k = kernel("bit_queries.comp", env, &[]);
            let m = Buffer::from_slice(&ctx, &masks).unwrap();
            // The block's size rounds up to its ivec2's 8-byte alignment.
            let r = Buffer::zeroed(&ctx, (64 * 5 + 2) * 4).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[Bind::named("Masks", &m), Bind::named("r", &r)],
            )
            .unwrap();
            let got: Vec<i32> = r.read(&ctx).unwrap();
            for (i, &m) in masks.iter().enumerate() {
                let what = format!("{} {} mask {m:#x}", ctx.backend_name(), env.name());
                assert_eq!(got[i], lsb(m), "findLSB {what}");
                assert_eq!(got[64 + i], msb(m), "findMSB {what}");
                assert_eq!(got[128 + i], m.count_ones() as i32, "bitCount {what}");
                assert_eq!(got[192 + 2 * i], lsb(m) + m.count_ones() as i32, "{what}");
                assert_eq!(
                    got[193 + 2 * i],
                    lsb(!m) + (!m).count_ones() as i32,
                    "{what}"
                );
            }
            let total: u32 = masks.iter().map(|m| m.count_ones()).sum();
            assert_eq!(got[320], total as i32);
        }
    }
}

#[test]
fn coherent_volatile_images_and_unused_kinds_wgsl_lacks() {
    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[8, 8], 1).unwrap();
    let init: Vec<u32> = (0..64u32).map(|t| (t * 37) % 200).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_3] {
            let k = kernel("coherent_images.comp", env, &[]);
            // The unused cube is gone; the two used images remain.
            assert_eq!(k.bindings().len(), 2, "{:?}", k.bindings());
            assert_eq!(k.warnings().len(), 2);
            let ids = Image::from_texels(&ctx, desc, &init).unwrap();
            let tdesc = atomport::TextureDesc::new(
                atomport::TextureDim::D2,
                wgpu::TextureFormat::Rgba8Unorm,
                &[8, 8],
                1,
            )
            .unwrap();
            let tint = atomport::Texture::zeroed(&ctx, tdesc).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[Bind::named("ids", &ids), Bind::named("tint", &tint)],
            )
            .unwrap();
            let after: Vec<u32> = ids.read(&ctx).unwrap();
            let rgba = tint.read(&ctx).unwrap();
            for y in 0..8u32 {
                for x in 0..8u32 {
                    let t = (y * 8 + x) as usize;
                    assert_eq!(
                        after[t],
                        init[t].max(x * 16 + y),
                        "{} texel {t}",
                        ctx.backend_name()
                    );
                    let red = if init[t] & 1 == 1 { 255 } else { 0 };
                    assert_eq!(rgba[4 * t], red, "{} texel {t}", ctx.backend_name());
                    assert_eq!(rgba[4 * t + 3], 255);
                }
            }
        }
    }
}

#[test]
fn last_workgroup_merge_runs_without_divergent_barriers() {
    let groups = 8usize;
    let mut rng = Rng(3);
    let values: Vec<u32> = (0..groups * 64).map(|_| rng.below(1000)).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let k = kernel("last_group_merge.comp", TargetEnv::Vulkan1_1, &[]);
        let wgsl = k.wgsl();
        assert!(!wgsl.contains("storageBarrier"), "{wgsl}");
        assert_eq!(wgsl.matches("workgroupBarrier()").count(), 3, "{wgsl}");
        assert_eq!(k.warnings().len(), 1);
        assert_eq!(k.warnings()[0].line, Some(20));
        assert!(k.warnings()[0].message.contains("dropped"));
        let input = Buffer::from_slice(&ctx, &values).unwrap();
        let state = Buffer::zeroed(&ctx, (2 + groups as u64) * 4).unwrap();
        ctx.dispatch(
            &k,
            [groups as u32, 1, 1],
            &[Bind::named("In", &input), Bind::named("st", &state)],
        )
        .unwrap();
        let st: Vec<u32> = state.read(&ctx).unwrap();
        assert_eq!(st[0], groups as u32);
        assert_eq!(st[1], values.iter().sum::<u32>(), "{}", ctx.backend_name());
        for g in 0..groups {
            assert_eq!(st[2 + g], values[g * 64..(g + 1) * 64].iter().sum::<u32>());
        }
    }
}

#[test]
fn a_branch_on_a_shared_flag_becomes_a_workgroup_uniform_load() {
    let groups = 40usize;
    let values: Vec<u32> = (0..groups as u32 * 64).map(|i| (i * 7919) % 1000).collect();
    let k = kernel("last_group_parallel_merge.comp", TargetEnv::Vulkan1_3, &[]);
    assert!(k.warnings().is_empty(), "{:?}", k.warnings());
    assert_eq!(
        k.wgsl().matches("workgroupUniformLoad(").count(),
        1,
        "{}",
        k.wgsl()
    );
    // Every workgroup counted, and the last one's total, on every backend.
    let merges = |k: &Kernel| {
        for ctx in common::contexts(wgpu::Features::empty()) {
            let input = Buffer::from_slice(&ctx, &values).unwrap();
            let state = Buffer::zeroed(&ctx, (2 + groups as u64) * 4).unwrap();
            ctx.dispatch(
                k,
                [groups as u32, 1, 1],
                &[Bind::named("In", &input), Bind::named("st", &state)],
            )
            .unwrap();
            let st: Vec<u32> = state.read(&ctx).unwrap();
            assert_eq!(st[0], groups as u32);
            assert_eq!(st[1], values.iter().sum::<u32>(), "{}", ctx.backend_name());
        }
    };
    merges(&k);
    // The same branch mixed with the invocation id (true in every
    // invocation of a 64-wide workgroup, as GLSL requires of a branch
    // around a barrier) takes the workgroup's value as a whole: no
    // warning, and the same sums.
    let mixed = source("last_group_parallel_merge.comp").replace(
        "if (s_last != 0u) {",
        "if (s_last != 0u && gl_LocalInvocationIndex < 64u) {",
    );
    let k = Kernel::from_glsl(&mixed, &options("mixed.comp", TargetEnv::Vulkan1_3, &[])).unwrap();
    assert!(k.warnings().is_empty(), "{:?}", k.warnings());
    assert!(
        k.wgsl().contains("atomport_uniform_condition"),
        "{}",
        k.wgsl()
    );
    merges(&k);
}

#[test]
fn barriers_in_uniform_control_flow_are_kept_without_warnings() {
    let uniform = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint rounds; } p;
layout(set = 0, binding = 1) readonly buffer Limits { uint limit; };
layout(set = 0, binding = 2) buffer Data { uint data[]; };
shared uint s[64];
void main() {
    uint lid = gl_LocalInvocationIndex;
    s[lid] = data[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1) {
        if (lid < stride) s[lid] += s[lid + stride];
        memoryBarrierShared();
        barrier();
    }
    for (uint r = 0u; r < p.rounds; ++r) { groupMemoryBarrier(); barrier(); }
    for (uint r = 0u; r < limit; ++r) { memoryBarrierBuffer(); barrier(); }
    if (gl_WorkGroupID.x == 0u) { memoryBarrier(); barrier(); }
    if (lid == 0u) data[gl_WorkGroupID.x] = s[0];
}";
    let k = common::glsl(uniform);
    assert!(k.warnings().is_empty(), "{:?}", k.warnings());
    // Every one of the 9 GLSL barriers is still there (memoryBarrier() is
    // two WGSL barriers); a dropped one would have warned.
    assert!(k.wgsl().matches("Barrier()").count() >= 9, "{}", k.wgsl());
    // A loop bound read from a read-write buffer is not uniform to WGSL,
    // but GLSL requires it to be (it decides a barrier): the loop's exit
    // takes the workgroup's value, and every barrier stays, unwarned.
    let divergent = uniform.replace("readonly buffer Limits", "buffer Limits");
    let k = common::glsl(&divergent);
    assert!(k.warnings().is_empty(), "{:?}", k.warnings());
    assert!(k.wgsl().contains("workgroupUniformLoad("), "{}", k.wgsl());
    assert!(
        k.wgsl().contains("atomport_uniform_condition"),
        "{}",
        k.wgsl()
    );
    assert!(k.wgsl().matches("Barrier()").count() >= 9, "{}", k.wgsl());
    // A non-uniform break ends uniformity for the rest of the loop only.
    let after_loop = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
void main() {
    uint lid = gl_LocalInvocationIndex;
    for (uint i = lid; i < 256u; i += 64u) {
        if (data[i] == 7u) break;
        data[i] += 1u;
    }
    barrier();
    data[lid] += 1u;
}";
    assert!(common::glsl(after_loop).warnings().is_empty());
}

/// A context on `backend` with `features` if the adapter has them, else
/// the reason it has not.
fn context_with(backend: atomport::BackendChoice, features: wgpu::Features) -> Option<Context> {
    let opts = ContextOptions::default().with_backend(backend);
    let have = opts.adapter_features().ok()?;
    if !have.contains(features) {
        println!("{}: lacks {features:?}", backend.name());
        return None;
    }
    Context::new(&opts.with_features(features)).ok()
}

#[test]
fn subgroup_operations_match_a_model_or_name_the_feature() {
    let groups = 2usize;
    let n = groups * 64;
    let mut rng = Rng(21);
    let values: Vec<u32> = (0..n)
        .map(|i| {
            if i % 9 == 0 {
                0x8000_0001
            } else {
                rng.below(1000)
            }
        })
        .collect();
    let mut ran = 0;
    for backend in atomport::BackendChoice::SINGLE {
        if atomport::adapters(backend).is_empty() {
            continue;
        }
        for env in [TargetEnv::Vulkan1_2, TargetEnv::Vulkan1_3] {
            let k = kernel("subgroup_compact.comp", env, &[]);
            assert!(k.required_features().contains(wgpu::Features::SUBGROUP));
            let Some(ctx) = context_with(backend, wgpu::Features::SUBGROUP) else {
                let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
                let b = Buffer::zeroed(&ctx, 4096).unwrap();
                let e = ctx
                    .dispatch(
                        &k,
                        [1, 1, 1],
                        &[
                            Bind::named("In", &b),
                            Bind::named("o", &b),
                            Bind::named("info", &b),
                        ],
                    )
                    .unwrap_err();
                assert!(
                    e.to_string().contains("SUBGROUP (subgroup operations)"),
                    "{e}"
                );
                continue;
            };
            ran += 1;
            let input = Buffer::from_slice(&ctx, &values).unwrap();
            let out = Buffer::zeroed(&ctx, (2 + n as u64) * 4).unwrap();
            let info = Buffer::zeroed(&ctx, 10 * 128 * 4).unwrap();
            ctx.dispatch(
                &k,
                [groups as u32, 1, 1],
                &[
                    Bind::named("In", &input),
                    Bind::named("o", &out),
                    Bind::named("info", &info),
                ],
            )
            .unwrap();
            let o: Vec<u32> = out.read(&ctx).unwrap();
            let info: Vec<u32> = info.read(&ctx).unwrap();
            let size = o[1] as usize;
            assert!(size.is_power_of_two() && size <= 64, "subgroup size {size}");
            // Compaction: every odd value kept once.
            let mut kept: Vec<u32> = o[2..2 + o[0] as usize].to_vec();
            let mut want: Vec<u32> = values.iter().copied().filter(|v| v & 1 == 1).collect();
            kept.sort_unstable();
            want.sort_unstable();
            assert_eq!(kept, want, "{} {}", ctx.backend_name(), env.name());
            // Per-invocation results of the first workgroup against the model.
            let field = |f: usize, i: usize| info[f * 128 + i];
            for i in 0..n {
                let lane = field(0, i) as usize;
                assert_eq!(lane, i % size, "lanes are laid out in order");
                let base = i - lane;
                let members = base..base + size;
                let keep = |j: usize| values[j] & 1 == 1;
                let kept_lanes: Vec<usize> = members
                    .clone()
                    .filter(|&j| keep(j))
                    .map(|j| j - base)
                    .collect();
                if let (Some(&lo), Some(&hi)) = (kept_lanes.first(), kept_lanes.last()) {
                    assert_eq!(field(1, i) as usize, lo, "findLSB at {i}");
                    assert_eq!(field(2, i) as usize, hi, "findMSB at {i}");
                }
                let inclusive = kept_lanes.iter().filter(|&&l| l <= lane).count();
                assert_eq!(field(3, i) as usize, inclusive, "inclusive count at {i}");
                assert_eq!(field(4, i), (lane == 0) as u32, "elect at {i}");
                let same = members
                    .clone()
                    .all(|j| values[j] >> 31 == values[base] >> 31);
                assert_eq!(field(5, i), same as u32, "allEqual at {i}");
                let sum = members.clone().fold(0u32, |a, j| a.wrapping_add(values[j]));
                assert_eq!(field(6, i), sum, "subgroupAdd at {i}");
                let src = (lane + 1) % size;
                let mine =
                    keep(i) as u32 + 2 * keep(base + src) as u32 + 4 * values[base + size / 2];
                assert_eq!(field(7, i), mine, "ballot bits and broadcast at {i}");
                // The mask built-ins: ballot & lt counts the kept lanes
                // below; eq has this lane's bit alone; ge, gt and le count
                // the lanes at or above, above, and at or below.
                let below = kept_lanes.iter().filter(|&&l| l < lane).count() as u32;
                let m1 = below | 1 << 8 | 1 << 12 | ((size - lane) as u32) << 16;
                assert_eq!(field(8, i), m1, "lt/eq/ge masks at {i}");
                let m2 = (size - lane - 1) as u32 | ((lane + 1) as u32) << 8;
                assert_eq!(field(9, i), m2, "gt/le masks at {i}");
            }
        }
    }
    println!("subgroup runs: {ran}");
}

#[test]
fn sixty_four_bit_values_and_atomics_in_any_position() {
    let mut ran = 0;
    for backend in atomport::BackendChoice::SINGLE {
        if atomport::adapters(backend).is_empty() {
            continue;
        }
        let k = kernel("int64_keys.comp", TargetEnv::Vulkan1_2, &[]);
        let need = k.required_features();
        assert!(
            need.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS),
            "{need:?}"
        );
        let Some(ctx) = context_with(backend, need) else {
            // Without 64-bit atomics, the dispatch names what is missing.
            let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
            let b = Buffer::zeroed(&ctx, 4096).unwrap();
            let e = ctx
                .dispatch(&k, [1, 1, 1], &[Bind::named("k", &b)])
                .unwrap_err();
            assert!(e.to_string().contains("SHADER_INT64_ATOMIC_ALL_OPS"), "{e}");
            continue;
        };
        ran += 1;
        // sum, lowest, highest, nearest, keys[32], halves[32]
        let mut init = vec![0u64; 4 + 32];
        init[1] = i64::MAX as u64;
        init[2] = i64::MIN as u64;
        init[3] = u64::MAX;
        let mut bytes: Vec<u8> = bytemuck::cast_slice(&init).to_vec();
        bytes.extend(vec![0u8; 32 * 8]);
        let buf = Buffer::from_bytes(&ctx, &bytes).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("k", &buf)])
            .unwrap();
        let got: Vec<u64> = buf.read(&ctx).unwrap();
        // packUint2x32: x is the low word.
        let key = |i: u64| ((1000 - i * 7) << 32) | i;
        let keys: Vec<u64> = (0..32).map(key).collect();
        assert_eq!(got[0], keys.iter().map(|k| k >> 8).sum::<u64>());
        assert_eq!(got[1] as i64, -40);
        assert_eq!(got[2] as i64, 0);
        assert_eq!(got[3], *keys.iter().min().unwrap());
        assert_eq!(got[4], *keys.iter().max().unwrap());
        assert_eq!(&got[5..36], &keys[1..]);
        let halves: Vec<u32> = bytemuck::cast_slice(&got[36..]).to_vec();
        for i in 0..32 {
            let x = keys[i] ^ 0xff_0000_0000;
            assert_eq!(
                [halves[2 * i], halves[2 * i + 1]],
                [x as u32, (x >> 32) as u32]
            );
        }
    }
    println!("64-bit runs: {ran}");
}

#[test]
fn non_finite_float_constants_become_bit_patterns() {
    let k = common::glsl(
        "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { float v[4]; };
void main() { v[0] = 1.0 / 0.0; v[1] = -1.0 / 0.0; v[2] = max(v[2], -1.0 / 0.0); v[3] = 0.0 / 0.0; }",
    );
    for ctx in common::contexts(wgpu::Features::empty()) {
        let b = Buffer::from_slice(&ctx, &[0.0f32, 0.0, 2.5, 0.0]).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("B", &b)])
            .unwrap();
        let v: Vec<f32> = b.read(&ctx).unwrap();
        assert_eq!(v[0], f32::INFINITY);
        assert_eq!(v[1], f32::NEG_INFINITY);
        assert_eq!(v[2], 2.5);
        assert!(v[3].is_nan());
    }
}

#[test]
fn nested_composite_spec_constant_operations_from_hand_written_spirv() {
    // `m2 = m` with `m2[1][0] = 5` (an OpSpecConstantOp CompositeInsert
    // with two indices) over `m = { {1, 2}, {3, ROW} }`; writes m2[1][0],
    // m2[1][1] and m2[0][1].
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/spec_composite_insert_nested.spv");
    for (specs, row) in [(&[][..], 7u32), (&["ROW=9"][..], 9)] {
        let o = SourceOptions {
            specializations: specs
                .iter()
                .map(|s| Specialization::parse(s).unwrap())
                .collect(),
            ..SourceOptions::default()
        };
        let k = Kernel::from_path(&path, None, &o).unwrap_or_else(|e| panic!("{e}"));
        for ctx in common::contexts(wgpu::Features::empty()) {
            let out = Buffer::zeroed(&ctx, 16).unwrap();
            ctx.dispatch(&k, [1, 1, 1], &[Bind::named("out", &out)])
                .unwrap();
            let got: Vec<u32> = out.read(&ctx).unwrap();
            assert_eq!(got, [5, row, 2, 0], "{} {specs:?}", ctx.backend_name());
        }
    }
}

#[test]
fn refusals_of_the_new_passes_name_their_construct() {
    let refused = |src: &str, env: TargetEnv, specs: &[&str]| {
        Kernel::from_glsl(src, &options("r.comp", env, specs)).unwrap_err()
    };
    // A specialization that makes a folded expression divide by zero.
    let div = "#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint D = 2;
const uint Q = 10u / D;
layout(set = 0, binding = 0) buffer B { uint b; };
void main() { b = Q; }";
    let e = refused(div, TargetEnv::Vulkan1_1, &["D=0"]);
    assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("divides by zero (UDiv)"), "{e}");
    // Float specialization constants: checked, and set.
    let float = "#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const float S = 1.5;
layout(set = 0, binding = 0) buffer B { float b; };
void main() { b = S; }";
    for bad in ["S=abc", "S=1e39"] {
        let e = refused(float, TargetEnv::Vulkan1_1, &[bad]);
        assert!(matches!(e, Error::InvalidValue(_)), "{e:?}");
        assert!(e.to_string().contains("is a float"), "{e}");
    }
    let k = Kernel::from_glsl(float, &options("f.comp", TargetEnv::Vulkan1_1, &["S=2.5"])).unwrap();
    assert!(k.wgsl().contains("2.5"), "{}", k.wgsl());
    // subgroupAllEqual on a vector.
    let all_equal = "#version 450
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = subgroupAllEqual(uvec2(v[0], v[1])) ? 1u : 0u; }";
    let e = refused(all_equal, TargetEnv::Vulkan1_1, &[]);
    assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
    assert!(
        e.to_string().contains("subgroupAllEqual on a vector"),
        "{e}"
    );
}

/// An entry point marked `[[subgroup_uniform_control_flow]]`: the mode is
/// dropped with a warning naming its line, and the subgroup sums the kernel
/// adds up equal the CPU's on every backend with subgroups, and translated
/// for WebGPU (subgroups of one lane) on every backend (the original cannot
/// run natively here: lavapipe lacks the extension).
#[test]
fn a_subgroup_uniform_entry_point_runs_with_a_warning() {
    let n = 256u64;
    let sum: u64 = (0..n).sum();
    let squares: u64 = (0..n).map(|i| i * i).sum();
    let odd: u64 = (0..n).filter(|i| i % 2 == 1).sum();
    let mut ran = 0;
    for b in common::backend_names() {
        for target in ["native", "webgpu"] {
            let o = common::atomport(&[
                "run",
                "tests/vulkan/subgroup_uniform_main.comp",
                "--groups",
                "4",
                "--buffer",
                "Values=u32:256:iota",
                "--buffer",
                "Totals=u32:3",
                "--backend",
                b,
                "--target",
                target,
                "--json",
            ]);
            let err = common::stderr(&o);
            assert!(
                err.contains(
                    "subgroup_uniform_main.comp:17: warning: the shader asks subgroups to reconverge"
                ),
                "{b}, {target}: {err}"
            );
            if !o.status.success() && target == "native" {
                assert!(err.contains("lacks SUBGROUP"), "{b}: {err}");
                continue;
            }
            assert!(o.status.success(), "{b}, {target}: {err}");
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let totals = common::binding(&v, "Totals");
            assert_eq!(
                totals["data"],
                serde_json::json!([sum, squares, odd]),
                "{b}, {target}"
            );
            ran += 1;
        }
    }
    assert!(ran >= 2, "ran {ran} times");
}
