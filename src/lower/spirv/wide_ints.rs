//! SPIR-V pass (WebGPU target, and natively where
//! `SourceOptions::int64_pairs`): 64-bit integers as pairs of 32-bit words,
//! `uvec2(low, high)`, exactly as GLSL defines their arithmetic (two's
//! complement, wrapping), for devices without SHADER_INT64 — every browser,
//! llvmpipe's GL.
//!
//! Memory keeps its layout: a `uint64_t` and a `uvec2` are both 8 bytes
//! with 8-byte alignment, so buffers, arrays and structs holding them are
//! read and written as the host laid them out. Each operation becomes 32-bit
//! ones: add and subtract with a carry, multiply from 16-bit halves (the
//! high word as `umulExtended` makes it), shifts by any amount, bitwise
//! operations per word, comparisons high word first (signed on the high
//! word), conversions to and from 32-bit integers (sign-extended for
//! `int64_t`) and to floats rounded once, as the hardware would, and from
//! floats. Buffer references, whose addresses are 64-bit, come with them.
//!
//! What has no form here leaves the module as it is, and the kernel is
//! refused for SHADER_INT64 as before: 64-bit atomics (WebGPU has none),
//! vectors of 64-bit integers, division and remainder, 64-bit
//! specialization constants, and any other instruction on 64-bit values.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use crate::Result;
use crate::lower::model::{Emit, Model, id, is_atomic, with_ids};

/// GLSL.std.450's UMin, UMax, SMin and SMax.
const GLSL_UMIN: u32 = 38;
const GLSL_SMIN: u32 = 39;
const GLSL_UMAX: u32 = 41;
const GLSL_SMAX: u32 = 42;
/// GLSL.std.450's FAbs, FindUMsb and Ldexp.
const GLSL_FABS: u32 = 4;
const GLSL_FIND_U_MSB: u32 = 75;
const GLSL_LDEXP: u32 = 53;

/// The types a rewrite uses.
#[derive(Clone, Copy)]
struct Types {
    uint: Word,
    int: Word,
    pair: Word,
    boolean: Word,
    bool_pair: Word,
    float: Word,
    /// The GLSL.std.450 import.
    glsl: Word,
}

/// Whether every use of 64-bit integers in the module has a form here.
fn lowerable(m: &Model, wide: &[Word]) -> bool {
    let is_wide = |ty: Option<Word>| ty.is_some_and(|t| wide.contains(&t));
    let globals_ok = m
        .module()
        .types_global_values
        .iter()
        .all(|g| match g.class.opcode {
            Op::TypeVector | Op::TypeMatrix => !g
                .operands
                .first()
                .and_then(id)
                .is_some_and(|c| wide.contains(&c)),
            Op::SpecConstant | Op::SpecConstantOp | Op::SpecConstantComposite => {
                !is_wide(g.result_type)
            }
            _ => true,
        });
    globals_ok
        && m.instructions().all(|i| {
            let touches = is_wide(i.result_type)
                || i.operands
                    .iter()
                    .filter_map(id)
                    .any(|x| is_wide(m.result_type(x)));
            !touches || (!is_atomic(i.class.opcode) && handled(m, i, wide))
        })
}

/// The power of two a 64-bit constant `c` is, as its exponent.
fn power_of_two(m: &Model, c: Word) -> Option<u32> {
    let g = m.global(c)?;
    let v = match (g.class.opcode, g.operands.first()?) {
        (Op::Constant, Operand::LiteralBit64(v)) => *v,
        (Op::Constant, Operand::LiteralBit32(v)) => u64::from(*v),
        _ => return None,
    };
    v.is_power_of_two().then(|| v.trailing_zeros())
}

/// How many id operands a rewrite of `op` reads (an extended instruction:
/// its set and two operands).
fn arity(op: Op) -> usize {
    match op {
        Op::Select | Op::ExtInst => 3,
        Op::Not
        | Op::SNegate
        | Op::UConvert
        | Op::SConvert
        | Op::Bitcast
        | Op::ConvertUToF
        | Op::ConvertSToF
        | Op::ConvertFToU
        | Op::ConvertFToS
        | Op::AccessChain
        | Op::InBoundsAccessChain => 1,
        Op::Load | Op::Store | Op::Variable | Op::Phi | Op::CopyObject => 0,
        Op::CompositeConstruct | Op::CompositeExtract | Op::CompositeInsert => 0,
        Op::FunctionCall | Op::FunctionParameter | Op::ReturnValue | Op::Undef => 0,
        _ => 2,
    }
}

