//! [`Texture`] and [`Sampler`]: the sampled textures, storage textures of
//! ordinary formats and samplers a compute shader declares, made from host
//! data or wrapping the caller's `wgpu::Texture` / `wgpu::Sampler`.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Context, Error, Result, TextureDim};

mod depth;
mod loads;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A texture's shape, format, size and mip levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// The shape.
    pub dim: TextureDim,
    /// The texel format.
    pub format: wgpu::TextureFormat,
    /// Width in texels.
    pub width: u32,
    /// Height (1 for 1D).
    pub height: u32,
    /// Depth of a 3D texture, array layers, 6 per cube; 1 otherwise.
    pub depth_or_layers: u32,
    /// Mip levels.
    pub mip_levels: u32,
}

impl TextureDesc {
    /// A description from `textureSize`'s numbers (`W`, `WxH`, `WxHxL`,
    /// `WxHxC` cubes, `WxHxD`) and mip levels, checked.
    pub fn new(
        dim: TextureDim,
        format: wgpu::TextureFormat,
        size: &[u32],
        mip_levels: u32,
    ) -> Result<TextureDesc> {
        let want = match dim {
            TextureDim::D1 => 1,
            TextureDim::D2 | TextureDim::Cube => 2,
            _ => 3,
        };
        if size.len() != want {
            return Err(Error::Resource(format!(
                "a {} texture's size is {} ({want} number{}), not {} number{}",
                dim.name(),
                dim.size_pattern(),
                if want == 1 { "" } else { "s" },
                size.len(),
                if size.len() == 1 { "" } else { "s" }
            )));
        }
        let (width, height, depth_or_layers) = match dim {
            TextureDim::D1 => (size[0], 1, 1),
            TextureDim::D2 => (size[0], size[1], 1),
            TextureDim::Cube => (size[0], size[1], 6),
            TextureDim::CubeArray => (size[0], size[1], size[2].saturating_mul(6)),
            _ => (size[0], size[1], size[2]),
        };
        let desc = TextureDesc {
            dim,
            format,
            width,
            height,
            depth_or_layers,
            mip_levels,
        };
        desc.check()?;
        Ok(desc)
    }

    fn check(&self) -> Result<()> {
        let bad = |why: String| {
            Err(Error::Resource(format!(
                "{} texture: {why}",
                self.dim.name()
            )))
        };
        if self.width == 0 || self.height == 0 || self.depth_or_layers == 0 {
            return bad("every size must be at least 1".into());
        }
        if matches!(self.dim, TextureDim::Cube | TextureDim::CubeArray) && self.width != self.height
        {
            return bad(format!(
                "cube faces are square, not {}x{}",
                self.width, self.height
            ));
        }
        if self.texel_bytes().is_none() {
            return bad(format!(
                "{:?} is not a format atomport can fill from the host (compressed or multi-planar)",
                self.format
            ));
        }
        if self.format.is_depth_stencil_format()
            && !matches!(
                self.dim,
                TextureDim::D2 | TextureDim::D2Array | TextureDim::Cube | TextureDim::CubeArray
            )
        {
            return bad(format!(
                "{:?} exists for 2D, 2D array and cube textures only",
                self.format
            ));
        }
        let largest = match self.dim {
            TextureDim::D3 => self.width.max(self.height).max(self.depth_or_layers),
            TextureDim::D1 => self.width,
            _ => self.width.max(self.height),
        };
        let max_levels = 32 - largest.leading_zeros();
        if self.mip_levels == 0 || self.mip_levels > max_levels {
            return bad(format!(
                "{} mip levels: a {}x{} texture has 1 to {max_levels}",
                self.mip_levels, self.width, self.height
            ));
        }
        if self.dim == TextureDim::D1 && self.mip_levels != 1 {
            return bad("1D textures have one mip level".into());
        }
        Ok(())
    }

    /// Bytes of one texel (of the depth aspect for depth formats).
    pub fn texel_bytes(&self) -> Option<u32> {
        let aspect = self
            .format
            .has_depth_aspect()
            .then_some(wgpu::TextureAspect::DepthOnly);
        self.format.block_copy_size(aspect)
    }

    /// `textureSize`'s numbers at level 0.
    pub fn size(&self) -> Vec<u32> {
        match self.dim {
            TextureDim::D1 => vec![self.width],
            TextureDim::D2 | TextureDim::Cube => vec![self.width, self.height],
            _ => vec![self.width, self.height, self.layers()],
        }
    }

    /// The layer count `textureSize` answers: cubes for a cube array, the
    /// depth of a 3D texture, else the array layers.
    pub fn layers(&self) -> u32 {
        match self.dim {
            TextureDim::CubeArray => self.depth_or_layers / 6,
            _ => self.depth_or_layers,
        }
    }

