//! SPIR-V pass (WebGPU target, a device without subgroups): every subgroup
//! operation as it is in a subgroup of one invocation, which Vulkan allows
//! (`subgroupSize` may be 1) and which is exact there:
//!
//! - reductions, inclusive scans, broadcasts, shuffles, quad operations,
//!   `subgroupAll`/`subgroupAny`: the invocation's own value;
//! - exclusive scans: the operation's identity (0, 1, the type's largest or
//!   smallest value, all ones, `true`/`false`);
//! - `subgroupBallot(p)`: `uvec4(p ? 1 : 0, 0, 0, 0)`;
//! - `gl_SubgroupSize` 1, `gl_SubgroupInvocationID` 0, `gl_SubgroupID`
//!   `gl_LocalInvocationIndex`, `gl_NumSubgroups` the workgroup's size (the
//!   numbers read from private variables, never constants WGSL evaluates).
//!
//! It runs after the other subgroup passes, which write the operations
//! naga lacks (elect, bit counts, masks) with these.

use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, ExecutionMode, GroupOperation, Op, Word};

use crate::lower::model::{Emit, Model, id, with_ids};
use crate::{Error, Result};

/// The GLSL words of subgroup operations and built-ins (KHR and ARB), which
/// find the line of the first in a shader.
pub const GLSL_WORDS: &[&str] = &[
    "subgroupAdd",
    "subgroupMul",
    "subgroupMin",
    "subgroupMax",
    "subgroupAnd",
    "subgroupOr",
    "subgroupXor",
    "subgroupInclusiveAdd",
    "subgroupInclusiveMul",
    "subgroupInclusiveMin",
    "subgroupInclusiveMax",
    "subgroupInclusiveAnd",
    "subgroupInclusiveOr",
    "subgroupInclusiveXor",
    "subgroupExclusiveAdd",
    "subgroupExclusiveMul",
    "subgroupExclusiveMin",
    "subgroupExclusiveMax",
    "subgroupExclusiveAnd",
    "subgroupExclusiveOr",
    "subgroupExclusiveXor",
    "subgroupClusteredAdd",
    "subgroupClusteredMul",
    "subgroupClusteredMin",
    "subgroupClusteredMax",
    "subgroupClusteredAnd",
    "subgroupClusteredOr",
    "subgroupClusteredXor",
    "subgroupBallot",
    "subgroupInverseBallot",
    "subgroupBallotBitExtract",
    "subgroupBallotBitCount",
    "subgroupBallotInclusiveBitCount",
    "subgroupBallotExclusiveBitCount",
    "subgroupBallotFindLSB",
    "subgroupBallotFindMSB",
    "subgroupElect",
    "subgroupAll",
    "subgroupAny",
    "subgroupAllEqual",
    "subgroupBroadcast",
    "subgroupBroadcastFirst",
    "subgroupShuffle",
    "subgroupShuffleXor",
    "subgroupShuffleUp",
    "subgroupShuffleDown",
    "subgroupQuadBroadcast",
    "subgroupQuadSwapHorizontal",
    "subgroupQuadSwapVertical",
    "subgroupQuadSwapDiagonal",
    "gl_SubgroupSize",
    "gl_SubgroupInvocationID",
    "gl_SubgroupID",
    "gl_NumSubgroups",
    "gl_SubgroupEqMask",
    "gl_SubgroupGeMask",
    "gl_SubgroupGtMask",
    "gl_SubgroupLeMask",
    "gl_SubgroupLtMask",
    "ballotARB",
    "readInvocationARB",
    "readFirstInvocationARB",
    "anyInvocationARB",
    "allInvocationsARB",
    "allInvocationsEqualARB",
    "gl_SubGroupSizeARB",
    "gl_SubGroupInvocationARB",
];

/// The identity of a subgroup arithmetic operation on a scalar of `width`
/// bits (`float`: a float type), as bits; `None` for a logical operation
/// (whose identity is a boolean).
fn identity(op: Op, width: u32, float: bool) -> Option<u64> {
    let ones = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let float_one = match width {
        16 => 0x3c00,
        64 => 0x3ff0_0000_0000_0000,
        _ => 0x3f80_0000,
    };
    let float_inf = match width {
        16 => 0x7c00,
        64 => 0x7ff0_0000_0000_0000,
        _ => 0x7f80_0000,
    };
    let sign = 1u64 << (width - 1);
    Some(match op {
        Op::GroupNonUniformIAdd
        | Op::GroupNonUniformFAdd
        | Op::GroupNonUniformBitwiseOr
        | Op::GroupNonUniformBitwiseXor
        | Op::GroupNonUniformUMax => 0,
        Op::GroupNonUniformIMul => 1,
        Op::GroupNonUniformFMul => float_one,
        Op::GroupNonUniformUMin | Op::GroupNonUniformBitwiseAnd => ones,
        Op::GroupNonUniformSMin => ones >> 1,
        Op::GroupNonUniformSMax => sign,
        Op::GroupNonUniformFMin if float => float_inf,
        Op::GroupNonUniformFMax if float => float_inf | sign,
        _ => return None,
    })
}

