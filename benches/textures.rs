//! Binding the caller's `wgpu::Texture` (2048×2048 rgba8) to a dispatch
//! through atomport against the same dispatch in hand-written wgpu on the
//! same device: the median of many interleaved runs, as a ratio. No host
//! round trip: atomport wraps the texture and binds its view.
//!
//! And copying a 2048×2048 r32ui image to a texture and back through
//! atomport (`Image::copy_to_textures`/`copy_from_textures`, GPU copies)
//! against the same copies written by hand.
//!
//! `cargo bench --bench textures [-- --backend NAME] [-- --runs N]`

use std::time::Instant;

#[path = "common/mod.rs"]
mod common;

use atomport::{
    Bind, Buffer, Context, ContextOptions, Image, ImageDesc, ImageDim, ImageFormat, Kernel,
    SourceOptions, Texture, TextureDim,
};

/// Sums each row's red channel into a buffer.
const ROWS: &str = "#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform texture2D img;
layout(set = 0, binding = 1) buffer Sums { float sums[]; };
void main() {
    int y = int(gl_GlobalInvocationID.x);
    if (y >= 2048) return;
    float s = 0.0;
    for (int x = 0; x < 2048; x += 16) s += texelFetch(img, ivec2(x, y), 0).r;
    sums[y] = s;
}";

/// Image -> texture -> image through atomport against raw GPU copies.
fn image_copies(ctx: &Context, runs: usize) {
    let size = 2048u32;
    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[size, size], 1).unwrap();
    let texels: Vec<u32> = (0..size * size).collect();
    let image = Image::from_texels(ctx, desc, &texels).unwrap();
    let tex = ctx.device().create_texture(&image.texture_descriptor());
    let device = ctx.device();
    let raw = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(size * size * 4),
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let layout = wgpu::TexelCopyBufferLayout {
        offset: 0,
        bytes_per_row: Some(size * 4),
        rows_per_image: Some(size),
    };
    let by_hand = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer: &raw,
                layout,
            },
            tex.as_image_copy(),
            tex.size(),
        );
        encoder.copy_texture_to_buffer(
            tex.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &raw,
                layout,
            },
            tex.size(),
        );
        ctx.queue().submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    };
    let through_atomport = || {
        image
            .copy_to_textures(ctx, std::slice::from_ref(&tex))
            .unwrap();
        image
            .copy_from_textures(ctx, std::slice::from_ref(&tex))
            .unwrap();
    };
    through_atomport();
    assert_eq!(
        image.read::<u32>(ctx).unwrap(),
        texels,
        "the round trip keeps every texel"
    );
    let (ma, mr) = common::interleaved(
        runs,
        || common::time(through_atomport),
        || common::time(by_hand),
    );
    println!(
        "2048x2048 r32ui image -> texture -> image: atomport {:>10.1?}  by hand {:>10.1?}  ratio {:.3}",
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
}

fn main() {
    let (backend, runs) = common::backend_and_runs(50);
    let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
    println!(
        "binding a caller's 2048x2048 rgba8 texture on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let kernel = Kernel::from_glsl(ROWS, &SourceOptions::named("rows.comp")).unwrap();
    let size = 2048u32;
    let raw = ctx.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("caller's texture"),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let texels: Vec<u8> = (0..size * size * 4).map(|i| (i % 251) as u8).collect();
    ctx.queue().write_texture(
        raw.as_image_copy(),
        &texels,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(size * 4),
            rows_per_image: Some(size),
        },
        raw.size(),
    );
    // atomport: the caller's texture wrapped, no copy.
    let wrapped = Texture::from_wgpu(raw.clone(), TextureDim::D2).unwrap();
    let sums = Buffer::zeroed(&ctx, u64::from(size) * 4).unwrap();
    // Hand-written: the same WGSL, pipeline, bind group and readback.
    let device = ctx.device();
    let pipeline = common::raw_pipeline(device, kernel.wgsl());
    let raw_sums = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(size) * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(size) * 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let view = raw.create_view(&Default::default());
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: raw_sums.as_entire_binding(),
            },
        ],
    });
    let by_hand = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(size / 64, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&raw_sums, 0, &staging, 0, u64::from(size) * 4);
        ctx.queue().submit([encoder.finish()]);
        let slice = staging.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        rx.recv().unwrap().unwrap();
        let out: Vec<f32> = bytemuck::pod_collect_to_vec(&slice.get_mapped_range().unwrap());
        staging.unmap();
        out
    };
    let binds = [Bind::named("img", &wrapped), Bind::named("Sums", &sums)];
    let through_atomport = || {
        let out = ctx
            .dispatch_and_read(&kernel, [size / 64, 1, 1], &binds)
            .unwrap();
        bytemuck::pod_collect_to_vec::<u8, f32>(&out[1])
    };
    assert_eq!(
        through_atomport(),
        by_hand(),
        "both paths compute the same sums"
    );
    let (ma, mr) = common::interleaved(
        runs,
        || {
            let t = Instant::now();
            std::hint::black_box(through_atomport());
            t.elapsed()
        },
        || {
            let t = Instant::now();
            std::hint::black_box(by_hand());
            t.elapsed()
        },
    );
    println!(
        "atomport {:>10.1?}  hand-written {:>10.1?}  ratio {:.3}",
        ma,
        mr,
        ma.as_secs_f64() / mr.as_secs_f64()
    );
    image_copies(&ctx, (runs / 2).max(10));
}
