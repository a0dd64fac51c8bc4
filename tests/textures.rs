//! Sampled textures, samplers, combined image samplers and storage textures
//! of ordinary formats on every backend present, each checked against the
//! host data or a CPU model of the sampling.

mod common;

use atomport::{Bind, Buffer, Context, Sampler, SamplerDesc, Texture, TextureDesc, TextureDim};
use common::Rng;

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// rgba8 texels whose channels identify them: (t, t >> 8, layer-ish, 255).
fn identifying_texels(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|t| {
            [
                (t * 7 % 256) as u8,
                (t / 3 % 256) as u8,
                (t * 13 % 251) as u8,
                255,
            ]
        })
        .collect()
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn every_texel_of_every_dimension_reads_back() {
    // (dim, sampler type, size, the coordinate of texel t, fetch expression)
    let cases: [(TextureDim, &str, Vec<u32>); 6] = [
        (TextureDim::D1, "sampler1D", vec![13]),
        (TextureDim::D2, "sampler2D", vec![7, 5]),
        (TextureDim::D2Array, "sampler2DArray", vec![5, 3, 4]),
        (TextureDim::D3, "sampler3D", vec![4, 3, 5]),
        (TextureDim::Cube, "samplerCube", vec![1, 1]),
        (TextureDim::CubeArray, "samplerCubeArray", vec![1, 1, 3]),
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (dim, ty, size) in &cases {
            let desc = TextureDesc::new(*dim, wgpu::TextureFormat::Rgba8Unorm, size, 1).unwrap();
            let (w, h, d) = (desc.width, desc.height, desc.depth_or_layers);
            let n = (w * h * d) as usize;
            // Texel t's coordinate; cube faces (1x1) are read along their axis.
            let fetch = match dim {
                TextureDim::D1 => "texelFetch(tex, int(t), 0)".to_string(),
                TextureDim::D2 => format!("texelFetch(tex, ivec2(t % {w}u, t / {w}u), 0)"),
                TextureDim::D2Array | TextureDim::D3 => format!(
                    "texelFetch(tex, ivec3(t % {w}u, (t / {w}u) % {h}u, t / {}u), 0)",
                    w * h
                ),
                TextureDim::Cube => "textureLod(tex, face(t), 0.0)".to_string(),
                TextureDim::CubeArray => {
                    "textureLod(tex, vec4(face(t % 6u), float(t / 6u)), 0.0)".to_string()
                }
            };
            let src = format!(
                "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform {ty} tex;
layout(set = 0, binding = 1) buffer Out {{ vec4 texels[]; }};
vec3 face(uint f) {{
    vec3 axes[6] = vec3[](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
    return axes[f];
}}
void main() {{
    uint t = gl_GlobalInvocationID.x;
    texels[t] = {fetch};
}}
"
            );
            let k = common::glsl(&src);
            let data = identifying_texels(n);
            let tex = Texture::from_data(&ctx, desc, &data).unwrap();
            let sampler = Sampler::new(&ctx, SamplerDesc::default()).unwrap();
            let out = Buffer::zeroed(&ctx, n as u64 * 16).unwrap();
            let got = ctx.dispatch_and_read(
                &k,
                [n as u32, 1, 1],
                &[
                    Bind::named("tex", (&tex, &sampler)),
                    Bind::named("Out", &out),
                ],
            );
            if *dim == TextureDim::D1 && ctx.backend_name() == "gl" {
                // wgpu's GL backend keeps 1D textures as 2D ones, which the
                // GLSL it writes reads as 1D: every texel would read
                // (0, 0, 0, 1). Refused by name instead, before submission.
                let e = got
                    .expect_err("a 1D texture read on GL is refused")
                    .to_string();
                assert!(
                    e.contains("the 1D texture `tex` cannot be read on wgpu's GL backend"),
                    "{e}"
                );
                continue;
            }
            let got = got.unwrap_or_else(|e| panic!("{} {}: {e}", ctx.backend_name(), dim.name()));
            let got = floats(got.last().unwrap());
            for (i, (&g, &b)) in got.iter().zip(&data).enumerate() {
                assert!(
                    close(g, b as f32 / 255.0, 1e-6),
                    "{} {}: texel {} channel {}: {g} != {}",
                    ctx.backend_name(),
                    dim.name(),
                    i / 4,
                    i % 4,
                    b as f32 / 255.0
                );
            }
        }
    }
}

/// The CPU model of sampling channel `c` of a `w`x`h` rgba8 texture at
/// `uv` at level 0: nearest or bilinear, clamped or repeated.
fn model(data: &[u8], w: u32, h: u32, uv: [f32; 2], c: usize, linear: bool, repeat: bool) -> f32 {
    let texel = |x: i64, y: i64| {
        let wrap = |v: i64, n: u32| {
            if repeat {
                v.rem_euclid(n as i64)
            } else {
                v.clamp(0, n as i64 - 1)
            }
        };
        let (x, y) = (wrap(x, w), wrap(y, h));
        data[((y * w as i64 + x) * 4) as usize + c] as f32 / 255.0
    };
    let (u, v) = (uv[0] as f64 * w as f64, uv[1] as f64 * h as f64);
    if !linear {
        return texel(u.floor() as i64, v.floor() as i64);
    }
    let (u, v) = (u - 0.5, v - 0.5);
    let (x0, y0) = (u.floor() as i64, v.floor() as i64);
    let (fx, fy) = ((u - u.floor()) as f32, (v - v.floor()) as f32);
    let top = texel(x0, y0) * (1.0 - fx) + texel(x0 + 1, y0) * fx;
    let bottom = texel(x0, y0 + 1) * (1.0 - fx) + texel(x0 + 1, y0 + 1) * fx;
    top * (1.0 - fy) + bottom * fy
}

#[test]
fn nearest_and_linear_sampling_match_the_cpu_model() {
    let k = common::glsl(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) readonly buffer Uv { vec2 uv[]; };
layout(set = 0, binding = 2) buffer Out { vec4 samples[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    samples[i] = texture(tex, uv[i]);
}
",
    );
    let (w, h) = (5u32, 3u32);
    let mut rng = Rng(42);
    let data: Vec<u8> = (0..w * h * 4)
        .map(|_| (rng.next_u32() % 256) as u8)
        .collect();
    let n = 256usize;
    // Coordinates away from texel edges by at least 1/64 of a texel, some
    // outside [0, 1] to exercise the address modes.
    let uv: Vec<[f32; 2]> = (0..n)
        .map(|_| {
            let mut r =
                |n: u32| ((rng.next_u32() % (n * 64 * 3)) as f32 + 0.5) / (n as f32 * 64.0) - 1.0;
            [r(w), r(h)]
        })
        .collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[w, h], 1).unwrap();
        let tex = Texture::from_data(&ctx, desc, &data).unwrap();
        let uv_buf = Buffer::from_slice(&ctx, &uv).unwrap();
        for (spec, linear, repeat) in [
            ("nearest", false, false),
            ("linear", true, false),
            ("nearest,repeat", false, true),
            ("linear,repeat", true, true),
        ] {
            let sampler = Sampler::new(&ctx, spec.parse().unwrap()).unwrap();
            let out = Buffer::zeroed(&ctx, n as u64 * 16).unwrap();
            let got = ctx
                .dispatch_and_read(
                    &k,
                    [n as u32 / 64, 1, 1],
                    &[
                        Bind::named("tex", (&tex, &sampler)),
                        Bind::named("Uv", &uv_buf),
                        Bind::named("Out", &out),
                    ],
                )
                .unwrap();
            let got = floats(got.last().unwrap());
            for (i, p) in uv.iter().enumerate() {
                for c in 0..4 {
                    let want = model(&data, w, h, *p, c, linear, repeat);
                    let g = got[i * 4 + c];
                    assert!(
                        close(g, want, 1.0 / 255.0 + 1e-6),
                        "{} {spec}: uv {p:?} channel {c}: {g} against the model's {want}",
                        ctx.backend_name()
                    );
                }
            }
        }
    }
}

