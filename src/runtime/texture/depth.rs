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
//!   into a storage buffer, which is copied out.

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

/// The readback, for a texture of one layer (`texture_2d`) or several
/// (`texture_2d_array`): every texel's depth into `values`, texel order.
fn load_depth_source(layered: bool) -> String {
    let (ty, layer) = if layered {
        ("texture_2d_array<f32>", ", id.z")
    } else {
        ("texture_2d<f32>", "")
    };
    format!(
        "
@group(0) @binding(0) var depth: {ty};
@group(0) @binding(1) var<storage, read_write> values: array<f32>;

@compute @workgroup_size(8, 8)
fn load_depth(@builtin(global_invocation_id) id: vec3<u32>) {{
    let size = textureDimensions(depth);
    if (id.x < size.x && id.y < size.y) {{
        values[(id.z * size.y + id.y) * size.x + id.x] = textureLoad(depth, id.xy{layer}, 0).x;
    }}
}}
"
    )
}

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
/// in the texture's format).
pub(super) fn read_level(ctx: &Context, t: &Texture, level: u32) -> Result<Vec<u8>> {
    let d = *t.desc();
    let name = super::format_name(d.format);
    if !t
        .raw()
        .usage()
        .contains(wgpu::TextureUsages::TEXTURE_BINDING)
    {
        return Err(Error::Resource(format!(
            "reading a {name} texture back needs TEXTURE_BINDING usage, not {:?}: wgpu's GL backend copies out of no depth texture (nor WebGPU out of depth24plus), so atomport loads the texels in a compute pass",
            t.raw().usage()
        )));
    }
    let (w, h, layers) = d.level_size(level);
    let layered = d.depth_or_layers > 1;
    if ctx.info().backend == wgpu::Backend::Gl
        && layered
        && d.width == d.height
        && d.depth_or_layers.is_multiple_of(6)
    {
        return Err(Error::Resource(format!(
            "a {name} texture of {}x{}x{} cannot be read back on GL: wgpu's GL backend makes a square 2D texture of 6·k layers a cube map, which a compute shader cannot load texel by texel",
            d.width, d.height, d.depth_or_layers
        )));
    }
    let size = u64::from(w) * u64::from(h) * u64::from(layers) * 4;
    let limit = ctx.limits().max_storage_buffer_binding_size;
    if size > limit {
        return Err(Error::Limit {
            what: format!("reading back a {name} texture (through a storage buffer)"),
            value: size,
            limit_name: "max_storage_buffer_binding_size",
            limit,
        });
    }
    let device = ctx.device();
    let (cmd, staging) = ctx.scoped(|| {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("atomport depth readback"),
            source: wgpu::ShaderSource::Wgsl(load_depth_source(layered).into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("atomport depth readback"),
            layout: None,
            module: &module,
            entry_point: Some("load_depth"),
            compilation_options: Default::default(),
            cache: None,
        });
        let view = t.raw().create_view(&wgpu::TextureViewDescriptor {
            label: Some("atomport depth readback"),
            dimension: Some(if layered {
                wgpu::TextureViewDimension::D2Array
            } else {
                wgpu::TextureViewDimension::D2
            }),
            aspect: wgpu::TextureAspect::DepthOnly,
            base_mip_level: level,
            mip_level_count: Some(1),
            ..Default::default()
        });
        let values = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atomport depth readback"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atomport depth readback staging"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("atomport depth readback"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: values.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("atomport depth readback"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(w.div_ceil(8), h.div_ceil(8), layers);
        }
        encoder.copy_buffer_to_buffer(&values, 0, &staging, 0, size);
        (encoder.finish(), staging)
    })?;
    let stagings = [(staging, size as usize)];
    let bytes = ctx
        .on_gpu(move |gpu| crate::runtime::buffer::submit_and_read(gpu, cmd, &stagings))?
        .swap_remove(0);
    let values: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    depth_bytes(d.format, &values)
}
