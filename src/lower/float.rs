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
//! The compare-exchange is made strong by the IR pass, like any other.

use rspirv::dr::{Block, Instruction, Module, Operand};
use rspirv::spirv::{LoopControl, Op, StorageClass, Word};

use super::spirv::{
    Defs, Rewriter, Site, all_function_instructions, id, is_atomic, result_types, site_anchor,
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
            Op::AtomicLoad | Op::AtomicStore | Op::AtomicExchange | Op::AtomicFAddEXT
        ) {
            return Err(Error::Unsupported(format!(
                "float atomic {op:?} has no mapping (atomicAdd and atomicExchange on float do)"
            )));
        }
        let ptr = inst.operands.first().and_then(id).unwrap_or(0);
        let site = float_site(&defs, ptr)?;
        // Native float atomics (`atomic<f32>`) exist in storage buffers only.
        if !everywhere && site.1 != StorageClass::Workgroup {
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
    /// `atomicAdd` into a compare-exchange loop.
    fn rewrite_float_accesses(&mut self, floats: &[Word]) -> Result<()> {
        let uint = self.uint_type_at_start();
        let boolean = self.bool_type();
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
                        | Op::AtomicFAddEXT => inst.operands.first().and_then(id),
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
                        Op::AtomicFAddEXT => {
                            if block.iter().any(|i| i.class.opcode == Op::LoopMerge) {
                                return Err(Error::Unsupported(
                                    "a float atomicAdd in a loop header block".into(),
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
                            let header_block = labelled(
                                header,
                                vec![
                                    Instruction::new(
                                        Op::Phi,
                                        Some(uint),
                                        Some(old),
                                        vec![
                                            Operand::IdRef(first),
                                            Operand::IdRef(this),
                                            Operand::IdRef(seen),
                                            Operand::IdRef(cont),
                                        ],
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
                            let body_block = labelled(
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
                            f.blocks.splice(
                                bi + 1..bi + 1,
                                [header_block, body_block, cont_block, merge_block],
                            );
                            // Go on with the rest, now in `merge` (1 past the bitcast).
                            bi += 4;
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
