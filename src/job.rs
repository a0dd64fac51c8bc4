//! A job: a kernel, a workgroup count and the buffers and images to create
//! for its bindings from textual specs — what `atomport run` (and `diff`)
//! execute.

use std::path::PathBuf;
use std::str::FromStr;

use serde::Serialize;

use crate::lower::opengl::OpenGlKind;
use crate::runtime::buffer::cast_vec;
use crate::runtime::texture::format_name;
use crate::{
    Bind, BindingInfo, Buffer, Context, Error, Image, ImageDesc, Kernel, Result, Sampler,
    ScalarType, Texture, Uniforms,
};

/// A binding as the command line names it: `BINDING` (group 0),
/// `GROUP.BINDING`, or the GLSL name (a block's instance or type name, an
/// image's name, an atomic counter's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingRef {
    /// WGSL's group and binding.
    Slot(Slot),
    /// A GLSL name.
    Name(String),
}

impl FromStr for BindingRef {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        // An identifier, or an element of a split array of combined
        // samplers (`layers[2]`).
        let base = match s.strip_suffix(']').and_then(|t| t.split_once('[')) {
            Some((b, i)) if !i.is_empty() && i.bytes().all(|c| c.is_ascii_digit()) => b,
            _ => s,
        };
        let identifier = base
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if identifier {
            Ok(BindingRef::Name(s.to_string()))
        } else {
            s.parse().map(BindingRef::Slot).map_err(|_| {
                Error::Spec(format!(
                    "`{s}` is not a binding (expected BINDING, GROUP.BINDING or a GLSL name, e.g. 0, 1.2 or Particles)"
                ))
            })
        }
    }
}

impl std::fmt::Display for BindingRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindingRef::Slot(s) => write!(f, "binding {}.{}", s.group, s.binding),
            BindingRef::Name(n) => write!(f, "`{n}`"),
        }
    }
}

impl BindingRef {
    /// The kernel's binding, if it has it: a name it lacks is an error
    /// listing its names; an unknown slot is `None` (the dispatch refuses it).
    pub fn resolve<'k>(&self, kernel: &'k Kernel) -> Result<(Slot, Option<&'k BindingInfo>)> {
        match self {
            BindingRef::Slot(slot) => Ok((*slot, kernel.binding(slot.group, slot.binding))),
            BindingRef::Name(name) => {
                let info = kernel.binding_named(name)?;
                Ok((
                    Slot {
                        group: info.group,
                        binding: info.binding,
                    },
                    Some(info),
                ))
            }
        }
    }
}

/// Where a binding is: `BINDING` (group 0) or `GROUP.BINDING`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Bind group.
    pub group: u32,
    /// Binding.
    pub binding: u32,
}

impl FromStr for Slot {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let num = |t: &str| {
            t.parse::<u32>().map_err(|_| {
                Error::Spec(format!(
                    "`{s}` is not a binding (expected BINDING or GROUP.BINDING, e.g. 0 or 1.2)"
                ))
            })
        };
        match s.split_once('.') {
            Some((g, b)) => Ok(Slot {
                group: num(g)?,
                binding: num(b)?,
            }),
            None => Ok(Slot {
                group: 0,
                binding: num(s)?,
            }),
        }
    }
}

/// How to fill a buffer (the SPEC of `--buffer B=SPEC`).
#[derive(Clone, Debug, PartialEq)]
pub enum BufferInit {
    /// `TYPE:LEN`: `len` zeroed elements.
    Zeroed {
        /// Element type.
        ty: ScalarType,
        /// Element count.
        len: usize,
    },
    /// `TYPE:LEN:fill=V`: `len` copies of a value (stored as its bit pattern).
    Fill {
        /// Element type.
        ty: ScalarType,
        /// Element count.
        len: usize,
        /// The value's 32-bit pattern.
        bits: u32,
    },
    /// `TYPE:LEN:iota`: 0, 1, 2, … in the element type.
    Iota {
        /// Element type.
        ty: ScalarType,
        /// Element count.
        len: usize,
    },
    /// `TYPE:[v1,v2,…]`: the listed values (as bit patterns).
    Values {
        /// Element type.
        ty: ScalarType,
        /// The values' 32-bit patterns.
        bits: Vec<u32>,
    },
    /// `@FILE`: the file's raw little-endian bytes; the type comes from the shader (u32 if unknown).
    File(PathBuf),
}

/// Longest buffer a SPEC may ask for, in elements (1 GiB of 4-byte elements).
const MAX_LEN: usize = 1 << 28;