/// Whether `inst`, which touches 64-bit values, has a form here (a
/// malformed one, short of operands, has none: it is left to be refused).
fn handled(m: &Model, inst: &Instruction, wide: &[Word]) -> bool {
    if inst.operands.iter().filter_map(id).count() < arity(inst.class.opcode) {
        return false;
    }
    let narrow = |x: Option<Word>| {
        x.and_then(|t| m.int_type_of(t))
            .is_some_and(|(w, _)| w == 32)
    };
    match inst.class.opcode {
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::SNegate
        | Op::Not
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::ShiftLeftLogical
        | Op::ShiftRightLogical
        | Op::ShiftRightArithmetic
        | Op::IEqual
        | Op::INotEqual
        | Op::ULessThan
        | Op::ULessThanEqual
        | Op::UGreaterThan
        | Op::UGreaterThanEqual
        | Op::SLessThan
        | Op::SLessThanEqual
        | Op::SGreaterThan
        | Op::SGreaterThanEqual
        | Op::Select
        | Op::Bitcast
        | Op::ConvertUToF
        | Op::ConvertSToF
        | Op::ConvertFToU
        | Op::ConvertFToS => true,
        // Unsigned division by a power of two (addresses into indices).
        Op::UDiv | Op::UMod => inst
            .operands
            .get(1)
            .and_then(id)
            .and_then(|c| power_of_two(m, c))
            .is_some(),
        // Between 32 and 64 bits only (narrow integers are words by now).
        Op::UConvert | Op::SConvert => {
            let from = inst
                .operands
                .first()
                .and_then(id)
                .and_then(|x| m.result_type(x));
            narrow(from) || narrow(inst.result_type)
        }
        Op::ExtInst => matches!(
            inst.operands.get(1),
            Some(Operand::LiteralExtInstInteger(
                GLSL_UMIN | GLSL_UMAX | GLSL_SMIN | GLSL_SMAX
            ))
        ),
        // Values passed along, whose types change with the module's (an
        // array index of 64 bits is taken as its low word).
        Op::Load
        | Op::Store
        | Op::Variable
        | Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::Phi
        | Op::CopyObject
        | Op::CompositeConstruct
        | Op::CompositeExtract
        | Op::CompositeInsert
        | Op::FunctionCall
        | Op::FunctionParameter
        | Op::ReturnValue
        | Op::Undef => {
            // A 64-bit value as one of a vector's components has no form.
            !(inst.class.opcode == Op::CompositeConstruct
                && inst
                    .result_type
                    .is_some_and(|t| m.op_of(t) == Some(Op::TypeVector))
                && inst
                    .operands
                    .iter()
                    .filter_map(id)
                    .any(|x| m.result_type(x).is_some_and(|t| wide.contains(&t))))
        }
        _ => false,
    }
}

