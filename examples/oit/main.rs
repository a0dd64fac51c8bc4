//! `oit`: order-independent transparency with per-pixel linked lists.
//! Hundreds of translucent discs append a node per covered pixel — atomicAdd
//! on a node counter, imageAtomicExchange on an r32ui list-head image — and
//! a resolve pass sorts each pixel's fragments by depth and blends them.
//! Checks that no node is lost (nodes allocated = fragments, none dropped)
//! and that the picture equals a CPU sort-and-blend within 1/255 per channel.
//!
//! `cargo run --release --example oit -- [--backend NAME] [--out FILE.png] [--size WxH] [--capacity NODES]`
//!
//! `--capacity` makes the node buffer smaller than the fragment count, to
//! show the overflow path: the extra fragments are counted and reported
//! (the check then fails), never written.

#[path = "../common/mod.rs"]
mod common;

use atomport::{Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat};

const EMPTY: u32 = u32::MAX;
const MAX_FRAGMENTS: usize = 32;

struct Disc {
    x: i32,
    y: i32,
    r: i32,
    rgba: u32,
    depth: u32,
}

fn discs(w: u32, h: u32, n: usize) -> Vec<Disc> {
    let mut rng = common::Rng(2024);
    let scale = w.min(h) as f32;
    (0..n)
        .map(|i| {
            let hue = rng.unit();
            let (r, g, b) = (
                (0.5 + 0.5 * (std::f32::consts::TAU * hue).cos()) * 255.0,
                (0.5 + 0.5 * (std::f32::consts::TAU * (hue + 0.33)).cos()) * 255.0,
                (0.5 + 0.5 * (std::f32::consts::TAU * (hue + 0.67)).cos()) * 255.0,
            );
            let a = 0.22 + 0.3 * rng.unit();
            Disc {
                x: (rng.unit() * w as f32) as i32,
                y: (rng.unit() * h as f32) as i32,
                r: ((0.015 + 0.06 * rng.unit()) * scale) as i32 + 1,
                rgba: r as u32 | (g as u32) << 8 | (b as u32) << 16 | ((a * 255.0) as u32) << 24,
                depth: rng.next_u32() >> 8 | (i as u32) << 24,
            }
        })
        .collect()
}

fn main() {
    let args = common::args_with("oit", (640, 480), &[("--capacity", "NODES")]);
    let capacity_arg = args.extra::<u32>("--capacity");
    let (w, h) = (args.width, args.height);
    let ctx = common::context(&args, wgpu::Features::empty());
    let append = common::kernel("append.comp", include_str!("append.comp"));
    let resolve = common::kernel("resolve.comp", include_str!("resolve.comp"));
    let shapes = discs(w, h, 320);
    let fragments = cpu_fragments(w, h, &shapes);
    let total: usize = fragments.iter().map(Vec::len).sum();
    let deepest = fragments.iter().map(Vec::len).max().unwrap_or(0);
    println!(
        "{} translucent discs, {total} fragments, at most {deepest} per pixel",
        shapes.len()
    );
    // The node buffer holds every fragment unless --capacity says fewer, to
    // show the overflow path: the extra fragments are counted, not written.
    let capacity = capacity_arg.unwrap_or(total as u32);
    let desc = common::ok(ImageDesc::new(
        ImageDim::D2,
        ImageFormat::R32Uint,
        &[w, h],
        1,
    ));
    let heads = common::ok(Image::filled(&ctx, desc, EMPTY));
    let packed: Vec<u32> = shapes
        .iter()
        .flat_map(|d| [d.x as u32, d.y as u32, d.r as u32, d.rgba, d.depth, 0, 0, 0])
        .collect();
    let disc_buf = common::ok(Buffer::from_slice(&ctx, &packed));
    let nodes = common::ok(Buffer::zeroed(&ctx, capacity.max(1) as u64 * 16));
    let counters = common::ok(Buffer::zeroed(&ctx, 16));
    let params = common::ok(Buffer::from_slice(
        &ctx,
        &[shapes.len() as u32, w, h, capacity],
    ));
    let colors = common::ok(Buffer::zeroed(&ctx, (w * h * 4) as u64));
    common::pass(
        &ctx,
        "append pass (atomicAdd, imageAtomicExchange)",
        &append,
        [(shapes.len() as u32).div_ceil(64), 1, 1],
        &[
            Bind::image(0, 0, &heads),
            Bind::new(0, 1, &disc_buf),
            Bind::new(0, 2, &nodes),
            Bind::new(0, 3, &counters),
            Bind::new(0, 4, &params),
        ],
    );
    common::pass(
        &ctx,
        "resolve pass (sort and blend)",
        &resolve,
        [w.div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::image(0, 0, &heads),
            Bind::new(0, 2, &nodes),
            Bind::new(0, 3, &counters),
            Bind::new(0, 4, &params),
            Bind::new(0, 5, &colors),
        ],
    );
    let c: Vec<u32> = common::ok(counters.read(&ctx));
    let (allocated, dropped, truncated) = (c[0], c[1], c[2]);
    println!(
        "nodes allocated: {allocated}; dropped when full: {dropped}; pixels with more than {MAX_FRAGMENTS} fragments: {truncated}"
    );
    let rgba: Vec<u32> = common::ok(colors.read(&ctx));
    common::write_png(&args.out, w, h, bytemuck::cast_slice(&rgba));
    common::check(verify(
        total, capacity, allocated, dropped, truncated, &shapes, &fragments, &rgba,
    ));
}

