//! The binding map's types: what each binding of a kernel is, as the host
//! binds it and as its JSON says it.

use serde::{Deserialize, Serialize};

use crate::ScalarType;
use crate::lower::spirv::opengl::{OpenGlKind, OpenGlOrigin};

/// The shape of a texture as a shader declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureDim {
    /// `texture1D`, `image1D`.
    #[serde(rename = "1d")]
    D1,
    /// `texture2D`, `image2D`.
    #[serde(rename = "2d")]
    D2,
    /// `texture2DArray`, `image2DArray`.
    #[serde(rename = "2darray")]
    D2Array,
    /// `textureCube` (6 layers: +X, −X, +Y, −Y, +Z, −Z).
    Cube,
    /// `textureCubeArray` (6 layers per cube).
    #[serde(rename = "cubearray")]
    CubeArray,
    /// `texture3D`, `image3D`.
    #[serde(rename = "3d")]
    D3,
}

impl TextureDim {
    /// The name used on the command line and in messages (`2d`, `cubearray`).
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::D1 => "1d",
            TextureDim::D2 => "2d",
            TextureDim::D2Array => "2darray",
            TextureDim::Cube => "cube",
            TextureDim::CubeArray => "cubearray",
            TextureDim::D3 => "3d",
        }
    }

    /// The shape of a naga image type.
    pub(crate) fn from_naga(dim: naga::ImageDimension, arrayed: bool) -> Option<TextureDim> {
        use naga::ImageDimension as D;
        Some(match (dim, arrayed) {
            (D::D1, false) => TextureDim::D1,
            (D::D2, false) => TextureDim::D2,
            (D::D2, true) => TextureDim::D2Array,
            (D::Cube, false) => TextureDim::Cube,
            (D::Cube, true) => TextureDim::CubeArray,
            (D::D3, false) => TextureDim::D3,
            _ => return None,
        })
    }

    #[cfg(feature = "runtime")]
    pub(crate) fn texture_dimension(self) -> wgt::TextureDimension {
        match self {
            TextureDim::D1 => wgt::TextureDimension::D1,
            TextureDim::D3 => wgt::TextureDimension::D3,
            _ => wgt::TextureDimension::D2,
        }
    }

    #[cfg(feature = "runtime")]
    pub(crate) fn view_dimension(self) -> wgt::TextureViewDimension {
        match self {
            TextureDim::D1 => wgt::TextureViewDimension::D1,
            TextureDim::D2 => wgt::TextureViewDimension::D2,
            TextureDim::D2Array => wgt::TextureViewDimension::D2Array,
            TextureDim::Cube => wgt::TextureViewDimension::Cube,
            TextureDim::CubeArray => wgt::TextureViewDimension::CubeArray,
            TextureDim::D3 => wgt::TextureViewDimension::D3,
        }
    }

    /// How many numbers `textureSize` reports: the size's form on the command line.
    pub fn size_pattern(self) -> &'static str {
        match self {
            TextureDim::D1 => "W",
            TextureDim::D2 | TextureDim::Cube => "WxH",
            TextureDim::D2Array => "WxHxL",
            TextureDim::CubeArray => "WxHxC (C cubes)",
            TextureDim::D3 => "WxHxD",
        }
    }
}

/// What kind of resource a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingKind {
    /// `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
    /// `var<uniform>`.
    Uniform,
    /// A storage texture (`texture_storage_*`).
    StorageTexture,
    /// A sampled or depth texture.
    SampledTexture,
    /// A sampler.
    Sampler,
    /// A GLSL storage image held in a texel buffer (see [`crate::Image`]).
    Image,
}

impl BindingKind {
    /// Whether a buffer binds here.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            BindingKind::StorageRead | BindingKind::StorageReadWrite | BindingKind::Uniform
        )
    }

    /// A short description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            BindingKind::StorageRead => "read-only storage buffer",
            BindingKind::StorageReadWrite => "read-write storage buffer",
            BindingKind::Uniform => "uniform buffer",
            BindingKind::StorageTexture => "storage texture",
            BindingKind::SampledTexture => "sampled texture",
            BindingKind::Sampler => "sampler",
            BindingKind::Image => "image",
        }
    }
}

/// A form a translation chose for what an adapter may or may not have
/// ([`crate::SourceOptions::fitted_to`]): the binding map lists those its
/// kernel uses, so that a host knows what the WGSL needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// 64-bit integers and buffer references as pairs of 32-bit words
    /// (no SHADER_INT64 needed).
    Int64Pairs,
    /// Arrays of resources indexed at run time as a `switch` over one
    /// binding per element (no binding arrays needed).
    ArraySwitches,
    /// Float atomics as compare-exchange loops on the bits (no
    /// SHADER_FLOAT32_ATOMIC needed).
    FloatAtomicLoops,
}

