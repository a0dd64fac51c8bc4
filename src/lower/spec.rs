//! SPIR-V pass: specialization constants folded to their default values.
//!
//! naga reads plain `OpSpecConstant`s as WGSL `override`s, but rejects
//! `OpSpecConstantOp` (`const uint N = BINS * 2u;`) and ignores a
//! `WorkgroupSize` built-in made of spec constants (`local_size_x_id`). When a
//! module has either, every specialization constant becomes a constant with
//! its default value, the integer and boolean expressions over them are
//! evaluated here, and the workgroup size is written into the entry point's
//! `LocalSize`.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, Op, Word};

use super::spirv::id;
use crate::{Error, Result};

/// Folds the module's specialization constants if naga could not read them;
/// returns how many it folded.
pub fn fold_specialization_constants(module: &mut Module) -> Result<usize> {
    let workgroup_size: Option<Word> =
        module
            .annotations
            .iter()
            .find_map(|a| match a.operands.as_slice() {
                [
                    Operand::IdRef(t),
                    Operand::Decoration(Decoration::BuiltIn),
                    Operand::BuiltIn(BuiltIn::WorkgroupSize),
                ] => Some(*t),
                _ => None,
            });
    let is_spec = |op: Op| {
        matches!(
            op,
            Op::SpecConstant
                | Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::SpecConstantComposite
                | Op::SpecConstantOp
        )
    };
    let needs = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::SpecConstantOp
            || (i.result_id == workgroup_size && i.class.opcode == Op::SpecConstantComposite)
    });
    if !needs {
        return Ok(0);
    }
    // Scalar values of constants, as 64-bit patterns (bools as 0/1).
    let mut values: HashMap<Word, u64> = HashMap::new();
    let mut composites: HashMap<Word, Vec<Word>> = HashMap::new();
    let mut folded = 0;
    for inst in module.types_global_values.iter_mut() {
        let Some(r) = inst.result_id else { continue };
        let op = inst.class.opcode;
        match op {
            Op::Constant | Op::SpecConstant => {
                if let Some(Operand::LiteralBit32(v)) = inst.operands.first() {
                    values.insert(r, *v as u64);
                }
                if op == Op::SpecConstant {
                    *inst = Instruction::new(
                        Op::Constant,
                        inst.result_type,
                        Some(r),
                        inst.operands.clone(),
                    );
                    folded += 1;
                }
            }
            Op::ConstantTrue | Op::SpecConstantTrue => {
                values.insert(r, 1);
                if op == Op::SpecConstantTrue {
                    *inst = Instruction::new(Op::ConstantTrue, inst.result_type, Some(r), vec![]);
                    folded += 1;
                }
            }
            Op::ConstantFalse | Op::SpecConstantFalse => {
                values.insert(r, 0);
                if op == Op::SpecConstantFalse {
                    *inst = Instruction::new(Op::ConstantFalse, inst.result_type, Some(r), vec![]);
                    folded += 1;
                }
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                composites.insert(r, inst.operands.iter().filter_map(id).collect());
                if op == Op::SpecConstantComposite {
                    *inst = Instruction::new(
                        Op::ConstantComposite,
                        inst.result_type,
                        Some(r),
                        inst.operands.clone(),
                    );
                    folded += 1;
                }
            }
            Op::SpecConstantOp => {
                let Some(Operand::LiteralSpecConstantOpInteger(inner)) = inst.operands.first()
                else {
                    return Err(Error::Unsupported("a malformed OpSpecConstantOp".into()));
                };
                let args: Vec<Word> = inst.operands[1..].iter().filter_map(id).collect();
                let get = |k: usize| args.get(k).and_then(|a| values.get(a)).copied();
                let (a, b, c) = (get(0), get(1), get(2));
                let value = eval(*inner, a, b, c).ok_or_else(|| {
                    Error::Unsupported(format!(
                        "the specialization constant expression {inner:?} cannot be folded"
                    ))
                })?;
                values.insert(r, value as u32 as u64);
                let is_bool = matches!(
                    inner,
                    Op::IEqual
                        | Op::INotEqual
                        | Op::ULessThan
                        | Op::SLessThan
                        | Op::UGreaterThan
                        | Op::SGreaterThan
                        | Op::ULessThanEqual
                        | Op::SLessThanEqual
                        | Op::UGreaterThanEqual
                        | Op::SGreaterThanEqual
                        | Op::LogicalAnd
                        | Op::LogicalOr
                        | Op::LogicalNot
                        | Op::LogicalEqual
                        | Op::LogicalNotEqual
                );
                *inst = if is_bool {
                    Instruction::new(
                        if value != 0 {
                            Op::ConstantTrue
                        } else {
                            Op::ConstantFalse
                        },
                        inst.result_type,
                        Some(r),
                        vec![],
                    )
                } else {
                    Instruction::new(
                        Op::Constant,
                        inst.result_type,
                        Some(r),
                        vec![Operand::LiteralBit32(value as u32)],
                    )
                };
                folded += 1;
            }
            _ => {}
        }
        debug_assert!(!is_spec(inst.class.opcode));
    }
    module.annotations.retain(|a| {
        !matches!(
            a.operands.get(1),
            Some(Operand::Decoration(Decoration::SpecId))
        )
    });
    // The WorkgroupSize built-in wins over LocalSize: write it there.
    if let Some(size) = workgroup_size.and_then(|w| composites.get(&w)) {
        let dims: Vec<u32> = size
            .iter()
            .map(|c| values.get(c).copied().unwrap_or(1) as u32)
            .collect();
        for m in module.execution_modes.iter_mut() {
            if m.operands.get(1) == Some(&Operand::ExecutionMode(ExecutionMode::LocalSize))
                && dims.len() == 3
            {
                m.operands.truncate(2);
                m.operands
                    .extend(dims.iter().map(|d| Operand::LiteralBit32(*d)));
            }
        }
    }
    Ok(folded)
}