    /// The size of mip `level`: (width, height, depth or layers).
    pub fn level_size(&self, level: u32) -> (u32, u32, u32) {
        let shrink = |n: u32| n.checked_shr(level).unwrap_or(0).max(1);
        match self.dim {
            TextureDim::D3 => (
                shrink(self.width),
                shrink(self.height),
                shrink(self.depth_or_layers),
            ),
            TextureDim::D1 => (shrink(self.width), 1, self.depth_or_layers),
            _ => (
                shrink(self.width),
                shrink(self.height),
                self.depth_or_layers,
            ),
        }
    }

    /// Bytes of mip `level`, tightly packed (x fastest, then y, then layer or slice).
    pub fn level_bytes(&self, level: u32) -> u64 {
        let (w, h, d) = self.level_size(level);
        u64::from(w)
            .saturating_mul(u64::from(h))
            .saturating_mul(u64::from(d))
            .saturating_mul(u64::from(self.texel_bytes().unwrap_or(4)))
    }

    fn extent(&self) -> wgpu::Extent3d {
        wgpu::Extent3d {
            width: self.width,
            height: self.height,
            depth_or_array_layers: self.depth_or_layers,
        }
    }
}

/// A texture a kernel samples or writes as a storage texture.
#[derive(Debug)]
pub struct Texture {
    id: u64,
    raw: wgpu::Texture,
    view: wgpu::TextureView,
    desc: TextureDesc,
}

impl Texture {
    /// A texture holding `data`: mip level 0 of every layer tightly packed
    /// (x fastest, then y, then layer — cube faces +X, −X, +Y, −Y, +Z, −Z —
    /// or slice), optionally followed by the further levels; levels the
    /// data does not reach are zero.
    pub fn from_data(ctx: &Context, desc: TextureDesc, data: &[u8]) -> Result<Texture> {
        let t = Texture::zeroed(ctx, desc)?;
        let mut at = 0usize;
        for level in 0..desc.mip_levels {
            let len = desc.level_bytes(level) as usize;
            let Some(bytes) = data.get(at..at + len) else {
                if level == 0 {
                    return Err(Error::Resource(format!(
                        "{} texture {}: {} bytes of data, level 0 needs {len}",
                        desc.dim.name(),
                        size_text(&desc.size()),
                        data.len()
                    )));
                }
                break;
            };
            t.write_level(ctx, level, bytes)?;
            at += len;
        }
        if at < data.len() {
            return Err(Error::Resource(format!(
                "{} bytes of texture data, {at} more than the {} level(s) hold",
                data.len(),
                desc.mip_levels
            )));
        }
        Ok(t)
    }

    /// A zeroed texture, usable for sampling, as a storage texture where
    /// the adapter allows it for the format, and for copies.
    pub fn zeroed(ctx: &Context, desc: TextureDesc) -> Result<Texture> {
        ctx.ready()?;
        desc.check()?;
        within_limits(
            &ctx.limits(),
            desc.dim.texture_dimension(),
            desc.extent(),
            &format!("the {} texture", desc.dim.name()),
        )?;
        let features = ctx.format_features(desc.format);
        let mut usage = wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC;
        // Depth formats take no copies from the host: they are drawn in.
        let drawn = desc
            .format
            .has_depth_aspect()
            .then_some(wgpu::TextureUsages::RENDER_ATTACHMENT);
        for u in [
            wgpu::TextureUsages::TEXTURE_BINDING,
            wgpu::TextureUsages::STORAGE_BINDING,
        ]
        .into_iter()
        .chain(drawn)
        {
            if features.allowed_usages.contains(u) {
                usage |= u;
            }
        }
        let raw = ctx.scoped(|| {
            ctx.device().create_texture(&wgpu::TextureDescriptor {
                label: Some("atomport texture"),
                size: desc.extent(),
                mip_level_count: desc.mip_levels,
                sample_count: 1,
                dimension: desc.dim.texture_dimension(),
                format: desc.format,
                usage,
                view_formats: &[],
            })
        })?;
        Ok(Texture::wrap(raw, desc))
    }

    /// Wraps the caller's texture (no copy), seen as `dim` (a 2D texture of
    /// 6 layers can be a cube). It needs TEXTURE_BINDING or STORAGE_BINDING
    /// usage, and COPY_SRC to be read back.
    pub fn from_wgpu(texture: wgpu::Texture, dim: TextureDim) -> Result<Texture> {
        let usage = texture.usage();
        if !usage
            .intersects(wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING)
        {
            return Err(Error::Resource(format!(
                "the texture's usage ({usage:?}) has neither TEXTURE_BINDING nor STORAGE_BINDING"
            )));
        }
        let size = texture.size();
        let desc = TextureDesc {
            dim,
            format: texture.format(),
            width: size.width,
            height: size.height,
            depth_or_layers: size.depth_or_array_layers,
            mip_levels: texture.mip_level_count(),
        };
        if desc.dim.texture_dimension() != texture.dimension()
            || (dim == TextureDim::Cube && desc.depth_or_layers != 6)
            || (dim == TextureDim::CubeArray && !desc.depth_or_layers.is_multiple_of(6))
            || (matches!(dim, TextureDim::D1 | TextureDim::D2) && desc.depth_or_layers != 1)
        {
            return Err(Error::Resource(format!(
                "a {:?} texture of {}x{}x{} cannot be seen as a {} texture",
                texture.dimension(),
                size.width,
                size.height,
                size.depth_or_array_layers,
                dim.name()
            )));
        }
        desc.check()?;
        Ok(Texture::wrap(texture, desc))
    }