/// (GLSL format qualifier, wgpu format, image type prefix)
const STORAGE_FORMATS: &[(&str, wgpu::TextureFormat, &str)] = {
    use wgpu::TextureFormat as F;
    &[
        ("rgba8", F::Rgba8Unorm, ""),
        ("rgba8_snorm", F::Rgba8Snorm, ""),
        ("rgba8ui", F::Rgba8Uint, "u"),
        ("rgba8i", F::Rgba8Sint, "i"),
        ("rgba16f", F::Rgba16Float, ""),
        ("rgba16ui", F::Rgba16Uint, "u"),
        ("rgba16i", F::Rgba16Sint, "i"),
        ("rgba32f", F::Rgba32Float, ""),
        ("rgba32ui", F::Rgba32Uint, "u"),
        ("rgba32i", F::Rgba32Sint, "i"),
        ("r32f", F::R32Float, ""),
        ("r32ui", F::R32Uint, "u"),
        ("r32i", F::R32Sint, "i"),
        ("rg32f", F::Rg32Float, ""),
        ("rg32ui", F::Rg32Uint, "u"),
        ("rg32i", F::Rg32Sint, "i"),
    ]
};

#[test]
fn storage_textures_of_every_format_write_and_read_back() {
    let (w, h) = (6u32, 4u32);
    for ctx in common::contexts(wgpu::Features::empty()) {
        for &(qualifier, format, prefix) in STORAGE_FORMATS {
            if !ctx
                .format_features(format)
                .allowed_usages
                .contains(wgpu::TextureUsages::STORAGE_BINDING)
            {
                println!(
                    "{}: {qualifier} is no storage format here",
                    ctx.backend_name()
                );
                continue;
            }
            let (vec, value) = match prefix {
                "u" => ("uvec4", "uvec4(p.x, p.y, p.x * 3u + p.y, 7u)"),
                "i" => ("ivec4", "ivec4(p.x, -int(p.y), int(p.x) - 3, -7)"),
                _ if qualifier.contains("snorm") => (
                    "vec4",
                    "vec4(float(p.x) / 8.0, -float(p.y) / 4.0, 0.5, -1.0)",
                ),
                _ => ("vec4", "vec4(float(p.x) / 8.0, float(p.y) / 4.0, 0.5, 1.0)"),
            };
            let src = format!(
                "#version 450
layout(local_size_x = {w}, local_size_y = {h}) in;
layout(set = 0, binding = 0, {qualifier}) uniform writeonly {prefix}image2D target;
void main() {{
    uvec2 p = gl_LocalInvocationID.xy;
    imageStore(target, ivec2(p), {vec}({value}));
}}
"
            );
            let k = common::glsl(&src);
            let desc = TextureDesc::new(TextureDim::D2, format, &[w, h], 1).unwrap();
            let tex = Texture::zeroed(&ctx, desc).unwrap();
            let got = ctx
                .dispatch_and_read(&k, [1, 1, 1], &[Bind::named("target", &tex)])
                .unwrap_or_else(|e| panic!("{} {qualifier}: {e}", ctx.backend_name()));
            let values = atomport::runtime::texture::decode_texels(format, &got[0]).unwrap();
            let channels = atomport::runtime::texture::channels(format).unwrap();
            for y in 0..h {
                for x in 0..w {
                    let want: [f64; 4] = match prefix {
                        "u" => [x as f64, y as f64, (x * 3 + y) as f64, 7.0],
                        "i" => [x as f64, -(y as f64), x as f64 - 3.0, -7.0],
                        _ if qualifier.contains("snorm") => {
                            [x as f64 / 8.0, -(y as f64) / 4.0, 0.5, -1.0]
                        }
                        _ => [x as f64 / 8.0, y as f64 / 4.0, 0.5, 1.0],
                    };
                    let t = ((y * w + x) as usize) * channels;
                    for c in 0..channels {
                        // 8-bit normalized channels round to 1/255 (1/127 signed).
                        let tol = if qualifier.starts_with("rgba8") {
                            0.5 / 127.0
                        } else {
                            1e-3
                        };
                        assert!(
                            (values[t + c] - want[c]).abs() <= tol,
                            "{} {qualifier}: texel ({x}, {y}) channel {c}: {} != {}",
                            ctx.backend_name(),
                            values[t + c],
                            want[c]
                        );
                    }
                }
            }
        }
    }
}