/// Evaluates an integer or boolean specialization constant operation on
/// 32-bit patterns.
fn eval(op: Op, a: Option<u64>, b: Option<u64>, c: Option<u64>) -> Option<u64> {
    let (ua, ub) = (a.map(|v| v as u32), b.map(|v| v as u32));
    let (sa, sb) = (ua.map(|v| v as i32), ub.map(|v| v as i32));
    let bool_ = |x: bool| x as u64;
    Some(match op {
        Op::IAdd => ua?.wrapping_add(ub?) as u64,
        Op::ISub => ua?.wrapping_sub(ub?) as u64,
        Op::IMul => ua?.wrapping_mul(ub?) as u64,
        Op::UDiv => ua?.checked_div(ub?)? as u64,
        Op::SDiv => sa?.checked_div(sb?)? as u32 as u64,
        Op::UMod => ua?.checked_rem(ub?)? as u64,
        Op::SRem | Op::SMod => sa?.checked_rem(sb?)? as u32 as u64,
        Op::SNegate => sa?.wrapping_neg() as u32 as u64,
        Op::Not => (!ua?) as u64,
        Op::ShiftLeftLogical => ua?.wrapping_shl(ub?) as u64,
        Op::ShiftRightLogical => ua?.wrapping_shr(ub?) as u64,
        Op::ShiftRightArithmetic => sa?.wrapping_shr(ub?) as u32 as u64,
        Op::BitwiseAnd => (ua? & ub?) as u64,
        Op::BitwiseOr => (ua? | ub?) as u64,
        Op::BitwiseXor => (ua? ^ ub?) as u64,
        Op::IEqual | Op::LogicalEqual => bool_(ua? == ub?),
        Op::INotEqual | Op::LogicalNotEqual => bool_(ua? != ub?),
        Op::ULessThan => bool_(ua? < ub?),
        Op::SLessThan => bool_(sa? < sb?),
        Op::UGreaterThan => bool_(ua? > ub?),
        Op::SGreaterThan => bool_(sa? > sb?),
        Op::ULessThanEqual => bool_(ua? <= ub?),
        Op::SLessThanEqual => bool_(sa? <= sb?),
        Op::UGreaterThanEqual => bool_(ua? >= ub?),
        Op::SGreaterThanEqual => bool_(sa? >= sb?),
        Op::LogicalAnd => bool_(ua? != 0 && ub? != 0),
        Op::LogicalOr => bool_(ua? != 0 || ub? != 0),
        Op::LogicalNot => bool_(ua? == 0),
        Op::Select => {
            if ua? != 0 {
                b?
            } else {
                c?
            }
        }
        Op::UConvert | Op::SConvert => a?,
        _ => return None,
    })
}
