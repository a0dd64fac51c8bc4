//! Texture levels read back by a compute pass that loads every texel into
//! a storage buffer, where a copy to a buffer would lose them:
//!
//! - depth formats: wgpu's GL backend copies out of no depth texture, and
//!   WebGPU out of no `depth24plus` ([`super::depth`]);
//! - on GL, the signed normalized formats (`r8snorm` … `rgba16snorm`):
//!   wgpu's GL backend copies a texture out through `glReadPixels`, which
//!   clamps fixed-point colors to 0..1, so every negative value came back
//!   as 0. Loaded in a shader, each value is the texel's own (-1..1), and
//!   [`snorm_bytes`] gives its bits back: a value is `k / 127` (`k /
//!   32767`) for one `k` alone, save -1, which -127 and -128 both give
//!   (and which reads back as -127).
//!
//! The texture needs TEXTURE_BINDING usage. On GL it cannot be 1D (wgpu
//! keeps a 1D texture as a 2D one there, which a 1D load reads as (0, 0,
//! 0, 1)) nor a square 2D texture of 6·k layers (which wgpu makes a cube
//! map there, which no shader loads texel by texel): both are errors, not
//! values lost.

use super::Texture;
use crate::{Context, Error, Result, TextureDim};

/// The WGSL that loads `channels` values of every texel of a level (the
/// view's level 0) into `values`, texel order.
fn load_source(dim: wgpu::TextureViewDimension, channels: u32) -> String {
    let (ty, at) = match dim {
        wgpu::TextureViewDimension::D3 => ("texture_3d<f32>", "id"),
        wgpu::TextureViewDimension::D2Array => ("texture_2d_array<f32>", "id.xy, id.z"),
        _ => ("texture_2d<f32>", "id.xy"),
    };
    let size = match dim {
        wgpu::TextureViewDimension::D3 => "textureDimensions(source).xy",
        _ => "textureDimensions(source)",
    };
    let stores: String = (0..channels)
        .map(|c| format!("        values[at + {c}u] = v[{c}];\n"))
        .collect();
    format!(
        "
@group(0) @binding(0) var source: {ty};
@group(0) @binding(1) var<storage, read_write> values: array<f32>;

@compute @workgroup_size(8, 8)
fn load_texels(@builtin(global_invocation_id) id: vec3<u32>) {{
    let size = {size};
    if (id.x < size.x && id.y < size.y) {{
        let v = textureLoad(source, {at}, 0);
        let at = ((id.z * size.y + id.y) * size.x + id.x) * {channels}u;
{stores}    }}
}}
"
    )
}

/// The view dimension that loads `dim` texel by texel: cubes as the 2D
/// arrays of their faces; `None` for 1D, which only GL reads this way
/// (no depth texture is 1D), and cannot load there.
fn view_dimension(dim: TextureDim, layers: u32) -> Option<wgpu::TextureViewDimension> {
    Some(match dim {
        TextureDim::D1 => return None,
        TextureDim::D3 => wgpu::TextureViewDimension::D3,
        TextureDim::D2 if layers == 1 => wgpu::TextureViewDimension::D2,
        _ => wgpu::TextureViewDimension::D2Array,
    })
}

/// The `channels` values of every texel of mip `level` of `t` (every
/// layer or slice), texel order, as a shader loads them from `aspect`.
pub(super) fn load_level(
    ctx: &Context,
    t: &Texture,
    level: u32,
    aspect: wgpu::TextureAspect,
    channels: u32,
) -> Result<Vec<f32>> {
    let d = *t.desc();
    let name = crate::formats::format_name(d.format);
    if !t
        .raw()
        .usage()
        .contains(wgpu::TextureUsages::TEXTURE_BINDING)
    {
        return Err(Error::Resource(format!(
            "reading a {name} texture back on {:?} needs TEXTURE_BINDING usage, not {:?}: a copy would lose its values there, so atomport loads the texels in a compute pass",
            ctx.info().backend,
            t.raw().usage()
        )));
    }
    let (w, h, layers) = d.level_size(level);
    let Some(dim) = view_dimension(d.dim, d.depth_or_layers) else {
        return Err(Error::Unsupported(format!(
            "a 1D {name} texture cannot be read back on GL: wgpu's GL backend copies the format out clamped to 0..1, and keeps a 1D texture as a 2D one that a shader cannot load; read it on Vulkan, use a 2D texture of height 1, or (a storage image) hold it in a texel buffer (--texel-buffers, SourceOptions::images_as_texel_buffers)"
        )));
    };
    if ctx.info().backend == wgpu::Backend::Gl
        && dim == wgpu::TextureViewDimension::D2Array
        && d.width == d.height
        && d.depth_or_layers.is_multiple_of(6)
    {
        return Err(Error::Unsupported(format!(
            "a {name} texture of {}x{}x{} cannot be read back on GL: wgpu's GL backend makes a square 2D texture of 6·k layers a cube map, which a compute shader cannot load texel by texel",
            d.width, d.height, d.depth_or_layers
        )));
    }
    let size = u64::from(w) * u64::from(h) * u64::from(layers) * u64::from(channels) * 4;
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
            label: Some("atomport texture loads"),
            source: wgpu::ShaderSource::Wgsl(load_source(dim, channels).into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("atomport texture loads"),
            layout: None,
            module: &module,
            entry_point: Some("load_texels"),
            compilation_options: Default::default(),
            cache: None,
        });
        let view = t.raw().create_view(&wgpu::TextureViewDescriptor {
            label: Some("atomport texture loads"),
            dimension: Some(dim),
            aspect,
            base_mip_level: level,
            mip_level_count: Some(1),
            ..Default::default()
        });
        let values = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atomport texture loads"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atomport texture loads staging"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("atomport texture loads"),
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
            label: Some("atomport texture loads"),
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
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// For a signed normalized format: its channels and the bits of each.
pub(super) fn snorm_channels(format: wgpu::TextureFormat) -> Option<(u32, u32)> {
    use wgpu::TextureFormat as F;
    match format {
        F::R8Snorm => Some((1, 8)),
        F::Rg8Snorm => Some((2, 8)),
        F::Rgba8Snorm => Some((4, 8)),
        F::R16Snorm => Some((1, 16)),
        F::Rg16Snorm => Some((2, 16)),
        F::Rgba16Snorm => Some((4, 16)),
        _ => None,
    }
}

/// The little-endian bytes of signed normalized channels of `bits` that a
/// shader loads as `values`.
pub(super) fn snorm_bytes(values: &[f32], bits: u32) -> Vec<u8> {
    let max = ((1u32 << (bits - 1)) - 1) as f32;
    let mut out = Vec::with_capacity(values.len() * (bits / 8) as usize);
    for v in values {
        let k = (v.clamp(-1.0, 1.0) * max).round() as i16;
        match bits {
            8 => out.push(k as i8 as u8),
            _ => out.extend_from_slice(&k.to_le_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snorm_values_give_their_bits_back() {
        // Every 8-bit value but -128 (which is -1 as -127 is) round-trips.
        for k in -127i8..=127 {
            let v = (f32::from(k) / 127.0).max(-1.0);
            assert_eq!(snorm_bytes(&[v], 8), vec![k as u8], "{k}");
        }
        for k in [-32767i16, -1000, -1, 0, 1, 12345, 32767] {
            let v = f32::from(k) / 32767.0;
            assert_eq!(snorm_bytes(&[v], 16), k.to_le_bytes().to_vec(), "{k}");
        }
        assert_eq!(snorm_bytes(&[-1.0], 8), vec![(-127i8) as u8]);
    }
}