/// Signed normalized textures give back every value the host wrote, the
/// negative ones too, in every shape a compute pass loads, on every
/// backend: wgpu's GL backend copies them out clamped to 0..1, so there
/// they are read by loading each texel. Bytes as written, save there
/// -128, which is -1 as -127 is and reads back as -127; 16-bit ones where
/// the adapter has them.
#[test]
fn snorm_textures_read_back_their_negative_values() {
    let shapes: [(TextureDim, Vec<u32>); 4] = [
        (TextureDim::D2, vec![7, 5]),
        (TextureDim::D2Array, vec![5, 3, 4]),
        (TextureDim::D3, vec![4, 3, 5]),
        (TextureDim::Cube, vec![2, 2]),
    ];
    let formats = [
        wgpu::TextureFormat::R8Snorm,
        wgpu::TextureFormat::Rg8Snorm,
        wgpu::TextureFormat::Rgba8Snorm,
        wgpu::TextureFormat::R16Snorm,
        wgpu::TextureFormat::Rgba16Snorm,
    ];
    // The 8-bit formats on every backend; the 16-bit ones where the adapter
    // has them.
    let contexts = common::contexts(wgpu::Features::empty())
        .into_iter()
        .chain(common::contexts(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM));
    for ctx in contexts {
        let wide = ctx
            .device()
            .features()
            .contains(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM);
        for format in formats {
            if (format.block_copy_size(None) == Some(format.components() as u32 * 2)) != wide {
                continue;
            }
            let copyable = ctx
                .format_features(format)
                .allowed_usages
                .contains(wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC);
            if !copyable {
                println!("{}: no {format:?} textures here", ctx.backend_name());
                continue;
            }
            for (dim, size) in &shapes {
                let desc = TextureDesc::new(*dim, format, size, 1).unwrap();
                let n = desc.level_bytes(0) as usize;
                // Every byte value in turn: each 8-bit value, and 16-bit
                // values of both signs.
                let bytes: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
                let tex = Texture::from_data(&ctx, desc, &bytes).unwrap();
                let got = match tex.read(&ctx) {
                    Ok(got) => got,
                    // A cube on GL is a cube map there, which no shader
                    // loads texel by texel: said, not lost.
                    Err(e) if ctx.backend_name() == "gl" && *dim == TextureDim::Cube => {
                        assert!(e.to_string().contains("cube map"), "{e}");
                        continue;
                    }
                    Err(e) => panic!("{} {format:?} {dim:?}: {e}", ctx.backend_name()),
                };
                // Read by loads (GL): -128 (-32768) comes back as -127
                // (-32767).
                let mut want = bytes.clone();
                if ctx.backend_name() == "gl" {
                    let channel = if wide { 2 } else { 1 };
                    for c in want.chunks_exact_mut(channel) {
                        if c.last() == Some(&0x80) && c[..channel - 1].iter().all(|&b| b == 0) {
                            c[0] |= 1;
                        }
                    }
                }
                assert_eq!(got, want, "{} {format:?} {dim:?}", ctx.backend_name());
                // Without blocking, a copy, which GL would clamp: refused
                // there, not values lost.
                let copied = pollster::block_on(tex.read_level_async(&ctx, 0));
                match copied {
                    Ok(copied) => {
                        assert_ne!(ctx.backend_name(), "gl");
                        assert_eq!(copied, bytes, "{} {format:?} {dim:?}", ctx.backend_name());
                    }
                    Err(e) => {
                        assert_eq!(ctx.backend_name(), "gl", "{e}");
                        assert!(e.to_string().contains("synchronously only"), "{e}");
                    }
                }
            }
        }
    }
}

