//! [`Image`]: a GLSL storage image held in a texel buffer, with host access
//! in DESIGN's texel order and copies to and from real `wgpu::Texture`s.

use serde::Serialize;

use crate::lower::memory::texel::{HEADER_WORDS, ImageDim, ImageFormat, TexelAddress};
use crate::runtime::buffer::cast_vec;
use crate::{Buffer, Context, Error, Result, Texture, TextureDim};

/// An image's shape, as GLSL's `imageSize` and `imageSamples` report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ImageDesc {
    /// The GLSL image type's shape.
    pub dim: ImageDim,
    /// The texel format.
    pub format: ImageFormat,
    /// Width in texels.
    pub width: u32,
    /// Height (1 for 1D, 1D array and buffer images).
    pub height: u32,
    /// Depth (3D), array layers (1D/2D arrays), or cubes (cube arrays); 1 otherwise.
    pub depth_or_layers: u32,
    /// Samples per texel (multisample images); 1 otherwise.
    pub samples: u32,
}

impl ImageDesc {
    /// A description with `imageSize`'s numbers in `size` (1, 2 or 3 of them
    /// as the shape has) and `samples`, checked.
    pub fn new(
        dim: ImageDim,
        format: ImageFormat,
        size: &[u32],
        samples: u32,
    ) -> Result<ImageDesc> {
        let want = dim.size_count() as usize;
        if size.len() != want {
            return Err(Error::Resource(format!(
                "a {} image's size has {want} number{} ({}), not {}",
                dim.name(),
                if want == 1 { "" } else { "s" },
                size_pattern(dim),
                size.len()
            )));
        }
        let (width, height, depth_or_layers) = match dim {
            ImageDim::D1 | ImageDim::Buffer => (size[0], 1, 1),
            ImageDim::D1Array => (size[0], 1, size[1]),
            ImageDim::D2 | ImageDim::Rect | ImageDim::Cube | ImageDim::D2Ms => {
                (size[0], size[1], 1)
            }
            _ => (size[0], size[1], size[2]),
        };
        let desc = ImageDesc {
            dim,
            format,
            width,
            height,
            depth_or_layers,
            samples,
        };
        desc.check()?;
        Ok(desc)
    }

    /// Checks the numbers against the shape.
    pub fn check(&self) -> Result<()> {
        let name = self.dim.name();
        let bad = |why: String| Err(Error::Resource(format!("{name} image: {why}")));
        if self.width == 0 || self.height == 0 || self.depth_or_layers == 0 || self.samples == 0 {
            return bad("every size and the sample count must be at least 1".into());
        }
        if !self.dim.has_height() && self.height != 1 {
            return bad(format!("height must be 1, not {}", self.height));
        }
        if self.dim.layer_coordinate().is_none() && self.depth_or_layers != 1 {
            return bad(format!(
                "has no layers, so depth_or_layers must be 1, not {}",
                self.depth_or_layers
            ));
        }
        if self.dim == ImageDim::Cube && self.depth_or_layers != 1 {
            return bad("a cube has 6 faces and no further layers".into());
        }
        if matches!(self.dim, ImageDim::Cube | ImageDim::CubeArray) && self.width != self.height {
            return bad(format!(
                "cube faces are square, not {}x{}",
                self.width, self.height
            ));
        }
        if !self.dim.is_multisampled() && self.samples != 1 {
            return bad(format!(
                "only multisample images have samples, not {}",
                self.samples
            ));
        }
        // Sample counts are powers of two in every API (Vulkan: 1 to 64).
        if !self.samples.is_power_of_two() || self.samples > 64 {
            return bad(format!(
                "{} samples: a sample count is a power of two from 1 to 64",
                self.samples
            ));
        }
        if !self.addressable() {
            return bad(format!("{} is too many texels", self.size_text()));
        }
        Ok(())
    }

    /// The words of the texel buffer the kernel binds for this image, without
    /// a [`crate::Context`] (for a caller that binds its own buffer): the
    /// header `(width, height, layers, samples)`, the texels in texel order
    /// as `texel(i)` gives word `i` of them (texels packed as the format
    /// lays them out, e.g. four `r8` texels a word, two words an `r64ui`
    /// one, low first), and the scratch texel.
    pub fn texel_buffer_words(&self, texel: impl Fn(usize) -> u32) -> Result<Vec<u32>> {
        self.check()?;
        let n = self.texel_words();
        let total = self.buffer_len() as usize / 4;
        let mut words = Vec::with_capacity(total);
        words.extend([self.width, self.height, self.layers(), self.samples]);
        words.extend((0..n).map(texel));
        words.resize(total, 0);
        Ok(words)
    }

