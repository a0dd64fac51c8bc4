//! SPIR-V pass: float values that are not finite, which WGSL forbids as
//! literals: constants glslang folded to infinities or NaNs, the constant
//! vectors holding them, and bitcasts of constant bits to them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use crate::Result;
use crate::lower::model::{Model, id, with_ids};

/// Both passes below, in their order: the constants first, whose
/// run-time bitcasts the second then reads from private variables.
pub fn non_finite_values(m: &mut Model) -> Result<()> {
    non_finite_constants(m)?;
    non_finite_bitcasts(m)?;
    Ok(())
}

/// `1.0 / 0.0` and other non-finite float constants: glslang folds them to
/// infinite or NaN literals, which WGSL forbids. Each function that uses one
/// gets it as a bitcast of its bits instead, made at the function's start.
/// A specialization constant whose value is not finite (`const float FAR =
/// 1e39;`, or given so) cannot be a WGSL override either: it becomes a
/// constant of its value (the caller's, applied before). Runs again after
/// the specialization constants are folded, which can make more.
pub fn non_finite_constants(m: &mut Model) -> Result<usize> {
    let Some(float) = m.float32() else {
        return Ok(0);
    };
    let infinite_specs: Vec<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::SpecConstant && i.result_type == Some(float))
        .filter(|i| {
            matches!(i.operands.first(), Some(Operand::LiteralBit32(b)) if !f32::from_bits(*b).is_finite())
        })
        .filter_map(|i| i.result_id)
        .collect();
    for c in infinite_specs {
        if let Some(spec) = m.global(c) {
            let constant = Instruction::new(
                Op::Constant,
                spec.result_type,
                spec.result_id,
                spec.operands.clone(),
            );
            m.replace_global(c, constant);
        }
        let module = m.module_mut();
        module.annotations.retain(|a| {
            !(a.operands.first() == Some(&Operand::IdRef(c))
                && a.operands.get(1)
                    == Some(&Operand::Decoration(rspirv::spirv::Decoration::SpecId)))
        });
    }
    let odd: Vec<(Word, u32)> = m
        .module()
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant && i.result_type == Some(float))
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(r), Some(Operand::LiteralBit32(b))) if !f32::from_bits(*b).is_finite() => {
                Some((r, *b))
            }
            _ => None,
        })
        .collect();
    if odd.is_empty() {
        return Ok(0);
    }
    // Constant composites that hold one, directly or through another
    // (`vec4(1.0, 0.0, 0.0, 1.0 / 0.0)`, which glslang folds whole): each
    // function that uses one builds it.
    let mut odd_held: HashSet<Word> = odd.iter().map(|o| o.0).collect();
    let mut composites: Vec<Instruction> = Vec::new();
    for i in &m.module().types_global_values {
        let holds = |o: &Operand| id(o).is_some_and(|c| odd_held.contains(&c));
        if i.class.opcode == Op::ConstantComposite && i.operands.iter().any(holds) {
            odd_held.extend(i.result_id);
            composites.push(i.clone());
        }
    }
    let uint = m.uint();
    let bits: Vec<Word> = odd
        .iter()
        .map(|&(_, b)| m.constant(uint, b.into()))
        .collect();
    m.with_functions(|m, functions| {
        for f in functions {
            let operands = f
                .blocks
                .iter_mut()
                .flat_map(|b| b.instructions.iter_mut())
                .flat_map(|i| i.operands.iter_mut());
            let mut local: HashMap<Word, Word> = HashMap::default();
            for o in operands {
                if let Operand::IdRef(r) = o
                    && odd_held.contains(r)
                {
                    *r = *local.entry(*r).or_insert_with(|| m.fresh());
                }
            }
            if local.is_empty() {
                continue;
            }
            // A composite built here needs its odd parts built here too.
            for c in composites.iter().rev() {
                if c.result_id.is_some_and(|r| local.contains_key(&r)) {
                    for part in c.operands.iter().filter_map(id) {
                        if odd_held.contains(&part) && !local.contains_key(&part) {
                            local.insert(part, m.fresh());
                        }
                    }
                }
            }
            let mut made = Vec::new();
            for (&(r, _), &b) in odd.iter().zip(&bits) {
                if let Some(&l) = local.get(&r) {
                    made.push(with_ids(Op::Bitcast, Some(float), Some(l), &[b]));
                }
            }
            for c in &composites {
                let Some(&l) = c.result_id.and_then(|r| local.get(&r)) else {
                    continue;
                };
                let parts: Vec<Word> = c
                    .operands
                    .iter()
                    .filter_map(id)
                    .map(|p| local.get(&p).copied().unwrap_or(p))
                    .collect();
                made.push(with_ids(
                    Op::CompositeConstruct,
                    c.result_type,
                    Some(l),
                    &parts,
                ));
            }
            if let Some(entry) = f.blocks.first_mut() {
                let at = entry
                    .instructions
                    .iter()
                    .position(|i| i.class.opcode != Op::Variable)
                    .unwrap_or(entry.instructions.len());
                entry.instructions.splice(at..at, made);
            }
        }
    });
    // The literals and composites themselves go where nothing global
    // holds them (a variable's initializer may): naga would read each into
    // a constant, and refuse it.
    let mut kept: HashSet<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter(|i| !i.result_id.is_some_and(|r| odd_held.contains(&r)))
        .flat_map(|i| i.operands.iter().filter_map(id))
        .collect();
    for c in composites.iter().rev() {
        if c.result_id.is_some_and(|r| kept.contains(&r)) {
            kept.extend(c.operands.iter().filter_map(id));
        }
    }
    let gone: Vec<Word> = odd_held.into_iter().filter(|r| !kept.contains(r)).collect();
    m.remove_definitions(&gone);
    Ok(odd.len())
}