#[test]
fn combined_sampler_histogram_with_atomics_is_exact() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/glsl/tex_combined_fetch_histogram.comp"
    ))
    .unwrap();
    let k = common::glsl(&src);
    let (w, h) = (37u32, 23u32);
    let mut rng = Rng(7);
    // Pixels whose luminance is not within rounding of a bin edge.
    let mut data = Vec::new();
    let mut bins = vec![0u32; 64];
    while data.len() < (w * h * 4) as usize {
        let p = [
            rng.next_u32() as u8,
            rng.next_u32() as u8,
            rng.next_u32() as u8,
        ];
        let y = (0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64) / 255.0;
        let scaled = y * 64.0;
        if (scaled - scaled.round()).abs() < 1e-3 {
            continue;
        }
        bins[(scaled as usize).min(63)] += 1;
        data.extend([p[0], p[1], p[2], 255]);
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[w, h], 1).unwrap();
        let photo = Texture::from_data(&ctx, desc, &data).unwrap();
        let sampler = Sampler::new(&ctx, SamplerDesc::default()).unwrap();
        let out = Buffer::zeroed(&ctx, 64 * 4).unwrap();
        ctx.dispatch(
            &k,
            [w.div_ceil(8), h.div_ceil(8), 1],
            &[
                Bind::named("photo", (&photo, &sampler)),
                Bind::named("Bins", &out),
            ],
        )
        .unwrap();
        assert_eq!(
            out.read::<u32>(&ctx).unwrap(),
            bins,
            "{}",
            ctx.backend_name()
        );
    }
}