    fn wrap(raw: wgpu::Texture, desc: TextureDesc) -> Texture {
        let view = raw.create_view(&wgpu::TextureViewDescriptor {
            label: Some("atomport texture view"),
            dimension: Some(desc.dim.view_dimension()),
            ..Default::default()
        });
        Texture {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            raw,
            view,
            desc,
        }
    }

    /// The description.
    pub fn desc(&self) -> &TextureDesc {
        &self.desc
    }

    /// The wgpu texture, for the caller's own pipelines.
    pub fn raw(&self) -> &wgpu::Texture {
        &self.raw
    }

    /// The view bound to kernels (all levels, all layers, as [`TextureDesc::dim`]).
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// A process-unique id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Whether it can be read back: COPY_SRC usage, or for a depth format
    /// (read through a compute pass) TEXTURE_BINDING.
    pub fn is_copyable(&self) -> bool {
        let needed = if self.desc.format.has_depth_aspect() {
            wgpu::TextureUsages::TEXTURE_BINDING
        } else {
            wgpu::TextureUsages::COPY_SRC
        };
        self.raw.usage().contains(needed)
    }

    /// Whether it can be bound as a storage texture.
    pub fn is_storage(&self) -> bool {
        self.raw
            .usage()
            .contains(wgpu::TextureUsages::STORAGE_BINDING)
    }

    /// Writes mip `level` (every layer, tightly packed). A depth format
    /// (`depth16unorm`, `depth32float`, whose texels must lie in 0..1) is
    /// drawn in by a render pass, since WebGPU copies nothing into
    /// depth32float and wgpu's GL backend into no depth texture: the texture
    /// needs RENDER_ATTACHMENT usage ([`Texture::zeroed`] gives it).
    pub fn write_level(&self, ctx: &Context, level: u32, bytes: &[u8]) -> Result<()> {
        ctx.ready()?;
        if level >= self.desc.mip_levels {
            return Err(Error::Resource(format!(
                "the texture has {} mip level(s); there is no level {level}",
                self.desc.mip_levels
            )));
        }
        let (w, h, d) = self.desc.level_size(level);
        if bytes.len() as u64 != self.desc.level_bytes(level) {
            return Err(Error::Resource(format!(
                "level {level} of the texture is {} bytes, not {}",
                self.desc.level_bytes(level),
                bytes.len()
            )));
        }
        if self.desc.format.has_depth_aspect() {
            return depth::write_level(ctx, self, level, bytes);
        }
        let texel = self.desc.texel_bytes().unwrap_or(4);
        ctx.scoped(|| {
            ctx.queue().write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.raw,
                    mip_level: level,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(w * texel),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: d,
                },
            )
        })
    }

    /// Reads mip level 0 back, every layer, tightly packed.
    pub fn read(&self, ctx: &Context) -> Result<Vec<u8>> {
        self.read_level(ctx, 0)
    }

    /// Reads mip `level` back, every layer, tightly packed. A depth format,
    /// and on GL a signed normalized one, is read by a compute pass that
    /// loads its texels (wgpu's GL backend copies out of no depth texture,
    /// and clamps a snorm texture's values to 0..1 as it copies it out),
    /// which needs TEXTURE_BINDING usage; on GL not from a 1D texture nor
    /// a square texture of 6·k layers (a cube map there).
    pub fn read_level(&self, ctx: &Context, level: u32) -> Result<Vec<u8>> {
        if self.desc.format.has_depth_aspect() {
            self.check_level(level)?;
            ctx.ready()?;
            return depth::read_level(ctx, self, level);
        }
        if let (Some((channels, bits)), wgpu::Backend::Gl) =
            (loads::snorm_channels(self.desc.format), ctx.info().backend)
        {
            self.check_level(level)?;
            ctx.ready()?;
            let values = loads::load_level(ctx, self, level, wgpu::TextureAspect::All, channels)?;
            return Ok(loads::snorm_bytes(&values, bits));
        }
        let (cmd, stagings, rows) = self.level_commands(ctx, level)?;
        let padded = ctx
            .on_gpu(move |gpu| super::buffer::submit_and_read(gpu, cmd, &stagings))?
            .swap_remove(0);
        Ok(rows.unpad(&padded))
    }

    /// [`Texture::read_level`] without blocking (in a browser, where
    /// nothing may): a color texture's level, every layer, copied out; not
    /// a signed normalized one on GL, which a copy would clamp to 0..1.
    pub async fn read_level_async(&self, ctx: &Context, level: u32) -> Result<Vec<u8>> {
        if self.desc.format.has_depth_aspect() {
            return Err(Error::Unsupported(
                "a depth texture is read back by a compute pass, synchronously only: use read_level".into(),
            ));
        }
        let (cmd, stagings, rows) = self.level_commands(ctx, level)?;
        let padded = super::buffer::submit_and_read_async(ctx, cmd, stagings)
            .await?
            .swap_remove(0);
        Ok(rows.unpad(&padded))
    }

    fn check_level(&self, level: u32) -> Result<()> {
        if level >= self.desc.mip_levels {
            return Err(Error::Resource(format!(
                "the texture has {} mip level(s); there is no level {level}",
                self.desc.mip_levels
            )));
        }
        Ok(())
    }

    /// The copy of color level `level` into a staging buffer, finished; the
    /// staging buffer with its length; and how its rows are padded.
    #[allow(clippy::type_complexity)]
    fn level_commands(
        &self,
        ctx: &Context,
        level: u32,
    ) -> Result<(wgpu::CommandBuffer, Vec<(wgpu::Buffer, usize)>, PaddedRows)> {
        self.check_level(level)?;
        // A copy would clamp it to 0..1 there: read_level loads it instead.
        if ctx.info().backend == wgpu::Backend::Gl && is_snorm(self.desc.format) {
            return Err(Error::Unsupported(format!(
                "a {} texture is read back on GL by a compute pass, synchronously only (wgpu's GL backend copies it out clamped to 0..1): use read_level",
                format_name(self.desc.format)
            )));
        }
        if !self.is_copyable() {
            return Err(Error::Resource(format!(
                "the texture's usage ({:?}) lacks COPY_SRC, which reading it back needs",
                self.raw.usage()
            )));
        }
        ctx.ready()?;
        let (w, h, d) = self.desc.level_size(level);
        let texel = self.desc.texel_bytes().unwrap_or(4);
        let row = w * texel;
        let padded_row = row.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let size = u64::from(padded_row) * u64::from(h) * u64::from(d);
        let staging = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("atomport texture readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = ctx
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("atomport texture readback"),
            });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.raw,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: d,
            },
        );
        let rows = PaddedRows {
            row: row as usize,
            padded: padded_row as usize,
        };
        Ok((encoder.finish(), vec![(staging, size as usize)], rows))
    }
}