/// One element of a storage-image array held in one buffer
/// ([`BindingInfo::packed`]): the override ids its image's sizes and its
/// region's start go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedElement {
    /// The override ids (WGSL `@id`) of the image's width, height, layers
    /// and samples.
    pub size_overrides: [u32; 4],
    /// The override id of where the element's region starts in the
    /// buffer, counted in texels of the array's format: the bound images
    /// follow one another, each whole (its 16-byte header, its texels and
    /// one spare texel) and starting at a multiple of 16 bytes.
    pub offset_override: u32,
    /// The binding the element has in the original module, run natively.
    #[serde(skip)]
    pub native_binding: u32,
}

/// One binding the kernel's entry point uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BindingInfo {
    /// Bind group index (`@group`, GLSL `set`).
    pub group: u32,
    /// Binding index.
    pub binding: u32,
    /// The name in the shader, when it has one.
    pub name: Option<String>,
    /// The resource kind.
    pub kind: BindingKind,
    /// The element type when the binding is an array of 32-bit scalars (or a
    /// struct whose only member is one), atomic or not.
    pub element: Option<ScalarType>,
    /// Bytes the static layout needs (a runtime-sized array counts one element).
    pub min_size: u64,
    /// The element type of a buffer at any width: `element`'s, or for a
    /// buffer read as words (atomport's word-addressed memory pass) the type of the
    /// runtime-sized array it ends with (`uint8_t pixels[]` → `u8`). `run`
    /// prints the buffer in it. (Not in the JSON binding map: `element`
    /// and the declared `members` say it there; loading a map derives it
    /// the same way.)
    #[serde(skip)]
    pub element_type: Option<crate::ElementType>,
    /// For [`BindingKind::Image`]: the GLSL image type's shape and format.
    #[serde(skip_serializing_if = "Option::is_none", flatten)]
    pub image: Option<ImageShape>,
    /// For OpenGL-dialect GLSL: the resource's OpenGL kind and number
    /// (`{"kind": "image", "unit": 0}`); `auto` when the shader named none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opengl: Option<OpenGlOrigin>,
    /// For uniform blocks and atomic-counter buffers: every member by its
    /// GLSL name, with its type, offset and size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// For sampled and storage textures: shape, sample type, and a storage
    /// texture's format and access.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<TextureInfo>,
    /// For array textures: the override id (WGSL `@id`) that receives the
    /// bound texture's layer count (cubes for a cube array), which
    /// `textureSize`/`imageSize` report (set it yourself when running the
    /// WGSL outside atomport).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers_override: Option<u32>,
    /// For a sampler an integer texture is sampled through (`texture()` on
    /// an `isampler2D`, done as the texel fetch a nearest sampler makes):
    /// the override id (WGSL `@id`) that receives the bound sampler's
    /// address mode, 0 clamp to edge, 1 repeat, 2 mirrored repeat, 3 clamp
    /// to border (set it yourself when running the WGSL outside atomport).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address_override: Option<u32>,
    /// For a sampler binding array an integer texture is sampled through
    /// (`usampler2D(textures[i], samplers[j])`): the override ids (WGSL
    /// `@id`) that receive its elements' address modes, coded as for
    /// `address_override`, 2 bits per element, 16 elements per override
    /// (element k in the k/16-th, from bit 2(k % 16)); so such an array
    /// takes at most 16 elements per id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub address_overrides: Vec<u32>,
    /// For samplers: whether it compares (a shadow sampler).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<bool>,
    /// For the texture and the sampler a combined image sampler
    /// (`sampler2D tex`) was split into: its GLSL name (`tex`); binding a
    /// texture and a sampler by that name binds both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub combined: Option<String>,
    /// For a buffer block declared at the same binding as another (an
    /// alias), the binding it was declared at: it has a binding of its own
    /// in WGSL, and the runtime binds to it the buffer given for that one.
    /// For an unsized image array declared at another's binding (one
    /// descriptor array seen through an array per type): the runtime puts
    /// each element given for either into the array whose type fits it,
    /// and a placeholder into the other at that element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<u32>,
    /// For a binding the shader numbers at or past WebGPU's limit of 1000
    /// per group: the number the shader declared. `binding` is the one WGSL
    /// gives it instead, a number the shader declares for nothing; the host
    /// binds it by either, or by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<u32>,
    /// For a binding whose descriptor set WebGPU has no bind group for
    /// (set 4 or more, translated for [`crate::Platform::WebGpu`]): the set
    /// the shader declared. `group` is the one WGSL gives it instead, a set
    /// the shader declares nothing in; the host binds it by either, or by
    /// name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_group: Option<u32>,
    /// For a buffer the shader declared `coherent`: `true`. Core WGSL has
    /// no `@coherent`; atomport's runtime compiles the buffer so where the
    /// device has MEMORY_DECORATION_COHERENT.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coherent: bool,
    /// For a buffer the shader declared `volatile`: `true` (and `coherent`
    /// too, as GLSL treats volatile memory). Core WGSL has no `@volatile`:
    /// a writable volatile buffer is addressed as words, every access an
    /// atomic read-modify-write, and its `members` say where the host
    /// writes what the shader declared; the runtime also compiles it
    /// `@volatile` where the device has MEMORY_DECORATION_VOLATILE.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub volatile: bool,
    /// For a push-constant block (`layout(push_constant)`): `true`. WebGPU
    /// has no push constants; the block is this buffer, set by member name
    /// ([`crate::Uniforms::push`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub push_constant: bool,
    /// For a binding array (an array of textures or samplers the shader
    /// indexes at run time, or declares without a size): its length. The
    /// host binds its elements by name, `NAME[0]`, `NAME[1]`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayLength>,
    /// The block's type name when the binding is named by its instance
    /// (`buffer Particles { … } particles;`): binding by either name works.
    #[serde(rename = "block", default, skip_serializing_if = "Option::is_none")]
    pub block_name: Option<String>,
    /// For a buffer other blocks were declared at the same binding as
    /// (aliases, translated for [`crate::Platform::WebGpu`], which binds a
    /// buffer once): their GLSL names. One buffer serves all of them, read
    /// as words at each block's declared layout; binding it by any of the
    /// names (instance or block) binds it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// For an array of storage images held in one buffer (translated for
    /// [`crate::Platform::WebGpu`], where a texel buffer per element would
    /// pass the storage buffers a stage may bind): each element's
    /// overrides. The host still binds one image per element (`NAME[k]`);
    /// the runtime copies them into the buffer, one region each, before
    /// the dispatch and back after it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packed: Vec<PackedElement>,
}