#[test]
fn a_callers_texture_binds_without_a_copy() {
    let k = common::glsl(
        "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D target;
void main() { imageStore(target, ivec2(gl_LocalInvocationID.xy), vec4(1.0, 0.0, 0.5, 1.0)); }
",
    );
    for ctx in common::contexts(wgpu::Features::empty()) {
        let raw = ctx.device().create_texture(&wgpu::TextureDescriptor {
            label: Some("caller's"),
            size: wgpu::Extent3d {
                width: 4,
                height: 4,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let tex = Texture::from_wgpu(raw.clone(), TextureDim::D2).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("target", &tex)])
            .unwrap();
        let bytes = tex.read(&ctx).unwrap();
        assert!(
            bytes.chunks(4).all(|p| p == [255, 0, 128, 255]),
            "{bytes:?}"
        );
        // Without a binding usage it is refused, naming the usage.
        let plain = ctx.device().create_texture(&wgpu::TextureDescriptor {
            label: None,
            usage: wgpu::TextureUsages::COPY_SRC,
            ..common::sampled_only_descriptor()
        });
        let e = Texture::from_wgpu(plain, TextureDim::D2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("neither TEXTURE_BINDING nor STORAGE_BINDING"),
            "{e}"
        );
    }
}

#[test]
fn mismatched_textures_and_samplers_are_refused_naming_the_binding() {
    let ctx: Context = common::contexts(wgpu::Features::empty()).remove(0);
    let cube = common::glsl(
        "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform samplerCube env;
layout(set = 0, binding = 1) buffer Out { vec4 c; };
void main() { c = textureLod(env, vec3(1, 0, 0), 0.0); }
",
    );
    let out = Buffer::zeroed(&ctx, 16).unwrap();
    let flat = Texture::zeroed(
        &ctx,
        TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[4, 4], 1).unwrap(),
    )
    .unwrap();
    let uint = Texture::zeroed(
        &ctx,
        TextureDesc::new(TextureDim::Cube, wgpu::TextureFormat::Rgba8Uint, &[4, 4], 1).unwrap(),
    )
    .unwrap();
    let linear = Sampler::new(&ctx, "linear".parse().unwrap()).unwrap();
    let compare = Sampler::new(&ctx, "nearest,compare=less".parse().unwrap()).unwrap();
    let err = |binds: &[Bind]| {
        ctx.dispatch(&cube, [1, 1, 1], binds)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(&[
            Bind::named("env", (&flat, &linear)),
            Bind::named("Out", &out)
        ]),
        "binding 0.0 (`env`) is a float cube texture in the kernel but was given a rgba8unorm 2d texture"
    );
    assert_eq!(
        err(&[
            Bind::named("env", (&uint, &linear)),
            Bind::named("Out", &out)
        ]),
        "binding 0.0 (`env`) is a float cube texture in the kernel but was given a rgba8uint cube texture"
    );
    assert_eq!(
        err(&[
            Bind::named("env", (&flat, &compare)),
            Bind::named("Out", &out)
        ]),
        "binding 0.0 (`env`) is a float cube texture in the kernel but was given a rgba8unorm 2d texture"
    );
    let good = Texture::zeroed(
        &ctx,
        TextureDesc::new(
            TextureDim::Cube,
            wgpu::TextureFormat::Rgba8Unorm,
            &[4, 4],
            1,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        err(&[
            Bind::named("env", (&good, &compare)),
            Bind::named("Out", &out)
        ]),
        "binding 0.2 (`env_sampler`) is a sampler without a compare function in the kernel but was given a comparison sampler"
    );
    // A shadow lookup needs a comparison sampler.
    let shadow = common::glsl(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/glsl/tex_sampler2dshadow_pcf.comp"
        ))
        .unwrap(),
    );
    let depth = Texture::zeroed(
        &ctx,
        TextureDesc::new(
            TextureDim::D2,
            wgpu::TextureFormat::Depth32Float,
            &[4, 4],
            1,
        )
        .unwrap(),
    )
    .unwrap();
    let e = ctx
        .dispatch(
            &shadow,
            [1, 1, 1],
            &[
                Bind::named("shadowMap", (&depth, &linear)),
                Bind::named("Points", &out),
                Bind::named("Lit", &out),
            ],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a comparison sampler (a sampler with a compare function) in the kernel but was given a sampler"), "{e}");
    // Descriptions that cannot be.
    let e = TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[4, 4], 4)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "2d texture: 4 mip levels: a 4x4 texture has 1 to 3");
    let e = TextureDesc::new(TextureDim::D3, wgpu::TextureFormat::Rgba8Unorm, &[4, 4], 1)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "a 3d texture's size is WxHxD (3 numbers), not 2 numbers");
    let e = TextureDesc::new(
        TextureDim::Cube,
        wgpu::TextureFormat::Rgba8Unorm,
        &[4, 2],
        1,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(e, "cube texture: cube faces are square, not 4x2");
}

