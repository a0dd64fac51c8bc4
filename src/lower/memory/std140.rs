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

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};

use crate::Result;
use crate::lower::model::{Model, id, with_ids};

/// The name of a wrapper's first member, the array element proper.
pub(crate) const WRAPPED_VALUE: &str = "value";

/// Every array whose stride is wider than its element: array -> (element,
/// element size, stride).
fn padded_arrays(m: &Model) -> HashMap<Word, (Word, u32, u32)> {
    let mut arrays = HashMap::default();
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
    let mut sorted: Vec<_> = arrays.iter().map(|(a, v)| (*a, *v)).collect();
    sorted.sort_unstable();
    // Padding members and the index that selects a wrapper's value.
    let uint = m.uint();
    let zero = m.constant(uint, 0);
    let mut wrappers = HashMap::default();
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
        wrappers.insert(array, (wrapper, pads));
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
    whole_values(m, &wrappers, zero)?;
    Ok(sorted.len())
}

/// Whole values that hold a padded array (`float w[8] = ubo.weights;`, a
/// struct of one loaded at once, glslang's element-wise copies of them)
/// hold the wrappers now: an extract or insert through a padded array
/// selects the wrapper's value too, and a padded array built from its
/// elements wraps each one (its padding zero). `wrappers`: padded array
/// -> (wrapper struct, padding words).
fn whole_values(m: &mut Model, wrappers: &HashMap<Word, (Word, u32)>, zero: Word) -> Result<()> {
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        if op == Op::CompositeConstruct {
            let Some(&(wrapper, pads)) = inst.result_type.and_then(|t| wrappers.get(&t)) else {
                return Ok(false);
            };
            let mut elements = Vec::new();
            for c in inst.operands.iter().filter_map(id) {
                let mut parts = vec![c];
                parts.extend((0..pads).map(|_| zero));
                elements.push(e.op(Op::CompositeConstruct, wrapper, &parts));
            }
            e.push(with_ids(op, inst.result_type, inst.result_id, &elements));
            return Ok(true);
        }
        // The composite and where its indices start.
        let (composite, first) = match op {
            Op::CompositeExtract => (inst.operands.first().and_then(id), 1),
            Op::CompositeInsert => (inst.operands.get(1).and_then(id), 2),
            _ => return Ok(false),
        };
        let Some(mut ty) = composite.and_then(|c| e.m.result_type(c)) else {
            return Ok(false);
        };
        let mut out = inst.operands[..first].to_vec();
        for o in &inst.operands[first..] {
            out.push(o.clone());
            let Operand::LiteralBit32(k) = o else {
                return Ok(false);
            };
            if wrappers.contains_key(&ty) {
                out.push(Operand::LiteralBit32(0));
            }
            // Past a padded array's index: its wrapper's value.
            let next =
                e.m.component(ty, *k)
                    .ok()
                    .and_then(|t| match wrappers.contains_key(&ty) {
                        true => e.m.component(t, 0).ok(),
                        false => Some(t),
                    });
            match next {
                Some(next) => ty = next,
                None => return Ok(false),
            }
        }
        if out.len() == inst.operands.len() {
            return Ok(false);
        }
        let mut new = inst.clone();
        new.operands = out;
        e.push(new);
        Ok(true)
    })?;
    Ok(())
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
