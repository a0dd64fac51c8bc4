//! Storage images of every format GLSL has (the packed rgb10_a2,
//! rgb10_a2ui and r11f_g11f_b10f among them), read and written by one
//! kernel: the ones WebGPU cannot read-write (all but r32) live in texel
//! buffers, packed as the format is. Each format runs on every backend present against a CPU
//! model of GLSL's conversions; one packed format in a 2D array as well.

mod common;

use atomport::ChannelKind;
use atomport::runtime::run::Data;
use atomport::runtime::texture::{decode_texels, encode_texel};
use atomport::{Bind, Image, ImageDesc, ImageDim, ImageFormat, Kernel, SourceOptions};

/// The GLSL prefix of the image type and the vector type for a kind.
fn prefix(kind: ChannelKind) -> &'static str {
    match kind {
        ChannelKind::Uint => "u",
        ChannelKind::Sint => "i",
        _ => "",
    }
}

/// A kernel that reads each texel and writes back `f(texel)`: for floats
/// `2v + 1`, unorm `1 - v`, snorm `-v`, uint `3v + 1`, sint `-v - 1`.
fn kernel(format: ImageFormat, shape: &str, coord: &str) -> Kernel {
    let (_, _, kind) = format.layout();
    let p = prefix(kind);
    let f = match kind {
        ChannelKind::Float => "v * 2.0 + 1.0",
        ChannelKind::Unorm => "vec4(1.0) - v",
        ChannelKind::Snorm => "-v",
        ChannelKind::Uint => "v * 3u + 1u",
        ChannelKind::Sint => "-v - 1",
    };
    let src = format!(
        "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, {}) uniform {p}{shape} img;
void main() {{
    {coord}
    {p}vec4 v = imageLoad(img, c);
    imageStore(img, c, {f});
}}
",
        format.name()
    );
    Kernel::from_glsl(
        &src,
        &SourceOptions::named(format!("{}.comp", format.name())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", format.name()))
}

/// Texel `t`'s channel `k` as the host writes it: small values in each
/// kind's range, exactly representable in every width.
fn input(kind: ChannelKind, bits: u32, t: usize, k: usize) -> f64 {
    let i = (t * 4 + k) % 61;
    match kind {
        ChannelKind::Float => i as f64 * 0.5,
        ChannelKind::Unorm => (i * 4 % 256) as f64 / 255.0,
        ChannelKind::Snorm => (i as f64 - 30.0) / 127.0,
        ChannelKind::Uint => (i * 5 % (1 << bits.min(16))) as f64,
        ChannelKind::Sint => i as f64 - 30.0,
    }
}

/// GLSL's result: `f` of the channel, stored in the format (unorm and
/// snorm quantized, integers wrapped to their width).
fn model(kind: ChannelKind, bits: u32, v: f64) -> f64 {
    match kind {
        ChannelKind::Float => v * 2.0 + 1.0,
        ChannelKind::Unorm => {
            let max = ((1u64 << bits) - 1) as f64;
            ((1.0 - v) * max).round() / max
        }
        ChannelKind::Snorm => (-v * 127.0).round() / 127.0,
        ChannelKind::Uint => {
            let m = if bits == 32 {
                u64::from(u32::MAX)
            } else {
                (1 << bits) - 1
            };
            ((v as u64 * 3 + 1) & m) as f64
        }
        ChannelKind::Sint => {
            let r = -(v as i64) - 1;
            let shift = 64 - bits;
            ((r << shift) >> shift) as f64
        }
    }
}

/// The image's texels after the kernel, decoded per channel.
fn after(data: &Data) -> Vec<f64> {
    match data {
        Data::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Data::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Data::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        _ => panic!("64-bit data for a 32-bit format"),
    }
}

fn check(format: ImageFormat, dim: ImageDim, size: &[u32], kernel: &Kernel, groups: [u32; 3]) {
    let (n, bits, kind) = format.layout();
    let desc = ImageDesc::new(dim, format, size, 1).unwrap();
    let texels = desc.texel_count();
    let mut bytes = Vec::new();
    let mut want = Vec::new();
    // A packed format's channels have bits of their own.
    let bits_of = |k: usize| format.packed().map_or(bits, |w| w[k]);
    for t in 0..texels {
        let mut c = [0.0; 4];
        for (k, v) in c.iter_mut().enumerate().take(n as usize) {
            *v = input(kind, bits_of(k), t, k);
        }
        let texel = encode_texel(format.texture_format(), c).unwrap();
        // What the host wrote, as the shader reads it, through f.
        let read = decode_texels(format.texture_format(), &texel).unwrap();
        want.extend(
            read.iter()
                .enumerate()
                .map(|(k, &v)| model(kind, bits_of(k), v)),
        );
        bytes.extend(texel);
    }
    for ctx in common::contexts(kernel.required_features()) {
        let img = Image::from_texels(&ctx, desc, &bytes).unwrap();
        let out = ctx
            .run(kernel, groups, &[Bind::image(0, 0, &img)])
            .unwrap_or_else(|e| panic!("{} on {}: {e}", format.name(), ctx.backend_name()));
        let got = after(&out.bindings[0].data);
        assert_eq!(got.len(), want.len(), "{}", format.name());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let close = match kind {
                // A quantized channel may land one step apart where the
                // model's f64 and the GPU's f32 round a .5 differently.
                ChannelKind::Unorm => {
                    let per = format.packed().map_or(n as usize, <[u32]>::len);
                    let step = 1.0 / ((1u64 << bits_of(i % per)) - 1) as f64;
                    (g - w).abs() <= step + 1e-6
                }
                ChannelKind::Snorm => (g - w).abs() <= 1.0 / 127.0 + 1e-6,
                _ => g == w,
            };
            assert!(
                close,
                "{} on {}: channel {i}: got {g}, want {w}",
                format.name(),
                ctx.backend_name()
            );
        }
    }
}

#[test]
fn every_format_reads_and_writes_on_every_backend() {
    for &format in ImageFormat::ALL {
        if format.layout().1 == 64 {
            continue; // r64ui/r64i: tests/images.rs
        }
        let k = kernel(
            format,
            "image2D",
            "ivec2 c = ivec2(gl_GlobalInvocationID.xy);",
        );
        // Read and written: only r32 formats stay storage textures.
        let lowered = k.bindings()[0].kind == atomport::BindingKind::Image;
        let r32 = format.layout().1 == 32 && format.layout().0 == 1;
        assert_eq!(lowered, !r32, "{}", format.name());
        if r32 {
            continue; // a storage texture: tests/glsl's storage-image kernels
        }
        // 7 wide: rows of narrow texels are not whole words.
        check(format, ImageDim::D2, &[7, 8], &k, [2, 2, 1]);
    }
}

#[test]
fn packed_texels_in_an_array_image() {
    for format in [
        ImageFormat::Rgba8Unorm,
        ImageFormat::R16Float,
        ImageFormat::Rg8Sint,
    ] {
        let k = kernel(
            format,
            "image2DArray",
            "ivec3 c = ivec3(gl_GlobalInvocationID.xy, gl_GlobalInvocationID.z);",
        );
        check(format, ImageDim::D2Array, &[5, 4, 3], &k, [2, 1, 3]);
    }
}

/// HDR colour stored in `r11f_g11f_b10f`, as a tone-mapping pass writes
/// it, at the edges of Vulkan's unsigned small floats: to nearest with ties
/// to even, negative values and -0 to 0, infinity kept, NaN kept a NaN,
/// denormals; `rgb10_a2` beside it, rounded to nearest. Each word is
/// checked against its bits worked out by hand.
#[test]
fn packed_formats_store_the_edges_of_their_conversions() {
    let src = "#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, r11f_g11f_b10f) uniform writeonly image2D hdr;
layout(set = 0, binding = 1, rgb10_a2) uniform writeonly image2D ldr;
layout(std430, set = 0, binding = 2) readonly buffer In { float v[8]; };
void main() {
    int i = int(gl_LocalInvocationIndex);
    // The same value in all three channels (blue has one mantissa bit less).
    imageStore(hdr, ivec2(i, 0), vec4(v[i]));
    imageStore(ldr, ivec2(i, 0), vec4(fract(abs(v[i]))));
}
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("hdr.comp")).unwrap();
    let inf = f32::INFINITY;
    let v: [f32; 8] = [1.0, -2.0, inf, f32::NAN, 1.0078125, 1.0234375, 6.0e-5, 0.25];
    // (red and green as uf11, blue as uf10), by hand.
    let uf: [(u32, u32); 8] = [
        (0x3c0, 0x1e0), // 1.0: exponent 15, no mantissa
        (0, 0),         // negative: 0
        (0x7c0, 0x3e0), // infinity
        (0x7c1, 0x3e1), // NaN: a mantissa bit kept
        (0x3c0, 0x1e0), // 1 + 2^-7: a tie (11 bits), to even: 1.0
        (0x3c2, 0x1e1), // 1 + 3·2^-7: ties up to even in 11 bits
        (0x03f, 0x01f), // 6e-5: just under 2^-14 (a denormal)
        (0x340, 0x1a0), // 0.25: exponent 13
    ];
    for ctx in common::contexts(k.required_features()) {
        let desc = |f| ImageDesc::new(ImageDim::D2, f, &[8, 1], 1).unwrap();
        let hdr = Image::zeroed(&ctx, desc(ImageFormat::Rg11B10Float)).unwrap();
        let ldr = Image::zeroed(&ctx, desc(ImageFormat::Rgb10A2Unorm)).unwrap();
        let input = atomport::Buffer::from_slice(&ctx, &v).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[
                Bind::image(0, 0, &hdr),
                Bind::image(0, 1, &ldr),
                Bind::named("In", &input),
            ],
        )
        .unwrap();
        let words: Vec<u32> = hdr.read::<u32>(&ctx).unwrap();
        for (i, (&w, &(rg, b))) in words.iter().zip(&uf).enumerate() {
            let want = rg | rg << 11 | b << 22;
            assert_eq!(
                w,
                want,
                "{} texel {i} ({}): {w:#x}, want {want:#x}",
                ctx.backend_name(),
                v[i]
            );
            // The host writes such texels by the same rules.
            let host =
                encode_texel(wgpu::TextureFormat::Rg11b10Ufloat, [f64::from(v[i]); 4]).unwrap();
            assert_eq!(host, want.to_le_bytes(), "the host's texel {i}");
        }
        let words: Vec<u32> = ldr.read::<u32>(&ctx).unwrap();
        for (i, &w) in words.iter().enumerate() {
            let x = f64::from(v[i].abs().fract());
            let x = if x.is_nan() { 0.0 } else { x };
            let c = (x.clamp(0.0, 1.0) * 1023.0).round() as u32;
            let a = (x.clamp(0.0, 1.0) * 3.0).round() as u32;
            let want = c | c << 10 | c << 20 | a << 30;
            // NaN's fract is NaN, which unorm conversion leaves undefined.
            if !v[i].is_nan() && v[i].is_finite() {
                assert_eq!(w, want, "{} rgb10_a2 texel {i}", ctx.backend_name());
            }
        }
    }
}