/// Rows of texels copied out of a texture, each padded to wgpu's copy alignment.
struct PaddedRows {
    row: usize,
    padded: usize,
}

impl PaddedRows {
    /// The rows, tightly packed.
    fn unpad(&self, padded: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(padded.len() / self.padded.max(1) * self.row);
        for r in padded.chunks(self.padded) {
            out.extend_from_slice(&r[..self.row.min(r.len())]);
        }
        out
    }
}

/// Whether `format` is signed normalized (`r8snorm` … `rgba16snorm`),
/// whose values wgpu's GL backend copies out of a texture clamped to 0..1.
pub(crate) fn is_snorm(format: wgpu::TextureFormat) -> bool {
    loads::snorm_channels(format).is_some()
}

/// `WxH` of a size.
pub(crate) fn size_text(size: &[u32]) -> String {
    size.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// How a sampler filters and addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    /// Magnification and minification filter.
    pub filter: wgpu::FilterMode,
    /// Between mip levels.
    pub mipmap_filter: wgpu::MipmapFilterMode,
    /// Every axis's address mode.
    pub address: wgpu::AddressMode,
    /// For a comparison (shadow) sampler, the comparison.
    pub compare: Option<wgpu::CompareFunction>,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        SamplerDesc {
            filter: wgpu::FilterMode::Nearest,
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
            address: wgpu::AddressMode::ClampToEdge,
            compare: None,
        }
    }
}

impl std::str::FromStr for SamplerDesc {
    type Err = Error;
    /// `linear|nearest[,clamp|repeat|mirror][,compare=less|lequal|greater|gequal|equal|notequal|always|never]`.
    fn from_str(s: &str) -> Result<Self> {
        let usage = "expected linear|nearest[,clamp|repeat|mirror][,compare=FUNC]";
        let mut d = SamplerDesc::default();
        let mut parts = s.split(',').map(str::trim);
        match parts.next() {
            Some("nearest") => {}
            Some("linear") => {
                d.filter = wgpu::FilterMode::Linear;
                d.mipmap_filter = wgpu::MipmapFilterMode::Linear;
            }
            _ => return Err(Error::Resource(format!("`{s}`: {usage}"))),
        }
        for p in parts {
            match p {
                "clamp" => d.address = wgpu::AddressMode::ClampToEdge,
                "repeat" => d.address = wgpu::AddressMode::Repeat,
                "mirror" => d.address = wgpu::AddressMode::MirrorRepeat,
                _ => {
                    use wgpu::CompareFunction as C;
                    let f = match p.strip_prefix("compare=") {
                        Some("less") => C::Less,
                        Some("lequal") => C::LessEqual,
                        Some("greater") => C::Greater,
                        Some("gequal") => C::GreaterEqual,
                        Some("equal") => C::Equal,
                        Some("notequal") => C::NotEqual,
                        Some("always") => C::Always,
                        Some("never") => C::Never,
                        _ => return Err(Error::Resource(format!("`{p}` in `{s}`: {usage}"))),
                    };
                    d.compare = Some(f);
                }
            }
        }
        Ok(d)
    }
}

