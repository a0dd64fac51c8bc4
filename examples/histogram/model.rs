//! The histogram demo's picture and its CPU model: the procedural scene,
//! the luma the shader computes, and the check of every pass. Shared by the
//! native demo and the browser one (examples/web).

/// A smooth, dim, tinted scene with some noise: luma mostly 60 to 150.
/// `noise` gives numbers in [0, 1).
pub fn scene(w: u32, h: u32, mut noise: impl FnMut() -> f32) -> Vec<u8> {
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let rings = ((u - 0.4).hypot(v - 0.55) * 18.0).sin();
            let wave = (u * 7.0 + v * 3.0).sin() * (v * 5.0).cos();
            let base = 100.0 + 22.0 * rings + 18.0 * wave + 10.0 * (u - v);
            let g = (base + noise() * 8.0).clamp(0.0, 255.0);
            [(g * 1.1).min(255.0) as u8, g as u8, (g * 0.8) as u8, 255]
        })
        .collect()
}

/// The shader's luma, in the same integer arithmetic.
pub fn luma(rgba: &[u8]) -> Vec<u32> {
    rgba.chunks_exact(4)
        .map(|p| (54 * p[0] as u32 + 183 * p[1] as u32 + 19 * p[2] as u32 + 128) >> 8)
        .collect()
}

/// Checks every pass of the demo against the CPU, exactly; the summary
/// of what held, or the first difference.
pub fn verify(
    rgba: &[u8],
    width: usize,
    pixels: &[u32],
    bins: &[u32],
    equalized: &[u32],
    shown: &[u8],
) -> Result<String, String> {
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
    Ok(format!(
        "luma of {} texels equal to the CPU's; bins: {} non-empty, equal to the CPU count; {} pixels equalized as the CPU does; the rgba8 picture equal texel for texel",
        want.len(),
        expected.iter().filter(|&&b| b > 0).count(),
        pixels.len()
    ))
}
