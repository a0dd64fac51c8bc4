//! SPIR-V pass: float atomics (GL_EXT_shader_atomic_float `atomicAdd` and
//! `atomicExchange`, GL_EXT_shader_atomic_float2 `atomicMin` and
//! `atomicMax`) on `float` where the adapter lacks SHADER_FLOAT32_ATOMIC,
//! and always on `double` and `float16_t`.
//!
//! Core WGSL has atomics on `i32` and `u32` only (and on `i64`/`u64` with
//! SHADER_INT64_ATOMIC_ALL_OPS). The float memory is retyped to the signed
//! integer of its width holding the same bits (`int` for a `float`, `int64_t`
//! for a `double`): plain and atomic loads and stores bitcast, and
//! `atomicExchange` exchanges the bit pattern. A `float16_t` lives in a
//! word of word-addressed memory ([`crate::lower::memory::words`]), beside another
//! half or narrow value: each of its atomics is one loop (below) of
//! compare-exchanges on that word that changes only the half's 16 bits,
//! computed in `f32` and packed with `pack2x16float` (to nearest, so an add
//! gives the half-precision sum).
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

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{Capability, LoopControl, Op, SelectionControl, StorageClass, Word};

use crate::lower::model::{Model, Site, id, is_atomic, with_ids};
use crate::{Error, Result};

/// What the pass did: memory sites retyped, and the compare-exchanges (by
/// result id) that sit in retry loops of their own.
pub struct FloatAtomics {
    /// Float memory sites retyped to `int`.
    pub sites: usize,
    /// Compare-exchanges the IR pass may leave weak.
    pub weak: Vec<Word>,
}

/// Rewrites every `double` atomic, every `float16_t` atomic of `halves`
/// (the words pass's), and every `float` atomic (with `everywhere`, also
/// those on storage buffers, which native float atomics could do).
pub fn emulate_float_atomics(
    m: &mut Model,
    everywhere: bool,
    loops: &WordLoops,
) -> Result<FloatAtomics> {
    let mut weak = half_atomics(m, &loops.halves)?;
    weak.extend(masked_stores(m, &loops.stores)?);
    let mut out = FloatAtomics { sites: 0, weak };
    let skip: Vec<Word> = loops.halves.iter().map(|h| h.result).collect();
    // `double` atomics are never native in WGSL.
    for (width, everywhere) in [(32, everywhere), (64, true)] {
        let Some(float) = m.float_of_width(width) else {
            continue;
        };
        let done = emulate_width(m, float, width, everywhere, &skip)?;
        out.sites += done.sites;
        out.weak.extend(done.weak);
    }
    // naga's reader knows no min/max extension, nor 16- or 64-bit float
    // atomics; none is left to need them.
    m.drop_capabilities(
        &[
            Capability::AtomicFloat16MinMaxEXT,
            Capability::AtomicFloat32MinMaxEXT,
            Capability::AtomicFloat64MinMaxEXT,
            Capability::AtomicFloat16AddEXT,
            Capability::AtomicFloat64AddEXT,
        ],
        &[
            "SPV_EXT_shader_atomic_float_min_max",
            "SPV_EXT_shader_atomic_float16_add",
        ],
    );
    Ok(out)
}

/// What the word-addressed memory passes leave for this pass to make loops
/// of compare-exchanges on a 32-bit word.
#[derive(Debug, Default)]
pub struct WordLoops {
    /// `float16_t` atomics.
    pub halves: Vec<HalfAtomic>,
    /// Stores below a word's size.
    pub stores: Vec<MaskedStore>,
}

impl WordLoops {
    /// Adds `other`'s loops to these.
    pub fn extend(&mut self, other: WordLoops) {
        self.halves.extend(other.halves);
        self.stores.extend(other.stores);
    }
}

/// A store of an 8- or 16-bit value into its word, which the words pass
/// leaves as an `OpAtomicOr` of the value's bits in place (`result` its
/// id) and this pass makes a loop of compare-exchanges that writes those
/// bits and keeps the word's others (`keep`, a `uint` mask). Clearing with
/// `atomicAnd` and then setting with `atomicOr` loses no neighbour's store,
/// but two invocations racing on one element would leave the OR of their
/// values, where the original leaves one of them.
#[derive(Clone, Copy, Debug)]
pub struct MaskedStore {
    /// The `OpAtomicOr`'s result id.
    pub result: Word,
    /// A `uint`: the bits of the word the store keeps.
    pub keep: Word,
}

