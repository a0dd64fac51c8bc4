//! SPIR-V pass: float atomics (GL_EXT_shader_atomic_float `atomicAdd` and
//! `atomicExchange`, GL_EXT_shader_atomic_float2 `atomicMin` and
//! `atomicMax`) on adapters without SHADER_FLOAT32_ATOMIC.
//!
//! Core WGSL has atomics on `i32` and `u32` only. The float memory is
//! retyped to `int` holding the same bits: plain and atomic loads and stores
//! bitcast, and `atomicExchange` exchanges the bit pattern.
//!
//! `atomicMin` and `atomicMax` need no loop where the value's sign bit is
//! clear: non-negative floats (and +0.0 against -0.0, whose bits are the
//! smallest int) order as their bits do as signed ints, and every negative
//! float's bits are a negative int, so the int `atomicMin`/`atomicMax` is
//! the float one. A NaN value changes nothing (the call is an atomic load).
//! A negative value, or a NaN the int order kept in memory, takes the one
//! loop, a compare-exchange on the bits that stops without writing when the
//! value would not change. Results follow IEEE 754 minNum/maxNum, the
//! extension's meaning, with one choice made where implementations differ:
//! a NaN operand loses to a number (memory holding NaN takes the value; a
//! NaN value leaves memory as it is), and -0.0 is less than +0.0
//! (`atomicMin(+0.0, -0.0)` stores -0.0, `atomicMax(-0.0, +0.0)` stores +0.0).
//!
//! `atomicAdd` is one loop:
//!
//! ```text
//! old = atomicLoad(p)
//! loop { r = atomicCompareExchangeWeak(p, old, bits(float(old) + v)); if r.exchanged break; old = r.old_value }
//! return float(old)
//! ```
//!
//! Its compare-exchanges need not be strong — the loop retries a spurious
//! failure with the value it saw — so the pass returns their ids and the IR
//! pass leaves them weak, testing `exchanged` for the equality the loop wrote.
//! A loop costs more than its iterations: llvmpipe stops every shader after
//! 65 535 loop iterations in all, counting each loop it meets, even one
//! whose branch no invocation takes.

use std::collections::HashMap;

use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{Capability, LoopControl, Op, SelectionControl, StorageClass, Word};

use super::model::{Model, Site, id, is_atomic, with_ids};
use crate::{Error, Result};

/// What the pass did: memory sites retyped, and the compare-exchanges (by
/// result id) that sit in retry loops of their own.
pub struct FloatAtomics {
    /// Float memory sites retyped to `int`.
    pub sites: usize,
    /// Compare-exchanges the IR pass may leave weak.
    pub weak: Vec<Word>,
}

/// Rewrites every float atomic (with `everywhere`, also those on storage
/// buffers, which native float atomics could do).
pub fn emulate_float_atomics(m: &mut Model, everywhere: bool) -> Result<FloatAtomics> {
    let Some(float) = m.float32() else {
        return Ok(FloatAtomics {
            sites: 0,
            weak: Vec::new(),
        });
    };
    let sites = float_sites(m, float, everywhere)?;
    if sites.is_empty() {
        return Ok(FloatAtomics {
            sites: 0,
            weak: Vec::new(),
        });
    }
    let int = m.int_type(32, true);
    for &(site, class) in &sites {
        match site {
            Site::Member(s, k) => m.set_operand(s, k as usize, int),
            Site::Element(a) => m.set_operand(a, 0, int),
            Site::Variable(v) => {
                let ptr = m.pointer_to(class, int);
                m.set_result_type(v, ptr);
            }
        }
    }
    m.retype_access_chains()?;
    bitcast_accesses(m, float, int)?;
    let weak = read_modify_writes(m, float, int)?;
    // naga's reader knows no min/max extension; none is left to need it.
    m.drop_capabilities(
        &[
            Capability::AtomicFloat16MinMaxEXT,
            Capability::AtomicFloat32MinMaxEXT,
            Capability::AtomicFloat64MinMaxEXT,
        ],
        &["SPV_EXT_shader_atomic_float_min_max"],
    );
    Ok(FloatAtomics {
        sites: sites.len(),
        weak,
    })
}

