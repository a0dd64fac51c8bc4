//! Arrays of resources indexed by constants: each element becomes a binding
//! of its own, named `NAME[k]`. A single-pass mip-chain downsampler writing
//! `image2D mips[12]` (unrolled, constant indices) with an atomic counter
//! electing the last workgroup; a binning kernel over arrays of textures,
//! separate samplers, atomic images (each its own texel buffer) and buffer
//! blocks. Each runs on every backend present against a CPU model and, on
//! Vulkan, beside its original SPIR-V run natively; the CLI binds elements
//! one by one and whole arrays alike; run-time indices are refused in one line.

mod common;

use atomport::{
    Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Sampler, SamplerDesc,
    SourceOptions, Texture, TextureDesc, TextureDim,
};

/// A max-reduction pyramid (the Hi-Z pattern) in one dispatch: each 8×8
/// workgroup reduces a 16×16 tile to mips 0..3 through shared memory; the
/// last workgroup to finish (an atomic counter) reduces the tiles' results
/// to the 2×2 and 1×1 mips, and copies the top into any further ones.
const DOWNSAMPLE: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 3, std140) uniform Downsample {
    uint mipCount;
    uint width;
} pc;

layout(set = 0, binding = 0, std430) readonly buffer Depth { float depth[]; };
layout(set = 0, binding = 1, r32f) uniform writeonly image2D mips[12];
layout(set = 0, binding = 2, std430) coherent buffer Sync { uint finished; uint tiles[]; };

shared float reduced[64];
shared bool isLast;

void storeMip(uint mip, ivec2 p, float v) {
    switch (mip) {
    case 0: imageStore(mips[0], p, vec4(v)); break;
    case 1: imageStore(mips[1], p, vec4(v)); break;
    case 2: imageStore(mips[2], p, vec4(v)); break;
    case 3: imageStore(mips[3], p, vec4(v)); break;
    case 4: imageStore(mips[4], p, vec4(v)); break;
    case 5: imageStore(mips[5], p, vec4(v)); break;
    case 6: imageStore(mips[6], p, vec4(v)); break;
    case 7: imageStore(mips[7], p, vec4(v)); break;
    case 8: imageStore(mips[8], p, vec4(v)); break;
    case 9: imageStore(mips[9], p, vec4(v)); break;
    case 10: imageStore(mips[10], p, vec4(v)); break;
    default: imageStore(mips[11], p, vec4(v)); break;
    }
}

float texel(uvec2 p) { return depth[p.y * pc.width + p.x]; }

// Halves the square of side 2n in `reduced` to side n, writing mip `mip`.
void halve(uint n, uint mip, uvec2 origin) {
    uvec2 l = gl_LocalInvocationID.xy;
    float v = 0.0;
    if (l.x < n && l.y < n) {
        uint i = 2u * l.y * 8u + 2u * l.x;
        v = max(max(reduced[i], reduced[i + 1u]), max(reduced[i + 8u], reduced[i + 9u]));
        storeMip(mip, ivec2(origin * n + l), v);
    }
    barrier();
    if (l.x < n && l.y < n) {
        reduced[l.y * 8u + l.x] = v;
    }
    barrier();
}

void main() {
    uvec2 l = gl_LocalInvocationID.xy;
    uvec2 g = gl_WorkGroupID.xy;
    uvec2 p = g * 16u + 2u * l;
    float v = max(max(texel(p), texel(p + uvec2(1, 0))), max(texel(p + uvec2(0, 1)), texel(p + uvec2(1, 1))));
    storeMip(0u, ivec2(g * 8u + l), v);
    reduced[l.y * 8u + l.x] = v;
    barrier();
    halve(4u, 1u, g);
    halve(2u, 2u, g);
    halve(1u, 3u, g);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    if (l == uvec2(0)) {
        atomicExchange(tiles[g.y * gl_NumWorkGroups.x + g.x], floatBitsToUint(reduced[0]));
        isLast = atomicAdd(finished, 1u) == groups - 1u;
    }
    barrier();
    if (!isLast) {
        return;
    }
    // The last workgroup: the 4x4 tile results to mips 4 and 5.
    if (l.x < 4u && l.y < 4u) {
        reduced[2u * l.y * 8u + 2u * l.x] = uintBitsToFloat(atomicOr(tiles[l.y * 4u + l.x], 0u));
    }
    barrier();
    if (l.x < 2u && l.y < 2u) {
        uint i = 4u * l.y * 8u + 4u * l.x;
        float m = max(max(reduced[i], reduced[i + 2u]), max(reduced[i + 16u], reduced[i + 18u]));
        storeMip(4u, ivec2(l), m);
        reduced[i + 1u] = m;
    }
    barrier();
    if (l == uvec2(0)) {
        float top = max(max(reduced[1], reduced[5]), max(reduced[33], reduced[37]));
        for (uint mip = 5u; mip < pc.mipCount; ++mip) {
            storeMip(mip, ivec2(0), top);
        }
    }
}
";

