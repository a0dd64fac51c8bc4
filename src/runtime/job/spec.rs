//! The command line's textual specs of resources: `--buffer B=SPEC`,
//! `--image`, `--texture`, `--sampler`, `--uniform` and `--counter`, parsed
//! into what [`super`] makes for a kernel.

use std::path::PathBuf;
use std::str::FromStr;

use crate::{BindingInfo, ElementType, Error, Kernel, Result, ScalarType};

/// `X[,Y[,Z]]`: the workgroup counts of a dispatch (each 1 or more; a
/// count not given is 1).
pub fn parse_groups(s: &str) -> std::result::Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err("expected X[,Y[,Z]]".into());
    }
    let mut g = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        g[i] = p.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
            format!("`{p}` is not a workgroup count (1 or more; expected X[,Y[,Z]])")
        })?;
    }
    Ok(g)
}

/// `GROUP.BINDING`, or the GLSL name (a block's instance or type name, an
/// image's name, an atomic counter's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingRef {
    /// WGSL's group and binding.
    Slot(Slot),
    /// A GLSL name.
    Name(String),
    /// `@NAME`: an addressable buffer (`--buffer @NAME=SPEC`), in the arena
    /// a kernel with buffer references binds, not at a binding of its own.
    Addressable(String),
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
            BindingRef::Addressable(n) => write!(f, "`@{n}`"),
        }
    }
}

impl BindingRef {
    /// The kernel's binding, if it has it: a name it lacks is an error
    /// listing its names; an unknown slot is `None` (the dispatch refuses it).
    pub fn resolve<'k>(&self, kernel: &'k Kernel) -> Result<(Slot, Option<&'k BindingInfo>)> {
        match self {
            BindingRef::Slot(slot) => {
                Ok((*slot, kernel.binding_declared(slot.group, slot.binding)))
            }
            BindingRef::Name(name) => {
                let (info, element) = kernel.element_named(name)?;
                Ok((
                    Slot {
                        group: info.group,
                        binding: info.binding,
                        element,
                    },
                    Some(info),
                ))
            }
            BindingRef::Addressable(name) => Err(Error::Spec(format!(
                "`@{name}` is an addressable buffer, not a binding"
            ))),
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
    /// The element of a binding array (`NAME[k]`); 0 otherwise.
    pub element: u32,
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
                element: 0,
            }),
            None => Ok(Slot {
                group: 0,
                binding: num(s)?,
                element: 0,
            }),
        }
    }
}

/// A texture format by wgpu's name (`rgba16float`) or GLSL's layout
/// qualifier (`rgba16f`), as `--texture` and `--image` take both.
pub fn texture_format(name: &str) -> Option<wgpu::TextureFormat> {
    crate::runtime::texture::parse_format(name)
        .or_else(|| crate::ImageFormat::parse(name).map(|f| f.texture_format()))
}

/// How to fill a buffer (the SPEC of `--buffer B=SPEC`).
#[derive(Clone, Debug, PartialEq)]
pub enum BufferInit {
    /// `TYPE:LEN`: `len` zeroed elements.
    Zeroed {
        /// Element type.
        ty: ElementType,
        /// Element count.
        len: usize,
    },
    /// `TYPE:LEN:fill=V`: `len` copies of a value (stored as its bit pattern).
    Fill {
        /// Element type.
        ty: ElementType,
        /// Element count.
        len: usize,
        /// The value's bit pattern.
        bits: u64,
    },
    /// `TYPE:LEN:iota`: 0, 1, 2, … in the element type (wrapping in narrow ones).
    Iota {
        /// Element type.
        ty: ElementType,
        /// Element count.
        len: usize,
    },
    /// `TYPE:[v1,v2,…]`: the listed values.
    Values {
        /// Element type.
        ty: ElementType,
        /// The values.
        values: Vec<ListValue>,
    },
    /// `@FILE`: the file's raw little-endian bytes; the type comes from the shader (u32 if unknown).
    File(PathBuf),
    /// Bytes a program made (no spec text writes these: `validate::check`'s
    /// generated inputs); the type comes from the shader, as for `@FILE`.
    Bytes(Vec<u8>),
}