/// Where the value is among `op`'s operands when its one-lane result is
/// that value: the votes, and the broadcasts, shuffles and quad operations
/// (the operations that pass a value along, as the boolean pass lists them;
/// the group operation, for arithmetic, is checked apart).
fn value_operand(op: Op) -> Option<usize> {
    match op {
        Op::GroupNonUniformAll | Op::GroupNonUniformAny => Some(1),
        _ => super::subgroup_bool::on_numbers(op)
            .filter(|&(_, same)| same == op)
            .map(|(k, _)| k),
    }
}

fn arithmetic(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformIAdd
            | Op::GroupNonUniformFAdd
            | Op::GroupNonUniformIMul
            | Op::GroupNonUniformFMul
            | Op::GroupNonUniformSMin
            | Op::GroupNonUniformUMin
            | Op::GroupNonUniformFMin
            | Op::GroupNonUniformSMax
            | Op::GroupNonUniformUMax
            | Op::GroupNonUniformFMax
            | Op::GroupNonUniformBitwiseAnd
            | Op::GroupNonUniformBitwiseOr
            | Op::GroupNonUniformBitwiseXor
            | Op::GroupNonUniformLogicalAnd
            | Op::GroupNonUniformLogicalOr
            | Op::GroupNonUniformLogicalXor
    )
}

/// The workgroup's size when the shader gives it as literals.
fn workgroup_size(m: &Model) -> Option<u32> {
    m.module()
        .execution_modes
        .iter()
        .find_map(|i| match i.operands.as_slice() {
            [
                _,
                Operand::ExecutionMode(ExecutionMode::LocalSize),
                Operand::LiteralBit32(x),
                Operand::LiteralBit32(y),
                Operand::LiteralBit32(z),
            ] => Some(x * y * z),
            _ => None,
        })
}

/// Rewrites every subgroup operation and built-in for subgroups of one
/// invocation; returns how many.
pub fn one_lane_subgroups(m: &mut Model) -> Result<usize> {
    let builtins: Vec<(Word, BuiltIn)> = [
        BuiltIn::SubgroupSize,
        BuiltIn::SubgroupLocalInvocationId,
        BuiltIn::SubgroupId,
        BuiltIn::NumSubgroups,
    ]
    .into_iter()
    .filter_map(|b| Some((m.builtin(b)?, b)))
    .filter(|(v, _)| m.op_of(*v) == Some(Op::Variable))
    .collect();
    let uses = m.instructions().any(|i| {
        let op = i.class.opcode;
        value_operand(op).is_some() || arithmetic(op) || op == Op::GroupNonUniformBallot
    });
    if builtins.is_empty() && !uses {
        return Ok(0);
    }
    let uint = m.uint();
    let (yes, no) = (m.bool_constant(true), m.bool_constant(false));
    let index = if builtins.iter().any(|b| b.1 == BuiltIn::SubgroupId) {
        Some(super::subgroup::builtin_input(
            m,
            uint,
            BuiltIn::LocalInvocationIndex,
        ))
    } else {
        None
    };
    let size = workgroup_size(m);
    // The built-ins' values, read from private variables they initialize:
    // as constants, WGSL would evaluate `gl_SubgroupInvocationID - 1u` to
    // `0u - 1u` when it compiles, and refuse it as an index out of bounds
    // even in a branch that never runs.
    let mut values: Vec<(BuiltIn, Word, Word)> = Vec::new();
    for &(v, which) in &builtins {
        let Some((_, ty)) = m.pointee(v) else {
            continue;
        };
        let value = match which {
            BuiltIn::SubgroupSize => 1,
            BuiltIn::SubgroupLocalInvocationId => 0,
            BuiltIn::NumSubgroups => u64::from(size.ok_or_else(|| {
                Error::Unsupported(
                    "gl_NumSubgroups in subgroups of one invocation needs the workgroup's size as literals".into(),
                )
            })?),
            _ => continue,
        };
        let init = m.constant(ty, value);
        let var = m.private_variable(ty, init);
        values.push((which, var, ty));
    }
    let count = m.rewrite(|e, inst| {
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let op = inst.class.opcode;
        let operand = |k: usize| inst.operands.get(k).and_then(id).unwrap_or(0);
        if let Some(k) = value_operand(op) {
            e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[operand(k)]));
            return Ok(true);
        }
        if op == Op::GroupNonUniformBallot {
            let (zero, one) = (e.constant(uint, 0), e.constant(uint, 1));
            let bit = e.op(Op::Select, uint, &[operand(1), one, zero]);
            e.push(with_ids(
                Op::CompositeConstruct,
                Some(ty),
                Some(r),
                &[bit, zero, zero, zero],
            ));
            return Ok(true);
        }
        if arithmetic(op) {
            let exclusive = matches!(
                inst.operands.get(1),
                Some(Operand::GroupOperation(GroupOperation::ExclusiveScan))
            );
            if !exclusive {
                e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[operand(2)]));
            } else {
                let unit = identity_of(e, op, ty, (yes, no))?;
                e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[unit]));
            }
            return Ok(true);
        }
        let loaded = match (op, inst.operands.first().and_then(id)) {
            (Op::Load, Some(p)) => builtins.iter().find(|(v, _)| *v == p).map(|b| b.1),
            _ => None,
        };
        let Some(which) = loaded else {
            return Ok(false);
        };
        let private = values.iter().find(|v| v.0 == which);
        let value = match private {
            Some(&(_, var, var_ty)) => {
                let v = e.op(Op::Load, var_ty, &[var]);
                if var_ty == ty {
                    v
                } else {
                    e.op(Op::Bitcast, ty, &[v])
                }
            }
            None => {
                let v = e.op(Op::Load, uint, &[index.unwrap_or(0)]);
                if ty == uint {
                    v
                } else {
                    e.op(Op::Bitcast, ty, &[v])
                }
            }
        };
        e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[value]));
        Ok(true)
    })?;
    let vars: Vec<Word> = builtins.iter().map(|b| b.0).collect();
    m.remove_globals(|v| vars.contains(&v));
    Ok(count)
}

