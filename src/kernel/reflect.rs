//! The binding map reflected from a module: what naga's globals say of each
//! binding, and what atomport's passes recorded beside them (aliases,
//! renumbering, images in texel buffers, words, packed arrays).

use naga::{AddressSpace, ImageClass, ScalarKind, StorageAccess, TypeInner};

use super::{
    ArrayLength, BindingInfo, BindingKind, ImageShape, Member, MemberShape, Provenance, TextureDim,
    TextureInfo, element_type_of,
};
use crate::ScalarType;
use crate::lower::spirv::opengl::{OpenGlKind, OpenGlOrigin};

/// What a pass recorded of one (group, binding).
trait AtSlot {
    fn slot(&self) -> (u32, u32);
}

macro_rules! at_slot {
    ($($t:ty),*) => {$(
        impl AtSlot for $t {
            fn slot(&self) -> (u32, u32) {
                (self.group, self.binding)
            }
        }
    )*};
}

at_slot!(
    crate::lower::memory::words::WordBlock,
    crate::lower::spirv::image::ImageBinding,
    crate::lower::spirv::image::PackedArray,
    crate::lower::spirv::formatless::FormatlessImage,
    crate::lower::spirv::opengl::OpenGlBinding,
    crate::lower::spirv::sampler::LayerCount,
    crate::lower::spirv::dense::Renumbered,
    crate::lower::spirv::push::PushBlock,
    crate::lower::spirv::integer_sampling::AddressModes,
    crate::lower::Alias
);

/// What `list` recorded of `slot`, if anything.
fn at<T: AtSlot>(list: &[T], slot: (u32, u32)) -> Option<&T> {
    list.iter().find(|x| x.slot() == slot)
}

/// The binding map's entry for `var` at `rb`: reflected from the module,
/// with what `provenance` recorded of its slot.
pub(super) fn binding_info(
    module: &naga::Module,
    var: &naga::GlobalVariable,
    rb: &naga::ResourceBinding,
    provenance: &Provenance,
) -> BindingInfo {
    let mut b = reflect(module, var, rb);
    let slot = (b.group, b.binding);
    b.opengl = at(&provenance.opengl, slot).map(|o| o.origin);
    b.alias_of = at(&provenance.aliases, slot).map(|a| a.of);
    let moved = at(&provenance.renumbered, slot);
    b.declared = moved
        .filter(|r| r.declared != r.binding)
        .map(|r| r.declared);
    b.declared_group = moved
        .filter(|r| r.declared_group != r.group)
        .map(|r| r.declared_group);
    b.coherent = provenance.coherent.contains(&slot);
    b.volatile = provenance.volatile.contains(&slot);
    b.layers_override = at(&provenance.layer_counts, slot).map(|l| l.override_id);
    match at(&provenance.address_modes, slot) {
        Some(a) if a.packed => {
            let words = crate::lower::spirv::integer_sampling::PACKED_MODE_WORDS;
            b.address_overrides = (a.override_id..a.override_id + words).collect();
        }
        a => b.address_override = a.map(|a| a.override_id),
    }
    for s in &provenance.samplers {
        if s.group != b.group {
            continue;
        }
        if s.texture_binding == b.binding || s.sampler_binding == b.binding {
            b.combined = Some(s.name.clone());
        }
        // The sampler half shares its texture unit (OpenGL).
        if s.sampler_binding == b.binding {
            b.opengl = at(&provenance.opengl, (s.group, s.texture_binding)).map(|o| OpenGlOrigin {
                kind: OpenGlKind::Sampler,
                ..o.origin
            });
        }
    }
    if at(&provenance.formatless, slot).is_some()
        && let Some(t) = b.texture.as_mut()
    {
        t.format = None;
        t.format_from_host = true;
    }
    b.push_constant = at(&provenance.push, slot).is_some();
    let counters = b.opengl.map(|o| o.kind) == Some(OpenGlKind::AtomicCounter);
    if b.kind == BindingKind::Uniform || counters || b.push_constant {
        b.members = members(module, var, counters, &provenance.initializers);
    }
    // A buffer read as words shows the members it declared.
    if let Some(w) = at(&provenance.words, slot) {
        b.members = declared(&w.members, &provenance.initializers);
        b.element = None;
        b.also = w.also.clone();
    }
    if let Some(img) = at(&provenance.images, slot) {
        b.kind = BindingKind::Image;
        // The texel buffer's struct is atomport's, not a name the
        // shader gave.
        b.block_name = None;
        b.element = Some(img.format.scalar());
        b.image = Some(ImageShape {
            dim: img.dim,
            format: img.format,
            size_overrides: img.size_overrides,
        });
    }
    if let Some(p) = at(&provenance.packed, slot) {
        b.name = Some(p.name.clone());
        b.array = Some(ArrayLength::Fixed(p.elements.len() as u32));
        b.packed = p.elements.clone();
    }
    b.element_type = element_type_of(&b);
    b
}