/// How many elements a binding array has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrayLength {
    /// Declared with this many (`texture2D maps[8]`): all are bound.
    Fixed(u32),
    /// Declared without a size (`sampler2D textures[]`): as many as the
    /// host binds, from element 0 on without a gap.
    Unsized,
}

/// What a texture binding declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextureInfo {
    /// The shape; `None` for shapes WGSL has no texture for.
    pub dim: Option<TextureDim>,
    /// What it holds: `float`, `sint`, `uint` or `depth`.
    pub sample: &'static str,
    /// A multisampled texture.
    pub multisampled: bool,
    /// A storage texture's format (`rgba8unorm`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A storage texture's access: `read`, `write` or `read_write`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<&'static str>,
    /// A storage image declared without a format: the texture bound at
    /// dispatch chooses it (any format of the sample type; `r32*` when read
    /// and written), and `format` is `None`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub format_from_host: bool,
}

/// One member of a uniform block or of an atomic-counter buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The GLSL name.
    pub name: String,
    /// The GLSL type: `uint`, `vec3`, `mat4`, `float[4]`, `atomic_uint`, …
    #[serde(rename = "type")]
    pub ty: String,
    /// Byte offset in the block.
    pub offset: u32,
    /// Bytes it occupies.
    pub size: u32,
    /// A loose uniform's initializer in the shader, as written: the value
    /// the host uses when it sets none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initializer: Option<String>,
    /// How its values lie: its scalar, vector and matrix shape and strides.
    #[serde(flatten)]
    pub(crate) shape: MemberShape,
}

/// How a member's values lie in memory, for setting them from the host.
/// In the binding map's JSON, what is 1 (rows, columns, count) or 0
/// (strides) is left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MemberShape {
    /// The scalar type; `None` for members the host cannot set (structs, 64-bit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalar: Option<ScalarType>,
    /// Components of a vector (or rows of a matrix column); 1 for scalars.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub rows: u32,
    /// Columns of a matrix; 1 otherwise.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub columns: u32,
    /// Bytes between matrix columns, or between rows where `row_major`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub column_stride: u32,
    /// A matrix declared `row_major`: its rows `column_stride` apart, its
    /// columns one scalar apart.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub row_major: bool,
    /// Array elements; 1 when not an array.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
    /// Bytes between array elements.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stride: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// [`TextureInfo`] as its JSON holds it, names as strings.
#[derive(Deserialize)]
struct WrittenTextureInfo {
    dim: Option<TextureDim>,
    sample: String,
    multisampled: bool,
    format: Option<String>,
    access: Option<String>,
    #[serde(default)]
    format_from_host: bool,
}