/// A sampler a kernel samples with.
#[derive(Debug)]
pub struct Sampler {
    id: u64,
    raw: wgpu::Sampler,
    comparison: bool,
    /// Whether it may filter (a linear filter), for the layout it binds to.
    filtering: bool,
    /// Its address mode and whether it filters linearly, where known (made
    /// by atomport, or described by the caller), for integer textures
    /// sampled through it.
    described: Option<(wgpu::AddressMode, bool)>,
}

impl Sampler {
    /// A sampler as `desc` says.
    pub fn new(ctx: &Context, desc: SamplerDesc) -> Result<Sampler> {
        ctx.ready()?;
        let raw = ctx.scoped(|| {
            ctx.device().create_sampler(&wgpu::SamplerDescriptor {
                label: Some("atomport sampler"),
                address_mode_u: desc.address,
                address_mode_v: desc.address,
                address_mode_w: desc.address,
                mag_filter: desc.filter,
                min_filter: desc.filter,
                mipmap_filter: desc.mipmap_filter,
                compare: desc.compare,
                ..Default::default()
            })
        })?;
        Ok(Sampler::from_wgpu_described(raw, &desc))
    }

    /// Wraps the caller's sampler, made as `desc` says (its address mode
    /// for every axis, its filters and compare function), so that integer
    /// textures can be sampled through it and its layout is exact.
    pub fn from_wgpu_described(raw: wgpu::Sampler, desc: &SamplerDesc) -> Sampler {
        let linear = desc.filter == wgpu::FilterMode::Linear
            || desc.mipmap_filter == wgpu::MipmapFilterMode::Linear;
        let mut s = Sampler::from_wgpu(raw, desc.compare.is_some());
        s.filtering = linear;
        s.described = Some((desc.address, linear));
        s
    }

    /// Wraps the caller's sampler; `comparison` says whether it was made
    /// with a compare function (wgpu does not tell). It counts as one that
    /// may filter, of unknown address mode (integer textures are not
    /// sampled through it: see [`Sampler::from_wgpu_described`]).
    pub fn from_wgpu(raw: wgpu::Sampler, comparison: bool) -> Sampler {
        Sampler {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            raw,
            comparison,
            filtering: true,
            described: None,
        }
    }

    /// Its address mode (the same on every axis) and whether it filters
    /// linearly, when atomport made it or the caller described it
    /// ([`Sampler::from_wgpu_described`]).
    pub fn described(&self) -> Option<(wgpu::AddressMode, bool)> {
        self.described
    }

    /// Whether it may filter: made with a linear filter (or by the caller).
    pub fn is_filtering(&self) -> bool {
        self.filtering
    }

    /// The wgpu sampler.
    pub fn raw(&self) -> &wgpu::Sampler {
        &self.raw
    }

