//! A run: one dispatch of a kernel with the resources the caller made, and
//! every binding read back in its shape — buffers as numbers of their
//! element type, images as texels in texel order, textures as channel
//! values, atomic counters by name. `atomport run` prints a [`RunOutput`];
//! [`crate::validate::diff`] compares two.

use serde::Serialize;

use crate::runtime::buffer::cast_vec;
use crate::runtime::dispatch::Resource;
use crate::runtime::texture::format_name;
use crate::{
    Bind, BindingKind, Context, Kernel, OpenGlKind, Result, ScalarType, Target, TextureDim,
};

/// Contents of a binding after a run, as numbers of its type.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Data {
    /// `u32` elements.
    U32(Vec<u32>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `f32` elements (NaN and infinities become `null` in JSON).
    F32(Vec<f32>),
    /// `u64` elements (`r64ui` texels).
    U64(Vec<u64>),
    /// `i64` elements (`r64i` texels).
    I64(Vec<i64>),
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

    /// Little-endian bytes as values of element type `ty` (trailing bytes
    /// short of an element dropped): narrow integers as 32-bit ones, halfs
    /// as `f32`s.
    pub fn from_elements(ty: crate::ElementType, bytes: &[u8]) -> Data {
        use crate::ElementType as E;
        let n = ty.bytes();
        let raw = bytes.chunks_exact(n).map(|c| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(c);
            u64::from_le_bytes(b)
        });
        match ty {
            E::U8 | E::U16 => Data::U32(raw.map(|v| v as u32).collect()),
            E::I8 => Data::I32(raw.map(|v| i32::from(v as u8 as i8)).collect()),
            E::I16 => Data::I32(raw.map(|v| i32::from(v as u16 as i16)).collect()),
            E::F16 => Data::F32(raw.map(|v| crate::scalar::half_to_f32(v as u16)).collect()),
            E::U64 => Data::U64(raw.collect()),
            E::I64 => Data::I64(raw.map(|v| v as i64).collect()),
            t => Data::from_bytes(t.scalar().unwrap_or(ScalarType::U32), bytes),
        }
    }

    /// An image's texels as the shader reads them: one number per texel of
    /// a one-channel 32- or 64-bit format (`r64ui` as 64-bit numbers),
    /// every channel of every texel otherwise.
    pub fn from_image(format: crate::ImageFormat, bytes: &[u8]) -> Data {
        match format.layout() {
            (_, 64, kind) => {
                let words: Vec<u64> = cast_vec(&bytes[..bytes.len() / 8 * 8]).unwrap_or_default();
                if kind == crate::lower::memory::texel::ChannelKind::Sint {
                    Data::I64(words.into_iter().map(|w| w as i64).collect())
                } else {
                    Data::U64(words)
                }
            }
            (_, 32, _) => Data::from_bytes(format.scalar(), bytes),
            _ => Data::from_texels(format.texture_format(), bytes),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::U32(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::I64(v) => v.len(),
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
            Data::U64(v) => v[i].to_string(),
            Data::I64(v) => v[i].to_string(),
        }
    }

    /// Every element's bit pattern (floats by their bits, so that NaNs
    /// compare and -0 differs from 0), zero-extended to 64 bits.
    pub fn bits(&self) -> Vec<u64> {
        match self {
            Data::U32(v) => v.iter().map(|&w| u64::from(w)).collect(),
            Data::I32(v) => v.iter().map(|&i| u64::from(i as u32)).collect(),
            Data::F32(v) => v.iter().map(|f| u64::from(f.to_bits())).collect(),
            Data::U64(v) => v.clone(),
            Data::I64(v) => v.iter().map(|&i| i as u64).collect(),
        }
    }
}

/// The adapter a run used.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterRef {
    /// Adapter name.
    pub name: String,
    /// Backend name.
    pub backend: String,
}