impl FromStr for BufferInit {
    type Err = Error;
    fn from_str(spec: &str) -> Result<Self> {
        if let Some(path) = spec.strip_prefix('@') {
            if path.is_empty() {
                return Err(Error::Spec("`@` needs a file name: @FILE".into()));
            }
            return Ok(BufferInit::File(path.into()));
        }
        let usage = "expected TYPE:LEN, TYPE:LEN:fill=V, TYPE:LEN:iota, TYPE:[v1,v2,…] or @FILE, with TYPE one of u32, i32, f32";
        let (ty_s, rest) = spec
            .split_once(':')
            .ok_or_else(|| Error::Spec(format!("`{spec}`: {usage}")))?;
        let ty = ScalarType::parse(ty_s)
            .ok_or_else(|| Error::Spec(format!("`{ty_s}` is not a type (u32, i32 or f32)")))?;
        if let Some(list) = rest.strip_prefix('[') {
            let list = list.strip_suffix(']').ok_or_else(|| {
                Error::Spec(format!("`{spec}`: the value list has no closing `]`"))
            })?;
            if list.trim().is_empty() {
                return Err(Error::Spec(format!("`{spec}`: the value list is empty")));
            }
            let bits = list
                .split(',')
                .enumerate()
                .map(|(k, v)| {
                    if v.trim().is_empty() {
                        Err(Error::Spec(format!(
                            "`{spec}`: value {} of the list is empty",
                            k + 1
                        )))
                    } else {
                        ty.parse_value(v)
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(BufferInit::Values { ty, bits });
        }
        let (len_s, mode) = match rest.split_once(':') {
            Some((l, m)) => (l, Some(m)),
            None => (rest, None),
        };
        let len: usize = len_s
            .parse()
            .map_err(|_| Error::Spec(format!("`{len_s}` is not a length in `{spec}`: {usage}")))?;
        if len == 0 || len > MAX_LEN {
            return Err(Error::Spec(format!(
                "length {len} in `{spec}` is out of range (1..={MAX_LEN})"
            )));
        }
        match mode {
            None => Ok(BufferInit::Zeroed { ty, len }),
            Some("iota") => Ok(BufferInit::Iota { ty, len }),
            Some(m) => match m.strip_prefix("fill=") {
                Some(v) => Ok(BufferInit::Fill {
                    ty,
                    len,
                    bits: ty.parse_value(v)?,
                }),
                None => Err(Error::Spec(format!(
                    "`{m}` in `{spec}` is neither `fill=V` nor `iota`"
                ))),
            },
        }
    }
}

impl BufferInit {
    /// The bytes the buffer will hold, known before anything is allocated
    /// (a file's from its size).
    pub fn byte_len(&self) -> Result<u64> {
        Ok(match self {
            BufferInit::Zeroed { len, .. }
            | BufferInit::Fill { len, .. }
            | BufferInit::Iota { len, .. } => *len as u64 * 4,
            BufferInit::Values { bits, .. } => bits.len() as u64 * 4,
            BufferInit::File(path) => std::fs::metadata(path)
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?
                .len(),
        })
    }

    /// The element type and initial bytes; `shader_type` is used for `@FILE`.
    pub fn materialize(&self, shader_type: Option<ScalarType>) -> Result<(ScalarType, Vec<u8>)> {
        let words = |ty, v: Vec<u32>| (ty, bytemuck::cast_slice(&v).to_vec());
        Ok(match self {
            BufferInit::Zeroed { ty, len } => (*ty, vec![0; len * 4]),
            BufferInit::Fill { ty, len, bits } => words(*ty, vec![*bits; *len]),
            BufferInit::Iota { ty, len } => words(
                *ty,
                (0..*len as u32)
                    .map(|i| match ty {
                        ScalarType::F32 => (i as f32).to_bits(),
                        _ => i,
                    })
                    .collect(),
            ),
            BufferInit::Values { ty, bits } => words(*ty, bits.clone()),
            BufferInit::File(path) => {
                let bytes = crate::front::read_bounded(path, MAX_LEN as u64 * 4, "buffer file")?;
                if bytes.is_empty() {
                    return Err(Error::Spec(format!(
                        "{}: the file is empty",
                        path.display()
                    )));
                }
                (shader_type.unwrap_or(ScalarType::U32), bytes)
            }
        })
    }
}

/// `--buffer B=SPEC`: a binding and how to fill it.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferArg {
    /// Where to bind.
    pub slot: BindingRef,
    /// How to fill.
    pub init: BufferInit,
}

impl FromStr for BufferArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let (b, spec) = s.split_once('=').ok_or_else(|| {
            Error::Spec(format!(
                "`{s}`: expected B=SPEC, e.g. 0=u32:256 or Particles=f32:1024"
            ))
        })?;
        Ok(BufferArg {
            slot: b.parse()?,
            init: spec.parse()?,
        })
    }
}

/// `--image B=SIZE[:samples=N][:fill=V]`: an image for a binding; the
/// shape and format come from the shader.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageArg {
    /// Where to bind.
    pub slot: BindingRef,
    /// `imageSize`'s numbers (`W`, `WxH`, `WxL`, `WxHxL`, `WxHxD`).
    pub size: Vec<u32>,
    /// Samples (multisample images).
    pub samples: u32,
    /// Every texel's initial value, as written (parsed once the format is known).
    pub fill: Option<String>,
    /// The format, when written (it must be the one the shader declares).
    pub format: Option<String>,
}

impl FromStr for ImageArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let usage = "expected B=SIZE[:FORMAT][:samples=N][:fill=V], e.g. 0=64x64, out=512x512:rgba8unorm or 1.2=32x32x2:samples=4:fill=7";
        let (b, rest) = s
            .split_once('=')
            .ok_or_else(|| Error::Spec(format!("`{s}`: {usage}")))?;
        let mut parts = rest.split(':');
        let size_s = parts.next().unwrap_or_default();
        let size = size_s
            .split('x')
            .map(|n| n.parse::<u32>())
            .collect::<std::result::Result<Vec<u32>, _>>()
            .map_err(|_| Error::Spec(format!("`{size_s}` is not an image size: {usage}")))?;
        let mut arg = ImageArg {
            slot: b.parse()?,
            size,
            samples: 1,
            fill: None,
            format: None,
        };
        for p in parts {
            if crate::runtime::texture::parse_format(p).is_some()
                || crate::ImageFormat::parse(p).is_some()
            {
                arg.format = Some(p.to_string());
            } else if let Some(n) = p.strip_prefix("samples=") {
                arg.samples = n
                    .parse()
                    .map_err(|_| Error::Spec(format!("`{n}` is not a sample count in `{s}`")))?;
            } else if let Some(v) = p.strip_prefix("fill=") {
                arg.fill = Some(v.to_string());
            } else {
                return Err(Error::Spec(format!(
                    "`{p}` in `{s}` is neither a format, samples=N nor fill=V"
                )));
            }
        }
        Ok(arg)
    }
}

