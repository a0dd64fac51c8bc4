//! Overhead of atomport's dispatch layer against hand-written wgpu code doing
//! the same dispatch and readback on the same device: the median of many
//! interleaved runs of each, reported as the ratio atomport / raw. And the
//! cost of setting eight loose uniforms of an OpenGL-dialect kernel by name
//! ([`atomport::Uniforms`]) against filling the same std140 bytes by hand;
//! and 200 chained dispatches in one [`atomport::Batch`] against the same
//! recorded by hand into one encoder; and a 16-byte push-constant block set
//! by name against the same kernel written with a uniform block whose
//! buffer is filled by hand.
//!
//! `cargo bench --bench dispatch_overhead [-- --backend NAME] [-- --runs N]`

use std::time::Instant;

#[path = "common/mod.rs"]
mod common;

use atomport::{Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions, Uniforms};

/// The same work written directly against wgpu.
struct Raw {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    buffer: wgpu::Buffer,
    staging: wgpu::Buffer,
    size: u64,
}

impl Raw {
    fn new(ctx: &Context, wgsl: &str, words: u64) -> Raw {
        let device = ctx.device();
        let pipeline = common::raw_pipeline(device, wgsl);
        let size = words * 4;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        Raw {
            pipeline,
            bind_group,
            buffer,
            staging,
            size,
        }
    }

    fn run(&self, ctx: &Context, groups: [u32; 3]) -> Vec<u8> {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        encoder.copy_buffer_to_buffer(&self.buffer, 0, &self.staging, 0, self.size);
        ctx.queue().submit([encoder.finish()]);
        let slice = self.staging.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        rx.recv().unwrap().unwrap();
        let out = slice.get_mapped_range().unwrap().to_vec();
        self.staging.unmap();
        out
    }
}

fn case(ctx: &Context, kernel: &Kernel, name: &str, groups: [u32; 3], words: u64, runs: usize) {
    let raw = Raw::new(ctx, kernel.wgsl(), words);
    let buf = Buffer::zeroed(ctx, words * 4).unwrap();
    let binds = [Bind::new(0, 0, &buf)];
    let expected: Vec<u32> = (0..words as u32).collect();
    // Warm up both paths (pipeline compile, first allocations) and check them.
    let a = ctx.dispatch_and_read(kernel, groups, &binds).unwrap();
    let r = raw.run(ctx, groups);
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&a[0]),
        &expected[..],
        "atomport result"
    );
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&r),
        &expected[..],
        "raw result"
    );
    let (ma, mr) = common::interleaved(
        runs,
        || {
            let t = Instant::now();
            std::hint::black_box(ctx.dispatch_and_read(kernel, groups, &binds).unwrap());
            t.elapsed()
        },
        || {
            let t = Instant::now();
            std::hint::black_box(raw.run(ctx, groups));
            t.elapsed()
        },
    );
    println!(
        "{name:<6} {:>8} invocations {:>9} B readback  atomport {:>10.1?}  raw {:>10.1?}  ratio {:.3}",
        groups.iter().product::<u32>() * 64,
        words * 4,
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
}

/// An OpenGL-dialect kernel with eight loose uniforms.
const LOOSE_UNIFORMS: &str = "#version 430
layout(local_size_x = 64) in;
uniform uint u_a;
uniform int u_b;
uniform float u_c;
uniform vec2 u_d;
uniform vec3 u_e;
uniform vec4 u_f;
uniform uvec2 u_g;
uniform float u_h;
layout(std430, binding = 0) buffer Out { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = float(u_a) + float(u_b) + u_c + u_d.y + u_e.z + u_f.w + float(u_g.x) + u_h + float(i);
}";