    /// Whether it compares (a shadow sampler).
    pub fn is_comparison(&self) -> bool {
        self.comparison
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

pub use crate::formats::{format_name, format_names, parse_format};

/// How a format's channels are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
}

/// (channels, kind, bits per channel, stored as BGRA) of the formats the
/// host fills and reads per channel.
fn layout(format: wgpu::TextureFormat) -> Option<(usize, Channel, u32, bool)> {
    use Channel::*;
    use wgpu::TextureFormat as F;
    Some(match format {
        F::R8Unorm => (1, Unorm, 8, false),
        F::R8Snorm => (1, Snorm, 8, false),
        F::R8Uint => (1, Uint, 8, false),
        F::R8Sint => (1, Sint, 8, false),
        F::Rg8Unorm => (2, Unorm, 8, false),
        F::Rg8Snorm => (2, Snorm, 8, false),
        F::Rg8Uint => (2, Uint, 8, false),
        F::Rg8Sint => (2, Sint, 8, false),
        F::Rgba8Unorm | F::Rgba8UnormSrgb => (4, Unorm, 8, false),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => (4, Unorm, 8, true),
        F::Rgba8Snorm => (4, Snorm, 8, false),
        F::Rgba8Uint => (4, Uint, 8, false),
        F::Rgba8Sint => (4, Sint, 8, false),
        F::R16Unorm => (1, Unorm, 16, false),
        F::R16Snorm => (1, Snorm, 16, false),
        F::R16Uint => (1, Uint, 16, false),
        F::R16Sint => (1, Sint, 16, false),
        F::R16Float => (1, Float, 16, false),
        F::Rg16Unorm => (2, Unorm, 16, false),
        F::Rg16Snorm => (2, Snorm, 16, false),
        F::Rg16Uint => (2, Uint, 16, false),
        F::Rg16Sint => (2, Sint, 16, false),
        F::Rg16Float => (2, Float, 16, false),
        F::Rgba16Unorm => (4, Unorm, 16, false),
        F::Rgba16Snorm => (4, Snorm, 16, false),
        F::Rgba16Uint => (4, Uint, 16, false),
        F::Rgba16Sint => (4, Sint, 16, false),
        F::Rgba16Float => (4, Float, 16, false),
        F::R32Uint => (1, Uint, 32, false),
        F::R32Sint => (1, Sint, 32, false),
        F::R32Float | F::Depth32Float => (1, Float, 32, false),
        F::Rg32Uint => (2, Uint, 32, false),
        F::Rg32Sint => (2, Sint, 32, false),
        F::Rg32Float => (2, Float, 32, false),
        F::Rgba32Uint => (4, Uint, 32, false),
        F::Rgba32Sint => (4, Sint, 32, false),
        F::Rgba32Float => (4, Float, 32, false),
        F::Depth16Unorm => (1, Unorm, 16, false),
        _ => return None,
    })
}

/// The packed formats the host fills and reads per channel: each
/// channel's bits (red first, from the word's low bits) and their kind
/// (the floats are unsigned, with 5-bit exponents).
fn packed(format: wgpu::TextureFormat) -> Option<(&'static [u32], Channel)> {
    // One table: the image format's (`ImageFormat::packed`).
    let f = crate::ImageFormat::ALL
        .iter()
        .find(|f| f.texture_format() == format)?;
    let kind = match f.layout().2 {
        crate::ChannelKind::Unorm => Channel::Unorm,
        crate::ChannelKind::Uint => Channel::Uint,
        _ => Channel::Float,
    };
    Some((f.packed()?, kind))
}

/// One texel of a packed format: unorm rounded to nearest, unsigned
/// integers checked against their width, unsigned small floats as the
/// half of the value rounded to their mantissa (ties to even), negative
/// values 0, NaN a NaN.
fn encode_packed(format: wgpu::TextureFormat, values: [f64; 4]) -> Option<Result<Vec<u8>>> {
    let (widths, kind) = packed(format)?;
    let mut word = 0u32;
    let mut offset = 0;
    for (&w, &x) in widths.iter().zip(&values) {
        let max = (1u32 << w) - 1;
        let bits = match kind {
            Channel::Unorm => (x.clamp(0.0, 1.0) * f64::from(max)).round() as u32,
            Channel::Uint if x >= 0.0 && x <= f64::from(max) && x.fract() == 0.0 => x as u32,
            Channel::Uint => {
                return Some(Err(Error::Resource(format!(
                    "{x} is not a value of a {w}-bit unsigned channel ({})",
                    format_name(format)
                ))));
            }
            _ => {
                let half = u32::from(f32_to_f16(x as f32));
                let s = 15 - w;
                let (q, rest) = (half >> s, half & ((1 << s) - 1));
                // Up past halfway, or at halfway when that makes it even.
                let rounded = q + u32::from(rest + (q & 1) > 1 << (s - 1));
                let magnitude = half & 0x7fff;
                if magnitude > 0x7c00 {
                    (0x1f << (w - 5)) | 1
                } else if half & 0x8000 != 0 {
                    0
                } else if magnitude == 0x7c00 {
                    0x1f << (w - 5)
                } else {
                    rounded
                }
            }
        };
        word |= bits << offset;
        offset += w;
    }
    Some(Ok(word.to_le_bytes().to_vec()))
}

/// The channels of texels of a packed format, as the shader reads them.
fn decode_packed(format: wgpu::TextureFormat, bytes: &[u8]) -> Option<Vec<f64>> {
    let (widths, kind) = packed(format)?;
    let mut out = Vec::new();
    for texel in bytes.chunks_exact(4) {
        let word = u32::from_le_bytes([texel[0], texel[1], texel[2], texel[3]]);
        let mut offset = 0;
        for &w in widths {
            let c = (word >> offset) & ((1 << w) - 1);
            offset += w;
            out.push(match kind {
                Channel::Unorm => f64::from(c) / f64::from((1u32 << w) - 1),
                Channel::Uint => f64::from(c),
                _ => f64::from(f16_to_f32((c << (15 - w)) as u16)),
            });
        }
    }
    Some(out)
}

/// Bits per channel of a format atomport fills channel by channel.
pub fn channel_bits(format: wgpu::TextureFormat) -> Option<u32> {
    layout(format).map(|l| l.2)
}

/// Channels of a format the host reads and writes per channel.
pub fn channels(format: wgpu::TextureFormat) -> Option<usize> {
    match packed(format) {
        Some((widths, _)) => Some(widths.len()),
        None => layout(format).map(|l| l.0),
    }
}

/// The kind of a format's channels, packed formats' included.
fn channel_kind(format: wgpu::TextureFormat) -> Option<Channel> {
    packed(format)
        .map(|p| p.1)
        .or_else(|| layout(format).map(|l| l.1))
}

/// Whether the format's channels are normalized (unorm or snorm).
pub fn normalized(format: wgpu::TextureFormat) -> bool {
    matches!(channel_kind(format), Some(Channel::Unorm | Channel::Snorm))
}

/// Whether the format's channels read back as integers (and which sign).
pub fn integer_channels(format: wgpu::TextureFormat) -> Option<bool> {
    match channel_kind(format)? {
        Channel::Uint => Some(false),
        Channel::Sint => Some(true),
        _ => None,
    }
}

/// One texel of `format` holding `values` (as the shader reads them:
/// normalized formats take 0..1 or -1..1, integer formats whole numbers);
/// channels past the format's are ignored.
pub fn encode_texel(format: wgpu::TextureFormat, values: [f64; 4]) -> Result<Vec<u8>> {
    if let Some(texel) = encode_packed(format, values) {
        return texel;
    }
    let (n, kind, bits, bgra) = layout(format).ok_or_else(|| {
        Error::Resource(format!(
            "{}: atomport does not fill this format channel by channel",
            format_name(format)
        ))
    })?;
    let mut v = values;
    if bgra {
        v.swap(0, 2);
    }
    let mut out = Vec::with_capacity(n * bits as usize / 8);
    for &x in &v[..n] {
        let max_u = ((1u64 << bits) - 1) as f64;
        let max_s = ((1u64 << (bits - 1)) - 1) as f64;
        let word: u64 = match kind {
            Channel::Unorm => (x.clamp(0.0, 1.0) * max_u).round() as u64,
            Channel::Snorm => ((x.clamp(-1.0, 1.0) * max_s).round() as i64) as u64,
            Channel::Uint => {
                if x < 0.0 || x > max_u || x.fract() != 0.0 {
                    return Err(Error::Resource(format!(
                        "{x} is not a value of a {}-bit unsigned channel ({})",
                        bits,
                        format_name(format)
                    )));
                }
                x as u64
            }
            Channel::Sint => {
                if x < -max_s - 1.0 || x > max_s || x.fract() != 0.0 {
                    return Err(Error::Resource(format!(
                        "{x} is not a value of a {}-bit signed channel ({})",
                        bits,
                        format_name(format)
                    )));
                }
                (x as i64) as u64
            }
            Channel::Float if bits == 16 => u64::from(f32_to_f16(x as f32)),
            Channel::Float => u64::from((x as f32).to_bits()),
        };
        out.extend_from_slice(&word.to_le_bytes()[..bits as usize / 8]);
    }
    Ok(out)
}

/// Every channel of every texel of `bytes` as the shader reads it.
pub fn decode_texels(format: wgpu::TextureFormat, bytes: &[u8]) -> Option<Vec<f64>> {
    if packed(format).is_some() {
        return decode_packed(format, bytes);
    }
    let (n, kind, bits, bgra) = layout(format)?;
    let size = bits as usize / 8;
    let mut out = Vec::with_capacity(bytes.len() / size);
    for texel in bytes.chunks_exact(n * size) {
        let mut vals: Vec<f64> = texel
            .chunks_exact(size)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..size].copy_from_slice(c);
                let u = u64::from_le_bytes(w);
                let max_u = ((1u64 << bits) - 1) as f64;
                let signed = ((u << (64 - bits)) as i64 >> (64 - bits)) as f64;
                match kind {
                    Channel::Unorm => u as f64 / max_u,
                    Channel::Snorm => (signed / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0),
                    Channel::Uint => u as f64,
                    Channel::Sint => signed,
                    Channel::Float if bits == 16 => f64::from(f16_to_f32(u as u16)),
                    Channel::Float => f64::from(f32::from_bits(u as u32)),
                }
            })
            .collect();
        if bgra {
            vals.swap(0, 2);
        }
        out.extend(vals);
    }
    Some(out)
}