/// How to fill a texture (`--texture B=SPEC`).
#[derive(Clone, Debug, PartialEq)]
pub enum TextureInit {
    /// `SIZE[:FORMAT][:fill=V[,V…]][:iota][:mips=N]`: the format defaults to
    /// the shader's kind (`rgba8unorm` for float, `rgba32uint`/`rgba32sint`
    /// for integer, `depth32float` for depth textures).
    Make {
        /// `textureSize`'s numbers.
        size: Vec<u32>,
        /// The format, if written.
        format: Option<wgpu::TextureFormat>,
        /// Every texel's channels (one value for all, or one per channel).
        fill: Option<Vec<f64>>,
        /// Channel 0 of texel i holds i (wrapping in the format's range).
        iota: bool,
        /// Mip levels (the data fills level 0; the rest are zero).
        mips: u32,
    },
    /// `@FILE.png`: a 2D texture of the image's size and format.
    Png(PathBuf),
}

/// `--texture B=SPEC`: a sampled or storage texture for a binding.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureArg {
    /// Where to bind (a combined sampler's name binds its texture half).
    pub slot: BindingRef,
    /// How to make it.
    pub init: TextureInit,
}

impl FromStr for TextureArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let usage = "expected B=SIZE[:FORMAT][:fill=V[,V…]][:iota][:mips=N] or B=@FILE.png, e.g. tex=64x64:rgba8unorm:iota";
        let (b, spec) = s
            .split_once('=')
            .ok_or_else(|| Error::Spec(format!("`{s}`: {usage}")))?;
        let slot = b.parse()?;
        if let Some(path) = spec.strip_prefix('@') {
            if path.is_empty() {
                return Err(Error::Spec("`@` needs a file name: @FILE.png".into()));
            }
            return Ok(TextureArg {
                slot,
                init: TextureInit::Png(path.into()),
            });
        }
        let mut parts = spec.split(':');
        let size_s = parts.next().unwrap_or_default();
        let size = size_s
            .split('x')
            .map(|n| n.parse::<u32>())
            .collect::<std::result::Result<Vec<u32>, _>>()
            .map_err(|_| Error::Spec(format!("`{size_s}` is not a texture size: {usage}")))?;
        let (mut format, mut fill, mut iota, mut mips) = (None, None, false, 1);
        for p in parts {
            if let Some(f) = crate::runtime::texture::parse_format(p) {
                format = Some(f);
            } else if p == "iota" {
                iota = true;
            } else if let Some(n) = p.strip_prefix("mips=") {
                mips = n
                    .parse()
                    .map_err(|_| Error::Spec(format!("`{n}` is not a mip level count in `{s}`")))?;
            } else if let Some(v) = p.strip_prefix("fill=") {
                fill = Some(parse_fill(v)?);
            } else {
                return Err(Error::Spec(format!(
                    "`{p}` in `{s}` is neither a format ({}), fill=V, iota nor mips=N",
                    crate::runtime::texture::format_names()
                )));
            }
        }
        Ok(TextureArg {
            slot,
            init: TextureInit::Make {
                size,
                format,
                fill,
                iota,
                mips,
            },
        })
    }
}

/// `--sampler B=linear|nearest[,clamp|repeat|mirror][,compare=F]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerArg {
    /// The sampler binding, or the combined sampler's name.
    pub name: String,
    /// How it samples.
    pub desc: crate::SamplerDesc,
}

impl FromStr for SamplerArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let (b, spec) = s.split_once('=').ok_or_else(|| {
            Error::Spec(format!(
                "`{s}`: expected NAME=linear|nearest[,clamp|repeat|mirror][,compare=FUNC]"
            ))
        })?;
        Ok(SamplerArg {
            name: b.to_string(),
            desc: spec.parse()?,
        })
    }
}

/// `--uniform NAME=VALUE`: a member of a uniform block (loose uniforms
/// above all) set from text; `BLOCK.NAME` names the block when several
/// have a member of that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformArg {
    /// The block, when given.
    pub block: Option<String>,
    /// The member.
    pub name: String,
    /// The value as written (`5`, `1,2,3`, `true`, `vec2(1.0, 2.0)`).
    pub value: String,
}

impl FromStr for UniformArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let (n, value) = s.split_once('=').ok_or_else(|| {
            Error::Spec(format!(
                "`{s}`: expected NAME=VALUE, e.g. threshold=0.5 or origin=1,2,3"
            ))
        })?;
        let (block, name) = match n.split_once('.') {
            Some((b, n)) => (Some(b.to_string()), n.to_string()),
            None => (None, n.to_string()),
        };
        if name.is_empty() || block.as_deref() == Some("") {
            return Err(Error::Spec(format!("`{s}`: the uniform's name is empty")));
        }
        Ok(UniformArg {
            block,
            name,
            value: value.to_string(),
        })
    }
}

/// `--counter NAME=VALUE`: an `atomic_uint` counter's initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterArg {
    /// The counter's GLSL name.
    pub name: String,
    /// Its initial value.
    pub value: u32,
}

impl FromStr for CounterArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let (name, v) = s
            .split_once('=')
            .ok_or_else(|| Error::Spec(format!("`{s}`: expected NAME=VALUE, e.g. visible=0")))?;
        if name.is_empty() {
            return Err(Error::Spec(format!("`{s}`: the counter's name is empty")));
        }
        Ok(CounterArg {
            name: name.to_string(),
            value: ScalarType::U32.parse_value(v).map_err(|_| {
                Error::Spec(format!(
                    "counter `{name}`: `{v}` is not a value of an atomic_uint (0..=4294967295)"
                ))
            })?,
        })
    }
}