/// A `float16_t` atomic the words pass left on a 32-bit word: the
/// instruction (an `OpAtomicFAddEXT`, `OpAtomicFMinEXT`, `OpAtomicFMaxEXT`
/// or `OpAtomicExchange` of an `f32` value, halfs being `f32`s by then)
/// whose pointer is now to the `uint` word, and where in it the half sits.
#[derive(Clone, Copy, Debug)]
pub struct HalfAtomic {
    /// The atomic's result id.
    pub result: Word,
    /// A `uint`: the half's lowest bit in the word (0 or 16).
    pub shift: Word,
}

/// Rewrites the `float` (`width` 32) or `double` (64) atomics of `float`
/// but those whose result is in `skip`.
fn emulate_width(
    m: &mut Model,
    float: Word,
    width: u32,
    everywhere: bool,
    skip: &[Word],
) -> Result<FloatAtomics> {
    let sites = float_sites(m, float, everywhere, skip)?;
    if sites.is_empty() {
        return Ok(FloatAtomics {
            sites: 0,
            weak: Vec::new(),
        });
    }
    let int = m.int_type(width, true);
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
    let weak = read_modify_writes(m, float, int, width)?;
    Ok(FloatAtomics {
        sites: sites.len(),
        weak,
    })
}

/// The float memory sites atomics use, with their storage class.
fn float_sites(
    m: &Model,
    float: Word,
    everywhere: bool,
    skip: &[Word],
) -> Result<Vec<(Site, StorageClass)>> {
    let mut sites: Vec<(Site, StorageClass)> = Vec::new();
    for inst in m.instructions() {
        let op = inst.class.opcode;
        if !is_atomic(op) || inst.result_id.is_some_and(|r| skip.contains(&r)) {
            continue;
        }
        let data_ty = m.atomic_value_type(inst);
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
    /// The signed integer of the float's width.
    int: Word,
    boolean: Word,
    /// `ptr<function, int>`: the loops keep the value they saw in a
    /// variable, not a phi, so that naga stores it in the loop's body
    /// (its GLSL writer cannot name an atomic's result in `continuing`).
    int_ptr: Word,
    /// `int` 0.
    zero: Word,
    /// The bits of +infinity: a NaN's magnitude is above them.
    infinity: Word,
    /// Every bit but the sign.
    magnitude: Word,
    constant_true: Word,
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
fn read_modify_writes(m: &mut Model, float: Word, int: Word, width: u32) -> Result<Vec<Word>> {
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
    let (infinity, magnitude) = if width == 64 {
        (0x7ff0_0000_0000_0000, 0x7fff_ffff_ffff_ffff)
    } else {
        (0x7f80_0000, 0x7fff_ffff)
    };
    let c = Common {
        float,
        int,
        boolean: m.bool_type(),
        int_ptr: m.pointer_to(StorageClass::Function, int),
        zero: m.constant(int, 0),
        infinity: m.constant(int, infinity),
        magnitude: m.constant(int, magnitude),
        constant_true: m.bool_constant(true),
    };
    in_loops(m, is_rmw, c.int_ptr, |cfg, inst, weak| {
        let rmw = Rmw::of(inst);
        let old = if rmw.op == Op::AtomicFAddEXT {
            add_loop(cfg, &c, &rmw, weak)
        } else {
            min_max(cfg, &c, &rmw, weak)
        };
        cfg.push(with_ids(Op::Bitcast, Some(float), Some(rmw.result), &[old]));
    })
}

impl Rmw {
    fn of(inst: &Instruction) -> Rmw {
        Rmw {
            op: inst.class.opcode,
            ptr: inst.operands.first().and_then(id).unwrap_or(0),
            scope: inst.operands[1].clone(),
            semantics: inst.operands[2].clone(),
            value: inst.operands.get(3).and_then(id).unwrap_or(0),
            result: inst.result_id.unwrap_or(0),
        }
    }
}

/// Splits every block holding an instruction `chosen` picks at each one,
/// which `emit` replaces with control flow on `cfg` (its loops' variables
/// of type `var_ptr`, its compare-exchanges pushed on the list returned).
fn in_loops(
    m: &mut Model,
    chosen: impl Fn(&Model, &Instruction) -> bool,
    var_ptr: Word,
    mut emit: impl FnMut(&mut Cfg, &Instruction, &mut Vec<Word>),
) -> Result<Vec<Word>> {
    // Pointer, scope, semantics and value, and a result: malformed SPIR-V
    // may have fewer, which the rewrites would index past.
    if let Some(i) = m
        .instructions()
        .find(|i| chosen(m, i) && (i.operands.len() < 4 || i.result_id.is_none()))
    {
        return Err(Error::shader(format!(
            "malformed SPIR-V: an Op{:?} where a float atomic was found, with {} operands (an atomic has 4 and a result)",
            i.class.opcode,
            i.operands.len()
        )));
    }
    let mut weak = Vec::new();
    // Where each split block's last instructions went, for the phis of its
    // successors (not the loops' own, which name the block as it now is).
    let mut moved: HashMap<Word, Word> = HashMap::default();
    let mut own_phis: Vec<Word> = Vec::new();
    // The variables each function's loops keep their values in.
    let mut variables: Vec<(usize, Word)> = Vec::new();
    m.rewrite_blocks(|m, fi, block| {
        if !block.instructions.iter().any(|i| chosen(m, i)) {
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
            if chosen(m, inst) {
                emit(&mut cfg, inst, &mut weak);
            } else {
                cfg.push(inst.clone());
            }
        }
        moved.insert(label, cfg.label);
        // The loops' phis, not the block's own (which may name a block
        // split before this one, and must be repointed like any other).
        let original: Vec<Word> = block
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .filter_map(|i| i.result_id)
            .collect();
        own_phis.extend(cfg.phis().into_iter().filter(|p| !original.contains(p)));
        variables.extend(cfg.variables.iter().map(|&v| (fi, v)));
        Ok(Some(cfg.finish(block.label.clone())))
    })?;
    declare_variables(m, &variables, var_ptr);
    repoint_phis(m, &moved, &own_phis)?;
    Ok(weak)
}

/// Phis that named a split block as a predecessor name the block its
/// terminator went to (`moved`), but the loops' own (`own_phis`), which
/// name the blocks as they now are.
fn repoint_phis(m: &mut Model, moved: &HashMap<Word, Word>, own_phis: &[Word]) -> Result<()> {
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
    Ok(())
}

/// Ids the half loops share.
struct HalfIds {
    uint: Word,
    float: Word,
    boolean: Word,
    glsl: Word,
    vec2: Word,
    float_zero: Word,
    /// `uint` constants: 0xffff, 0x7fff, 0x7c00 (a half's infinity), the
    /// `f32` magnitude mask and infinity, and the `f32` sign bit.
    low16: Word,
    half_magnitude: Word,
    half_infinity: Word,
    magnitude: Word,
    infinity: Word,
    sign: Word,
    constant_true: Word,
}

/// Turns every atomic of `halves` into a loop on its word (module docs);
/// returns the compare-exchanges made.
fn half_atomics(m: &mut Model, halves: &[HalfAtomic]) -> Result<Vec<Word>> {
    if halves.is_empty() {
        return Ok(Vec::new());
    }
    let shifts: HashMap<Word, Word> = halves.iter().map(|h| (h.result, h.shift)).collect();
    let uint = m.uint();
    let float = m.float_type(32);
    let h = HalfIds {
        uint,
        float,
        boolean: m.bool_type(),
        glsl: m.glsl_std_450(),
        vec2: m.vector_type(float, 2),
        float_zero: m.constant(float, 0),
        low16: m.constant(uint, 0xffff),
        half_magnitude: m.constant(uint, 0x7fff),
        half_infinity: m.constant(uint, 0x7c00),
        magnitude: m.constant(uint, 0x7fff_ffff),
        infinity: m.constant(uint, 0x7f80_0000),
        sign: m.constant(uint, 0x8000_0000),
        constant_true: m.bool_constant(true),
    };
    let var_ptr = m.pointer_to(StorageClass::Function, uint);
    let chosen = |_: &Model, i: &Instruction| i.result_id.is_some_and(|r| shifts.contains_key(&r));
    in_loops(m, chosen, var_ptr, |cfg, inst, weak| {
        let rmw = Rmw::of(inst);
        half_loop(cfg, &h, &rmw, shifts[&rmw.result], weak);
    })
}

/// Turns every store of `stores` into a loop on its word:
///
/// ```text
/// seen = atomicLoad(word)
/// loop {
///     new = (seen & keep) | bits
///     if new == seen break                        // nothing to write
///     r = atomicCompareExchangeWeak(word, seen, new); if r.exchanged break; seen = r.old_value
/// }
/// ```
///
/// Returns the compare-exchanges made.
fn masked_stores(m: &mut Model, stores: &[MaskedStore]) -> Result<Vec<Word>> {
    if stores.is_empty() {
        return Ok(Vec::new());
    }
    let keeps: HashMap<Word, Word> = stores.iter().map(|s| (s.result, s.keep)).collect();
    let uint = m.uint();
    let ids = (uint, m.bool_type(), m.bool_constant(true));
    let var_ptr = m.pointer_to(StorageClass::Function, uint);
    let chosen = |_: &Model, i: &Instruction| i.result_id.is_some_and(|r| keeps.contains_key(&r));
    in_loops(m, chosen, var_ptr, |cfg, inst, weak| {
        let rmw = Rmw::of(inst);
        let keep = keeps[&rmw.result];
        let first = atomic_load(cfg, uint, &rmw);
        let last = cas_loop(cfg, ids, &rmw, first, weak, |cfg, old| {
            let kept = cfg.op(Op::BitwiseAnd, uint, &[old, keep]);
            let new = cfg.op(Op::BitwiseOr, uint, &[kept, rmw.value]);
            (cfg.op(Op::INotEqual, ids.1, &[new, old]), new)
        });
        cfg.push(with_ids(
            Op::CopyObject,
            Some(uint),
            Some(rmw.result),
            &[last],
        ));
    })
}

/// Whether a min (`min`) or max of number `value` (with whether its sign
/// bit is set) replaces `x` (with whether it is a NaN):
///
/// ```text
/// isnan(x) || v < x || (v == x && signbit(v))    (min)
/// isnan(x) || v > x || (v == x && !signbit(v))   (max)
/// ```
fn replaces(
    cfg: &mut Cfg,
    b: Word,
    min: bool,
    (value, sign_set): (Word, Word),
    (x, x_nan): (Word, Word),
) -> Word {
    let order = if min {
        Op::FOrdLessThan
    } else {
        Op::FOrdGreaterThan
    };
    let beats = cfg.op(order, b, &[value, x]);
    let equal = cfg.op(Op::FOrdEqual, b, &[value, x]);
    let signed_right = if min {
        sign_set
    } else {
        cfg.op(Op::LogicalNot, b, &[sign_set])
    };
    let tie = cfg.op(Op::LogicalAnd, b, &[equal, signed_right]);
    let better = cfg.op(Op::LogicalOr, b, &[beats, tie]);
    cfg.op(Op::LogicalOr, b, &[better, x_nan])
}

/// One `float16_t` atomic on the half at bit `shift` of word `rmw.ptr`:
///
/// ```text
/// seen = atomicLoad(word)
/// loop {
///     x = half at shift of seen; new = insert(seen, pack(op(x, v)))
///     if new == seen break                        // nothing to write
///     r = atomicCompareExchangeWeak(word, seen, new); if r.exchanged break; seen = r.old_value
/// }
/// result = half at shift of seen
/// ```
///
/// `atomicMin`/`atomicMax` follow the `float` ones' rules (module docs):
/// a NaN value changes nothing, a NaN in memory takes the value, -0 is
/// below +0.
fn half_loop(cfg: &mut Cfg, h: &HalfIds, rmw: &Rmw, shift: Word, weak: &mut Vec<Word>) {
    let (b, uint) = (h.boolean, h.uint);
    let first = atomic_load(cfg, uint, rmw);
    let mask = cfg.op(Op::ShiftLeftLogical, uint, &[h.low16, shift]);
    let keep = cfg.op(Op::Not, uint, &[mask]);
    let ids = (uint, b, h.constant_true);
    let last = cas_loop(cfg, ids, rmw, first, weak, |cfg, old| {
        let shifted = cfg.op(Op::ShiftRightLogical, uint, &[old, shift]);
        let x = unpack_half(cfg, h, shifted);
        let new_value = match rmw.op {
            Op::AtomicFAddEXT => cfg.op(Op::FAdd, h.float, &[x, rmw.value]),
            Op::AtomicExchange => rmw.value,
            _ => {
                // A NaN value changes nothing; otherwise as for floats.
                let min = rmw.op == Op::AtomicFMinEXT;
                let half_bits = cfg.op(Op::BitwiseAnd, uint, &[shifted, h.half_magnitude]);
                let x_nan = cfg.op(Op::UGreaterThan, b, &[half_bits, h.half_infinity]);
                let v_bits = cfg.op(Op::Bitcast, uint, &[rmw.value]);
                let v_abs = cfg.op(Op::BitwiseAnd, uint, &[v_bits, h.magnitude]);
                let v_nan = cfg.op(Op::UGreaterThan, b, &[v_abs, h.infinity]);
                let v_number = cfg.op(Op::LogicalNot, b, &[v_nan]);
                let sign_set = cfg.op(Op::UGreaterThanEqual, b, &[v_bits, h.sign]);
                let takes = replaces(cfg, b, min, (rmw.value, sign_set), (x, x_nan));
                let write = cfg.op(Op::LogicalAnd, b, &[takes, v_number]);
                cfg.op(Op::Select, h.float, &[write, rmw.value, x])
            }
        };
        let pair = cfg.op(Op::CompositeConstruct, h.vec2, &[new_value, h.float_zero]);
        let packed = cfg.ext(
            h.glsl,
            uint,
            crate::lower::spirv::halfs::PACK_HALF_2X16,
            pair,
        );
        let placed = cfg.op(Op::ShiftLeftLogical, uint, &[packed, shift]);
        let kept = cfg.op(Op::BitwiseAnd, uint, &[old, keep]);
        let new = cfg.op(Op::BitwiseOr, uint, &[kept, placed]);
        // Nothing to write when the half would not change.
        (cfg.op(Op::INotEqual, b, &[new, old]), new)
    });
    let at = cfg.op(Op::ShiftRightLogical, uint, &[last, shift]);
    let result = unpack_half(cfg, h, at);
    cfg.push(with_ids(
        Op::CopyObject,
        Some(h.float),
        Some(rmw.result),
        &[result],
    ));
}

/// An atomic load of `rmw.ptr`, as `ty`.
fn atomic_load(cfg: &mut Cfg, ty: Word, rmw: &Rmw) -> Word {
    let r = cfg.fresh();
    cfg.push(Instruction::new(
        Op::AtomicLoad,
        Some(ty),
        Some(r),
        vec![
            Operand::IdRef(rmw.ptr),
            rmw.scope.clone(),
            rmw.semantics.clone(),
        ],
    ));
    r
}

/// The half in the low 16 bits of `bits`, as an `f32`.
fn unpack_half(cfg: &mut Cfg, h: &HalfIds, bits: Word) -> Word {
    let pair = cfg.ext(
        h.glsl,
        h.vec2,
        crate::lower::spirv::halfs::UNPACK_HALF_2X16,
        bits,
    );
    let r = cfg.fresh();
    cfg.push(Instruction::new(
        Op::CompositeExtract,
        Some(h.float),
        Some(r),
        vec![Operand::IdRef(pair), Operand::LiteralBit32(0)],
    ));
    r
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

    /// Emits GLSL.std.450 instruction `inst` of `set` on one argument.
    fn ext(&mut self, set: Word, ty: Word, inst: u32, arg: Word) -> Word {
        let r = self.fresh();
        self.push(Instruction::new(
            Op::ExtInst,
            Some(ty),
            Some(r),
            vec![
                Operand::IdRef(set),
                Operand::LiteralExtInstInteger(inst),
                Operand::IdRef(arg),
            ],
        ));
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
    (ty, boolean): (Word, Word),
    rmw: &Rmw,
    (old, new, seen): (Word, Word, Word),
    weak: &mut Vec<Word>,
) -> Word {
    cfg.push(Instruction::new(
        Op::AtomicCompareExchange,
        Some(ty),
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
    cfg.op(Op::IEqual, boolean, &[seen, old])
}

/// A loop of compare-exchanges of `ty` values on `rmw.ptr`, from `start`:
/// each turn `step` computes, from the value seen, whether to write and
/// what; the loop stops when it need not write or a compare-exchange took.
/// Returns the value memory held before (what the atomic returns).
fn cas_loop(
    cfg: &mut Cfg,
    (ty, boolean, constant_true): (Word, Word, Word),
    rmw: &Rmw,
    start: Word,
    weak: &mut Vec<Word>,
    step: impl FnOnce(&mut Cfg, Word) -> (Word, Word),
) -> Word {
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
    let old = cfg.op(Op::Load, ty, &[seen_var]);
    let (write, new) = step(cfg, old);
    // The block `step` ended in.
    let decided = cfg.label;
    cfg.push(selection_merge(join));
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[write, cas, join]),
        cas,
    );
    let seen = cfg.fresh();
    let same = compare_exchange(cfg, (ty, boolean), rmw, (old, new, seen), weak);
    cfg.store(seen_var, seen);
    cfg.branch(join);
    let done = cfg.op(Op::Phi, boolean, &[constant_true, decided, same, cas]);
    cfg.close(
        with_ids(Op::BranchConditional, None, None, &[done, merge, cont]),
        cont,
    );
    cfg.close(with_ids(Op::Branch, None, None, &[header]), merge);
    // Left without writing, or taken: memory held what it saw.
    cfg.op(Op::Load, ty, &[seen_var])
}

/// Float `atomicAdd`: a compare-exchange loop; returns the old bits.
fn add_loop(cfg: &mut Cfg, c: &Common, rmw: &Rmw, weak: &mut Vec<Word>) -> Word {
    let first = atomic_load(cfg, c.int, rmw);
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
    let same = compare_exchange(cfg, (c.int, c.boolean), rmw, (old, sum_bits, seen), weak);
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
    let magnitude = cfg.op(Op::BitwiseAnd, int, &[bits, c.magnitude]);
    let value_nan = cfg.op(Op::SGreaterThan, b, &[magnitude, c.infinity]);
    let negative = cfg.op(Op::SLessThan, b, &[bits, c.zero]);
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
        let m = cfg.op(Op::BitwiseAnd, int, &[kept, c.magnitude]);
        let nan = cfg.op(Op::SGreaterThan, b, &[m, c.infinity]);
        let neg = cfg.op(Op::SLessThan, b, &[kept, c.zero]);
        cfg.op(Op::LogicalAnd, b, &[nan, neg])
    } else {
        cfg.op(Op::SGreaterThan, b, &[kept, c.infinity])
    };
    cfg.close(with_ids(Op::Branch, None, None, &[chosen]), slow);
    // Slow: a negative value loops from what memory holds; a NaN reads it.
    let read = atomic_load(cfg, int, rmw);
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
    cas_loop(
        cfg,
        (int, b, c.constant_true),
        rmw,
        start,
        weak,
        |cfg, old| {
            // WGSL has no isNan: a NaN's magnitude exceeds infinity's (v is no
            // NaN here).
            let as_float = cfg.op(Op::Bitcast, c.float, &[old]);
            let old_abs = cfg.op(Op::BitwiseAnd, int, &[old, c.magnitude]);
            let old_nan = cfg.op(Op::SGreaterThan, b, &[old_abs, c.infinity]);
            let sign_set = cfg.op(Op::SLessThan, b, &[bits, c.zero]);
            let write = replaces(cfg, b, min, (rmw.value, sign_set), (as_float, old_nan));
            (write, bits)
        },
    )
}
