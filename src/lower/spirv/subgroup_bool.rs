//! SPIR-V pass: subgroup operations on booleans, which GLSL allows
//! (`subgroupBroadcastFirst(flag)`, `subgroupAnd(b)`, `subgroupShuffle(b,
//! id)`, `allInvocationsEqualARB(b)`) and WGSL does not (its subgroup
//! built-ins take numbers: naga's validator says `Operand has invalid
//! type`), run on `0u`/`1u` and are compared back: `op(b ? 1u : 0u) != 0u`,
//! with the logical reductions as the bitwise ones, which mean the same on
//! zeros and ones. Runs after the other subgroup passes, whose rewrites
//! make some of these (`subgroupAllEqual` broadcasts its operand).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use crate::Result;
use crate::lower::model::{Model, id, with_ids};

/// Where the value is among `op`'s operands, and the op on numbers.
pub(super) fn on_numbers(op: Op) -> Option<(usize, Op)> {
    Some(match op {
        Op::GroupNonUniformBroadcast
        | Op::GroupNonUniformBroadcastFirst
        | Op::GroupNonUniformShuffle
        | Op::GroupNonUniformShuffleXor
        | Op::GroupNonUniformShuffleUp
        | Op::GroupNonUniformShuffleDown
        | Op::GroupNonUniformQuadBroadcast
        | Op::GroupNonUniformQuadSwap => (1, op),
        Op::GroupNonUniformLogicalAnd => (2, Op::GroupNonUniformBitwiseAnd),
        Op::GroupNonUniformLogicalOr => (2, Op::GroupNonUniformBitwiseOr),
        Op::GroupNonUniformLogicalXor => (2, Op::GroupNonUniformBitwiseXor),
        _ => return None,
    })
}

/// Whether `ty` is `bool` or a vector of them.
fn boolean(m: &Model, ty: Word) -> bool {
    m.op_of(m.scalar_of(ty)) == Some(Op::TypeBool)
}

/// Rewrites every subgroup operation on booleans; returns how many.
pub fn lower_boolean_subgroup_operations(m: &mut Model) -> Result<usize> {
    let of_bool = |m: &Model, i: &Instruction| {
        on_numbers(i.class.opcode).is_some() && i.result_type.is_some_and(|t| boolean(m, t))
    };
    // (bool type, its uint type) for every width used.
    let mut types = Vec::new();
    for i in m.instructions() {
        if of_bool(m, i)
            && let Some(t) = i.result_type
            && !types.iter().any(|(b, _)| *b == t)
        {
            types.push((t, 0));
        }
    }
    if types.is_empty() {
        return Ok(0);
    }
    let uint = m.uint();
    for (b, u) in &mut types {
        let n = m.components(*b);
        *u = if n == 1 { uint } else { m.vector_type(uint, n) };
    }
    m.rewrite(|e, inst| {
        if !of_bool(e.m, inst) {
            return Ok(false);
        }
        let (Some((at, op)), Some(ty)) = (on_numbers(inst.class.opcode), inst.result_type) else {
            return Ok(false);
        };
        let Some(value) = inst.operands.get(at).and_then(id) else {
            return Ok(false);
        };
        let Some(&(_, uty)) = types.iter().find(|(b, _)| *b == ty) else {
            return Ok(false);
        };
        let (zero, one) = (e.constant(uint, 0), e.constant(uint, 1));
        let (zero, one) = if uty == uint {
            (zero, one)
        } else {
            let n = e.m.components(uty) as usize;
            (
                e.op(Op::CompositeConstruct, uty, &vec![zero; n]),
                e.op(Op::CompositeConstruct, uty, &vec![one; n]),
            )
        };
        let number = e.op(Op::Select, uty, &[value, one, zero]);
        let mut on = Instruction::new(op, Some(uty), Some(e.fresh()), inst.operands.clone());
        on.operands[at] = Operand::IdRef(number);
        let r = on.result_id;
        e.push(on);
        e.push(with_ids(
            Op::INotEqual,
            Some(ty),
            inst.result_id,
            &[r.unwrap_or(0), zero],
        ));
        Ok(true)
    })
}