    /// Bytes of every texel (not the header or scratch texel).
    pub fn texel_bytes(&self) -> usize {
        self.texel_count() * self.format.texel_bytes() as usize
    }

    /// Words the texels take, the last one padded.
    fn texel_words(&self) -> usize {
        self.texel_bytes().div_ceil(4)
    }

    /// Layers held: 6 per cube, the depth of a 3D image, the array layers.
    pub fn layers(&self) -> u32 {
        match self.dim {
            ImageDim::Cube => 6,
            ImageDim::CubeArray => 6 * self.depth_or_layers,
            _ => self.depth_or_layers,
        }
    }

    /// What `imageSize` returns.
    pub fn size(&self) -> Vec<u32> {
        match self.dim {
            ImageDim::D1 | ImageDim::Buffer => vec![self.width],
            ImageDim::D1Array => vec![self.width, self.depth_or_layers],
            ImageDim::D2 | ImageDim::Rect | ImageDim::Cube | ImageDim::D2Ms => {
                vec![self.width, self.height]
            }
            _ => vec![self.width, self.height, self.depth_or_layers],
        }
    }

    /// Whether every texel, the header and the scratch texel have 32-bit byte offsets.
    fn addressable(&self) -> bool {
        let n = [self.height, self.layers(), self.samples]
            .iter()
            .try_fold(self.width as u64, |n, &d| n.checked_mul(d as u64));
        let bytes = u64::from(self.format.texel_bytes());
        n.is_some_and(|n| (n + 1) * bytes + 4 * HEADER_WORDS as u64 <= u32::MAX as u64 - 3)
    }

    /// `imageSize`'s numbers as `WxHxL`.
    pub fn size_text(&self) -> String {
        super::texture::size_text(&self.size())
    }

    /// Texels in all: width × height × layers × samples.
    pub fn texel_count(&self) -> usize {
        self.width as usize * self.height as usize * self.layers() as usize * self.samples as usize
    }

    /// Index of a texel in texel order.
    pub fn index(&self, a: TexelAddress) -> usize {
        a.index(self.width, self.height, self.layers())
    }

    /// Bytes of the texel buffer: header, texels, scratch texel, rounded
    /// up to a whole word.
    pub fn buffer_len(&self) -> u64 {
        let texels = (self.texel_count() as u64 + 1) * u64::from(self.format.texel_bytes());
        4 * u64::from(HEADER_WORDS) + texels.next_multiple_of(4)
    }
}

/// `W`, `WxH`, `WxL` or `WxHxL`, as the shape takes.
pub fn size_pattern(dim: ImageDim) -> &'static str {
    match dim {
        ImageDim::D1 | ImageDim::Buffer => "W",
        ImageDim::D1Array => "WxL",
        ImageDim::D2 | ImageDim::Rect | ImageDim::Cube | ImageDim::D2Ms => "WxH",
        ImageDim::D3 => "WxHxD",
        ImageDim::CubeArray => "WxHxCUBES",
        _ => "WxHxL",
    }
}

/// A GLSL storage image as atomport maps it: a buffer of texels at the
/// image's binding. Bind it with [`crate::Bind::image`].
#[derive(Debug)]
pub struct Image {
    desc: ImageDesc,
    buffer: Buffer,
}

impl Image {
    /// An image whose texels are all zero.
    pub fn zeroed(ctx: &Context, desc: ImageDesc) -> Result<Image> {
        Self::with_words(ctx, desc, |_| 0)
    }