/// Rewrites every 64-bit integer as a pair of words; returns how many
/// instructions changed (0 where the module has none, or has a use with no
/// form here).
pub fn lower_wide_integers(m: &mut Model) -> Result<usize> {
    let wide: Vec<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter(|g| {
            g.class.opcode == Op::TypeInt
                && matches!(g.operands.first(), Some(Operand::LiteralBit32(64)))
        })
        .filter_map(|g| g.result_id)
        .collect();
    if wide.is_empty() || !lowerable(m, &wide) {
        return Ok(0);
    }
    let uint = m.uint();
    let int = m.int_type(32, true);
    let boolean = m.bool_type();
    let t = Types {
        uint,
        int,
        pair: m.vector_type(uint, 2),
        boolean,
        bool_pair: m.vector_type(boolean, 2),
        float: m.float_type(32),
        glsl: m.glsl_std_450(),
    };
    let signed: Vec<Word> = wide
        .iter()
        .copied()
        .filter(|&w| m.int_type_of(w).is_some_and(|(_, s)| s))
        .collect();
    let is_wide = |m: &Model, x: Word| m.result_type(x).is_some_and(|ty| wide.contains(&ty));
    let count = m.rewrite(|e, inst| {
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let args: Vec<Word> = inst.operands.iter().filter_map(id).collect();
        let wide_result = wide.contains(&ty);
        let wide_args = args.iter().any(|&a| is_wide(e.m, a));
        if !wide_result && !wide_args {
            return Ok(false);
        }
        let signed_arg = args
            .first()
            .is_some_and(|&a| e.m.result_type(a).is_some_and(|ty| signed.contains(&ty)));
        let value = rewrite(e, inst, t, (ty, r), &args, (wide_result, signed_arg));
        Ok(value.is_some())
    })?;
    constants_as_pairs(m, &wide, t)?;
    retype(m, &wide, t.pair);
    Ok(count)
}

/// Emits what replaces `inst` (result `r` of type `ty`); `None` keeps it.
fn rewrite(
    e: &mut Emit,
    inst: &Instruction,
    t: Types,
    (ty, r): (Word, Word),
    args: &[Word],
    (wide_result, signed): (bool, bool),
) -> Option<()> {
    let op = inst.class.opcode;
    let done = |e: &mut Emit, v: Word| {
        e.push(with_ids(
            Op::CopyObject,
            Some(ty_of(ty, wide_result, t)),
            Some(r),
            &[v],
        ));
        Some(())
    };
    match op {
        Op::IAdd | Op::ISub => {
            let v = add_or_sub(e, t, op, args[0], args[1]);
            done(e, v)
        }
        Op::SNegate => {
            let zero = e.null(t.pair);
            let v = sub(e, t, zero, args[0]);
            done(e, v)
        }
        Op::IMul => {
            let v = mul(e, t, args[0], args[1]);
            done(e, v)
        }
        Op::Not | Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => {
            let v = e.op(op, t.pair, args);
            done(e, v)
        }
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
            let n = low_word(e, t, args[1]);
            let v = shift(e, t, op, args[0], n);
            done(e, v)
        }
        Op::IEqual | Op::INotEqual => {
            let each = e.op(op, t.bool_pair, &[args[0], args[1]]);
            let all = if op == Op::IEqual { Op::All } else { Op::Any };
            e.push(with_ids(all, Some(ty), Some(r), &[each]));
            Some(())
        }
        Op::ULessThan
        | Op::ULessThanEqual
        | Op::UGreaterThan
        | Op::UGreaterThanEqual
        | Op::SLessThan
        | Op::SLessThanEqual
        | Op::SGreaterThan
        | Op::SGreaterThanEqual => {
            let v = compare(e, t, op, args[0], args[1]);
            e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[v]));
            Some(())
        }
        Op::Select if wide_result => {
            let v = select_pair(e, t, args[0], args[1], args[2]);
            done(e, v)
        }
        Op::UConvert
        | Op::SConvert
        | Op::Bitcast
        | Op::ConvertUToF
        | Op::ConvertSToF
        | Op::ConvertFToU
        | Op::ConvertFToS => convert(e, op, t, (ty, r), args, (wide_result, signed)),
        Op::AccessChain | Op::InBoundsAccessChain => {
            let mut operands = inst.operands.clone();
            for o in operands.iter_mut().skip(1) {
                if let Operand::IdRef(x) = o
                    && e.m.result_type(*x).is_some_and(|ty| {
                        ty != t.uint && e.m.int_type_of(ty).is_some_and(|(w, _)| w == 64)
                    })
                {
                    *x = low_word(e, t, *x);
                }
            }
            e.push(Instruction::new(op, Some(ty), Some(r), operands));
            Some(())
        }
        Op::UDiv | Op::UMod => {
            let k = power_of_two(e.m, args[1])?;
            let v = if op == Op::UDiv {
                let by = e.constant(t.uint, u64::from(k));
                shift(e, t, Op::ShiftRightLogical, args[0], by)
            } else {
                let mask = (1u64 << k).wrapping_sub(1);
                let low = e.constant(t.uint, mask & 0xffff_ffff);
                let high = e.constant(t.uint, mask >> 32);
                let mask = pair(e, t, low, high);
                e.op(Op::BitwiseAnd, t.pair, &[args[0], mask])
            };
            done(e, v)
        }
        Op::ExtInst => {
            let Some(Operand::LiteralExtInstInteger(which)) = inst.operands.get(1) else {
                return None;
            };
            let (a, b) = (args[1], args[2]);
            let less = match *which {
                GLSL_UMIN | GLSL_UMAX => Op::ULessThan,
                _ => Op::SLessThan,
            };
            let a_less = compare(e, t, less, a, b);
            let (first, second) = if matches!(*which, GLSL_UMIN | GLSL_SMIN) {
                (a, b)
            } else {
                (b, a)
            };
            let v = select_pair(e, t, a_less, first, second);
            done(e, v)
        }
        _ => None,
    }
}