fn reflect(
    module: &naga::Module,
    var: &naga::GlobalVariable,
    rb: &naga::ResourceBinding,
) -> BindingInfo {
    let (ty, array) = match module.types[var.ty].inner {
        TypeInner::BindingArray { base, size } => (
            &module.types[base].inner,
            Some(match size {
                naga::ArraySize::Constant(n) => ArrayLength::Fixed(n.get()),
                _ => ArrayLength::Unsized,
            }),
        ),
        ref t => (t, None),
    };
    let kind = match var.space {
        AddressSpace::Uniform => BindingKind::Uniform,
        AddressSpace::Storage { access } if !access.contains(StorageAccess::STORE) => {
            BindingKind::StorageRead
        }
        AddressSpace::Storage { .. } => BindingKind::StorageReadWrite,
        _ => match ty {
            TypeInner::Image {
                class: ImageClass::Storage { .. },
                ..
            } => BindingKind::StorageTexture,
            TypeInner::Sampler { .. } => BindingKind::Sampler,
            _ => BindingKind::SampledTexture,
        },
    };
    let (element, min_size) = if kind.is_buffer() {
        (element_type(module, ty), ty.size(module.to_ctx()) as u64)
    } else {
        (None, 0)
    };
    let texture = match *ty {
        TypeInner::Image {
            dim,
            arrayed,
            class,
        } => Some(texture_info(dim, arrayed, class)),
        _ => None,
    };
    let comparison = match *ty {
        TypeInner::Sampler { comparison } => Some(comparison),
        _ => None,
    };
    // A GLSL block without an instance name is known by its block name.
    let block_name = module.types[var.ty].name.clone().filter(|n| !n.is_empty());
    let name = var
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .or_else(|| block_name.clone());
    BindingInfo {
        group: rb.group,
        binding: rb.binding,
        block_name: block_name.filter(|b| Some(b) != name.as_ref()),
        push_constant: false,
        name,
        kind,
        element,
        element_type: None,
        min_size,
        image: None,
        opengl: None,
        members: Vec::new(),
        texture,
        layers_override: None,
        address_override: None,
        address_overrides: Vec::new(),
        comparison,
        combined: None,
        also: Vec::new(),
        packed: Vec::new(),
        alias_of: None,
        declared: None,
        declared_group: None,
        coherent: false,
        volatile: false,
        array,
    }
}

fn texture_info(dim: naga::ImageDimension, arrayed: bool, class: ImageClass) -> TextureInfo {
    let kind = |k: ScalarKind| match k {
        ScalarKind::Sint => "sint",
        ScalarKind::Uint => "uint",
        _ => "float",
    };
    let (sample, multisampled, format, access) = match class {
        ImageClass::Sampled { kind: k, multi } => (kind(k), multi, None, None),
        ImageClass::Depth { multi } => ("depth", multi, None, None),
        ImageClass::Storage { format, access } => {
            let scalar: naga::Scalar = format.into();
            let access = if access.contains(StorageAccess::LOAD | StorageAccess::STORE) {
                "read_write"
            } else if access.contains(StorageAccess::STORE) {
                "write"
            } else {
                "read"
            };
            (
                kind(scalar.kind),
                false,
                // naga's names, lower-cased, are the ones `--texture` takes.
                Some(format!("{format:?}").to_ascii_lowercase()),
                Some(access),
            )
        }
        _ => ("float", false, None, None),
    };
    TextureInfo {
        dim: TextureDim::from_naga(dim, arrayed),
        sample,
        multisampled,
        format,
        access,
        format_from_host: false,
    }
}

/// The members of a block, padding excluded, with their GLSL types and layout.
fn members(
    module: &naga::Module,
    var: &naga::GlobalVariable,
    counters: bool,
    initializers: &[(String, String)],
) -> Vec<Member> {
    let TypeInner::Struct { members, span } = &module.types[var.ty].inner else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, m) in members.iter().enumerate() {
        let Some(name) = m.name.clone() else { continue };
        if crate::lower::ir::layout::is_padding(&name) {
            continue;
        }
        let end = members.get(i + 1).map_or(*span, |n| n.offset);
        let inner = &module.types[m.ty].inner;
        let size = inner.size(module.to_ctx()).min(end - m.offset);
        let initializer = initializers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone());
        let shape = member_shape(module, inner);
        out.push(Member {
            ty: if counters {
                match shape.count {
                    1 => "atomic_uint".into(),
                    n => format!("atomic_uint[{n}]"),
                }
            } else {
                glsl_type(module, inner)
            },
            shape,
            name,
            offset: m.offset,
            size,
            initializer,
        });
    }
    out
}