/// The float memory sites atomics use, with their storage class.
fn float_sites(m: &Model, float: Word, everywhere: bool) -> Result<Vec<(Site, StorageClass)>> {
    let mut sites: Vec<(Site, StorageClass)> = Vec::new();
    for inst in m.instructions() {
        let op = inst.class.opcode;
        if !is_atomic(op) {
            continue;
        }
        let data_ty = if op == Op::AtomicStore {
            inst.operands
                .get(3)
                .and_then(id)
                .and_then(|v| m.result_type(v))
        } else {
            inst.result_type
        };
        if data_ty != Some(float) {
            continue;
        }
        if !matches!(
            op,
            Op::AtomicLoad
                | Op::AtomicStore
                | Op::AtomicExchange
                | Op::AtomicFAddEXT
                | Op::AtomicFMinEXT
                | Op::AtomicFMaxEXT
        ) {
            return Err(Error::Unsupported(format!(
                "float atomic {op:?} has no mapping (atomicAdd, atomicMin, atomicMax and atomicExchange on float do)"
            )));
        }
        let ptr = inst.operands.first().and_then(id).unwrap_or(0);
        let site = float_site(m, ptr)?;
        // Native float atomics (`atomic<f32>`) exist in storage buffers
        // only, and for add and exchange only: min and max are never native.
        let native_op = !matches!(op, Op::AtomicFMinEXT | Op::AtomicFMaxEXT);
        if !everywhere && site.1 != StorageClass::Workgroup && native_op {
            continue;
        }
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    Ok(sites)
}

/// Where the float that `ptr` points at sits.
fn float_site(m: &Model, ptr: Word) -> Result<(Site, StorageClass)> {
    let unsupported =
        || Error::Unsupported("a float atomic through a pointer atomport cannot follow".into());
    let def = m.def(ptr).ok_or_else(unsupported)?;
    match def.class.opcode {
        Op::Variable if m.is_global(ptr) => {
            let (class, _) = m.pointee(ptr).ok_or_else(unsupported)?;
            Ok((Site::Variable(ptr), class))
        }
        Op::AccessChain | Op::InBoundsAccessChain => {
            let (class, path, _) = m.chain_path(def)?.ok_or_else(unsupported)?;
            let (ty, index) = *path.last().ok_or_else(unsupported)?;
            let site = match m.op_of(ty) {
                Some(Op::TypeStruct) => {
                    Site::Member(ty, m.constant_u32(index).ok_or_else(unsupported)?)
                }
                Some(Op::TypeArray | Op::TypeRuntimeArray) => Site::Element(ty),
                _ => return Err(unsupported()),
            };
            Ok((site, class))
        }
        _ => Err(unsupported()),
    }
}

/// Whether `ptr` points at retyped float memory (an `int` now).
fn points_at_int(m: &Model, ptr: Word, int: Word) -> bool {
    m.pointee(ptr).is_some_and(|(_, p)| p == int)
}

/// Bitcasts the value of every load, store and exchange of retyped memory
/// that reads or writes a float.
fn bitcast_accesses(m: &mut Model, float: Word, int: Word) -> Result<usize> {
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let Some(ptr) = inst.operands.first().and_then(id) else {
            return Ok(false);
        };
        if !points_at_int(e.m, ptr, int) {
            return Ok(false);
        }
        match op {
            Op::Load | Op::AtomicLoad | Op::AtomicExchange if inst.result_type == Some(float) => {
                let mut new = inst.clone();
                new.result_type = Some(int);
                new.result_id = Some(e.fresh());
                if op == Op::AtomicExchange {
                    let value = inst.operands.get(3).and_then(id).unwrap_or(0);
                    new.operands[3] = Operand::IdRef(e.op(Op::Bitcast, int, &[value]));
                }
                let bits = new.result_id.unwrap_or(0);
                e.push(new);
                e.push(with_ids(Op::Bitcast, Some(float), inst.result_id, &[bits]));
                Ok(true)
            }
            Op::Store | Op::AtomicStore => {
                let k = if op == Op::Store { 1 } else { 3 };
                let value = inst.operands.get(k).and_then(id).unwrap_or(0);
                if e.m.result_type(value) != Some(float) {
                    return Ok(false);
                }
                let mut new = inst.clone();
                new.operands[k] = Operand::IdRef(e.op(Op::Bitcast, int, &[value]));
                e.push(new);
                Ok(true)
            }
            _ => Ok(false),
        }
    })
}