    /// An image whose texels are all `value`: one texel's bytes as the
    /// format lays them out (`u32`, `i32` or `f32` for `r32*`; `u64` or
    /// `i64` for `r64*`; `[f32; 4]` for `rgba32f`, `[u8; 4]` for `rgba8`,
    /// `u16` for `r16f` (the half's bits), …).
    pub fn filled<T: bytemuck::Pod>(ctx: &Context, desc: ImageDesc, value: T) -> Result<Image> {
        let one = bytemuck::bytes_of(&value);
        if one.len() != desc.format.texel_bytes() as usize {
            return Err(Error::Resource(format!(
                "a {} texel is {} bytes, not {}",
                desc.format.name(),
                desc.format.texel_bytes(),
                one.len()
            )));
        }
        desc.check()?;
        let bytes: Vec<u8> = one
            .iter()
            .copied()
            .cycle()
            .take(desc.texel_bytes())
            .collect();
        Self::from_bytes(ctx, desc, &bytes)
    }

    /// An image holding `texels` in texel order (x fastest, then y, layer,
    /// sample), each laid out as its format says (see [`Image::filled`]).
    pub fn from_texels<T: bytemuck::Pod>(
        ctx: &Context,
        desc: ImageDesc,
        texels: &[T],
    ) -> Result<Image> {
        desc.check()?;
        Self::from_bytes(ctx, desc, bytemuck::cast_slice(texels))
    }

    /// An image holding the texel bytes `bytes`, checked for length.
    fn from_bytes(ctx: &Context, desc: ImageDesc, bytes: &[u8]) -> Result<Image> {
        let needed = desc.texel_bytes();
        if bytes.len() != needed {
            return Err(Error::Resource(format!(
                "{} image {}: {} bytes of texels given, {needed} needed",
                desc.dim.name(),
                desc.size_text(),
                bytes.len(),
            )));
        }
        Self::with_words(ctx, desc, |i| word_of(bytes, i))
    }

    fn with_words(ctx: &Context, desc: ImageDesc, texel: impl Fn(usize) -> u32) -> Result<Image> {
        Ok(Image {
            buffer: Buffer::from_slice(ctx, &desc.texel_buffer_words(texel)?)?,
            desc,
        })
    }

    /// The description.
    pub fn desc(&self) -> &ImageDesc {
        &self.desc
    }

    /// The texel buffer (header, texels, scratch).
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// Reads every texel back, in texel order.
    pub fn read<T: bytemuck::Pod>(&self, ctx: &Context) -> Result<Vec<T>> {
        let bytes = self.buffer.read::<u8>(ctx)?;
        cast_vec(self.texel_bytes(&bytes))
    }

    /// [`Image::read`] without blocking (in a browser, where nothing may).
    pub async fn read_async<T: bytemuck::Pod>(&self, ctx: &Context) -> Result<Vec<T>> {
        let bytes = self.buffer.read_async::<u8>(ctx).await?;
        cast_vec(self.texel_bytes(&bytes))
    }

