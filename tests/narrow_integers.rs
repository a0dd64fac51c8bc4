//! 8- and 16-bit integers, computed in 32 bits with GLSL's wrap-around and
//! read and written in memory addressed as words: a byte histogram, a
//! meshlet cull over uint16 indices and uint8 vertex counts, 64 invocations
//! each storing one byte of the same 16 words, a struct of narrow members
//! copied whole, and int8/int16 overflow and sign extension. Each runs on
//! every backend present against a CPU model and, on Vulkan, beside its
//! original SPIR-V run natively (lavapipe has 8- and 16-bit integers).

mod common;

use atomport::{Kernel, SourceOptions};

fn kernel(name: &str, src: &str) -> Kernel {
    Kernel::from_glsl(src, &SourceOptions::named(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `k` translated on every backend and natively where it can, giving
/// `check` the bytes of every binding after each run.
fn on_every_backend(
    k: &Kernel,
    groups: [u32; 3],
    inputs: &[(&str, Vec<u8>)],
    check: impl Fn(&str, &[Vec<u8>]),
) {
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(&ctx, k, groups, inputs) {
            check(&backend, &out);
        }
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const ARITHMETIC: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Results { int r[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    int8_t a = int8_t(int(i) * 7 - 200);
    uint8_t b = uint8_t(i * 37u);
    int16_t c = int16_t(int(i) * 1500);
    uint16_t d = uint16_t(i * 3000u);
    int8_t s = a + int8_t(100);
    uint8_t t = b * uint8_t(3);
    int16_t u = c >> 3;
    uint16_t v = d >> uint16_t(2);
    i8vec2 w = i8vec2(a, s) * int8_t(-3);
    u8vec4 lanes = unpack8(i * 0x01020304u + 0xF0u);
    uint base = i * 12u;
    r[base + 0u] = int(a);
    r[base + 1u] = int(b);
    r[base + 2u] = int(c);
    r[base + 3u] = int(d);
    r[base + 4u] = int(s);
    r[base + 5u] = int(t);
    r[base + 6u] = int(u);
    r[base + 7u] = int(v);
    r[base + 8u] = int(w.x) + 1000 * int(w.y);
    r[base + 9u] = int(lanes.x) + 256 * int(lanes.w);
    r[base + 10u] = int(pack32(u8vec4(b, t, uint8_t(a), uint8_t(s))));
    r[base + 11u] = (a < s ? 1 : 0) + (b < t ? 2 : 0) + int(int8_t(-a) / int8_t(3)) * 4;
}
";

fn arithmetic_model(i: u32) -> [i32; 12] {
    let a = (i as i32 * 7 - 200) as i8;
    let b = (i * 37) as u8;
    let c = (i as i32 * 1500) as i16;
    let d = (i * 3000) as u16;
    let s = a.wrapping_add(100);
    let t = b.wrapping_mul(3);
    let u = c >> 3;
    let v = d >> 2;
    let w = (a.wrapping_mul(-3), s.wrapping_mul(-3));
    let lanes = (i.wrapping_mul(0x0102_0304).wrapping_add(0xF0)).to_le_bytes();
    let packed = u32::from_le_bytes([b, t, a as u8, s as u8]);
    [
        a.into(),
        b.into(),
        c.into(),
        d.into(),
        s.into(),
        t.into(),
        u.into(),
        v.into(),
        i32::from(w.0) + 1000 * i32::from(w.1),
        i32::from(lanes[0]) + 256 * i32::from(lanes[3]),
        packed as i32,
        i32::from(a < s) + 2 * i32::from(b < t) + i32::from(a.wrapping_neg() / 3) * 4,
    ]
}

#[test]
fn int8_and_int16_wrap_and_extend_as_glsl_says() {
    let k = kernel("arithmetic.comp", ARITHMETIC);
    let want: Vec<i32> = (0..64).flat_map(arithmetic_model).collect();
    on_every_backend(
        &k,
        [1, 1, 1],
        &[("Results", vec![0; 64 * 48])],
        |backend, out| {
            let got: Vec<i32> = words(&out[0]).into_iter().map(|w| w as i32).collect();
            for (n, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{backend}: invocation {} result {}", n / 12, n % 12);
            }
        },
    );
}

const HISTOGRAM: &str = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Image { uint8_t pixels[]; };
layout(std430, binding = 1) buffer Histogram { uint bins[256]; uint groups; };
shared uint localBins[256];
void main() {
    uint l = gl_LocalInvocationID.x;
    for (uint b = l; b < 256u; b += 64u) {
        localBins[b] = 0u;
    }
    barrier();
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(pixels.length())) {
        atomicAdd(localBins[uint(pixels[i])], 1u);
    }
    barrier();
    for (uint b = l; b < 256u; b += 64u) {
        if (localBins[b] != 0u) {
            atomicAdd(bins[b], localBins[b]);
        }
    }
    if (l == 0u) {
        atomicAdd(groups, 1u);
    }
}
";

#[test]
fn a_histogram_of_a_byte_image() {
    let k = kernel("histogram.comp", HISTOGRAM);
    let mut rng = common::Rng(0x8b17);
    // Skewed toward dark values, as photographs are.
    let pixels: Vec<u8> = (0..3000)
        .map(|_| (rng.below(256) * rng.below(256) / 255) as u8)
        .collect();
    let mut want = vec![0u32; 257];
    for &p in &pixels {
        want[p as usize] += 1;
    }
    let groups = pixels.len().div_ceil(64) as u32;
    want[256] = groups;
    on_every_backend(
        &k,
        [groups, 1, 1],
        &[("Image", pixels.clone()), ("Histogram", vec![0; 257 * 4])],
        |backend, out| assert_eq!(words(&out[1]), want, "{backend}"),
    );
}

const MESHLETS: &str = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer Indices { uint16_t indices[]; };
layout(std430, binding = 1) readonly buffer Counts { uint8_t vertexCounts[]; };
layout(std430, binding = 2) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 3) buffer Visible { uint count; uint ids[]; };
layout(std140, binding = 4) uniform Frustum { vec4 planeX; uint meshletCount; };
const uint MAX_VERTICES = 8u;
void main() {
    uint m = gl_GlobalInvocationID.x;
    if (m >= meshletCount) {
        return;
    }
    uint n = uint(vertexCounts[m]);
    bool inside = false;
    for (uint k = 0u; k < n; ++k) {
        vec4 p = positions[uint(indices[m * MAX_VERTICES + k])];
        inside = inside || (p.x >= planeX.x && p.x <= planeX.y);
    }
    if (inside) {
        ids[atomicAdd(count, 1u)] = m;
    }
}
";

#[test]
fn a_meshlet_cull_reads_uint16_indices_and_uint8_counts() {
    let k = kernel("meshlets.comp", MESHLETS);
    let mut rng = common::Rng(0x3e5f);
    let meshlets = 100u32;
    let vertices = 500u32;
    let positions: Vec<f32> = (0..vertices)
        .flat_map(|_| [rng.below(1000) as f32 / 10.0, 0.0, 0.0, 1.0])
        .collect();
    let indices: Vec<u16> = (0..meshlets * 8)
        .map(|_| rng.below(vertices) as u16)
        .collect();
    let counts: Vec<u8> = (0..meshlets).map(|_| rng.below(9) as u8).collect();
    let (lo, hi) = (20.0f32, 30.0f32);
    let mut want: Vec<u32> = (0..meshlets)
        .filter(|&m| {
            (0..u32::from(counts[m as usize])).any(|k| {
                let x = positions[indices[(m * 8 + k) as usize] as usize * 4];
                x >= lo && x <= hi
            })
        })
        .collect();
    want.sort_unstable();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut frustum = bytes(&[lo, hi, 0.0, 0.0]);
    frustum.extend(meshlets.to_le_bytes());
    frustum.resize(32, 0);
    on_every_backend(
        &k,
        [meshlets.div_ceil(32), 1, 1],
        &[
            (
                "Indices",
                indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
            ),
            ("Counts", counts.clone()),
            ("Positions", bytes(&positions)),
            ("Visible", vec![0; 4 + meshlets as usize * 4]),
            ("Frustum", frustum.clone()),
        ],
        |backend, out| {
            let v = words(&out[3]);
            let mut got = v[1..1 + v[0] as usize].to_vec();
            got.sort_unstable();
            assert_eq!(got, want, "{backend}");
        },
    );
}

const BYTES: &str = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
struct Meshlet {
    uint16_t vertexOffset;
    uint8_t vertexCount;
    uint8_t triangleCount;
    uint dataOffset;
};
layout(std430, binding = 0) buffer Packed {
    uint8_t bytes[64];
    int16_t halves[32];
    Meshlet meshlets[4];
};
layout(std430, binding = 1) buffer Sums { int sums[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    bytes[i] = uint8_t(i * 5u + 1u);
    if (i < 32u) {
        halves[i] = int16_t(int(i) * -1000);
    }
    if (i < 4u) {
        Meshlet m = meshlets[i];
        m.vertexCount += uint8_t(200);
        m.vertexOffset = m.vertexOffset * uint16_t(3);
        meshlets[i] = m;
        sums[i] = int(m.triangleCount) + int(m.dataOffset);
    }
}
";

#[test]
fn every_byte_stored_at_once_survives_and_structs_copy_whole() {
    let k = kernel("bytes.comp", BYTES);
    // Meshlets: (vertexOffset, vertexCount, triangleCount, dataOffset).
    let meshlets = [
        (1000u16, 7u8, 3u8, 10u32),
        (65535, 255, 0, 20),
        (22000, 56, 12, 30),
        (0, 0, 255, 40),
    ];
    let mut input = vec![0xAAu8; 64 + 64];
    for (vo, vc, tc, d) in meshlets {
        input.extend(vo.to_le_bytes());
        input.push(vc);
        input.push(tc);
        input.extend(d.to_le_bytes());
    }
    let mut want = Vec::new();
    want.extend((0..64u32).map(|i| (i * 5 + 1) as u8));
    want.extend((0..32i32).flat_map(|i| ((i * -1000) as i16).to_le_bytes()));
    let mut sums = Vec::new();
    for (vo, vc, tc, d) in meshlets {
        want.extend(vo.wrapping_mul(3).to_le_bytes());
        want.push(vc.wrapping_add(200));
        want.push(tc);
        want.extend(d.to_le_bytes());
        sums.push(i32::from(tc) + d as i32);
    }
    on_every_backend(
        &k,
        [1, 1, 1],
        &[("Packed", input.clone()), ("Sums", vec![0; 16])],
        |backend, out| {
            assert_eq!(out[0], want, "{backend}: the packed bytes");
            let got: Vec<i32> = words(&out[1]).into_iter().map(|w| w as i32).collect();
            assert_eq!(got, sums, "{backend}");
        },
    );
}

#[test]
fn what_still_cannot_be_addressed_as_words_is_refused_naming_it() {
    let src = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
#extension GL_EXT_shader_atomic_int64 : require
layout(std430, binding = 0) buffer B { uint8_t b[4]; uint64_t big; };
void main() { atomicAdd(big, uint64_t(b[0])); }
";
    let e = Kernel::from_glsl(src, &SourceOptions::named("wide.comp")).unwrap_err();
    assert!(e.to_string().contains("not 32 bits wide"), "{e}");
}

const PARAMETERS: &str = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(std140, binding = 0) uniform Params {
    uint16_t scale;
    uint8_t shift;
    uint8_t unused;
    u16vec2 range;
    int8_t bias[4];
};
layout(std430, binding = 1) buffer Out { uint o[]; };
shared uint16_t tile[16];
void main() {
    uint i = gl_LocalInvocationID.x;
    tile[i] = uint16_t(i) * scale;
    barrier();
    uint16_t x = tile[15u - i];
    o[i] = uint(x >> shift) + uint(range.y) * 65536u + uint(int(bias[i % 4u]) + 128);
}
";

#[test]
fn uniform_blocks_and_shared_memory_hold_narrow_values_at_their_layout() {
    let k = kernel("parameters.comp", PARAMETERS);
    let (scale, shift, range, bias) = (291u16, 3u8, [5u16, 9u16], [-1i8, -128, 127, 5]);
    // std140: scale at 0, shift at 2, range at 4, bias[k] at 16 + 16k.
    let mut params = vec![0u8; 80];
    params[0..2].copy_from_slice(&scale.to_le_bytes());
    params[2] = shift;
    params[4..6].copy_from_slice(&range[0].to_le_bytes());
    params[6..8].copy_from_slice(&range[1].to_le_bytes());
    for (k, b) in bias.iter().enumerate() {
        params[16 + 16 * k] = *b as u8;
    }
    let want: Vec<u32> = (0..16u32)
        .map(|i| {
            let x = ((15 - i) as u16).wrapping_mul(scale);
            u32::from(x >> shift)
                + u32::from(range[1]) * 65536
                + (i32::from(bias[i as usize % 4]) + 128) as u32
        })
        .collect();
    on_every_backend(
        &k,
        [1, 1, 1],
        &[("Params", params.clone()), ("Out", vec![0; 64])],
        |backend, out| assert_eq!(words(&out[1]), want, "{backend}"),
    );
}

#[test]
fn the_cli_writes_and_prints_every_width() {
    let file = common::temp_file("narrow", "histogram.comp", HISTOGRAM);
    let v = common::run_json(&[
        "run",
        &file,
        "--groups",
        "1",
        "--buffer",
        "Image=u8:[1,2,3,255,1,7,7,7]",
        "--buffer",
        "Histogram=u32:257",
        "--json",
    ]);
    let binding = |name: &str| {
        v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap()
            .clone()
    };
    let image = binding("Image");
    assert_eq!(image["type"], "u8");
    assert_eq!(image["data"], serde_json::json!([1, 2, 3, 255, 1, 7, 7, 7]));
    let bins = binding("Histogram")["data"].clone();
    assert_eq!(
        (bins[1].clone(), bins[7].clone(), bins[255].clone()),
        (2.into(), 3.into(), 1.into())
    );
    // A buffer given as a file shows in the type its block declares.
    let bytes = common::temp_file("narrow", "pixels.bin", "\u{1}\u{2}\u{2}\u{3}");
    let v = common::run_json(&[
        "run",
        &file,
        "--groups",
        "1",
        "--buffer",
        &format!("Image=@{bytes}"),
        "--buffer",
        "Histogram=u32:257",
        "--json",
    ]);
    let image = v["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Image")
        .unwrap()
        .clone();
    assert_eq!(image["type"], "u8");
    assert_eq!(image["data"], serde_json::json!([1, 2, 2, 3]));
    // Values out of a width's range are usage errors naming the flag.
    for spec in ["Image=u8:[256]", "Image=i16:[40000]", "Image=f16:[1e6]"] {
        let o = common::atomport(&["run", &file, "--groups", "1", "--buffer", spec]);
        common::assert_fails(&o, 2, "--buffer");
    }
}

#[test]
fn sixty_four_bit_values_beside_bytes_are_two_words() {
    let src = "#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Mixed { uint8_t tag[4]; uint64_t total; int64_t delta; };
void main() {
    total += uint64_t(tag[0]) << 40;
    delta = -int64_t(tag[1]) * 1000000000000l;
}
";
    let k = kernel("mixed.comp", src);
    assert!(k.required_features().contains(wgpu::Features::SHADER_INT64));
    let mut input = vec![7u8, 3, 0, 0, 0, 0, 0, 0];
    input.extend(0x1_0000_0005u64.to_le_bytes());
    input.extend(0i64.to_le_bytes());
    let mut want = input.clone();
    want[8..16].copy_from_slice(&(0x1_0000_0005u64 + (7u64 << 40)).to_le_bytes());
    want[16..24].copy_from_slice(&(-3_000_000_000_000i64).to_le_bytes());
    for ctx in common::contexts_with_available(
        wgpu::Features::SHADER_INT64 | wgpu::Features::PASSTHROUGH_SHADERS,
    ) {
        if !ctx
            .device()
            .features()
            .contains(wgpu::Features::SHADER_INT64)
        {
            println!("skipping {}: no SHADER_INT64", ctx.backend_name());
            continue;
        }
        for (backend, out) in
            common::translated_and_native(&ctx, &k, [1, 1, 1], &[("Mixed", input.clone())])
        {
            assert_eq!(out[0], want, "{backend}");
        }
    }
}

const PUSHED_WIDTHS: &str = "#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(push_constant) uniform Params {
    uint16_t width;
    uint8_t channel;
    int8_t bias;
    f16vec2 scale;
    u8vec4 mask;
} params;
layout(std430, binding = 0) readonly buffer Pixels { u8vec4 pixels[]; };
layout(std430, binding = 1) buffer Result { uint sum; int biased; float scaled; uint masked; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(params.width)) {
        return;
    }
    uint v = uint(pixels[i][params.channel]);
    atomicAdd(sum, v);
    atomicAdd(biased, int(params.bias));
    atomicOr(masked, v & uint(params.mask[params.channel]));
    if (i == 0u) {
        scaled = float(params.scale.x * params.scale.y);
    }
}
";

#[test]
fn the_cli_sets_push_constants_of_every_width() {
    let file = common::temp_file("narrow", "pushed.comp", PUSHED_WIDTHS);
    for b in common::backend_names() {
        let v = common::run_json(&[
            "run",
            &file,
            "--groups",
            "1",
            "--push",
            "width=20",
            "--push",
            "channel=2",
            "--push",
            "bias=-3",
            "--push",
            "scale=f16vec2(1.5, -2)",
            "--push",
            "mask=0x0f,0xf0,0x3c,0xff",
            "--buffer",
            "Pixels=u8:128:iota",
            "--buffer",
            "Result=u32:4",
            "--backend",
            b,
            "--json",
        ]);
        let result = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "Result")
            .unwrap();
        // Channel 2 of pixel i is byte 4i + 2.
        let sum: u64 = (0..20).map(|i| 4 * i + 2).sum();
        let masked = (0..20u64).fold(0, |m, i| m | ((4 * i + 2) & 0x3c));
        assert_eq!(result["data"][0], sum, "{b}: sum");
        assert_eq!(result["data"][1], (-60i32) as u32, "{b}: biased");
        assert_eq!(result["data"][2], (-3.0f32).to_bits(), "{b}: scaled");
        assert_eq!(result["data"][3], masked, "{b}: masked");
        // The output shows each push constant at its own width.
        let pushed: Vec<(String, String)> = v["push_constants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["value"].to_string(),
                )
            })
            .collect();
        assert_eq!(
            pushed,
            [
                ("width", "[20]"),
                ("channel", "[2]"),
                ("bias", "[-3]"),
                ("scale", "[1.5,-2.0]"),
                ("mask", "[15,240,60,255]"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string())),
            "{b}"
        );
    }
    // Out of a member's range: named, exit 2.
    let o = common::atomport(&[
        "run",
        &file,
        "--groups",
        "1",
        "--push",
        "width=70000",
        "--push",
        "channel=0",
        "--push",
        "bias=0",
        "--push",
        "scale=1",
        "--push",
        "mask=1",
        "--buffer",
        "Pixels=u8:4",
        "--buffer",
        "Result=u32:4",
    ]);
    common::assert_fails_in_one_line(&o, 2, "--push width: uniform `width` is uint16_t");
}