/// One value of a `TYPE:[…]` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListValue {
    /// A number, as its bit pattern.
    Bits(u64),
    /// `@NAME`: the address of addressable buffer NAME (u64 and i64 lists).
    Address(String),
}

/// The name in an `@NAME` value (an addressable buffer's address), if the
/// text is one.
pub fn address_name(v: &str) -> Option<&str> {
    let name = v.trim().strip_prefix('@')?;
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    identifier.then_some(name)
}

/// Longest buffer a SPEC may ask for, in bytes (1 GiB).
const MAX_BYTES: usize = 1 << 30;

/// The element types a SPEC may name, for messages.
fn type_names() -> String {
    ElementType::ALL.map(|t| t.name()).join(", ")
}

impl FromStr for BufferInit {
    type Err = Error;
    fn from_str(spec: &str) -> Result<Self> {
        if let Some(path) = spec.strip_prefix('@') {
            if path.is_empty() {
                return Err(Error::Spec("`@` needs a file name: @FILE".into()));
            }
            return Ok(BufferInit::File(path.into()));
        }
        let usage = format!(
            "expected TYPE:LEN, TYPE:LEN:fill=V, TYPE:LEN:iota, TYPE:[v1,v2,…] or @FILE, with TYPE one of {}",
            type_names()
        );
        let (ty_s, rest) = spec
            .split_once(':')
            .ok_or_else(|| Error::Spec(format!("`{spec}`: {usage}")))?;
        let ty = ElementType::parse(ty_s)
            .ok_or_else(|| Error::Spec(format!("`{ty_s}` is not a type ({})", type_names())))?;
        if let Some(list) = rest.strip_prefix('[') {
            let list = list.strip_suffix(']').ok_or_else(|| {
                Error::Spec(format!("`{spec}`: the value list has no closing `]`"))
            })?;
            if list.trim().is_empty() {
                return Err(Error::Spec(format!("`{spec}`: the value list is empty")));
            }
            let values = list
                .split(',')
                .enumerate()
                .map(|(k, v)| match address_name(v) {
                    // An address is 64 bits: only a 64-bit list holds it.
                    Some(name) if ty.bytes() == 8 => Ok(ListValue::Address(name.to_string())),
                    Some(name) => Err(Error::Spec(format!(
                        "`{spec}`: `@{name}` is an address, 64 bits: write the list as u64:[…]"
                    ))),
                    None if v.trim().is_empty() => Err(Error::Spec(format!(
                        "`{spec}`: value {} of the list is empty",
                        k + 1
                    ))),
                    None => ty.parse_value(v).map(ListValue::Bits),
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(BufferInit::Values { ty, values });
        }
        let (len_s, mode) = match rest.split_once(':') {
            Some((l, m)) => (l, Some(m)),
            None => (rest, None),
        };
        let len: usize = len_s
            .parse()
            .map_err(|_| Error::Spec(format!("`{len_s}` is not a length in `{spec}`: {usage}")))?;
        let max = MAX_BYTES / ty.bytes();
        if len == 0 || len > max {
            return Err(Error::Spec(format!(
                "length {len} in `{spec}` is out of range (1..={max})"
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
            BufferInit::Zeroed { len, ty }
            | BufferInit::Fill { len, ty, .. }
            | BufferInit::Iota { len, ty } => (*len * ty.bytes()) as u64,
            BufferInit::Values { values, ty } => (values.len() * ty.bytes()) as u64,
            BufferInit::Bytes(b) => b.len() as u64,
            BufferInit::File(path) => std::fs::metadata(path)
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?
                .len(),
        })
    }

    /// The element type the spec writes (none for `@FILE`) and the initial
    /// bytes (each element at its own width, little-endian); `address`
    /// gives the value of an `@NAME`.
    pub fn materialize(
        &self,
        address: &dyn Fn(&str) -> Result<u64>,
    ) -> Result<(Option<ElementType>, Vec<u8>)> {
        let elements = |ty: ElementType, v: &mut dyn Iterator<Item = u64>| {
            let n = ty.bytes();
            (
                Some(ty),
                v.flat_map(|x| x.to_le_bytes()[..n].to_vec()).collect(),
            )
        };
        Ok(match self {
            BufferInit::Zeroed { ty, len } => (Some(*ty), vec![0; len * ty.bytes()]),
            BufferInit::Fill { ty, len, bits } => {
                elements(*ty, &mut std::iter::repeat_n(*bits, *len))
            }
            BufferInit::Iota { ty, len } => elements(
                *ty,
                &mut (0..*len as u64).map(|i| match ty {
                    ElementType::F32 => u64::from((i as f32).to_bits()),
                    ElementType::F16 => u64::from(crate::f32_to_half(i as f32)),
                    _ => i,
                }),
            ),
            BufferInit::Values { ty, values } => {
                let bits = values
                    .iter()
                    .map(|v| match v {
                        ListValue::Bits(b) => Ok(*b),
                        ListValue::Address(n) => address(n),
                    })
                    .collect::<Result<Vec<u64>>>()?;
                elements(*ty, &mut bits.into_iter())
            }
            BufferInit::Bytes(b) => (None, b.clone()),
            BufferInit::File(path) => {
                let bytes = crate::files::read_bounded(path, MAX_BYTES as u64, "buffer file")?;
                if bytes.is_empty() {
                    return Err(Error::Spec(format!(
                        "{}: the file is empty",
                        path.display()
                    )));
                }
                (None, bytes)
            }
        })
    }
}

/// `--buffer B=SPEC`: a binding and how to fill it; `--buffer @NAME=SPEC`:
/// an addressable buffer, reached by the address `@NAME` stands for.
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
        let slot = match b.strip_prefix('@') {
            Some(_) => BindingRef::Addressable(
                address_name(b)
                    .ok_or_else(|| {
                        Error::Spec(format!(
                            "`{b}`: an addressable buffer's name is an identifier, e.g. @keys"
                        ))
                    })?
                    .to_string(),
            ),
            None => b.parse()?,
        };
        Ok(BufferArg {
            slot,
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
            if texture_format(p).is_some() {
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
        /// Mip levels, each filled alike (iota counts on through them).
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
            if let Some(f) = texture_format(p) {
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
                    "`{p}` in `{s}` is neither a format ({}, or GLSL's name: rgba16f, r32ui, …), fill=V, iota nor mips=N",
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

/// The channel values of a texture's `fill=V[,V…]`: finite numbers, at
/// most four.
pub fn parse_fill(v: &str) -> Result<Vec<f64>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        use ElementType::*;
        let p = |s: &str| s.parse::<BufferInit>().unwrap();
        assert_eq!(p("u32:4"), BufferInit::Zeroed { ty: U32, len: 4 });
        assert_eq!(
            p("i32:2:fill=-3"),
            BufferInit::Fill {
                ty: I32,
                len: 2,
                bits: u64::from((-3i32) as u32)
            }
        );
        assert_eq!(p("f32:3:iota"), BufferInit::Iota { ty: F32, len: 3 });
        assert_eq!(
            p("f32:[1.5, -2]"),
            BufferInit::Values {
                ty: F32,
                values: vec![
                    ListValue::Bits(u64::from(1.5f32.to_bits())),
                    ListValue::Bits(u64::from((-2f32).to_bits()))
                ]
            }
        );
        assert_eq!(
            p("u32:[0xff,7]"),
            BufferInit::Values {
                ty: U32,
                values: vec![ListValue::Bits(255), ListValue::Bits(7)]
            }
        );
        assert_eq!(p("@in.bin"), BufferInit::File("in.bin".into()));
        assert_eq!(
            p("u64:[@keys, 5]"),
            BufferInit::Values {
                ty: U64,
                values: vec![ListValue::Address("keys".into()), ListValue::Bits(5)]
            }
        );
        let (_, bytes) = p("u64:[@keys]")
            .materialize(&|n| Ok(n.len() as u64))
            .unwrap();
        assert_eq!(bytes, 4u64.to_le_bytes());
        assert_eq!(
            "@keys=u32:4".parse::<BufferArg>().unwrap().slot,
            BindingRef::Addressable("keys".into())
        );
        let (ty, bytes) = p("f32:3:iota").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(
            (ty, bytemuck::cast_slice::<u8, f32>(&bytes)),
            (Some(F32), &[0.0, 1.0, 2.0][..])
        );
        // Every width, each element at its own.
        let (_, bytes) = p("u8:[1,255]").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(bytes, [1, 255]);
        let (_, bytes) = p("i16:[-2,300]").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(bytes, [0xfe, 0xff, 0x2c, 0x01]);
        let (_, bytes) = p("f16:[1,-2.5]").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(bytes, [0x00, 0x3c, 0x00, 0xc1]);
        let (_, bytes) = p("i64:[-1]").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(bytes, [0xff; 8]);
        let (_, bytes) = p("u8:3:iota").materialize(&|_| Ok(0)).unwrap();
        assert_eq!(bytes, [0, 1, 2]);
    }

    #[test]
    fn bad_specs_say_why() {
        let e = |s: &str| s.parse::<BufferInit>().unwrap_err().to_string();
        assert_eq!(
            e("u128:4"),
            "`u128` is not a type (u8, i8, u16, i16, f16, u32, i32, f32, u64, i64)"
        );
        assert_eq!(e("u8:1:fill=256"), "`256` is not a valid u8 value");
        assert_eq!(e("i8:[-129]"), "`-129` is not a valid i8 value");
        assert_eq!(
            e("f16:[70000]"),
            "`70000` is out of the range of f16 (largest finite: 65504)"
        );
        assert!(e("u32").starts_with("`u32`: expected TYPE:LEN"));
        assert_eq!(
            e("u32:0"),
            format!(
                "length 0 in `u32:0` is out of range (1..={})",
                MAX_BYTES / 4
            )
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
                binding: 3,
                element: 0
            }
        );
        assert_eq!(
            "1.2".parse::<Slot>().unwrap(),
            Slot {
                group: 1,
                binding: 2,
                element: 0
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

    /// Mutants of valid specs (characters replaced, cut, inserted, parts
    /// swapped) parse to a value or an error, never a panic.
    #[test]
    fn mutated_specs_never_panic() {
        let specs = [
            "0=u32:256",
            "1.2=f32:4:fill=1.5",
            "Particles=i32:[1,-2,3]",
            "img=64x64:samples=4:fill=7",
            "tex=8x8:rgba8unorm:iota:mips=2",
            "s=linear,repeat,compare=less",
            "u_planes=1,0,0,4",
            "visible=12",
            "m=mat4(1.0)",
            "0=@data.bin",
        ];
        let alphabet = b"0123456789.:=,@[]-x+eE_abcfilmnrstuxyz\0\xff ";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as usize
        };
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let mut b: Vec<u8> = specs[next() % specs.len()].bytes().collect();
            for _ in 0..1 + next() % 3 {
                let at = next() % (b.len() + 1);
                match next() % 4 {
                    0 if at < b.len() => b[at] = alphabet[next() % alphabet.len()],
                    1 => b.truncate(at),
                    2 => b.insert(at, alphabet[next() % alphabet.len()]),
                    _ => b.drain(at..(at + next() % 4).min(b.len())).for_each(drop),
                }
            }
            let s = String::from_utf8_lossy(&b);
            let parsed = [
                s.parse::<BufferArg>().is_ok(),
                s.parse::<ImageArg>().is_ok(),
                s.parse::<TextureArg>().is_ok(),
                s.parse::<SamplerArg>().is_ok(),
                s.parse::<UniformArg>().is_ok(),
                s.parse::<CounterArg>().is_ok(),
            ];
            if parsed.iter().any(|&p| p) {
                ok += 1;
            } else {
                refused += 1;
            }
        }
        // The mutants reach past the parsers both ways.
        assert!(
            ok > 1000 && refused > 1000,
            "{ok} parsed, {refused} refused"
        );
    }
}