const SIDE: u32 = 64;
const MIPS: u32 = 12;

/// Depth values, distinct enough that every max is one of them.
fn depth() -> Vec<f32> {
    let mut rng = common::Rng(0x5bd1);
    (0..SIDE * SIDE)
        .map(|_| (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32)
        .collect()
}

/// Side of mip `k` (mips past the 1×1 stay 1×1).
fn side(k: u32) -> u32 {
    (SIDE >> (k + 1)).max(1)
}

/// The pyramid: mip k is the max of each 2×2 of the level below.
fn pyramid(depth: &[f32]) -> Vec<Vec<f32>> {
    let mut levels = Vec::new();
    let mut below = depth.to_vec();
    let mut n = SIDE;
    for _ in 0..MIPS {
        let h = (n / 2).max(1);
        let mut next = vec![0.0f32; (h * h) as usize];
        if n == 1 {
            next[0] = below[0];
        } else {
            for y in 0..h {
                for x in 0..h {
                    let at = |dx: u32, dy: u32| below[((2 * y + dy) * n + 2 * x + dx) as usize];
                    next[(y * h + x) as usize] = at(0, 0).max(at(1, 0)).max(at(0, 1)).max(at(1, 1));
                }
            }
        }
        levels.push(next.clone());
        below = next;
        n = h;
    }
    levels
}

#[test]
fn a_single_pass_downsampler_writes_twelve_mips_through_an_array() {
    let k = Kernel::from_glsl(DOWNSAMPLE, &SourceOptions::named("downsample.comp")).unwrap();
    let names: Vec<String> = (0..MIPS).map(|m| format!("mips[{m}]")).collect();
    for n in &names {
        let b = k.binding_named(n).unwrap();
        assert_eq!(b.kind, atomport::BindingKind::StorageTexture, "{n}");
    }
    let data = depth();
    let want = pyramid(&data);
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let mut results = Vec::new();
        for native in [false, true] {
            if native && ctx.info().backend != wgpu::Backend::Vulkan {
                continue;
            }
            let src = Buffer::from_slice(&ctx, &data).unwrap();
            let sync = Buffer::zeroed(&ctx, 4 * 17).unwrap();
            let pc_buf = Buffer::from_slice(&ctx, &[MIPS, SIDE, 0, 0]).unwrap();
            let mips: Vec<Texture> = (0..MIPS)
                .map(|m| {
                    let d = TextureDesc::new(
                        TextureDim::D2,
                        wgpu::TextureFormat::R32Float,
                        &[side(m), side(m)],
                        1,
                    )
                    .unwrap();
                    Texture::zeroed(&ctx, d).unwrap()
                })
                .collect();
            let mut binds = vec![
                Bind::named("Depth", &src),
                Bind::named("Sync", &sync),
                Bind::named("pc", &pc_buf),
            ];
            binds.extend(names.iter().zip(&mips).map(|(n, t)| Bind::named(n, t)));
            let read = if native {
                ctx.dispatch_and_read_native(&k, [4, 4, 1], &binds)
            } else {
                ctx.dispatch_and_read(&k, [4, 4, 1], &binds)
            }
            .unwrap_or_else(|e| panic!("{} (native: {native}): {e}", ctx.backend_name()));
            let got: Vec<Vec<f32>> = read[3..]
                .iter()
                .map(|b| bytemuck::pod_collect_to_vec(b))
                .collect();
            for (m, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{} (native: {native}): mip {m}", ctx.backend_name());
            }
            results.push(got);
        }
    }
}

