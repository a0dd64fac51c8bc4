//! Arrays of textures and samplers indexed at run time, or declared without
//! a size: wgpu binding arrays. Bindless material lookups through
//! `sampler2D textures[]` with `nonuniformEXT`, and a tile pass reading
//! `utexture2D tiles[4]` at an index from its push constants, each checked
//! against a CPU model and, on Vulkan, against the original SPIR-V run
//! natively. Where an adapter lacks the features, an array of up to 16
//! elements indexed at run time is a switch over one binding per element
//! (the portable form, and what `run` chooses for such an adapter);
//! binding arrays a kernel still needs fail the dispatch naming the
//! features (exit 1 on the command line).
//!
//! Debian 12's lavapipe (Mesa 22.3) and llvmpipe GL have no binding arrays;
//! Mesa 25's lavapipe has them. Where `scripts/setup-dx12` (or `--mesa`
//! alone, as the README's test command has `scripts/ensure-adapter
//! --binding-arrays` do) has put that lavapipe on the machine, the tests
//! also run on it, chosen with `VK_DRIVER_FILES`.

mod common;

use std::process::Command;

use atomport::{
    ArrayLength, Bind, Buffer, Error, Kernel, Sampler, SamplerDesc, SourceOptions, Texture,
    TextureDesc, TextureDim,
};

/// A hit list shaded through a bindless material table: each material names
/// its albedo texture, fetched (or, with flag 1, sampled at the texel to
/// its right) at a texel picked from the hit; a histogram counts the hits
/// per texture.
const BINDLESS: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;

struct Material {
    uint albedoIndex;
    uint flags;
};

