//! SPIR-V pass: clustered subgroup reductions (`subgroupClusteredAdd(x, 4)`
//! and the rest of GL_KHR_shader_subgroup_clustered), which naga's reader
//! refuses (`invalid operand count 7`), become a butterfly of
//! `subgroupShuffleXor`: for offsets 1, 2, 4, … below the cluster size,
//! `x = op(x, subgroupShuffleXor(x, offset))`. After the last step every
//! invocation of an aligned cluster holds the reduction over the cluster,
//! which is what SPIR-V's `ClusteredReduce` gives when the cluster's
//! invocations are active (the only case GLSL defines results for code
//! that reads them all). Integer, bitwise, logical, min and max results
//! are exact; float sums and products may round in another order than the
//! driver's own.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GroupOperation, Op, Word};

use crate::lower::model::{Emit, Model, id, with_ids};
use crate::{Error, Result};

/// GLSL.std.450's FMin, UMin, SMin, FMax, UMax and SMax.
const EXT_MIN_MAX: [(Op, u32); 6] = [
    (Op::GroupNonUniformFMin, 37),
    (Op::GroupNonUniformUMin, 38),
    (Op::GroupNonUniformSMin, 39),
    (Op::GroupNonUniformFMax, 40),
    (Op::GroupNonUniformUMax, 41),
    (Op::GroupNonUniformSMax, 42),
];

/// The plain instruction that combines two values as `op` reduces them.
fn combine(op: Op) -> Option<Op> {
    Some(match op {
        Op::GroupNonUniformIAdd => Op::IAdd,
        Op::GroupNonUniformFAdd => Op::FAdd,
        Op::GroupNonUniformIMul => Op::IMul,
        Op::GroupNonUniformFMul => Op::FMul,
        Op::GroupNonUniformBitwiseAnd => Op::BitwiseAnd,
        Op::GroupNonUniformBitwiseOr => Op::BitwiseOr,
        Op::GroupNonUniformBitwiseXor => Op::BitwiseXor,
        Op::GroupNonUniformLogicalAnd => Op::LogicalAnd,
        Op::GroupNonUniformLogicalOr => Op::LogicalOr,
        Op::GroupNonUniformLogicalXor => Op::LogicalNotEqual,
        _ if EXT_MIN_MAX.iter().any(|(o, _)| *o == op) => Op::ExtInst,
        _ => return None,
    })
}

/// Whether `inst` is a clustered reduction.
fn clustered(inst: &Instruction) -> bool {
    combine(inst.class.opcode).is_some()
        && inst.operands.get(1) == Some(&Operand::GroupOperation(GroupOperation::ClusteredReduce))
}

/// Rewrites every clustered reduction; returns how many.
pub fn lower_clustered_reductions(m: &mut Model) -> Result<usize> {
    if !m.instructions().any(clustered) {
        return Ok(0);
    }
    let glsl = m.glsl_std_450();
    let uint = m.uint();
    m.rewrite(|e, inst| {
        if !clustered(inst) {
            return Ok(false);
        }
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Err(Error::shader(
                "malformed SPIR-V: a subgroup reduction without a result",
            ));
        };
        let [scope, _, value, size] = inst.operands.as_slice() else {
            return Err(Error::shader(format!(
                "malformed SPIR-V: Op{:?} with a cluster size has {} operands",
                inst.class.opcode,
                inst.operands.len()
            )));
        };
        // The scope is an id too (SPIR-V's <id> Scope).
        let scope = match scope {
            Operand::IdScope(s) => Some(*s),
            o => id(o),
        };
        let (Some(scope), Some(value), Some(size)) = (scope, id(value), id(size)) else {
            return Err(Error::shader(
                "malformed SPIR-V: a clustered reduction's operands",
            ));
        };
        let cluster =
            e.m.constant_u32(size)
                .filter(|n| n.is_power_of_two() && *n <= 128);
        let Some(cluster) = cluster else {
            return Err(Error::shader(
                "a subgroup cluster size that is not a constant power of two up to 128",
            ));
        };
        let mut x = value;
        let mut offset = 1;
        while offset < cluster {
            let k = e.constant(uint, offset.into());
            let other = e.op(Op::GroupNonUniformShuffleXor, ty, &[scope, x, k]);
            offset *= 2;
            let last = offset >= cluster;
            x = step(
                e,
                inst.class.opcode,
                glsl,
                ty,
                [x, other],
                last.then_some(r),
            );
        }
        if cluster == 1 {
            e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[value]));
        }
        Ok(true)
    })
}

/// One combining step: `op` of the two values, with `result` as its id on
/// the last step.
fn step(
    e: &mut Emit,
    op: Op,
    glsl: Word,
    ty: Word,
    [a, b]: [Word; 2],
    result: Option<Word>,
) -> Word {
    let r = result.unwrap_or_else(|| e.fresh());
    let inst = match EXT_MIN_MAX.iter().find(|(o, _)| *o == op) {
        Some(&(_, which)) => Instruction::new(
            Op::ExtInst,
            Some(ty),
            Some(r),
            vec![
                Operand::IdRef(glsl),
                Operand::LiteralExtInstInteger(which),
                Operand::IdRef(a),
                Operand::IdRef(b),
            ],
        ),
        None => with_ids(combine(op).unwrap_or(Op::IAdd), Some(ty), Some(r), &[a, b]),
    };
    e.push(inst);
    r
}