/// Binning over arrays of every kind of resource, each element chosen by a
/// constant: two textures read through two separate samplers, three
/// atomic images, two buffer blocks.
const BINNING: &str = "#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform texture2D layers[2];
layout(set = 0, binding = 1) uniform sampler samplers[2];
layout(set = 0, binding = 2, r32ui) uniform uimage2D bins[3];
layout(set = 0, binding = 3, std430) buffer Out { uint values[]; } outs[2];

void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec2 p = ivec2(i % 8u, i / 8u);
    uint a = uint(round(texelFetch(sampler2D(layers[0], samplers[0]), p, 0).r * 255.0));
    uint b = uint(round(textureLod(sampler2D(layers[1], samplers[1]), (vec2(p) + 0.5) / 8.0, 0.0).r * 255.0));
    uint bin = a % 4u;
    imageAtomicAdd(bins[0], ivec2(bin, 0), 1u);
    imageAtomicMax(bins[1], ivec2(bin, 0), b);
    imageAtomicOr(bins[2], ivec2(i % 4u, 0), 1u << (i / 4u));
    outs[0].values[i] = bin;
    outs[1].values[i] = a + b;
}
";

/// The texels of layer `k`: one byte per texel in the red channel.
fn layer(k: u32) -> Vec<u8> {
    (0..64u32)
        .flat_map(|i| [((i * 37 + k * 101) % 256) as u8, 0, 0, 255])
        .collect()
}

#[test]
fn arrays_of_textures_samplers_atomic_images_and_buffers_split_per_element() {
    let k = Kernel::from_glsl(BINNING, &SourceOptions::named("binning.comp")).unwrap();
    // texelFetch uses no sampler: samplers[0] is not bound.
    assert!(k.binding_named("samplers[0]").is_err());
    assert!(k.binding_named("samplers[1]").is_ok());
    for n in ["bins[0]", "bins[1]", "bins[2]"] {
        assert_eq!(
            k.binding_named(n).unwrap().kind,
            atomport::BindingKind::Image,
            "{n}: an atomic image is a texel buffer"
        );
    }
    let red = |k: u32| {
        layer(k)
            .chunks(4)
            .map(|t| u32::from(t[0]))
            .collect::<Vec<u32>>()
    };
    let (a, b) = (red(0), red(1));
    let mut want_bins = [vec![0u32; 4], vec![0u32; 4], vec![0u32; 4]];
    for i in 0..64 {
        let bin = (a[i] % 4) as usize;
        want_bins[0][bin] += 1;
        want_bins[1][bin] = want_bins[1][bin].max(b[i]);
        want_bins[2][i % 4] |= 1 << (i / 4);
    }
    let want_out: [Vec<u32>; 2] = [
        a.iter().map(|x| x % 4).collect(),
        a.iter().zip(&b).map(|(x, y)| x + y).collect(),
    ];
    for ctx in
        common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS | k.required_features())
    {
        for native in [false, true] {
            if native && !ctx.has_native() {
                continue;
            }
            let textures: Vec<Texture> = (0..2)
                .map(|l| {
                    let d = TextureDesc::new(
                        TextureDim::D2,
                        wgpu::TextureFormat::Rgba8Unorm,
                        &[8, 8],
                        1,
                    )
                    .unwrap();
                    Texture::from_data(&ctx, d, &layer(l)).unwrap()
                })
                .collect();
            let samplers: Vec<Sampler> = (0..2)
                .map(|_| Sampler::new(&ctx, SamplerDesc::default()).unwrap())
                .collect();
            let bins: Vec<Image> = (0..3)
                .map(|_| {
                    Image::zeroed(
                        &ctx,
                        ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[4, 1], 1).unwrap(),
                    )
                    .unwrap()
                })
                .collect();
            let outs: Vec<Buffer> = (0..2).map(|_| Buffer::zeroed(&ctx, 256).unwrap()).collect();
            let names = [
                "layers[0]",
                "layers[1]",
                "samplers[0]",
                "samplers[1]",
                "bins[0]",
                "bins[1]",
                "bins[2]",
                "outs[0]",
                "outs[1]",
            ];
            let binds = vec![
                Bind::named(names[0], &textures[0]),
                Bind::named(names[1], &textures[1]),
                Bind::named(names[3], &samplers[1]),
                Bind::named(names[4], &bins[0]),
                Bind::named(names[5], &bins[1]),
                Bind::named(names[6], &bins[2]),
                Bind::named(names[7], &outs[0]),
                Bind::named(names[8], &outs[1]),
            ];
            let out = if native {
                ctx.run_native(&k, [1, 1, 1], &binds)
            } else {
                ctx.run(&k, [1, 1, 1], &binds)
            }
            .unwrap_or_else(|e| panic!("{} (native: {native}): {e}", ctx.backend_name()));
            let words = |n: &str| -> Vec<u32> {
                let b = out
                    .bindings
                    .iter()
                    .find(|b| b.name.as_deref() == Some(n))
                    .unwrap();
                bytemuck::pod_collect_to_vec(&b.bytes)
            };
            for (j, w) in want_bins.iter().enumerate() {
                assert_eq!(
                    &words(&format!("bins[{j}]")),
                    w,
                    "{} (native: {native}): bins[{j}]",
                    ctx.backend_name()
                );
            }
            for (j, w) in want_out.iter().enumerate() {
                assert_eq!(
                    &words(&format!("outs[{j}]")),
                    w,
                    "{} (native: {native}): outs[{j}]",
                    ctx.backend_name()
                );
            }
        }
    }
}

