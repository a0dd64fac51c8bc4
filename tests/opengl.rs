//! OpenGL-dialect GLSL on every backend present: the golden corpus's
//! `gl_*` shaders dispatched with resources bound by name, loose uniforms
//! set by name, atomic counters read back, every result checked against a
//! CPU model; the errors for uniforms and names.

mod common;

use std::path::Path;

use atomport::{Bind, Buffer, Dialect, Image, ImageDesc, Kernel, SourceOptions, Uniforms};
use common::Rng;

fn kernel(name: &str) -> Kernel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/glsl")
        .join(name);
    Kernel::from_path(&path, None, &SourceOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

#[test]
fn dialect_is_detected_and_reported() {
    assert_eq!(
        kernel("gl_counters_one_binding.comp").dialect(),
        Some(Dialect::OpenGl)
    );
    assert_eq!(
        kernel("atomic_add_uint_member.comp").dialect(),
        Some(Dialect::Vulkan)
    );
    // Buffers only, no `set =`: compiles either way, read as Vulkan GLSL.
    assert_eq!(
        kernel("opengl_430_binding_only.comp").dialect(),
        Some(Dialect::Vulkan)
    );
    // Shared numbers alone make it OpenGL GLSL.
    let src = "#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { uint a; };
layout(binding = 0, r32ui) uniform uimage2D img;
void main() { imageAtomicAdd(img, ivec2(0), a); }";
    let k = Kernel::from_glsl(src, &SourceOptions::named("shared.comp")).unwrap();
    assert_eq!(k.dialect(), Some(Dialect::OpenGl));
    assert_eq!(k.bindings().len(), 2);
    assert_ne!(k.bindings()[0].binding, k.bindings()[1].binding);
    // Forced to Vulkan, the loose uniform is glslang's error with a hint.
    let mut o = SourceOptions::named("loose.comp");
    o.dialect = Some(Dialect::Vulkan);
    let e = Kernel::from_glsl(
        "#version 430\nlayout(local_size_x = 1) in;\nuniform uint n;\nlayout(std430, binding = 0) buffer B { uint b; };\nvoid main() { b = n; }",
        &o,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("loose.comp:3: error:"), "{e}");
    assert!(e.contains("`opengl` dialect"), "{e}");
}

#[test]
fn several_counters_in_one_binding_under_contention() {
    let k = kernel("gl_counters_one_binding.comp");
    let info = k.binding_named("allocated").unwrap();
    let offsets: Vec<(String, u32)> = info
        .members
        .iter()
        .map(|m| (m.name.clone(), m.offset))
        .collect();
    // Explicit offsets and implicit ones advancing by 4 from the last.
    assert_eq!(
        offsets,
        [
            ("allocated", 0),
            ("released", 4),
            ("peak", 12),
            ("probes", 16)
        ]
        .map(|(n, o)| (n.to_string(), o))
    );
    for ctx in common::contexts(wgpu::Features::empty()) {
        let groups = 16u32;
        let n = groups * 32;
        // Word 2 (offset 8) lies between counters and must not change.
        let init = [100u32, 5000, 0xABCD, 7, 0];
        let counters = Buffer::from_slice(&ctx, &init).unwrap();
        let log = Buffer::zeroed(&ctx, n as u64 * 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [groups, 1, 1],
                &[
                    Bind::named("allocated", &counters),
                    Bind::named("Log", &log),
                ],
            )
            .unwrap();
        let c = words(&out[0]);
        assert_eq!(
            c,
            [100 + n, 5000 - n / 2, 0xABCD, 7, n],
            "{}",
            ctx.backend_name()
        );
        // atomicCounterIncrement returned each of 100..100+n once (plus peak, 7).
        let mut before: Vec<u32> = words(&out[1]).iter().map(|b| b - 7).collect();
        before.sort_unstable();
        assert_eq!(before, (100..100 + n).collect::<Vec<_>>());
    }
}

#[test]
fn counter_ops_of_opengl_460() {
    let k = kernel("gl_counter_ops_460.comp");
    for ctx in common::contexts(wgpu::Features::empty()) {
        let init = [1000u32, 500, 2, 0, 0];
        let counters = Buffer::from_slice(&ctx, &init).unwrap();
        let rets = Buffer::zeroed(&ctx, 16 * 8 * 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [1, 1, 1],
                &[
                    Bind::named("total", &counters),
                    Bind::named("Returned", &rets),
                ],
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let c = words(&out[0]);
        let r = words(&out[1]);
        // total: +i+1 and -1 per invocation.
        let added: u32 = (0..16u32).map(|i| i + 1).sum();
        assert_eq!(c[0], 1000 + added - 16);
        // lowest: min with 100+i, then exchanged with a value read after
        // the invocation's own min (another invocation's min may come between).
        assert!((100..=115).contains(&c[1]), "{}", c[1]);
        assert_eq!(c[2], 45, "max of 2 and 3i");
        // bits: or of bits 0..15, and-not of bits 31..16. Bit 20 is also
        // xored sixteen times, and how many of those come after invocation
        // 11's and-not depends on the order: it is left out.
        assert_eq!(c[3] & !(1 << 20), 0xFFFF);
        // Exactly one compare-swap found 0 and wrote its i + 1.
        let winners: Vec<usize> = (0..16).filter(|&i| r[8 * i + 7] == 0).collect();
        assert_eq!(winners.len(), 1, "{:?}", r);
        assert_eq!(c[4], winners[0] as u32 + 1);
        // Min returned values >= the final minimum, max values <= the maximum.
        assert!((0..16).all(|i| r[8 * i + 2] >= 100 && r[8 * i + 3] <= 45));
    }
}

#[test]
fn loose_uniforms_of_every_type_round_trip() {
    let k = kernel("gl_loose_types_roundtrip.comp");
    let mut rng = Rng(0x10_05e);
    for ctx in common::contexts(wgpu::Features::empty()) {
        for _ in 0..3 {
            let mut r = || rng.next_u32();
            let u = r();
            let i = r() as i32;
            let f = (r() % 100_000) as f32 / 7.0 - 3000.0;
            let b = r() % 2 == 1;
            let u2 = [r(), r()];
            let i3 = [r() as i32, r() as i32, r() as i32];
            let f4 = [1.5f32, -2.25, (r() % 1000) as f32, 0.125];
            let b2 = [r() % 2 == 1, r() % 2 == 1];
            let f2 = [(r() % 77) as f32, -0.5];
            let u4 = [r(), r(), r(), r()];
            let i2 = [-(r() as i32 & 0xffff), 3];
            let f3 = [0.25f32, (r() % 9) as f32, -7.0];
            let mut un = Uniforms::new(&k).unwrap();
            un.set("u_u", u)
                .unwrap()
                .set("u_i", i)
                .unwrap()
                .set("u_f", f)
                .unwrap()
                .set("u_b", b)
                .unwrap()
                .set("u_u2", u2)
                .unwrap()
                .set("u_i3", i3)
                .unwrap()
                .set("u_f4", f4)
                .unwrap()
                .set("u_b2", b2)
                .unwrap()
                .set("u_f2", f2)
                .unwrap()
                .set("u_u4", u4)
                .unwrap()
                .set("u_i2", i2)
                .unwrap()
                .set("u_f3", f3)
                .unwrap();
            let ub = un.to_buffer(&ctx).unwrap();
            let echo = Buffer::zeroed(&ctx, 26 * 4).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[
                    Bind::named("gl_DefaultUniformBlock", &ub),
                    Bind::named("Echo", &echo),
                ],
            )
            .unwrap();
            let got = echo.read::<u32>(&ctx).unwrap();
            let fb = |v: f32| v.to_bits();
            let mut want = vec![u, i as u32, fb(f), b as u32, u2[0], u2[1]];
            want.extend(i3.map(|v| v as u32));
            want.extend(f4.map(fb));
            want.extend(b2.map(u32::from));
            want.extend(f2.map(fb));
            want.extend(u4);
            want.extend(i2.map(|v| v as u32));
            want.extend(f3.map(fb));
            assert_eq!(got, want, "{}", ctx.backend_name());
        }
    }
}

#[test]
fn initializers_in_included_files_are_read() {
    let dir = common::scratch().join(format!("atomport-incl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("params.glsl"), "uniform float u_gain = 0.75;\n").unwrap();
    let main = dir.join("main.comp");
    std::fs::write(
        &main,
        "#version 430\nlayout(local_size_x = 1) in;\n#include \"params.glsl\"\nlayout(binding = 0) buffer B { float b; };\nvoid main() { b = u_gain; }\n",
    )
    .unwrap();
    let k = Kernel::from_path(&main, None, &SourceOptions::default()).unwrap();
    let u = Uniforms::new(&k).unwrap();
    let m = u.members().iter().find(|m| m.name == "u_gain").unwrap();
    assert_eq!(m.initializer.as_deref(), Some("0.75"));
    assert!(u.is_set("u_gain"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn initializers_fill_unset_uniforms() {
    let k = kernel("gl_uniform_initializers.comp");
    let model = |required: f32, scale: f32| {
        let mut x = required;
        for _ in 0..4 {
            x = x * scale + 1.0 - 2.0 + 0.5;
        }
        x + 9.0
    };
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (required, scale) in [(3.0f32, None), (-8.0, Some(0.5f32))] {
            let mut u = Uniforms::new(&k).unwrap();
            // Not set and no initializer: an error naming it.
            let e = u.bytes().unwrap_err().to_string();
            assert!(e.contains("uniform `u_required` (float)"), "{e}");
            assert!(u.is_set("u_bias") && u.is_set("u_enabled"));
            u.set("u_required", required).unwrap();
            if let Some(s) = scale {
                u.set("u_scale", s).unwrap();
            }
            let ub = u.to_buffer(&ctx).unwrap();
            let result = Buffer::zeroed(&ctx, 4).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[
                    Bind::named("gl_DefaultUniformBlock", &ub),
                    Bind::named("Result", &result),
                ],
            )
            .unwrap();
            let want = model(required, scale.unwrap_or(0.25));
            assert_eq!(result.read::<f32>(&ctx).unwrap()[0], want);
        }
    }
}

#[test]
fn buffer_binding_image_unit_uniform_binding_and_counter_binding_zero_together() {
    let k = kernel("gl_namespaces_overlap.comp");
    let slots: Vec<u32> = k.bindings().iter().map(|b| b.binding).collect();
    assert_eq!(slots, [0, 1, 2, 3], "four resources, four WGSL bindings");
    let (w, h, bins) = (13u32, 7u32, 5u32);
    let mut rng = Rng(99);
    let values: Vec<u32> = (0..w * h).map(|_| rng.next_u32() % 1000).collect();
    let mut want = vec![0u32; bins as usize];
    for v in &values {
        want[(v % bins) as usize] += 1;
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let src = Buffer::from_slice(&ctx, &values).unwrap();
        let params = Buffer::from_slice(&ctx, &[w, h, bins, 0]).unwrap();
        let desc = ImageDesc::new(
            atomport::ImageDim::D2,
            atomport::ImageFormat::R32Uint,
            &[bins, 1],
            1,
        )
        .unwrap();
        let img = Image::zeroed(&ctx, desc).unwrap();
        let touched = Buffer::zeroed(&ctx, 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [w.div_ceil(8), h.div_ceil(8), 1],
                &[
                    Bind::named("Source", &src),
                    Bind::named("params", &params),
                    Bind::named("histogramImage", &img),
                    Bind::named("touched", &touched),
                ],
            )
            .unwrap();
        assert_eq!(words(&out[2]), want, "{}", ctx.backend_name());
        assert_eq!(words(&out[3]), [w * h]);
    }
}

#[test]
fn blocks_without_binding_get_their_own() {
    let k = kernel("gl_blocks_without_binding.comp");
    let auto: Vec<(String, bool)> = k
        .bindings()
        .iter()
        .map(|b| (b.display_name(), b.opengl.unwrap().auto))
        .collect();
    assert_eq!(
        auto,
        [("Keys", true), ("Counts", true), ("Overflow", false)].map(|(n, a)| (n.to_string(), a))
    );
    let mut rng = Rng(5);
    let keys: Vec<u32> = (0..256).map(|_| rng.next_u32() % 40).collect();
    let mut counts = vec![0u32; 32];
    let mut overflow = 0;
    for &k in &keys {
        match counts.get_mut(k as usize) {
            Some(c) => *c += 1,
            None => overflow += 1,
        }
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let kb = Buffer::from_slice(&ctx, &keys).unwrap();
        let cb = Buffer::zeroed(&ctx, 32 * 4).unwrap();
        let ob = Buffer::zeroed(&ctx, 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [4, 1, 1],
                &[
                    Bind::named("Keys", &kb),
                    Bind::named("Counts", &cb),
                    Bind::named("Overflow", &ob),
                ],
            )
            .unwrap();
        assert_eq!(words(&out[1]), counts);
        assert_eq!(words(&out[2]), [overflow]);
    }
}

/// A CPU model of gl_frustum_cull_counter.comp: the visible ids.
fn frustum_model(spheres: &[[f32; 4]], planes: &[[f32; 4]; 6]) -> Vec<u32> {
    let dot = |p: &[f32; 4], s: &[f32; 4]| p[0] * s[0] + p[1] * s[1] + p[2] * s[2] + p[3];
    (0..spheres.len() as u32)
        .filter(|&i| {
            let s = &spheres[i as usize];
            planes.iter().all(|p| dot(p, s) >= -s[3])
        })
        .collect()
}

fn frustum_scene() -> (Vec<[f32; 4]>, [[f32; 4]; 6]) {
    let mut rng = Rng(77);
    let mut f = || (rng.next_u32() % 2000) as f32 / 100.0 - 10.0;
    let spheres: Vec<[f32; 4]> = (0..300).map(|_| [f(), f(), f() - 10.0, 0.5]).collect();
    // A box |x| <= 4, |y| <= 3, -15 <= z <= -1 as six planes (normals inward).
    let planes = [
        [1.0, 0.0, 0.0, 4.0],
        [-1.0, 0.0, 0.0, 4.0],
        [0.0, 1.0, 0.0, 3.0],
        [0.0, -1.0, 0.0, 3.0],
        [0.0, 0.0, -1.0, -1.0],
        [0.0, 0.0, 1.0, 15.0],
    ];
    (spheres, planes)
}

#[test]
fn frustum_culling_with_a_counter_and_loose_uniforms() {
    let k = kernel("gl_frustum_cull_counter.comp");
    let (spheres, planes) = frustum_scene();
    let want = frustum_model(&spheres, &planes);
    assert!(!want.is_empty() && want.len() < spheres.len());
    // Instances: vec4 sphere, uint meshId, 3 pads.
    let instances: Vec<u32> = spheres
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let mut v: Vec<u32> = s.iter().map(|f| f.to_bits()).collect();
            v.extend([i as u32, 0, 0, 0]);
            v
        })
        .collect();
    let identity = [
        [1.0f32, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        let mut u = Uniforms::new(&k).unwrap();
        u.set("u_viewProj", identity)
            .unwrap()
            .set("u_planes", planes)
            .unwrap()
            .set("u_instanceCount", spheres.len() as u32)
            .unwrap();
        let ub = u.to_buffer(&ctx).unwrap();
        let ib = Buffer::from_slice(&ctx, &instances).unwrap();
        let vb = Buffer::zeroed(&ctx, spheres.len() as u64 * 4).unwrap();
        let cb = Buffer::zeroed(&ctx, 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [(spheres.len() as u32).div_ceil(64), 1, 1],
                &[
                    Bind::named("gl_DefaultUniformBlock", &ub),
                    Bind::named("Instances", &ib),
                    Bind::named("VisibleIds", &vb),
                    Bind::named("visibleCount", &cb),
                ],
            )
            .unwrap();
        // The identity transform keeps clip.w = 1: the planes decide.
        let count = words(&out[3])[0] as usize;
        let mut got = words(&out[2])[..count].to_vec();
        got.sort_unstable();
        assert_eq!(got, want, "{}", ctx.backend_name());
    }
}

#[test]
fn es_310_particles_count_deaths() {
    let k = kernel("gl_es310_particles.comp");
    let n = 300usize;
    let (dt, gravity, floor) = (0.5f32, [0.0f32, -9.8, 0.0], -1.0f32);
    let mut rng = Rng(31);
    let particles: Vec<f32> = (0..n)
        .flat_map(|_| {
            let life = (rng.next_u32() % 4) as f32 * 0.25; // 0, .25, .5, .75
            [0.0, 0.0, 0.0, life, 1.0, 2.0, 0.0, 0.0]
        })
        .collect();
    // Alive (life > 0) particles whose life falls to <= 0 after dt die.
    let deaths = (0..n)
        .filter(|&i| {
            let life = particles[8 * i + 3];
            life > 0.0 && life - dt <= 0.0
        })
        .count() as u32;
    for ctx in common::contexts(wgpu::Features::empty()) {
        let mut u = Uniforms::new(&k).unwrap();
        u.set("u_dt", dt)
            .unwrap()
            .set("u_gravity", gravity)
            .unwrap()
            .set("u_floor", floor)
            .unwrap();
        let ub = u.to_buffer(&ctx).unwrap();
        let pb = Buffer::from_slice(&ctx, &particles).unwrap();
        let db = Buffer::zeroed(&ctx, 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [(n as u32).div_ceil(128), 1, 1],
                &[
                    Bind::named("gl_DefaultUniformBlock", &ub),
                    Bind::named("Particles", &pb),
                    Bind::named("deaths", &db),
                ],
            )
            .unwrap();
        assert_eq!(words(&out[2]), [deaths], "{}", ctx.backend_name());
        let after: Vec<f32> = bytemuck::pod_collect_to_vec(&out[1]);
        for i in 0..n {
            let life = particles[8 * i + 3];
            if life > 0.0 {
                // vy = 2 - 4.9, y = vy * dt below the floor: bounced to the floor.
                assert_eq!(after[8 * i + 1], floor, "particle {i}");
                assert_eq!(after[8 * i + 5], -0.5 * (2.0 - 9.8 * dt));
            } else {
                assert_eq!(&after[8 * i..8 * i + 8], &particles[8 * i..8 * i + 8]);
            }
        }
    }
}

#[test]
fn uniform_errors_name_the_uniform_and_what_is_there() {
    let k = kernel("gl_loose_types_roundtrip.comp");
    let mut u = Uniforms::new(&k).unwrap();
    let err = |r: atomport::Result<&mut Uniforms>| r.map(|_| ()).unwrap_err().to_string();
    assert_eq!(
        err(u.set("u_u", -1i32)),
        "uniform `u_u` is uint: -1 is out of its range"
    );
    assert_eq!(
        err(u.set("u_i", 3_000_000_000u32)),
        "uniform `u_i` is int: 3000000000 is out of its range"
    );
    assert_eq!(
        err(u.set("u_f", 1u32)),
        "uniform `u_f` is float: a u32 value was given"
    );
    assert_eq!(
        err(u.set("u_f3", [1.0f32, 2.0])),
        "uniform `u_f3` is vec3: it takes 3 value(s), 2 given"
    );
    let e = err(u.set("nope", 1u32));
    assert!(
        e.starts_with("`gl_DefaultUniformBlock` has no uniform named `nope` (members: uint u_u, int u_i, float u_f,"),
        "{e}"
    );
    assert_eq!(
        err(u.set_text("u_i2", "1,x")),
        "uniform `u_i2` is ivec2: `x` is not a valid i32 value"
    );
    // Text: lists, constructors, splats, bool words.
    u.set_text("u_f3", "vec3(2.0)").unwrap();
    u.set_text("u_b2", "true, false").unwrap();
    u.set_text("u_u4", "0x10,2u,3,4").unwrap();
    // A kernel without loose uniforms says so, listing its bindings.
    let e = Uniforms::new(&kernel("atomic_add_uint_member.comp"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("the kernel has no loose uniforms (its bindings: "),
        "{e}"
    );
}

#[test]
fn unknown_binding_names_list_the_known_ones() {
    let k = kernel("gl_counters_one_binding.comp");
    let ctx = &common::contexts(wgpu::Features::empty())[0];
    let b = Buffer::zeroed(ctx, 64).unwrap();
    let e = ctx
        .dispatch(&k, [1, 1, 1], &[Bind::named("Lgo", &b)])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "the kernel has no binding named `Lgo` (its bindings: Log, gl_AtomicCounterBlock_0 (counters allocated, released, peak, probes))"
    );
}

#[test]
fn same_results_from_the_gl_and_vulkan_dialects_of_one_kernel() {
    // One algorithm twice: loose uniforms and a counter, or a uniform block
    // and a buffer atomic; both must agree with the model.
    let gl = "#version 430
layout(local_size_x = 64) in;
uniform uint u_limit;
layout(binding = 0) uniform atomic_uint below;
layout(std430, binding = 0) readonly buffer V { uint v[]; };
void main() { if (v[gl_GlobalInvocationID.x] < u_limit) atomicCounterIncrement(below); }";
    let vk = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 2) uniform P { uint u_limit; };
layout(set = 0, binding = 1) buffer C { uint below; };
layout(set = 0, binding = 0) readonly buffer V { uint v[]; };
void main() { if (v[gl_GlobalInvocationID.x] < u_limit) atomicAdd(below, 1u); }";
    let mut rng = Rng(8);
    let v: Vec<u32> = (0..512).map(|_| rng.next_u32() % 100).collect();
    let want = v.iter().filter(|&&x| x < 37).count() as u32;
    let kgl = Kernel::from_glsl(gl, &SourceOptions::named("gl.comp")).unwrap();
    let kvk = Kernel::from_glsl(vk, &SourceOptions::named("vk.comp")).unwrap();
    assert_eq!(kgl.dialect(), Some(Dialect::OpenGl));
    assert_eq!(kvk.dialect(), Some(Dialect::Vulkan));
    for ctx in common::contexts(wgpu::Features::empty()) {
        let vb = Buffer::from_slice(&ctx, &v).unwrap();
        for k in [&kgl, &kvk] {
            let block = k
                .bindings()
                .iter()
                .find(|b| b.kind == atomport::BindingKind::Uniform)
                .unwrap();
            let mut u = Uniforms::of(block).unwrap();
            u.set("u_limit", 37u32).unwrap();
            let ub = u.to_buffer(&ctx).unwrap();
            let cb = Buffer::zeroed(&ctx, 4).unwrap();
            let counter = if k.dialect() == Some(Dialect::OpenGl) {
                "below"
            } else {
                "C"
            };
            let (g, b) = u.slot();
            ctx.dispatch(
                k,
                [8, 1, 1],
                &[
                    Bind::named("V", &vb),
                    Bind::named(counter, &cb),
                    Bind::new(g, b, &ub),
                ],
            )
            .unwrap();
            assert_eq!(cb.read::<u32>(&ctx).unwrap(), [want]);
        }
    }
}

#[test]
fn arrays_of_counters_count_each_element() {
    let k = kernel("gl_counter_array.comp");
    let member = &k.binding_named("buckets").unwrap().members[0];
    assert_eq!((member.ty.as_str(), member.size), ("atomic_uint[4]", 16));
    let mut rng = Rng(4);
    let keys: Vec<u32> = (0..256).map(|_| rng.next_u32()).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let counters = Buffer::from_slice(&ctx, &[10u32, 20, 30, 40]).unwrap();
        let kb = Buffer::from_slice(&ctx, &keys).unwrap();
        let slots = Buffer::zeroed(&ctx, 256 * 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &k,
                [4, 1, 1],
                &[
                    Bind::named("buckets", &counters),
                    Bind::named("Keys", &kb),
                    Bind::named("Slots", &slots),
                ],
            )
            .unwrap();
        let c = words(&out[0]);
        let got = words(&out[2]);
        for bucket in 0..4u32 {
            let hits = keys.iter().filter(|&&k| k & 3 == bucket).count() as u32;
            let start = 10 * (bucket + 1);
            assert_eq!(c[bucket as usize], start + hits, "{}", ctx.backend_name());
            // Each bucket's increments returned start, start+1, …
            let mut returned: Vec<u32> = (0..256)
                .filter(|&i| keys[i] & 3 == bucket)
                .map(|i| got[i])
                .collect();
            returned.sort_unstable();
            assert_eq!(returned, (start..start + hits).collect::<Vec<_>>());
        }
    }
}
