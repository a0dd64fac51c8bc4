//! Instructions naga's SPIR-V reader reads into invalid WGSL or into WGSL
//! that computes something else, rewritten into instructions it reads
//! right:
//! - `OpSNegate` of an unsigned integer (GLSL's `-x` on a `uint`, which
//!   wraps) becomes `0 - x`: WGSL has no negation of unsigned values.
//! - `OpSMod` (GLSL's `%` on `int`s; the remainder takes the divisor's
//!   sign) becomes the remainder WGSL's `%` gives, moved by the divisor
//!   where the signs differ. naga reads it through floats — inexact past
//!   2²⁴ — and, on vectors, through a 64-bit product WGSL lacks.
//! - `OpImageFetch` with an offset (`texelFetchOffset`) gets the offset
//!   added to its coordinate: WGSL's `textureLoad` has no offset, and naga
//!   drops it.
//! - A shift by a 64-bit amount (`x << n` with `n` a `uint64_t`) gets the
//!   amount converted to 32 bits: naga reads it as `x << bitcast<u64>(n)`,
//!   which WGSL refuses (shift amounts are `u32`). Only amounts of 2³² or
//!   more change, and past 63 GLSL leaves the result undefined.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use crate::Result;
use crate::lower::model::{Emit, Model, id, with_ids};

/// `ConstOffset` and `Offset` among the image operands.
const OFFSET_BITS: u32 = 0x8 | 0x10;

/// Rewrites every instruction above; returns how many.
pub fn rewrite_misread_instructions(m: &mut Model) -> Result<usize> {
    // The bool types the SMod rewrite compares in, made before the walk.
    let mut bools = Vec::new();
    for inst in m.instructions() {
        if inst.class.opcode == Op::SMod
            && let Some(ty) = inst.result_type
        {
            bools.push(m.components(ty));
        }
    }
    let mut bool_of = std::collections::HashMap::new();
    for n in bools {
        let b = m.bool_type();
        let t = if n == 1 { b } else { m.vector_type(b, n) };
        bool_of.insert(n, t);
    }
    // The u32 scalar or vector type of each wide shift amount.
    let mut narrow: std::collections::HashMap<Word, Word> = std::collections::HashMap::new();
    let wide: Vec<Word> = m
        .instructions()
        .filter(|i| is_shift(i.class.opcode))
        .filter_map(|i| i.operands.get(1).and_then(id))
        .filter_map(|n| m.result_type(n))
        .filter(|&t| m.int_type_of(m.scalar_of(t)).is_some_and(|(w, _)| w == 64))
        .collect();
    for t in wide {
        let n = m.components(t);
        let u = m.uint();
        narrow.insert(t, if n == 1 { u } else { m.vector_type(u, n) });
    }
    m.rewrite(|e, inst| match inst.class.opcode {
        op if is_shift(op) => Ok(narrow_shift_amount(e, inst, &narrow)),
        Op::SNegate => Ok(unsigned_negate(e, inst)),
        Op::SMod => Ok(signed_modulo(e, inst, &bool_of)),
        Op::ImageFetch => image_fetch_offset(e, inst),
        _ => Ok(false),
    })
}

/// Whether `op` is one of SPIR-V's three shifts.
fn is_shift(op: Op) -> bool {
    matches!(
        op,
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
    )
}

/// A shift by a 64-bit amount: the amount converted to `u32` first.
fn narrow_shift_amount(
    e: &mut Emit,
    inst: &Instruction,
    narrow: &std::collections::HashMap<Word, Word>,
) -> bool {
    let Some(n) = inst.operands.get(1).and_then(id) else {
        return false;
    };
    let Some(&u) = e.m.result_type(n).and_then(|t| narrow.get(&t)) else {
        return false;
    };
    let amount = e.op(Op::UConvert, u, &[n]);
    let mut shift = inst.clone();
    shift.operands[1] = Operand::IdRef(amount);
    e.push(shift);
    true
}

/// `-x` on an unsigned integer: `0 - x`.
fn unsigned_negate(e: &mut Emit, inst: &Instruction) -> bool {
    let (Some(ty), Some(r), Some(x)) = (
        inst.result_type,
        inst.result_id,
        inst.operands.first().and_then(id),
    ) else {
        return false;
    };
    if e.m
        .int_type_of(e.m.scalar_of(ty))
        .is_none_or(|(_, signed)| signed)
    {
        return false;
    }
    let zero = e.null(ty);
    e.push(with_ids(Op::ISub, Some(ty), Some(r), &[zero, x]));
    true
}

