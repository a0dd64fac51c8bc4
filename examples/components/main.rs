//! `components`: connected-component labelling of a binary image
//! (procedural blobs and speckles) with a lock-free union-find on a label
//! buffer — atomicCompSwap to link roots, atomicMin to flatten. Writes one
//! colour per component and checks the partition and the component count
//! against a CPU union-find.
//!
//! `cargo run --release --example components -- [--backend NAME] [--out FILE.png] [--size WxH]`

#[path = "../common/mod.rs"]
mod common;

use atomport::{Bind, Buffer};

const BACKGROUND: u32 = u32::MAX;

/// Metaball blobs plus speckles: many components of many shapes.
fn foreground(w: u32, h: u32) -> Vec<bool> {
    let mut rng = common::Rng(7);
    let scale = w.min(h) as f32;
    let blobs: Vec<(f32, f32, f32)> = (0..70)
        .map(|_| {
            (
                rng.unit() * w as f32,
                rng.unit() * h as f32,
                (0.012 + rng.unit() * 0.03) * scale,
            )
        })
        .collect();
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x as f32, y as f32)))
        .map(|(x, y)| {
            let field: f32 = blobs
                .iter()
                .map(|&(bx, by, r)| r * r / ((x - bx).powi(2) + (y - by).powi(2) + 1.0))
                .sum();
            field > 1.0 || rng.unit() < 0.002
        })
        .collect()
}

fn main() {
    let args = common::args("components", (512, 384));
    let (w, h) = (args.width, args.height);
    let ctx = common::context(&args, wgpu::Features::empty());
    let unite = common::kernel("union.comp", include_str!("union.comp"));
    let flatten = common::kernel("flatten.comp", include_str!("flatten.comp"));
    let fg = foreground(w, h);
    let parents: Vec<u32> = fg
        .iter()
        .enumerate()
        .map(|(i, &f)| if f { i as u32 } else { BACKGROUND })
        .collect();
    println!(
        "labelling a {w}x{h} binary image ({} foreground pixels)",
        fg.iter().filter(|&&f| f).count()
    );
    let buf =
        |d: &[u32]| Buffer::from_slice(&ctx, d).unwrap_or_else(|e| common::die(&e.to_string()));
    let parent = buf(&parents);
    let params = buf(&[w, h, 0, 0]);
    let groups = [w.div_ceil(16), h.div_ceil(16), 1];
    common::pass(
        &ctx,
        "union pass (atomicCompSwap)",
        &unite,
        groups,
        &[Bind::new(0, 0, &parent), Bind::new(0, 1, &params)],
    );
    common::pass(
        &ctx,
        "flatten pass (atomicMin)",
        &flatten,
        groups,
        &[Bind::new(0, 0, &parent), Bind::new(0, 1, &params)],
    );
    let labels: Vec<u32> = parent
        .read(&ctx)
        .unwrap_or_else(|e| common::die(&e.to_string()));
    let mut rgba = Vec::with_capacity(labels.len() * 4);
    for &l in &labels {
        rgba.extend(if l == BACKGROUND {
            [18, 20, 28, 255]
        } else {
            colour(l)
        });
    }
    common::write_png(&args.out, w, h, &rgba);
    common::check(verify(w, h, &fg, &labels));
}

/// A bright, well-spread colour per label (golden-ratio hues).
fn colour(label: u32) -> [u8; 4] {
    let hue = (label.wrapping_mul(2654435761) >> 8) as f32 / (1u32 << 24) as f32;
    let (s, v) = (0.65, 0.95);
    let h6 = hue * 6.0;
    let f = h6.fract();
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match h6 as u32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8, 255]
}

fn verify(w: u32, h: u32, fg: &[bool], labels: &[u32]) -> Result<(), String> {
    // CPU union-find with the same rule: each root is its component's smallest index.
    let n = fg.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let (w, h) = (w as usize, h as usize);
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if !fg[i] {
                continue;
            }
            for j in [(x + 1 < w).then(|| i + 1), (y + 1 < h).then(|| i + w)]
                .into_iter()
                .flatten()
            {
                if fg[j] {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let mut components = 0;
    for i in 0..n {
        let expected = if fg[i] {
            find(&mut parent, i) as u32
        } else {
            BACKGROUND
        };
        if fg[i] && expected == i as u32 {
            components += 1;
        }
        if labels[i] != expected {
            return Err(format!(
                "pixel ({}, {}): GPU label {:#x}, CPU component root {:#x}",
                i % w,
                i / w,
                labels[i],
                expected
            ));
        }
    }
    let gpu_components = (0..n).filter(|&i| labels[i] == i as u32).count();
    println!(
        "{gpu_components} components, the same partition as the CPU union-find ({components})"
    );
    Ok(())
}
