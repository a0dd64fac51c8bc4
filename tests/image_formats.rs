//! Storage images of every format GLSL has (but the packed rgb10_a2,
//! rgb10_a2ui, r11f_g11f_b10f), read and written by one kernel: the ones
//! WebGPU cannot read-write (all but r32) live in texel buffers, packed as
//! the format is. Each format runs on every backend present against a CPU
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
        ChannelKind::Unorm => ((1.0 - v) * 255.0).round() / 255.0,
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
    for t in 0..texels {
        let mut c = [0.0; 4];
        for (k, v) in c.iter_mut().enumerate().take(n as usize) {
            *v = input(kind, bits, t, k);
        }
        let texel = encode_texel(format.texture_format(), c).unwrap();
        // What the host wrote, as the shader reads it, through f.
        let read = decode_texels(format.texture_format(), &texel).unwrap();
        want.extend(read.iter().map(|&v| model(kind, bits, v)));
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
                ChannelKind::Unorm => (g - w).abs() <= 1.0 / 255.0 + 1e-6,
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