/// Ids the emitted loops share.
struct Common {
    float: Word,
    int: Word,
    boolean: Word,
    /// `ptr<function, int>`: the loops keep the value they saw in a
    /// variable, not a phi, so that naga stores it in the loop's body
    /// (its GLSL writer cannot name an atomic's result in `continuing`).
    int_ptr: Word,
    /// `int` constants by value.
    ints: HashMap<i32, Word>,
    constant_true: Word,
}

impl Common {
    fn int_constant(&self, v: i32) -> Word {
        self.ints[&v]
    }
}

/// One float read-modify-write: the instruction's parts.
struct Rmw {
    op: Op,
    ptr: Word,
    scope: Operand,
    semantics: Operand,
    value: Word,
    result: Word,
}

/// Turns every float `atomicAdd`, `atomicMin` and `atomicMax` into the
/// blocks described in the module docs; returns the compare-exchanges made.
fn read_modify_writes(m: &mut Model, float: Word, int: Word) -> Result<Vec<Word>> {
    let is_rmw = |m: &Model, i: &Instruction| {
        matches!(
            i.class.opcode,
            Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT
        ) && i
            .operands
            .first()
            .and_then(id)
            .is_some_and(|p| points_at_int(m, p, int))
    };
    if !m.instructions().any(|i| is_rmw(m, i)) {
        return Ok(Vec::new());
    }
    let mut ints = HashMap::new();
    for v in [0, 0x7f80_0000, 0x7fff_ffff] {
        ints.insert(v, m.constant(int, u64::from(v as u32)));
    }
    let c = Common {
        float,
        int,
        boolean: m.bool_type(),
        int_ptr: m.pointer_to(StorageClass::Function, int),
        ints,
        constant_true: m.bool_constant(true),
    };
    let mut weak = Vec::new();
    // Where each split block's last instructions went, for the phis of its
    // successors (not the loops' own, which name the block as it now is).
    let mut moved: HashMap<Word, Word> = HashMap::new();
    let mut own_phis: Vec<Word> = Vec::new();
    // The variables each function's loops keep their values in.
    let mut variables: Vec<(usize, Word)> = Vec::new();
    m.rewrite_blocks(|m, fi, block| {
        if !block.instructions.iter().any(|i| is_rmw(m, i)) {
            return Ok(None);
        }
        if block
            .instructions
            .iter()
            .any(|i| i.class.opcode == Op::LoopMerge)
        {
            return Err(Error::Unsupported(
                "a float atomic in a loop header block".into(),
            ));
        }
        let label = block.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        let mut cfg = Cfg::new(m, label);
        for inst in &block.instructions {
            if !is_rmw(m, inst) {
                cfg.push(inst.clone());
                continue;
            }
            let rmw = Rmw {
                op: inst.class.opcode,
                ptr: inst.operands.first().and_then(id).unwrap_or(0),
                scope: inst.operands[1].clone(),
                semantics: inst.operands[2].clone(),
                value: inst.operands.get(3).and_then(id).unwrap_or(0),
                result: inst.result_id.unwrap_or(0),
            };
            let old = if rmw.op == Op::AtomicFAddEXT {
                add_loop(&mut cfg, &c, &rmw, &mut weak)
            } else {
                min_max(&mut cfg, &c, &rmw, &mut weak)
            };
            cfg.push(with_ids(Op::Bitcast, Some(float), Some(rmw.result), &[old]));
        }
        moved.insert(label, cfg.label);
        own_phis.extend(cfg.phis());
        variables.extend(cfg.variables.iter().map(|&v| (fi, v)));
        Ok(Some(cfg.finish(block.label.clone())))
    })?;
    declare_variables(m, &variables, c.int_ptr);
    // Phis that named a split block as a predecessor name the block its
    // terminator went to.
    m.rewrite(|e, inst| {
        if inst.class.opcode != Op::Phi
            || inst.result_id.is_some_and(|r| own_phis.contains(&r))
            || !inst
                .operands
                .iter()
                .any(|o| id(o).is_some_and(|l| moved.contains_key(&l)))
        {
            return Ok(false);
        }
        let mut phi = inst.clone();
        for pair in phi.operands.chunks_mut(2) {
            if let Some(&to) = id(&pair[1]).and_then(|l| moved.get(&l)) {
                pair[1] = Operand::IdRef(to);
            }
        }
        e.push(phi);
        Ok(true)
    })?;
    Ok(weak)
}

