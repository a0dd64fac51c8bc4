//! Throughput of atomport's mappings against the nearest native WGSL, on one
//! adapter, as ratios of medians taken in one interleaved run:
//!
//! - strong compare-swap (atomport's retry loop) against a single
//!   `atomicCompareExchangeWeak`, uncontended;
//! - imageAtomicAdd on a 1024×1024 r32ui image2D, through atomport's texel
//!   buffer, against native `textureAtomicAdd` (wgpu TEXTURE_ATOMIC),
//!   uncontended and with 5 invocations per texel;
//! - imageAtomicCompSwap against buffer atomicCompSwap on as many words;
//! - float atomicMax (GL_EXT_shader_atomic_float2: the int atomic on the
//!   bits for a non-negative value) against native float atomicAdd
//!   (`atomic<f32>`, wgpu SHADER_FLOAT32_ATOMIC), every call changing the
//!   value; and the emulated float atomicAdd (a compare-exchange loop)
//!   against the same native one; uncontended (each invocation its own
//!   word) and contended (every 1 024 invocations on one word).
//!
//! `cargo bench --bench atomics [-- --backend NAME] [-- --runs N]`

use std::time::{Duration, Instant};

#[path = "common/mod.rs"]
mod common;

use atomport::{
    Bind, Buffer, Context, ContextOptions, Image, ImageDesc, ImageDim, ImageFormat, Kernel,
    SourceOptions,
};

const ROUNDS: u32 = 1000;

fn strong_kernel() -> Kernel {
    let src = format!(
        "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer B {{ uint cells[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint v = 0u;
    for (uint k = 0u; k < {ROUNDS}u; k++) {{
        v = atomicCompSwap(cells[i], v, v + 1u) + 1u;
    }}
}}
"
    );
    Kernel::from_glsl(&src, &SourceOptions::named("strong.comp")).unwrap()
}

fn weak_kernel() -> Kernel {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    var v = 0u;
    for (var k = 0u; k < {ROUNDS}u; k++) {{
        v = atomicCompareExchangeWeak(&cells[i], v, v + 1u).old_value + 1u;
    }}
}}
"
    );
    Kernel::from_wgsl(&src, &SourceOptions::named("weak.wgsl")).unwrap()
}

/// Interleaved medians of two dispatches; each run starts from zeroed cells
/// and is checked.
fn compare(
    ctx: &Context,
    a: &Kernel,
    b: &Kernel,
    groups: u32,
    runs: usize,
) -> (Duration, Duration) {
    let n = groups as usize * 64;
    let cells = Buffer::zeroed(ctx, n as u64 * 4).unwrap();
    let zeros = vec![0u32; n];
    let run = |k: &Kernel| {
        cells.write(ctx, &zeros).unwrap();
        let t = Instant::now();
        ctx.dispatch(k, [groups, 1, 1], &[Bind::new(0, 0, &cells)])
            .unwrap();
        let d = t.elapsed();
        let got = cells.read::<u32>(ctx).unwrap();
        assert!(
            got.iter().all(|&c| c == ROUNDS),
            "every compare-swap succeeds uncontended"
        );
        d
    };
    common::interleaved(runs, || run(a), || run(b))
}

const SIDE: u32 = 1024;

/// imageAtomicAdd of 1 at texel (i % SIDE², …) for `per_texel` × SIDE² invocations.
fn image_add_kernel(per_texel: u32) -> Kernel {
    let src = format!(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() {{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65536u;
    if (i >= {n}u) return;
    uint t = i % {texels}u;
    imageAtomicAdd(img, ivec2(t % {SIDE}u, t / {SIDE}u), 1u);
}}
",
        n = SIDE * SIDE * per_texel,
        texels = SIDE * SIDE
    );
    Kernel::from_glsl(&src, &SourceOptions::named("image_add.comp")).unwrap()
}

/// The same work on a real storage texture with WGSL's textureAtomicAdd, in plain wgpu.
struct NativeImageAdd {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    texture: wgpu::Texture,
}

impl NativeImageAdd {
    fn new(ctx: &Context, per_texel: u32) -> NativeImageAdd {
        let src = format!(
            "@group(0) @binding(0) var img: texture_storage_2d<r32uint, atomic>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x + id.y * 65536u;
    if i >= {n}u {{ return; }}
    let t = i % {texels}u;
    textureAtomicAdd(img, vec2<u32>(t % {SIDE}u, t / {SIDE}u), 1u);
}}
",
            n = SIDE * SIDE * per_texel,
            texels = SIDE * SIDE
        );
        let device = ctx.device();
        let pipeline = common::raw_pipeline(device, &src);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: SIDE,
                height: SIDE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Uint,
            usage: wgpu::TextureUsages::STORAGE_ATOMIC
                | wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        NativeImageAdd {
            pipeline,
            bind_group,
            texture,
        }
    }

    fn run(&self, ctx: &Context, groups: [u32; 3]) {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        ctx.queue().submit([encoder.finish()]);
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
    }
}