/// IEEE half from single, rounding to nearest even.
fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = (man | 0x80_0000) >> (1 - e);
        let round = (m & 0x1fff) > 0x1000 || ((m & 0x1fff) == 0x1000 && (m & 0x2000) != 0);
        return sign | ((m >> 13) as u16 + round as u16);
    }
    let round = (man & 0x1fff) > 0x1000 || ((man & 0x1fff) == 0x1000 && (man & 0x2000) != 0);
    (sign | ((e as u16) << 10) | (man >> 13) as u16) + round as u16
}

/// Single from IEEE half.
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalize.
            let shift = m.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | ((m << shift) & 0x3ff) << 13
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// A PNG file as texture data (the `png` feature): 8-bit RGB(A) and gray+alpha become
/// `rgba8unorm`, 8-bit gray `r8unorm`, 16-bit gray `r32float` (0..1).
/// Returns (width, height, format, tightly packed texels).
#[cfg(feature = "png")]
pub fn read_png(path: &std::path::Path) -> Result<(u32, u32, wgpu::TextureFormat, Vec<u8>)> {
    let bytes = crate::front::read_bounded(path, 1 << 30, "PNG file")?;
    let bad = |why: String| Error::Resource(format!("{}: {why}", path.display()));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(&bytes[..]));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .map_err(|e| bad(format!("not a PNG file atomport can read ({e})")))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| bad("the image is too large".into()))?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| bad(format!("the PNG data is damaged ({e})")))?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    use png::{BitDepth, ColorType};
    let (format, data) = match (info.color_type, info.bit_depth) {
        (ColorType::Rgba, BitDepth::Eight) => (wgpu::TextureFormat::Rgba8Unorm, buf),
        (ColorType::Rgb, BitDepth::Eight) => (
            wgpu::TextureFormat::Rgba8Unorm,
            buf.chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
        ),
        (ColorType::GrayscaleAlpha, BitDepth::Eight) => (
            wgpu::TextureFormat::Rgba8Unorm,
            buf.chunks_exact(2)
                .flat_map(|p| [p[0], p[0], p[0], p[1]])
                .collect(),
        ),
        (ColorType::Grayscale, BitDepth::Eight) => (wgpu::TextureFormat::R8Unorm, buf),
        (ColorType::Grayscale, BitDepth::Sixteen) => (
            wgpu::TextureFormat::R32Float,
            buf.chunks_exact(2)
                .flat_map(|p| (f32::from(u16::from_be_bytes([p[0], p[1]])) / 65535.0).to_le_bytes())
                .collect(),
        ),
        (c, d) => {
            return Err(bad(format!(
                "a {c:?} PNG of {d:?} bits per channel: atomport reads 8-bit RGBA, RGB, gray and gray+alpha, and 16-bit gray"
            )));
        }
    };
    Ok((w, h, format, data))
}