const PACKED_COPY: &str = "#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;
struct Packed {
    vec3 center;
    int8_t axis[3];
    uint8_t count;
    uint16_t first;
    uint16_t last;
};
layout(std430, binding = 0) readonly buffer Source { Packed source[]; };
layout(std430, binding = 1) writeonly buffer Target { Packed target[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Packed p = source[i];
    p.count += uint8_t(1);
    p.axis[1] = -p.axis[1];
    target[15u - i] = p;
}
";

#[test]
fn structs_copied_between_blocks_and_variables_for_every_spirv_version() {
    // For Vulkan 1.2 and later glslang copies `Packed p = source[i];` with
    // OpCopyLogical (SPIR-V 1.4), which atomport spells out.
    let input: Vec<u8> = (0..16 * 32).map(|b| (b * 7 + 3) as u8).collect();
    let mut want = vec![0u8; input.len()];
    for i in 0..16 {
        let mut p = input[i * 32..(i + 1) * 32].to_vec();
        p[13] = (-(p[13] as i8)) as u8;
        p[15] = p[15].wrapping_add(1);
        // The padding after the last member is not copied.
        p[20..].fill(0);
        want[(15 - i) * 32..(16 - i) * 32].copy_from_slice(&p);
    }
    for env in [
        atomport::TargetEnv::Vulkan1_1,
        atomport::TargetEnv::Vulkan1_3,
    ] {
        let mut o = SourceOptions::named("packed_copy.comp");
        o.target_env = Some(env);
        let k = Kernel::from_glsl(PACKED_COPY, &o).unwrap_or_else(|e| panic!("{e}"));
        on_every_backend(
            &k,
            [1, 1, 1],
            &[("Source", input.clone()), ("Target", vec![0; input.len()])],
            |backend, out| assert_eq!(out[1], want, "{backend} ({})", env.name()),
        );
    }
}

/// A bit-packing pass whose invocations race to store different bytes and
/// halfwords into the same elements: each element must end up holding one
/// of the values stored to it, as natively. Clearing and then setting the
/// element's bits as two atomics would leave the OR of racing values (15
/// from 7 and 8), a value no invocation wrote.
const RACING: &str = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Packed { uint8_t codes[8]; uint16_t wide[4]; };
shared uint8_t s_codes[4];
layout(std430, binding = 1) buffer Seen { uint shared_codes[4]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    // Six values per element whose OR (15, 0x0F0F) none of them is.
    uint8_t v = uint8_t(7u + i % 6u);
    codes[i % 8u] = v;
    wide[i % 4u] = uint16_t(uint(v) * 0x0101u);
    s_codes[i % 4u] = v;
    barrier();
    if (i < 4u) shared_codes[i] = uint(s_codes[i]);
}
";

#[test]
fn racing_sub_word_stores_leave_one_of_the_stored_values() {
    let k = kernel("racing.comp", RACING);
    on_every_backend(
        &k,
        [1, 1, 1],
        &[("Packed", vec![0; 16]), ("Seen", vec![0; 16])],
        |backend, out| {
            // The values stored to element e of n: 7 + i % 6 for i ≡ e mod n.
            let stored = |e: usize, n: usize| -> Vec<u32> {
                (0..64)
                    .filter(|i| i % n == e)
                    .map(|i| 7 + (i % 6) as u32)
                    .collect()
            };
            for (e, &b) in out[0][..8].iter().enumerate() {
                assert!(
                    stored(e, 8).contains(&u32::from(b)),
                    "{backend}: codes[{e}] = {b}"
                );
            }
            for (e, h) in out[0][8..16].chunks_exact(2).enumerate() {
                let h = u32::from(u16::from_le_bytes([h[0], h[1]]));
                let ok = stored(e, 4).iter().any(|v| v * 0x0101 == h);
                assert!(ok, "{backend}: wide[{e}] = {h:#x}");
            }
            for (e, w) in words(&out[1]).into_iter().enumerate() {
                assert!(stored(e, 4).contains(&w), "{backend}: s_codes[{e}] = {w}");
            }
        },
    );
}

/// Texels smaller than a word in a texel buffer (an `rg8ui` image, as
/// WebGPU's target and `--texel-buffers` hold them): 64 invocations store
/// different texels into four, racing, and each texel ends as one
/// invocation's whole store, its neighbour in the same word untouched.
#[test]
fn racing_sub_word_texel_stores_leave_one_of_the_stored_values() {
    let file = common::temp_file(
        "racing-texels",
        "texels.comp",
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, rg8ui) uniform writeonly uimage2D codes;
void main() {
    uint i = gl_LocalInvocationIndex;
    imageStore(codes, ivec2(i % 4u, 0), uvec4(7u + i % 6u, 20u + i % 5u, 0u, 0u));
}
",
    );
    for b in common::backend_names() {
        for how in ["--texel-buffers", "--target=webgpu"] {
            let v = common::run_json(&[
                "run",
                &file,
                "--groups",
                "1",
                "--image",
                "codes=4x1:rg8ui",
                how,
                "--backend",
                b,
                "--json",
            ]);
            let data: Vec<u64> = v["bindings"][0]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(data.len(), 8, "{b} {how}: {data:?}");
            for (t, texel) in data.chunks_exact(2).enumerate() {
                let stored = (0..64u64)
                    .filter(|i| i % 4 == t as u64)
                    .any(|i| texel == [7 + i % 6, 20 + i % 5]);
                assert!(stored, "{b} {how}: texel {t} = {texel:?}");
            }
        }
    }
}
