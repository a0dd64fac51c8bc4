//! `raster`: a software rasterizer in compute. A procedural torus knot of
//! tens of thousands of triangles is rasterized into a visibility buffer —
//! an r32ui image2D where each covered pixel keeps
//! imageAtomicMin(depth << 16 | triangle id) — and a second pass shades from
//! it. Checks the visibility buffer against a CPU rasterization with the
//! same fixed-point rules, pixel for pixel.
//!
//! `cargo run --release --example raster -- [--backend NAME] [--out FILE.png] [--size WxH]`

#[path = "../common/mod.rs"]
mod common;

use atomport::{Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat};

/// Triangles whose pixel bounding box is this wide or tall are skipped (on
/// both sides), keeping each invocation's loop short.
const MAX_BOX: i32 = 128;
const EMPTY: u32 = u32::MAX;

type V3 = [f32; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V3) -> V3 {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt().max(1e-12);
    [a[0] / l, a[1] / l, a[2] / l]
}

/// A (2, 3) torus knot tube: `u` segments along the curve, `v` around it.
fn torus_knot(u: usize, v: usize) -> (Vec<V3>, Vec<[usize; 3]>) {
    let curve = |t: f32| -> V3 {
        let r = 2.0 + (3.0 * t).cos();
        [
            r * (2.0 * t).cos(),
            r * (2.0 * t).sin(),
            (3.0 * t).sin() * 1.2,
        ]
    };
    let mut verts = Vec::with_capacity(u * v);
    for i in 0..u {
        let t = i as f32 / u as f32 * std::f32::consts::TAU;
        let (p, q) = (curve(t), curve(t + 1e-3));
        let tangent = norm(sub(q, p));
        let side = norm(cross(tangent, [0.0, 0.0, 1.0]));
        let up = cross(side, tangent);
        for j in 0..v {
            let a = j as f32 / v as f32 * std::f32::consts::TAU;
            let (c, s) = (a.cos() * 0.42, a.sin() * 0.42);
            verts.push([
                p[0] + side[0] * c + up[0] * s,
                p[1] + side[1] * c + up[1] * s,
                p[2] + side[2] * c + up[2] * s,
            ]);
        }
    }
    let mut tris = Vec::with_capacity(u * v * 2);
    for i in 0..u {
        for j in 0..v {
            let (a, b) = (i * v + j, ((i + 1) % u) * v + j);
            let (c, d) = (i * v + (j + 1) % v, ((i + 1) % u) * v + (j + 1) % v);
            tris.push([a, b, d]);
            tris.push([a, d, c]);
        }
    }
    (verts, tris)
}

/// Screen-space triangles in 28.4 fixed point with their keys, and shading data.
fn project(w: u32, h: u32, verts: &[V3], tris: &[[usize; 3]]) -> (Vec<[i32; 8]>, Vec<[f32; 4]>) {
    let (ry, rx) = (0.5f32, -0.45f32);
    let rotate = |p: V3| -> V3 {
        let (x, z) = (
            p[0] * ry.cos() + p[2] * ry.sin(),
            -p[0] * ry.sin() + p[2] * ry.cos(),
        );
        let (y, z) = (
            p[1] * rx.cos() - z * rx.sin(),
            p[1] * rx.sin() + z * rx.cos(),
        );
        [x, y, z]
    };
    let dist = 9.0f32;
    let focal = 0.95 * w.min(h) as f32 * dist / 8.0;
    let world: Vec<V3> = verts.iter().map(|&p| rotate(p)).collect();
    let screen: Vec<(i32, i32, f32)> = world
        .iter()
        .map(|p| {
            let zc = dist - p[2];
            let sx = w as f32 / 2.0 + p[0] * focal / zc;
            let sy = h as f32 / 2.0 - p[1] * focal / zc;
            ((sx * 16.0).round() as i32, (sy * 16.0).round() as i32, zc)
        })
        .collect();
    let mut out = Vec::with_capacity(tris.len());
    let mut shading = Vec::with_capacity(tris.len());
    for (id, t) in tris.iter().enumerate() {
        let (a, b, c) = (screen[t[0]], screen[t[1]], screen[t[2]]);
        let depth = (a.2 + b.2 + c.2) / 3.0;
        let zq = (((depth - (dist - 5.0)) / 10.0).clamp(0.0, 1.0) * 65535.0) as u32;
        let key = (zq << 16 | id as u32) as i32;
        out.push([a.0, a.1, b.0, b.1, c.0, c.1, key, 0]);
        let n = norm(cross(
            sub(world[t[1]], world[t[0]]),
            sub(world[t[2]], world[t[0]]),
        ));
        // Face the viewer (the tube is closed, so the nearest face is the outside).
        let n = if n[2] < 0.0 { [-n[0], -n[1], -n[2]] } else { n };
        shading.push([
            n[0],
            n[1],
            n[2],
            (id / 2) as f32 / (tris.len() / 2) as f32 * 3.0,
        ]);
    }
    (out, shading)
}