/// A multisampled texture (an MSAA resolve in compute, in the style of
/// emulators' copy kernels) is refused in one line that says why, whatever
/// is bound; `atomport check` says so too rather than make a texture of
/// another shape.
#[test]
fn multisampled_textures_are_refused_saying_why() {
    let ctx: Context = common::contexts(wgpu::Features::empty()).remove(0);
    let source = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform usampler2DMS samples;
layout(set = 0, binding = 1) buffer Out { uint v[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uvec4 s = texelFetch(samples, p, 0) + texelFetch(samples, p, 3);
    v[p.y * 8 + p.x] = s.x;
}
";
    let resolve = common::glsl(source);
    let flat = Texture::zeroed(
        &ctx,
        TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Uint, &[8, 8], 1).unwrap(),
    )
    .unwrap();
    let out = Buffer::zeroed(&ctx, 256).unwrap();
    let e = ctx
        .dispatch(
            &resolve,
            [1, 1, 1],
            &[Bind::named("samples", &flat), Bind::named("Out", &out)],
        )
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "binding 0.0 (`samples`) is a multisampled texture (texture2DMS, sampler2DMS): atomport binds none, so the kernel cannot run (WebGPU fills a multisampled texture only by drawing into it)"
    );
    let file = common::temp_file("multisampled", "resolve.comp", source);
    let o = common::atomport(&["check", &file]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "not run: `samples` is a multisampled texture, which atomport neither makes nor binds"
        ),
        "{text}"
    );
}

