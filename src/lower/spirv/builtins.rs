//! GLSL built-ins that naga's SPIR-V reader cannot read, or that its WGSL
//! writer cannot write, spelled in instructions it reads and writes:
//! - `isnan` and `isinf` on `float` scalars and vectors (`OpIsNan`,
//!   `OpIsInf`) test the bits: an exponent of all ones with a nonzero
//!   mantissa is a NaN, with a zero one an infinity. WGSL has neither
//!   function, and `x != x` is not a test: WGSL lets compilers assume that
//!   no NaN occurs.
//! - `uaddCarry` and `usubBorrow` (`OpIAddCarry`, `OpISubBorrow`): the
//!   wrapped sum or difference, and 1 where it wrapped.
//! - `umulExtended` and `imulExtended` (`OpUMulExtended`, `OpSMulExtended`):
//!   the low word is the wrapped product, the high word is summed from
//!   16-bit halves (no 64-bit integers needed); the signed high word is
//!   the unsigned one less each operand where the other is negative.
//!
//! Each works component-wise on vectors, as SPIR-V defines them.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

use crate::Result;
use crate::lower::model::{Emit, Model, id, with_ids};

/// The types the rewrites compute in, per component count: `u32`s and bools.
struct Types {
    uint: HashMap<u32, Word>,
    bool: HashMap<u32, Word>,
}

/// Rewrites every built-in above; returns how many.
pub fn lower_builtins(m: &mut Model) -> Result<usize> {
    let counts: Vec<u32> = m
        .instructions()
        .filter(|i| handled(m, i))
        .filter_map(|i| i.operands.first().and_then(id))
        .filter_map(|x| m.result_type(x))
        .map(|t| m.components(t))
        .collect();
    if counts.is_empty() {
        return Ok(0);
    }
    let mut types = Types {
        uint: HashMap::default(),
        bool: HashMap::default(),
    };
    for n in counts {
        let (u, b) = (m.uint(), m.bool_type());
        let vector = |m: &mut Model, t| if n == 1 { t } else { m.vector_type(t, n) };
        let u = vector(m, u);
        let b = vector(m, b);
        types.uint.insert(n, u);
        types.bool.insert(n, b);
    }
    m.rewrite(|e, inst| {
        Ok(match inst.class.opcode {
            _ if !handled(e.m, inst) => false,
            Op::IsNan | Op::IsInf => float_class(e, inst, &types),
            Op::IAddCarry | Op::ISubBorrow => carry(e, inst, &types),
            Op::UMulExtended | Op::SMulExtended => wide_product(e, inst, &types),
            _ => false,
        })
    })
}

/// Whether `inst` is one of the built-ins, on 32-bit operands.
fn handled(m: &Model, inst: &Instruction) -> bool {
    let op = inst.class.opcode;
    let Some(ty) = inst
        .operands
        .first()
        .and_then(id)
        .and_then(|x| m.result_type(x))
    else {
        return false;
    };
    let scalar = m.scalar_of(ty);
    match op {
        Op::IsNan | Op::IsInf => m.float32() == Some(scalar),
        Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
            m.int_type_of(scalar).is_some_and(|(w, _)| w == 32)
        }
        _ => false,
    }
}

/// `v` in every component of a `u32` scalar or vector type of `n` components.
fn splat(e: &mut Emit, types: &Types, n: u32, v: u32) -> Word {
    let u = e.m.uint_id();
    let c = e.constant(u, u64::from(v));
    if n == 1 {
        c
    } else {
        e.op(Op::CompositeConstruct, types.uint[&n], &vec![c; n as usize])
    }
}

/// The operands and result of a one- or two-operand built-in, with the
/// operands' component count.
fn operands(e: &Emit, inst: &Instruction) -> Option<(Word, Word, Vec<Word>, u32)> {
    let args: Vec<Word> = inst.operands.iter().filter_map(id).collect();
    let ty = e.m.result_type(*args.first()?)?;
    Some((inst.result_type?, inst.result_id?, args, e.m.components(ty)))
}

/// `isnan(x)`: `(bits(x) & 0x7fffffff) > 0x7f800000`; `isinf(x)`: `==`.
fn float_class(e: &mut Emit, inst: &Instruction, types: &Types) -> bool {
    let Some((ty, r, args, n)) = operands(e, inst) else {
        return false;
    };
    let u = types.uint[&n];
    let bits = e.op(Op::Bitcast, u, &[args[0]]);
    let mask = splat(e, types, n, 0x7fff_ffff);
    let magnitude = e.op(Op::BitwiseAnd, u, &[bits, mask]);
    let infinity = splat(e, types, n, 0x7f80_0000);
    let test = if inst.class.opcode == Op::IsNan {
        Op::UGreaterThan
    } else {
        Op::IEqual
    };
    e.push(with_ids(test, Some(ty), Some(r), &[magnitude, infinity]));
    true
}

