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

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{BuiltIn, Decoration, GroupOperation, Op, StorageClass, Word};

use super::spirv::{Defs, Rewriter, id};
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

/// Ids the rewrites share.
struct Ids {
    uint: Word,
    boolean: Word,
    glsl: Word,
    lid_var: Word,
    next: Word,
}

impl Ids {
    fn fresh(&mut self) -> Word {
        self.next += 1;
        self.next - 1
    }
}

/// Rewrites the subgroup operations naga cannot read; returns how many.
pub fn lower_subgroup_operations(module: &mut Module) -> Result<usize> {
    let defs = Defs::new(module);
    let count = super::spirv::all_function_instructions(module)
        .filter(|i| lacking(i.class.opcode))
        .filter(|i| {
            // A broadcast from a constant id is WGSL's own.
            i.class.opcode != Op::GroupNonUniformBroadcast
                || i.operands.get(2).and_then(id).is_some_and(|v| {
                    !matches!(
                        defs.globals.get(&v).map(|d| d.class.opcode),
                        Some(Op::Constant)
                    )
                })
        })
        .count();
    if count == 0 {
        return Ok(0);
    }
    let (mut ids, constants) = prepare(module);
    let c = |v: u32| constants[&v];
    let defs = Defs::new(module);
    let types = super::spirv::result_types(module);
    for f in &mut module.functions {
        for b in &mut f.blocks {
            let mut k = 0;
            while k < b.instructions.len() {
                let inst = b.instructions[k].clone();
                let op = inst.class.opcode;
                if !lacking(op) {
                    k += 1;
                    continue;
                }
                let replacement = rewrite(&inst, &mut ids, &c, &defs, &types)?;
                match replacement {
                    Some(new) => {
                        let n = new.len();
                        b.instructions.splice(k..k + 1, new);
                        k += n;
                    }
                    None => k += 1,
                }
            }
        }
    }
    if let Some(h) = module.header.as_mut() {
        h.bound = ids.next;
    }
    Ok(count)
}

/// The types, import, invocation id and constants both rewrites use, and
/// the constants by value.
fn prepare(module: &mut Module) -> (Ids, std::collections::HashMap<u32, Word>) {
    let mut rw = Rewriter::new(module);
    let uint = rw.uint_type_at_start();
    let boolean = rw.bool_type();
    let glsl = glsl_std_450(rw.module);
    let lid_var = subgroup_invocation_id(&mut rw, uint);
    let constants = [0u32, 1, 3, 31, 32, 64, 96, 128, 0xffff_ffff]
        .into_iter()
        .map(|v| (v, rw.constant(uint, Op::Constant, Some(v))))
        .collect();
    let ids = Ids {
        uint,
        boolean,
        glsl,
        lid_var,
        next: rw.module.header.as_ref().map_or(0, |h| h.bound),
    };
    (ids, constants)
}

/// The id of the GLSL.std.450 import, added when missing.
fn glsl_std_450(module: &mut Module) -> Word {
    if let Some(i) = module.ext_inst_imports.iter().find(
        |i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"),
    ) {
        return i.result_id.unwrap_or(0);
    }
    let id = Rewriter::new(module).fresh();
    module.ext_inst_imports.push(Instruction::new(
        Op::ExtInstImport,
        None,
        Some(id),
        vec![Operand::LiteralString("GLSL.std.450".into())],
    ));
    id
}

/// The `SubgroupLocalInvocationId` input, declared (and listed by every
/// entry point) when missing.
fn subgroup_invocation_id(rw: &mut Rewriter, uint: Word) -> Word {
    builtin_input(rw, uint, BuiltIn::SubgroupLocalInvocationId)
}