/// Everything a job creates for the kernel's bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    /// `--buffer`s.
    pub buffers: Vec<BufferArg>,
    /// `--image`s.
    pub images: Vec<ImageArg>,
    /// `--uniform`s: the uniform blocks not given as buffers are made from
    /// these and the shader's initializers.
    pub uniforms: Vec<UniformArg>,
    /// `--counter`s: atomic-counter buffers not given as buffers start at
    /// zero except for these.
    pub counters: Vec<CounterArg>,
    /// `--texture`s.
    pub textures: Vec<TextureArg>,
    /// `--sampler`s.
    pub samplers: Vec<SamplerArg>,
}

/// Contents of a buffer after a job, as numbers of its type.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Data {
    /// `u32` elements.
    U32(Vec<u32>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `f32` elements (NaN and infinities become `null` in JSON).
    F32(Vec<f32>),
}

impl Data {
    /// Every channel of every texel as the shader reads it: integers for
    /// integer formats, floats otherwise (0..1 for unorm).
    pub fn from_texels(format: wgpu::TextureFormat, bytes: &[u8]) -> Data {
        let values = crate::runtime::texture::decode_texels(format, bytes).unwrap_or_default();
        match crate::runtime::texture::integer_channels(format) {
            Some(false) => Data::U32(values.iter().map(|&v| v as u32).collect()),
            Some(true) => Data::I32(values.iter().map(|&v| v as i32).collect()),
            None => Data::F32(values.iter().map(|&v| v as f32).collect()),
        }
    }