layout(set = 0, binding = 0) uniform sampler2D textures[];
layout(std430, set = 0, binding = 1) readonly buffer Materials { Material materials[]; };
layout(std430, set = 0, binding = 2) readonly buffer Hits { uvec2 hits[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Shaded { vec4 shaded[]; };
layout(std430, set = 0, binding = 4) buffer Usage { uint hitsPerTexture[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(hits.length())) {
        return;
    }
    uvec2 hit = hits[i];
    Material m = materials[hit.x];
    uint t = m.albedoIndex;
    ivec2 size = textureSize(textures[nonuniformEXT(t)], 0);
    ivec2 texel = ivec2(hit.y % uint(size.x), (hit.y / uint(size.x)) % uint(size.y));
    vec4 fetched = texelFetch(textures[nonuniformEXT(t)], texel, 0);
    ivec2 right = ivec2((texel.x + 1) % size.x, texel.y);
    vec2 uv = (vec2(right) + 0.5) / vec2(size);
    vec4 sampled = textureLod(textures[nonuniformEXT(t)], uv, 0.0);
    shaded[i] = (m.flags & 1u) != 0u ? sampled : fetched;
    atomicAdd(hitsPerTexture[t], 1u);
}
";

/// One pass over a tile of a fixed array, chosen by a push constant.
const TILES: &str = "#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 16) in;
layout(push_constant) uniform Pass { uint tile; uint bias; } pc;
layout(set = 0, binding = 0) uniform utexture2D tiles[4];
layout(std430, set = 0, binding = 1) buffer Stats { uint maxima[4]; uint total; };
void main() {
    uint i = gl_LocalInvocationID.x;
    uint v = texelFetch(tiles[pc.tile], ivec2(i % 4u, i / 4u), 0).r + pc.bias;
    atomicMax(maxima[pc.tile], v);
    atomicAdd(total, v);
}
";

/// The textures of the bindless test: (width, height, format, texels as
/// RGBA values).
struct Tex {
    w: u32,
    h: u32,
    format: wgpu::TextureFormat,
    texels: Vec<[f32; 4]>,
}

fn textures(rng: &mut common::Rng) -> Vec<Tex> {
    let unorm = |rng: &mut common::Rng| (rng.below(256) as f32) / 255.0;
    let mut out = Vec::new();
    for (w, h, format) in [
        (4, 4, wgpu::TextureFormat::Rgba8Unorm),
        (8, 2, wgpu::TextureFormat::Rgba8Unorm),
        (2, 2, wgpu::TextureFormat::Rgba32Float),
        (16, 1, wgpu::TextureFormat::Rgba32Float),
        (3, 5, wgpu::TextureFormat::Rgba8Unorm),
    ] {
        let texels = (0..w * h)
            .map(|i| match format {
                wgpu::TextureFormat::Rgba8Unorm => [unorm(rng), unorm(rng), unorm(rng), unorm(rng)],
                _ => [
                    i as f32 * 0.25,
                    -(i as f32),
                    1e6 + i as f32,
                    rng.below(1000) as f32,
                ],
            })
            .collect();
        out.push(Tex {
            w,
            h,
            format,
            texels,
        });
    }
    out
}

fn texel_bytes(t: &Tex) -> Vec<u8> {
    let mut out = Vec::new();
    for v in &t.texels {
        match t.format {
            wgpu::TextureFormat::Rgba8Unorm => {
                out.extend(v.iter().map(|c| (c * 255.0).round() as u8));
            }
            _ => out.extend(v.iter().flat_map(|c| c.to_le_bytes())),
        }
    }
    out
}

/// What the kernel computes: shaded colours (each with whether it is a
/// float texel, read exactly, or an 8-bit unorm one, which Vulkan converts
/// to within 1 ulp of byte/255) and hits per texture.
fn model(tex: &[Tex], materials: &[[u32; 2]], hits: &[[u32; 2]]) -> (Vec<(f32, bool)>, Vec<u32>) {
    let mut shaded = Vec::new();
    let mut usage = vec![0u32; tex.len()];
    for hit in hits {
        let [albedo, flags] = materials[hit[0] as usize];
        let t = &tex[albedo as usize];
        let (x, y) = (hit[1] % t.w, (hit[1] / t.w) % t.h);
        let x = if flags & 1 != 0 { (x + 1) % t.w } else { x };
        // An rgba8unorm texel reads back as the byte over 255, in f32.
        let texel = t.texels[(y * t.w + x) as usize];
        shaded.extend(texel.map(|c| match t.format {
            wgpu::TextureFormat::Rgba8Unorm => (((c * 255.0).round() as u8) as f32 / 255.0, false),
            _ => (c, true),
        }));
        usage[albedo as usize] += 1;
    }
    (shaded, usage)
}

fn bindless_kernel() -> Kernel {
    Kernel::from_glsl(BINDLESS, &SourceOptions::named("bindless.comp")).unwrap()
}

#[test]
fn the_binding_map_names_binding_arrays_and_their_length() {
    let k = bindless_kernel();
    let textures = k.binding_named("textures").unwrap();
    assert_eq!(textures.array, Some(ArrayLength::Unsized));
    assert_eq!(textures.combined.as_deref(), Some("textures"));
    let sampler = k.binding_named("textures_sampler").unwrap();
    assert_eq!(sampler.array, Some(ArrayLength::Unsized));
    assert_eq!(k.element_named("textures[7]").unwrap(), (textures, 7));
    assert!(k.wgsl().contains("binding_array<texture_2d<f32>>"));
    assert!(
        k.required_features()
            .contains(wgpu::Features::TEXTURE_BINDING_ARRAY)
    );
    let arrays = SourceOptions::named("tiles.comp").fitted_to(atomport::BINDING_ARRAY_FEATURES);
    let tiles = Kernel::from_glsl(TILES, &arrays).unwrap();
    let info = tiles.binding_named("tiles").unwrap();
    assert_eq!(info.array, Some(ArrayLength::Fixed(4)));
    match tiles.element_named("tiles[4]") {
        Err(Error::UnknownName(m)) => assert!(m.contains("has 4 elements"), "{m}"),
        other => panic!("{other:?}"),
    }
    let map = serde_json::to_value(tiles.binding_map()).unwrap();
    assert_eq!(map["bindings"][0]["array"]["fixed"], 4, "{map}");
}

/// Runs the bindless kernel on every backend present: against the CPU model
/// (and natively on Vulkan) where the adapter binds arrays, and failing
/// with the missing features named where it does not. With
/// `ATOMPORT_EXPECT_BINDING_ARRAYS=1` at least one adapter must run it.
#[test]
fn bindless_materials_match_a_cpu_model_where_the_adapter_binds_arrays() {
    let k = bindless_kernel();
    let mut rng = common::Rng(0x5eed_b1d1e55);
    let tex = textures(&mut rng);
    let materials: Vec<[u32; 2]> = (0..7)
        .map(|_| [rng.below(tex.len() as u32), rng.below(2)])
        .collect();
    let hits: Vec<[u32; 2]> = (0..200)
        .map(|_| [rng.below(materials.len() as u32), rng.below(97)])
        .collect();
    let (want_shaded, want_usage) = model(&tex, &materials, &hits);
    let mut ran = Vec::new();
    for ctx in
        common::contexts_with_available(k.required_features() | wgpu::Features::PASSTHROUGH_SHADERS)
    {
        let textures: Vec<Texture> = tex
            .iter()
            .map(|t| {
                let d = TextureDesc::new(TextureDim::D2, t.format, &[t.w, t.h], 1).unwrap();
                Texture::from_data(&ctx, d, &texel_bytes(t)).unwrap()
            })
            .collect();
        let nearest = Sampler::new(&ctx, SamplerDesc::default()).unwrap();
        let flat = |v: &[[u32; 2]]| v.iter().flatten().copied().collect::<Vec<u32>>();
        let materials_buf = Buffer::from_slice(&ctx, &flat(&materials)).unwrap();
        let hits_buf = Buffer::from_slice(&ctx, &flat(&hits)).unwrap();
        for native in [false, true] {
            if native && !ctx.has_native() {
                continue;
            }
            let shaded = Buffer::zeroed(&ctx, hits.len() as u64 * 16).unwrap();
            let usage = Buffer::zeroed(&ctx, tex.len() as u64 * 4).unwrap();
            let names: Vec<String> = (0..tex.len()).map(|i| format!("textures[{i}]")).collect();
            let mut binds: Vec<Bind> = names
                .iter()
                .zip(&textures)
                .map(|(n, t)| Bind::named(n, (t, &nearest)))
                .collect();
            binds.extend([
                Bind::named("Materials", &materials_buf),
                Bind::named("Hits", &hits_buf),
                Bind::named("Shaded", &shaded),
                Bind::named("Usage", &usage),
            ]);
            let groups = [hits.len().div_ceil(64) as u32, 1, 1];
            let result = if native {
                ctx.dispatch_and_read_native(&k, groups, &binds)
            } else {
                ctx.dispatch_and_read(&k, groups, &binds)
            };
            let backend = format!("{} (native: {native})", ctx.backend_name());
            if !ctx
                .device()
                .features()
                .contains(wgpu::Features::TEXTURE_BINDING_ARRAY)
            {
                match result {
                    Err(e @ Error::MissingFeature { .. }) => {
                        let m = e.to_string();
                        assert!(m.contains("TEXTURE_BINDING_ARRAY"), "{backend}: {m}");
                        println!("{backend}: refused as it should be: {m}");
                    }
                    other => panic!("{backend}: expected the missing feature, got {other:?}"),
                }
                break;
            }
            result.unwrap_or_else(|e| panic!("{backend}: {e}"));
            let got_shaded: Vec<f32> = shaded.read(&ctx).unwrap();
            let got_usage: Vec<u32> = usage.read(&ctx).unwrap();
            assert_eq!(got_usage, want_usage, "{backend}: hits per texture");
            assert_eq!(got_shaded.len(), want_shaded.len());
            for (i, (g, (w, exact))) in got_shaded.iter().zip(&want_shaded).enumerate() {
                let ulps = (g.to_bits() as i64 - w.to_bits() as i64).abs();
                assert!(
                    ulps == 0 || (!exact && ulps <= 1),
                    "{backend}: shaded[{}] {g} != {w}",
                    i / 4
                );
            }
            ran.push(backend);
        }
    }
    println!("binding arrays ran on: {}", ran.join(", "));
    if std::env::var_os("ATOMPORT_EXPECT_BINDING_ARRAYS").is_some_and(|v| v == "1") {
        assert!(!ran.is_empty(), "no adapter ran the binding arrays");
    }
}

/// The test above once more, on Mesa 25's lavapipe (which binds arrays),
/// where the DX12 kit installed it.
#[test]
fn bindless_materials_run_on_a_lavapipe_with_descriptor_indexing() {
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "bindless_materials_match_a_cpu_model_where_the_adapter_binds_arrays",
            "--nocapture",
        ])
        .env("VK_DRIVER_FILES", &icd)
        .env("ATOMPORT_EXPECT_BINDING_ARRAYS", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    println!("{out}");
    assert!(o.status.success(), "{out}{}", common::stderr(&o));
    assert!(
        out.contains("binding arrays ran on: vulkan (native: false), vulkan (native: true)"),
        "{out}"
    );
}

/// A fixed array indexed at run time is a switch by default and for
/// WebGPU, and a binding array where the options (or `translate
/// --binding-arrays`) say the adapter has them.
#[test]
fn fixed_arrays_are_switches_unless_the_adapter_binds_arrays() {
    let portable = Kernel::from_glsl(TILES, &SourceOptions::named("tiles.comp")).unwrap();
    assert!(
        !portable.wgsl().contains("binding_array"),
        "{}",
        portable.wgsl()
    );
    assert!(portable.wgsl().contains("switch"), "{}", portable.wgsl());
    assert!(
        !portable
            .required_features()
            .contains(wgpu::Features::TEXTURE_BINDING_ARRAY)
    );
    let fitted = SourceOptions::named("tiles.comp").fitted_to(atomport::BINDING_ARRAY_FEATURES);
    let arrays = Kernel::from_glsl(TILES, &fitted).unwrap();
    assert!(
        arrays.wgsl().contains("binding_array<texture_2d<u32>, 4>"),
        "{}",
        arrays.wgsl()
    );
    let mut web = fitted.clone();
    web.target = atomport::Platform::WebGpu;
    let web = Kernel::from_glsl(TILES, &web).unwrap();
    assert!(!web.wgsl().contains("binding_array"), "{}", web.wgsl());
    let tiles = common::temp_file("binding-arrays", "tiles.comp", TILES);
    let o = common::atomport(&["translate", &tiles, "--binding-arrays"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("binding_array<"));
}

#[test]
fn the_cli_binds_elements_by_name_and_whole_fixed_arrays_alike() {
    let tiles = common::temp_file("binding-arrays", "tiles.comp", TILES);
    // Where the adapter has no binding arrays the array is a switch over
    // one binding per tile: it runs on every backend, as natively.
    for b in common::backend_names() {
        let v = common::run_json(&[
            "run",
            &tiles,
            "--groups",
            "1",
            "--texture",
            "tiles=4x4:r32uint:iota",
            "--buffer",
            "Stats=u32:5",
            "--push",
            "tile=1",
            "--push",
            "bias=2",
            "--backend",
            b,
            "--json",
        ]);
        let stats = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "Stats")
            .unwrap();
        // CPU model: tile 1 holds 0..15, each plus the bias.
        let want = serde_json::json!([0, 17, 0, 0, (0..16).map(|t| t + 2).sum::<u32>()]);
        assert_eq!(stats["data"], want, "{b}");
    }
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    // Every tile alike but tile 2, given on its own; the pass reads tile 2.
    let base = [
        "run",
        &tiles,
        "--groups",
        "1",
        "--backend",
        "vulkan",
        "--texture",
        "tiles=4x4:r32uint:fill=1",
        "--texture",
        "tiles[2]=4x4:r32uint:iota",
        "--buffer",
        "Stats=u32:5",
        "--push",
        "bias=3",
    ];
    for tile in 0..4u32 {
        let push = format!("tile={tile}");
        let mut args = base.to_vec();
        args.extend(["--push", &push, "--json"]);
        let o = common::on_lavapipe_25(&icd, &args);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let bindings = v["bindings"].as_array().unwrap();
        let names: Vec<&str> = bindings.iter().filter_map(|b| b["name"].as_str()).collect();
        for k in 0..4 {
            assert!(names.contains(&format!("tiles[{k}]").as_str()), "{names:?}");
        }
        let stats = bindings.iter().find(|b| b["name"] == "Stats").unwrap();
        let words: Vec<u64> = stats["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        // CPU model: tile 2 holds 0..15, the others 1; each plus the bias.
        let texels: Vec<u64> = (0..16).map(|i| if tile == 2 { i } else { 1 } + 3).collect();
        let mut want = vec![0u64; 5];
        want[tile as usize] = *texels.iter().max().unwrap();
        want[4] = texels.iter().sum();
        assert_eq!(words, want, "tile {tile}");
    }
    // The original SPIR-V natively agrees.
    let mut args = base.to_vec();
    args[0] = "diff";
    args.retain(|a| *a != "--backend" && *a != "vulkan");
    args.extend(["--push", "tile=2", "--backends", "native,vulkan"]);
    let o = common::on_lavapipe_25(&icd, &args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vulkan against native: equal"));
}

#[test]
fn wrong_elements_are_refused_naming_them() {
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let tiles = common::temp_file("binding-arrays", "tiles.comp", TILES);
    let bindless = common::temp_file("binding-arrays", "bindless.comp", BINDLESS);
    let run = |file: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            file,
            "--groups",
            "1",
            "--backend",
            "vulkan",
            "--buffer",
            "Materials=u32:[0,0]",
            "--buffer",
            "Hits=u32:[0,0]",
            "--buffer",
            "Shaded=f32:4",
            "--buffer",
            "Usage=u32:4",
        ];
        if file.ends_with("tiles.comp") {
            args.truncate(6);
            args.extend([
                "--buffer",
                "Stats=u32:5",
                "--push",
                "tile=0",
                "--push",
                "bias=0",
            ]);
        }
        args.extend(extra);
        common::on_lavapipe_25(&icd, &args)
    };
    // Past a fixed length.
    let o = run(
        &tiles,
        &[
            "--texture",
            "tiles=4x4:r32uint",
            "--texture",
            "tiles[4]=4x4:r32uint",
        ],
    );
    common::assert_fails_in_one_line(&o, 2, "`tiles[4]`: the array `tiles` has 4 elements");
    // A gap in an unsized array.
    let o = run(
        &bindless,
        &[
            "--texture",
            "textures[0]=2x2",
            "--texture",
            "textures[2]=2x2",
            "--sampler",
            "textures[0]=nearest",
            "--sampler",
            "textures[2]=nearest",
        ],
    );
    common::assert_fails_in_one_line(&o, 2, "textures[1]");
    // An unsized array named whole.
    let o = run(
        &bindless,
        &["--texture", "textures=2x2", "--sampler", "textures=nearest"],
    );
    common::assert_fails_in_one_line(&o, 2, "`textures` is an array without a size");
    // An element of the wrong kind of texture.
    let o = run(
        &tiles,
        &[
            "--texture",
            "tiles=4x4:r32uint",
            "--texture",
            "tiles[3]=4x4:rgba8unorm",
        ],
    );
    common::assert_fails_in_one_line(&o, 2, "tiles[3]");
}

/// Shadow-cascade style writes: each texel goes to the cascade its
/// diagonal picks, with a height read from one of an unsized array of
/// read-only images; both arrays are storage images indexed per invocation.
const CASCADES: &str = "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D cascades[3];
layout(set = 0, binding = 1, r32f) uniform readonly image2D heights[];
void main() {
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint layer = uint(p.x + p.y) % 3u;
    float h = imageLoad(heights[nonuniformEXT(layer % 2u)], p).r;
    imageStore(cascades[nonuniformEXT(layer)], p, vec4(h, float(layer) / 4.0, 0.0, 1.0));
}
";

#[test]
fn storage_image_arrays_are_read_and_written_per_invocation() {
    let file = common::temp_file("binding-arrays", "cascades.comp", CASCADES);
    let k = Kernel::from_path(
        std::path::Path::new(&file),
        None,
        &SourceOptions::named("c.comp"),
    )
    .unwrap();
    assert!(
        k.required_features()
            .contains(wgpu::Features::STORAGE_RESOURCE_BINDING_ARRAY),
        "{:?}",
        k.required_features()
    );
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let heights = [0.5f64, 0.25];
    let args = [
        "run",
        &file,
        "--groups",
        "1",
        "--backend",
        "vulkan",
        "--image",
        "cascades=4x4",
        "--image",
        "heights[0]=4x4:fill=0.5",
        "--image",
        "heights[1]=4x4:fill=0.25",
        "--json",
    ];
    let o = common::on_lavapipe_25(&icd, &args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let unorm = |x: f64| (x * 255.0).round() / 255.0;
    for layer in 0..3u32 {
        let name = format!("cascades[{layer}]");
        let b = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no {name} in {v}"));
        let data: Vec<f64> = b["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        for y in 0..4u32 {
            for x in 0..4u32 {
                let want = if (x + y) % 3 == layer {
                    [
                        heights[(layer % 2) as usize],
                        f64::from(layer) / 4.0,
                        0.0,
                        1.0,
                    ]
                } else {
                    [0.0; 4]
                };
                let at = ((y * 4 + x) * 4) as usize;
                for c in 0..4 {
                    let got = data[at + c];
                    assert!(
                        (got - unorm(want[c])).abs() < 1e-6,
                        "{name} ({x},{y}).{c}: {got}"
                    );
                }
            }
        }
    }
    let mut diff = args.to_vec();
    diff[0] = "diff";
    diff.retain(|a| !matches!(*a, "--backend" | "vulkan" | "--json"));
    diff.extend(["--backends", "native,vulkan"]);
    let o = common::on_lavapipe_25(&icd, &diff);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vulkan against native: equal"));
}

/// Keys spread over an unsized array of buffer blocks, one bucket per
/// invocation's key (`buckets[nonuniformEXT(b)]`), as a GPU hash grid or a
/// bucketed sort writes them: a binding array of storage buffers.
const UNSIZED_BUCKETS: &str = "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Bucket { uint count; uint items[]; } buckets[];
layout(std430, set = 0, binding = 1) readonly buffer Keys { uint keys[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
    uint key = keys[gl_GlobalInvocationID.x];
    uint b = key % pc.n;
    uint slot = atomicAdd(buckets[nonuniformEXT(b)].count, 1u);
    if (slot < uint(buckets[nonuniformEXT(b)].items.length())) {
        buckets[nonuniformEXT(b)].items[slot] = key;
    }
}
";

#[test]
fn unsized_buffer_block_arrays_are_binding_arrays_of_buffers() {
    let k = common::glsl(UNSIZED_BUCKETS);
    assert!(k.wgsl().contains("binding_array<Bucket>"), "{}", k.wgsl());
    let features = k.required_features();
    assert!(
        features.contains(wgpu::Features::BUFFER_BINDING_ARRAY),
        "{features:?}"
    );
    let file = common::temp_file("binding-arrays", "buckets.comp", UNSIZED_BUCKETS);
    let mut args = vec![
        "--groups",
        "2",
        "--buffer",
        "Keys=u32:128:iota",
        "--push",
        "n=3",
    ];
    let specs: Vec<String> = (0..3).map(|b| format!("buckets[{b}]=u32:129")).collect();
    for s in &specs {
        args.extend(["--buffer", s.as_str()]);
    }
    // Without binding arrays: exit 1, the feature named.
    for b in common::backend_names() {
        let mut all = vec!["run", file.as_str(), "--backend", b];
        all.extend(&args);
        let o = common::atomport(&all);
        if !o.status.success() {
            common::assert_fails_in_one_line(&o, 1, "BUFFER_BINDING_ARRAY");
        }
    }
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let mut run = vec!["run", file.as_str(), "--backend", "vulkan", "--json"];
    run.extend(&args);
    let o = common::on_lavapipe_25(&icd, &run);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for b in 0..3u64 {
        let name = format!("buckets[{b}]");
        let words: Vec<u64> = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no {name}: {v}"))["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let mut want: Vec<u64> = (0..128).filter(|k| k % 3 == b).collect();
        let mut got = words[1..=want.len()].to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(words[0] as usize, want.len(), "{name}'s count");
        assert_eq!(got, want, "{name}'s keys, in any order");
    }
    // The buckets are append buffers: which key takes which slot depends
    // on the order the workgroups ran in, natively as translated.
    let mut diff = vec![
        "diff",
        file.as_str(),
        "--backends",
        "native,vulkan",
        "--compare",
        "0.0=multiset",
    ];
    diff.extend(&args);
    let o = common::on_lavapipe_25(&icd, &diff);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vulkan against native: equal"));
}

/// An ambient-occlusion pass in the style of bindless renderers: every
/// image lives in unsized arrays of formatless storage images (one of
/// float images read and written, one of uint images written), picked by
/// indices the frame's push constants give. Each texel counts the
/// neighbours nearer than itself (a depth hashed from what the depth image
/// holds) and writes the ratio and the counts.
const BINDLESS_AO: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_EXT_shader_image_load_formatted : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 2) uniform image2D Images[];
layout(set = 0, binding = 3) uniform writeonly uimage2D UImages[];
layout(push_constant) uniform Frame { uint depthIdx; uint aoIdx; uint countIdx; int radius; } frame;

float depthAt(ivec2 q) {
    uint u = uint(imageLoad(Images[nonuniformEXT(frame.depthIdx)], q).x);
    return float((u * 2654435761u) >> 24u);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(Images[nonuniformEXT(frame.depthIdx)]);
    if (any(greaterThanEqual(p, size))) {
        return;
    }
    float d = depthAt(p);
    uint nearer = 0u;
    uint taps = 0u;
    for (int dy = -frame.radius; dy <= frame.radius; ++dy) {
        for (int dx = -frame.radius; dx <= frame.radius; ++dx) {
            ivec2 q = clamp(p + ivec2(dx, dy), ivec2(0), size - 1);
            nearer += depthAt(q) < d ? 1u : 0u;
            taps += 1u;
        }
    }
    imageStore(Images[nonuniformEXT(frame.aoIdx)], p, vec4(1.0 - float(nearer) / float(taps)));
    imageStore(UImages[nonuniformEXT(frame.countIdx)], p, uvec4(nearer, taps, uint(d), 1u));
}
";

/// The CPU model of [`BINDLESS_AO`] over a `w`×`h` depth image whose texel
/// i holds i: per texel, (1 - nearer/taps, nearer, taps, depth).
fn bindless_ao_model(w: i32, h: i32, radius: i32) -> Vec<(f32, u32, u32, u32)> {
    let depth = |x: i32, y: i32| ((((y * w + x) as u32).wrapping_mul(2654435761)) >> 24) as f32;
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let d = depth(x, y);
            let (mut nearer, mut taps) = (0u32, 0u32);
            for dy in -radius..=radius {
                for dx in -radius..=radius {
                    let q = ((x + dx).clamp(0, w - 1), (y + dy).clamp(0, h - 1));
                    nearer += u32::from(depth(q.0, q.1) < d);
                    taps += 1;
                }
            }
            out.push((1.0 - nearer as f32 / taps as f32, nearer, taps, d as u32));
        }
    }
    out
}

