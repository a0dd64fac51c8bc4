//! A job: a kernel, a workgroup count and the buffers and images to create
//! for its bindings from textual specs — what `atomport run` (and `diff`)
//! execute.

use std::path::PathBuf;
use std::str::FromStr;

use serde::Serialize;

use crate::runtime::buffer::cast_vec;
use crate::{Bind, Buffer, Context, Error, Image, ImageDesc, Kernel, Result, ScalarType};

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

/// Parses one value of type `ty` to its 32-bit pattern (integers also as 0x hex).
pub fn parse_value(ty: ScalarType, s: &str) -> Result<u32> {
    let s = s.trim();
    let bad = || Error::Spec(format!("`{s}` is not a valid {} value", ty.name()));
    match ty {
        ScalarType::U32 => match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => u32::from_str_radix(h, 16).map_err(|_| bad()),
            None => s.parse::<u32>().map_err(|_| bad()),
        },
        ScalarType::I32 => {
            let (neg, body) = match s.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, s),
            };
            let v: i64 = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                Some(h) => i64::from_str_radix(h, 16).map_err(|_| bad())?,
                None => body.parse::<i64>().map_err(|_| bad())?,
            };
            let v = if neg { -v } else { v };
            i32::try_from(v).map(|v| v as u32).map_err(|_| bad())
        }
        ScalarType::F32 => s.parse::<f32>().map(f32::to_bits).map_err(|_| bad()),
    }
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
            let bits = list
                .split(',')
                .filter(|v| !v.trim().is_empty())
                .map(|v| parse_value(ty, v))
                .collect::<Result<Vec<_>>>()?;
            if bits.is_empty() {
                return Err(Error::Spec(format!("`{spec}`: the value list is empty")));
            }
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
                    bits: parse_value(ty, v)?,
                }),
                None => Err(Error::Spec(format!(
                    "`{m}` in `{spec}` is neither `fill=V` nor `iota`"
                ))),
            },
        }
    }
}

impl BufferInit {
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
                let bytes = std::fs::read(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
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

/// `--buffer B=SPEC`: a slot and how to fill it.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferArg {
    /// Where to bind.
    pub slot: Slot,
    /// How to fill.
    pub init: BufferInit,
}

impl FromStr for BufferArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let (b, spec) = s
            .split_once('=')
            .ok_or_else(|| Error::Spec(format!("`{s}`: expected B=SPEC, e.g. 0=u32:256")))?;
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
    pub slot: Slot,
    /// `imageSize`'s numbers (`W`, `WxH`, `WxL`, `WxHxL`, `WxHxD`).
    pub size: Vec<u32>,
    /// Samples (multisample images).
    pub samples: u32,
    /// Every texel's initial value, as written (parsed once the format is known).
    pub fill: Option<String>,
}

impl FromStr for ImageArg {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let usage =
            "expected B=SIZE[:samples=N][:fill=V], e.g. 0=64x64 or 1.2=32x32x2:samples=4:fill=7";
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
        };
        for p in parts {
            if let Some(n) = p.strip_prefix("samples=") {
                arg.samples = n
                    .parse()
                    .map_err(|_| Error::Spec(format!("`{n}` is not a sample count in `{s}`")))?;
            } else if let Some(v) = p.strip_prefix("fill=") {
                arg.fill = Some(v.to_string());
            } else {
                return Err(Error::Spec(format!(
                    "`{p}` in `{s}` is neither samples=N nor fill=V"
                )));
            }
        }
        Ok(arg)
    }
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
    /// `buffer` or `image`.
    pub kind: &'static str,
    /// Element type name (buffers).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<ScalarType>,
    /// The image's shape (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dim: Option<crate::ImageDim>,
    /// The image's format (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::ImageFormat>,
    /// `imageSize`'s numbers (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Vec<u32>>,
    /// Samples per texel (images).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// The contents; an image's texels in texel order.
    pub data: Data,
}

/// What a job produced: the adapter and every binding's contents.
#[derive(Clone, Debug, Serialize)]
pub struct JobOutput {
    /// Where it ran.
    pub adapter: AdapterRef,
    /// Every binding, sorted by (group, binding).
    pub bindings: Vec<BindingOutput>,
}

/// Creates the buffers and images the arguments describe, dispatches
/// `groups` workgroups of `kernel` and reads every binding back.
pub fn run(
    ctx: &Context,
    kernel: &Kernel,
    groups: [u32; 3],
    buffers: &[BufferArg],
    images: &[ImageArg],
) -> Result<JobOutput> {
    enum Made {
        Buffer(Buffer, ScalarType),
        Image(Image),
    }
    let mut made: Vec<(Slot, Option<String>, Made)> =
        Vec::with_capacity(buffers.len() + images.len());
    for a in buffers {
        let info = kernel.binding(a.slot.group, a.slot.binding);
        let (ty, bytes) = a.init.materialize(info.and_then(|i| i.element))?;
        made.push((
            a.slot,
            info.and_then(|i| i.name.clone()),
            Made::Buffer(Buffer::from_bytes(ctx, &bytes)?, ty),
        ));
    }
    for a in images {
        let info = kernel
            .binding(a.slot.group, a.slot.binding)
            .ok_or(Error::UnusedBinding {
                group: a.slot.group,
                binding: a.slot.binding,
            })?;
        let shape = info.image.ok_or_else(|| {
            Error::Spec(format!(
                "--image {}.{}: binding `{}` is a {} in the kernel, not an image held in a buffer",
                a.slot.group,
                a.slot.binding,
                info.display_name(),
                info.kind.describe()
            ))
        })?;
        let desc = ImageDesc::new(shape.dim, shape.format, &a.size, a.samples).map_err(|e| {
            Error::Spec(format!("--image {}.{}: {e}", a.slot.group, a.slot.binding))
        })?;
        let image = match &a.fill {
            Some(v) => Image::filled(ctx, desc, parse_value(shape.format.scalar(), v)?)?,
            None => Image::zeroed(ctx, desc)?,
        };
        made.push((a.slot, info.name.clone(), Made::Image(image)));
    }
    let binds: Vec<Bind> = made
        .iter()
        .map(|(slot, _, m)| match m {
            Made::Buffer(b, _) => Bind::new(slot.group, slot.binding, b),
            Made::Image(i) => Bind::image(slot.group, slot.binding, i),
        })
        .collect();
    let data = ctx.dispatch_and_read(kernel, groups, &binds)?;
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
                        dim: Some(d.dim),
                        format: Some(d.format),
                        size: Some(d.size()),
                        samples: Some(d.samples),
                        data: Data::from_bytes(d.format.scalar(), &bytes),
                        ..base
                    }
                }
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
        assert!("B=u32:4".parse::<BufferArg>().is_err());
    }
}