    /// Interprets little-endian bytes as `ty` (trailing bytes short of an element are dropped).
    pub fn from_bytes(ty: ScalarType, bytes: &[u8]) -> Data {
        let whole = &bytes[..bytes.len() / 4 * 4];
        match ty {
            ScalarType::U32 => Data::U32(cast_vec(whole).unwrap_or_default()),
            ScalarType::I32 => Data::I32(cast_vec(whole).unwrap_or_default()),
            ScalarType::F32 => Data::F32(cast_vec(whole).unwrap_or_default()),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::U32(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::F32(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as text.
    pub fn show(&self, i: usize) -> String {
        match self {
            Data::U32(v) => v[i].to_string(),
            Data::I32(v) => v[i].to_string(),
            Data::F32(v) => v[i].to_string(),
        }
    }
}

/// The adapter a job ran on.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterRef {
    /// Adapter name.
    pub name: String,
    /// Backend name.
    pub backend: String,
}

/// One binding's contents after a job.
#[derive(Clone, Debug, Serialize)]
pub struct BindingOutput {
    /// Bind group.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// The shader's name of the binding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `buffer`, `image`, `texture` or `storage_texture`.
    pub kind: &'static str,
    /// Element type name (buffers).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<ScalarType>,
    /// The shape (images and textures): `2d`, `cube`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dim: Option<String>,
    /// The format (images and textures): `r32ui`, `rgba8unorm`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `imageSize`'s numbers (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Vec<u32>>,
    /// Samples per texel (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// The contents; an image's texels in texel order; a texture's level
    /// 0, every channel of every texel as the shader reads it.
    pub data: Data,
}

/// An atomic counter's value after a job.
#[derive(Clone, Debug, Serialize)]
pub struct CounterOutput {
    /// The counter's GLSL name.
    pub name: String,
    /// Bind group of its buffer.
    pub group: u32,
    /// Binding of its buffer.
    pub binding: u32,
    /// Byte offset in the buffer.
    pub offset: u32,
    /// The value.
    pub value: u32,
}

/// What a job produced: the adapter and every binding's contents.
#[derive(Clone, Debug, Serialize)]
pub struct JobOutput {
    /// Where it ran.
    pub adapter: AdapterRef,
    /// Every binding, sorted by (group, binding).
    pub bindings: Vec<BindingOutput>,
    /// Every atomic counter (OpenGL GLSL), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterOutput>,
}

/// Creates the buffers, images, uniform blocks and counter buffers the
/// arguments describe, dispatches `groups` workgroups of `kernel` and reads
/// every binding back.
pub fn run(ctx: &Context, kernel: &Kernel, groups: [u32; 3], res: &Resources) -> Result<JobOutput> {
    enum Made {
        Buffer(Buffer, ScalarType),
        Image(Image),
        Texture(Texture),
        Sampler(Sampler),
    }
    let mut made: Vec<(Slot, Option<String>, Made)> = Vec::new();
    // Sizes are checked before anything is allocated.
    let limits = ctx.limits();
    let largest = limits
        .max_buffer_size
        .min(limits.max_storage_buffer_binding_size);
    for a in &res.buffers {
        let len = a.init.byte_len()?;
        if len > largest {
            return Err(Error::Limit {
                what: format!("the buffer for {}, in bytes,", a.slot),
                value: len,
                limit_name: "max_storage_buffer_binding_size",
                limit: largest,
            });
        }
    }
    for a in &res.buffers {
        let (slot, info) = a.slot.resolve(kernel)?;
        let (ty, bytes) = a.init.materialize(info.and_then(|i| i.element))?;
        let name = info.and_then(|i| i.name.clone());
        let label = name
            .clone()
            .unwrap_or_else(|| format!("{}.{}", slot.group, slot.binding));
        made.push((
            slot,
            name,
            Made::Buffer(Buffer::from_bytes_labeled(ctx, &bytes, &label)?, ty),
        ));
    }
    for a in &res.images {
        let (slot, info) = a.slot.resolve(kernel)?;
        let info = info.ok_or(Error::UnusedBinding {
            group: slot.group,
            binding: slot.binding,
        })?;
        if info.kind == crate::BindingKind::StorageTexture {
            // A storage image of an ordinary format: a storage texture.
            let texture = storage_texture(ctx, info, a)?;
            made.push((slot, info.name.clone(), Made::Texture(texture)));
            continue;
        }
        let shape = info.image.ok_or_else(|| {
            Error::Spec(format!(
                "--image {}.{}: binding `{}` is a {} in the kernel, not an image",
                slot.group,
                slot.binding,
                info.display_name(),
                info.kind.describe()
            ))
        })?;
        if let Some(f) = a.format.as_deref().filter(|f| *f != shape.format.name()) {
            return Err(Error::Spec(format!(
                "--image {}: the shader declares `{}` as {}, not {f}",
                a.slot,
                info.display_name(),
                shape.format.name()
            )));
        }
        let desc = ImageDesc::new(shape.dim, shape.format, &a.size, a.samples)
            .map_err(|e| Error::Spec(format!("--image {}.{}: {e}", slot.group, slot.binding)))?;
        if desc.buffer_len() > largest {
            return Err(Error::Limit {
                what: format!("the image for {}, in bytes,", a.slot),
                value: desc.buffer_len(),
                limit_name: "max_storage_buffer_binding_size",
                limit: largest,
            });
        }
        let image = match &a.fill {
            // 64-bit texels take a 64-bit value.
            Some(v) if shape.format.words() == 2 => {
                let signed = shape.format == crate::ImageFormat::R64Sint;
                let bits =
                    crate::lower::spec::parse_int(v.trim(), 64, signed).ok_or_else(|| {
                        Error::InvalidValue(format!(
                            "`{v}` is not a valid {} value",
                            if signed { "i64" } else { "u64" }
                        ))
                    })?;
                Image::filled(ctx, desc, bits)?
            }
            Some(v) => Image::filled(ctx, desc, shape.format.scalar().parse_value(v)?)?,
            None => Image::zeroed(ctx, desc)?,
        };
        made.push((slot, info.name.clone(), Made::Image(image)));
    }
    for a in &res.textures {
        let (slot, info) = a.slot.resolve(kernel)?;
        let info = info.ok_or(Error::UnusedBinding {
            group: slot.group,
            binding: slot.binding,
        })?;
        let texture = sampled_texture(ctx, info, a)?;
        made.push((slot, info.name.clone(), Made::Texture(texture)));
    }
    for a in &res.samplers {
        let found = kernel.bindings().iter().find(|b| {
            b.kind == crate::BindingKind::Sampler
                && (b.name.as_deref() == Some(a.name.as_str())
                    || b.combined.as_deref() == Some(a.name.as_str()))
        });
        // A combined sampler read only by texelFetch uses no sampler.
        let texel_fetch_only = found.is_none()
            && kernel
                .bindings()
                .iter()
                .any(|b| b.combined.as_deref() == Some(a.name.as_str()));
        if texel_fetch_only {
            continue;
        }
        let info = found.ok_or_else(|| {
            Error::Spec(format!(
                "--sampler {}: the kernel has no sampler of that name (its bindings: {})",
                a.name,
                kernel.binding_names()
            ))
        })?;
        made.push((
            Slot {
                group: info.group,
                binding: info.binding,
            },
            info.name.clone(),
            Made::Sampler(Sampler::new(ctx, a.desc)?),
        ));
    }
    let given = |info: &BindingInfo| {
        made.iter()
            .any(|(s, _, _)| s.group == info.group && s.binding == info.binding)
    };
    let extra: Vec<_> = uniform_blocks(kernel, &res.uniforms, &given)?
        .into_iter()
        .chain(counter_buffers(kernel, &res.counters, &given)?)
        .collect();
    for (info, bytes) in extra {
        made.push((
            Slot {
                group: info.group,
                binding: info.binding,
            },
            info.name.clone(),
            Made::Buffer(
                Buffer::from_bytes_labeled(ctx, &bytes, &info.display_name())?,
                ScalarType::U32,
            ),
        ));
    }
    let binds: Vec<Bind> = made
        .iter()
        .map(|(slot, _, m)| match m {
            Made::Buffer(b, _) => Bind::new(slot.group, slot.binding, b),
            Made::Image(i) => Bind::image(slot.group, slot.binding, i),
            Made::Texture(t) => Bind {
                target: crate::Target::Slot {
                    group: slot.group,
                    binding: slot.binding,
                },
                resource: crate::Resource::Texture(t),
            },
            Made::Sampler(smp) => Bind {
                target: crate::Target::Slot {
                    group: slot.group,
                    binding: slot.binding,
                },
                resource: crate::Resource::Sampler(smp),
            },
        })
        .collect();
    let mut data = ctx.dispatch_and_read(kernel, groups, &binds)?;
    // Sampled textures are not read back by the dispatch: show their data.
    for ((_, _, m), bytes) in made.iter().zip(data.iter_mut()) {
        if let Made::Texture(t) = m
            && bytes.is_empty()
        {
            *bytes = t.read(ctx)?;
        }
    }
    let mut counters = Vec::new();
    for ((slot, _, _), bytes) in made.iter().zip(&data) {
        let Some(info) = kernel.binding(slot.group, slot.binding) else {
            continue;
        };
        if info.opengl.map(|o| o.kind) != Some(OpenGlKind::AtomicCounter) {
            continue;
        }
        for m in &info.members {
            for (name, offset) in counter_elements(m) {
                let at = offset as usize;
                if let Some(word) = bytes.get(at..at + 4) {
                    counters.push(CounterOutput {
                        name,
                        group: slot.group,
                        binding: slot.binding,
                        offset,
                        value: u32::from_le_bytes([word[0], word[1], word[2], word[3]]),
                    });
                }
            }
        }
    }
    let mut bindings: Vec<BindingOutput> = made
        .iter()
        .zip(data)
        .map(|((slot, name, m), bytes)| {
            let base = BindingOutput {
                group: slot.group,
                binding: slot.binding,
                name: name.clone(),
                kind: "buffer",
                ty: None,
                dim: None,
                format: None,
                size: None,
                samples: None,
                data: Data::U32(Vec::new()),
            };
            match m {
                Made::Buffer(_, ty) => BindingOutput {
                    ty: Some(*ty),
                    data: Data::from_bytes(*ty, &bytes),
                    ..base
                },
                Made::Image(i) => {
                    let d = i.desc();
                    BindingOutput {
                        kind: "image",
                        dim: Some(d.dim.name().into()),
                        format: Some(d.format.name().into()),
                        size: Some(d.size()),
                        samples: Some(d.samples),
                        data: Data::from_bytes(d.format.scalar(), &bytes),
                        ..base
                    }
                }
                Made::Texture(t) => {
                    let d = t.desc();
                    BindingOutput {
                        kind: if kernel
                            .binding(slot.group, slot.binding)
                            .is_some_and(|i| i.kind == crate::BindingKind::StorageTexture)
                        {
                            "storage_texture"
                        } else {
                            "texture"
                        },
                        dim: Some(d.dim.name().into()),
                        format: Some(format_name(d.format)),
                        size: Some(d.size()),
                        data: Data::from_texels(d.format, &bytes),
                        ..base
                    }
                }
                Made::Sampler(_) => BindingOutput {
                    kind: "sampler",
                    ..base
                },
            }
        })
        .collect();
    bindings.sort_by_key(|b| (b.group, b.binding));
    Ok(JobOutput {
        adapter: AdapterRef {
            name: ctx.adapter_name().to_string(),
            backend: ctx.backend_name().to_string(),
        },
        bindings,
        counters,
    })
}

/// The format a texture binding takes when the command line names none.
fn default_format(info: &BindingInfo) -> wgpu::TextureFormat {
    match info.texture.as_ref().map(|t| t.sample) {
        Some("uint") => wgpu::TextureFormat::Rgba32Uint,
        Some("sint") => wgpu::TextureFormat::Rgba32Sint,
        Some("depth") => wgpu::TextureFormat::Depth32Float,
        _ => wgpu::TextureFormat::Rgba8Unorm,
    }
}

/// The channel values of a texture's `fill=V[,V…]`: finite numbers, at
/// most four.
fn parse_fill(v: &str) -> Result<Vec<f64>> {
    let values = v
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| Error::Spec(format!("`{x}` in `fill={v}` is not a number")))
        })
        .collect::<Result<Vec<f64>>>()?;
    if values.len() > 4 {
        return Err(Error::Spec(format!(
            "`{v}`: a texel has at most 4 channels"
        )));
    }
    Ok(values)
}

