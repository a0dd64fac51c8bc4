//! SPIR-V pass: float atomics (GL_EXT_shader_atomic_float `atomicAdd` and
//! `atomicExchange` on `float`) on adapters without SHADER_FLOAT32_ATOMIC.
//!
//! Core WGSL has atomics on `i32` and `u32` only. The float memory is
//! retyped to `uint` holding the same bits: plain and atomic loads and
//! stores bitcast, `atomicExchange` exchanges the bit pattern, and
//! `atomicAdd` becomes a compare-exchange loop on the bit pattern:
//!
//! ```text
//! old = atomicLoad(p)
//! loop { seen = atomicCompSwap(p, old, bits(float(old) + v)); if seen == old break; old = seen }
//! return float(old)
//! ```
//!
//! `atomicMin` and `atomicMax` (GL_EXT_shader_atomic_float2) loop the same
//! way, but stop without writing when the value would not change (the
//! operation then took effect at the atomic load that saw the old value).
//! Their results follow IEEE 754 minNum/maxNum, the extension's meaning
//! with one choice made where implementations differ: a NaN operand loses
//! to a number (memory holding NaN takes the value; a NaN value leaves memory
//! as it is), and -0.0 is less than +0.0 (`atomicMin(+0.0, -0.0)` stores
//! -0.0, `atomicMax(-0.0, +0.0)` stores +0.0).
//!
//! The compare-exchange is made strong by the IR pass, like any other.

use rspirv::dr::{Block, Instruction, Module, Operand};
use rspirv::spirv::{Capability, LoopControl, Op, StorageClass, Word};

use super::spirv::{
    Defs, Rewriter, Site, all_function_instructions, id, is_atomic, result_types, site_anchor,
    with_ids,
};
use crate::{Error, Result};

/// Rewrites every float atomic; returns how many memory sites were retyped.
pub fn emulate_float_atomics(module: &mut Module, everywhere: bool) -> Result<usize> {
    let defs = Defs::new(module);
    let floats: Vec<Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeFloat && i.operands == [Operand::LiteralBit32(32)])
        .filter_map(|i| i.result_id)
        .collect();
    if floats.is_empty() {
        return Ok(0);
    }
    let result_type = |id: Word| defs.def(id).and_then(|d| d.result_type);
    let mut sites: Vec<(Site, StorageClass)> = Vec::new();
    for inst in all_function_instructions(module) {
        let op = inst.class.opcode;
        if !is_atomic(op) {
            continue;
        }
        let data_ty = if op == Op::AtomicStore {
            inst.operands.get(3).and_then(id).and_then(result_type)
        } else {
            inst.result_type
        };
        if !data_ty.is_some_and(|t| floats.contains(&t)) {
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
        let site = float_site(&defs, ptr)?;
        // Native float atomics (`atomic<f32>`) exist in storage buffers
        // only, and for add and exchange only: min and max are always loops.
        let native_op = !matches!(op, Op::AtomicFMinEXT | Op::AtomicFMaxEXT);
        if !everywhere && site.1 != StorageClass::Workgroup && native_op {
            continue;
        }
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    if sites.is_empty() {
        return Ok(0);
    }
    let mut rw = Rewriter::new(module);
    for &(site, class) in &sites {
        let uint = rw.uint_type(site_anchor(site));
        match site {
            Site::Member(s, k) => rw.set_operand(s, k as usize, uint),
            Site::Element(a) => rw.set_operand(a, 0, uint),
            Site::Variable(v) => {
                let ptr = rw.pointer_to(class, uint);
                rw.set_result_type(v, ptr);
            }
        }
    }
    rw.retype_access_chains()?;
    rw.rewrite_float_accesses(&floats)?;
    // naga's reader knows no min/max extension; none is left to need it.
    module.extensions.retain(|e| {
        !matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == "SPV_EXT_shader_atomic_float_min_max")
    });
    module.capabilities.retain(|c| {
        !matches!(
            c.operands.first(),
            Some(Operand::Capability(
                Capability::AtomicFloat16MinMaxEXT
                    | Capability::AtomicFloat32MinMaxEXT
                    | Capability::AtomicFloat64MinMaxEXT
            ))
        )
    });
    Ok(sites.len())
}