/// Every disc's fragments per pixel (indices into `shapes`), as the GPU covers them.
fn cpu_fragments(w: u32, h: u32, shapes: &[Disc]) -> Vec<Vec<usize>> {
    let mut px = vec![Vec::new(); (w * h) as usize];
    for (i, d) in shapes.iter().enumerate() {
        for y in (d.y - d.r).max(0)..=(d.y + d.r).min(h as i32 - 1) {
            for x in (d.x - d.r).max(0)..=(d.x + d.r).min(w as i32 - 1) {
                if (x - d.x) * (x - d.x) + (y - d.y) * (y - d.y) <= d.r * d.r {
                    px[(y as u32 * w + x as u32) as usize].push(i);
                }
            }
        }
    }
    px
}

#[allow(clippy::too_many_arguments)]
fn verify(
    total: usize,
    capacity: u32,
    allocated: u32,
    dropped: u32,
    truncated: u32,
    shapes: &[Disc],
    fragments: &[Vec<usize>],
    rgba: &[u32],
) -> Result<(), String> {
    let overflow = (total as u32).saturating_sub(capacity);
    if allocated as usize != total || dropped != overflow {
        return Err(format!(
            "{allocated} nodes allocated and {dropped} dropped for {total} fragments and {capacity} nodes"
        ));
    }
    if dropped > 0 {
        return Err(format!(
            "{dropped} fragments dropped: the node buffer holds {capacity} of {total}"
        ));
    }
    let deepest = fragments.iter().map(Vec::len).max().unwrap_or(0);
    if (truncated > 0) != (deepest > MAX_FRAGMENTS) {
        return Err(format!(
            "{truncated} pixels reported truncated, but the deepest list holds {deepest}"
        ));
    }
    for (i, list) in fragments.iter().enumerate() {
        if list.len() > MAX_FRAGMENTS {
            continue; // reported as truncated: the GPU kept an arbitrary 32
        }
        let mut list = list.clone();
        // Far to near: larger depth first, then larger disc index, as the GPU sorts.
        list.sort_by(|&a, &b| (shapes[b].depth, b).cmp(&(shapes[a].depth, a)));
        let mut c = [0.06f32, 0.07, 0.10];
        for &f in &list {
            let s = shapes[f].rgba;
            let a = (s >> 24) as f32 / 255.0;
            for (k, ch) in c.iter_mut().enumerate() {
                *ch = *ch * (1.0 - a) + ((s >> (8 * k)) & 255) as f32 / 255.0 * a;
            }
        }
        for (k, ch) in c.iter().enumerate() {
            let want = (ch.clamp(0.0, 1.0) * 255.0 + 0.5) as i32;
            let got = ((rgba[i] >> (8 * k)) & 255) as i32;
            if (want - got).abs() > 1 {
                return Err(format!(
                    "pixel {i} channel {k}: GPU {got}, CPU sort-and-blend {want}"
                ));
            }
        }
    }
    println!("every fragment has its node; the picture equals the CPU sort-and-blend within 1/255");
    Ok(())
}
