//! 16-bit floats (`float16_t`, `f16vec4`; GL_EXT_shader_explicit_arithmetic_
//! types_float16), computed in 32-bit floats rounded to half precision.
//!
//! WGSL's `f16` needs the adapter's SHADER_F16, which lavapipe, llvmpipe
//! GL and browsers without `shader-f16` lack; atomport never asks for it: a
//! half lives in an `f32` that always holds a value a half can hold. Every
//! operation whose result may not be one (add, subtract, multiply, divide,
//! remainder, dot products, conversions to a half, the GLSL.std.450
//! functions) is computed in `f32` and rounded to the nearest half, by
//! integer arithmetic on the `f32`'s bits ([`round_to_half`]; a
//! `pack2x16float` and `unpack2x16float` round trip is what some drivers
//! fold away). For addition, subtraction,
//! multiplication, division and square roots that is the half-precision
//! result itself: `f32` has more than twice a half's 11 significant bits
//! plus two, so rounding twice gives what rounding once would. Halfs in
//! memory are the word-addressed pass's ([`crate::lower::memory::words`]): 16 bits
//! each, unpacked on load and packed on store. A half's bits
//! (`float16BitsToUint16`, `packFloat2x16` and their inverses) are the same
//! packing of its `f32`, exact for every half.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Op, Word};

use crate::lower::model::{Emit, Model, id, with_ids};
use crate::{Error, Result};

/// GLSL.std.450's PackHalf2x16.
pub(crate) const PACK_HALF_2X16: u32 = 58;
/// GLSL.std.450's UnpackHalf2x16.
pub(crate) const UNPACK_HALF_2X16: u32 = 62;

/// A half type: scalar (`n` 1) or vector.
#[derive(Clone, Copy)]
struct Half {
    n: u32,
    /// Its component type (the half scalar).
    scalar: Word,
}

use crate::scalar::half_to_f32;

/// GLSL.std.450's RoundEven.
const ROUND_EVEN: u32 = 2;

/// Constants the rewrite uses.
struct Ids {
    glsl: Word,
    f32_ty: Word,
    vec2: Word,
    zero: Word,
    uint: Word,
    boolean: Word,
}

/// `c`, an `f32`, rounded to the nearest half (ties to even) by integer
/// arithmetic on its bits: 13 low bits dropped for a normal half, a
/// multiple of 2^-24 below the smallest normal half (2^-14), an infinity
/// past the largest (65504), infinities and NaNs as they are. Not
/// `unpack2x16float(pack2x16float(c))`: Mesa 25's lavapipe folds that
/// round trip away, leaving `c` unrounded.
fn round_to_half(e: &mut Emit, ids: &Ids, c: Word) -> Word {
    let (u, b, f) = (ids.uint, ids.boolean, ids.f32_ty);
    let k = |e: &mut Emit, v: u32| e.constant(u, u64::from(v));
    let bits = e.op(Op::Bitcast, u, &[c]);
    let all_but_sign = k(e, 0x7FFF_FFFF);
    let magnitude = e.op(Op::BitwiseAnd, u, &[bits, all_but_sign]);
    // A normal half: the 13 bits an f32 has beyond a half's dropped, to
    // nearest, ties to even (a carry moves into the exponent, as it should).
    let thirteen = k(e, 13);
    let one = k(e, 1);
    let shifted = e.op(Op::ShiftRightLogical, u, &[bits, thirteen]);
    let lsb = e.op(Op::BitwiseAnd, u, &[shifted, one]);
    let below_half_ulp = k(e, 0xFFF);
    let biased = e.op(Op::IAdd, u, &[bits, below_half_ulp]);
    let biased = e.op(Op::IAdd, u, &[biased, lsb]);
    let kept = k(e, 0xFFFF_E000);
    let normal_bits = e.op(Op::BitwiseAnd, u, &[biased, kept]);
    let normal_magnitude = e.op(Op::BitwiseAnd, u, &[normal_bits, all_but_sign]);
    let largest_half = k(e, 0x477F_E000);
    let overflows = e.op(Op::UGreaterThan, b, &[normal_magnitude, largest_half]);
    let sign_bit = k(e, 0x8000_0000);
    let sign = e.op(Op::BitwiseAnd, u, &[bits, sign_bit]);
    let infinity_bits = k(e, 0x7F80_0000);
    let infinity = e.op(Op::BitwiseOr, u, &[sign, infinity_bits]);
    let normal_bits = e.op(Op::Select, u, &[overflows, infinity, normal_bits]);
    let normal = e.op(Op::Bitcast, f, &[normal_bits]);
    // A subnormal half: a multiple of 2^-24 (both scalings exact).
    let up = e.constant(f, u64::from(16_777_216f32.to_bits()));
    let down = e.constant(f, u64::from((1.0f32 / 16_777_216.0).to_bits()));
    let scaled = e.op(Op::FMul, f, &[c, up]);
    let even = e.ext_inst(ids.glsl, f, ROUND_EVEN, &[scaled]);
    let subnormal = e.op(Op::FMul, f, &[even, down]);
    let smallest_normal = k(e, 0x3880_0000);
    let small = e.op(Op::ULessThan, b, &[magnitude, smallest_normal]);
    let finite = e.op(Op::ULessThan, b, &[magnitude, infinity_bits]);
    let rounded = e.op(Op::Select, f, &[small, subnormal, normal]);
    e.op(Op::Select, f, &[finite, rounded, c])
}