/// Where the float that `ptr` points at sits.
fn float_site(defs: &Defs, ptr: Word) -> Result<(Site, StorageClass)> {
    let unsupported =
        || Error::Unsupported("a float atomic through a pointer atomport cannot follow".into());
    let def = defs.def(ptr).ok_or_else(unsupported)?;
    let class_of = |ptr_ty: Option<Word>| ptr_ty.and_then(|t| defs.pointer(t)).map(|p| p.0);
    match def.class.opcode {
        Op::Variable if defs.globals.contains_key(&ptr) => Ok((
            Site::Variable(ptr),
            class_of(def.result_type).ok_or_else(unsupported)?,
        )),
        Op::AccessChain | Op::InBoundsAccessChain => {
            let base = id(&def.operands[0]).unwrap_or(0);
            let base_ty = defs.def(base).and_then(|d| d.result_type);
            let (class, mut ty) = base_ty
                .and_then(|t| defs.pointer(t))
                .ok_or_else(unsupported)?;
            let mut site = None;
            for op in &def.operands[1..] {
                let index = id(op).unwrap_or(0);
                let t = defs.globals.get(&ty).ok_or_else(unsupported)?;
                match t.class.opcode {
                    Op::TypeStruct => {
                        let k = defs.constant_u32(index).ok_or_else(unsupported)?;
                        site = Some(Site::Member(ty, k));
                        ty = t.operands.get(k as usize).and_then(id).ok_or_else(|| {
                            Error::shader(format!(
                                "malformed SPIR-V: member {k} of a struct with {} members",
                                t.operands.len()
                            ))
                        })?;
                    }
                    Op::TypeArray | Op::TypeRuntimeArray => {
                        site = Some(Site::Element(ty));
                        ty = t.operands.first().and_then(id).unwrap_or(0);
                    }
                    _ => return Err(unsupported()),
                }
            }
            site.map(|s| (s, class)).ok_or_else(unsupported)
        }
        _ => Err(unsupported()),
    }
}