    /// The texels within the buffer's bytes.
    pub(crate) fn texel_bytes<'b>(&self, buffer_bytes: &'b [u8]) -> &'b [u8] {
        let start = HEADER_WORDS as usize * 4;
        &buffer_bytes[start..start + self.desc.texel_bytes()]
    }

    /// The wgpu texture shape that holds one sample of this image: 1D for
    /// 1D and buffer images, 3D for 3D, 2D with a 1D array's layers as its
    /// rows (WebGPU has no 1D-array textures; the texel order is the same),
    /// otherwise 2D with the layers (6 per cube) as array layers.
    pub fn texture_descriptor(&self) -> wgpu::TextureDescriptor<'static> {
        let d = &self.desc;
        let (dimension, size) = match d.dim {
            ImageDim::D1 | ImageDim::Buffer => (
                wgpu::TextureDimension::D1,
                wgpu::Extent3d {
                    width: d.width,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            ),
            ImageDim::D1Array => (
                wgpu::TextureDimension::D2,
                wgpu::Extent3d {
                    width: d.width,
                    height: d.depth_or_layers,
                    depth_or_array_layers: 1,
                },
            ),
            ImageDim::D3 => (
                wgpu::TextureDimension::D3,
                wgpu::Extent3d {
                    width: d.width,
                    height: d.height,
                    depth_or_array_layers: d.depth_or_layers,
                },
            ),
            _ => (
                wgpu::TextureDimension::D2,
                wgpu::Extent3d {
                    width: d.width,
                    height: d.height,
                    depth_or_array_layers: d.layers(),
                },
            ),
        };
        wgpu::TextureDescriptor {
            label: Some("atomport image"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension,
            format: d.format.texture_format(),
            usage: wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::STORAGE_BINDING,
            view_formats: &[],
        }
    }

    /// New textures holding this image, one per sample (see [`Image::texture_descriptor`]).
    pub fn to_textures(&self, ctx: &Context) -> Result<Vec<wgpu::Texture>> {
        let desc = self.texture_descriptor();
        crate::runtime::texture::within_limits(
            &ctx.limits(),
            desc.dimension,
            desc.size,
            &format!("the {} image's texture", self.desc.dim.name()),
        )?;
        let textures = (0..self.desc.samples)
            .map(|_| ctx.scoped(|| ctx.device().create_texture(&desc)))
            .collect::<Result<Vec<_>>>()?;
        self.copy_to_textures(ctx, &textures)?;
        Ok(textures)
    }

    /// Copies the texels into `textures` (one per sample, shaped as
    /// [`Image::texture_descriptor`]) on the GPU: no host round trip.
    pub fn copy_to_textures(&self, ctx: &Context, textures: &[wgpu::Texture]) -> Result<()> {
        self.check_textures(textures)?;
        self.gpu_copy(ctx, textures, true)
    }

    /// Overwrites the texels from `textures` (one per sample, shaped as
    /// [`Image::texture_descriptor`]) on the GPU: no host round trip.
    ///
    /// wgpu's GL backend keeps a square 2D texture of 6·n layers as a cube
    /// map (array), which it cannot copy from: that case is an
    /// [`Error::Unsupported`] rather than texels silently lost.
    pub fn copy_from_textures(&self, ctx: &Context, textures: &[wgpu::Texture]) -> Result<()> {
        self.check_textures(textures)?;
        let want = self.texture_descriptor();
        if ctx.info().backend == wgpu::Backend::Gl
            && want.dimension == wgpu::TextureDimension::D2
            && want.size.width == want.size.height
            && want.size.depth_or_array_layers.is_multiple_of(6)
        {
            return Err(Error::Unsupported(
                "wgpu's GL backend cannot copy from a cube map (a square 2D texture of 6·n layers); read the image itself instead".into(),
            ));
        }
        self.gpu_copy(ctx, textures, false)
    }

    /// Records the copies between the texel buffer and `textures` and
    /// submits them, waiting at most the timeout. Texture copies need rows
    /// of a multiple of 256 bytes: narrower images go through a staging
    /// buffer with padded rows, filled or emptied row by row on the GPU.
    fn gpu_copy(&self, ctx: &Context, textures: &[wgpu::Texture], to_textures: bool) -> Result<()> {
        ctx.ready()?;
        let size = self.texture_descriptor().size;
        let row = u64::from(size.width) * u64::from(self.desc.format.texel_bytes());
        // wgpu's GL backend copies a signed normalized texture out clamped
        // to 0..1: read back through the host, whose texture reads load
        // the texels in a shader there.
        let clamped = !to_textures
            && ctx.info().backend == wgpu::Backend::Gl
            && crate::runtime::texture::is_snorm(self.desc.format.texture_format());
        if !row.is_multiple_of(4) || clamped {
            // Buffer copies move whole words: rows of narrow texels (an odd
            // width of r8 or r16 texels) go through the host.
            return self.host_copy(ctx, textures, to_textures);
        }
        let pitch = row.next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT));
        let rows = u64::from(size.height) * u64::from(size.depth_or_array_layers);
        let per_sample = rows * row;
        let staging = (pitch != row)
            .then(|| {
                ctx.scoped(|| {
                    ctx.device().create_buffer(&wgpu::BufferDescriptor {
                        label: Some("atomport image copy rows"),
                        size: pitch * rows,
                        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })
            })
            .transpose()?;
        let mut encoder = ctx
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("atomport image copy"),
            });
        for (s, t) in textures.iter().enumerate() {
            let base = u64::from(HEADER_WORDS) * 4 + s as u64 * per_sample;
            let (buffer, offset) = match &staging {
                Some(st) => (st, 0),
                None => (self.buffer.raw(), base),
            };
            let rows_copy = |encoder: &mut wgpu::CommandEncoder, st: &wgpu::Buffer| {
                for r in 0..rows {
                    let (img, pad) = (base + r * row, r * pitch);
                    if to_textures {
                        encoder.copy_buffer_to_buffer(self.buffer.raw(), img, st, pad, row);
                    } else {
                        encoder.copy_buffer_to_buffer(st, pad, self.buffer.raw(), img, row);
                    }
                }
            };
            if let (true, Some(st)) = (to_textures, &staging) {
                rows_copy(&mut encoder, st);
            }
            let buffer_info = wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(pitch as u32),
                    rows_per_image: Some(size.height),
                },
            };
            if to_textures {
                encoder.copy_buffer_to_texture(buffer_info, t.as_image_copy(), size);
            } else {
                encoder.copy_texture_to_buffer(t.as_image_copy(), buffer_info, size);
            }
            if let (false, Some(st)) = (to_textures, &staging) {
                rows_copy(&mut encoder, st);
            }
        }
        let cmd = encoder.finish();
        ctx.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
    }

    /// [`Image::gpu_copy`] through host memory, for rows that are not
    /// whole words.
    fn host_copy(
        &self,
        ctx: &Context,
        textures: &[wgpu::Texture],
        to_textures: bool,
    ) -> Result<()> {
        let want = self.texture_descriptor();
        let dim = match want.dimension {
            wgpu::TextureDimension::D1 => TextureDim::D1,
            wgpu::TextureDimension::D3 => TextureDim::D3,
            wgpu::TextureDimension::D2 if want.size.depth_or_array_layers > 1 => {
                TextureDim::D2Array
            }
            wgpu::TextureDimension::D2 => TextureDim::D2,
        };
        let per_sample = self.desc.texel_bytes() / self.desc.samples as usize;
        if to_textures {
            let bytes = self.buffer.read::<u8>(ctx)?;
            let texels = self.texel_bytes(&bytes);
            for (s, t) in textures.iter().enumerate() {
                Texture::from_wgpu(t.clone(), dim)?.write_level(
                    ctx,
                    0,
                    &texels[s * per_sample..(s + 1) * per_sample],
                )?;
            }
            return Ok(());
        }
        let mut texels = Vec::with_capacity(self.desc.texel_bytes());
        for t in textures {
            texels.extend(Texture::from_wgpu(t.clone(), dim)?.read_level(ctx, 0)?);
        }
        self.buffer
            .write(ctx, &self.desc.texel_buffer_words(|i| word_of(&texels, i))?)
    }

    fn check_textures(&self, textures: &[wgpu::Texture]) -> Result<()> {
        let want = self.texture_descriptor();
        if textures.len() != self.desc.samples as usize {
            return Err(Error::Resource(format!(
                "{} textures given for an image of {} samples (one texture per sample)",
                textures.len(),
                self.desc.samples
            )));
        }
        for t in textures {
            if t.size() != want.size || t.format() != want.format || t.dimension() != want.dimension
            {
                return Err(Error::Resource(format!(
                    "texture {:?} {:?} {:?} does not match the image ({:?} {:?} {:?})",
                    t.dimension(),
                    t.size(),
                    t.format(),
                    want.dimension,
                    want.size,
                    want.format
                )));
            }
        }
        Ok(())
    }
}

/// Word `i` of `bytes` (little-endian), the last one padded with zeros.
fn word_of(bytes: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    let chunk = &bytes[4 * i..(4 * i + 4).min(bytes.len())];
    w[..chunk.len()].copy_from_slice(chunk);
    u32::from_le_bytes(w)
}

/// The storage texture view an image of `dim` is bound as (a native run's,
/// and the layout of its binding), if WebGPU has one.
pub(crate) fn storage_view(dim: ImageDim, samples: u32) -> Option<wgpu::TextureViewDimension> {
    if samples != 1 {
        return None;
    }
    // The native module addresses a buffer image as a 1D one, a 1D
    // array's layers as a 2D image's rows and a cube's faces as layers
    // (`lower::spirv::native_shapes`).
    Some(match dim {
        ImageDim::D1 | ImageDim::Buffer => wgpu::TextureViewDimension::D1,
        ImageDim::D2 | ImageDim::Rect | ImageDim::D1Array => wgpu::TextureViewDimension::D2,
        ImageDim::D2Array | ImageDim::Cube | ImageDim::CubeArray => {
            wgpu::TextureViewDimension::D2Array
        }
        ImageDim::D3 => wgpu::TextureViewDimension::D3,
        _ => return None,
    })
}