/// One binding's contents after a run.
#[derive(Clone, Debug, Serialize)]
pub struct BindingOutput {
    /// Bind group.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// The shader's name of the binding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `buffer`, `image`, `texture`, `storage_texture` or `sampler`.
    pub kind: &'static str,
    /// Whether the kernel can write it ([`crate::BindingInfo::writable`]):
    /// what [`crate::validate::diff`] compares.
    pub writable: bool,
    /// Element type name (buffers).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<crate::ElementType>,
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
    /// The bytes read back, for a caller that reads them as another type.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Why the contents could not be read back, when they could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl BindingOutput {
    /// This binding as another run of the same job left it: `bytes` (as
    /// that run read them back), shown in this binding's shape and type.
    pub fn with_bytes(&self, bytes: Vec<u8>) -> BindingOutput {
        let format = self.format.as_deref().unwrap_or_default();
        let data = match self.kind {
            "buffer" => Data::from_elements(self.ty.unwrap_or(crate::ElementType::U32), &bytes),
            "image" => match crate::ImageFormat::parse(format) {
                Some(f) => Data::from_image(f, &bytes),
                None => Data::from_bytes(ScalarType::U32, &bytes),
            },
            "texture" | "storage_texture" => match crate::runtime::texture::parse_format(format) {
                Some(f) => Data::from_texels(f, &bytes),
                None => Data::from_bytes(ScalarType::U32, &bytes),
            },
            _ => self.data.clone(),
        };
        BindingOutput {
            data,
            bytes,
            ..self.clone()
        }
    }
}

/// An atomic counter's value after a run.
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

/// What a run produced: the adapter and every binding's contents.
#[derive(Clone, Debug, Serialize)]
pub struct RunOutput {
    /// Where it ran.
    pub adapter: AdapterRef,
    /// Every binding, sorted by (group, binding).
    pub bindings: Vec<BindingOutput>,
    /// Every atomic counter (OpenGL GLSL), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterOutput>,
    /// Every member of the push-constant block, as the run was given it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub push_constants: Vec<PushOutput>,
    /// Every addressable buffer (an [`crate::Arena`]'s), by name: what the
    /// shader reached by address. The library's runs leave this empty (an
    /// arena is one binding to them); a caller that made the arena fills it
    /// with [`AddressableOutput::of`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub addressable: Vec<AddressableOutput>,
}

/// An addressable buffer's contents after a run.
#[derive(Clone, Debug, Serialize)]
pub struct AddressableOutput {
    /// Its name.
    pub name: String,
    /// Its address, as the shader's references hold it.
    pub address: u64,
    /// The element type its contents are shown in.
    #[serde(rename = "type")]
    pub ty: crate::ElementType,
    /// Its contents.
    pub data: Data,
}

impl AddressableOutput {
    /// Buffer `region` of an arena whose bytes after the run are `arena`,
    /// shown as `ty` (a partial last element is left out).
    pub fn of(region: &crate::Region, arena: &[u8], ty: crate::ElementType) -> AddressableOutput {
        let start = (region.offset as usize).min(arena.len());
        let end = ((region.offset + region.len) as usize).min(arena.len());
        AddressableOutput {
            name: region.name.clone(),
            address: crate::Arena::BASE + region.offset,
            ty,
            data: Data::from_elements(ty, &arena[start..end]),
        }
    }
}

/// A push constant's value in a run.
#[derive(Clone, Debug, Serialize)]
pub struct PushOutput {
    /// The member's GLSL name.
    pub name: String,
    /// Its GLSL type (`uint`, `vec4`, `mat4`, `uint[4]`, …).
    #[serde(rename = "type")]
    pub ty: String,
    /// Its scalars (a matrix column by column).
    pub value: Data,
}

impl RunOutput {
    /// Every binding's bytes, `[{"group","binding","name","hex"}]`: how a
    /// run's outputs pass between the browser and the native side
    /// ([`from_hex`] reads them back). The name tells apart the elements
    /// of an array bound at one binding (`mips[3]`).
    pub fn hex_bindings(&self) -> serde_json::Value {
        self.bindings
            .iter()
            .map(|b| {
                let hex: String = b.bytes.iter().map(|x| format!("{x:02x}")).collect();
                serde_json::json!({
                    "group": b.group,
                    "binding": b.binding,
                    "name": b.name,
                    "hex": hex,
                })
            })
            .collect()
    }

    /// The binding the shader calls `name`.
    pub fn binding(&self, name: &str) -> Option<&BindingOutput> {
        self.bindings
            .iter()
            .find(|b| b.name.as_deref() == Some(name))
    }
}

