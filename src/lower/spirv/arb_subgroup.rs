//! SPIR-V pass: OpenGL's older subgroup extensions, GL_ARB_shader_ballot
//! and GL_ARB_shader_group_vote (SPIR-V's `SPV_KHR_shader_ballot` and
//! `SPV_KHR_subgroup_vote`, which naga's reader refuses by name), become
//! the `GroupNonUniform` instructions of Vulkan 1.1 with subgroup scope,
//! which mean the same:
//!
//! - `ballotARB(c)` (`OpSubgroupBallotKHR`): `subgroupBallot(c)`; GLSL then
//!   packs its low two words into the `uint64_t` the extension returns;
//! - `readFirstInvocationARB(v)`: `subgroupBroadcastFirst(v)`;
//! - `readInvocationARB(v, id)`: `subgroupBroadcast(v, id)` (the subgroup
//!   pass makes one with an id that is not a constant a shuffle);
//! - `anyInvocationARB`, `allInvocationsARB`, `allInvocationsEqualARB`:
//!   `subgroupAny`, `subgroupAll`, `subgroupAllEqual`.
//!
//! `gl_SubGroupInvocationARB`, `gl_SubGroupSizeARB` and the
//! `gl_SubGroup…MaskARB` masks are the same built-ins as the KHR ones
//! (SPIR-V gives them the same numbers), so the subgroup pass serves them.
//! ARB_shader_ballot's subgroups are at most 64 invocations wide; WGSL's
//! are too, on every backend that has them.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// SPIR-V's `Subgroup` scope.
const SUBGROUP_SCOPE: u64 = 3;

/// The `GroupNonUniform` instruction that means what the ARB instruction
/// `op` means.
fn khr_form(op: Op) -> Option<Op> {
    Some(match op {
        Op::SubgroupBallotKHR => Op::GroupNonUniformBallot,
        Op::SubgroupFirstInvocationKHR => Op::GroupNonUniformBroadcastFirst,
        Op::SubgroupReadInvocationKHR => Op::GroupNonUniformBroadcast,
        Op::SubgroupAnyKHR => Op::GroupNonUniformAny,
        Op::SubgroupAllKHR => Op::GroupNonUniformAll,
        Op::SubgroupAllEqualKHR => Op::GroupNonUniformAllEqual,
        _ => return None,
    })
}

/// Rewrites every ARB subgroup instruction; returns how many.
pub fn lower_arb_subgroup_operations(m: &mut Model) -> Result<usize> {
    let uses = m
        .instructions()
        .filter(|i| khr_form(i.class.opcode).is_some())
        .count();
    if uses > 0 {
        let uint = m.uint();
        let scope = m.constant(uint, SUBGROUP_SCOPE);
        m.rewrite(|e, inst| {
            let Some(op) = khr_form(inst.class.opcode) else {
                return Ok(false);
            };
            let expected = if op == Op::GroupNonUniformBroadcast {
                2
            } else {
                1
            };
            if inst.result_id.is_none()
                || inst.operands.len() != expected
                || inst.operands.iter().any(|o| id(o).is_none())
            {
                return Err(Error::shader(format!(
                    "malformed SPIR-V: Op{:?} with {} operands",
                    inst.class.opcode,
                    inst.operands.len()
                )));
            }
            let mut operands = vec![Operand::IdScope(scope)];
            operands.extend(inst.operands.iter().cloned());
            e.push(Instruction::new(
                op,
                inst.result_type,
                inst.result_id,
                operands,
            ));
            Ok(true)
        })?;
    }
    // The built-ins alone (gl_SubGroupSizeARB) also bring the extension.
    let had = m.module().extensions.iter().any(|e| {
        matches!(e.operands.first(), Some(Operand::LiteralString(s))
            if s == "SPV_KHR_shader_ballot" || s == "SPV_KHR_subgroup_vote")
    });
    if had {
        m.drop_capabilities(
            &[Capability::SubgroupBallotKHR, Capability::SubgroupVoteKHR],
            &["SPV_KHR_shader_ballot", "SPV_KHR_subgroup_vote"],
        );
        for c in [
            Capability::GroupNonUniform,
            Capability::GroupNonUniformBallot,
            Capability::GroupNonUniformVote,
        ] {
            m.add_capability(c);
        }
    }
    Ok(uses)
}
