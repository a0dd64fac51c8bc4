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

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, Word};

use super::spirv::{Defs, Rewriter, all_function_instructions, id, result_types};
use crate::{Error, Result};

/// The name of a wrapper's first member, the array element proper.
pub(crate) const WRAPPED_VALUE: &str = "value";

/// Wraps the elements of every padded array; returns how many arrays.
pub fn pad_strided_arrays(module: &mut Module) -> Result<usize> {
    let defs = Defs::new(module);
    // array -> (element, element size, stride)
    let mut arrays: HashMap<Word, (Word, u32, u32)> = HashMap::new();
    let strides = super::spirv::array_strides(module);
    for i in &module.types_global_values {
        if !matches!(i.class.opcode, Op::TypeArray | Op::TypeRuntimeArray) {
            continue;
        }
        let (Some(array), Some(element)) = (i.result_id, i.operands.first().and_then(id)) else {
            continue;
        };
        let Some(&stride) = strides.get(&array) else {
            continue;
        };
        let Some(size) = scalar_or_vector_size(&defs, element) else {
            continue;
        };
        if stride > size && stride % 4 == 0 && size % 4 == 0 && stride <= 256 {
            arrays.insert(array, (element, size, stride));
        }
    }
    if arrays.is_empty() {
        return Ok(0);
    }
    refuse_whole_copies(module, &defs, &arrays)?;
    let mut rw = Rewriter::new(module);
    let mut wrappers: HashMap<Word, Word> = HashMap::new();
    let mut sorted: Vec<_> = arrays.iter().map(|(a, v)| (*a, *v)).collect();
    sorted.sort_unstable();
    // Padding members and the index that selects a wrapper's value: uint,
    // declared first.
    let uint = rw.uint_type_at_start();
    for (array, (element, size, stride)) in sorted {
        let wrapper = rw.fresh();
        let pads = (stride - size) / 4;
        let mut members = vec![Operand::IdRef(element)];
        members.extend((0..pads).map(|_| Operand::IdRef(uint)));
        rw.insert_before(
            array,
            Instruction::new(Op::TypeStruct, None, Some(wrapper), members),
        );
        // Named so the binding map sees through it: `value` and padding.
        rw.module.debug_names.push(Instruction::new(
            Op::MemberName,
            None,
            None,
            vec![
                Operand::IdRef(wrapper),
                Operand::LiteralBit32(0),
                Operand::LiteralString(WRAPPED_VALUE.into()),
            ],
        ));
        for m in 0..=pads {
            if m > 0 {
                rw.module.debug_names.push(Instruction::new(
                    Op::MemberName,
                    None,
                    None,
                    vec![
                        Operand::IdRef(wrapper),
                        Operand::LiteralBit32(m),
                        Operand::LiteralString(format!("{}{}", super::layout::PADDING, m - 1)),
                    ],
                ));
            }
            let offset = if m == 0 { 0 } else { size + 4 * (m - 1) };
            rw.module.annotations.push(Instruction::new(
                Op::MemberDecorate,
                None,
                None,
                vec![
                    Operand::IdRef(wrapper),
                    Operand::LiteralBit32(m),
                    Operand::Decoration(Decoration::Offset),
                    Operand::LiteralBit32(offset),
                ],
            ));
        }
        rw.set_operand(array, 0, wrapper);
        wrappers.insert(array, wrapper);
    }
    // The index 0 that selects a wrapper's value, right after the uint type.
    let zero = rw.fresh();
    let at = rw.position(uint).map_or(0, |p| p + 1);
    rw.module.types_global_values.insert(
        at,
        Instruction::new(
            Op::Constant,
            Some(uint),
            Some(zero),
            vec![Operand::LiteralBit32(0)],
        ),
    );
    let types = result_types(rw.module);
    for f in &mut rw.module.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                    continue;
                }
                let Some(base) = inst.operands.first().and_then(id) else {
                    continue;
                };
                let Some((_, mut ty)) = types.get(&base).and_then(|p| defs.pointer(*p)) else {
                    continue;
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
                    match id(op).and_then(|index| step(&defs, ty, index)) {
                        Some(next) => ty = next,
                        None => known = false,
                    }
                }
                inst.operands = out;
            }
        }
    }
    Ok(wrappers.len())
}

/// The type an access-chain index selects from `ty`.
fn step(defs: &Defs, ty: Word, index: Word) -> Option<Word> {
    let t = defs.globals.get(&ty)?;
    match t.class.opcode {
        Op::TypeStruct => {
            let k = defs.constant_u32(index)? as usize;
            t.operands.get(k).and_then(id)
        }
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
            t.operands.first().and_then(id)
        }
        _ => None,
    }
}

/// Bytes of a 32-bit scalar or a vector of them.
fn scalar_or_vector_size(defs: &Defs, ty: Word) -> Option<u32> {
    let t = defs.globals.get(&ty)?;
    match (t.class.opcode, t.operands.as_slice()) {
        (Op::TypeInt | Op::TypeFloat, [Operand::LiteralBit32(32), ..]) => Some(4),
        (Op::TypeVector, [Operand::IdRef(s), Operand::LiteralBit32(n)]) => {
            scalar_or_vector_size(defs, *s)?.checked_mul(*n)
        }
        _ => None,
    }
}

/// A load, store or copy of a value that holds a padded array would see the
/// wrapper structs: refused, naming what to do instead.
fn refuse_whole_copies(
    module: &Module,
    defs: &Defs,
    arrays: &HashMap<Word, (Word, u32, u32)>,
) -> Result<()> {
    // Every type that holds a padded array.
    let mut holders: HashSet<Word> = arrays.keys().copied().collect();
    loop {
        let before = holders.len();
        for i in &module.types_global_values {
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
    let types = result_types(module);
    let pointee = |p: Word| types.get(&p).and_then(|t| defs.pointer(*t)).map(|x| x.1);
    for i in all_function_instructions(module) {
        let copied = match i.class.opcode {
            Op::Load => i.result_type,
            Op::Store => i.operands.first().and_then(id).and_then(pointee),
            Op::CopyMemory | Op::CopyMemorySized => {
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
