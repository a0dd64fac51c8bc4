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
//! An array indexed by a value known only at run time, or without a size,
//! is refused naming what it would need.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::model::{Model, id};
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
}

/// What a resource array holds, for messages.
fn kind(m: &Model, class: StorageClass, element: Word) -> Option<&'static str> {
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
        let name = m.label(var);
        if runtime {
            return Err(Error::Unsupported(format!(
                "the {what} array `{name}` has no size (bindless): WGSL binds one resource per binding, and atomport splits arrays indexed by constants; give it a size and index it with constants"
            )));
        }
        let len = t
            .operands
            .get(1)
            .and_then(id)
            .and_then(|l| m.constant_u32(l))
            .filter(|n| (1..=MAX_ELEMENTS).contains(n))
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "the {what} array `{name}` has a length atomport cannot split (1 to {MAX_ELEMENTS} elements, a constant)"
                ))
            })?;
        found.push((var, class, element, len, what));
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    check_constant_indices(m, &found)?;
    let mut free = m.free_bindings();
    let mut split = Vec::new();
    // array variable -> its element variables
    let mut elements: HashMap<Word, Vec<Word>> = HashMap::new();
    for &(var, class, element, len, _) in &found {
        let (set, first) = m.slot(var);
        let name = m.label(var);
        let ptr = m.pointer_to(class, element);
        // What the array's own decorations say (NonWritable, Coherent, …)
        // holds for each element.
        let kept: Vec<(Decoration, Vec<Operand>)> = m
            .decorations(var)
            .filter(|(d, _)| !matches!(d, Decoration::DescriptorSet | Decoration::Binding))
            .map(|(d, rest)| (d, rest.to_vec()))
            .collect();
        let mut vars = Vec::new();
        let mut bindings = Vec::new();
        for k in 0..len {
            let binding = if k == 0 { first } else { free.take(set)? };
            let v = m.add_global(Op::Variable, Some(ptr), vec![Operand::StorageClass(class)]);
            m.decorate(v, Decoration::DescriptorSet, &[set]);
            m.decorate(v, Decoration::Binding, &[binding]);
            for (d, rest) in &kept {
                let mut operands = vec![Operand::IdRef(v), Operand::Decoration(*d)];
                operands.extend(rest.iter().cloned());
                m.annotate(Instruction::new(Op::Decorate, None, None, operands));
            }
            m.set_name(v, format!("{name}[{k}]"));
            vars.push(v);
            bindings.push(binding);
        }
        // From SPIR-V 1.4 the entry point lists every global it uses.
        for ep in &mut m.module_mut().entry_points {
            if ep.operands.iter().any(|o| id(o) == Some(var)) {
                ep.operands.extend(vars.iter().map(|&v| Operand::IdRef(v)));
            }
        }
        elements.insert(var, vars);
        split.push(SplitArray {
            name,
            group: set,
            bindings,
        });
    }
    rewrite_chains(m, &elements)?;
    m.remove_globals(|v| elements.contains_key(&v));
    Ok(split)
}

/// Refuses an array used other than through an access chain whose first
/// index is a constant within its length.
fn check_constant_indices(
    m: &Model,
    found: &[(Word, StorageClass, Word, u32, &'static str)],
) -> Result<()> {
    let arrays: HashMap<Word, (u32, &str)> = found.iter().map(|f| (f.0, (f.3, f.4))).collect();
    for inst in m.instructions() {
        let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
        for (k, op) in inst.operands.iter().enumerate() {
            let Some(&(len, what)) = id(op).and_then(|v| arrays.get(&v)) else {
                continue;
            };
            let name = m.label(id(op).unwrap_or(0));
            if !chain || k != 0 {
                return Err(Error::Unsupported(format!(
                    "the {what} array `{name}` is used whole (Op{:?}): atomport splits arrays of resources into their elements; use the elements one by one",
                    inst.class.opcode
                )));
            }
            match inst.operands.get(1).and_then(id).map(|i| m.constant_u32(i)) {
                Some(Some(i)) if i < len => {}
                Some(Some(i)) => {
                    return Err(Error::shader(format!(
                        "element {i} of the {what} array `{name}` is past its {len} elements"
                    )));
                }
                _ => {
                    return Err(Error::Unsupported(format!(
                        "the {what} array `{name}` is indexed by a value known only at run time: WGSL binds one resource per binding and wgpu's binding arrays are not used by atomport; index it with constants"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Makes every access chain into a split array start at the element its
/// first index names: a chain to the element itself becomes the element's
/// variable (its uses renamed), a longer one keeps the rest of its indices.
fn rewrite_chains(m: &mut Model, elements: &HashMap<Word, Vec<Word>>) -> Result<()> {
    // chain result -> the element variable it names
    let mut renamed: HashMap<Word, Word> = HashMap::new();
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