/// The texels of a texture made from `size`, `fill` and `iota`.
fn texel_data(desc: &crate::TextureDesc, fill: Option<&[f64]>, iota: bool) -> Result<Vec<u8>> {
    let texels = (desc.level_bytes(0) / u64::from(desc.texel_bytes().unwrap_or(4))) as usize;
    let channels = crate::runtime::texture::channels(desc.format).unwrap_or(1);
    let base: [f64; 4] = match fill {
        Some([v]) => [*v; 4],
        Some(vs) => {
            if vs.len() != channels {
                return Err(Error::Spec(format!(
                    "fill has {} values; {} has {channels} channel(s) (or give one value for all)",
                    vs.len(),
                    format_name(desc.format)
                )));
            }
            let mut b = [0.0; 4];
            b[..vs.len()].copy_from_slice(vs);
            b
        }
        None => [0.0; 4],
    };
    let normalized = crate::runtime::texture::normalized(desc.format);
    let mut out = Vec::with_capacity(texels * desc.texel_bytes().unwrap_or(4) as usize);
    for i in 0..texels {
        let mut v = base;
        if iota {
            // Unorm channels take i / 255 wrapping: exact in 8 bits.
            v[0] = if normalized {
                (i % 256) as f64 / 255.0
            } else {
                i as f64
            };
        }
        out.extend(crate::runtime::texture::encode_texel(desc.format, v)?);
    }
    Ok(out)
}

/// A sampled texture for `info` from a `--texture` spec.
fn sampled_texture(ctx: &Context, info: &BindingInfo, a: &TextureArg) -> Result<Texture> {
    let flag = |e: Error| Error::Spec(format!("--texture {}: {e}", a.slot));
    let want = info.texture.as_ref().ok_or_else(|| {
        Error::Spec(format!(
            "--texture {}: binding `{}` is a {} in the kernel, not a texture",
            a.slot,
            info.display_name(),
            info.kind.describe()
        ))
    })?;
    let dim = want.dim.ok_or_else(|| {
        Error::Spec(format!(
            "--texture {}: atomport makes no multisampled textures",
            a.slot
        ))
    })?;
    match &a.init {
        TextureInit::Png(path) => {
            if dim != crate::TextureDim::D2 {
                return Err(Error::Spec(format!(
                    "--texture {}: a PNG makes a 2d texture; the shader declares {}",
                    a.slot,
                    dim.name()
                )));
            }
            let (w, h, format, data) = crate::runtime::texture::read_png(path)?;
            let desc = crate::TextureDesc::new(dim, format, &[w, h], 1).map_err(flag)?;
            Texture::from_data(ctx, desc, &data)
        }
        TextureInit::Make {
            size,
            format,
            fill,
            iota,
            mips,
        } => {
            let format = format.unwrap_or_else(|| default_format(info));
            let desc = crate::TextureDesc::new(dim, format, size, *mips).map_err(flag)?;
            // Made first: its limits are checked before any texel is.
            let t = Texture::zeroed(ctx, desc)?;
            t.write_level(
                ctx,
                0,
                &texel_data(&desc, fill.as_deref(), *iota).map_err(flag)?,
            )?;
            Ok(t)
        }
    }
}

