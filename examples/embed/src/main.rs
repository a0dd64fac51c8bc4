//! `embed`: a wgpu program that uses atomport the way a renderer would. It
//! opens its own device, loads kernels that `build.rs` translated from GLSL
//! at build time (no glslang at run time), records them into its own
//! command encoder — a compaction pass whose atomics write the workgroup
//! count of an indirect histogram pass — submits once, and checks the
//! result against the CPU.
//!
//! `cargo run --release -p embed -- [--backend vulkan|gl]` (a member of
//! atomport's workspace; `cargo run --release` in examples/embed does the same).

use std::time::Duration;

use atomport::{Bind, Buffer, Context, Kernel, SourceOptions, Uniforms, Workgroups, wgpu};

fn main() {
    // SAFETY: first thing in main, before any other thread exists.
    unsafe { atomport::quiet_headless_probing() };
    let backend = std::env::args()
        .skip_while(|a| a != "--backend")
        .nth(1)
        .map(|b| match b.as_str() {
            "vulkan" => wgpu::Backends::VULKAN,
            "gl" => wgpu::Backends::GL,
            other => {
                eprintln!("embed: unknown backend {other}");
                std::process::exit(2);
            }
        })
        .unwrap_or(wgpu::Backends::all());
    if let Err(e) = run(backend) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(backends: wgpu::Backends) -> Result<(), Box<dyn std::error::Error>> {
    // The application's own device, as it would open it for rendering.
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("application device"),
        required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
        ..Default::default()
    }))?;
    println!(
        "adapter: {} ({:?})",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    let ctx = Context::from_wgpu(
        adapter.get_info(),
        device.clone(),
        queue.clone(),
        Duration::from_secs(30),
    )?;
    // Kernels translated at build time.
    let compact = Kernel::from_wgsl(
        include_str!(concat!(env!("OUT_DIR"), "/compact.wgsl")),
        &SourceOptions::named("compact.wgsl"),
    )?;
    let histogram = Kernel::from_wgsl(
        include_str!(concat!(env!("OUT_DIR"), "/histogram.wgsl")),
        &SourceOptions::named("histogram.wgsl"),
    )?;
    // Data: a pseudo-random stream.
    let n = 10_000u32;
    let mut x = 12345u32;
    let values: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % 1000
        })
        .collect();
    let threshold = 700u32;
    let input = Buffer::from_slice(&ctx, &values)?;
    let kept = Buffer::zeroed(&ctx, 4 + u64::from(n) * 4)?;
    let args = Buffer::zeroed(&ctx, 12)?;
    let bins = Buffer::zeroed(&ctx, 16 * 4)?;
    let mut params = Uniforms::block(&compact, "Params")?;
    params.set("threshold", threshold)?.set("n", n)?;
    let params = params.to_buffer(&ctx)?;
    // The application's encoder: two atomport passes, then its own copy.
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("application readback"),
        size: 16 * 4,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    ctx.encode_into(
        &mut encoder,
        &compact,
        Workgroups::Count([n.div_ceil(64), 1, 1]),
        &[
            Bind::named("Input", &input),
            Bind::named("Kept", &kept),
            Bind::named("Args", &args),
            Bind::named("Params", &params),
        ],
    )?;
    ctx.encode_into(
        &mut encoder,
        &histogram,
        Workgroups::Indirect {
            buffer: &args,
            offset: 0,
        },
        &[Bind::named("Kept", &kept), Bind::named("Bins", &bins)],
    )?;
    encoder.copy_buffer_to_buffer(bins.raw(), 0, &readback, 0, 16 * 4);
    let start = std::time::Instant::now();
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap_or(()));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    rx.recv()??;
    let got: Vec<u32> = readback
        .slice(..)
        .get_mapped_range()?
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    println!(
        "compaction + indirect histogram of {n} values in one submission: {:.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let mut want = [0u32; 16];
    for v in values.iter().filter(|&&v| v >= threshold) {
        want[(v % 16) as usize] += 1;
    }
    let groups = args.read::<u32>(&ctx)?;
    let count = kept.read::<u32>(&ctx)?[0];
    if got != want || groups[0] != count.div_ceil(64).max(1) {
        eprintln!(
            "bins {got:?} against the CPU's {want:?}; indirect groups {groups:?} for {count} kept"
        );
        std::process::exit(1);
    }
    println!(
        "{count} values kept, {} indirect workgroups, 16 bins equal to the CPU's",
        groups[0]
    );
    println!("check: passed");
    Ok(())
}