/// Conversions to, from and between 64-bit integers.
fn convert(
    e: &mut Emit,
    op: Op,
    t: Types,
    (ty, r): (Word, Word),
    args: &[Word],
    (wide_result, signed): (bool, bool),
) -> Option<()> {
    let done = |e: &mut Emit, v: Word| {
        e.push(with_ids(
            Op::CopyObject,
            Some(ty_of(ty, wide_result, t)),
            Some(r),
            &[v],
        ));
        Some(())
    };
    match op {
        Op::UConvert | Op::SConvert if wide_result => {
            let x = e.op(Op::Bitcast, t.uint, &[args[0]]);
            let high = if op == Op::SConvert {
                let thirty_one = e.constant(t.uint, 31);
                let sign = e.op(Op::ShiftRightArithmetic, t.int, &[args[0], thirty_one]);
                e.op(Op::Bitcast, t.uint, &[sign])
            } else {
                e.null(t.uint)
            };
            let v = e.op(Op::CompositeConstruct, t.pair, &[x, high]);
            done(e, v)
        }
        Op::UConvert | Op::SConvert => {
            let low = low_word(e, t, args[0]);
            e.push(with_ids(Op::Bitcast, Some(ty), Some(r), &[low]));
            Some(())
        }
        Op::Bitcast => {
            // Between the 64-bit types (now one pair type), and to and
            // from `uvec2`/`ivec2` (GLSL's unpackUint2x32, packInt2x32).
            let v = if e.m.op_of(ty) == Some(Op::TypeVector) && !wide_result {
                e.op(Op::Bitcast, ty, &[args[0]])
            } else {
                e.op(Op::Bitcast, t.pair, &[args[0]])
            };
            done(e, v)
        }
        Op::ConvertUToF | Op::ConvertSToF if !wide_result => {
            let v = to_float(e, t, args[0], op == Op::ConvertSToF && signed);
            let v = if ty == t.float {
                v
            } else {
                e.op(Op::FConvert, ty, &[v])
            };
            e.push(with_ids(Op::CopyObject, Some(ty), Some(r), &[v]));
            Some(())
        }
        Op::ConvertFToU | Op::ConvertFToS if wide_result => {
            let f = if e.m.result_type(args[0]) == Some(t.float) {
                args[0]
            } else {
                e.op(Op::FConvert, t.float, &[args[0]])
            };
            let v = from_float(e, t, f, op == Op::ConvertFToS);
            done(e, v)
        }
        _ => None,
    }
}

/// The result type a rewrite gives: the pair for a 64-bit result.
fn ty_of(ty: Word, wide: bool, t: Types) -> Word {
    if wide { t.pair } else { ty }
}

fn words(e: &mut Emit, t: Types, x: Word) -> (Word, Word) {
    (e.extract(t.uint, x, 0), e.extract(t.uint, x, 1))
}

/// The low word of a shift amount or value: a 32-bit integer as it is (as
/// a uint), a pair's low word.
fn low_word(e: &mut Emit, t: Types, x: Word) -> Word {
    match e.m.result_type(x) {
        Some(ty) if ty == t.uint => x,
        Some(ty) if e.m.int_type_of(ty).is_some_and(|(w, _)| w == 32) => {
            e.op(Op::Bitcast, t.uint, &[x])
        }
        _ => e.extract(t.uint, x, 0),
    }
}

