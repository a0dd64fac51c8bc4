//! SPIR-V pass: the subgroup operations naga's reader lacks
//! (GL_KHR_shader_subgroup_basic/vote/ballot), written with the ones it
//! has and WGSL's subgroup built-ins:
//!
//! - `subgroupElect()`: `id == subgroupBroadcastFirst(id)`;
//! - `subgroupAllEqual(v)`: `subgroupAll(v == subgroupBroadcastFirst(v))`;
//! - `subgroupBallotBitCount`/`InclusiveBitCount`/`ExclusiveBitCount(b)`:
//!   `countOneBits` of each word of the ballot, masked to the invocations
//!   at or below (below) this one for the scans;
//! - `subgroupBallotFindLSB`/`FindMSB(b)`: the lowest (highest) set bit over
//!   the four words;
//! - `subgroupInverseBallot(b)`, `subgroupBallotBitExtract(b, i)`: one bit;
//! - `subgroupBroadcast(v, id)` with an id that is not a constant (legal from
//!   SPIR-V 1.5, where it need only be dynamically uniform): WGSL's
//!   `subgroupBroadcast` takes a constant, `subgroupShuffle` the same value
//!   from any id.
//!
//! - `gl_SubgroupEqMask`, `GeMask`, `GtMask`, `LeMask`, `LtMask`: computed
//!   from the invocation's id (and the subgroup size, above which the
//!   greater-than masks have no bits).
//!
//! The invocation's id is read from a `SubgroupLocalInvocationId` input,
//! declared when the shader has none.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, GroupOperation, Op, StorageClass, Word};

use super::model::{Model, id, with_ids};
use crate::{Error, Result};

/// GLSL.std.450's FindILsb, FindUMsb and UClamp.
const FIND_I_LSB: u32 = 73;
const FIND_U_MSB: u32 = 75;
const U_CLAMP: u32 = 44;

fn lacking(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformElect
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupNonUniformBallotFindLSB
            | Op::GroupNonUniformBallotFindMSB
            | Op::GroupNonUniformInverseBallot
            | Op::GroupNonUniformBallotBitExtract
            | Op::GroupNonUniformBroadcast
    )
}

/// Ids the rewrites share, and the model that hands out fresh ones.
struct Ids<'m> {
    m: &'m Model,
    uint: Word,
    boolean: Word,
    glsl: Word,
    lid_var: Word,
}

impl Ids<'_> {
    fn fresh(&mut self) -> Word {
        self.m.fresh()
    }
}

/// The ids of what both rewrites use, made where missing: (uint, bool,
/// GLSL.std.450, the invocation id's variable).
type Shared = (Word, Word, Word, Word);

/// Whether `inst` is one naga lacks (a broadcast from a constant id is
/// WGSL's own).
fn needs_rewrite(m: &Model, inst: &Instruction) -> bool {
    lacking(inst.class.opcode)
        && (inst.class.opcode != Op::GroupNonUniformBroadcast
            || inst
                .operands
                .get(2)
                .and_then(id)
                .is_some_and(|v| m.op_of(v) != Some(Op::Constant)))
}

/// Rewrites the subgroup operations naga cannot read; returns how many.
pub fn lower_subgroup_operations(m: &mut Model) -> Result<usize> {
    if !m.instructions().any(|i| needs_rewrite(m, i)) {
        return Ok(0);
    }
    let (shared, constants) = prepare(m);
    let c = |v: u32| constants[&v];
    m.rewrite(|e, inst| {
        if !needs_rewrite(e.m, inst) {
            return Ok(false);
        }
        let (uint, boolean, glsl, lid_var) = shared;
        let mut ids = Ids {
            m: e.m,
            uint,
            boolean,
            glsl,
            lid_var,
        };
        match rewrite(inst, &mut ids, &c)? {
            Some(new) => {
                e.out.extend(new);
                Ok(true)
            }
            None => Ok(false),
        }
    })
}

/// The types, import, invocation id and constants both rewrites use, and
/// the constants by value.
fn prepare(m: &mut Model) -> (Shared, HashMap<u32, Word>) {
    let uint = m.uint();
    let boolean = m.bool_type();
    let glsl = m.glsl_std_450();
    let lid_var = builtin_input(m, uint, BuiltIn::SubgroupLocalInvocationId);
    let constants = [0u32, 1, 3, 31, 32, 64, 96, 128, 0xffff_ffff]
        .into_iter()
        .map(|v| (v, m.constant(uint, v.into())))
        .collect();
    ((uint, boolean, glsl, lid_var), constants)
}