/// `x` (an `f32` held in half type `ty`) rounded to the nearest half, per
/// component, with result id `r`.
fn round(e: &mut Emit, ids: &Ids, t: Half, ty: Word, r: Word, x: Word) {
    let one = |e: &mut Emit, c: Word| round_to_half(e, ids, c);
    let parts: Vec<Word> = if t.n == 1 {
        vec![x]
    } else {
        (0..t.n).map(|k| e.extract(t.scalar, x, k)).collect()
    };
    let rounded: Vec<Word> = parts.into_iter().map(|c| one(e, c)).collect();
    if t.n == 1 {
        e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &rounded));
    } else {
        e.push(with_ids(
            Op::CompositeConstruct,
            Some(ty),
            Some(r),
            &rounded,
        ));
    }
}

/// A bitcast between halfs and their bits, as the half's `f32` packed or
/// unpacked (exact: every half is an `f32`): `float16BitsToInt16`,
/// `float16BitsToUint16` and back, per component, and `packFloat2x16`
/// /`unpackFloat2x16` (an `f16vec2` and a 32-bit word). Returns whether
/// `inst` was one.
fn half_bits(
    e: &mut Emit,
    ids: &Ids,
    halfs: &std::collections::HashMap<Word, Half>,
    inst: &Instruction,
) -> bool {
    let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
        return false;
    };
    let src = inst.operands.first().and_then(id).unwrap_or(0);
    let Some(src_ty) = e.m.result_type(src) else {
        return false;
    };
    let uint = e.m.uint_id();
    // (components, component type) of an integer scalar or vector.
    let ints = |e: &Emit, t: Word| -> Option<(u32, Word)> {
        let g = e.m.global(t)?;
        match (g.class.opcode, g.operands.as_slice()) {
            (Op::TypeInt, _) => Some((1, t)),
            (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n)]) => {
                (e.m.op_of(*c) == Some(Op::TypeInt)).then_some((*n, *c))
            }
            _ => None,
        }
    };
    let width = |e: &Emit, t: Word| e.m.int_type_of(t).map(|(w, _)| w);
    let parts = |e: &mut Emit, v: Word, ty: Word, n: u32| -> Vec<Word> {
        if n == 1 {
            vec![v]
        } else {
            (0..n).map(|k| e.extract(ty, v, k)).collect()
        }
    };
    let assemble = |e: &mut Emit, parts: &[Word]| {
        let op = if parts.len() == 1 {
            Op::CopyObject
        } else {
            Op::CompositeConstruct
        };
        e.push(with_ids(op, Some(ty), Some(r), parts));
    };
    match (halfs.get(&ty), halfs.get(&src_ty)) {
        // 16-bit integers to halfs: each unpacked from its bits.
        (Some(h), None) => match ints(e, src_ty) {
            Some((n, c)) if n == h.n && width(e, c) == Some(16) => {
                let halves: Vec<Word> = parts(e, src, c, n)
                    .into_iter()
                    .map(|bits| {
                        let word = e.op(Op::UConvert, uint, &[bits]);
                        let pair = e.ext_inst(ids.glsl, ids.vec2, UNPACK_HALF_2X16, &[word]);
                        e.extract(ids.f32_ty, pair, 0)
                    })
                    .collect();
                assemble(e, &halves);
                true
            }
            // A word to an f16vec2: both halves at once.
            Some((1, c)) if h.n == 2 && width(e, c) == Some(32) => {
                let word = if c == uint {
                    src
                } else {
                    e.op(Op::Bitcast, uint, &[src])
                };
                e.push(Instruction::new(
                    Op::ExtInst,
                    Some(ty),
                    Some(r),
                    vec![
                        Operand::IdRef(ids.glsl),
                        Operand::LiteralExtInstInteger(UNPACK_HALF_2X16),
                        Operand::IdRef(word),
                    ],
                ));
                true
            }
            _ => false,
        },
        // Halfs to their 16-bit integer bits, each packed alone.
        (None, Some(h)) => match ints(e, ty) {
            Some((n, c)) if n == h.n && width(e, c) == Some(16) => {
                let signed = e.m.int_type_of(c).is_some_and(|(_, s)| s);
                let scalar = if h.n == 1 { src_ty } else { h.scalar };
                let bits: Vec<Word> = parts(e, src, scalar, n)
                    .into_iter()
                    .map(|x| {
                        let pair = e.op(Op::CompositeConstruct, ids.vec2, &[x, ids.zero]);
                        let word = e.ext_inst(ids.glsl, uint, PACK_HALF_2X16, &[pair]);
                        let convert = if signed { Op::SConvert } else { Op::UConvert };
                        e.op(convert, c, &[word])
                    })
                    .collect();
                assemble(e, &bits);
                true
            }
            // An f16vec2 to a word.
            Some((1, c)) if h.n == 2 && width(e, c) == Some(32) => {
                let word = e.ext_inst(ids.glsl, uint, PACK_HALF_2X16, &[src]);
                let op = if c == uint {
                    Op::CopyObject
                } else {
                    Op::Bitcast
                };
                e.push(with_ids(op, Some(ty), Some(r), &[word]));
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// The operations whose half result is rounded.
fn rounds(op: Op) -> bool {
    matches!(
        op,
        Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FRem
            | Op::FMod
            | Op::VectorTimesScalar
            | Op::Dot
            | Op::FConvert
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::ExtInst
            | Op::MatrixTimesVector
            | Op::VectorTimesMatrix
    )
}

/// Rewrites half arithmetic to `f32` rounded to half precision and makes
/// the half types 32-bit; returns how many instructions changed.
pub fn lower_halfs(m: &mut Model) -> Result<usize> {
    let mut halfs: std::collections::HashMap<Word, Half> = std::collections::HashMap::new();
    for t in &m.module().types_global_values {
        if let (Op::TypeFloat, Some(Operand::LiteralBit32(16)), Some(r)) =
            (t.class.opcode, t.operands.first(), t.result_id)
        {
            halfs.insert(r, Half { n: 1, scalar: r });
        }
    }
    if halfs.is_empty() {
        return Ok(0);
    }
    let vectors: Vec<(Word, Half)> = m
        .module()
        .types_global_values
        .iter()
        .filter_map(
            |t| match (t.class.opcode, t.operands.as_slice(), t.result_id) {
                (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n)], Some(r))
                    if halfs.contains_key(c) =>
                {
                    Some((r, Half { n: *n, scalar: *c }))
                }
                _ => None,
            },
        )
        .collect();
    halfs.extend(vectors);
    let glsl = m.glsl_std_450();
    let f32_ty = m.float_type(32);
    let vec2 = m.vector_type(f32_ty, 2);
    let zero = m.constant(f32_ty, 0);
    let uint = m.uint();
    let boolean = m.bool_type();
    let ids = Ids {
        glsl,
        f32_ty,
        vec2,
        zero,
        uint,
        boolean,
    };
    // Half constants become the f32 of the same value.
    let scalars: Vec<Word> = halfs
        .values()
        .filter(|h| h.n == 1)
        .map(|h| h.scalar)
        .collect();
    for t in &mut m.module_mut().types_global_values {
        if matches!(t.class.opcode, Op::Constant | Op::SpecConstant)
            && t.result_type.is_some_and(|ty| scalars.contains(&ty))
            && let Some(Operand::LiteralBit32(bits)) = t.operands.first_mut()
        {
            *bits = half_to_f32(*bits as u16).to_bits();
        }
    }
    let bad = std::cell::Cell::new(None);
    let n = m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let result = inst.result_type.and_then(|t| halfs.get(&t).copied());
        let from_half = inst
            .operands
            .first()
            .and_then(id)
            .and_then(|v| e.m.result_type(v))
            .is_some_and(|t| halfs.contains_key(&t));
        match (op, result) {
            // Halfs are f32s now: widening one is a copy.
            (Op::FConvert, None) if from_half => {
                let to32 = inst
                    .result_type
                    .and_then(|t| e.m.global(t))
                    .is_some_and(|t| !crate::lower::model::is_64_bit(t));
                if !to32 {
                    return Ok(false);
                }
                e.push(with_ids(
                    Op::CopyObject,
                    inst.result_type,
                    inst.result_id,
                    &[inst.operands.first().and_then(id).unwrap_or(0)],
                ));
                Ok(true)
            }
            (Op::Bitcast, _) if result.is_some() || from_half => {
                if half_bits(e, &ids, &halfs, inst) {
                    return Ok(true);
                }
                bad.set(Some(
                    "a bitcast between halfs and a type other than 16-bit integers or a 32-bit word (float16BitsToUint16, packFloat2x16 and their kin are supported): atomport computes halfs in 32-bit floats",
                ));
                Ok(false)
            }
            (_, Some(t)) if rounds(op) => {
                let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
                    return Ok(false);
                };
                let tmp = e.fresh();
                let mut x = inst.clone();
                x.result_id = Some(tmp);
                // A conversion to a half from a 32-bit float (or a half) is
                // a copy once halfs are f32s; from a double it stays one.
                let src = inst.operands.first().and_then(id).unwrap_or(0);
                let wide_source = e
                    .m
                    .result_type(src)
                    .and_then(|t| e.m.global(t))
                    .is_some_and(crate::lower::model::is_64_bit);
                if op == Op::FConvert && !wide_source {
                    x = with_ids(Op::CopyObject, Some(ty), Some(tmp), &[src]);
                }
                e.push(x);
                round(e, &ids, t, ty, r, tmp);
                Ok(true)
            }
            _ => Ok(false),
        }
    })?;
    if let Some(why) = bad.get() {
        return Err(Error::Unsupported(why.into()));
    }
    for t in &mut m.module_mut().types_global_values {
        if t.class.opcode == Op::TypeFloat && t.result_id.is_some_and(|r| scalars.contains(&r)) {
            t.operands[0] = Operand::LiteralBit32(32);
        }
    }
    m.drop_capabilities(
        &[
            Capability::Float16,
            Capability::StorageBuffer16BitAccess,
            Capability::UniformAndStorageBuffer16BitAccess,
            Capability::StoragePushConstant16,
            Capability::StorageInputOutput16,
        ],
        &["SPV_KHR_16bit_storage"],
    );
    Ok(n)
}
