//! Arrays of resources indexed by constants (`uniform image2D mips[12]`,
//! `uniform texture2D maps[4]`, `uniform sampler samplers[2]`,
//! `buffer B { … } parts[3]`): Vulkan binds such an array as one
//! descriptor binding of N elements, WGSL only one resource per binding.
//! Each element becomes a variable of its own, named `NAME[k]`, element 0
//! at the array's binding and the others at the next free bindings of its
//! set; every access chain selecting an element by a constant now starts at
//! that element. Later passes (texel buffers for atomic images, formats,
//! combined samplers) then see ordinary single resources.
//!
//! An array of textures, samplers or storage images (without image
//! atomics; a formatless one takes the format its bound elements share)
//! indexed by a value known only at run time
//! (`textures[nonuniformEXT(id)]`), or without a size (`texture2D
//! textures[]`), stays one binding: naga reads it as a WGSL
//! `binding_array`, which wgpu binds where the adapter has
//! TEXTURE_BINDING_ARRAY (STORAGE_RESOURCE_BINDING_ARRAY for images, and
//! the non-uniform indexing features when the index varies within a
//! workgroup). Other arrays so indexed of a few elements have been made
//! switches over constant indices ([`super::array_switch`]); longer ones
//! are refused naming what they would need.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// The most elements an array is split into (each takes a binding).
const MAX_ELEMENTS: u32 = 64;

/// An array of resources the pass split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitArray {
    /// The array's GLSL name.
    pub name: String,
    /// Its descriptor set.
    pub group: u32,
    /// The binding of each element, in order.
    pub bindings: Vec<u32>,
    /// The variable of each element, in order.
    pub vars: Vec<Word>,
}

/// What a resource array holds, for messages.
pub(crate) fn kind(m: &Model, class: StorageClass, element: Word) -> Option<&'static str> {
    let t = m.global(element)?;
    match (class, t.class.opcode) {
        (StorageClass::UniformConstant, Op::TypeImage) => {
            // Operand 5 (Sampled): 2 is a storage image, 1 a texture.
            match t.operands.get(5) {
                Some(Operand::LiteralBit32(2)) => Some("image"),
                _ => Some("texture"),
            }
        }
        (StorageClass::UniformConstant, Op::TypeSampler) => Some("sampler"),
        (StorageClass::StorageBuffer | StorageClass::Uniform, Op::TypeStruct)
            if m.has_decoration(element, Decoration::Block)
                || m.has_decoration(element, Decoration::BufferBlock) =>
        {
            Some("buffer block")
        }
        _ => None,
    }
}