/// The `uint` input variable of built-in `which`, declared (and listed by
/// every entry point) when missing.
fn builtin_input(m: &mut Model, uint: Word, which: BuiltIn) -> Word {
    if let Some(v) = m.builtin(which) {
        return v;
    }
    let ptr = m.pointer_to(StorageClass::Input, uint);
    let var = m.add_global(
        Op::Variable,
        Some(ptr),
        vec![Operand::StorageClass(StorageClass::Input)],
    );
    m.annotate(Instruction::new(
        Op::Decorate,
        None,
        None,
        vec![
            Operand::IdRef(var),
            Operand::Decoration(Decoration::BuiltIn),
            Operand::BuiltIn(which),
        ],
    ));
    for ep in &mut m.module_mut().entry_points {
        ep.operands.push(Operand::IdRef(var));
    }
    var
}

/// Word `k` of a ballot mask holding the bits below `end`:
/// `(1 << n) - 1` with `n = clamp(end, 32k, 32k + 32) - 32k` (all ones at 32).
fn bits_below(
    ids: &mut Ids,
    out: &mut Vec<Instruction>,
    c: &impl Fn(u32) -> Word,
    end: Word,
    k: usize,
) -> Word {
    let (uint, boolean) = (ids.uint, ids.boolean);
    let (clamped, n, shifted, low, full, mask) = (
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
    );
    let base = c(32 * k as u32);
    let top = c(32 * (k as u32 + 1));
    out.push(ext(ids, U_CLAMP, uint, clamped, &[end, base, top]));
    out.push(value(Op::ISub, uint, n, &[clamped, base]));
    out.push(value(Op::ShiftLeftLogical, uint, shifted, &[c(1), n]));
    out.push(value(Op::ISub, uint, low, &[shifted, c(1)]));
    out.push(value(Op::IEqual, boolean, full, &[n, c(32)]));
    out.push(value(Op::Select, uint, mask, &[full, c(0xffff_ffff), low]));
    mask
}

fn value(op: Op, ty: Word, r: Word, args: &[Word]) -> Instruction {
    with_ids(op, Some(ty), Some(r), args)
}

fn ext(ids: &Ids, n: u32, ty: Word, r: Word, args: &[Word]) -> Instruction {
    let mut ops = vec![Operand::IdRef(ids.glsl), Operand::LiteralExtInstInteger(n)];
    ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
    Instruction::new(Op::ExtInst, Some(ty), Some(r), ops)
}

