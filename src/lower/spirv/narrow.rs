//! 8- and 16-bit integers (`int8_t`, `uint16_t`, `u8vec4`, …; the
//! GL_EXT_shader_explicit_arithmetic_types and 8/16-bit storage
//! extensions), which WGSL has none of, computed in 32 bits with GLSL's
//! results.
//!
//! A narrow value lives in a 32-bit one in its canonical form: an unsigned
//! one zero-extended, a signed one sign-extended (as SPIR-V writes narrow
//! constants). Operations that keep the form (and, or, xor, equality,
//! selection, min/max, moves) stay as they are; those that may leave it
//! (add, subtract, multiply, negate, not, shift left, conversions to a
//! narrow type) are computed in 32 bits and brought back by masking or sign
//! extension, which is GLSL's wrap-around; those whose result depends on
//! the form (unsigned division and shifts right, signed division,
//! comparisons, conversions to float or to wider types) take their
//! operands in the form they need. Bitcasts between a narrow vector and a
//! 32-bit scalar (`pack32(u8vec4)`, `unpack8(uint)`) pack and unpack the
//! lanes. Then the narrow types themselves become 32-bit ones.
//!
//! Memory holding narrow values is the word-addressed pass's
//! ([`crate::lower::memory::words`]), which runs first and reads and writes them
//! through bitcasts between the narrow type and `uint` that this pass
//! reads as "the low bits".

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op, Word};

use crate::lower::model::{Emit, Model, id, with_ids};
use crate::{Error, Result};

/// A narrow integer type (scalar or vector) and the 32-bit types of its shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Narrow {
    /// Bits per component: 8 or 16.
    pub(crate) width: u32,
    pub(crate) signed: bool,
    /// Components (1 for a scalar).
    pub(crate) n: u32,
    /// `uint` or `uvecN`.
    u32_ty: Word,
    /// `int` or `ivecN`.
    i32_ty: Word,
    /// The narrow scalar type of a component.
    scalar: Word,
}

/// The narrow integer types of a module, scalar and vector, by id.
pub(crate) fn narrow_types(m: &mut Model) -> HashMap<Word, Narrow> {
    let mut scalars = Vec::new();
    let mut vectors = Vec::new();
    for t in &m.module().types_global_values {
        let Some(r) = t.result_id else { continue };
        match (t.class.opcode, t.operands.as_slice()) {
            (
                Op::TypeInt,
                [
                    Operand::LiteralBit32(w @ (8 | 16)),
                    Operand::LiteralBit32(s),
                ],
            ) => {
                scalars.push((r, *w, *s == 1));
            }
            (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n)]) => {
                vectors.push((r, *c, *n));
            }
            _ => {}
        }
    }
    let mut out = HashMap::default();
    if scalars.is_empty() {
        return out;
    }
    let (u, i) = (m.uint(), m.int_type(32, true));
    for &(r, width, signed) in &scalars {
        out.insert(
            r,
            Narrow {
                width,
                signed,
                n: 1,
                u32_ty: u,
                i32_ty: i,
                scalar: r,
            },
        );
    }
    for (r, c, n) in vectors {
        if let Some(&(_, width, signed)) = scalars.iter().find(|s| s.0 == c) {
            let (uv, iv) = (m.vector_type(u, n), m.vector_type(i, n));
            out.insert(
                r,
                Narrow {
                    width,
                    signed,
                    n,
                    u32_ty: uv,
                    i32_ty: iv,
                    scalar: c,
                },
            );
        }
    }
    out
}

/// The operations that compute in 32 bits and wrap their narrow result.
fn wrapping(op: Op) -> bool {
    matches!(
        op,
        Op::IAdd | Op::ISub | Op::IMul | Op::ShiftLeftLogical | Op::Not
    )
}

/// Those that need zero-extended operands.
fn unsigned_operands(op: Op) -> bool {
    matches!(
        op,
        Op::UDiv
            | Op::UMod
            | Op::ShiftRightLogical
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::IEqual
            | Op::INotEqual
            | Op::ConvertUToF
            | Op::BitCount
    )
}

/// Those that need sign-extended operands.
fn signed_operands(op: Op) -> bool {
    matches!(
        op,
        Op::SDiv
            | Op::SRem
            | Op::SMod
            | Op::ShiftRightArithmetic
            | Op::SNegate
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::ConvertSToF
    )
}