/// `cond ? a : b` on pairs (a vector select takes a vector condition).
fn select_pair(e: &mut Emit, t: Types, cond: Word, a: Word, b: Word) -> Word {
    let both = e.op(Op::CompositeConstruct, t.bool_pair, &[cond, cond]);
    e.op(Op::Select, t.pair, &[both, a, b])
}

/// `-a` where `negative`, `a` elsewhere.
fn negated_where(e: &mut Emit, t: Types, negative: Word, a: Word) -> Word {
    let zero = e.null(t.pair);
    let negated = sub(e, t, zero, a);
    select_pair(e, t, negative, negated, a)
}

fn pair(e: &mut Emit, t: Types, low: Word, high: Word) -> Word {
    e.op(Op::CompositeConstruct, t.pair, &[low, high])
}

/// `a + b` (`op` IAdd) or `a - b` (ISub): the low words, then the high
/// words with the carry out of (or the borrow into) the low ones.
fn add_or_sub(e: &mut Emit, t: Types, op: Op, a: Word, b: Word) -> Word {
    let ((al, ah), (bl, bh)) = (words(e, t, a), words(e, t, b));
    let low = e.op(op, t.uint, &[al, bl]);
    // A sum wrapped when it is below an addend; a difference borrowed when
    // the subtrahend is above the minuend.
    let carried = if op == Op::IAdd {
        e.op(Op::ULessThan, t.boolean, &[low, al])
    } else {
        e.op(Op::ULessThan, t.boolean, &[al, bl])
    };
    let (zero, one) = (e.constant(t.uint, 0), e.constant(t.uint, 1));
    let carry = e.op(Op::Select, t.uint, &[carried, one, zero]);
    let high = e.op(op, t.uint, &[ah, bh]);
    let high = e.op(op, t.uint, &[high, carry]);
    pair(e, t, low, high)
}

fn sub(e: &mut Emit, t: Types, a: Word, b: Word) -> Word {
    add_or_sub(e, t, Op::ISub, a, b)
}

/// The low 64 bits of the product: `al·bl` in full, plus the cross terms'
/// low words in the high word (the same for signed and unsigned).
fn mul(e: &mut Emit, t: Types, a: Word, b: Word) -> Word {
    let ((al, ah), (bl, bh)) = (words(e, t, a), words(e, t, b));
    let low = e.op(Op::IMul, t.uint, &[al, bl]);
    let high = super::builtins::high_word(e, t.uint, 1, al, bl);
    let cross1 = e.op(Op::IMul, t.uint, &[al, bh]);
    let cross2 = e.op(Op::IMul, t.uint, &[ah, bl]);
    let high = e.op(Op::IAdd, t.uint, &[high, cross1]);
    let high = e.op(Op::IAdd, t.uint, &[high, cross2]);
    pair(e, t, low, high)
}