/// The instructions that replace `inst` (the last defines its result), or
/// `None` to keep it.
fn rewrite(
    inst: &Instruction,
    ids: &mut Ids,
    c: &impl Fn(u32) -> Word,
) -> Result<Option<Vec<Instruction>>> {
    let m = ids.m;
    let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
        return Ok(None);
    };
    let scope = inst
        .operands
        .first()
        .cloned()
        .unwrap_or(Operand::IdScope(c(3)));
    let (uint, boolean) = (ids.uint, ids.boolean);
    let mut out = Vec::new();
    let op = inst.class.opcode;
    let operand = |k: usize| inst.operands.get(k).and_then(id).unwrap_or(0);
    let load_lid = |ids: &mut Ids, out: &mut Vec<Instruction>| {
        let lid = ids.fresh();
        out.push(value(Op::Load, uint, lid, &[ids.lid_var]));
        lid
    };
    // The four words of a ballot.
    let words = |ids: &mut Ids, out: &mut Vec<Instruction>, ballot: Word| -> [Word; 4] {
        let mut w = [0; 4];
        for (k, slot) in w.iter_mut().enumerate() {
            *slot = ids.fresh();
            out.push(Instruction::new(
                Op::CompositeExtract,
                Some(uint),
                Some(*slot),
                vec![Operand::IdRef(ballot), Operand::LiteralBit32(k as u32)],
            ));
        }
        w
    };
    // Bit `index` of a ballot, as a bool.
    let bit = |ids: &mut Ids, out: &mut Vec<Instruction>, ballot: Word, index: Word, r: Word| {
        let (word_index, word, shift, shifted, one) = (
            ids.fresh(),
            ids.fresh(),
            ids.fresh(),
            ids.fresh(),
            ids.fresh(),
        );
        out.push(value(Op::UDiv, uint, word_index, &[index, c(32)]));
        out.push(value(
            Op::VectorExtractDynamic,
            uint,
            word,
            &[ballot, word_index],
        ));
        out.push(value(Op::BitwiseAnd, uint, shift, &[index, c(31)]));
        out.push(value(Op::ShiftRightLogical, uint, shifted, &[word, shift]));
        out.push(value(Op::BitwiseAnd, uint, one, &[shifted, c(1)]));
        out.push(value(Op::INotEqual, boolean, r, &[one, c(0)]));
    };
    match op {
        Op::GroupNonUniformElect => {
            let lid = load_lid(ids, &mut out);
            let first = ids.fresh();
            out.push(Instruction::new(
                Op::GroupNonUniformBroadcastFirst,
                Some(uint),
                Some(first),
                vec![scope, Operand::IdRef(lid)],
            ));
            out.push(value(Op::IEqual, boolean, r, &[lid, first]));
        }
        Op::GroupNonUniformAllEqual => {
            let v = operand(1);
            let vty = m.result_type(v).unwrap_or(0);
            let first = ids.fresh();
            out.push(Instruction::new(
                Op::GroupNonUniformBroadcastFirst,
                Some(vty),
                Some(first),
                vec![scope.clone(), Operand::IdRef(v)],
            ));
            let t = m.global(vty);
            if t.is_some_and(|t| t.class.opcode == Op::TypeVector) {
                return Err(Error::Unsupported(
                    "subgroupAllEqual on a vector has no WGSL form here: compare the components one by one".into(),
                ));
            }
            let eq = match t.map(|t| t.class.opcode) {
                Some(Op::TypeFloat) => Op::FOrdEqual,
                Some(Op::TypeBool) => Op::LogicalEqual,
                _ => Op::IEqual,
            };
            let same = ids.fresh();
            out.push(value(eq, boolean, same, &[v, first]));
            out.push(Instruction::new(
                Op::GroupNonUniformAll,
                Some(boolean),
                Some(r),
                vec![scope, Operand::IdRef(same)],
            ));
        }
        Op::GroupNonUniformBallotBitCount => {
            let group = match inst.operands.get(1) {
                Some(Operand::GroupOperation(g)) => *g,
                _ => GroupOperation::Reduce,
            };
            let ballot = operand(2);
            let w = words(ids, &mut out, ballot);
            let lid = if group == GroupOperation::Reduce {
                None
            } else {
                Some(load_lid(ids, &mut out))
            };
            let mut total: Option<Word> = None;
            for (k, &word) in w.iter().enumerate() {
                let counted = match lid {
                    None => word,
                    Some(lid) => {
                        // The bits of this word below (or at) the invocation.
                        let end = if group == GroupOperation::InclusiveScan {
                            let e = ids.fresh();
                            out.push(value(Op::IAdd, uint, e, &[lid, c(1)]));
                            e
                        } else {
                            lid
                        };
                        let mask = bits_below(ids, &mut out, c, end, k);
                        let masked = ids.fresh();
                        out.push(value(Op::BitwiseAnd, uint, masked, &[word, mask]));
                        masked
                    }
                };
                let bits = ids.fresh();
                out.push(value(Op::BitCount, uint, bits, &[counted]));
                total = Some(match total {
                    None => bits,
                    Some(t) => {
                        let sum = ids.fresh();
                        out.push(value(Op::IAdd, uint, sum, &[t, bits]));
                        sum
                    }
                });
            }
            // The last sum is the result.
            if let Some(last) = out.last_mut() {
                last.result_id = Some(r);
                last.result_type = Some(ty);
            }
        }
        Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
            let lsb = op == Op::GroupNonUniformBallotFindLSB;
            let w = words(ids, &mut out, operand(1));
            // Lowest: the first non-zero word from the top down overrides;
            // highest: from the bottom up.
            let order: Vec<usize> = if lsb {
                vec![3, 2, 1, 0]
            } else {
                vec![0, 1, 2, 3]
            };
            let mut acc = c(0xffff_ffff);
            for (n, &k) in order.iter().enumerate() {
                let (found, offset, nonzero, next) =
                    (ids.fresh(), ids.fresh(), ids.fresh(), ids.fresh());
                let base = [c(0), c(32), c(64), c(96)][k];
                out.push(ext(
                    ids,
                    if lsb { FIND_I_LSB } else { FIND_U_MSB },
                    uint,
                    found,
                    &[w[k]],
                ));
                out.push(value(Op::IAdd, uint, offset, &[found, base]));
                out.push(value(Op::INotEqual, boolean, nonzero, &[w[k], c(0)]));
                let target = if n == 3 { r } else { next };
                out.push(value(Op::Select, ty, target, &[nonzero, offset, acc]));
                acc = target;
            }
        }
        Op::GroupNonUniformInverseBallot => {
            let lid = load_lid(ids, &mut out);
            bit(ids, &mut out, operand(1), lid, r);
        }
        Op::GroupNonUniformBallotBitExtract => {
            bit(ids, &mut out, operand(1), operand(2), r);
        }
        Op::GroupNonUniformBroadcast => {
            let index = operand(2);
            if m.op_of(index) == Some(Op::Constant) {
                return Ok(None);
            }
            out.push(Instruction::new(
                Op::GroupNonUniformShuffle,
                Some(ty),
                Some(r),
                vec![scope, Operand::IdRef(operand(1)), Operand::IdRef(index)],
            ));
        }
        _ => return Ok(None),
    }
    Ok(Some(out))
}