/// `file` run with `args` on Mesa 25's lavapipe (its `run --json` report),
/// after checking that `diff` finds it equal to the original SPIR-V run
/// natively there.
fn run_equal_to_native(icd: &str, file: &str, args: &[&str]) -> serde_json::Value {
    let mut diff = vec!["diff", file, "--backends", "native,vulkan"];
    diff.extend(args);
    let o = common::on_lavapipe_25(icd, &diff);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vulkan against native: equal"));
    let mut run = vec!["run", file, "--backend", "vulkan", "--json"];
    run.extend(args);
    common::json_on_lavapipe_25(icd, &run)
}

/// The values `run --json` reported for the binding bound as `name`.
fn data_of(v: &serde_json::Value, name: &str) -> Vec<f64> {
    common::binding(v, name)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Checks [`BINDLESS_AO`]'s outputs (the occlusion image, the counts
/// image, an image it must leave untouched) against its CPU model.
fn assert_bindless_ao(
    ao: &[f64],
    counts: &[f64],
    untouched: &[f64],
    (w, h, radius): (i32, i32, i32),
) {
    let model = bindless_ao_model(w, h, radius);
    assert!(model.iter().any(|m| m.1 > 0) && model.iter().any(|m| m.1 == 0));
    for (i, m) in model.iter().enumerate() {
        assert!(
            (ao[i] - f64::from(m.0)).abs() < 1e-6,
            "ao texel {i}: {} vs {}",
            ao[i],
            m.0
        );
        let want = [m.1, m.2, m.3, 1].map(f64::from);
        assert_eq!(counts[4 * i..4 * i + 4], want, "counts texel {i}");
    }
    assert!(untouched.iter().all(|&x| x == 0.0));
}

/// Arrays of formatless storage images are binding arrays compiled for the
/// format their bound elements share (r32float and rgba8uint here), equal
/// to a CPU model and to the original SPIR-V run natively on Mesa 25's
/// lavapipe; elements of two formats in one array are refused before
/// submission, naming both.
#[test]
fn formatless_storage_image_arrays_take_the_format_bound() {
    let file = common::temp_file("binding-arrays", "bindless_ao.comp", BINDLESS_AO);
    let k = Kernel::from_path(
        std::path::Path::new(&file),
        None,
        &SourceOptions::named("bindless_ao.comp"),
    )
    .unwrap();
    for name in ["Images", "UImages"] {
        let b = k.binding_named(name).unwrap();
        assert_eq!(b.array, Some(ArrayLength::Unsized), "{name}");
        assert!(
            b.texture.as_ref().is_some_and(|t| t.format_from_host),
            "{name}: {b:?}"
        );
    }
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let (w, h, radius) = (16, 8, 1);
    let args = [
        "--groups",
        "2,1",
        "--texture",
        "Images[0]=16x8:r32float",
        "--texture",
        "Images[1]=16x8:r32float",
        "--texture",
        "Images[2]=16x8:r32float:iota",
        "--texture",
        "UImages[0]=16x8:rgba8uint",
        "--texture",
        "UImages[1]=16x8:rgba8uint",
        "--push",
        "depthIdx=2",
        "--push",
        "aoIdx=0",
        "--push",
        "countIdx=1",
        "--push",
        "radius=1",
    ];
    let v = run_equal_to_native(&icd, &file, &args);
    let mut run = vec!["run", file.as_str(), "--backend", "vulkan", "--json"];
    run.extend(&args);
    assert_bindless_ao(
        &data_of(&v, "Images[0]"),
        &data_of(&v, "UImages[1]"),
        &data_of(&v, "UImages[0]"),
        (w, h, radius),
    );
    // One array, two formats: refused before anything runs.
    let mut mixed = run.clone();
    let at = mixed
        .iter()
        .position(|a| *a == "UImages[1]=16x8:rgba8uint")
        .unwrap();
    mixed[at] = "UImages[1]=16x8:r32uint";
    let o = common::on_lavapipe_25(&icd, &mixed);
    // Exit 2, as for any input that does not fit its binding.
    common::assert_fails_in_one_line(
        &o,
        2,
        "`UImages[0]` is rgba8uint and `UImages[1]` is r32uint",
    );
}

/// [`BINDLESS_AO`] over a bindless "mega set": one descriptor array of
/// storage images at binding 2, seen through an array per type (declared
/// as such renderers declare them, without `writeonly`); element k is
/// either array's.
fn mega_set_ao() -> String {
    BINDLESS_AO.replace(
        "layout(set = 0, binding = 3) uniform writeonly uimage2D UImages[];",
        "layout(set = 0, binding = 2) uniform uimage2D UImages[];",
    )
}

/// Sampled textures of two types at one binding, each element fetched
/// through the array of its type.
const MEGA_SET_TEXTURES: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 16) in;
#define SAMPLED_IMAGES(type) layout(set = 0, binding = 3) uniform type sampled_##type[]
SAMPLED_IMAGES(texture2D);
SAMPLED_IMAGES(utexture2D);
layout(set = 0, binding = 0, std430) buffer Out { vec4 v[]; } outv;
layout(push_constant) uniform P { uint colorIdx; uint idIdx; } p;
void main() {
    ivec2 q = ivec2(gl_GlobalInvocationID.x % 4u, gl_GlobalInvocationID.x / 4u);
    vec4 c = texelFetch(sampled_texture2D[nonuniformEXT(p.colorIdx)], q, 0);
    uint id = texelFetch(sampled_utexture2D[nonuniformEXT(p.idIdx)], q, 0).x;
    outv.v[gl_GlobalInvocationID.x] = c * float(id);
}
";