impl Rewriter<'_> {
    /// Bitcasts every float access of retyped memory and turns float
    /// `atomicAdd`, `atomicMin` and `atomicMax` into compare-exchange loops.
    fn rewrite_float_accesses(&mut self, floats: &[Word]) -> Result<()> {
        let uint = self.uint_type_at_start();
        let boolean = self.bool_type();
        // The min/max loops' constants, made only when there are some.
        let min_max = all_function_instructions(self.module)
            .any(|i| matches!(i.class.opcode, Op::AtomicFMinEXT | Op::AtomicFMaxEXT));
        let mut constant = |op: Op, bits: Option<u32>| {
            if !min_max {
                return 0;
            }
            let ty = if op == Op::ConstantTrue {
                boolean
            } else {
                uint
            };
            self.constant(ty, op, bits)
        };
        let constant_true = constant(Op::ConstantTrue, None);
        let sign_bit = constant(Op::Constant, Some(0x8000_0000));
        let zero = constant(Op::Constant, Some(0));
        let magnitude = constant(Op::Constant, Some(0x7fff_ffff));
        let infinity = constant(Op::Constant, Some(0x7f80_0000));
        let defs = Defs::new(self.module);
        let result_types = result_types(self.module);
        let points_at_uint = |ptr: Word| {
            result_types
                .get(&ptr)
                .and_then(|t| defs.pointer(*t))
                .is_some_and(|(_, p)| p == uint)
        };
        let is_float = |v: Word| result_types.get(&v).is_some_and(|t| floats.contains(t));
        let mut bound = self.module.header.as_ref().map_or(0, |h| h.bound);
        let mut fresh = || {
            bound += 1;
            bound - 1
        };
        for f in &mut self.module.functions {
            let mut bi = 0;
            while bi < f.blocks.len() {
                let mut ii = 0;
                while ii < f.blocks[bi].instructions.len() {
                    let inst = f.blocks[bi].instructions[ii].clone();
                    let op = inst.class.opcode;
                    let ptr = match op {
                        Op::Load
                        | Op::Store
                        | Op::AtomicLoad
                        | Op::AtomicStore
                        | Op::AtomicExchange
                        | Op::AtomicFAddEXT
                        | Op::AtomicFMinEXT
                        | Op::AtomicFMaxEXT => inst.operands.first().and_then(id),
                        _ => None,
                    };
                    let Some(ptr) = ptr.filter(|p| points_at_uint(*p)) else {
                        ii += 1;
                        continue;
                    };
                    let block = &mut f.blocks[bi].instructions;
                    match op {
                        Op::Load | Op::AtomicLoad | Op::AtomicExchange
                            if inst.result_type.is_some_and(|t| floats.contains(&t)) =>
                        {
                            let float = inst.result_type.unwrap_or(0);
                            let result = inst.result_id.unwrap_or(0);
                            let bits = fresh();
                            let mut new = inst.clone();
                            new.result_type = Some(uint);
                            new.result_id = Some(bits);
                            let mut at = ii;
                            if op == Op::AtomicExchange {
                                let value = id(&inst.operands[3]).unwrap_or(0);
                                let value_bits = fresh();
                                block.insert(at, bitcast(uint, value_bits, value));
                                at += 1;
                                new.operands[3] = Operand::IdRef(value_bits);
                            }
                            block[at] = new;
                            block.insert(at + 1, bitcast(float, result, bits));
                            ii = at + 2;
                        }
                        Op::Store | Op::AtomicStore => {
                            let k = if op == Op::Store { 1 } else { 3 };
                            let value = id(&inst.operands[k]).unwrap_or(0);
                            if !is_float(value) {
                                ii += 1;
                                continue;
                            }
                            let bits = fresh();
                            block.insert(ii, bitcast(uint, bits, value));
                            block[ii + 1].operands[k] = Operand::IdRef(bits);
                            ii += 2;
                        }
                        Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                            if block.iter().any(|i| i.class.opcode == Op::LoopMerge) {
                                return Err(Error::Unsupported(
                                    "a float atomic in a loop header block".into(),
                                ));
                            }
                            let float = inst.result_type.unwrap_or(0);
                            let result = inst.result_id.unwrap_or(0);
                            let scope = inst.operands[1].clone();
                            let semantics = inst.operands[2].clone();
                            let value = id(&inst.operands[3]).unwrap_or(0);
                            let this = f.blocks[bi]
                                .label
                                .as_ref()
                                .and_then(|l| l.result_id)
                                .unwrap_or(0);
                            let (header, body, cont, merge) = (fresh(), fresh(), fresh(), fresh());
                            let (first, old, as_float, sum, sum_bits, seen, same) = (
                                fresh(),
                                fresh(),
                                fresh(),
                                fresh(),
                                fresh(),
                                fresh(),
                                fresh(),
                            );
                            // The rest of the block, terminator included, moves to `merge`.
                            let rest: Vec<Instruction> =
                                f.blocks[bi].instructions.split_off(ii + 1);
                            let block = &mut f.blocks[bi].instructions;
                            block.pop();
                            block.push(Instruction::new(
                                Op::AtomicLoad,
                                Some(uint),
                                Some(first),
                                vec![Operand::IdRef(ptr), scope.clone(), semantics.clone()],
                            ));
                            block.push(branch(header));
                            let body_blocks = if op != Op::AtomicFAddEXT {
                                let ids = MinMaxIds {
                                    uint,
                                    boolean,
                                    float,
                                    constant_true,
                                    sign_bit,
                                    zero,
                                    magnitude,
                                    infinity,
                                    ptr,
                                    value,
                                    old,
                                    seen,
                                    same,
                                    merge,
                                    cont,
                                    as_float,
                                };
                                min_max_blocks(
                                    op == Op::AtomicFMinEXT,
                                    body,
                                    &ids,
                                    scope.clone(),
                                    semantics.clone(),
                                    &mut fresh,
                                )
                            } else {
                                vec![labelled(
                                    body,
                                    vec![
                                        bitcast(float, as_float, old),
                                        Instruction::new(
                                            Op::FAdd,
                                            Some(float),
                                            Some(sum),
                                            vec![Operand::IdRef(as_float), Operand::IdRef(value)],
                                        ),
                                        bitcast(uint, sum_bits, sum),
                                        Instruction::new(
                                            Op::AtomicCompareExchange,
                                            Some(uint),
                                            Some(seen),
                                            vec![
                                                Operand::IdRef(ptr),
                                                scope,
                                                semantics.clone(),
                                                semantics,
                                                Operand::IdRef(sum_bits),
                                                Operand::IdRef(old),
                                            ],
                                        ),
                                        Instruction::new(
                                            Op::IEqual,
                                            Some(boolean),
                                            Some(same),
                                            vec![Operand::IdRef(seen), Operand::IdRef(old)],
                                        ),
                                        Instruction::new(
                                            Op::BranchConditional,
                                            None,
                                            None,
                                            vec![
                                                Operand::IdRef(same),
                                                Operand::IdRef(merge),
                                                Operand::IdRef(cont),
                                            ],
                                        ),
                                    ],
                                )]
                            };
                            // The value the header carries round: `seen`,
                            // or for min/max the join's phi.
                            let next = match body_blocks.last().and_then(|b| b.instructions.get(1))
                            {
                                Some(i) if body_blocks.len() > 1 => i.result_id.unwrap_or(seen),
                                _ => seen,
                            };
                            let header_block = labelled(
                                header,
                                vec![
                                    with_ids(
                                        Op::Phi,
                                        Some(uint),
                                        Some(old),
                                        &[first, this, next, cont],
                                    ),
                                    Instruction::new(
                                        Op::LoopMerge,
                                        None,
                                        None,
                                        vec![
                                            Operand::IdRef(merge),
                                            Operand::IdRef(cont),
                                            Operand::LoopControl(LoopControl::NONE),
                                        ],
                                    ),
                                    branch(body),
                                ],
                            );
                            let cont_block = labelled(cont, vec![branch(header)]);
                            let mut merge_instructions = vec![bitcast(float, result, old)];
                            merge_instructions.extend(rest);
                            let merge_block = labelled(merge, merge_instructions);
                            // Phis elsewhere that named this block as a predecessor now name `merge`.
                            for b in f.blocks.iter_mut() {
                                for i in b
                                    .instructions
                                    .iter_mut()
                                    .filter(|i| i.class.opcode == Op::Phi)
                                {
                                    for pair in i.operands.chunks_mut(2) {
                                        if pair[1] == Operand::IdRef(this) {
                                            pair[1] = Operand::IdRef(merge);
                                        }
                                    }
                                }
                            }
                            let added = 3 + body_blocks.len();
                            let mut new_blocks = vec![header_block];
                            new_blocks.extend(body_blocks);
                            new_blocks.push(cont_block);
                            new_blocks.push(merge_block);
                            f.blocks.splice(bi + 1..bi + 1, new_blocks);
                            // Go on with the rest, now in `merge` (1 past the bitcast).
                            bi += added;
                            ii = 1;
                            continue;
                        }
                        _ => ii += 1,
                    }
                }
                bi += 1;
            }
        }
        if let Some(h) = self.module.header.as_mut() {
            h.bound = bound;
        }
        Ok(())
    }
}