/// Replaces the loads of the subgroup mask built-ins (`gl_SubgroupEqMask`
/// and the others), which naga's reader lacks, with the masks computed from
/// the invocation's id; returns how many loads.
pub fn lower_subgroup_masks(m: &mut Model) -> Result<usize> {
    let masks: Vec<(Word, BuiltIn)> = [
        BuiltIn::SubgroupEqMask,
        BuiltIn::SubgroupGeMask,
        BuiltIn::SubgroupGtMask,
        BuiltIn::SubgroupLeMask,
        BuiltIn::SubgroupLtMask,
    ]
    .into_iter()
    .filter_map(|b| Some((m.builtin(b)?, b)))
    .collect();
    if masks.is_empty() {
        return Ok(0);
    }
    let ((uint, boolean, glsl, lid_var), constants) = prepare(m);
    let c = |v: u32| constants[&v];
    let size_var = builtin_input(m, uint, BuiltIn::SubgroupSize);
    let count = m.rewrite(|e, inst| {
        let which = match (inst.class.opcode, inst.operands.first().and_then(id)) {
            (Op::Load, Some(p)) => masks.iter().find(|(v, _)| *v == p).map(|m| m.1),
            _ => None,
        };
        let (Some(which), Some(ty), Some(r)) = (which, inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let mut ids = Ids {
            m: e.m,
            uint,
            boolean,
            glsl,
            lid_var,
        };
        let out = &mut e.out;
        let lid = ids.fresh();
        out.push(value(Op::Load, uint, lid, &[lid_var]));
        let size = ids.fresh();
        out.push(value(Op::Load, uint, size, &[size_var]));
        let next = ids.fresh();
        out.push(value(Op::IAdd, uint, next, &[lid, c(1)]));
        let mut words = Vec::new();
        for k in 0..4 {
            let lt = bits_below(&mut ids, out, &c, lid, k);
            let le = bits_below(&mut ids, out, &c, next, k);
            let word = match which {
                BuiltIn::SubgroupLtMask => lt,
                BuiltIn::SubgroupLeMask => le,
                BuiltIn::SubgroupEqMask => {
                    let w = ids.fresh();
                    out.push(value(Op::BitwiseXor, uint, w, &[le, lt]));
                    w
                }
                _ => {
                    // Ge = ~Lt, Gt = ~Le, within the subgroup.
                    let inside = bits_below(&mut ids, out, &c, size, k);
                    let (not, w) = (ids.fresh(), ids.fresh());
                    let from = if which == BuiltIn::SubgroupGeMask {
                        lt
                    } else {
                        le
                    };
                    out.push(value(Op::Not, uint, not, &[from]));
                    out.push(value(Op::BitwiseAnd, uint, w, &[not, inside]));
                    w
                }
            };
            words.push(word);
        }
        out.push(value(Op::CompositeConstruct, ty, r, &words));
        Ok(true)
    })?;
    // The mask variables are unused now: gone, with their decorations.
    m.remove_globals(|v| masks.iter().any(|m| m.0 == v));
    Ok(count)
}