/// Declares the loops' variables at the start of their functions.
fn declare_variables(m: &mut Model, variables: &[(usize, Word)], ptr: Word) {
    if variables.is_empty() {
        return;
    }
    let module = m.module_mut();
    for &(fi, v) in variables {
        if let Some(entry) = module
            .functions
            .get_mut(fi)
            .and_then(|f| f.blocks.first_mut())
        {
            entry.instructions.insert(
                0,
                Instruction::new(
                    Op::Variable,
                    Some(ptr),
                    Some(v),
                    vec![Operand::StorageClass(StorageClass::Function)],
                ),
            );
        }
    }
}

/// Structured control flow built block by block: the current block's label
/// and instructions, the blocks already closed, and the function variables
/// it needs.
struct Cfg<'m> {
    m: &'m Model,
    label: Word,
    instructions: Vec<Instruction>,
    done: Vec<Block>,
    variables: Vec<Word>,
}

impl<'m> Cfg<'m> {
    fn new(m: &'m Model, label: Word) -> Self {
        Cfg {
            m,
            label,
            instructions: Vec::new(),
            done: Vec::new(),
            variables: Vec::new(),
        }
    }

    /// A new function variable.
    fn variable(&mut self) -> Word {
        let v = self.fresh();
        self.variables.push(v);
        v
    }

    /// Stores `value` in variable `var`.
    fn store(&mut self, var: Word, value: Word) {
        self.push(with_ids(Op::Store, None, None, &[var, value]));
    }

    fn fresh(&self) -> Word {
        self.m.fresh()
    }

    fn push(&mut self, inst: Instruction) {
        self.instructions.push(inst);
    }

    /// Emits `op` of type `ty` on id operands; returns its result.
    fn op(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        let r = self.fresh();
        self.push(with_ids(op, Some(ty), Some(r), args));
        r
    }

    /// Ends the current block with `terminator` and starts block `next`.
    fn close(&mut self, terminator: Instruction, next: Word) {
        self.instructions.push(terminator);
        let label = std::mem::replace(&mut self.label, next);
        self.done.push(Block {
            label: Some(Instruction::new(Op::Label, None, Some(label), vec![])),
            instructions: std::mem::take(&mut self.instructions),
        });
    }

    /// Ends the current block with `OpBranch` to `next` and starts it.
    fn branch(&mut self, next: Word) {
        self.close(with_ids(Op::Branch, None, None, &[next]), next);
    }

    /// The phis made so far.
    fn phis(&self) -> Vec<Word> {
        self.done
            .iter()
            .flat_map(|b| b.instructions.iter())
            .chain(self.instructions.iter())
            .filter(|i| i.class.opcode == Op::Phi)
            .filter_map(|i| i.result_id)
            .collect()
    }

    /// Every block, the first under `first_label` (the original block's).
    fn finish(mut self, first_label: Option<Instruction>) -> Vec<Block> {
        let label = self.label;
        self.done.push(Block {
            label: Some(Instruction::new(Op::Label, None, Some(label), vec![])),
            instructions: self.instructions,
        });
        if let Some(first) = self.done.first_mut() {
            first.label = first_label;
        }
        self.done
    }
}

fn selection_merge(merge: Word) -> Instruction {
    Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![
            Operand::IdRef(merge),
            Operand::SelectionControl(SelectionControl::NONE),
        ],
    )
}

fn loop_merge(merge: Word, cont: Word) -> Instruction {
    Instruction::new(
        Op::LoopMerge,
        None,
        None,
        vec![
            Operand::IdRef(merge),
            Operand::IdRef(cont),
            Operand::LoopControl(LoopControl::NONE),
        ],
    )
}

