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
//!
//! - `gl_SubgroupID` and `gl_SubgroupInvocationID` in a workgroup of more
//!   than one dimension (`local_size_x = 8, local_size_y = 8`), where naga
//!   refuses WGSL's `subgroup_id` and `subgroup_invocation_id`: computed as
//!   `gl_LocalInvocationIndex / gl_SubgroupSize` and
//!   `gl_LocalInvocationIndex % gl_SubgroupSize`, which assumes subgroups
//!   made of consecutive local invocation indices (see README.md).

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, GroupOperation, Op, StorageClass, Word};

use crate::lower::model::{Emit, Model, id, with_ids};
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
        let ids = Ids {
            m: e.m,
            uint,
            boolean,
            glsl,
            lid_var,
        };
        match rewrite(inst, ids, &c)? {
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
pub(crate) fn builtin_input(m: &mut Model, uint: Word, which: BuiltIn) -> Word {
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

/// What one rewrite needs: the instruction's result, scope and operands,
/// the constants, and the instructions emitted so far.
struct Site<'a, 'm> {
    ids: Ids<'m>,
    c: &'a dyn Fn(u32) -> Word,
    out: Vec<Instruction>,
    ty: Word,
    r: Word,
    scope: Operand,
}

impl Site<'_, '_> {
    fn value(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        let r = self.ids.fresh();
        self.out.push(value(op, ty, r, args));
        r
    }

    /// The invocation's id in the subgroup.
    fn lid(&mut self) -> Word {
        let (uint, var) = (self.ids.uint, self.ids.lid_var);
        self.value(Op::Load, uint, &[var])
    }

    /// The four words of a ballot.
    fn words(&mut self, ballot: Word) -> [Word; 4] {
        let uint = self.ids.uint;
        std::array::from_fn(|k| {
            let w = self.ids.fresh();
            self.out.push(Instruction::new(
                Op::CompositeExtract,
                Some(uint),
                Some(w),
                vec![Operand::IdRef(ballot), Operand::LiteralBit32(k as u32)],
            ));
            w
        })
    }

    /// Bit `index` of a ballot, as a bool, as the result.
    fn bit(&mut self, ballot: Word, index: Word) {
        let (uint, boolean, c) = (self.ids.uint, self.ids.boolean, self.c);
        let word_index = self.value(Op::UDiv, uint, &[index, c(32)]);
        let word = self.value(Op::VectorExtractDynamic, uint, &[ballot, word_index]);
        let shift = self.value(Op::BitwiseAnd, uint, &[index, c(31)]);
        let shifted = self.value(Op::ShiftRightLogical, uint, &[word, shift]);
        let one = self.value(Op::BitwiseAnd, uint, &[shifted, c(1)]);
        self.out
            .push(value(Op::INotEqual, boolean, self.r, &[one, c(0)]));
    }

    /// `subgroupElect()`: `id == subgroupBroadcastFirst(id)`.
    fn elect(&mut self) {
        let lid = self.lid();
        let first = self.ids.fresh();
        self.out.push(Instruction::new(
            Op::GroupNonUniformBroadcastFirst,
            Some(self.ids.uint),
            Some(first),
            vec![self.scope.clone(), Operand::IdRef(lid)],
        ));
        self.out
            .push(value(Op::IEqual, self.ids.boolean, self.r, &[lid, first]));
    }

    /// `subgroupAllEqual(v)`: `subgroupAll(v == subgroupBroadcastFirst(v))`.
    fn all_equal(&mut self, v: Word) -> Result<()> {
        let m = self.ids.m;
        let vty = m.result_type(v).unwrap_or(0);
        let first = self.ids.fresh();
        self.out.push(Instruction::new(
            Op::GroupNonUniformBroadcastFirst,
            Some(vty),
            Some(first),
            vec![self.scope.clone(), Operand::IdRef(v)],
        ));
        let eq = match m.op_of(vty) {
            Some(Op::TypeVector) => {
                return Err(Error::Unsupported(
                    "subgroupAllEqual on a vector has no WGSL form here: compare the components one by one".into(),
                ));
            }
            Some(Op::TypeFloat) => Op::FOrdEqual,
            Some(Op::TypeBool) => Op::LogicalEqual,
            _ => Op::IEqual,
        };
        let same = self.value(eq, self.ids.boolean, &[v, first]);
        self.out.push(Instruction::new(
            Op::GroupNonUniformAll,
            Some(self.ids.boolean),
            Some(self.r),
            vec![self.scope.clone(), Operand::IdRef(same)],
        ));
        Ok(())
    }

    /// `subgroupBallotBitCount`/`InclusiveBitCount`/`ExclusiveBitCount(b)`.
    fn bit_count(&mut self, group: GroupOperation, ballot: Word) {
        let (uint, c) = (self.ids.uint, self.c);
        let w = self.words(ballot);
        let lid = (group != GroupOperation::Reduce).then(|| self.lid());
        let mut total: Option<Word> = None;
        for (k, &word) in w.iter().enumerate() {
            let counted = match lid {
                None => word,
                Some(lid) => {
                    // The bits of this word below (or at) the invocation.
                    let end = if group == GroupOperation::InclusiveScan {
                        self.value(Op::IAdd, uint, &[lid, c(1)])
                    } else {
                        lid
                    };
                    let mask = bits_below(&mut self.ids, &mut self.out, &c, end, k);
                    self.value(Op::BitwiseAnd, uint, &[word, mask])
                }
            };
            let bits = self.value(Op::BitCount, uint, &[counted]);
            total = Some(match total {
                None => bits,
                Some(t) => self.value(Op::IAdd, uint, &[t, bits]),
            });
        }
        // The last sum is the result.
        if let Some(last) = self.out.last_mut() {
            last.result_id = Some(self.r);
            last.result_type = Some(self.ty);
        }
    }

    /// `subgroupBallotFindLSB`/`FindMSB(b)`: the lowest (highest) set bit.
    fn find(&mut self, lsb: bool, ballot: Word) {
        let (uint, boolean, c) = (self.ids.uint, self.ids.boolean, self.c);
        let w = self.words(ballot);
        // Lowest: the first non-zero word from the top down overrides;
        // highest: from the bottom up.
        let order = if lsb { [3, 2, 1, 0] } else { [0, 1, 2, 3] };
        let mut acc = c(0xffff_ffff);
        for (n, &k) in order.iter().enumerate() {
            let found = self.ids.fresh();
            let which = if lsb { FIND_I_LSB } else { FIND_U_MSB };
            self.out.push(ext(&self.ids, which, uint, found, &[w[k]]));
            let base = c(32 * k as u32);
            let offset = self.value(Op::IAdd, uint, &[found, base]);
            let nonzero = self.value(Op::INotEqual, boolean, &[w[k], c(0)]);
            let target = if n == 3 { self.r } else { self.ids.fresh() };
            self.out
                .push(value(Op::Select, self.ty, target, &[nonzero, offset, acc]));
            acc = target;
        }
    }
}

/// The instructions that replace `inst` (the last defines its result), or
/// `None` to keep it.
fn rewrite(
    inst: &Instruction,
    ids: Ids,
    c: &dyn Fn(u32) -> Word,
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
    let operand = |k: usize| inst.operands.get(k).and_then(id).unwrap_or(0);
    let mut site = Site {
        ids,
        c,
        out: Vec::new(),
        ty,
        r,
        scope: scope.clone(),
    };
    match inst.class.opcode {
        Op::GroupNonUniformElect => site.elect(),
        Op::GroupNonUniformAllEqual => site.all_equal(operand(1))?,
        Op::GroupNonUniformBallotBitCount => {
            let group = match inst.operands.get(1) {
                Some(Operand::GroupOperation(g)) => *g,
                _ => GroupOperation::Reduce,
            };
            site.bit_count(group, operand(2));
        }
        Op::GroupNonUniformBallotFindLSB => site.find(true, operand(1)),
        Op::GroupNonUniformBallotFindMSB => site.find(false, operand(1)),
        Op::GroupNonUniformInverseBallot => {
            let lid = site.lid();
            site.bit(operand(1), lid);
        }
        Op::GroupNonUniformBallotBitExtract => site.bit(operand(1), operand(2)),
        Op::GroupNonUniformBroadcast => {
            let index = operand(2);
            if m.op_of(index) == Some(Op::Constant) {
                return Ok(None);
            }
            site.out.push(Instruction::new(
                Op::GroupNonUniformShuffle,
                Some(ty),
                Some(r),
                vec![scope, Operand::IdRef(operand(1)), Operand::IdRef(index)],
            ));
        }
        _ => return Ok(None),
    }
    Ok(Some(site.out))
}

/// Replaces the loads of the subgroup mask built-ins (`gl_SubgroupEqMask`
/// and the others), which naga's reader lacks, with the masks computed from
/// the invocation's id, and then, in a workgroup of more than one
/// dimension, the loads of the subgroup ids ([`lower_subgroup_ids`], which
/// must follow every rewrite that reads the invocation's id); returns how
/// many loads.
pub fn lower_subgroup_masks(m: &mut Model) -> Result<usize> {
    let masks = lower_mask_loads(m)?;
    Ok(masks + lower_subgroup_ids(m)?)
}

fn lower_mask_loads(m: &mut Model) -> Result<usize> {
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
    whole_mask_loads(m, &masks)?;
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

/// A word of a mask read through an access chain (`gl_SubgroupLtMask.x`,
/// `gl_SubgroupEqMask[i]`) becomes a load of the whole mask and the word
/// taken from it, so that every use of a mask is a load of it.
fn whole_mask_loads(m: &mut Model, masks: &[(Word, BuiltIn)]) -> Result<()> {
    // Each mask's vector type; a malformed one without it is left alone.
    let vectors: HashMap<Word, Word> = masks
        .iter()
        .filter_map(|&(v, _)| Some((v, m.pointee(v)?.1)))
        .collect();
    let chains: HashMap<Word, (Word, Word, Word)> = m
        .instructions()
        .filter(|i| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain))
        .filter_map(|i| {
            let base = i.operands.first().and_then(id)?;
            let index = i.operands.get(1).and_then(id)?;
            let vector = *vectors.get(&base)?;
            (i.operands.len() == 2).then_some((i.result_id?, (base, index, vector)))
        })
        .collect();
    if chains.is_empty() {
        return Ok(());
    }
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        if matches!(op, Op::AccessChain | Op::InBoundsAccessChain)
            && inst.result_id.is_some_and(|r| chains.contains_key(&r))
        {
            return Ok(true);
        }
        let chain = match (op, inst.operands.first().and_then(id)) {
            (Op::Load, Some(p)) => chains.get(&p),
            _ => None,
        };
        let (Some(&(var, index, vector)), Some(ty), Some(r)) =
            (chain, inst.result_type, inst.result_id)
        else {
            return Ok(false);
        };
        let whole = e.op(Op::Load, vector, &[var]);
        e.push(with_ids(
            Op::VectorExtractDynamic,
            Some(ty),
            Some(r),
            &[whole, index],
        ));
        Ok(true)
    })?;
    Ok(())
}