/// The uniform block as a programmer fills it by hand from std140's rules.
fn std140_by_hand(k: u32) -> [u32; 20] {
    let f = |v: f32| v.to_bits();
    let mut w = [0u32; 20];
    w[0] = k; // u_a @0
    w[1] = (-(k as i32)) as u32; // u_b @4
    w[2] = f(0.5); // u_c @8
    w[4] = f(1.0); // u_d @16
    w[5] = f(2.0);
    w[8] = f(3.0); // u_e @32
    w[9] = f(4.0);
    w[10] = f(k as f32);
    w[12] = f(6.0); // u_f @48
    w[13] = f(7.0);
    w[14] = f(8.0);
    w[15] = f(9.0);
    w[16] = 10; // u_g @64
    w[17] = k;
    w[18] = f(0.25); // u_h @72
    w
}

/// Dispatch with eight uniforms set by name against the same dispatch with
/// the block filled by hand; checks both give the same bytes and results.
fn uniforms_case(ctx: &Context, runs: usize) {
    let kernel = Kernel::from_glsl(LOOSE_UNIFORMS, &SourceOptions::named("loose.comp")).unwrap();
    let out = Buffer::zeroed(ctx, 64 * 4).unwrap();
    let by_name = Buffer::zeroed(ctx, 80).unwrap();
    let by_hand = Buffer::zeroed(ctx, 80).unwrap();
    let mut u = Uniforms::new(&kernel).unwrap();
    let set = |u: &mut Uniforms, k: u32| {
        u.set("u_a", k).unwrap();
        u.set("u_b", -(k as i32)).unwrap();
        u.set("u_c", 0.5f32).unwrap();
        u.set("u_d", [1.0f32, 2.0]).unwrap();
        u.set("u_e", [3.0f32, 4.0, k as f32]).unwrap();
        u.set("u_f", [6.0f32, 7.0, 8.0, 9.0]).unwrap();
        u.set("u_g", [10u32, k]).unwrap();
        u.set("u_h", 0.25f32).unwrap();
    };
    set(&mut u, 3);
    assert_eq!(
        u.bytes().unwrap(),
        bytemuck::cast_slice::<u32, u8>(&std140_by_hand(3)),
        "the named block equals the hand-filled one"
    );
    // Both sides write the same values in each round.
    let k = std::cell::Cell::new(0u32);
    let (ma, mr) = common::interleaved(
        runs,
        || {
            k.set(k.get() + 1);
            let t = Instant::now();
            set(&mut u, k.get());
            u.write_to(ctx, &by_name).unwrap();
            std::hint::black_box(
                ctx.dispatch_and_read(
                    &kernel,
                    [1, 1, 1],
                    &[
                        Bind::named("gl_DefaultUniformBlock", &by_name),
                        Bind::named("Out", &out),
                    ],
                )
                .unwrap(),
            );
            t.elapsed()
        },
        || {
            let t = Instant::now();
            by_hand.write(ctx, &std140_by_hand(k.get())).unwrap();
            let (g, b) = (
                0,
                kernel
                    .binding_named("gl_DefaultUniformBlock")
                    .unwrap()
                    .binding,
            );
            std::hint::black_box(
                ctx.dispatch_and_read(
                    &kernel,
                    [1, 1, 1],
                    &[Bind::new(g, b, &by_hand), Bind::new(0, 0, &out)],
                )
                .unwrap(),
            );
            t.elapsed()
        },
    );
    println!(
        "8 loose uniforms set by name {:>10.1?}  filled by hand {:>10.1?}  ratio {:.3}",
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
}

/// A kernel with a 16-byte push block, or (`block` = `uniform`) the same
/// parameters in a uniform block at binding 1.
fn push_kernel(block: &str) -> String {
    let decl = if block == "push" {
        "layout(push_constant) uniform Params"
    } else {
        "layout(set = 0, binding = 1) uniform Params"
    };
    format!(
        "#version 450
layout(local_size_x = 64) in;
{decl} {{ uint count; uint stride; float scale; float bias; }} p;
layout(set = 0, binding = 0) buffer Out {{ float o[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i < p.count) o[i * p.stride] = float(i) * p.scale + p.bias;
}}"
    )
}

/// A dispatch whose 16-byte push block is set by name against the same
/// dispatch of a uniform-block kernel whose buffer is written by hand.
fn push_case(ctx: &Context, runs: usize) {
    let push = Kernel::from_glsl(&push_kernel("push"), &SourceOptions::named("push.comp")).unwrap();
    let hand =
        Kernel::from_glsl(&push_kernel("uniform"), &SourceOptions::named("hand.comp")).unwrap();
    let out = Buffer::zeroed(ctx, 64 * 4).unwrap();
    let push_buf = Buffer::zeroed(ctx, 16).unwrap();
    let hand_buf = Buffer::zeroed(ctx, 16).unwrap();
    let mut pc = Uniforms::push(&push).unwrap();
    let k = std::cell::Cell::new(0u32);
    let (ma, mr) = common::interleaved(
        runs,
        || {
            k.set(k.get() + 1);
            let t = Instant::now();
            pc.set("count", 64u32).unwrap();
            pc.set("stride", 1u32).unwrap();
            pc.set("scale", k.get() as f32).unwrap();
            pc.set("bias", 0.5f32).unwrap();
            pc.write_to(ctx, &push_buf).unwrap();
            std::hint::black_box(
                ctx.dispatch_and_read(
                    &push,
                    [1, 1, 1],
                    &[Bind::named("p", &push_buf), Bind::named("Out", &out)],
                )
                .unwrap(),
            );
            t.elapsed()
        },
        || {
            let t = Instant::now();
            let words = [64u32, 1, (k.get() as f32).to_bits(), 0.5f32.to_bits()];
            hand_buf.write(ctx, &words).unwrap();
            std::hint::black_box(
                ctx.dispatch_and_read(
                    &hand,
                    [1, 1, 1],
                    &[Bind::new(0, 1, &hand_buf), Bind::new(0, 0, &out)],
                )
                .unwrap(),
            );
            t.elapsed()
        },
    );
    println!(
        "16-byte push block set by name {:>10.1?}  uniform buffer by hand {:>10.1?}  ratio {:.3}",
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
}

/// 200 dependent dispatches (each adds one to every word) in one batch,
/// against the same 200 passes recorded by hand and submitted once.
fn batch_case(ctx: &Context, runs: usize) {
    const PASSES: usize = 200;
    let kernel = Kernel::from_wgsl(
        "@group(0) @binding(0) var<storage, read_write> v: array<u32>;
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { v[id.x] += 1u; }",
        &SourceOptions::named("add.wgsl"),
    )
    .unwrap();
    let words = 4096u64;
    let buf = Buffer::zeroed(ctx, words * 4).unwrap();
    let device = ctx.device();
    let pipeline = common::raw_pipeline(device, kernel.wgsl());
    let raw_buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: words * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: raw_buf.as_entire_binding(),
        }],
    });
    let groups = (words / 64) as u32;
    let binds = [Bind::new(0, 0, &buf)];
    let batched = || {
        let mut b = ctx.batch();
        for _ in 0..PASSES {
            b.dispatch(&kernel, [groups, 1, 1], &binds).unwrap();
        }
        b.submit().unwrap();
    };
    let by_hand = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        for _ in 0..PASSES {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        ctx.queue().submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    };
    batched();
    assert!(
        buf.read::<u32>(ctx)
            .unwrap()
            .iter()
            .all(|&v| v == PASSES as u32)
    );
    let (ma, mr) = common::interleaved(runs, || common::time(batched), || common::time(by_hand));
    println!(
        "{PASSES} chained dispatches: one batch {:>10.1?}  recorded by hand {:>10.1?}  ratio {:.3}",
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
}

fn main() {
    let (backend, runs) = common::backend_and_runs(200);
    let kernel = Kernel::from_wgsl(
        include_str!("../wgsl/fill.wgsl"),
        &SourceOptions::named("fill.wgsl"),
    )
    .unwrap();
    let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
    println!(
        "dispatch overhead on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    case(&ctx, &kernel, "small", [1, 1, 1], 1024, runs);
    case(
        &ctx,
        &kernel,
        "large",
        [32768, 2, 1],
        1 << 22,
        (runs / 10).max(5),
    );
    uniforms_case(&ctx, runs);
    push_case(&ctx, runs);
    batch_case(&ctx, (runs / 4).max(10));
}