/// (x, y) workgroups covering `n` invocations of 64, y in units of 65536 invocations.
fn groups_for(n: u32) -> [u32; 3] {
    let per_row = 65536 / 64;
    [per_row.min(n.div_ceil(64)), n.div_ceil(65536), 1]
}

fn image_add(ctx: &Context, per_texel: u32, runs: usize) {
    let kernel = image_add_kernel(per_texel);
    let native = NativeImageAdd::new(ctx, per_texel);
    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[SIDE, SIDE], 1).unwrap();
    let img = Image::zeroed(ctx, desc).unwrap();
    let groups = groups_for(SIDE * SIDE * per_texel);
    let (a, n) = common::interleaved(
        runs,
        || {
            common::time(|| {
                ctx.dispatch(&kernel, groups, &[Bind::image(0, 0, &img)])
                    .unwrap()
            })
        },
        || common::time(|| native.run(ctx, groups)),
    );
    let texels = img.read::<u32>(ctx).unwrap();
    assert!(
        texels.iter().all(|&t| t == per_texel * (runs as u32 + 1)),
        "every add landed"
    );
    // The native texture got as many adds: read one texel back to be sure it ran.
    let check = Image::zeroed(ctx, desc).unwrap();
    check
        .copy_from_textures(ctx, std::slice::from_ref(&native.texture))
        .unwrap();
    assert!(
        check
            .read::<u32>(ctx)
            .unwrap()
            .iter()
            .all(|&t| t == per_texel * (runs as u32 + 1))
    );
    let ops = (SIDE * SIDE * per_texel) as f64;
    println!(
        "imageAtomicAdd 1024x1024, {per_texel} per texel: texel buffer {:.1} ms ({:.0} M/s), native textureAtomicAdd {:.1} ms ({:.0} M/s), throughput ratio buffer/native {:.3}",
        a.as_secs_f64() * 1e3,
        ops / a.as_secs_f64() / 1e6,
        n.as_secs_f64() * 1e3,
        ops / n.as_secs_f64() / 1e6,
        n.as_secs_f64() / a.as_secs_f64()
    );
}

fn compswap_image_vs_buffer(ctx: &Context, runs: usize) {
    let n = SIDE * SIDE;
    let image = Kernel::from_glsl(
        &format!(
            "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() {{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65536u;
    if (i >= {n}u) return;
    ivec2 p = ivec2(i % {SIDE}u, i / {SIDE}u);
    uint v = imageAtomicCompSwap(img, p, 0u, i + 1u);
    imageAtomicCompSwap(img, p, v, v + 1u);
}}
"
        ),
        &SourceOptions::named("image_cas.comp"),
    )
    .unwrap();
    let buffer = Kernel::from_glsl(
        &format!(
            "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B {{ uint cells[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65536u;
    if (i >= {n}u) return;
    uint v = atomicCompSwap(cells[i], 0u, i + 1u);
    atomicCompSwap(cells[i], v, v + 1u);
}}
"
        ),
        &SourceOptions::named("buffer_cas.comp"),
    )
    .unwrap();
    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[SIDE, SIDE], 1).unwrap();
    let img = Image::zeroed(ctx, desc).unwrap();
    let cells = Buffer::zeroed(ctx, n as u64 * 4).unwrap();
    let groups = groups_for(n);
    let (a, b) = common::interleaved(
        runs,
        || {
            common::time(|| {
                ctx.dispatch(&image, groups, &[Bind::image(0, 0, &img)])
                    .unwrap()
            })
        },
        || {
            common::time(|| {
                ctx.dispatch(&buffer, groups, &[Bind::new(0, 0, &cells)])
                    .unwrap()
            })
        },
    );
    let ops = 2.0 * n as f64;
    println!(
        "compare-swap on 1M locations: imageAtomicCompSwap {:.1} ms ({:.0} M/s), buffer atomicCompSwap {:.1} ms ({:.0} M/s), throughput ratio image/buffer {:.3}",
        a.as_secs_f64() * 1e3,
        ops / a.as_secs_f64() / 1e6,
        b.as_secs_f64() * 1e3,
        ops / b.as_secs_f64() / 1e6,
        b.as_secs_f64() / a.as_secs_f64()
    );
}