/// `intBitsToFloat(-1)`, `uintBitsToFloat(0x7f800000u)`: a bitcast of a
/// constant to a float that is not finite. naga's reader folds it, and what
/// it is built into, to a NaN or infinite literal, which WGSL forbids. The
/// bits are read from a private variable instead, a value naga never folds.
pub fn non_finite_bitcasts(m: &mut Model) -> Result<usize> {
    let odd: Vec<(Word, Word)> = m
        .instructions()
        .filter(|i| i.class.opcode == Op::Bitcast)
        .filter_map(|i| {
            let (ty, from) = (i.result_type?, i.operands.first().and_then(id)?);
            let bytes = constant_bytes(m, from)?;
            let width = float_width(m, m.scalar_of(ty))?;
            let finite = bytes.chunks(width as usize / 8).all(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                let bits = u64::from_le_bytes(b);
                match width {
                    16 => (bits >> 10) & 0x1f != 0x1f,
                    32 => f32::from_bits(bits as u32).is_finite(),
                    _ => f64::from_bits(bits).is_finite(),
                }
            });
            (!finite).then_some((i.result_id?, from))
        })
        .collect();
    let mut made = HashMap::default();
    for &(_, from) in &odd {
        if let std::collections::hash_map::Entry::Vacant(v) = made.entry(from) {
            let ty = m.result_type(from).unwrap_or(0);
            v.insert((ty, m.private_variable(ty, from)));
        }
    }
    let casts: HashMap<Word, Word> = odd.into_iter().collect();
    m.rewrite(|e, inst| {
        let Some(&from) = inst.result_id.and_then(|r| casts.get(&r)) else {
            return Ok(false);
        };
        let (ty, var) = made[&from];
        let loaded = e.op(Op::Load, ty, &[var]);
        let mut cast = inst.clone();
        cast.operands = vec![Operand::IdRef(loaded)];
        e.push(cast);
        Ok(true)
    })
}

/// The bytes of a scalar or vector constant of integers or floats, in
/// memory order.
fn constant_bytes(m: &Model, c: Word) -> Option<Vec<u8>> {
    let def = m.global(c)?;
    match def.class.opcode {
        Op::Constant => {
            let ty = def.result_type?;
            let width = match m.int_type_of(ty) {
                Some((w, _)) => w,
                None => float_width(m, ty)?,
            };
            // Malformed SPIR-V may declare any width: only whole bytes up
            // to 64 bits are read.
            if width == 0 || width % 8 != 0 || width > 64 {
                return None;
            }
            let bits = match def.operands.first()? {
                Operand::LiteralBit32(b) => u64::from(*b),
                Operand::LiteralBit64(b) => *b,
                _ => return None,
            };
            Some(bits.to_le_bytes()[..width as usize / 8].to_vec())
        }
        Op::ConstantComposite => def
            .operands
            .iter()
            .map(|o| id(o).and_then(|c| constant_bytes(m, c)))
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.concat()),
        _ => None,
    }
}

/// The width of a float type: 16, 32 or 64 (no other is read).
fn float_width(m: &Model, ty: Word) -> Option<u32> {
    let def = m.global(ty)?;
    match (def.class.opcode, def.operands.first()) {
        (Op::TypeFloat, Some(Operand::LiteralBit32(w))) if matches!(w, 16 | 32 | 64) => Some(*w),
        _ => None,
    }
}
