//! SPIR-V pass for OpenGL-dialect GLSL: OpenGL's binding namespaces become
//! WGSL bindings.
//!
//! OpenGL numbers buffer bindings, uniform-buffer bindings, image units,
//! texture units and atomic-counter bindings separately, so buffer binding 0,
//! image unit 0 and counter binding 0 can all exist in one shader; WGSL has
//! one namespace per group. Every resource gets a binding of its own in
//! group 0:
//!
//! 1. in the order buffer, uniform buffer, atomic counter, image, texture,
//!    sampler, each resource with an explicit number keeps it as its WGSL
//!    binding when no earlier kind holds it (a shader with buffers only
//!    keeps every number);
//! 2. the others — numbers another kind holds, resources that name no
//!    binding (OpenGL gives them 0 of their kind), and the block of loose
//!    uniforms — take the smallest free bindings, in the same order.
//!
//! The binding map records each one's OpenGL kind and number.

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::lower::model::{Model, decorate, id};

pub use crate::front::{ATOMIC_COUNTER_BLOCK, DEFAULT_UNIFORM_BLOCK};

/// An OpenGL binding namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenGlKind {
    /// A shader storage block (`buffer`), numbered by buffer binding.
    Buffer,
    /// A uniform block, numbered by uniform-buffer binding.
    UniformBuffer,
    /// The `atomic_uint` counters of one atomic-counter binding, held in a buffer.
    AtomicCounter,
    /// A storage image, numbered by image unit.
    Image,
    /// A texture (sampled image), numbered by texture unit.
    Texture,
    /// A sampler, numbered by texture unit.
    Sampler,
    /// The loose uniforms (`uniform float x;` outside any block), gathered
    /// into one uniform block; OpenGL sets them by name, not by binding.
    DefaultUniformBlock,
}

impl OpenGlKind {
    /// What the number is called: `binding` or `unit`.
    fn number_name(self) -> &'static str {
        match self {
            OpenGlKind::Image | OpenGlKind::Texture | OpenGlKind::Sampler => "unit",
            _ => "binding",
        }
    }
}

/// Where a WGSL binding came from in OpenGL terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenGlOrigin {
    /// The namespace.
    pub kind: OpenGlKind,
    /// The binding or unit the shader names (0 when it names none, as
    /// OpenGL would give; `None` for the loose uniforms' block).
    pub number: Option<u32>,
    /// The shader named no binding: atomport chose the WGSL binding.
    pub auto: bool,
}

impl Serialize for OpenGlOrigin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", &self.kind)?;
        if let Some(n) = self.number {
            m.serialize_entry(self.kind.number_name(), &n)?;
        }
        if self.auto {
            m.serialize_entry("auto", &true)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for OpenGlOrigin {
    /// The map [`Serialize`] writes: `kind`, the number as `binding` or
    /// `unit` (the name [`OpenGlKind`] gives it), and `auto`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            kind: OpenGlKind,
            binding: Option<u32>,
            unit: Option<u32>,
            #[serde(default)]
            auto: bool,
        }
        let w = Written::deserialize(d)?;
        let number = match w.kind.number_name() {
            "unit" => w.unit,
            _ => w.binding,
        };
        Ok(OpenGlOrigin {
            kind: w.kind,
            number,
            auto: w.auto,
        })
    }
}

/// One resource after the pass: its WGSL slot and its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenGlBinding {
    /// WGSL group (always 0).
    pub group: u32,
    /// WGSL binding.
    pub binding: u32,
    /// What it was in OpenGL.
    pub origin: OpenGlOrigin,
}

struct Resource {
    var: Word,
    kind: OpenGlKind,
    /// The binding the shader names.
    explicit: Option<u32>,
}