/// One float atomic per round on word `i % words` (each invocation its own
/// word when `words` is the invocation count): atomicMax of a value that
/// rises every round, so that every call writes; atomicAdd of 1.0, so that
/// the sums are exact whatever the order.
fn float_kernel(call: &str, native: bool, words: usize) -> Kernel {
    let value = if call == "atomicMax" {
        "float(k)"
    } else {
        "1.0"
    };
    let src = format!(
        "#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer B {{ float cells[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x % {words}u;
    for (uint k = 1u; k <= {ROUNDS}u; k++) {{
        {call}(cells[i], {value});
    }}
}}
"
    );
    let mut o = SourceOptions::named("float.comp");
    o.native_float_atomics = native;
    Kernel::from_glsl(&src, &o).unwrap()
}

/// Float atomicMax and the emulated atomicAdd against native atomicAdd,
/// with every invocation on a word of its own, or `n / words` on each.
fn float_vs_native_add(ctx: &Context, runs: usize, words: usize) {
    let groups = 1024u32;
    let n = groups as usize * 64;
    let cells = Buffer::zeroed(ctx, words as u64 * 4).unwrap();
    let zeros = vec![0f32; words];
    let max = float_kernel("atomicMax", false, words);
    let emulated_add = float_kernel("atomicAdd", false, words);
    let native_add = float_kernel("atomicAdd", true, words);
    assert!(!native_add.wgsl().contains("atomicCompareExchangeWeak"));
    let run = |k: &Kernel, expected: f32| {
        cells.write(ctx, &zeros).unwrap();
        let t = Instant::now();
        ctx.dispatch(k, [groups, 1, 1], &[Bind::new(0, 0, &cells)])
            .unwrap();
        let d = t.elapsed();
        let got = cells.read::<f32>(ctx).unwrap();
        assert!(got.iter().all(|&c| c == expected), "{}", got[0]);
        d
    };
    let sum = (ROUNDS as usize * (n / words)) as f32;
    let (a, b) = common::interleaved(runs, || run(&max, ROUNDS as f32), || run(&native_add, sum));
    let (c, d) = common::interleaved(runs, || run(&emulated_add, sum), || run(&native_add, sum));
    let ops = n as f64 * ROUNDS as f64;
    let what = if words == n {
        "uncontended".to_string()
    } else {
        format!("{} invocations a word", n / words)
    };
    println!(
        "float atomics, {what}: atomicMax {:.1} ms ({:.0} M/s), native atomicAdd {:.1} ms ({:.0} M/s), throughput ratio max/native-add {:.3}",
        a.as_secs_f64() * 1e3,
        ops / a.as_secs_f64() / 1e6,
        b.as_secs_f64() * 1e3,
        ops / b.as_secs_f64() / 1e6,
        b.as_secs_f64() / a.as_secs_f64()
    );
    println!(
        "float atomicAdd, {what}: loop {:.1} ms, native {:.1} ms, throughput ratio loop/native {:.3}",
        c.as_secs_f64() * 1e3,
        d.as_secs_f64() * 1e3,
        d.as_secs_f64() / c.as_secs_f64()
    );
}

fn main() {
    let (backend, runs) = common::backend_and_runs(15);
    let opts = ContextOptions::default().with_backend(backend);
    // Native texture atomics for the comparison, where the adapter has them.
    let texture_atomic = opts
        .adapter_features()
        .unwrap()
        .contains(wgpu::Features::TEXTURE_ATOMIC);
    let float_atomic = opts
        .adapter_features()
        .unwrap()
        .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC);
    let opts = if texture_atomic {
        opts.with_features(wgpu::Features::TEXTURE_ATOMIC)
    } else {
        opts
    };
    let opts = if float_atomic {
        opts.with_features(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    } else {
        opts
    };
    let ctx = Context::new(&opts).unwrap();
    println!(
        "atomics throughput on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let (strong, weak) = compare(&ctx, &strong_kernel(), &weak_kernel(), 1024, runs);
    let ops = 1024.0 * 64.0 * ROUNDS as f64;
    println!(
        "compare-swap uncontended: strong loop {:.1} ms ({:.0} M/s), single weak {:.1} ms ({:.0} M/s), time ratio strong/weak {:.3}",
        strong.as_secs_f64() * 1e3,
        ops / strong.as_secs_f64() / 1e6,
        weak.as_secs_f64() * 1e3,
        ops / weak.as_secs_f64() / 1e6,
        strong.as_secs_f64() / weak.as_secs_f64()
    );
    if texture_atomic {
        image_add(&ctx, 1, runs);
        image_add(&ctx, 5, runs);
    } else {
        println!(
            "imageAtomicAdd against textureAtomicAdd: skipped, the adapter lacks TEXTURE_ATOMIC"
        );
    }
    compswap_image_vs_buffer(&ctx, runs);
    if float_atomic {
        float_vs_native_add(&ctx, runs, 1024 * 64);
        float_vs_native_add(&ctx, runs, 64);
    } else {
        println!(
            "float atomicMax against native atomicAdd: skipped, the adapter lacks SHADER_FLOAT32_ATOMIC"
        );
    }
}