#[test]
fn the_cli_binds_elements_and_whole_arrays_and_refuses_run_time_indices() {
    let path = common::temp_file("arrays", "binning.comp", BINNING);
    for b in common::backend_names() {
        // Every element alike, one element on its own.
        let v = common::run_json(&[
            "run",
            &path,
            "--groups",
            "1",
            "--texture",
            "layers=8x8:iota",
            "--texture",
            "layers[1]=8x8:fill=0.5",
            "--image",
            "bins=4x1",
            "--sampler",
            "samplers=nearest",
            "--buffer",
            "outs=u32:64",
            "--backend",
            b,
            "--json",
        ]);
        let names: Vec<&str> = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["name"].as_str())
            .collect();
        for n in ["bins[0]", "bins[1]", "bins[2]", "outs[0]", "outs[1]"] {
            assert!(names.contains(&n), "{b}: {n} in {names:?}");
        }
        let out1 = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "outs[1]")
            .unwrap();
        // layers[1] is 0.5 everywhere: b = round(127.5) = 128.
        let a_plus_b = out1["data"].as_array().unwrap();
        assert_eq!(a_plus_b.len(), 64);
        assert!(
            a_plus_b.iter().all(|x| x.as_u64().unwrap() >= 128),
            "{b}: {a_plus_b:?}"
        );
        // An element the array lacks is a usage error listing the names.
        let o = common::atomport(&[
            "run",
            &path,
            "--groups",
            "1",
            "--image",
            "bins[3]=4x1",
            "--backend",
            b,
        ]);
        common::assert_fails(&o, 2, "bins[2]");
    }
    // Atomic image arrays indexed at run time are a switch over up to 16
    // elements; longer ones are refused, naming the array.
    let dynamic = |n: u32| {
        common::temp_file(
            "arrays",
            &format!("dynamic{n}.comp"),
            &format!(
                "#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D bins[{n}];
layout(set = 0, binding = 1) buffer Sel {{ uint which; }};
void main() {{ imageAtomicAdd(bins[which], ivec2(gl_LocalInvocationID.x, 0), 1u); }}
"
            ),
        )
    };
    let o = common::atomport(&["translate", &dynamic(3)]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("switch"));
    let o = common::atomport(&["translate", &dynamic(24)]);
    common::assert_fails(
        &o,
        1,
        "the image array `bins` is indexed by a value known only at run time",
    );
}

#[test]
fn arrays_that_cannot_be_split_are_refused_naming_them() {
    let bindless = common::temp_file(
        "arrays",
        "unsized.comp",
        "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counters[];
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = imageAtomicAdd(counters[nonuniformEXT(i)], ivec2(0), 1u);
}
",
    );
    // Unsized and used atomically: a binding array of texel buffers now
    // (run in tests/binding_arrays.rs).
    let o = common::atomport(&["translate", &bindless]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let whole = common::temp_file(
        "arrays",
        "whole.comp",
        "#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform texture2D layers[2];
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
vec4 second(texture2D t[2]) { return texelFetch(t[1], ivec2(0), 0); }
void main() { o[0] = second(layers); }
",
    );
    let o = common::atomport(&["translate", &whole]);
    common::assert_fails(
        &o,
        1,
        "the texture array `layers` is used whole (OpFunctionCall)",
    );
}
