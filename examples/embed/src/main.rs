//! `embed`: a wgpu program that uses atomport the way a renderer would. It
//! opens its own device, loads kernels that `build.rs` translated from GLSL
//! at build time with their binding maps (`atomport::include_kernel!`: no
//! glslang and no SPIR-V reader at run time), records them into its own
//! command encoder — a compaction pass whose atomics write the workgroup
//! count of an indirect histogram pass — submits once, then runs a
//! per-tile maximum (a combined sampler, a push constant, `imageSize` and
//! `imageAtomicMax`), and checks every result against the CPU.
//!
//! `cargo run --release -p embed -- [--backend vulkan|gl]` (a member of
//! atomport's workspace; `cargo run --release` in examples/embed does the same).

use std::time::Duration;

use atomport::{
    Bind, Buffer, Context, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Sampler, SamplerDesc,
    Texture, TextureDesc, TextureDim, Uniforms, Workgroups, wgpu,
};

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
    // Kernels translated at build time, binding maps included.
    let compact = atomport::include_kernel!("compact")?;
    let histogram = atomport::include_kernel!("histogram")?;
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
    tile_maxima(&ctx, &atomport::include_kernel!("tile_max")?)?;
    println!("check: passed");
    Ok(())
}

/// A 37×29 height field's maxima over 8×8 tiles into a 4×3 image: the
/// rightmost column of tiles lies outside the image and is counted as
/// clipped. Checked against the CPU.
fn tile_maxima(ctx: &Context, kernel: &Kernel) -> Result<(), Box<dyn std::error::Error>> {
    let (w, h, tile, scale) = (37u32, 29u32, 8u32, 1000.0f32);
    let (tiles_x, tiles_y) = (4u32, 3u32);
    let heights: Vec<f32> = (0..w * h)
        .map(|i| ((i * 7919) % 1009) as f32 / 1009.0)
        .collect();
    let desc = TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::R32Float, &[w, h], 1)?;
    let texture = Texture::from_data(ctx, desc, bytemuck::cast_slice(&heights))?;
    let nearest = Sampler::new(ctx, SamplerDesc::default())?;
    let image = Image::zeroed(
        ctx,
        ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[tiles_x, tiles_y], 1)?,
    )?;
    let stats = Buffer::zeroed(ctx, 8)?;
    let mut params = Uniforms::push(kernel)?;
    params.set("tileSize", tile)?.set("scale", scale)?;
    let params = params.to_buffer(ctx)?;
    ctx.dispatch(
        kernel,
        [w.div_ceil(8), h.div_ceil(8), 1],
        &[
            Bind::named("heights", (&texture, &nearest)),
            Bind::named("tileMax", &image),
            Bind::named("stats", &stats),
            Bind::named("params", &params),
        ],
    )?;
    let mut want = vec![0u32; (tiles_x * tiles_y) as usize];
    let (mut samples, mut clipped) = (0u32, 0u32);
    for (i, v) in heights.iter().enumerate() {
        let (x, y) = (i as u32 % w / tile, i as u32 / w / tile);
        if x >= tiles_x || y >= tiles_y {
            clipped += 1;
            continue;
        }
        samples += 1;
        let q = (v.clamp(0.0, 1.0) * scale) as u32;
        let t = &mut want[(y * tiles_x + x) as usize];
        *t = (*t).max(q);
    }
    let got = image.read::<u32>(ctx)?;
    let counted = stats.read::<u32>(ctx)?;
    if got != want || counted != [samples, clipped] {
        return Err(format!(
            "tile maxima {got:?} against the CPU's {want:?}; counted {counted:?} against [{samples}, {clipped}]"
        )
        .into());
    }
    println!("{tiles_x}x{tiles_y} tile maxima of a {w}x{h} height field equal to the CPU's");
    Ok(())
}