/// The members a buffer made words declared, as the binding map shows them.
fn declared(
    members: &[crate::lower::memory::words::DeclaredMember],
    initializers: &[(String, String)],
) -> Vec<Member> {
    members
        .iter()
        .map(|d| Member {
            name: d.name.clone(),
            ty: d.ty.clone(),
            offset: d.offset,
            size: d.size,
            initializer: initializers
                .iter()
                .find(|(n, _)| *n == d.name)
                .map(|(_, t)| t.clone()),
            shape: MemberShape {
                scalar: d.scalar,
                rows: d.rows,
                columns: d.columns,
                column_stride: d.column_stride,
                row_major: d.row_major,
                count: d.count,
                stride: d.stride,
            },
        })
        .collect()
}

/// The element a padded-array wrapper struct holds (see [`crate::lower::memory::std140`]).
fn unwrap_padded<'m>(module: &'m naga::Module, inner: &'m TypeInner) -> &'m TypeInner {
    match inner {
        TypeInner::Struct { members, .. }
            if members.first().and_then(|m| m.name.as_deref())
                == Some(crate::lower::memory::std140::WRAPPED_VALUE)
                && members[1..].iter().all(|m| {
                    m.name
                        .as_deref()
                        .is_some_and(crate::lower::ir::layout::is_padding)
                }) =>
        {
            &module.types[members[0].ty].inner
        }
        _ => inner,
    }
}

fn member_shape(module: &naga::Module, inner: &TypeInner) -> MemberShape {
    let one = |scalar: naga::Scalar, rows: u32, columns: u32, column_stride: u32| MemberShape {
        scalar: ScalarType::from_naga(scalar),
        rows,
        columns,
        column_stride,
        row_major: false,
        count: 1,
        stride: 0,
    };
    match *inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => one(s, 1, 1, 0),
        TypeInner::Vector { size, scalar } => one(scalar, size as u32, 1, 0),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => one(
            scalar,
            rows as u32,
            columns as u32,
            inner.size(module.to_ctx()) / columns as u32,
        ),
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            let e = member_shape(module, unwrap_padded(module, &module.types[base].inner));
            if e.count != 1 {
                return MemberShape::default(); // arrays of arrays: not settable
            }
            MemberShape {
                count: n.get(),
                stride,
                ..e
            }
        }
        _ => MemberShape::default(),
    }
}

/// A naga type spelled as GLSL (`uint`, `ivec2`, `mat3x2`, `float[4]`).
fn glsl_type(module: &naga::Module, inner: &TypeInner) -> String {
    let prefix = |s: naga::Scalar| match (s.kind, s.width) {
        (ScalarKind::Uint, 4) => "u",
        (ScalarKind::Sint, 4) => "i",
        (ScalarKind::Bool, _) => "b",
        (ScalarKind::Float, 8) => "d",
        (ScalarKind::Uint, 8) => "u64",
        (ScalarKind::Sint, 8) => "i64",
        _ => "",
    };
    match *inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => match (s.kind, s.width) {
            (ScalarKind::Uint, 4) => "uint".into(),
            (ScalarKind::Sint, 4) => "int".into(),
            (ScalarKind::Float, 4) => "float".into(),
            (ScalarKind::Float, 8) => "double".into(),
            (ScalarKind::Bool, _) => "bool".into(),
            (ScalarKind::Uint, 8) => "uint64_t".into(),
            (ScalarKind::Sint, 8) => "int64_t".into(),
            _ => format!("{s:?}"),
        },
        TypeInner::Vector { size, scalar } => format!("{}vec{}", prefix(scalar), size as u32),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => {
            let (c, r) = (columns as u32, rows as u32);
            if c == r {
                format!("{}mat{c}", prefix(scalar))
            } else {
                format!("{}mat{c}x{r}", prefix(scalar))
            }
        }
        TypeInner::Array { base, size, .. } => {
            let n = match size {
                naga::ArraySize::Constant(n) => n.to_string(),
                _ => String::new(),
            };
            let element = unwrap_padded(module, &module.types[base].inner);
            format!("{}[{n}]", glsl_type(module, element))
        }
        TypeInner::Struct { .. } => "struct".into(),
        _ => "opaque".into(),
    }
}

fn element_type(module: &naga::Module, ty: &TypeInner) -> Option<ScalarType> {
    match ty {
        TypeInner::Array { base, .. } => match module.types[*base].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => ScalarType::from_naga(s),
            _ => None,
        },
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => ScalarType::from_naga(*s),
        TypeInner::Struct { members, .. } if members.len() == 1 => {
            element_type(module, &module.types[members[0].ty].inner)
        }
        _ => None,
    }
}