/// `seen` = a compare-exchange of the memory from `old` to `new`; returns
/// whether it took (written as `seen == old`, which the IR pass reads as
/// `exchanged`).
fn compare_exchange(
    cfg: &mut Cfg,
    c: &Common,
    rmw: &Rmw,
    (old, new, seen): (Word, Word, Word),
    weak: &mut Vec<Word>,
) -> Word {
    cfg.push(Instruction::new(
        Op::AtomicCompareExchange,
        Some(c.int),
        Some(seen),
        vec![
            Operand::IdRef(rmw.ptr),
            rmw.scope.clone(),
            rmw.semantics.clone(),
            rmw.semantics.clone(),
            Operand::IdRef(new),
            Operand::IdRef(old),
        ],
    ));
    weak.push(seen);
    cfg.op(Op::IEqual, c.boolean, &[seen, old])
}

/// Float `atomicAdd`: a compare-exchange loop; returns the old bits.
fn add_loop(cfg: &mut Cfg, c: &Common, rmw: &Rmw, weak: &mut Vec<Word>) -> Word {
    let first = cfg.fresh();
    cfg.push(Instruction::new(
        Op::AtomicLoad,
        Some(c.int),
        Some(first),
        vec![
            Operand::IdRef(rmw.ptr),
            rmw.scope.clone(),
            rmw.semantics.clone(),
        ],
    ));
    let seen_var = cfg.variable();
    cfg.store(seen_var, first);
    let (header, body, cont, merge) = (cfg.fresh(), cfg.fresh(), cfg.fresh(), cfg.fresh());
    cfg.branch(header);
    cfg.push(loop_merge(merge, cont));
    cfg.branch(body);
    let old = cfg.op(Op::Load, c.int, &[seen_var]);
    let as_float = cfg.op(Op::Bitcast, c.float, &[old]);
    let sum = cfg.op(Op::FAdd, c.float, &[as_float, rmw.value]);
    let sum_bits = cfg.op(Op::Bitcast, c.int, &[sum]);
    let seen = cfg.fresh();
    let same = compare_exchange(cfg, c, rmw, (old, sum_bits, seen), weak);
    cfg.store(seen_var, seen);
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[same, merge, cont]),
        cont,
    );
    cfg.close(with_ids(Op::Branch, None, None, &[header]), merge);
    // Taken: what it saw is what it replaced.
    cfg.op(Op::Load, c.int, &[seen_var])
}

/// Float `atomicMin`/`atomicMax`: the int atomic where the value's sign is
/// clear, the loop where it is set or memory kept a NaN, an atomic load for
/// a NaN value; returns the old bits.
fn min_max(cfg: &mut Cfg, c: &Common, rmw: &Rmw, weak: &mut Vec<Word>) -> Word {
    let min = rmw.op == Op::AtomicFMinEXT;
    let (b, int) = (c.boolean, c.int);
    let bits = cfg.op(Op::Bitcast, int, &[rmw.value]);
    let magnitude = cfg.op(Op::BitwiseAnd, int, &[bits, c.int_constant(0x7fff_ffff)]);
    let value_nan = cfg.op(
        Op::SGreaterThan,
        b,
        &[magnitude, c.int_constant(0x7f80_0000)],
    );
    let negative = cfg.op(Op::SLessThan, b, &[bits, c.int_constant(0)]);
    let either = cfg.op(Op::LogicalOr, b, &[value_nan, negative]);
    let (fast, slow, chosen) = (cfg.fresh(), cfg.fresh(), cfg.fresh());
    cfg.push(selection_merge(chosen));
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[either, slow, fast]),
        fast,
    );
    // Fast: the int atomic, unless it met a NaN it keeps (a NaN above
    // every int for max, one of the sign-set NaNs, below -inf, for min).
    let kept = cfg.fresh();
    cfg.push(Instruction::new(
        if min { Op::AtomicSMin } else { Op::AtomicSMax },
        Some(int),
        Some(kept),
        vec![
            Operand::IdRef(rmw.ptr),
            rmw.scope.clone(),
            rmw.semantics.clone(),
            Operand::IdRef(bits),
        ],
    ));
    let sticky = if min {
        let m = cfg.op(Op::BitwiseAnd, int, &[kept, c.int_constant(0x7fff_ffff)]);
        let nan = cfg.op(Op::SGreaterThan, b, &[m, c.int_constant(0x7f80_0000)]);
        let neg = cfg.op(Op::SLessThan, b, &[kept, c.int_constant(0)]);
        cfg.op(Op::LogicalAnd, b, &[nan, neg])
    } else {
        cfg.op(Op::SGreaterThan, b, &[kept, c.int_constant(0x7f80_0000)])
    };
    cfg.close(with_ids(Op::Branch, None, None, &[chosen]), slow);
    // Slow: a negative value loops from what memory holds; a NaN reads it.
    let read = cfg.fresh();
    cfg.push(Instruction::new(
        Op::AtomicLoad,
        Some(int),
        Some(read),
        vec![
            Operand::IdRef(rmw.ptr),
            rmw.scope.clone(),
            rmw.semantics.clone(),
        ],
    ));
    let number = cfg.op(Op::LogicalNot, b, &[value_nan]);
    cfg.branch(chosen);
    let start = cfg.op(Op::Phi, int, &[kept, fast, read, slow]);
    let needed = cfg.op(Op::Phi, b, &[sticky, fast, number, slow]);
    let (looped, after) = (cfg.fresh(), cfg.fresh());
    let from = cfg.label;
    cfg.push(selection_merge(after));
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[needed, looped, after]),
        looped,
    );
    let result = min_max_loop(cfg, c, rmw, bits, start, weak);
    let last = cfg.label;
    cfg.branch(after);
    cfg.op(Op::Phi, int, &[start, from, result, last])
}