/// Whether the workgroup is known to have one dimension (`y` and `z` of
/// 1). A `LocalSize` of 1×1×1 is not taken as known: a `LocalSizeId` mode
/// (glslang's output for Vulkan 1.3) reaches this pass as that placeholder,
/// its sizes written only when specialization constants are folded; for a
/// real single invocation the computed ids are exact anyway.
fn one_dimensional(m: &Model) -> bool {
    let dims: Option<Vec<u32>> = match m.builtin(BuiltIn::WorkgroupSize) {
        Some(w) => m.global(w).and_then(|c| {
            c.operands
                .iter()
                .filter_map(id)
                .map(|k| m.constant_u32(k))
                .collect()
        }),
        None => m
            .module()
            .execution_modes
            .iter()
            .find_map(|mode| match mode.operands.as_slice() {
                [
                    _,
                    Operand::ExecutionMode(ExecutionMode::LocalSize),
                    Operand::LiteralBit32(x),
                    Operand::LiteralBit32(y),
                    Operand::LiteralBit32(z),
                ] if (*x, *y, *z) != (1, 1, 1) => Some(vec![*x, *y, *z]),
                _ => None,
            }),
    };
    matches!(dims.as_deref(), Some([_, 1, 1]))
}

/// In a workgroup not known to be one-dimensional, replaces the loads of
/// `gl_SubgroupID` and `gl_SubgroupInvocationID` (which naga refuses there)
/// with `gl_LocalInvocationIndex / gl_SubgroupSize` and
/// `gl_LocalInvocationIndex % gl_SubgroupSize`: exact where subgroups are
/// made of consecutive local invocation indices, the first starting at 0
/// (lavapipe and llvmpipe lay them out so; Vulkan does not promise it).
/// Returns how many loads.
pub fn lower_subgroup_ids(m: &mut Model) -> Result<usize> {
    let ids: Vec<(Word, BuiltIn)> = [BuiltIn::SubgroupId, BuiltIn::SubgroupLocalInvocationId]
        .into_iter()
        .filter_map(|b| Some((m.builtin(b)?, b)))
        .filter(|(v, _)| m.op_of(*v) == Some(Op::Variable))
        .collect();
    if ids.is_empty() || one_dimensional(m) {
        return Ok(0);
    }
    let uint = m.uint();
    let index_var = builtin_input(m, uint, BuiltIn::LocalInvocationIndex);
    let size_var = builtin_input(m, uint, BuiltIn::SubgroupSize);
    let loaded = |m: &Model, v: Word| m.pointee(v).map_or(uint, |(_, t)| t);
    let (index_ty, size_ty) = (loaded(m, index_var), loaded(m, size_var));
    let count = m.rewrite(|e, inst| {
        let which = match (inst.class.opcode, inst.operands.first().and_then(id)) {
            (Op::Load, Some(p)) => ids.iter().find(|(v, _)| *v == p).map(|i| i.1),
            _ => None,
        };
        let (Some(which), Some(ty), Some(r)) = (which, inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        // Loaded as declared, computed as uint, given back as the load's type.
        let index = load_uint(e, index_var, index_ty, uint);
        let size = load_uint(e, size_var, size_ty, uint);
        let op = if which == BuiltIn::SubgroupId {
            Op::UDiv
        } else {
            Op::UMod
        };
        if ty == uint {
            e.out.push(value(op, uint, r, &[index, size]));
        } else {
            let v = e.op(op, uint, &[index, size]);
            e.out.push(value(Op::Bitcast, ty, r, &[v]));
        }
        Ok(true)
    })?;
    // Anything else still naming them (a pointer passed on) keeps naga's refusal.
    let used = |v: Word| {
        m.instructions()
            .any(|i| i.operands.iter().any(|o| id(o) == Some(v)))
    };
    let dead: Vec<Word> = ids.iter().map(|i| i.0).filter(|&v| !used(v)).collect();
    m.remove_globals(|v| dead.contains(&v));
    Ok(count)
}

/// Loads `var` (of type `ty`) as a `uint`.
fn load_uint(e: &mut Emit, var: Word, ty: Word, uint: Word) -> Word {
    let v = e.op(Op::Load, ty, &[var]);
    if ty == uint {
        v
    } else {
        e.op(Op::Bitcast, uint, &[v])
    }
}
