//! SPIR-V pass: two blocks declared at one (set, binding) alias one buffer
//! (a raw view and a typed view of the same memory, as sorters and
//! compactors declare them). WGSL binds one resource per binding, so every
//! alias after the first moves to a binding of its own above every binding
//! the set uses; the runtime binds the one buffer given to all of them.
//! Unsized arrays of images or of buffer blocks declared at one binding (a
//! bindless "mega set": `image2D Images[]` and `uimage2D UImages[]`, or
//! blocks of several types, over one descriptor array, each element read
//! through the array of its type) move the same way: the runtime puts each
//! element into the array whose type fits it and a stand-in into the
//! others. Two resources of other kinds (or a
//! uniform block with a storage buffer) at one binding are refused, naming
//! both. (OpenGL GLSL's shared numbers are the OpenGL pass's to sort.)

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::Model;
use crate::{Error, Result};

/// A buffer block (or an unsized array of images or blocks) declared at
/// the binding of another one, moved to a binding of its own: the runtime
/// binds the buffer given for either to both (an array's elements to the
/// array whose type fits each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The descriptor set (WGSL group).
    pub group: u32,
    /// The binding it now has.
    pub binding: u32,
    /// The binding it was declared at, which it shares.
    pub of: u32,
}

/// Moves every alias to a binding of its own; returns the moves.
pub fn alias_shared_bindings(m: &mut Model) -> Result<Vec<Alias>> {
    // A block without an instance name is known by its type's name.
    let label = |m: &Model, v: Word| {
        let block = m.pointee(v).and_then(|(_, t)| m.name(t));
        match m.name(v).or(block) {
            Some(n) => format!("`{n}`"),
            None => format!("%{v}"),
        }
    };
    // The storage class of a buffer block variable (a Uniform-class
    // variable is a block only if its type is a struct, never an image).
    let buffer_class = |m: &Model, v: Word| -> Option<StorageClass> {
        let (class, t) = m.pointee(v)?;
        (matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform)
            && m.op_of(t) == Some(Op::TypeStruct))
        .then_some(class)
    };
    // What an unsized array holds: separate images, storage (2) or sampled
    // (1), or buffer blocks of a storage class.
    let unsized_array = |m: &Model, v: Word| -> Option<(Op, u32)> {
        let (class, t) = m.pointee(v)?;
        let array = m.global(t)?;
        if array.class.opcode != Op::TypeRuntimeArray {
            return None;
        }
        let Some(Operand::IdRef(e)) = array.operands.first() else {
            return None;
        };
        let element = m.global(*e)?;
        match (element.class.opcode, element.operands.get(5), class) {
            (Op::TypeImage, Some(Operand::LiteralBit32(sampled)), _) => {
                Some((Op::TypeImage, *sampled))
            }
            (Op::TypeStruct, _, StorageClass::StorageBuffer | StorageClass::Uniform) => {
                Some((Op::TypeStruct, class as u32))
            }
            _ => None,
        }
    };
    let mut vars: Vec<(Word, u32, u32)> = m
        .variables()
        .filter_map(|(v, _, _)| {
            let b = m.decoration(v, Decoration::Binding)?;
            Some((
                v,
                m.decoration(v, Decoration::DescriptorSet).unwrap_or(0),
                b,
            ))
        })
        .collect();
    vars.sort_unstable();
    let mut seen: HashMap<(u32, u32), Word> = HashMap::default();
    let mut free = m.free_bindings();
    let mut moves: Vec<(Word, Alias)> = Vec::new();
    for (var, set, binding) in vars {
        let Some(&other) = seen.get(&(set, binding)) else {
            seen.insert((set, binding), var);
            continue;
        };
        let (a, b) = (buffer_class(m, other), buffer_class(m, var));
        let (i, j) = (unsized_array(m, other), unsized_array(m, var));
        if (a.is_none() || a != b) && (i.is_none() || i != j) {
            return Err(Error::Unsupported(format!(
                "{} and {} are both at set {set} binding {binding}: WebGPU binds one resource per binding, and only buffer blocks of one kind (or unsized arrays of images of one kind, storage or sampled, or of buffer blocks of one kind) can share one; give one another binding",
                label(m, other),
                label(m, var)
            )));
        }
        let alias = Alias {
            group: set,
            binding: free.take(set)?,
            of: binding,
        };
        moves.push((var, alias));
    }
    if moves.is_empty() {
        return Ok(Vec::new());
    }
    for a in &mut m.module_mut().annotations {
        if let [
            Operand::IdRef(t),
            Operand::Decoration(Decoration::Binding),
            Operand::LiteralBit32(v),
        ] = a.operands.as_mut_slice()
            && let Some((_, alias)) = moves.iter().find(|(var, _)| var == t)
        {
            *v = alias.binding;
        }
    }
    Ok(moves.into_iter().map(|(_, a)| a).collect())
}

/// The blocks of each class of `aliases` (as [`alias_shared_bindings`]
/// made them, after any renumbering): the block keeping the declared
/// binding first, then those moved off it. Image arrays are not blocks:
/// their aliases are left out.
pub fn alias_classes(m: &Model, aliases: Vec<Alias>) -> Vec<Vec<Word>> {
    let at = |group: u32, binding: u32| {
        m.variables().map(|(v, _, _)| v).find(|&v| {
            m.slot(v) == (group, binding) && m.decoration(v, Decoration::Binding).is_some()
        })
    };
    let mut classes: Vec<((u32, u32), Vec<Word>)> = Vec::new();
    for a in aliases {
        let (Some(first), Some(moved)) = (at(a.group, a.of), at(a.group, a.binding)) else {
            continue;
        };
        let block = |v: Word| {
            m.pointee(v)
                .is_some_and(|(_, t)| m.op_of(t) == Some(Op::TypeStruct))
        };
        if !block(first) || !block(moved) {
            continue;
        }
        match classes.iter_mut().find(|(k, _)| *k == (a.group, a.of)) {
            Some((_, c)) => c.push(moved),
            None => classes.push(((a.group, a.of), vec![first, moved])),
        }
    }
    classes.into_iter().map(|(_, c)| c).collect()
}