/// `a` shifted by `n & 63` (GLSL leaves larger amounts undefined; WGSL's
/// 32-bit shifts take the amount modulo 32, so each case is written apart).
/// A constant amount gets its own case only: WGSL compilers evaluate a
/// shift by a constant when they compile, and refuse one by 32 or more even
/// where a `select` would not take it.
fn shift(e: &mut Emit, t: Types, op: Op, a: Word, n: Word) -> Word {
    if let Some(k) = e.m.constant_u32(n) {
        return shift_by(e, t, op, a, k & 63);
    }
    let (al, ah) = words(e, t, a);
    let c = |e: &mut Emit, v: u32| e.constant(t.uint, u64::from(v));
    let (c63, c32, c31, zero) = (c(e, 63), c(e, 32), c(e, 31), c(e, 0));
    let n = e.op(Op::BitwiseAnd, t.uint, &[n, c63]);
    let small = e.op(Op::ULessThan, t.boolean, &[n, c32]);
    let is_zero = e.op(Op::IEqual, t.boolean, &[n, zero]);
    let rest = e.op(Op::ISub, t.uint, &[c32, n]);
    let big = e.op(Op::ISub, t.uint, &[n, c32]);
    let (low, high) = if op == Op::ShiftLeftLogical {
        let low_small = e.op(Op::ShiftLeftLogical, t.uint, &[al, n]);
        let spill = e.op(Op::ShiftRightLogical, t.uint, &[al, rest]);
        let spill = e.op(Op::Select, t.uint, &[is_zero, zero, spill]);
        let high_small = e.op(Op::ShiftLeftLogical, t.uint, &[ah, n]);
        let high_small = e.op(Op::BitwiseOr, t.uint, &[high_small, spill]);
        let high_big = e.op(Op::ShiftLeftLogical, t.uint, &[al, big]);
        (
            e.op(Op::Select, t.uint, &[small, low_small, zero]),
            e.op(Op::Select, t.uint, &[small, high_small, high_big]),
        )
    } else {
        let arithmetic = op == Op::ShiftRightArithmetic;
        let high_signed = e.op(Op::Bitcast, t.int, &[ah]);
        let shifted_high = |e: &mut Emit, by: Word| {
            if arithmetic {
                let s = e.op(Op::ShiftRightArithmetic, t.int, &[high_signed, by]);
                e.op(Op::Bitcast, t.uint, &[s])
            } else {
                e.op(Op::ShiftRightLogical, t.uint, &[ah, by])
            }
        };
        let low_small = e.op(Op::ShiftRightLogical, t.uint, &[al, n]);
        let spill = e.op(Op::ShiftLeftLogical, t.uint, &[ah, rest]);
        let spill = e.op(Op::Select, t.uint, &[is_zero, zero, spill]);
        let low_small = e.op(Op::BitwiseOr, t.uint, &[low_small, spill]);
        let high_small = shifted_high(e, n);
        let low_big = shifted_high(e, big);
        let fill = if arithmetic {
            shifted_high(e, c31)
        } else {
            zero
        };
        (
            e.op(Op::Select, t.uint, &[small, low_small, low_big]),
            e.op(Op::Select, t.uint, &[small, high_small, fill]),
        )
    };
    pair(e, t, low, high)
}

/// `a` shifted by the constant `k` (below 64).
fn shift_by(e: &mut Emit, t: Types, op: Op, a: Word, k: u32) -> Word {
    if k == 0 {
        return a;
    }
    let (al, ah) = words(e, t, a);
    let c = |e: &mut Emit, v: u32| e.constant(t.uint, u64::from(v));
    let zero = c(e, 0);
    let (low, high) = match op {
        Op::ShiftLeftLogical if k < 32 => {
            let (by, back) = (c(e, k), c(e, 32 - k));
            let low = e.op(Op::ShiftLeftLogical, t.uint, &[al, by]);
            let high = e.op(Op::ShiftLeftLogical, t.uint, &[ah, by]);
            let spill = e.op(Op::ShiftRightLogical, t.uint, &[al, back]);
            (low, e.op(Op::BitwiseOr, t.uint, &[high, spill]))
        }
        Op::ShiftLeftLogical => {
            let by = c(e, k - 32);
            (zero, e.op(Op::ShiftLeftLogical, t.uint, &[al, by]))
        }
        _ => {
            let arithmetic = op == Op::ShiftRightArithmetic;
            let high_by = |e: &mut Emit, by: u32| {
                let by = c(e, by);
                if arithmetic {
                    let h = e.op(Op::Bitcast, t.int, &[ah]);
                    let s = e.op(Op::ShiftRightArithmetic, t.int, &[h, by]);
                    e.op(Op::Bitcast, t.uint, &[s])
                } else {
                    e.op(Op::ShiftRightLogical, t.uint, &[ah, by])
                }
            };
            if k < 32 {
                let (by, back) = (c(e, k), c(e, 32 - k));
                let low = e.op(Op::ShiftRightLogical, t.uint, &[al, by]);
                let spill = e.op(Op::ShiftLeftLogical, t.uint, &[ah, back]);
                let low = e.op(Op::BitwiseOr, t.uint, &[low, spill]);
                (low, high_by(e, k))
            } else {
                let fill = if arithmetic { high_by(e, 31) } else { zero };
                (high_by(e, k - 32), fill)
            }
        }
    };
    pair(e, t, low, high)
}

