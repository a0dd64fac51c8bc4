//! Depth textures to and from the host, through what wgpu allows on every
//! backend. WebGPU copies nothing from a buffer into `depth32float` (and
//! nothing at all in or out of `depth24plus`), and wgpu's GL backend copies
//! into or out of no depth texture (it lacks
//! `DEPTH_TEXTURE_AND_BUFFER_COPIES`), so one way serves every depth format
//! and backend:
//!
//! - writing a mip level: its values go into one `r32float` texture per
//!   layer, and a render pass per layer draws a full-screen triangle whose
//!   fragment shader writes each texel's value as `@builtin(frag_depth)`
//!   into that layer and level of the depth texture (a render attachment);
//! - reading a mip level: a compute pass loads every texel (the depth
//!   texture bound as an unfilterable float texture, which WebGPU allows)
//!   into a storage buffer, which is copied out ([`super::loads`]).

use super::Texture;
use crate::{Context, Error, Result};

/// The upload: a full-screen triangle, and each fragment's depth loaded from
/// the texel under it.
const DRAW_DEPTH: &str = "
@group(0) @binding(0) var values: texture_2d<f32>;

@vertex
fn full_screen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn texel_depth(@builtin(position) at: vec4<f32>) -> @builtin(frag_depth) f32 {
    return textureLoad(values, vec2<i32>(at.xy), 0).x;
}
";

/// The values of a level's texels as the shader reads them; depth32float's
/// must lie in 0..1, the range a render pass writes.
fn depth_values(format: wgpu::TextureFormat, bytes: &[u8]) -> Result<Vec<f32>> {
    match format {
        wgpu::TextureFormat::Depth32Float => bytes
            .chunks_exact(4)
            .enumerate()
            .map(|(i, b)| {
                let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                if (0.0..=1.0).contains(&v) {
                    Ok(v)
                } else {
                    Err(Error::Resource(format!(
                        "depth32float texel {i} is {v}: depth textures are written through a render pass (WebGPU copies nothing into depth32float), which keeps depth within 0..1"
                    )))
                }
            })
            .collect(),
        wgpu::TextureFormat::Depth16Unorm => Ok(bytes
            .chunks_exact(2)
            .map(|b| f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0)
            .collect()),
        other => Err(unsupported(other)),
    }
}

/// The bytes of `values` in `format`.
fn depth_bytes(format: wgpu::TextureFormat, values: &[f32]) -> Result<Vec<u8>> {
    match format {
        wgpu::TextureFormat::Depth32Float => {
            Ok(values.iter().flat_map(|v| v.to_le_bytes()).collect())
        }
        wgpu::TextureFormat::Depth16Unorm => Ok(values
            .iter()
            .flat_map(|v| ((v.clamp(0.0, 1.0) * 65535.0).round() as u16).to_le_bytes())
            .collect()),
        other => Err(unsupported(other)),
    }
}

fn unsupported(format: wgpu::TextureFormat) -> Error {
    Error::Resource(format!(
        "{}: atomport writes and reads the depth formats depth16unorm and depth32float",
        super::format_name(format)
    ))
}

/// Writes mip `level` of the depth texture `t` (every layer, `bytes`
/// tightly packed, already checked against the level's size).
pub(super) fn write_level(ctx: &Context, t: &Texture, level: u32, bytes: &[u8]) -> Result<()> {
    let d = *t.desc();
    if !t
        .raw()
        .usage()
        .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
    {
        return Err(Error::Resource(format!(
            "writing a {} texture needs RENDER_ATTACHMENT usage, not {:?}: WebGPU copies nothing into depth32float and wgpu's GL backend into no depth texture, so atomport draws the values in",
            super::format_name(d.format),
            t.raw().usage()
        )));
    }
    let values = depth_values(d.format, bytes)?;
    let (w, h, layers) = d.level_size(level);
    let device = ctx.device();
    let cmd = ctx.scoped(|| {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("atomport depth upload"),
            source: wgpu::ShaderSource::Wgsl(DRAW_DEPTH.into()),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("atomport depth upload"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("full_screen"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: d.format,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("texel_depth"),
                compilation_options: Default::default(),
                targets: &[],
            }),
            multiview_mask: None,
            cache: None,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("atomport depth upload"),
        });
        let per_layer = (w * h) as usize;
        for layer in 0..layers {
            let start = layer as usize * per_layer;
            let source = values_texture(ctx, w, h, &values[start..start + per_layer]);
            let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("atomport depth upload"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(
                        &source.create_view(&Default::default()),
                    ),
                }],
            });
            let target = t.raw().create_view(&wgpu::TextureViewDescriptor {
                label: Some("atomport depth upload target"),
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_mip_level: level,
                mip_level_count: Some(1),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..Default::default()
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("atomport depth upload"),
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &target,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.draw(0..3, 0..1);
        }
        encoder.finish()
    })?;
    ctx.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
}

/// A `w`×`h` r32float texture holding `values` (written with the queue, so
/// before the next submission).
fn values_texture(ctx: &Context, w: u32, h: u32, values: &[f32]) -> wgpu::Texture {
    let size = wgpu::Extent3d {
        width: w,
        height: h,
        depth_or_array_layers: 1,
    };
    let texture = ctx.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("atomport depth values"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    ctx.queue().write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        &bytes,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(w * 4),
            rows_per_image: Some(h),
        },
        size,
    );
    texture
}

/// Reads mip `level` of the depth texture `t` (every layer, tightly packed,
/// in the texture's format), through a compute pass ([`super::loads`]).
pub(super) fn read_level(ctx: &Context, t: &Texture, level: u32) -> Result<Vec<u8>> {
    let values = super::loads::load_level(ctx, t, level, wgpu::TextureAspect::DepthOnly, 1)?;
    depth_bytes(t.desc().format, &values)
}
