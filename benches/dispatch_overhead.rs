//! Overhead of atomport's dispatch layer against hand-written wgpu code doing
//! the same dispatch and readback on the same device: the median of many
//! interleaved runs of each, reported as the ratio atomport / raw.
//!
//! `cargo bench --bench dispatch_overhead [-- --backend NAME] [-- --runs N]`

use std::time::Instant;

#[path = "common/mod.rs"]
mod common;

use atomport::{Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions};

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
}