/// Bytes from hexadecimal text, two digits a byte, as
/// [`RunOutput::hex_bindings`] writes them.
pub fn from_hex(hex: &str) -> Result<Vec<u8>> {
    let digits = hex.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err(crate::Error::Input("an odd number of hex digits".into()));
    }
    digits
        .chunks(2)
        .map(|p| {
            std::str::from_utf8(p)
                .ok()
                .and_then(|t| u8::from_str_radix(t, 16).ok())
                .ok_or_else(|| {
                    crate::Error::Input(format!(
                        "`{}` is not a hex byte",
                        String::from_utf8_lossy(p)
                    ))
                })
        })
        .collect()
}

impl Context {
    /// Dispatches `groups` workgroups of `kernel` with `binds` (checked as
    /// [`Context::dispatch`] checks them), then reads back every resource
    /// bound and reports each in its shape: a buffer in the element type
    /// its block declares (`u32` where it declares none), an image's texels
    /// in texel order, a texture's level 0 as channel values (a sampled
    /// texture too, to show what was read), and every atomic counter of an
    /// OpenGL kernel by name.
    pub fn run(&self, kernel: &Kernel, groups: [u32; 3], binds: &[Bind]) -> Result<RunOutput> {
        let data = self.dispatch_and_read(kernel, groups, binds)?;
        self.outputs(kernel, binds, data)
    }

    /// [`Context::run`] without blocking: in a browser, where nothing may,
    /// the only form that runs.
    pub async fn run_async(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind<'_>],
    ) -> Result<RunOutput> {
        let data = self.dispatch_and_read_async(kernel, groups, binds).await?;
        self.outputs(kernel, binds, data)
    }

    /// The shapes of a run's bytes (one per bind, as read back).
    pub(crate) fn outputs(
        &self,
        kernel: &Kernel,
        binds: &[Bind],
        mut data: Vec<Vec<u8>>,
    ) -> Result<RunOutput> {
        let mut bindings = Vec::with_capacity(binds.len());
        for (b, bytes) in binds.iter().zip(data.iter_mut()) {
            let bytes = std::mem::take(bytes);
            bindings.extend(self.binding_output(kernel, b, bytes)?);
        }
        bindings.sort_by_key(|b| (b.group, b.binding));
        Ok(RunOutput {
            adapter: AdapterRef {
                name: self.adapter_name().to_string(),
                backend: self.backend_name().to_string(),
            },
            counters: counters(kernel, &bindings),
            push_constants: push_constants(kernel, &bindings),
            addressable: Vec::new(),
            bindings,
        })
    }