/// A storage texture for `info` from an `--image` spec.
fn storage_texture(ctx: &Context, info: &BindingInfo, a: &ImageArg) -> Result<Texture> {
    let flag = |e: Error| Error::Spec(format!("--image {}: {e}", a.slot));
    let want = info
        .texture
        .as_ref()
        .and_then(|t| Some((t.dim?, t.format.clone()?)));
    let Some((dim, declared)) = want else {
        return Err(Error::Spec(format!(
            "--image {}: `{}` is a storage texture of a shape or format atomport cannot make",
            a.slot,
            info.display_name()
        )));
    };
    if let Some(f) = a.format.as_deref().filter(|f| **f != declared) {
        return Err(Error::Spec(format!(
            "--image {}: the shader declares `{}` as {declared}, not {f}",
            a.slot,
            info.display_name()
        )));
    }
    if a.samples != 1 {
        return Err(flag(Error::Spec("storage textures have one sample".into())));
    }
    let format = crate::runtime::texture::parse_format(&declared).ok_or_else(|| {
        Error::Spec(format!(
            "--image {}: atomport cannot make a {declared} texture",
            a.slot
        ))
    })?;
    let desc = crate::TextureDesc::new(dim, format, &a.size, 1).map_err(flag)?;
    let fill = a
        .fill
        .as_deref()
        .map(parse_fill)
        .transpose()
        .map_err(flag)?;
    let t = Texture::zeroed(ctx, desc)?;
    if !t.is_storage() {
        return Err(Error::Spec(format!(
            "--image {}: the adapter cannot use {declared} as a storage texture",
            a.slot
        )));
    }
    if let Some(f) = fill {
        t.write_level(ctx, 0, &texel_data(&desc, Some(&f), false).map_err(flag)?)?;
    }
    Ok(t)
}

/// The bytes of every uniform block not `given` as a buffer, from the
/// `--uniform`s and the shader's initializers.
fn uniform_blocks<'k>(
    kernel: &'k Kernel,
    args: &[UniformArg],
    given: &dyn Fn(&BindingInfo) -> bool,
) -> Result<Vec<(&'k BindingInfo, Vec<u8>)>> {
    let blocks: Vec<&BindingInfo> = kernel
        .bindings()
        .iter()
        .filter(|b| b.kind == crate::BindingKind::Uniform)
        .collect();
    let mut values: Vec<Uniforms> = blocks
        .iter()
        .map(|b| Uniforms::of(b))
        .collect::<Result<_>>()?;
    for a in args {
        let candidates: Vec<usize> = match &a.block {
            Some(block) => {
                let info = kernel.binding_named(block)?;
                blocks
                    .iter()
                    .position(|b| b.group == info.group && b.binding == info.binding)
                    .into_iter()
                    .collect()
            }
            None => (0..blocks.len())
                .filter(|&i| blocks[i].members.iter().any(|m| m.name == a.name))
                .collect(),
        };
        let i = match candidates[..] {
            [i] => i,
            [] => {
                let all: Vec<String> = blocks
                    .iter()
                    .flat_map(|b| b.members.iter().map(|m| format!("{} {}", m.ty, m.name)))
                    .collect();
                return Err(Error::Spec(format!(
                    "--uniform {}: the kernel has no uniform of that name (uniforms: {})",
                    a.name,
                    if all.is_empty() {
                        "none".to_string()
                    } else {
                        all.join(", ")
                    }
                )));
            }
            _ => {
                let names: Vec<String> = candidates
                    .iter()
                    .map(|&i| blocks[i].display_name())
                    .collect();
                return Err(Error::Spec(format!(
                    "--uniform {}: several uniform blocks have a member of that name ({}); write BLOCK.{}",
                    a.name,
                    names.join(", "),
                    a.name
                )));
            }
        };
        if given(blocks[i]) {
            return Err(Error::Spec(format!(
                "--uniform {}: block `{}` is given as a --buffer already",
                a.name,
                blocks[i].display_name()
            )));
        }
        values[i]
            .set_text(&a.name, &a.value)
            .map_err(|e| Error::Spec(format!("--uniform {}: {e}", a.name)))?;
    }
    blocks
        .into_iter()
        .zip(values)
        .filter(|(b, _)| !given(b))
        .map(|(b, u)| Ok((b, u.bytes()?.to_vec())))
        .collect()
}

/// Every counter of a counter member, as (name, byte offset): the member
/// itself, or `name[k]` for each element of an array of counters.
fn counter_elements(m: &crate::Member) -> Vec<(String, u32)> {
    match m.shape.count {
        0 | 1 => vec![(m.name.clone(), m.offset)],
        n => (0..n)
            .map(|k| {
                (
                    format!("{}[{k}]", m.name),
                    m.offset + k * m.shape.stride.max(4),
                )
            })
            .collect(),
    }
}