/// A `uint`/`uvecN` splat of `v` for `t`'s shape.
fn splat(e: &mut Emit, t: &Narrow, v: u32) -> Word {
    let u = e.m.uint_id();
    let c = e.constant(u, u64::from(v));
    if t.n == 1 {
        c
    } else {
        e.op(Op::CompositeConstruct, t.u32_ty, &vec![c; t.n as usize])
    }
}

/// `v` (of narrow type `t`, canonical) zero-extended, as `uint`s.
fn zext(e: &mut Emit, t: &Narrow, v: Word) -> Word {
    let x = e.op(Op::Bitcast, t.u32_ty, &[v]);
    if !t.signed {
        return x;
    }
    let mask = splat(e, t, (1 << t.width) - 1);
    e.op(Op::BitwiseAnd, t.u32_ty, &[x, mask])
}

/// `v` (of narrow type `t`, canonical) sign-extended, as `int`s.
fn sext(e: &mut Emit, t: &Narrow, v: Word) -> Word {
    let x = e.op(Op::Bitcast, t.i32_ty, &[v]);
    if t.signed {
        return x;
    }
    let u = e.m.uint_id();
    let (zero, width) = (e.constant(u, 0), e.constant(u, u64::from(t.width)));
    e.op(Op::BitFieldSExtract, t.i32_ty, &[x, zero, width])
}

/// The canonical value of narrow type `t` (result id `r`) from the low bits
/// of `x`, a `uint`/`uvecN` of its shape.
fn canonical(e: &mut Emit, t: &Narrow, ty: Word, r: Word, x: Word) {
    let bits = if t.signed {
        let i = e.op(Op::Bitcast, t.i32_ty, &[x]);
        let u = e.m.uint_id();
        let (zero, width) = (e.constant(u, 0), e.constant(u, u64::from(t.width)));
        e.op(Op::BitFieldSExtract, t.i32_ty, &[i, zero, width])
    } else {
        let mask = splat(e, t, (1 << t.width) - 1);
        e.op(Op::BitwiseAnd, t.u32_ty, &[x, mask])
    };
    e.push(with_ids(Op::Bitcast, Some(ty), Some(r), &[bits]));
}