/// Image arrays of two types declared at one binding are one descriptor
/// array: each element given goes to the array whose type fits it (the
/// uint texture given as `Images[3]` is `UImages[3]`), the other arrays
/// get a placeholder there, and the results equal a CPU model and the
/// original SPIR-V on Mesa 25's lavapipe, for storage images and for
/// sampled textures. An element given twice, or a gap, is refused in one
/// line naming it.
#[test]
fn image_arrays_at_one_binding_are_one_descriptor_array() {
    let ao = mega_set_ao();
    let k = Kernel::from_glsl(&ao, &SourceOptions::named("mega_set_ao.comp")).unwrap();
    let (images, uimages) = (
        k.binding_named("Images").unwrap(),
        k.binding_named("UImages").unwrap(),
    );
    assert_eq!(images.alias_of, None);
    assert_eq!(uimages.alias_of, Some(images.binding));
    assert_ne!(uimages.binding, images.binding);
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let file = common::temp_file("binding-arrays", "mega_set_ao.comp", &ao);
    let (w, h, radius) = (16, 8, 1);
    let args = [
        "--groups",
        "2,1",
        "--texture",
        "UImages[0]=16x8:rgba8uint",
        "--texture",
        "Images[1]=16x8:r32float:iota",
        "--texture",
        "Images[2]=16x8:r32float",
        "--texture",
        "Images[3]=16x8:rgba8uint",
        "--push",
        "depthIdx=1",
        "--push",
        "aoIdx=2",
        "--push",
        "countIdx=3",
        "--push",
        "radius=1",
    ];
    let v = run_equal_to_native(&icd, &file, &args);
    let mut run = vec!["run", file.as_str(), "--backend", "vulkan", "--json"];
    run.extend(&args);
    assert_bindless_ao(
        &data_of(&v, "Images[2]"),
        &data_of(&v, "Images[3]"),
        &data_of(&v, "UImages[0]"),
        (w, h, radius),
    );
    // Element 2 given to both arrays; element 1 given to neither.
    let mut twice = run.clone();
    twice.extend(["--texture", "UImages[2]=16x8:rgba8uint"]);
    common::assert_fails_in_one_line(
        &common::on_lavapipe_25(&icd, &twice),
        2,
        "`Images[2]` and `UImages[2]` are one element",
    );
    let mut gap = run.clone();
    let at = gap.iter().position(|a| a.starts_with("Images[1]")).unwrap();
    gap.drain(at - 1..=at);
    common::assert_fails_in_one_line(
        &common::on_lavapipe_25(&icd, &gap),
        2,
        "bind `Images[1]` or `UImages[1]`",
    );
    // Sampled textures: out[i] = texel i of the float texture times texel
    // i of the uint one, (i, 0, 0, 1) * i.
    let file = common::temp_file(
        "binding-arrays",
        "mega_set_textures.comp",
        MEGA_SET_TEXTURES,
    );
    let o = common::on_lavapipe_25(
        &icd,
        &[
            "run",
            file.as_str(),
            "--backend",
            "vulkan",
            "--json",
            "--groups",
            "1",
            "--buffer",
            "outv=f32:64",
            "--texture",
            "sampled_utexture2D[0]=4x4:r32uint:iota",
            "--texture",
            "sampled_texture2D[1]=4x4:r32float:iota",
            "--push",
            "colorIdx=1",
            "--push",
            "idIdx=0",
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let out: Vec<f64> = v["bindings"][0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let want: Vec<f64> = (0..16)
        .flat_map(|i| [f64::from(i * i), 0.0, 0.0, f64::from(i)])
        .collect();
    assert_eq!(out, want, "{v}");
}

/// A layer of a bitmask pyramid read through the bindless pair of a
/// texture array and a sampler array, each element picked by the push
/// constants: an integer texture sampled through an element of a sampler
/// binding array. An 8x8 grid of coordinates reaches two texels past each
/// edge of the 4x4 texture.
const BINDLESS_INTEGER_SAMPLING: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 3) uniform utexture2DArray t_utexture2DArray[];
layout(set = 0, binding = 4) uniform sampler s_samplers[];
layout(set = 0, binding = 0, std430) buffer Out { uint v[]; } outv;
layout(push_constant) uniform P { uint bitmaskIdx; uint samplerIdx; uint layer; } p;
#define BITMASK usampler2DArray(t_utexture2DArray[p.bitmaskIdx], s_samplers[p.samplerIdx])
void main() {
    uvec2 q = gl_GlobalInvocationID.xy;
    vec2 uv = (vec2(q) + 0.5) / 4.0 - 0.5;
    outv.v[q.y * 8u + q.x] = textureLod(nonuniformEXT(BITMASK), vec3(uv, float(p.layer)), 0.0).x;
}
";

/// Texel `i` of an axis of 4 wrapped as Vulkan's address modes wrap it:
/// clamp to edge, repeat, mirrored repeat.
fn wrap4(i: i32, mode: &str) -> i32 {
    match mode {
        "clamp" => i.clamp(0, 3),
        "repeat" => i.rem_euclid(4),
        _ => {
            let x = i.rem_euclid(8) - 4;
            3 - if x >= 0 { x } else { -(1 + x) }
        }
    }
}

/// An integer texture sampled through an element of a sampler binding
/// array is the texel fetch of a nearest sampler with that element's
/// address mode (the modes of all elements reach the shader packed in
/// overrides): equal to a CPU model and to the original SPIR-V for clamp,
/// repeat and mirrored repeat, on Mesa 25's lavapipe.
#[test]
fn integer_textures_sample_through_sampler_array_elements() {
    let k = Kernel::from_glsl(
        BINDLESS_INTEGER_SAMPLING,
        &SourceOptions::named("bitmask.comp"),
    )
    .unwrap();
    let samplers = k.binding_named("s_samplers").unwrap();
    assert_eq!(samplers.address_overrides.len(), 4, "{samplers:?}");
    assert_eq!(samplers.address_override, None);
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let file = common::temp_file("binding-arrays", "bitmask.comp", BINDLESS_INTEGER_SAMPLING);
    for (element, mode) in ["clamp", "repeat", "mirror"].iter().enumerate() {
        let push = format!("samplerIdx={element}");
        let args = [
            "--groups",
            "1",
            "--buffer",
            "outv=u32:64",
            "--texture",
            "t_utexture2DArray[0]=4x4x2:r32uint:iota",
            "--sampler",
            "s_samplers[0]=nearest,clamp",
            "--sampler",
            "s_samplers[1]=nearest,repeat",
            "--sampler",
            "s_samplers[2]=nearest,mirror",
            "--push",
            "bitmaskIdx=0",
            "--push",
            push.as_str(),
            "--push",
            "layer=1",
        ];
        let mut run = vec!["run", file.as_str(), "--backend", "vulkan", "--json"];
        run.extend(&args);
        let o = common::on_lavapipe_25(&icd, &run);
        assert!(o.status.success(), "{mode}: {}", common::stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let got: Vec<u64> = v["bindings"][0]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        // Layer 1 of texels numbered in texel order: 16 + 4y + x.
        let want: Vec<u64> = (0..64)
            .map(|q| 16 + 4 * wrap4(q / 8 - 2, mode) as u64 + wrap4(q % 8 - 2, mode) as u64)
            .collect();
        assert_eq!(got, want, "{mode}");
        let mut diff = vec!["diff", file.as_str(), "--backends", "native,vulkan"];
        diff.extend(&args);
        let o = common::on_lavapipe_25(&icd, &diff);
        assert!(o.status.success(), "{mode}: {}", common::stderr(&o));
    }
    // 65 samplers: past the 64 whose modes the overrides hold, refused
    // before anything runs.
    let samplers: Vec<String> = (0..65)
        .map(|k| format!("s_samplers[{k}]=nearest"))
        .collect();
    let mut many = vec![
        "run",
        file.as_str(),
        "--backend",
        "vulkan",
        "--groups",
        "1",
        "--buffer",
        "outv=u32:64",
        "--texture",
        "t_utexture2DArray[0]=4x4x2:r32uint",
        "--push",
        "bitmaskIdx=0",
        "--push",
        "samplerIdx=0",
        "--push",
        "layer=0",
    ];
    for s in &samplers {
        many.extend(["--sampler", s.as_str()]);
    }
    common::assert_fails_in_one_line(
        &common::on_lavapipe_25(&icd, &many),
        1,
        "the elements of `s_samplers`, a sampler array an integer texture is sampled through",
    );
}

/// A bindless header's buffer declarations, with the set named only here.
const MEGA_SET_HEADER: &str = "#extension GL_EXT_nonuniform_qualifier : require
#define STORAGE_BUFFERS(name) layout(set = 0, binding = 0, std430) buffer name
";

/// Histogram statistics through a bindless set of storage buffers: one
/// descriptor array at binding 0, read as histograms and written as
/// statistics, each picked by the push constants. The shader names no set
/// itself (its header does) and shares a binding between blocks of two
/// types, which OpenGL GLSL also would; its push constants make it Vulkan.
const MEGA_SET_BUFFERS: &str = "#version 460
#extension GL_GOOGLE_include_directive : require
#include \"mega_set.h\"
layout(local_size_x = 1) in;
STORAGE_BUFFERS(readonly Histograms) { uint bins[]; } histograms[];
STORAGE_BUFFERS(Stats) { float mean; float spread; uint total; } stats[];
layout(push_constant) uniform Args { uint histIdx; uint statsIdx; uint binCount; } args;
void main() {
    uint total = 0u;
    float weighted = 0.0;
    for (uint i = 0u; i < args.binCount; ++i) {
        uint n = histograms[nonuniformEXT(args.histIdx)].bins[i];
        total += n;
        weighted += float(i * n);
    }
    float mean = weighted / float(total);
    float spread = 0.0;
    for (uint i = 0u; i < args.binCount; ++i) {
        float d = float(i) - mean;
        spread += d * d * float(histograms[nonuniformEXT(args.histIdx)].bins[i]);
    }
    stats[nonuniformEXT(args.statsIdx)].mean = mean;
    stats[nonuniformEXT(args.statsIdx)].spread = spread / float(total);
    stats[nonuniformEXT(args.statsIdx)].total = total;
}
";

/// Arrays of buffer blocks of two types declared at one binding are one
/// array of buffers: each element given is bound to every array of the
/// class (the same buffer where it holds the other block, a zeroed one
/// where not), the shader is read as Vulkan GLSL though only its header
/// names the set, and the statistics equal a CPU model and the original
/// SPIR-V on Mesa 25's lavapipe.
#[test]
fn buffer_block_arrays_at_one_binding_are_one_array_of_buffers() {
    common::temp_file("binding-arrays", "mega_set.h", MEGA_SET_HEADER);
    let file = common::temp_file("binding-arrays", "mega_set_buffers.comp", MEGA_SET_BUFFERS);
    let k = Kernel::from_path(
        std::path::Path::new(&file),
        None,
        &SourceOptions::named("mega_set_buffers.comp"),
    )
    .unwrap();
    assert_eq!(k.dialect(), Some(atomport::Dialect::Vulkan));
    let (h, s) = (
        k.binding_named("histograms").unwrap(),
        k.binding_named("stats").unwrap(),
    );
    assert_eq!((h.alias_of, s.alias_of), (None, Some(h.binding)));
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let bins: Vec<u32> = (0..16u32).map(|i| (i * 7 + 3) % 11).collect();
    let list = bins
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let hist = format!("histograms[1]=u32:[{list}]");
    let args = [
        "--groups",
        "1",
        "--buffer",
        "stats[0]=f32:4",
        "--buffer",
        hist.as_str(),
        "--push",
        "histIdx=1",
        "--push",
        "statsIdx=0",
        "--push",
        "binCount=16",
    ];
    let out = data_of(&run_equal_to_native(&icd, &file, &args), "stats[0]");
    let total: u32 = bins.iter().sum();
    let mean = bins
        .iter()
        .enumerate()
        .map(|(i, &n)| i as f32 * n as f32)
        .sum::<f32>()
        / total as f32;
    let spread = bins
        .iter()
        .enumerate()
        .map(|(i, &n)| (i as f32 - mean) * (i as f32 - mean) * n as f32)
        .sum::<f32>()
        / total as f32;
    assert!((out[0] - f64::from(mean)).abs() < 1e-4, "mean {out:?}");
    assert!((out[1] - f64::from(spread)).abs() < 1e-3, "spread {out:?}");
    assert_eq!((out[2] as f32).to_bits(), total, "total {out:?}");
}

/// Page marking in the style of a virtual shadow map: requests name a page
/// table (an element of an unsized array of r32ui image arrays, picked per
/// request) and a texel, wrapped by the table's size, and set a bit there
/// with `imageAtomicOr`, keeping what it held.
const PAGE_MARKING: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 2, r32ui) uniform uimage2DArray pageTables[];
layout(set = 0, binding = 0, std430) readonly buffer Requests { uvec4 req[]; } requests;
layout(set = 0, binding = 1, std430) buffer Marks { uint before[]; } marks;
layout(push_constant) uniform P { uint count; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) {
        return;
    }
    uvec4 r = requests.req[i];
    ivec3 size = imageSize(pageTables[nonuniformEXT(r.w)]);
    ivec3 at = ivec3(r.xyz) % size;
    marks.before[i] = imageAtomicOr(pageTables[nonuniformEXT(r.w)], at, 1u << (i % 32u));
}
";

/// An unsized array of storage images used atomically is a binding array
/// of texel buffers, each element's sizes read from its buffer's header:
/// two page tables of different sizes, marked as a CPU model marks them
/// and as the original SPIR-V does natively on Mesa 25's lavapipe.
#[test]
fn image_atomics_reach_elements_of_unsized_image_arrays() {
    let k = Kernel::from_glsl(PAGE_MARKING, &SourceOptions::named("page_marking.comp")).unwrap();
    let tables = k.binding_named("pageTables").unwrap();
    assert_eq!(tables.array, Some(ArrayLength::Unsized));
    assert_eq!(tables.kind, atomport::BindingKind::Image);
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    // (width, height, layers) of each table; table 0 starts filled with 7.
    let sizes = [(4u32, 4u32, 2u32), (8, 4, 3)];
    let initial = [7u32, 0];
    let count = 40u32;
    let mut requests = Vec::new();
    let mut want_tables: Vec<Vec<u32>> = sizes
        .iter()
        .zip(initial)
        .map(|(&(w, h, l), v)| vec![v; (w * h * l) as usize])
        .collect();
    let mut want_marks = Vec::new();
    for i in 0..count {
        let (t, k) = ((i % 2) as usize, i / 2);
        let (w, h, l) = sizes[t];
        let (x, y, z) = (k % w, (k / w) % h, (k / (w * h)) % l);
        // Past the table's size: the shader wraps it back.
        requests.extend([x + w, y + h, z, t as u32]);
        let at = ((z * h + y) * w + x) as usize;
        want_marks.push(want_tables[t][at]);
        want_tables[t][at] |= 1 << (i % 32);
    }
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let requests = format!("requests=u32:[{}]", list(&requests));
    let file = common::temp_file("binding-arrays", "page_marking.comp", PAGE_MARKING);
    let push = format!("count={count}");
    let args = [
        "--groups",
        "1",
        "--buffer",
        requests.as_str(),
        "--buffer",
        "marks=u32:40",
        "--image",
        "pageTables[0]=4x4x2:fill=7",
        "--image",
        "pageTables[1]=8x4x3",
        "--push",
        push.as_str(),
    ];
    let v = run_equal_to_native(&icd, &file, &args);
    let as_u32 = |d: Vec<f64>| d.into_iter().map(|x| x as u32).collect::<Vec<_>>();
    assert_eq!(as_u32(data_of(&v, "marks")), want_marks);
    assert_eq!(as_u32(data_of(&v, "pageTables[0]")), want_tables[0]);
    assert_eq!(as_u32(data_of(&v, "pageTables[1]")), want_tables[1]);
}

/// A forward-shading pass in the bindless style: an unsized texture array
/// and a sized sampler array combined per material, and an unsized array
/// of light blocks, each indexed through `nonuniformEXT`.
const BINDLESS_SHADE: &str = "#version 460
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform texture2D gTextures[];
layout(set = 0, binding = 1) uniform sampler gSamplers[2];
layout(set = 0, binding = 2) readonly buffer MaterialTable { uvec2 materials[]; };
layout(set = 0, binding = 3) readonly buffer LightBlock { vec4 colors[]; } gLights[];
layout(set = 1, binding = 0) writeonly buffer Shaded { vec4 shaded[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uvec2 mat = materials[i % uint(materials.length())];
    vec2 uv = (vec2(i % 8u, (i / 8u) % 8u) + 0.5) / 8.0;
    vec4 albedo = textureLod(nonuniformEXT(sampler2D(gTextures[mat.x % 4u], gSamplers[mat.y % 2u])), uv, 0.0);
    shaded[i] = albedo * gLights[nonuniformEXT((mat.x + mat.y) % 4u)].colors[i % 4u];
}
";

/// `atomport check` makes a binding array's elements itself (four of an
/// unsized one, every one of a sized one), so a bindless shader is proven
/// against its original SPIR-V run natively with no input written: every
/// variant that writes is exact on Mesa 25's lavapipe.
#[test]
fn check_makes_the_elements_of_binding_arrays() {
    let file = common::temp_file("check-arrays", "shade.comp", BINDLESS_SHADE);
    let Some(icd) = common::lavapipe_25_or_skip() else {
        return;
    };
    let o = common::on_lavapipe_25(&icd, &["check", &file, "--backends", "vulkan", "--json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = report[0]["runs"].as_array().unwrap();
    for variant in ["well-formed", "one-group", "iota", "random"] {
        let run = runs
            .iter()
            .find(|r| r["variant"] == variant)
            .unwrap_or_else(|| panic!("no {variant} run: {report}"));
        assert_eq!(run["verdict"], "exact", "{run}");
        assert!(run["written"].as_u64().unwrap() > 0, "{run}");
    }
}