/// Splits every array of images, textures, samplers and buffer blocks
/// whose elements are all selected by constants; returns what it split.
pub fn split_resource_arrays(m: &mut Model) -> Result<Vec<SplitArray>> {
    // (variable, storage class, element type, length, what it holds)
    let mut found = Vec::new();
    for (var, class, pointee) in m.variables() {
        let Some(t) = m.global(pointee) else {
            continue;
        };
        let runtime = t.class.opcode == Op::TypeRuntimeArray;
        if t.class.opcode != Op::TypeArray && !runtime {
            continue;
        }
        let Some(element) = t.operands.first().and_then(id) else {
            continue;
        };
        let Some(what) = kind(m, class, element) else {
            continue;
        };
        let len = if runtime {
            None
        } else {
            t.operands
                .get(1)
                .and_then(id)
                .and_then(|l| m.constant_u32(l))
        };
        found.push((var, class, element, len, what));
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let dynamic = indexed_at_run_time(m, &found)?;
    // Arrays of textures and samplers indexed at run time stay whole.
    found.retain(|f| !dynamic.contains(&f.0));
    let found: Vec<(Word, StorageClass, Word, u32, &str)> = found
        .into_iter()
        .map(|(var, class, element, len, what)| {
            let name = m.label(var);
            let len = len.filter(|n| (1..=MAX_ELEMENTS).contains(n)).ok_or_else(|| {
                Error::Unsupported(format!(
                    "the {what} array `{name}` has a length atomport cannot split (1 to {MAX_ELEMENTS} elements, a constant)"
                ))
            })?;
            Ok((var, class, element, len, what))
        })
        .collect::<Result<_>>()?;
    let mut free = m.free_bindings();
    let mut split = Vec::new();
    // array variable -> its element variables
    let mut elements: HashMap<Word, Vec<Word>> = HashMap::default();
    for &(var, class, element, len, _) in &found {
        let (set, first) = m.slot(var);
        let name = m.label(var);
        let ptr = m.pointer_to(class, element);
        let mut vars = Vec::new();
        let mut bindings = Vec::new();
        for k in 0..len {
            let binding = if k == 0 { first } else { free.take(set)? };
            let v = m.add_global(Op::Variable, Some(ptr), vec![Operand::StorageClass(class)]);
            m.decorate(v, Decoration::DescriptorSet, &[set]);
            m.decorate(v, Decoration::Binding, &[binding]);
            // What the array's own decorations say (NonWritable, Coherent,
            // …) holds for each element.
            m.copy_decorations(var, v, |d| {
                !matches!(d, Decoration::DescriptorSet | Decoration::Binding)
            });
            m.set_name(v, format!("{name}[{k}]"));
            vars.push(v);
            bindings.push(binding);
        }
        m.list_beside(var, &vars);
        split.push(SplitArray {
            name,
            group: set,
            bindings,
            vars: vars.clone(),
        });
        elements.insert(var, vars);
    }
    rewrite_chains(m, &elements)?;
    m.remove_globals(|v| elements.contains_key(&v));
    Ok(split)
}

/// Whether an image atomic uses an element of the image array `var`.
pub(crate) fn elements_used_atomically(m: &Model, var: Word) -> bool {
    m.instructions().any(|i| {
        i.class.opcode == Op::ImageTexelPointer
            && i.operands
                .first()
                .and_then(id)
                .and_then(|c| m.def(c))
                .and_then(|c| c.operands.first().and_then(id))
                == Some(var)
    })
}

/// Whether `var` is an array of storage images declared without a format.
pub(crate) fn of_formatless_images(m: &Model, var: Word) -> bool {
    m.pointee(var)
        .and_then(|(_, t)| m.global(t))
        .and_then(|t| t.operands.first().and_then(id))
        .and_then(|e| m.global(e))
        .is_some_and(|img| {
            img.class.opcode == Op::TypeImage
                && img.operands.get(5) == Some(&Operand::LiteralBit32(2))
                && img.operands.get(6)
                    == Some(&Operand::ImageFormat(rspirv::spirv::ImageFormat::Unknown))
        })
}

/// Whether the array `var` of `what`, indexed at run time, stays whole as a
/// wgpu binding array: of textures and samplers, and of storage images that
/// no image atomic uses (those are texel buffers, one per element, so only
/// split arrays hold them). Formatless ones take the format of what is
/// bound ([`crate::lower::spirv::formatless::formatless_storage_images`]).
pub(crate) fn binds_whole(m: &Model, var: Word, what: &str) -> bool {
    match what {
        // Arrays of buffer blocks of a few elements were switches over
        // them (array_switch): the rest are binding arrays of buffers.
        "texture" | "sampler" | "buffer block" => true,
        "image" => !elements_used_atomically(m, var),
        _ => false,
    }
}

/// The arrays indexed by a value known only at run time, or without a size
/// (of textures and samplers: the rest are refused). An array used other
/// than through an access chain, or at a constant index past its length, is
/// refused too.
fn indexed_at_run_time(
    m: &Model,
    found: &[(Word, StorageClass, Word, Option<u32>, &'static str)],
) -> Result<std::collections::HashSet<Word>> {
    let arrays: HashMap<Word, (Option<u32>, &str)> =
        found.iter().map(|f| (f.0, (f.3, f.4))).collect();
    let mut dynamic: std::collections::HashSet<Word> = found
        .iter()
        .filter(|f| f.3.is_none())
        .map(|f| f.0)
        .collect();
    for inst in m.instructions() {
        let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
        for (k, op) in inst.operands.iter().enumerate() {
            let Some(&(len, what)) = id(op).and_then(|v| arrays.get(&v)) else {
                continue;
            };
            let var = id(op).unwrap_or(0);
            let name = m.label(var);
            if !chain || k != 0 {
                return Err(Error::Unsupported(format!(
                    "the {what} array `{name}` is used whole (Op{:?}): atomport binds arrays of resources element by element; use the elements one by one",
                    inst.class.opcode
                )));
            }
            match inst.operands.get(1).and_then(id).map(|i| m.constant_u32(i)) {
                Some(Some(i)) if len.is_none_or(|n| i < n) => {}
                Some(Some(i)) => {
                    return Err(Error::shader(format!(
                        "element {i} of the {what} array `{name}` is past its {} elements",
                        len.unwrap_or(0)
                    )));
                }
                _ => {
                    dynamic.insert(var);
                }
            }
        }
    }
    for &var in &dynamic {
        let (len, what) = arrays[&var];
        // An unsized array of images used atomically is a binding array
        // of texel buffers ([`super::image`]).
        if !(binds_whole(m, var, what) || len.is_none() && what == "image") {
            let name = m.label(var);
            let why = if len.is_none() {
                "has no size"
            } else {
                "is indexed by a value known only at run time"
            };
            return Err(Error::Unsupported(format!(
                "the {what} array `{name}` {why}: atomport binds such arrays of textures, samplers, buffer blocks and storage images (used atomically only when unsized) as wgpu binding arrays, and switches over the elements of other resource arrays of up to {} elements",
                super::array_switch::MAX_SWITCHED
            )));
        }
    }
    Ok(dynamic)
}

/// Makes every access chain into a split array start at the element its
/// first index names: a chain to the element itself becomes the element's
/// variable (its uses renamed), a longer one keeps the rest of its indices.
fn rewrite_chains(m: &mut Model, elements: &HashMap<Word, Vec<Word>>) -> Result<()> {
    // chain result -> the element variable it names
    let mut renamed: HashMap<Word, Word> = HashMap::default();
    m.rewrite(|e, inst| {
        let base = inst.operands.first().and_then(id);
        if let Some(vars) = base.and_then(|b| elements.get(&b)) {
            let k = inst
                .operands
                .get(1)
                .and_then(id)
                .and_then(|i| e.m.constant_u32(i))
                .ok_or_else(|| {
                    Error::Internal("a split array's index is no longer a constant".into())
                })?;
            let v = vars[k as usize];
            if inst.operands.len() == 2 {
                if let Some(r) = inst.result_id {
                    renamed.insert(r, v);
                }
            } else {
                let mut chain = inst.clone();
                chain.operands.splice(0..2, [Operand::IdRef(v)]);
                e.push(chain);
            }
            return Ok(true);
        }
        if !inst
            .operands
            .iter()
            .any(|o| id(o).is_some_and(|i| renamed.contains_key(&i)))
        {
            return Ok(false);
        }
        let mut out = inst.clone();
        for o in &mut out.operands {
            if let Some(&v) = id(o).and_then(|i| renamed.get(&i)) {
                *o = Operand::IdRef(v);
            }
        }
        e.push(out);
        Ok(true)
    })?;
    Ok(())
}

/// The descriptor sets holding an array of images, samplers or combined
/// samplers (a binding array once the passes are done).
pub(crate) fn sets_with_binding_arrays(m: &Model) -> std::collections::HashSet<u32> {
    m.variables()
        .filter(|&(_, class, pointee)| {
            m.global(pointee).is_some_and(|t| {
                let element = t.operands.first().and_then(id).unwrap_or(0);
                // Arrays of textures, samplers, storage images and buffer
                // blocks left whole; combined samplers (not split yet).
                let resource = kind(m, class, element).is_some()
                    || m.op_of(element) == Some(Op::TypeSampledImage);
                matches!(t.class.opcode, Op::TypeArray | Op::TypeRuntimeArray) && resource
            })
        })
        .map(|(v, _, _)| m.slot(v).0)
        .collect()
}

/// The set for a uniform buffer atomport adds (a push-constant block's):
/// `wanted`, unless it holds a binding array, then the first set after
/// every one in use (see [`uniforms_apart_from_binding_arrays`]).
pub(crate) fn set_for_uniforms(m: &Model, wanted: u32) -> u32 {
    let arrays = sets_with_binding_arrays(m);
    if !arrays.contains(&wanted) {
        return wanted;
    }
    m.variables()
        .filter_map(|(v, _, _)| m.decoration(v, Decoration::DescriptorSet))
        .max()
        .map_or(0, |s| s + 1)
}

/// wgpu binds no uniform buffer in a bind group that holds a binding array
/// (its Vulkan backend makes such groups update-after-bind, which uniform
/// buffers may not be): a uniform block declared in the set of an array of
/// textures, samplers or buffer blocks moves, keeping its binding number, to the first set
/// after every one in use. The binding map shows where it went; binding by
/// name is unchanged. Runs for the translation and the native module alike.
pub fn uniforms_apart_from_binding_arrays(m: &mut Model) {
    let arrays = sets_with_binding_arrays(m);
    if arrays.is_empty() {
        return;
    }
    let moved: Vec<Word> = m
        .variables()
        .filter(|&(v, class, pointee)| {
            class == StorageClass::Uniform
                && m.has_decoration(pointee, Decoration::Block)
                && arrays.contains(&m.slot(v).0)
        })
        .map(|(v, _, _)| v)
        .collect();
    if moved.is_empty() {
        return;
    }
    let set = m
        .variables()
        .filter_map(|(v, _, _)| m.decoration(v, Decoration::DescriptorSet))
        .max()
        .map_or(0, |s| s + 1);
    for v in moved {
        m.module_mut().annotations.retain(|a| {
            !(a.class.opcode == Op::Decorate
                && a.operands.first().and_then(id) == Some(v)
                && matches!(
                    a.operands.get(1),
                    Some(Operand::Decoration(Decoration::DescriptorSet))
                ))
        });
        m.decorate(v, Decoration::DescriptorSet, &[set]);
    }
}
