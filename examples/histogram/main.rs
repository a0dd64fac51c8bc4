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

use atomport::{
    Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Sampler, SamplerDesc, Texture,
    TextureDesc, TextureDim,
};

/// A smooth, dim, tinted scene with some noise: luma mostly 60 to 150.
fn scene(w: u32, h: u32) -> Vec<u8> {
    let mut rng = common::Rng(42);
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let rings = ((u - 0.4).hypot(v - 0.55) * 18.0).sin();
            let wave = (u * 7.0 + v * 3.0).sin() * (v * 5.0).cos();
            let base = 100.0 + 22.0 * rings + 18.0 * wave + 10.0 * (u - v);
            let g = (base + rng.unit() * 8.0).clamp(0.0, 255.0);
            [(g * 1.1).min(255.0) as u8, g as u8, (g * 0.8) as u8, 255]
        })
        .collect()
}

/// The shader's luma, in the same integer arithmetic.
fn luma(rgba: &[u8]) -> Vec<u32> {
    rgba.chunks_exact(4)
        .map(|p| (54 * p[0] as u32 + 183 * p[1] as u32 + 19 * p[2] as u32 + 128) >> 8)
        .collect()
}

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
        None => (args.width, args.height, scene(args.width, args.height)),
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
    common::check(verify(
        &rgba, w as usize, &pixels, &got_bins, &equalized, &shown,
    ));
}

fn verify(
    rgba: &[u8],
    width: usize,
    pixels: &[u32],
    bins: &[u32],
    equalized: &[u32],
    shown: &[u8],
) -> Result<(), String> {
    let want = luma(rgba);
    if let Some(i) = (0..want.len()).find(|&i| pixels[i] != want[i]) {
        return Err(format!(
            "pixel {i}: the sampled texture gave luma {} but the CPU computes {}",
            pixels[i], want[i]
        ));
    }
    let mut expected = [0u32; 256];
    for &p in pixels {
        expected[(p & 255) as usize] += 1;
    }
    if let Some(b) = (0..256).find(|&b| bins[b] != expected[b]) {
        return Err(format!(
            "bin {b}: GPU {} but CPU counts {}",
            bins[b], expected[b]
        ));
    }
    let count = pixels.len() as u32;
    let mut cdf = [0u32; 256];
    let mut run = 0;
    for (c, &b) in cdf.iter_mut().zip(&expected) {
        run += b;
        *c = run;
    }
    let cdf_min = (0..256)
        .filter(|&v| expected[v] != 0)
        .map(|v| cdf[v])
        .min()
        .unwrap_or(0);
    let span = (count - cdf_min).max(1);
    let lut: Vec<u32> = cdf
        .iter()
        .map(|&c| (c.saturating_sub(cdf_min) * 255 + span / 2) / span)
        .collect();
    if let Some(i) = (0..pixels.len()).find(|&i| equalized[i] != lut[pixels[i] as usize]) {
        return Err(format!(
            "pixel {i}: equalized {} but the CPU table gives {}",
            equalized[i], lut[pixels[i] as usize]
        ));
    }
    // The picture: row y is the luma row, then the equalized row, as gray.
    let w = 2 * width;
    for (t, px) in shown.chunks_exact(4).enumerate() {
        let (x, y) = (t % w, t / w);
        let i = y * width + x % width;
        let v = if x < width { pixels[i] } else { equalized[i] } as u8;
        if px != [v, v, v, 255] {
            return Err(format!("picture texel ({x}, {y}) is {px:?}, not gray {v}"));
        }
    }
    println!(
        "luma of {} texels equal to the CPU's; bins: {} non-empty, equal to the CPU count; {} pixels equalized as the CPU does; the rgba8 picture equal texel for texel",
        want.len(),
        expected.iter().filter(|&&b| b > 0).count(),
        pixels.len()
    );
    Ok(())
}