/// `a op b` on pairs: the high words decide unless equal (compared signed
/// for the signed comparisons), then the low words, unsigned.
fn compare(e: &mut Emit, t: Types, op: Op, a: Word, b: Word) -> Word {
    let ((al, ah), (bl, bh)) = (words(e, t, a), words(e, t, b));
    let (high_op, low_op) = match op {
        Op::ULessThan => (Op::ULessThan, Op::ULessThan),
        Op::ULessThanEqual => (Op::ULessThan, Op::ULessThanEqual),
        Op::UGreaterThan => (Op::UGreaterThan, Op::UGreaterThan),
        Op::UGreaterThanEqual => (Op::UGreaterThan, Op::UGreaterThanEqual),
        Op::SLessThan => (Op::SLessThan, Op::ULessThan),
        Op::SLessThanEqual => (Op::SLessThan, Op::ULessThanEqual),
        Op::SGreaterThan => (Op::SGreaterThan, Op::UGreaterThan),
        _ => (Op::SGreaterThan, Op::UGreaterThanEqual),
    };
    let (ha, hb) = if matches!(high_op, Op::SLessThan | Op::SGreaterThan) {
        (
            e.op(Op::Bitcast, t.int, &[ah]),
            e.op(Op::Bitcast, t.int, &[bh]),
        )
    } else {
        (ah, bh)
    };
    let high_decides = e.op(high_op, t.boolean, &[ha, hb]);
    let high_equal = e.op(Op::IEqual, t.boolean, &[ah, bh]);
    let low_decides = e.op(low_op, t.boolean, &[al, bl]);
    let tie = e.op(Op::LogicalAnd, t.boolean, &[high_equal, low_decides]);
    e.op(Op::LogicalOr, t.boolean, &[high_decides, tie])
}

/// `float(a)`, rounded once: the value shifted right until it fits in 32
/// bits, the bits shifted out kept as one sticky bit (so that the one
/// rounding, in the 32-bit conversion, is the one the 64-bit value needs),
/// then scaled back by a power of two, exactly. Signed: the magnitude,
/// negated.
fn to_float(e: &mut Emit, t: Types, a: Word, signed: bool) -> Word {
    let (_, ah) = words(e, t, a);
    let c = |e: &mut Emit, v: u32| e.constant(t.uint, u64::from(v));
    let (zero, thirty_one, thirty_two, one) = (c(e, 0), c(e, 31), c(e, 32), c(e, 1));
    let (magnitude, negative) = if signed {
        let sign = e.op(Op::ShiftRightLogical, t.uint, &[ah, thirty_one]);
        let negative = e.op(Op::INotEqual, t.boolean, &[sign, zero]);
        (negated_where(e, t, negative, a), Some(negative))
    } else {
        (a, None)
    };
    let (ml, mh) = words(e, t, magnitude);
    // How far to shift: the high word's bit length (0 when it is 0).
    let msb = e.ext_inst(t.glsl, t.int, GLSL_FIND_U_MSB, &[mh]);
    let msb = e.op(Op::Bitcast, t.uint, &[msb]);
    let length = e.op(Op::IAdd, t.uint, &[msb, one]);
    let high_zero = e.op(Op::IEqual, t.boolean, &[mh, zero]);
    let shift = e.op(Op::Select, t.uint, &[high_zero, zero, length]);
    let right = shift_pair_right(e, t, magnitude, shift);
    // The bits shifted out: the low `shift` bits of the low word.
    let all = c(e, u32::MAX);
    let keep = e.op(Op::ISub, t.uint, &[thirty_two, shift]);
    let lost_mask = e.op(Op::ShiftRightLogical, t.uint, &[all, keep]);
    let lost_mask = e.op(Op::Select, t.uint, &[high_zero, zero, lost_mask]);
    let lost = e.op(Op::BitwiseAnd, t.uint, &[ml, lost_mask]);
    let sticky = e.op(Op::INotEqual, t.boolean, &[lost, zero]);
    let sticky = e.op(Op::Select, t.uint, &[sticky, one, zero]);
    let kept = e.op(Op::BitwiseOr, t.uint, &[right, sticky]);
    let f = e.op(Op::ConvertUToF, t.float, &[kept]);
    let exponent = e.op(Op::Bitcast, t.int, &[shift]);
    let v = e.ext_inst(t.glsl, t.float, GLSL_LDEXP, &[f, exponent]);
    match negative {
        Some(n) => {
            let neg = e.op(Op::FNegate, t.float, &[v]);
            e.op(Op::Select, t.float, &[n, neg, v])
        }
        None => v,
    }
}

