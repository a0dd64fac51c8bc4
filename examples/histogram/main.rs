//! `histogram`: a 256-bin histogram of a photo's luma — a PNG (`--input`)
//! or a procedural low-contrast picture — read through a sampled texture
//! with a sampler, with shared-memory atomicAdd per workgroup merged into
//! global bins by atomicAdd, then histogram equalization, written back
//! before and after, side by side, through an rgba8 storage image. Checks
//! the luma, the bins, the equalized pixels and the picture against the CPU,
//! exactly.
//!
//! `cargo run --release --example histogram -- [--backend NAME] [--out FILE.png] [--size WxH] [--input PHOTO.png]`

#[path = "../common/mod.rs"]
mod common;
mod model;

use atomport::{
    Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Sampler, SamplerDesc, Texture,
    TextureDesc, TextureDim,
};

fn main() {
    let args = common::args_with("histogram", (512, 384), &[("--input", "PHOTO.png")]);
    let input: Option<std::path::PathBuf> = args.extra("--input");
    let ctx = common::context(&args, wgpu::Features::empty());
    // The photo as rgba8: a PNG (gray ones widened) or the procedural scene.
    let (w, h, rgba) = match &input {
        Some(path) => {
            let (w, h, format, data) = common::ok(atomport::runtime::texture::read_png(path));
            let rgba = match format {
                wgpu::TextureFormat::Rgba8Unorm => data,
                wgpu::TextureFormat::R8Unorm => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
                other => common::die(&format!(
                    "{}: a {other:?} picture; the demo reads 8-bit PNGs",
                    path.display()
                )),
            };
            (w, h, rgba)
        }
        None => {
            let mut rng = common::Rng(42);
            let rgba = model::scene(args.width, args.height, || rng.unit());
            (args.width, args.height, rgba)
        }
    };
    let luma_kernel = common::kernel("luma.comp", include_str!("luma.comp"));
    let hist = common::kernel("histogram.comp", include_str!("histogram.comp"));
    let equalize = common::kernel("equalize.comp", include_str!("equalize.comp"));
    let map = common::kernel("map.comp", include_str!("map.comp"));
    let present = common::kernel("present.comp", include_str!("present.comp"));
    let count = w * h;
    println!(
        "histogram of {} ({w}x{h}, {count} pixels) read through a sampled texture, then equalization",
        input
            .as_ref()
            .map_or("a procedural picture".to_string(), |p| p
                .display()
                .to_string())
    );
    let buf =
        |d: &[u32]| Buffer::from_slice(&ctx, d).unwrap_or_else(|e| common::die(&e.to_string()));
    let photo = common::ok(
        TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[w, h], 1)
            .and_then(|d| Texture::from_data(&ctx, d, &rgba)),
    );
    let nearest = common::ok(Sampler::new(&ctx, SamplerDesc::default()));
    let pix = buf(&vec![0u32; count as usize]);
    common::pass(
        &ctx,
        "luma pass (sampled texture)",
        &luma_kernel,
        [w.div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::named("photo", (&photo, &nearest)),
            Bind::named("Pixels", &pix),
        ],
    );
    let pixels: Vec<u32> = common::ok(pix.read(&ctx));
    let bins = buf(&[0u32; 256]);
    let params = buf(&[count, 0, 0, 0]);
    let lut = buf(&[0u32; 256]);
    let out = buf(&vec![0u32; pixels.len()]);
    let groups = (count / 256 / 16).clamp(1, 256);
    common::pass(
        &ctx,
        "histogram pass (shared + global atomicAdd)",
        &hist,
        [groups, 1, 1],
        &[
            Bind::new(0, 0, &pix),
            Bind::new(0, 1, &bins),
            Bind::new(0, 2, &params),
        ],
    );
    common::pass(
        &ctx,
        "equalization table pass (prefix sum, atomicMin)",
        &equalize,
        [1, 1, 1],
        &[
            Bind::new(0, 0, &bins),
            Bind::new(0, 1, &lut),
            Bind::new(0, 2, &params),
        ],
    );
    common::pass(
        &ctx,
        "mapping pass",
        &map,
        [count.div_ceil(256), 1, 1],
        &[
            Bind::new(0, 0, &pix),
            Bind::new(0, 1, &lut),
            Bind::new(0, 2, &out),
            Bind::new(0, 3, &params),
        ],
    );
    let got_bins: Vec<u32> = bins
        .read(&ctx)
        .unwrap_or_else(|e| common::die(&e.to_string()));
    let equalized: Vec<u32> = out
        .read(&ctx)
        .unwrap_or_else(|e| common::die(&e.to_string()));
    // Before and after, side by side, through an rgba8 storage image.
    // The demo's kernels hold storage images in texel buffers, so an rgba8
    // picture runs where the adapter has no rgba8 storage (DX12 via vkd3d).
    let picture = common::ok(
        ImageDesc::new(ImageDim::D2, ImageFormat::Rgba8Unorm, &[2 * w, h], 1)
            .and_then(|d| Image::zeroed(&ctx, d)),
    );
    common::pass(
        &ctx,
        "present pass (rgba8 storage image, in a texel buffer)",
        &present,
        [(2 * w).div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::named("Pixels", &pix),
            Bind::named("Out", &out),
            Bind::named("picture", &picture),
        ],
    );
    let shown: Vec<u8> = common::ok(picture.read(&ctx));
    common::write_png(&args.out, 2 * w, h, &shown);
    common::check(
        model::verify(&rgba, w as usize, &pixels, &got_bins, &equalized, &shown)
            .map(|summary| println!("{summary}")),
    );
}