/// Rewrites the arithmetic on narrow integers and makes their types 32-bit;
/// returns how many instructions changed.
pub fn lower_narrow_integers(m: &mut Model) -> Result<usize> {
    let types = narrow_types(m);
    if types.is_empty() {
        return Ok(0);
    }
    m.uint();
    m.int_type(32, true);
    let glsl = m
        .module()
        .ext_inst_imports
        .iter()
        .find(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"))
        .and_then(|i| i.result_id);
    let type_of = |m: &Model, v: Word| m.result_type(v).and_then(|t| types.get(&t).copied());
    let n = m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let result = inst.result_type.and_then(|t| types.get(&t).copied());
        let narrow_operand = inst
            .operands
            .iter()
            .filter_map(id)
            .any(|v| type_of(e.m, v).is_some());
        if result.is_none() && !narrow_operand {
            return Ok(false);
        }
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        // Operands in the form `op` needs (as 32-bit values), the others as they are.
        let forms = |e: &mut Emit, signed: bool, as_u32: bool| -> Vec<Word> {
            inst.operands
                .iter()
                .filter_map(id)
                .map(|v| match type_of(e.m, v) {
                    Some(t) if signed => sext(e, &t, v),
                    Some(t) if as_u32 => zext(e, &t, v),
                    Some(t) => e.op(Op::Bitcast, t.u32_ty, &[v]),
                    None => v,
                })
                .collect()
        };
        match (op, result) {
            (_, Some(t)) if wrapping(op) => {
                let args = forms(e, false, false);
                let x = e.op(op, t.u32_ty, &args);
                canonical(e, &t, ty, r, x);
            }
            (Op::UDiv | Op::UMod | Op::ShiftRightLogical, Some(t)) => {
                let args = forms(e, false, true);
                let x = e.op(op, t.u32_ty, &args);
                canonical(e, &t, ty, r, x);
            }
            (
                Op::SDiv | Op::SRem | Op::SMod | Op::ShiftRightArithmetic | Op::SNegate,
                Some(t),
            ) => {
                let args = forms(e, true, false);
                let x = e.op(op, t.i32_ty, &args);
                let x = e.op(Op::Bitcast, t.u32_ty, &[x]);
                canonical(e, &t, ty, r, x);
            }
            (Op::SConvert | Op::UConvert, _) => {
                let signed = op == Op::SConvert;
                let src = inst.operands.first().and_then(id).unwrap_or(0);
                let from = type_of(e.m, src);
                // The source as a 32-bit value of the right form.
                let x = match from {
                    Some(f) if signed => sext(e, &f, src),
                    Some(f) => zext(e, &f, src),
                    None => {
                        let wide = e.m.global(e.m.result_type(src).unwrap_or(0)).is_some_and(crate::lower::model::is_64_bit);
                        let shape = result.map_or(ty, |t| if signed { t.i32_ty } else { t.u32_ty });
                        if wide {
                            e.op(op, shape, &[src])
                        } else {
                            e.op(Op::Bitcast, shape, &[src])
                        }
                    }
                };
                match result {
                    Some(t) => {
                        let x = if signed { e.op(Op::Bitcast, t.u32_ty, &[x]) } else { x };
                        canonical(e, &t, ty, r, x);
                    }
                    None => {
                        let wide = e.m.global(ty).is_some_and(crate::lower::model::is_64_bit);
                        e.push(with_ids(if wide { op } else { Op::Bitcast }, Some(ty), Some(r), &[x]));
                    }
                }
            }
            (Op::ConvertFToS | Op::ConvertFToU, Some(t)) => {
                let shape = if op == Op::ConvertFToS { t.i32_ty } else { t.u32_ty };
                let x = e.op(op, shape, &[inst.operands.first().and_then(id).unwrap_or(0)]);
                let x = e.op(Op::Bitcast, t.u32_ty, &[x]);
                canonical(e, &t, ty, r, x);
            }
            (Op::Bitcast, _) => bitcast(e, &types, inst, ty, r)?,
            (Op::BitReverse, Some(t)) => {
                let v = inst.operands.first().and_then(id).unwrap_or(0);
                let x = zext(e, &t, v);
                let x = e.op(Op::BitReverse, t.u32_ty, &[x]);
                let shift = splat(e, &t, 32 - t.width);
                let x = e.op(Op::ShiftRightLogical, t.u32_ty, &[x, shift]);
                canonical(e, &t, ty, r, x);
            }
            (Op::ExtInst, Some(t)) if Some(inst.operands.first().and_then(id).unwrap_or(0)) == glsl => {
                // Computed as it is (min, max, clamp, abs keep the form but
                // for abs(-128)), then brought back to it.
                let tmp = e.fresh();
                let mut x = inst.clone();
                x.result_id = Some(tmp);
                e.push(x);
                let x = e.op(Op::Bitcast, t.u32_ty, &[tmp]);
                canonical(e, &t, ty, r, x);
            }
            _ if unsigned_operands(op) || signed_operands(op) => {
                let args = forms(e, signed_operands(op), unsigned_operands(op));
                e.push(with_ids(op, Some(ty), Some(r), &args));
            }
            (Op::Load | Op::Store | Op::Select | Op::Phi | Op::CompositeConstruct | Op::CompositeExtract | Op::CompositeInsert | Op::CopyObject | Op::VectorShuffle | Op::VectorExtractDynamic | Op::VectorInsertDynamic | Op::FunctionCall | Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor | Op::AccessChain | Op::InBoundsAccessChain | Op::Undef | Op::ExtInst | Op::BitFieldSExtract | Op::BitFieldUExtract | Op::BitFieldInsert, _) => return Ok(false),
            (Op::IAdd | Op::ISub | Op::IMul | Op::ShiftLeftLogical | Op::Not, None) => {
                return Ok(false);
            }
            _ => {
                return Err(Error::Unsupported(format!(
                    "Op{op:?} on 8- or 16-bit integers: atomport computes them in 32 bits and has no rule for this instruction"
                )));
            }
        }
        Ok(true)
    })?;
    widen_types(m, &types);
    Ok(n)
}

/// Makes the narrow types 32-bit ones and drops the capabilities they
/// needed.
fn widen_types(m: &mut Model, types: &HashMap<Word, Narrow>) {
    // The narrow types become 32-bit ones (their constants' literals are
    // already sign- or zero-extended words).
    let narrow_scalars: Vec<Word> = types.values().map(|t| t.scalar).collect();
    for t in &mut m.module_mut().types_global_values {
        if t.class.opcode == Op::TypeInt && t.result_id.is_some_and(|r| narrow_scalars.contains(&r))
        {
            t.operands[0] = Operand::LiteralBit32(32);
        }
    }
    m.drop_capabilities(
        &[
            Capability::Int8,
            Capability::Int16,
            Capability::StorageBuffer8BitAccess,
            Capability::UniformAndStorageBuffer8BitAccess,
            Capability::StoragePushConstant8,
            Capability::StorageBuffer16BitAccess,
            Capability::UniformAndStorageBuffer16BitAccess,
            Capability::StoragePushConstant16,
            Capability::StorageInputOutput16,
        ],
        &["SPV_KHR_8bit_storage", "SPV_KHR_16bit_storage"],
    );
}