/// The loop of a float min/max: from `start`, until the value would not
/// change memory or a compare-exchange took; returns the old bits.
fn min_max_loop(
    cfg: &mut Cfg,
    c: &Common,
    rmw: &Rmw,
    bits: Word,
    start: Word,
    weak: &mut Vec<Word>,
) -> Word {
    let min = rmw.op == Op::AtomicFMinEXT;
    let (b, int) = (c.boolean, c.int);
    let seen_var = cfg.variable();
    cfg.store(seen_var, start);
    let (header, body, cas, join, cont, merge) = (
        cfg.fresh(),
        cfg.fresh(),
        cfg.fresh(),
        cfg.fresh(),
        cfg.fresh(),
        cfg.fresh(),
    );
    cfg.branch(header);
    cfg.push(loop_merge(merge, cont));
    cfg.branch(body);
    let old = cfg.op(Op::Load, int, &[seen_var]);
    // write = isnan(x) || v < x || (v == x && signbit(v))   (min; v is no NaN here)
    //         isnan(x) || v > x || (v == x && !signbit(v))  (max)
    // WGSL has no isNan: a NaN's magnitude exceeds infinity's.
    let as_float = cfg.op(Op::Bitcast, c.float, &[old]);
    let old_abs = cfg.op(Op::BitwiseAnd, int, &[old, c.int_constant(0x7fff_ffff)]);
    let old_nan = cfg.op(Op::SGreaterThan, b, &[old_abs, c.int_constant(0x7f80_0000)]);
    let order = if min {
        Op::FOrdLessThan
    } else {
        Op::FOrdGreaterThan
    };
    let beats = cfg.op(order, b, &[rmw.value, as_float]);
    let equal = cfg.op(Op::FOrdEqual, b, &[rmw.value, as_float]);
    let sign_set = cfg.op(Op::SLessThan, b, &[bits, c.int_constant(0)]);
    let signed_right = if min {
        sign_set
    } else {
        cfg.op(Op::LogicalNot, b, &[sign_set])
    };
    let tie = cfg.op(Op::LogicalAnd, b, &[equal, signed_right]);
    let better = cfg.op(Op::LogicalOr, b, &[beats, tie]);
    let write = cfg.op(Op::LogicalOr, b, &[better, old_nan]);
    cfg.push(selection_merge(join));
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[write, cas, join]),
        cas,
    );
    let seen = cfg.fresh();
    let same = compare_exchange(cfg, c, rmw, (old, bits, seen), weak);
    cfg.store(seen_var, seen);
    cfg.branch(join);
    let done = cfg.op(Op::Phi, b, &[c.constant_true, body, same, cas]);
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[done, merge, cont]),
        cont,
    );
    cfg.close(with_ids(Op::Branch, None, None, &[header]), merge);
    // Left without writing, or taken: memory held what it saw.
    cfg.op(Op::Load, int, &[seen_var])
}