/// The bytes of every atomic-counter buffer not `given` as a buffer: zero,
/// but for the `--counter`s.
fn counter_buffers<'k>(
    kernel: &'k Kernel,
    args: &[CounterArg],
    given: &dyn Fn(&BindingInfo) -> bool,
) -> Result<Vec<(&'k BindingInfo, Vec<u8>)>> {
    let buffers: Vec<&BindingInfo> = kernel
        .bindings()
        .iter()
        .filter(|b| b.opengl.map(|o| o.kind) == Some(OpenGlKind::AtomicCounter))
        .collect();
    let mut out: Vec<(&BindingInfo, Vec<u8>)> = buffers
        .iter()
        .map(|b| (*b, vec![0u8; b.min_size.max(4) as usize]))
        .collect();
    for a in args {
        let found = out.iter_mut().find_map(|(b, bytes)| {
            b.members
                .iter()
                .flat_map(counter_elements)
                .find(|(n, _)| *n == a.name)
                .map(|(_, offset)| (*b, offset as usize, bytes))
        });
        let Some((info, at, bytes)) = found else {
            let names: Vec<String> = buffers
                .iter()
                .flat_map(|b| b.members.iter().flat_map(counter_elements))
                .map(|(n, _)| n)
                .collect();
            return Err(Error::Spec(format!(
                "--counter {}: the kernel has no atomic counter of that name (counters: {})",
                a.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        if given(info) {
            return Err(Error::Spec(format!(
                "--counter {}: its buffer `{}` is given as a --buffer already",
                a.name,
                info.display_name()
            )));
        }
        bytes[at..at + 4].copy_from_slice(&a.value.to_le_bytes());
    }
    Ok(out.into_iter().filter(|(b, _)| !given(b)).collect())
}

/// Writes the 2D texture binding `name` of a job's output as a PNG file.
pub fn write_png(out: &JobOutput, name: &str, path: &std::path::Path) -> Result<()> {
    let b = out
        .bindings
        .iter()
        .find(|b| b.name.as_deref() == Some(name))
        .ok_or_else(|| {
            let names: Vec<&str> = out
                .bindings
                .iter()
                .filter(|b| b.kind.ends_with("texture"))
                .filter_map(|b| b.name.as_deref())
                .collect();
            Error::Spec(format!(
                "--out-png {name}: no texture of that name in the job (textures: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ))
        })?;
    let (Some(dim), Some(format), Some(size)) = (&b.dim, &b.format, &b.size) else {
        return Err(Error::Spec(format!(
            "--out-png {name}: `{name}` is a {}, not a texture",
            b.kind
        )));
    };
    let fmt = crate::runtime::texture::parse_format(format)
        .filter(|_| dim == "2d" && b.kind.ends_with("texture"))
        .ok_or_else(|| {
            Error::Spec(format!(
                "--out-png {name}: PNG output takes a 2d texture of an 8-bit unorm format, not a {format} {dim} {}",
                b.kind.replace('_', " ")
            ))
        })?;
    let Data::F32(values) = &b.data else {
        return Err(Error::Spec(format!(
            "--out-png {name}: PNG output takes an 8-bit unorm format, not {format}"
        )));
    };
    // Decoded channels are in RGBA order whatever the format stores.
    let fmt = match fmt {
        wgpu::TextureFormat::Bgra8Unorm => wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureFormat::Bgra8UnormSrgb => wgpu::TextureFormat::Rgba8UnormSrgb,
        f => f,
    };
    let bytes: Vec<u8> = values.iter().map(|v| (v * 255.0).round() as u8).collect();
    crate::runtime::texture::write_png(path, size[0], size[1], fmt, &bytes).map_err(|e| match e {
        Error::Resource(m) => Error::Spec(format!("--out-png {name}: {m}")),
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        use ScalarType::*;
        let p = |s: &str| s.parse::<BufferInit>().unwrap();
        assert_eq!(p("u32:4"), BufferInit::Zeroed { ty: U32, len: 4 });
        assert_eq!(
            p("i32:2:fill=-3"),
            BufferInit::Fill {
                ty: I32,
                len: 2,
                bits: (-3i32) as u32
            }
        );
        assert_eq!(p("f32:3:iota"), BufferInit::Iota { ty: F32, len: 3 });
        assert_eq!(
            p("f32:[1.5, -2]"),
            BufferInit::Values {
                ty: F32,
                bits: vec![1.5f32.to_bits(), (-2f32).to_bits()]
            }
        );
        assert_eq!(
            p("u32:[0xff,7]"),
            BufferInit::Values {
                ty: U32,
                bits: vec![255, 7]
            }
        );
        assert_eq!(p("@in.bin"), BufferInit::File("in.bin".into()));
        let (ty, bytes) = p("f32:3:iota").materialize(None).unwrap();
        assert_eq!(
            (ty, bytemuck::cast_slice::<u8, f32>(&bytes)),
            (F32, &[0.0, 1.0, 2.0][..])
        );
    }

    #[test]
    fn bad_specs_say_why() {
        let e = |s: &str| s.parse::<BufferInit>().unwrap_err().to_string();
        assert_eq!(e("u64:4"), "`u64` is not a type (u32, i32 or f32)");
        assert!(e("u32").starts_with("`u32`: expected TYPE:LEN"));
        assert_eq!(
            e("u32:0"),
            format!("length 0 in `u32:0` is out of range (1..={MAX_LEN})")
        );
        assert_eq!(e("u32:4:fill=-1"), "`-1` is not a valid u32 value");
        assert_eq!(
            e("i32:1:fill=2147483648"),
            "`2147483648` is not a valid i32 value"
        );
        assert_eq!(
            e("u32:[1,2"),
            "`u32:[1,2`: the value list has no closing `]`"
        );
        assert_eq!(e("u32:[]"), "`u32:[]`: the value list is empty");
        assert_eq!(
            e("u32:4:zeros"),
            "`zeros` in `u32:4:zeros` is neither `fill=V` nor `iota`"
        );
        assert_eq!(e("@"), "`@` needs a file name: @FILE");
    }

    #[test]
    fn slots_parse() {
        assert_eq!(
            "3".parse::<Slot>().unwrap(),
            Slot {
                group: 0,
                binding: 3
            }
        );
        assert_eq!(
            "1.2".parse::<Slot>().unwrap(),
            Slot {
                group: 1,
                binding: 2
            }
        );
        assert!("1.x".parse::<Slot>().is_err());
        assert_eq!(
            "Particles=u32:4".parse::<BufferArg>().unwrap().slot,
            BindingRef::Name("Particles".into())
        );
        assert!("1.x=u32:4".parse::<BufferArg>().is_err());
        assert!("a-b=u32:4".parse::<BufferArg>().is_err());
    }
}