/// The low word of `a >> n` for `n` in 0..=32.
fn shift_pair_right(e: &mut Emit, t: Types, a: Word, n: Word) -> Word {
    let shifted = shift(e, t, Op::ShiftRightLogical, a, n);
    e.extract(t.uint, shifted, 0)
}

/// `uint64_t(f)` / `int64_t(f)`: the high word is `f / 2³²` truncated, the
/// low word what is left (exact: an `f32` past 2³² has no bits below 2⁸).
/// Signed: from the magnitude, negated.
fn from_float(e: &mut Emit, t: Types, f: Word, signed: bool) -> Word {
    let magnitude = if signed {
        e.ext_inst(t.glsl, t.float, GLSL_FABS, &[f])
    } else {
        f
    };
    let two32 = e.constant(t.float, u64::from(4_294_967_296.0f32.to_bits()));
    let high_f = e.op(Op::FDiv, t.float, &[magnitude, two32]);
    let high = e.op(Op::ConvertFToU, t.uint, &[high_f]);
    let high_back = e.op(Op::ConvertUToF, t.float, &[high]);
    let high_part = e.op(Op::FMul, t.float, &[high_back, two32]);
    let rest = e.op(Op::FSub, t.float, &[magnitude, high_part]);
    let low = e.op(Op::ConvertFToU, t.uint, &[rest]);
    let v = pair(e, t, low, high);
    if !signed {
        return v;
    }
    let zero = e.constant(t.float, 0);
    let negative = e.op(Op::FOrdLessThan, t.boolean, &[f, zero]);
    negated_where(e, t, negative, v)
}

/// Every 64-bit `OpConstant` as a pair of 32-bit constants.
fn constants_as_pairs(m: &mut Model, wide: &[Word], t: Types) -> Result<()> {
    let constants: Vec<(Word, u64)> = m
        .module()
        .types_global_values
        .iter()
        .filter(|g| {
            g.class.opcode == Op::Constant && g.result_type.is_some_and(|ty| wide.contains(&ty))
        })
        .filter_map(|g| {
            let bits = match g.operands.first()? {
                Operand::LiteralBit64(v) => *v,
                Operand::LiteralBit32(v) => u64::from(*v),
                _ => return None,
            };
            Some((g.result_id?, bits))
        })
        .collect();
    for (c, bits) in constants {
        let low = m.uint_constant(bits as u32);
        let high = m.uint_constant((bits >> 32) as u32);
        m.replace_global(
            c,
            Instruction::new(
                Op::ConstantComposite,
                Some(t.pair),
                Some(c),
                vec![Operand::IdRef(low), Operand::IdRef(high)],
            ),
        );
    }
    Ok(())
}

/// Every use of a 64-bit type made the pair type, and the 64-bit types gone.
fn retype(m: &mut Model, wide: &[Word], pair: Word) {
    let swap = |i: &mut Instruction| {
        if i.result_type.is_some_and(|t| wide.contains(&t)) {
            i.result_type = Some(pair);
        }
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o
                && wide.contains(x)
            {
                *x = pair;
            }
        }
    };
    let module = m.module_mut();
    for g in &mut module.types_global_values {
        swap(g);
    }
    for f in &mut module.functions {
        if let Some(d) = f.def.as_mut() {
            swap(d);
        }
        for p in &mut f.parameters {
            swap(p);
        }
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                swap(i);
            }
        }
    }
    m.remove_definitions(wide);
}
