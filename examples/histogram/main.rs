//! `histogram`: a 256-bin histogram of a procedural low-contrast image, with
//! shared-memory atomicAdd per workgroup merged into global bins by
//! atomicAdd, then histogram equalization. Writes the image before and after,
//! side by side, and checks the bins against a CPU count and the equalized
//! pixels against a CPU equalization, exactly.
//!
//! `cargo run --release --example histogram -- [--backend NAME] [--out FILE.png] [--size WxH]`

#[path = "../common/mod.rs"]
mod common;

use atomport::{Bind, Buffer};

/// A smooth, dim scene with some noise: most values between 60 and 150.
fn scene(w: u32, h: u32) -> Vec<u32> {
    let mut rng = common::Rng(42);
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let rings = ((u - 0.4).hypot(v - 0.55) * 18.0).sin();
            let wave = (u * 7.0 + v * 3.0).sin() * (v * 5.0).cos();
            let base = 100.0 + 22.0 * rings + 18.0 * wave + 10.0 * (u - v);
            (base + rng.unit() * 8.0).clamp(0.0, 255.0) as u32
        })
        .collect()
}

fn main() {
    let args = common::args("histogram", (512, 384));
    let (w, h) = (args.width, args.height);
    let ctx = common::context(&args, wgpu::Features::empty());
    let hist = common::kernel("histogram.comp", include_str!("histogram.comp"));
    let equalize = common::kernel("equalize.comp", include_str!("equalize.comp"));
    let map = common::kernel("map.comp", include_str!("map.comp"));
    let pixels = scene(w, h);
    let count = pixels.len() as u32;
    println!("histogram of a {w}x{h} image ({count} pixels), then equalization");
    let buf =
        |d: &[u32]| Buffer::from_slice(&ctx, d).unwrap_or_else(|e| common::die(&e.to_string()));
    let pix = buf(&pixels);
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
    // Before and after, side by side.
    let mut rgba = Vec::with_capacity((2 * w * h * 4) as usize);
    for y in 0..h as usize {
        for v in pixels[y * w as usize..(y + 1) * w as usize]
            .iter()
            .chain(&equalized[y * w as usize..(y + 1) * w as usize])
        {
            rgba.extend([*v as u8, *v as u8, *v as u8, 255]);
        }
    }
    common::write_png(&args.out, 2 * w, h, &rgba);
    common::check(verify(&pixels, &got_bins, &equalized));
}

fn verify(pixels: &[u32], bins: &[u32], equalized: &[u32]) -> Result<(), String> {
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
    println!(
        "bins: {} non-empty, equal to the CPU count; {} pixels equalized as the CPU does",
        expected.iter().filter(|&&b| b > 0).count(),
        pixels.len()
    );
    Ok(())
}