/// The `uint` input variable of built-in `which`, declared (and listed by
/// every entry point) when missing.
fn builtin_input(rw: &mut Rewriter, uint: Word, which: BuiltIn) -> Word {
    let existing = rw
        .module
        .annotations
        .iter()
        .find_map(|a| match a.operands.as_slice() {
            [
                Operand::IdRef(t),
                Operand::Decoration(Decoration::BuiltIn),
                Operand::BuiltIn(b),
            ] if *b == which => Some(*t),
            _ => None,
        });
    if let Some(v) = existing {
        return v;
    }
    let ptr = rw.pointer_to(StorageClass::Input, uint);
    let var = rw.fresh();
    rw.module.types_global_values.push(Instruction::new(
        Op::Variable,
        Some(ptr),
        Some(var),
        vec![Operand::StorageClass(StorageClass::Input)],
    ));
    rw.module.annotations.push(Instruction::new(
        Op::Decorate,
        None,
        None,
        vec![
            Operand::IdRef(var),
            Operand::Decoration(Decoration::BuiltIn),
            Operand::BuiltIn(which),
        ],
    ));
    for ep in &mut rw.module.entry_points {
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
    super::spirv::with_ids(op, Some(ty), Some(r), args)
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
    defs: &Defs,
    types: &std::collections::HashMap<Word, Word>,
) -> Result<Option<Vec<Instruction>>> {
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
            let vty = types.get(&v).copied().unwrap_or(0);
            let first = ids.fresh();
            out.push(Instruction::new(
                Op::GroupNonUniformBroadcastFirst,
                Some(vty),
                Some(first),
                vec![scope.clone(), Operand::IdRef(v)],
            ));
            let t = defs.globals.get(&vty);
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
            if matches!(
                defs.globals.get(&index).map(|d| d.class.opcode),
                Some(Op::Constant)
            ) {
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
pub fn lower_subgroup_masks(module: &mut Module) -> Result<usize> {
    let masks: Vec<(Word, BuiltIn)> = module
        .annotations
        .iter()
        .filter_map(|a| match a.operands.as_slice() {
            [
                Operand::IdRef(t),
                Operand::Decoration(Decoration::BuiltIn),
                Operand::BuiltIn(
                    b @ (BuiltIn::SubgroupEqMask
                    | BuiltIn::SubgroupGeMask
                    | BuiltIn::SubgroupGtMask
                    | BuiltIn::SubgroupLeMask
                    | BuiltIn::SubgroupLtMask),
                ),
            ] => Some((*t, *b)),
            _ => None,
        })
        .collect();
    if masks.is_empty() {
        return Ok(0);
    }
    let (mut ids, constants) = prepare(module);
    let c = |v: u32| constants[&v];
    let mut rw = Rewriter::new(module);
    let size_var = builtin_input(&mut rw, ids.uint, BuiltIn::SubgroupSize);
    ids.next = rw.module.header.as_ref().map_or(0, |h| h.bound);
    let uint = ids.uint;
    let mut count = 0;
    for f in &mut rw.module.functions {
        for b in &mut f.blocks {
            let mut k = 0;
            while k < b.instructions.len() {
                let inst = &b.instructions[k];
                let which = match (inst.class.opcode, inst.operands.first().and_then(id)) {
                    (Op::Load, Some(p)) => masks.iter().find(|(v, _)| *v == p).map(|m| m.1),
                    _ => None,
                };
                let (Some(which), Some(ty), Some(r)) = (which, inst.result_type, inst.result_id)
                else {
                    k += 1;
                    continue;
                };
                let mut out = Vec::new();
                let lid = ids.fresh();
                out.push(value(Op::Load, uint, lid, &[ids.lid_var]));
                let size = ids.fresh();
                out.push(value(Op::Load, uint, size, &[size_var]));
                let below = |ids: &mut Ids, out: &mut Vec<Instruction>, end: Word, k: usize| {
                    bits_below(ids, out, &c, end, k)
                };
                let next = ids.fresh();
                out.push(value(Op::IAdd, uint, next, &[lid, c(1)]));
                let mut words = Vec::new();
                for k in 0..4 {
                    let lt = below(&mut ids, &mut out, lid, k);
                    let le = below(&mut ids, &mut out, next, k);
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
                            let inside = below(&mut ids, &mut out, size, k);
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
                let n = out.len();
                b.instructions.splice(k..k + 1, out);
                k += n;
                count += 1;
            }
        }
    }
    if let Some(h) = rw.module.header.as_mut() {
        h.bound = ids.next;
    }
    // The mask variables are unused now: gone, with their decorations.
    super::spirv::remove_globals(rw.module, |v| masks.iter().any(|m| m.0 == v));
    Ok(count)
}