/// `a % b` with the divisor's sign: `r = a rem b; r != 0 && (r ^ b) < 0 ?
/// r + b : r`, component-wise. Only for signed operands of the result's
/// type (what GLSL compilers emit).
fn signed_modulo(
    e: &mut Emit,
    inst: &Instruction,
    bool_of: &std::collections::HashMap<u32, Word>,
) -> bool {
    let (Some(ty), Some(r), Some(a), Some(b)) = (
        inst.result_type,
        inst.result_id,
        inst.operands.first().and_then(id),
        inst.operands.get(1).and_then(id),
    ) else {
        return false;
    };
    let signed = e.m.int_type_of(e.m.scalar_of(ty)).is_some_and(|(_, s)| s);
    let same = e.m.result_type(a) == Some(ty) && e.m.result_type(b) == Some(ty);
    let Some(&bool_ty) = bool_of.get(&e.m.components(ty)) else {
        return false;
    };
    if !signed || !same {
        return false;
    }
    let zero = e.null(ty);
    let rem = e.op(Op::SRem, ty, &[a, b]);
    let nonzero = e.op(Op::INotEqual, bool_ty, &[rem, zero]);
    let signs = e.op(Op::BitwiseXor, ty, &[rem, b]);
    let differ = e.op(Op::SLessThan, bool_ty, &[signs, zero]);
    let sum = e.op(Op::IAdd, ty, &[rem, b]);
    // Two selects rather than `&&`, which WGSL has for scalars only.
    let moved = e.op(Op::Select, ty, &[differ, sum, rem]);
    e.push(with_ids(
        Op::Select,
        Some(ty),
        Some(r),
        &[nonzero, moved, rem],
    ));
    true
}

/// `texelFetchOffset(t, P, lod, offset)`: `texelFetch(t, P + offset, lod)`,
/// the offset widened with zeros where P also holds the array layer.
fn image_fetch_offset(e: &mut Emit, inst: &Instruction) -> Result<bool> {
    let Some(Operand::ImageOperands(bits)) = inst.operands.get(2) else {
        return Ok(false);
    };
    let bits = bits.bits();
    if bits & OFFSET_BITS == 0 {
        return Ok(false);
    }
    let Some(coord) = inst.operands.get(1).and_then(id) else {
        return Ok(false);
    };
    // The operands after the mask, in bit order: Lod (0x2) precedes the offset.
    let at = 3 + usize::from(bits & 0x2 != 0) + 2 * usize::from(bits & 0x4 != 0);
    let (Some(offset), Some(coord_ty)) =
        (inst.operands.get(at).and_then(id), e.m.result_type(coord))
    else {
        return Ok(false);
    };
    let n = e.m.components(coord_ty);
    let scalar = e.m.scalar_of(coord_ty);
    let offset_ty = e.m.result_type(offset).unwrap_or(coord_ty);
    let m = e.m.components(offset_ty);
    // The offset's components in the coordinate's scalar type, zeros after.
    let offset_scalar = e.m.scalar_of(offset_ty);
    if m == n && offset_ty == coord_ty {
        return Ok(fetch_at(e, inst, at, bits, coord, coord_ty, offset));
    }
    let mut parts = Vec::new();
    for k in 0..n {
        let part = if k >= m {
            e.constant(scalar, 0)
        } else {
            let c = if m == 1 {
                offset
            } else {
                e.extract(offset_scalar, offset, k)
            };
            if offset_scalar == scalar {
                c
            } else {
                e.op(Op::Bitcast, scalar, &[c])
            }
        };
        parts.push(part);
    }
    let widened = if n == 1 {
        parts[0]
    } else {
        e.op(Op::CompositeConstruct, coord_ty, &parts)
    };
    Ok(fetch_at(e, inst, at, bits, coord, coord_ty, widened))
}

/// The fetch at `coord + offset`, without its offset operand (at `at`).
fn fetch_at(
    e: &mut Emit,
    inst: &Instruction,
    at: usize,
    bits: u32,
    coord: Word,
    coord_ty: Word,
    offset: Word,
) -> bool {
    let moved = e.op(Op::IAdd, coord_ty, &[coord, offset]);
    let mut fetch = inst.clone();
    fetch.operands[1] = Operand::IdRef(moved);
    fetch.operands.remove(at);
    let rest = bits & !OFFSET_BITS;
    if rest == 0 {
        fetch.operands.truncate(2);
    } else {
        fetch.operands[2] =
            Operand::ImageOperands(rspirv::spirv::ImageOperands::from_bits_truncate(rest));
    }
    e.push(fetch);
    true
}
