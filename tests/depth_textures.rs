//! Depth textures as sampled input, on every backend present: filled from
//! the host (drawn in by a render pass, since WebGPU copies nothing into
//! depth32float and wgpu's GL backend into no depth texture), read back
//! level by level, and sampled through `sampler2DShadow` by a Hi-Z
//! occlusion-culling kernel checked against a CPU model.

mod common;

use atomport::{Bind, Buffer, Sampler, Texture, TextureDesc, TextureDim};
use common::Rng;

const FORMATS: [wgpu::TextureFormat; 2] = [
    wgpu::TextureFormat::Depth32Float,
    wgpu::TextureFormat::Depth16Unorm,
];

/// A depth value in 0..1 from the generator.
fn unit(rng: &mut Rng) -> f32 {
    (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

/// The bytes of depth values in `format` (depth16unorm rounds).
fn depth_bytes(format: wgpu::TextureFormat, values: &[f32]) -> Vec<u8> {
    match format {
        wgpu::TextureFormat::Depth16Unorm => values
            .iter()
            .flat_map(|v| ((v * 65535.0).round() as u16).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

/// Depth values of `bytes` in `format`, as a shader reads them.
fn depth_values(format: wgpu::TextureFormat, bytes: &[u8]) -> Vec<f32> {
    match format {
        wgpu::TextureFormat::Depth16Unorm => bytes
            .chunks_exact(2)
            .map(|b| f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0)
            .collect(),
        _ => bytemuck::pod_collect_to_vec(bytes),
    }
}

fn name(format: wgpu::TextureFormat) -> String {
    atomport::runtime::texture::format_name(format)
}

#[test]
fn every_level_and_layer_of_a_depth_texture_reads_back_as_written() {
    let shapes: [(TextureDim, &[u32], u32); 4] = [
        (TextureDim::D2, &[13, 7], 3),
        (TextureDim::D2Array, &[8, 4, 3], 2),
        (TextureDim::Cube, &[4, 4], 3),
        (TextureDim::CubeArray, &[2, 2, 2], 1),
    ];
    let mut rng = Rng(0xdeb7);
    for ctx in common::contexts(wgpu::Features::empty()) {
        for format in FORMATS {
            for (dim, size, mips) in shapes {
                let desc = TextureDesc::new(dim, format, size, mips).unwrap();
                let levels: Vec<Vec<u8>> = (0..mips)
                    .map(|level| {
                        let (w, h, d) = desc.level_size(level);
                        // 0 and 1 exactly, then anything between.
                        let values: Vec<f32> = (0..w * h * d)
                            .map(|i| match i {
                                0 => 0.0,
                                1 => 1.0,
                                _ => unit(&mut rng),
                            })
                            .collect();
                        depth_bytes(format, &values)
                    })
                    .collect();
                let tex = Texture::from_data(&ctx, desc, &levels.concat()).unwrap();
                let what = format!("{} {} {:?}", ctx.backend_name(), name(format), dim);
                let cube_on_gl = ctx.backend_name() == "gl"
                    && matches!(dim, TextureDim::Cube | TextureDim::CubeArray);
                for (level, want) in levels.iter().enumerate() {
                    match tex.read_level(&ctx, level as u32) {
                        Ok(got) => {
                            assert!(!cube_on_gl, "{what}: read back on GL");
                            assert_eq!(&got, want, "{what} level {level}");
                        }
                        Err(e) => {
                            assert!(cube_on_gl, "{what} level {level}: {e}");
                            assert!(e.to_string().contains("cube map"), "{e}");
                        }
                    }
                }
                if cube_on_gl {
                    println!("{what}: not read back on GL (a cube map there), as expected");
                }
            }
        }
    }
}

#[test]
fn every_depth16unorm_value_survives_the_draw() {
    // 65 536 texels, one per 16-bit value: the float the fragment shader
    // writes must round back to the same value.
    let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc = TextureDesc::new(
            TextureDim::D2,
            wgpu::TextureFormat::Depth16Unorm,
            &[256, 256],
            1,
        )
        .unwrap();
        let start = std::time::Instant::now();
        let tex = Texture::from_data(&ctx, desc, &all).unwrap();
        let written = start.elapsed();
        let got = tex.read(&ctx).unwrap();
        println!(
            "{}: 256x256 depth16unorm written in {:.1} ms, read in {:.1} ms",
            ctx.backend_name(),
            written.as_secs_f64() * 1e3,
            (start.elapsed() - written).as_secs_f64() * 1e3
        );
        let wrong = got.chunks(2).zip(all.chunks(2)).position(|(a, b)| a != b);
        assert_eq!(wrong, None, "{}: first value changed", ctx.backend_name());
    }
}

#[test]
fn depth_outside_zero_to_one_and_undrawable_textures_are_refused() {
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc = TextureDesc::new(
            TextureDim::D2,
            wgpu::TextureFormat::Depth32Float,
            &[2, 2],
            1,
        )
        .unwrap();
        let bytes = depth_bytes(desc.format, &[0.5, 0.25, 1.5, 0.0]);
        let e = Texture::from_data(&ctx, desc, &bytes).unwrap_err();
        assert!(
            e.to_string().contains("depth32float texel 2 is 1.5") && e.to_string().contains("0..1"),
            "{e}"
        );
        // The caller's depth texture without RENDER_ATTACHMENT cannot be drawn in.
        let raw = ctx.device().create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: 2,
                height: 2,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Depth32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let tex = Texture::from_wgpu(raw, TextureDim::D2).unwrap();
        let e = tex
            .write_level(&ctx, 0, &depth_bytes(desc.format, &[0.5; 4]))
            .unwrap_err();
        assert!(e.to_string().contains("RENDER_ATTACHMENT"), "{e}");
        // It still reads back (zeros), through TEXTURE_BINDING.
        assert_eq!(tex.read(&ctx).unwrap(), vec![0u8; 16]);
    }
}

/// Hi-Z occlusion culling as renderers write it: each object's screen-space
/// bounds against one level of a max-depth pyramid, four comparison taps at
/// the corners; survivors appended with an atomic.
const HI_Z_CULL: &str = r#"#version 450
layout(local_size_x = 64) in;

// Farthest depth of each texel's block of the depth buffer (0 near, 1 far).
layout(set = 0, binding = 0) uniform sampler2DShadow hiZ;

struct ObjectBounds {
    vec4 screenRect;   // uv of the min corner (xy) and max corner (zw)
    float nearestZ;    // depth of the bounds' nearest point
    uint objectId;
};
layout(set = 0, binding = 1) readonly buffer Objects { ObjectBounds objects[]; };
layout(set = 0, binding = 2) buffer DrawList {
    uint visibleCount;
    uint visibleIds[];
};

bool occluded(ObjectBounds b) {
    vec4 r = b.screenRect;
    // lequal: a tap passes where the object may lie in front of what was drawn.
    float passing = texture(hiZ, vec3(r.xy, b.nearestZ))
                  + texture(hiZ, vec3(r.zy, b.nearestZ))
                  + texture(hiZ, vec3(r.xw, b.nearestZ))
                  + texture(hiZ, vec3(r.zw, b.nearestZ));
    return passing == 0.0;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(objects.length())) return;
    ObjectBounds b = objects[i];
    if (occluded(b)) return;
    uint slot = atomicAdd(visibleCount, 1u);
    visibleIds[slot] = b.objectId;
}
"#;

/// A depth buffer of `w`×`h` (1 = far) with `n` occluding rectangles.
fn depth_buffer(rng: &mut Rng, w: u32, h: u32, n: usize) -> Vec<f32> {
    let mut depth = vec![1.0f32; (w * h) as usize];
    for _ in 0..n {
        let (x0, y0) = (rng.below(w), rng.below(h));
        let (x1, y1) = (
            (x0 + 4 + rng.below(w / 2)).min(w),
            (y0 + 4 + rng.below(h / 2)).min(h),
        );
        let z = 0.1 + 0.6 * unit(rng);
        for y in y0..y1 {
            for x in x0..x1 {
                let d = &mut depth[(y * w + x) as usize];
                *d = d.min(z);
            }
        }
    }
    depth
}

/// The next pyramid level: the farthest of each 2×2 block (the last row or
/// column of an odd size folds into the block before it).
fn reduce_max(level: &[f32], w: u32, h: u32) -> (Vec<f32>, u32, u32) {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = vec![0.0f32; (nw * nh) as usize];
    for y in 0..h {
        for x in 0..w {
            let (ox, oy) = ((x / 2).min(nw - 1), (y / 2).min(nh - 1));
            let o = &mut out[(oy * nw + ox) as usize];
            *o = o.max(level[(y * w + x) as usize]);
        }
    }
    (out, nw, nh)
}

#[test]
fn hi_z_culling_against_a_depth_pyramid_matches_the_cpu() {
    let kernel = common::glsl(HI_Z_CULL);
    let (w, h, mips) = (64u32, 48u32, 4u32);
    let cull_level = 2usize;
    let objects = 300usize;
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (k, format) in FORMATS.into_iter().enumerate() {
            let mut rng = Rng(0x41_7a + k as u64);
            // The pyramid as the host computes it, in the texture's precision.
            let mut levels = vec![(depth_buffer(&mut rng, w, h, 12), w, h)];
            while levels.len() < mips as usize {
                let (l, lw, lh) = levels.last().unwrap();
                levels.push(reduce_max(l, *lw, *lh));
            }
            let bytes: Vec<Vec<u8>> = levels
                .iter()
                .map(|(l, _, _)| depth_bytes(format, l))
                .collect();
            let desc = TextureDesc::new(TextureDim::D2, format, &[w, h], mips).unwrap();
            let pyramid = Texture::from_data(&ctx, desc, &bytes.concat()).unwrap();
            // The level the objects are tested against, read back from the
            // pyramid and bound on its own (WGSL compares at level 0).
            let level = pyramid.read_level(&ctx, cull_level as u32).unwrap();
            assert_eq!(
                level,
                bytes[cull_level],
                "{} {}",
                ctx.backend_name(),
                name(format)
            );
            let (_, lw, lh) = levels[cull_level];
            let texels = depth_values(format, &level);
            let hi_z = Texture::from_data(
                &ctx,
                TextureDesc::new(TextureDim::D2, format, &[lw, lh], 1).unwrap(),
                &level,
            )
            .unwrap();
            let sampler =
                Sampler::new(&ctx, "nearest,clamp,compare=lequal".parse().unwrap()).unwrap();

            let (words, want) = cull_scene(&mut rng, &texels, lw, lh, objects);
            let bounds = Buffer::from_slice(&ctx, &words).unwrap();
            let draw_list = Buffer::zeroed(&ctx, 4 * (1 + objects as u64)).unwrap();
            ctx.dispatch(
                &kernel,
                [objects.div_ceil(64) as u32, 1, 1],
                &[
                    Bind::named("hiZ", (&hi_z, &sampler)),
                    Bind::named("Objects", &bounds),
                    Bind::named("DrawList", &draw_list),
                ],
            )
            .unwrap();
            let out: Vec<u32> = draw_list.read(&ctx).unwrap();
            let mut got = out[1..1 + out[0] as usize].to_vec();
            got.sort_unstable();
            println!(
                "{} {}: {} of {objects} objects visible",
                ctx.backend_name(),
                name(format),
                got.len()
            );
            assert!(
                want.len() > 20 && want.len() < objects - 20,
                "a scene that culls some"
            );
            assert_eq!(got, want, "{} {}", ctx.backend_name(), name(format));
        }
    }
}

/// `n` objects whose bounds cover one or two texels of the `w`×`h` level
/// each way (corners never near a texel edge, depths never near a texel's),
/// as the buffer's words, and the ids the model finds visible, sorted.
fn cull_scene(rng: &mut Rng, texels: &[f32], w: u32, h: u32, n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut words = Vec::with_capacity(n * 8);
    let mut visible = Vec::new();
    for i in 0..n {
        let corner = |rng: &mut Rng, size: u32| {
            let t0 = rng.below(size);
            let t1 = (t0 + rng.below(2)).min(size - 1);
            let inside = |rng: &mut Rng, t: u32| (t as f32 + 0.1 + 0.8 * unit(rng)) / size as f32;
            (t0, t1, inside(rng, t0), inside(rng, t1))
        };
        let (x0, x1, u0, u1) = corner(rng, w);
        let (y0, y1, v0, v1) = corner(rng, h);
        let taps =
            [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| texels[(y * w + x) as usize]);
        let z = loop {
            let z = unit(rng);
            if taps.iter().all(|t| (t - z).abs() > 1e-3) {
                break z;
            }
        };
        let id = 1000 + 7 * i as u32;
        if taps.iter().any(|&t| z <= t) {
            visible.push(id);
        }
        words.extend([u0, v0, u1, v1, z].map(f32::to_bits));
        words.extend([id, 0, 0]);
    }
    visible.sort_unstable();
    (words, visible)
}

#[test]
fn the_cli_fills_and_prints_depth_textures_on_every_backend() {
    // Four points, then twelve more at (0, 0, 0).
    let points = format!(
        "Points=f32:[0.125,0.25,0.002,1, 0.125,0.25,0.02,1, 0.875,0.75,0.02,1, 0.875,0.75,0.03,1{}]",
        ",0".repeat(48)
    );
    for backend in common::backend_names() {
        let v = common::run_json(&[
            "run",
            "tests/glsl/tex_sampler2dshadow_pcf.comp",
            "--json",
            "--backend",
            backend,
            "--groups",
            "1",
            "--texture",
            "shadowMap=4x2:depth32float:iota",
            "--sampler",
            "shadowMap=nearest,clamp,compare=less",
            "--buffer",
            &points,
            "--buffer",
            "Lit=f32:16",
        ]);
        let binding = |n: &str| {
            v["bindings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["name"] == n)
                .unwrap_or_else(|| panic!("{backend}: no binding {n}"))
                .clone()
        };
        let tex = binding("shadowMap");
        assert_eq!(tex["format"], "depth32float", "{backend}");
        let data: Vec<f32> = tex["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let iota: Vec<f32> = (0..8).map(|i| (f64::from(i) / 255.0) as f32).collect();
        assert_eq!(data, iota, "{backend}: iota is i/255 in a depth texture");
        // Texel (0, 0) holds 0, texel (3, 1) 7/255 ≈ 0.0275: compare=less.
        let lit: Vec<f64> = binding("Lit")["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(&lit[..4], &[0.0, 0.0, 1.0, 0.0], "{backend}");
    }
}

#[test]
fn every_cube_face_lands_where_a_shadow_lookup_looks() {
    // Face f holds 16f/255 … (16f + 15)/255; a lookup toward its centre
    // passes `less` against a reference just below that range and fails
    // just above it: 1 per face, on GL too, where a cube cannot be read back.
    let k = common::glsl(
        r#"#version 450
layout(local_size_x = 6) in;
layout(set = 0, binding = 0) uniform samplerCubeShadow envDepth;
layout(set = 0, binding = 1) buffer Faces { float faceCheck[]; };
const vec3 toward[6] = vec3[](vec3(1, 0.1, 0.2), vec3(-1, 0.1, 0.2), vec3(0.1, 1, 0.2),
                              vec3(0.1, -1, 0.2), vec3(0.1, 0.2, 1), vec3(0.1, 0.2, -1));
void main() {
    uint f = gl_LocalInvocationID.x;
    float below = (16.0 * float(f) - 0.5) / 255.0, above = (16.0 * float(f) + 15.5) / 255.0;
    faceCheck[f] = texture(envDepth, vec4(toward[f], below))
                 + 2.0 * texture(envDepth, vec4(toward[f], above));
}
"#,
    );
    for ctx in common::contexts(wgpu::Features::empty()) {
        for format in FORMATS {
            let desc = TextureDesc::new(TextureDim::Cube, format, &[4, 4], 1).unwrap();
            let values: Vec<f32> = (0..96).map(|i| i as f32 / 255.0).collect();
            let cube = Texture::from_data(&ctx, desc, &depth_bytes(format, &values)).unwrap();
            let sampler =
                Sampler::new(&ctx, "nearest,clamp,compare=less".parse().unwrap()).unwrap();
            let out = Buffer::zeroed(&ctx, 24).unwrap();
            ctx.dispatch(
                &k,
                [1, 1, 1],
                &[
                    Bind::named("envDepth", (&cube, &sampler)),
                    Bind::named("Faces", &out),
                ],
            )
            .unwrap();
            let got: Vec<f32> = out.read(&ctx).unwrap();
            assert_eq!(got, vec![1.0; 6], "{} {}", ctx.backend_name(), name(format));
        }
    }
}

/// A shadow sampler's comparison has no default: left out, the error names
/// the flag that gives it (not the WGSL name of the sampler half).
#[test]
fn a_shadow_sampler_left_out_names_the_flag() {
    let o = common::atomport(&[
        "run",
        "tests/glsl/tex_sampler2dshadow_pcf.comp",
        "--groups",
        "1",
        "--texture",
        "shadowMap=4x2:depth32float:iota",
        "--buffer",
        "Points=f32:64",
        "--buffer",
        "Lit=f32:16",
    ]);
    common::assert_fails_in_one_line(&o, 2, "--sampler shadowMap=nearest,compare=lequal");
}