    /// One bound resource after the dispatch, in its shape (none for a
    /// texture and sampler pair's sampler).
    fn binding_output(
        &self,
        kernel: &Kernel,
        b: &Bind,
        bytes: Vec<u8>,
    ) -> Result<Vec<BindingOutput>> {
        let found = match b.target {
            Target::Slot { group, binding } => {
                kernel.binding_declared(group, binding).map(|i| (i, 0))
            }
            Target::Element {
                group,
                binding,
                element,
            } => kernel
                .binding_declared(group, binding)
                .map(|i| (i, element)),
            Target::Name(name) => match b.resource {
                Resource::Sampled(..) => {
                    crate::runtime::dispatch::combined_halves(kernel, name).map(|h| (h.0, h.2))
                }
                _ => Some(kernel.element_named(name)?),
            },
        };
        let Some((info, element)) = found else {
            return Ok(Vec::new());
        };
        // An element of a binding array shows as `NAME[k]`.
        let name = match info.array {
            Some(_) => info.name.as_ref().map(|n| format!("{n}[{element}]")),
            None => info.name.clone(),
        };
        let base = BindingOutput {
            group: info.group,
            binding: info.binding,
            name,
            kind: "buffer",
            writable: info.writable(),
            ty: None,
            dim: None,
            format: None,
            size: None,
            samples: None,
            data: Data::U32(Vec::new()),
            bytes: Vec::new(),
            note: None,
        };
        let out = match b.resource {
            Resource::Buffer(_) => {
                let ty = info.element_type.unwrap_or(crate::ElementType::U32);
                BindingOutput {
                    ty: Some(ty),
                    data: Data::from_elements(ty, &bytes),
                    bytes,
                    ..base
                }
            }
            Resource::Image(i) => {
                let d = i.desc();
                BindingOutput {
                    kind: "image",
                    dim: Some(d.dim.name().into()),
                    format: Some(d.format.name().into()),
                    size: Some(d.size()),
                    samples: Some(d.samples),
                    data: Data::from_image(d.format, &bytes),
                    bytes,
                    ..base
                }
            }
            Resource::Texture(t) | Resource::Sampled(t, _) => {
                let d = t.desc();
                // wgpu's GL backend makes a square 2D texture of 6·k layers
                // a cube map, and copies nothing out of cube maps.
                let unreadable = self.info().backend == wgpu::Backend::Gl
                    && d.dim != TextureDim::D3
                    && d.width == d.height
                    && d.depth_or_layers % 6 == 0;
                let note = unreadable.then(|| {
                    "not read back: wgpu's GL backend copies nothing out of a square 2D texture of 6·k layers (it makes it a cube map)".to_string()
                });
                // Sampled textures are not read back by the dispatch: shown
                // as given (natively; a browser cannot read synchronously,
                // and the kernel does not write them).
                let bytes = if unreadable {
                    Vec::new()
                } else if bytes.is_empty() && t.is_copyable() && cfg!(not(target_arch = "wasm32")) {
                    t.read(self)?
                } else {
                    bytes
                };
                BindingOutput {
                    kind: if info.kind == BindingKind::StorageTexture {
                        "storage_texture"
                    } else {
                        "texture"
                    },
                    dim: Some(d.dim.name().into()),
                    format: Some(format_name(d.format)),
                    size: Some(d.size()),
                    data: Data::from_texels(d.format, &bytes),
                    bytes,
                    note,
                    ..base
                }
            }
            Resource::Sampler(_) => BindingOutput {
                kind: "sampler",
                ..base
            },
        };
        Ok(vec![out])
    }
}

/// Every member of the push-constant block the host can set, read from
/// its buffer's output.
fn push_constants(kernel: &Kernel, bindings: &[BindingOutput]) -> Vec<PushOutput> {
    let Some(b) = bindings.iter().find(|b| {
        kernel
            .binding(b.group, b.binding)
            .is_some_and(|i| i.push_constant)
    }) else {
        return Vec::new();
    };
    let info = kernel.binding(b.group, b.binding).expect("found above");
    let word = |at: usize| {
        b.bytes
            .get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    info.members
        .iter()
        .filter_map(|m| {
            // 8-, 16- and 64-bit members, at their own widths.
            let Some(scalar) = m.shape.scalar else {
                let (ty, n) = crate::ElementType::of_glsl_type(&m.ty)?;
                let at = m.offset as usize;
                let bytes = b.bytes.get(at..at + n * ty.bytes())?;
                return Some(PushOutput {
                    name: m.name.clone(),
                    ty: m.ty.clone(),
                    value: Data::from_elements(ty, bytes),
                });
            };
            let words: Vec<u32> = (0..m.shape.scalars())
                .map(|k| word((m.offset + m.shape.scalar_offset(k)) as usize))
                .collect();
            Some(PushOutput {
                name: m.name.clone(),
                ty: m.ty.clone(),
                value: Data::from_bytes(scalar, bytemuck::cast_slice(&words)),
            })
        })
        .collect()
}

/// Every atomic counter of an OpenGL kernel, read from its buffer's output.
fn counters(kernel: &Kernel, bindings: &[BindingOutput]) -> Vec<CounterOutput> {
    let mut out = Vec::new();
    for b in bindings {
        let Some(info) = kernel.binding(b.group, b.binding) else {
            continue;
        };
        if info.opengl.map(|o| o.kind) != Some(OpenGlKind::AtomicCounter) {
            continue;
        }
        for c in info.counters() {
            let at = c.offset as usize;
            if let Some(word) = b.bytes.get(at..at + 4) {
                out.push(CounterOutput {
                    name: c.name,
                    group: b.group,
                    binding: b.binding,
                    offset: c.offset,
                    value: u32::from_le_bytes([word[0], word[1], word[2], word[3]]),
                });
            }
        }
    }
    out
}