/// The identity of `op` as a value of `ty` (a scalar or vector).
fn identity_of(e: &mut Emit, op: Op, ty: Word, (yes, no): (Word, Word)) -> Result<Word> {
    let scalar = e.m.scalar_of(ty);
    let n = e.m.components(ty);
    let one = match e.m.op_of(scalar) {
        Some(Op::TypeBool) => match op {
            Op::GroupNonUniformLogicalAnd => yes,
            _ => no,
        },
        Some(Op::TypeFloat | Op::TypeInt) => {
            let def = e.m.global(scalar).cloned();
            let width = match def.as_ref().and_then(|d| d.operands.first()) {
                Some(Operand::LiteralBit32(w)) => *w,
                _ => 32,
            };
            let float = e.m.op_of(scalar) == Some(Op::TypeFloat);
            let bits = identity(op, width, float).ok_or_else(|| {
                Error::Internal(format!("no identity for {op:?} on {width}-bit values"))
            })?;
            e.constant(scalar, bits)
        }
        _ => {
            return Err(Error::Internal(format!(
                "a subgroup {op:?} on a type that is no number or boolean"
            )));
        }
    };
    Ok(if n == 1 {
        one
    } else {
        let parts = vec![one; n as usize];
        e.op(Op::CompositeConstruct, ty, &parts)
    })
}

#[cfg(test)]
mod tests {
    use super::identity;
    use rspirv::spirv::Op;

    #[test]
    fn identities_leave_every_value_unchanged() {
        // x op identity == x, on the edges of each type.
        for x in [0u32, 1, 7, 0x8000_0000, u32::MAX] {
            let id = |op| identity(op, 32, false).unwrap() as u32;
            assert_eq!(x.wrapping_add(id(Op::GroupNonUniformIAdd)), x);
            assert_eq!(x.wrapping_mul(id(Op::GroupNonUniformIMul)), x);
            assert_eq!(x.min(id(Op::GroupNonUniformUMin)), x);
            assert_eq!(x.max(id(Op::GroupNonUniformUMax)), x);
            assert_eq!(x & id(Op::GroupNonUniformBitwiseAnd), x);
            assert_eq!(x | id(Op::GroupNonUniformBitwiseOr), x);
            assert_eq!(x ^ id(Op::GroupNonUniformBitwiseXor), x);
            let s = x as i32;
            assert_eq!(s.min(id(Op::GroupNonUniformSMin) as i32), s);
            assert_eq!(s.max(id(Op::GroupNonUniformSMax) as i32), s);
        }
        for x in [0.0f32, -0.0, 1.5, -3.0e38, f32::MAX] {
            let id = |op| f32::from_bits(identity(op, 32, true).unwrap() as u32);
            assert_eq!(
                (x + id(Op::GroupNonUniformFAdd)).to_bits(),
                (x + 0.0).to_bits()
            );
            assert_eq!(x * id(Op::GroupNonUniformFMul), x);
            assert_eq!(x.min(id(Op::GroupNonUniformFMin)), x);
            assert_eq!(x.max(id(Op::GroupNonUniformFMax)), x);
        }
        assert_eq!(
            identity(Op::GroupNonUniformSMin, 64, false),
            Some(i64::MAX as u64)
        );
        assert_eq!(identity(Op::GroupNonUniformFMul, 16, true), Some(0x3c00));
    }
}