/// Writes 2D texel data of an 8-bit unorm format (`rgba8unorm`, `bgra8unorm`,
/// `rg8unorm`, `r8unorm`) as a PNG file (the `png` feature).
#[cfg(feature = "png")]
pub fn write_png(
    path: &std::path::Path,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
    data: &[u8],
) -> Result<()> {
    use wgpu::TextureFormat as F;
    let (color, pixels): (png::ColorType, Vec<u8>) = match format {
        F::Rgba8Unorm | F::Rgba8UnormSrgb => (png::ColorType::Rgba, data.to_vec()),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => (
            png::ColorType::Rgba,
            data.chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0], p[3]])
                .collect(),
        ),
        F::Rg8Unorm => (
            png::ColorType::Rgb,
            data.chunks_exact(2).flat_map(|p| [p[0], p[1], 0]).collect(),
        ),
        F::R8Unorm => (png::ColorType::Grayscale, data.to_vec()),
        other => {
            return Err(Error::Resource(format!(
                "{}: PNG output takes 8-bit unorm textures (rgba8unorm, bgra8unorm, rg8unorm, r8unorm), not {}",
                path.display(),
                format_name(other)
            )));
        }
    };
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(color);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .map_err(|e| io(std::io::Error::other(e)))?;
    w.write_image_data(&pixels)
        .map_err(|e| io(std::io::Error::other(e)))?;
    w.finish().map_err(|e| io(std::io::Error::other(e)))
}

/// Refuses a texture of `dimension` and `size` past the device's limits,
/// naming the limit (`what`: the texture, as the message names it).
pub(crate) fn within_limits(
    limits: &wgpu::Limits,
    dimension: wgpu::TextureDimension,
    size: wgpu::Extent3d,
    what: &str,
) -> Result<()> {
    let (limit_name, max) = match dimension {
        wgpu::TextureDimension::D1 => ("max_texture_dimension_1d", limits.max_texture_dimension_1d),
        wgpu::TextureDimension::D2 => ("max_texture_dimension_2d", limits.max_texture_dimension_2d),
        wgpu::TextureDimension::D3 => ("max_texture_dimension_3d", limits.max_texture_dimension_3d),
    };
    let side = size.width.max(size.height);
    if side > max {
        return Err(Error::Limit {
            what: format!("{what}'s size"),
            value: side.into(),
            limit_name,
            limit: max.into(),
        });
    }
    let (limit_name, limit) = if dimension == wgpu::TextureDimension::D3 {
        ("max_texture_dimension_3d", limits.max_texture_dimension_3d)
    } else {
        ("max_texture_array_layers", limits.max_texture_array_layers)
    };
    if size.depth_or_array_layers > limit {
        return Err(Error::Limit {
            what: format!("{what}'s depth or layer count"),
            value: size.depth_or_array_layers.into(),
            limit_name,
            limit: limit.into(),
        });
    }
    Ok(())
}