fn bitcast(ty: Word, result: Word, value: Word) -> Instruction {
    Instruction::new(
        Op::Bitcast,
        Some(ty),
        Some(result),
        vec![Operand::IdRef(value)],
    )
}

fn branch(target: Word) -> Instruction {
    Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(target)])
}

fn labelled(label: Word, instructions: Vec<Instruction>) -> Block {
    Block {
        label: Some(Instruction::new(Op::Label, None, Some(label), vec![])),
        instructions,
    }
}

/// The ids a min/max loop body uses.
struct MinMaxIds {
    uint: Word,
    boolean: Word,
    float: Word,
    constant_true: Word,
    sign_bit: Word,
    zero: Word,
    magnitude: Word,
    infinity: Word,
    ptr: Word,
    value: Word,
    old: Word,
    seen: Word,
    same: Word,
    merge: Word,
    cont: Word,
    as_float: Word,
}

/// The body of a float min/max loop: `body` decides whether the value
/// replaces the old one; if so `cas` tries, and `join` leaves the loop when
/// there was nothing to write or the write took. The join's second
/// instruction is the phi of the value seen, which the header carries round.
fn min_max_blocks(
    min: bool,
    body: Word,
    ids: &MinMaxIds,
    scope: Operand,
    semantics: Operand,
    fresh: &mut impl FnMut() -> Word,
) -> Vec<Block> {
    let &MinMaxIds {
        uint,
        boolean,
        float,
        constant_true,
        sign_bit,
        zero,
        magnitude,
        infinity,
        ptr,
        value,
        old,
        seen,
        same,
        merge,
        cont,
        as_float,
    } = ids;
    let mut n = || fresh();
    let (cas, join, done, next) = (n(), n(), n(), n());
    let (value_nan, old_nan, beats, equal, value_bits, sign) = (n(), n(), n(), n(), n(), n());
    let (signed_right, tie, better, take, number, write) = (n(), n(), n(), n(), n(), n());
    let (value_abs, old_abs) = (n(), n());
    let op2 =
        |op: Op, ty: Word, r: Word, a: Word, b: Word| with_ids(op, Some(ty), Some(r), &[a, b]);
    let op1 = |op: Op, ty: Word, r: Word, a: Word| with_ids(op, Some(ty), Some(r), &[a]);
    // write = !isnan(v) && (isnan(x) || v < x || (v == x && signbit(v)))   (min)
    //         !isnan(v) && (isnan(x) || v > x || (v == x && !signbit(v)))  (max)
    // WGSL has no isNan: a NaN's magnitude bits exceed infinity's.
    let body_block = labelled(
        body,
        vec![
            bitcast(float, as_float, old),
            bitcast(uint, value_bits, value),
            op2(Op::BitwiseAnd, uint, value_abs, value_bits, magnitude),
            op2(Op::UGreaterThan, boolean, value_nan, value_abs, infinity),
            op2(Op::BitwiseAnd, uint, old_abs, old, magnitude),
            op2(Op::UGreaterThan, boolean, old_nan, old_abs, infinity),
            op2(
                if min {
                    Op::FOrdLessThan
                } else {
                    Op::FOrdGreaterThan
                },
                boolean,
                beats,
                value,
                as_float,
            ),
            op2(Op::FOrdEqual, boolean, equal, value, as_float),
            op2(Op::BitwiseAnd, uint, sign, value_bits, sign_bit),
            op2(
                if min { Op::INotEqual } else { Op::IEqual },
                boolean,
                signed_right,
                sign,
                zero,
            ),
            op2(Op::LogicalAnd, boolean, tie, equal, signed_right),
            op2(Op::LogicalOr, boolean, better, beats, tie),
            op2(Op::LogicalOr, boolean, take, better, old_nan),
            op1(Op::LogicalNot, boolean, number, value_nan),
            op2(Op::LogicalAnd, boolean, write, take, number),
            Instruction::new(
                Op::SelectionMerge,
                None,
                None,
                vec![
                    Operand::IdRef(join),
                    Operand::SelectionControl(rspirv::spirv::SelectionControl::NONE),
                ],
            ),
            Instruction::new(
                Op::BranchConditional,
                None,
                None,
                vec![
                    Operand::IdRef(write),
                    Operand::IdRef(cas),
                    Operand::IdRef(join),
                ],
            ),
        ],
    );
    let cas_block = labelled(
        cas,
        vec![
            Instruction::new(
                Op::AtomicCompareExchange,
                Some(uint),
                Some(seen),
                vec![
                    Operand::IdRef(ptr),
                    scope,
                    semantics.clone(),
                    semantics,
                    Operand::IdRef(value_bits),
                    Operand::IdRef(old),
                ],
            ),
            op2(Op::IEqual, boolean, same, seen, old),
            branch(join),
        ],
    );
    let join_block = labelled(
        join,
        vec![
            with_ids(
                Op::Phi,
                Some(boolean),
                Some(done),
                &[constant_true, body, same, cas],
            ),
            with_ids(Op::Phi, Some(uint), Some(next), &[old, body, seen, cas]),
            with_ids(Op::BranchConditional, None, None, &[done, merge, cont]),
        ],
    );
    vec![body_block, cas_block, join_block]
}