#[test]
fn png_files_in_and_out() {
    let dir = common::scratch().join(format!("atomport-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Round trip: an RGBA picture written and read back as rgba8unorm.
    let pixels: Vec<u8> = (0..6 * 4 * 4).map(|i| (i * 5 % 256) as u8).collect();
    let p = dir.join("in.png");
    atomport::runtime::texture::write_png(&p, 6, 4, wgpu::TextureFormat::Rgba8Unorm, &pixels)
        .unwrap();
    let (w, h, f, data) = atomport::runtime::texture::read_png(&p).unwrap();
    assert_eq!(
        (w, h, f, data),
        (6, 4, wgpu::TextureFormat::Rgba8Unorm, pixels)
    );
    // Not a PNG.
    let bad = dir.join("bad.png");
    std::fs::write(&bad, b"GIF89a not a png").unwrap();
    let e = atomport::runtime::texture::read_png(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.png: not a PNG file atomport can read"),
        "{e}"
    );
    // A colour type atomport does not read: 16-bit RGBA.
    let deep = dir.join("deep.png");
    {
        let file = std::fs::File::create(&deep).unwrap();
        let mut enc = png::Encoder::new(file, 1, 1);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Sixteen);
        enc.write_header()
            .unwrap()
            .write_image_data(&[0u8; 8])
            .unwrap();
    }
    let e = atomport::runtime::texture::read_png(&deep)
        .unwrap_err()
        .to_string();
    assert!(e.contains("a Rgba PNG of Sixteen bits per channel"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn array_sizes_and_arrays_of_combined_samplers() {
    let sizes = common::glsl(
        "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2DArray frames;
layout(set = 0, binding = 1) uniform samplerCubeArray cubes;
layout(set = 0, binding = 2, rgba8) uniform readonly image2DArray layers;
layout(set = 0, binding = 3) buffer Out { ivec4 a; ivec4 b; ivec4 c; };
void main() { a = ivec4(textureSize(frames, 0), 0); b = ivec4(textureSize(cubes, 0), 0); c = ivec4(imageSize(layers), 0); }
",
    );
    let blend = common::glsl(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/glsl/tex_sampler_array_constant_index.comp"
        ))
        .unwrap(),
    );
    let names: Vec<String> = blend.bindings().iter().map(|b| b.display_name()).collect();
    assert_eq!(
        names,
        [
            "layers[0]",
            "Out",
            "layers[0]_sampler",
            "layers[1]",
            "layers[2]",
            "layers[2]_sampler"
        ]
    );
    let rgba8 = wgpu::TextureFormat::Rgba8Unorm;
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (frames, cubes, images) in [(7u32, 3u32, 9u32), (2, 1, 4)] {
            let t = |dim, size: &[u32]| {
                Texture::zeroed(&ctx, TextureDesc::new(dim, rgba8, size, 1).unwrap()).unwrap()
            };
            let (f, c, l) = (
                t(TextureDim::D2Array, &[5, 3, frames]),
                t(TextureDim::CubeArray, &[4, 4, cubes]),
                t(TextureDim::D2Array, &[6, 2, images]),
            );
            let nearest = Sampler::new(&ctx, SamplerDesc::default()).unwrap();
            let out = Buffer::zeroed(&ctx, 48).unwrap();
            ctx.dispatch(
                &sizes,
                [1, 1, 1],
                &[
                    Bind::named("frames", (&f, &nearest)),
                    Bind::named("cubes", (&c, &nearest)),
                    Bind::named("layers", &l),
                    Bind::named("Out", &out),
                ],
            )
            .unwrap();
            assert_eq!(
                out.read::<i32>(&ctx).unwrap(),
                [
                    5,
                    3,
                    frames as i32,
                    0,
                    4,
                    4,
                    cubes as i32,
                    0,
                    6,
                    2,
                    images as i32,
                    0
                ],
                "{}",
                ctx.backend_name()
            );
        }
        // Three textures of constant colours, blended 1/2, 1/4, 1/4.
        let solid = |v: u8| {
            let desc = TextureDesc::new(TextureDim::D2, rgba8, &[4, 4], 1).unwrap();
            Texture::from_data(&ctx, desc, &[v; 64]).unwrap()
        };
        let (a, b, c) = (solid(200), solid(100), solid(40));
        let nearest = Sampler::new(&ctx, SamplerDesc::default()).unwrap();
        let out = Buffer::zeroed(&ctx, 16 * 16).unwrap();
        ctx.dispatch(
            &blend,
            [1, 1, 1],
            &[
                Bind::named("layers[0]", (&a, &nearest)),
                Bind::named("layers[1]", (&b, &nearest)),
                Bind::named("layers[2]", (&c, &nearest)),
                Bind::named("Out", &out),
            ],
        )
        .unwrap();
        let want = (200.0 * 0.5 + 100.0 * 0.25 + 40.0 * 0.25) / 255.0;
        for v in out.read::<f32>(&ctx).unwrap() {
            assert!(close(v, want, 1e-5), "{} {v} != {want}", ctx.backend_name());
        }
    }
}