fn main() {
    let args = common::args("raster", (640, 480));
    let (w, h) = (args.width.min(1024), args.height.min(1024));
    let ctx = common::context(&args, wgpu::Features::empty());
    let raster = common::kernel("raster.comp", include_str!("raster.comp"));
    let shade = common::kernel("shade.comp", include_str!("shade.comp"));
    let (verts, tris) = torus_knot(720, 36);
    let (screen, shading) = project(w, h, &verts, &tris);
    println!(
        "rasterizing a torus knot of {} triangles into a {w}x{h} visibility buffer",
        tris.len()
    );
    let desc = common::ok(ImageDesc::new(
        ImageDim::D2,
        ImageFormat::R32Uint,
        &[w, h],
        1,
    ));
    let vis = common::ok(Image::filled(&ctx, desc, EMPTY));
    let flat: Vec<i32> = screen.iter().flatten().copied().collect();
    let tri_buf = common::ok(Buffer::from_slice(&ctx, &flat));
    let shade_buf = common::ok(Buffer::from_slice(&ctx, &shading));
    let colors = common::ok(Buffer::zeroed(&ctx, (w * h * 4) as u64));
    let params = common::ok(Buffer::from_slice(
        &ctx,
        &[tris.len() as u32, w, h, MAX_BOX as u32],
    ));
    common::pass(
        &ctx,
        "raster pass (imageAtomicMin)",
        &raster,
        [(tris.len() as u32).div_ceil(64), 1, 1],
        &[
            Bind::image(0, 0, &vis),
            Bind::new(0, 1, &tri_buf),
            Bind::new(0, 2, &params),
        ],
    );
    common::pass(
        &ctx,
        "shade pass",
        &shade,
        [w.div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::image(0, 0, &vis),
            Bind::new(0, 1, &shade_buf),
            Bind::new(0, 2, &colors),
            Bind::new(0, 3, &params),
        ],
    );
    let visibility: Vec<u32> = common::ok(vis.read(&ctx));
    let rgba: Vec<u32> = common::ok(colors.read(&ctx));
    common::write_png(&args.out, w, h, bytemuck::cast_slice(&rgba));
    common::check(verify(w, h, &screen, &visibility));
}

fn edge(a: (i32, i32), b: (i32, i32), p: (i32, i32)) -> i32 {
    (b.0.wrapping_sub(a.0))
        .wrapping_mul(p.1.wrapping_sub(a.1))
        .wrapping_sub((b.1.wrapping_sub(a.1)).wrapping_mul(p.0.wrapping_sub(a.0)))
}

fn bias(a: (i32, i32), b: (i32, i32)) -> i32 {
    let top = a.1 == b.1 && b.0 < a.0;
    let left = b.1 > a.1;
    if top || left { 0 } else { -1 }
}

/// The same rasterization on the CPU.
fn reference(w: u32, h: u32, screen: &[[i32; 8]]) -> Vec<u32> {
    let mut vis = vec![EMPTY; (w * h) as usize];
    for t in screen {
        let (v0, mut v1, mut v2) = ((t[0], t[1]), (t[2], t[3]), (t[4], t[5]));
        let key = t[6] as u32;
        let area = edge(v0, v1, v2);
        if area == 0 {
            continue;
        }
        if area < 0 {
            std::mem::swap(&mut v1, &mut v2);
        }
        let minx = (v0.0.min(v1.0).min(v2.0) >> 4).max(0);
        let miny = (v0.1.min(v1.1).min(v2.1) >> 4).max(0);
        let maxx = ((v0.0.max(v1.0).max(v2.0) + 15) >> 4).min(w as i32 - 1);
        let maxy = ((v0.1.max(v1.1).max(v2.1) + 15) >> 4).min(h as i32 - 1);
        if maxx < minx || maxy < miny || maxx - minx >= MAX_BOX || maxy - miny >= MAX_BOX {
            continue;
        }
        let (b0, b1, b2) = (bias(v1, v2), bias(v2, v0), bias(v0, v1));
        for py in miny..=maxy {
            for px in minx..=maxx {
                let p = (px * 16 + 8, py * 16 + 8);
                if edge(v1, v2, p) + b0 >= 0
                    && edge(v2, v0, p) + b1 >= 0
                    && edge(v0, v1, p) + b2 >= 0
                {
                    let i = (py as u32 * w + px as u32) as usize;
                    vis[i] = vis[i].min(key);
                }
            }
        }
    }
    vis
}

fn verify(w: u32, h: u32, screen: &[[i32; 8]], vis: &[u32]) -> Result<(), String> {
    let expected = reference(w, h, screen);
    if let Some(i) = (0..vis.len()).find(|&i| vis[i] != expected[i]) {
        return Err(format!(
            "pixel ({}, {}): GPU {:#010x}, CPU {:#010x}",
            i as u32 % w,
            i as u32 / w,
            vis[i],
            expected[i]
        ));
    }
    let covered = vis.iter().filter(|&&k| k != EMPTY).count();
    println!(
        "visibility buffer equals the CPU rasterization: {covered} of {} pixels covered",
        vis.len()
    );
    Ok(())
}