impl<'de> Deserialize<'de> for TextureInfo {
    fn deserialize<D: serde::Deserializer<'de>>(
        d: D,
    ) -> std::result::Result<TextureInfo, D::Error> {
        let w = WrittenTextureInfo::deserialize(d)?;
        // The names atomport writes, as the `&'static str`s it compares.
        let known = |s: &str, names: &'static [&'static str]| {
            names
                .iter()
                .copied()
                .find(|n| *n == s)
                .ok_or_else(|| serde::de::Error::unknown_variant(s, names))
        };
        Ok(TextureInfo {
            dim: w.dim,
            sample: known(&w.sample, &["float", "sint", "uint", "depth"])?,
            multisampled: w.multisampled,
            format: w.format,
            access: w
                .access
                .map(|a| known(&a, &["read", "write", "read_write"]))
                .transpose()?,
            format_from_host: w.format_from_host,
        })
    }
}

impl MemberShape {
    /// Scalars the member holds.
    #[cfg(feature = "runtime")]
    pub(crate) fn scalars(&self) -> usize {
        (self.rows * self.columns * self.count) as usize
    }

    /// The byte offset (from the member's start) of scalar `k`, counted
    /// column-major within an element.
    #[cfg(feature = "runtime")]
    pub(crate) fn scalar_offset(&self, k: usize) -> u32 {
        let per = (self.rows * self.columns) as usize;
        let (element, within) = (k / per, k % per);
        let (column, row) = (within as u32 / self.rows, within as u32 % self.rows);
        let (column_step, row_step) = if self.row_major {
            (4, self.column_stride)
        } else {
            (self.column_stride, 4)
        };
        element as u32 * self.stride + column * column_step + row * row_step
    }
}

/// The shape and format of an image binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageShape {
    /// The GLSL image type's shape.
    pub dim: crate::lower::memory::texel::ImageDim,
    /// The texel format.
    pub format: crate::lower::memory::texel::ImageFormat,
    /// The pipeline-overridable constants (WGSL `@id`s) that receive the
    /// bound image's width, height, layers and samples at dispatch (set them
    /// yourself when running the WGSL outside atomport). Unused (zero) for
    /// a binding array: each element's texel buffer header holds its sizes.
    pub size_overrides: [u32; 4],
}

impl BindingInfo {
    /// Whether the binding is a WGSL binding array: an array of resources
    /// bound as one, not one held in a buffer ([`BindingInfo::packed`]).
    pub fn is_binding_array(&self) -> bool {
        self.array.is_some() && self.packed.is_empty()
    }

    /// Whether the kernel can write what binds here: a read-write storage
    /// buffer, an image, or a storage texture not declared read-only.
    pub fn writable(&self) -> bool {
        match self.kind {
            BindingKind::StorageReadWrite | BindingKind::Image => true,
            BindingKind::StorageTexture => {
                self.texture.as_ref().and_then(|t| t.access) != Some("read")
            }
            _ => false,
        }
    }

    /// The name for messages: the shader's name, or `group.binding`.
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}.{}", self.group, self.binding))
    }

    /// The atomic counters (OpenGL GLSL's `atomic_uint`) held in this
    /// binding's buffer, each element of an array of counters on its own
    /// (`name[k]`); none for other bindings.
    pub fn counters(&self) -> Vec<Counter> {
        if self.opengl.map(|o| o.kind) != Some(OpenGlKind::AtomicCounter) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for m in &self.members {
            match m.shape.count {
                0 | 1 => out.push(Counter {
                    name: m.name.clone(),
                    offset: m.offset,
                }),
                n => out.extend((0..n).map(|k| Counter {
                    name: format!("{}[{k}]", m.name),
                    offset: m.offset + k * m.shape.stride.max(4),
                })),
            }
        }
        out
    }
}

/// An atomic counter in its buffer (see [`BindingInfo::counters`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counter {
    /// Its GLSL name; `name[k]` for an element of an array of counters.
    pub name: String,
    /// Its byte offset in the buffer.
    pub offset: u32,
}

/// A binding's element type at any width: its 32-bit `element`, or for a
/// buffer read as words the type of the runtime-sized array its declared
/// members end with (`uint8_t pixels[]` is `u8`).
pub(crate) fn element_type_of(b: &BindingInfo) -> Option<crate::ElementType> {
    match b.element {
        Some(e) => Some(e.into()),
        None if b.kind.is_buffer() => b
            .members
            .last()
            .and_then(|m| m.ty.strip_suffix("[]"))
            .and_then(crate::ElementType::from_glsl),
        None => None,
    }
}

/// `NAME[k]`, an element of a binding array, as (`NAME`, k).
pub(crate) fn split_element(name: &str) -> Option<(&str, u32)> {
    let (base, rest) = name.strip_suffix(']')?.rsplit_once('[')?;
    Some((base, rest.parse().ok()?))
}