/// The OpenGL kind of a resource variable, if it is one.
fn kind_of(m: &Model, class: StorageClass, pointee: Word) -> Option<OpenGlKind> {
    // Arrays of resources are one binding: look through them.
    let pointee = m.strip_arrays(pointee);
    let ty_name = m.name(pointee).unwrap_or("");
    Some(match class {
        StorageClass::StorageBuffer => buffer_kind(ty_name),
        StorageClass::Uniform if m.has_decoration(pointee, Decoration::BufferBlock) => {
            buffer_kind(ty_name)
        }
        StorageClass::Uniform if ty_name == DEFAULT_UNIFORM_BLOCK => {
            OpenGlKind::DefaultUniformBlock
        }
        StorageClass::Uniform => OpenGlKind::UniformBuffer,
        StorageClass::UniformConstant => match m.global(pointee).map(|t| t.class.opcode) {
            Some(Op::TypeSampler) => OpenGlKind::Sampler,
            Some(Op::TypeSampledImage) => OpenGlKind::Texture,
            // Operand 6 is `Sampled`: 2 for storage images.
            Some(Op::TypeImage) => match m.global(pointee)?.operands.get(5) {
                Some(Operand::LiteralBit32(2)) => OpenGlKind::Image,
                _ => OpenGlKind::Texture,
            },
            _ => return None,
        },
        _ => return None,
    })
}

/// Assigns every resource variable its WGSL binding in group 0; returns the origins.
pub fn assign_bindings(m: &mut Model, unbound: &[String]) -> Result<Vec<OpenGlBinding>> {
    let mut resources = Vec::new();
    for (var, class, pointee) in m.variables() {
        let Some(kind) = kind_of(m, class, pointee) else {
            continue;
        };
        let ty_name = m.name(m.strip_arrays(pointee)).unwrap_or("");
        let var_name = m.name(var).unwrap_or("");
        let named_none = [var_name, ty_name]
            .iter()
            .any(|n| !n.is_empty() && unbound.iter().any(|u| u == n));
        let explicit = match kind {
            OpenGlKind::AtomicCounter => ty_name[ATOMIC_COUNTER_BLOCK.len()..].parse().ok(),
            OpenGlKind::DefaultUniformBlock => None,
            _ if named_none => None,
            _ => m.decoration(var, Decoration::Binding),
        };
        resources.push(Resource {
            var,
            kind,
            explicit,
        });
    }
    // Pass 1: explicit numbers, kind by kind, kept where free.
    let mut order: Vec<usize> = (0..resources.len()).collect();
    order.sort_by_key(|&r| {
        (
            resources[r].kind,
            resources[r].explicit.unwrap_or(u32::MAX),
            r,
        )
    });
    let mut taken = BTreeSet::new();
    let mut slot: Vec<Option<u32>> = vec![None; resources.len()];
    for &r in &order {
        if let Some(n) = resources[r].explicit
            && taken.insert(n)
        {
            slot[r] = Some(n);
        }
    }
    // Pass 2: the rest take the smallest free bindings.
    let mut next = 0;
    for &r in &order {
        if slot[r].is_none() {
            while taken.contains(&next) {
                next += 1;
            }
            taken.insert(next);
            slot[r] = Some(next);
        }
    }
    // Rewrite the decorations: drop the old set/binding, write the new.
    let vars: HashMap<Word, u32> = resources
        .iter()
        .zip(&slot)
        .map(|(r, s)| (r.var, s.unwrap_or(0)))
        .collect();
    m.module_mut().annotations.retain(|i| {
        !(i.class.opcode == Op::Decorate
            && i.operands
                .first()
                .and_then(id)
                .is_some_and(|t| vars.contains_key(&t))
            && matches!(
                i.operands.get(1),
                Some(Operand::Decoration(
                    Decoration::Binding | Decoration::DescriptorSet
                ))
            ))
    });
    let mut out = Vec::with_capacity(resources.len());
    for (r, s) in resources.iter().zip(&slot) {
        let binding = s.unwrap_or(0);
        for (d, v) in [
            (Decoration::DescriptorSet, 0),
            (Decoration::Binding, binding),
        ] {
            m.annotate(decorate(r.var, d, &[v]));
        }
        let auto = r.explicit.is_none() && r.kind != OpenGlKind::DefaultUniformBlock;
        out.push(OpenGlBinding {
            group: 0,
            binding,
            origin: OpenGlOrigin {
                kind: r.kind,
                number: match r.kind {
                    OpenGlKind::DefaultUniformBlock => None,
                    _ => Some(r.explicit.unwrap_or(0)),
                },
                auto,
            },
        });
    }
    Ok(out)
}

fn buffer_kind(block_name: &str) -> OpenGlKind {
    if block_name.starts_with(ATOMIC_COUNTER_BLOCK) {
        OpenGlKind::AtomicCounter
    } else {
        OpenGlKind::Buffer
    }
}