/// A bitcast to or from a narrow type: between narrow types of one shape
/// (`uint8_t` ↔ `int8_t`), packing lanes into a wider scalar
/// (`pack32(u8vec4)`, `pack16(u8vec2)`), unpacking a scalar into lanes
/// (`unpack8(uint)`), or the low bits of a `uint` (as the word-addressed
/// pass writes loads and stores).
fn bitcast(
    e: &mut Emit,
    types: &HashMap<Word, Narrow>,
    inst: &Instruction,
    ty: Word,
    r: Word,
) -> Result<()> {
    let src = inst.operands.first().and_then(id).unwrap_or(0);
    let from = e.m.result_type(src).and_then(|t| types.get(&t).copied());
    let to = types.get(&ty).copied();
    let u = e.m.uint_id();
    let scalar_bits = |e: &Emit, t: Word| -> Option<u32> {
        let d = e.m.global(t)?;
        match (d.class.opcode, d.operands.first()) {
            (Op::TypeInt | Op::TypeFloat, Some(Operand::LiteralBit32(w))) => Some(*w),
            _ => None,
        }
    };
    // The source's bits as one `uint` (at most 32 of them), or per lane.
    match (from, to) {
        (Some(f), Some(t)) if f.n == t.n && f.width == t.width => {
            let x = e.op(Op::Bitcast, f.u32_ty, &[src]);
            canonical(e, &t, ty, r, x);
        }
        (Some(f), _) if f.n > 1 && f.n * f.width <= 32 => {
            // Pack the lanes, lowest first.
            let mut acc = None;
            for k in 0..f.n {
                let lane = e.extract(f.scalar, src, k);
                let x = zext(
                    e,
                    &Narrow {
                        n: 1,
                        u32_ty: u,
                        i32_ty: e.m.int_id(),
                        ..f
                    },
                    lane,
                );
                let x = if k == 0 {
                    x
                } else {
                    let s = e.constant(u, u64::from(k * f.width));
                    e.op(Op::ShiftLeftLogical, u, &[x, s])
                };
                acc = Some(match acc {
                    None => x,
                    Some(a) => e.op(Op::BitwiseOr, u, &[a, x]),
                });
            }
            let x = acc.unwrap_or(src);
            match to {
                Some(t) => canonical(e, &t, ty, r, x),
                None => e.push(with_ids(Op::Bitcast, Some(ty), Some(r), &[x])),
            }
        }
        (_, Some(t)) => {
            // The source's bits as a `uint`.
            let x = match from {
                Some(f) => zext(e, &f, src),
                None if scalar_bits(e, e.m.result_type(src).unwrap_or(0)) == Some(32) => {
                    e.op(Op::Bitcast, u, &[src])
                }
                None => {
                    return Err(Error::Unsupported(
                        "a bitcast to an 8- or 16-bit integer from a value that is not 32 bits wide (a 64-bit or 16-bit float one): atomport computes narrow integers in 32 bits".into(),
                    ));
                }
            };
            if t.n == 1 {
                canonical(e, &t, ty, r, x);
            } else {
                // Unpack the lanes, lowest first.
                let lane = Narrow {
                    n: 1,
                    u32_ty: u,
                    i32_ty: e.m.int_id(),
                    ..t
                };
                let mut lanes = Vec::new();
                for k in 0..t.n {
                    let s = e.constant(u, u64::from(k * t.width));
                    let shifted = e.op(Op::ShiftRightLogical, u, &[x, s]);
                    let c = e.fresh();
                    canonical(e, &lane, t.scalar, c, shifted);
                    lanes.push(c);
                }
                e.push(with_ids(Op::CompositeConstruct, Some(ty), Some(r), &lanes));
            }
        }
        (Some(f), None) if scalar_bits(e, ty) == Some(32) && f.n == 1 => {
            // The low bits of a `uint` (zero-extended), as the word pass reads them.
            let x = zext(e, &f, src);
            e.push(with_ids(Op::Bitcast, Some(ty), Some(r), &[x]));
        }
        _ => {
            return Err(Error::Unsupported(
                "a bitcast between an 8- or 16-bit integer and a type of another size (a 16-bit float or a 64-bit value): atomport computes narrow integers in 32 bits".into(),
            ));
        }
    }
    Ok(())
}