/// `uaddCarry(a, b)` / `usubBorrow(a, b)`: the struct of the wrapped sum
/// (difference) and 1 where it wrapped (`sum < a`; `a < b`), else 0.
fn carry(e: &mut Emit, inst: &Instruction, types: &Types) -> bool {
    let Some((ty, r, args, n)) = operands(e, inst) else {
        return false;
    };
    let (a, b) = (args[0], args[1]);
    let Some(t) = e.m.result_type(a) else {
        return false;
    };
    let (value, wrapped) = if inst.class.opcode == Op::IAddCarry {
        let sum = e.op(Op::IAdd, t, &[a, b]);
        (sum, e.op(Op::ULessThan, types.bool[&n], &[sum, a]))
    } else {
        let difference = e.op(Op::ISub, t, &[a, b]);
        (difference, e.op(Op::ULessThan, types.bool[&n], &[a, b]))
    };
    let one = splat(e, types, n, 1);
    let zero = e.null(t);
    let flag = e.op(Op::Select, t, &[wrapped, one, zero]);
    e.push(with_ids(
        Op::CompositeConstruct,
        Some(ty),
        Some(r),
        &[value, flag],
    ));
    true
}

/// `umulExtended(a, b)` / `imulExtended(a, b)`: the struct of the low and
/// the high 32 bits of the 64-bit product.
fn wide_product(e: &mut Emit, inst: &Instruction, types: &Types) -> bool {
    let Some((ty, r, args, n)) = operands(e, inst) else {
        return false;
    };
    let Some(t) = e.m.result_type(args[0]) else {
        return false;
    };
    let u = types.uint[&n];
    let signed = inst.class.opcode == Op::SMulExtended;
    let unsigned = |e: &mut Emit, x: Word| {
        if t == u {
            x
        } else {
            e.op(Op::Bitcast, u, &[x])
        }
    };
    let (a, b) = (unsigned(e, args[0]), unsigned(e, args[1]));
    let low = e.op(Op::IMul, u, &[a, b]);
    let mut high = high_word(e, u, n, a, b);
    if signed {
        // (a - 2³²·[a<0]) · (b - 2³²·[b<0]): the high word loses b where a
        // is negative and a where b is.
        let zero = e.null(u);
        for (x, y) in [(args[0], b), (args[1], a)] {
            let signed_zero = e.null(t);
            let negative = e.op(Op::SLessThan, types.bool[&n], &[x, signed_zero]);
            let less = e.op(Op::Select, u, &[negative, y, zero]);
            high = e.op(Op::ISub, u, &[high, less]);
        }
    }
    let back = |e: &mut Emit, x: Word| {
        if t == u {
            x
        } else {
            e.op(Op::Bitcast, t, &[x])
        }
    };
    let (low, high) = (back(e, low), back(e, high));
    e.push(with_ids(
        Op::CompositeConstruct,
        Some(ty),
        Some(r),
        &[low, high],
    ));
    true
}

/// The high 32 bits of the unsigned product of `a` and `b` (of `u`, the
/// `u32` type of `n` components), from their 16-bit halves: every partial
/// product and partial sum fits in 32 bits.
pub(crate) fn high_word(e: &mut Emit, u: Word, n: u32, a: Word, b: Word) -> Word {
    let splat = |e: &mut Emit, v: u32| {
        let c = e.constant(e.m.uint_id(), u64::from(v));
        if n == 1 {
            c
        } else {
            e.op(Op::CompositeConstruct, u, &vec![c; n as usize])
        }
    };
    let (sixteen, low_mask) = (splat(e, 16), splat(e, 0xffff));
    let halves = |e: &mut Emit, x: Word| {
        (
            e.op(Op::BitwiseAnd, u, &[x, low_mask]),
            e.op(Op::ShiftRightLogical, u, &[x, sixteen]),
        )
    };
    let (a0, a1) = halves(e, a);
    let (b0, b1) = halves(e, b);
    let p00 = e.op(Op::IMul, u, &[a0, b0]);
    let p01 = e.op(Op::IMul, u, &[a0, b1]);
    let p10 = e.op(Op::IMul, u, &[a1, b0]);
    let p11 = e.op(Op::IMul, u, &[a1, b1]);
    // Bits 16..48 of the product: under 3·2¹⁶, no overflow.
    let carry_in = e.op(Op::ShiftRightLogical, u, &[p00, sixteen]);
    let (l01, h01) = halves(e, p01);
    let (l10, h10) = halves(e, p10);
    let middle = e.op(Op::IAdd, u, &[carry_in, l01]);
    let middle = e.op(Op::IAdd, u, &[middle, l10]);
    let carry_out = e.op(Op::ShiftRightLogical, u, &[middle, sixteen]);
    let high = e.op(Op::IAdd, u, &[p11, h01]);
    let high = e.op(Op::IAdd, u, &[high, h10]);
    e.op(Op::IAdd, u, &[high, carry_out])
}
