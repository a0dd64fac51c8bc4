//! SPIR-V pass: arrays whose stride is wider than their element — std140's
//! `float[N]`, `int[N]`, `vec2[N]` (stride 16), the loose-uniform arrays
//! of OpenGL GLSL among them — keep their stride in WGSL.
//!
//! WGSL has no stride attribute: `array<f32, 3>` always has stride 4, so
//! naga's WGSL writer silently drops a stride of 16 (wrong offsets in a
//! storage buffer; invalid WGSL in a uniform block). The element becomes a
//! struct of the element and padding words, `{ T value; uint pad… }`, whose
//! natural size is the stride, and every access chain that selects an
//! element selects its `value` too (one more index, 0), so loads and stores
//! keep their types.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// The name of a wrapper's first member, the array element proper.
pub(crate) const WRAPPED_VALUE: &str = "value";

/// Every array whose stride is wider than its element: array -> (element,
/// element size, stride).
fn padded_arrays(m: &Model) -> HashMap<Word, (Word, u32, u32)> {
    let mut arrays = HashMap::new();
    for i in &m.module().types_global_values {
        if !matches!(i.class.opcode, Op::TypeArray | Op::TypeRuntimeArray) {
            continue;
        }
        let (Some(array), Some(element)) = (i.result_id, i.operands.first().and_then(id)) else {
            continue;
        };
        let (Some(stride), Some(size)) = (m.array_stride(array), scalar_or_vector_size(m, element))
        else {
            continue;
        };
        if stride > size && stride % 4 == 0 && size % 4 == 0 && stride <= 256 {
            arrays.insert(array, (element, size, stride));
        }
    }
    arrays
}

/// Wraps the elements of every padded array; returns how many arrays.
pub fn pad_strided_arrays(m: &mut Model) -> Result<usize> {
    let arrays = padded_arrays(m);
    if arrays.is_empty() {
        return Ok(0);
    }
    refuse_whole_copies(m, &arrays)?;
    let mut sorted: Vec<_> = arrays.iter().map(|(a, v)| (*a, *v)).collect();
    sorted.sort_unstable();
    // Padding members and the index that selects a wrapper's value.
    let uint = m.uint();
    let zero = m.constant(uint, 0);
    for &(array, (element, size, stride)) in &sorted {
        let pads = (stride - size) / 4;
        let mut members = vec![Operand::IdRef(element)];
        members.extend((0..pads).map(|_| Operand::IdRef(uint)));
        let wrapper = m.add_global(Op::TypeStruct, None, members);
        // Named so the binding map sees through it: `value` and padding.
        for k in 0..=pads {
            let (name, offset) = if k == 0 {
                (WRAPPED_VALUE.to_string(), 0)
            } else {
                (
                    format!("{}{}", crate::lower::ir::layout::PADDING, k - 1),
                    size + 4 * (k - 1),
                )
            };
            m.set_member_name(wrapper, k, name);
            m.member_decorate(wrapper, k, Decoration::Offset, &[offset]);
        }
        m.set_operand(array, 0, wrapper);
    }
    // Every access chain that selects an element of a padded array selects
    // its value too.
    m.rewrite(|e, inst| {
        if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
            return Ok(false);
        }
        let Some((_, mut ty)) = inst
            .operands
            .first()
            .and_then(id)
            .and_then(|b| e.m.pointee(b))
        else {
            return Ok(false);
        };
        let mut out = vec![inst.operands[0].clone()];
        let mut known = true;
        for op in &inst.operands[1..] {
            out.push(op.clone());
            if !known {
                continue;
            }
            if let Some(&(element, _, _)) = arrays.get(&ty) {
                // An element of a padded array: select its value.
                out.push(Operand::IdRef(zero));
                ty = element;
                continue;
            }
            match id(op).map(|index| e.m.step(ty, index)) {
                Some(Ok(next)) => ty = next,
                _ => known = false,
            }
        }
        if out.len() == inst.operands.len() {
            return Ok(false);
        }
        let mut chain = inst.clone();
        chain.operands = out;
        e.push(chain);
        Ok(true)
    })?;
    Ok(sorted.len())
}

/// Bytes of a 32-bit scalar or a vector of them.
fn scalar_or_vector_size(m: &Model, ty: Word) -> Option<u32> {
    let t = m.global(ty)?;
    match (t.class.opcode, t.operands.as_slice()) {
        (Op::TypeInt | Op::TypeFloat, [Operand::LiteralBit32(32), ..]) => Some(4),
        (Op::TypeVector, [Operand::IdRef(s), Operand::LiteralBit32(n)]) => {
            scalar_or_vector_size(m, *s)?.checked_mul(*n)
        }
        _ => None,
    }
}

/// A load, store or copy of a value that holds a padded array would see the
/// wrapper structs: refused, naming what to do instead.
fn refuse_whole_copies(m: &Model, arrays: &HashMap<Word, (Word, u32, u32)>) -> Result<()> {
    // Every type that holds a padded array.
    let mut holders: HashSet<Word> = arrays.keys().copied().collect();
    loop {
        let before = holders.len();
        for i in &m.module().types_global_values {
            if let (Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray, Some(r)) =
                (i.class.opcode, i.result_id)
                && i.operands
                    .iter()
                    .filter_map(id)
                    .any(|o| holders.contains(&o))
            {
                holders.insert(r);
            }
        }
        if holders.len() == before {
            break;
        }
    }
    let pointee = |p: Word| m.pointee(p).map(|x| x.1);
    for i in m.instructions() {
        let copied = match i.class.opcode {
            Op::Load => i.result_type,
            Op::Store | Op::CopyMemory | Op::CopyMemorySized => {
                i.operands.first().and_then(id).and_then(pointee)
            }
            _ => None,
        };
        if copied.is_some_and(|t| holders.contains(&t)) {
            return Err(Error::Unsupported(
                "a whole array whose stride is wider than its element (std140 `float[N]`, `vec2[N]`) is copied at once; WGSL cannot lay it out so: read or write it element by element".into(),
            ));
        }
    }
    Ok(())
}
