//! The CPU model of the GLSL atomic memory functions: the only source of
//! expected values for atomport's tests and validator.
//!
//! Values are 32-bit patterns; the [`ScalarType`] says how to read them:
//! `atomicMin`/`atomicMax` compare signed for `int` and unsigned for `uint`,
//! `atomicAdd` wraps around, and every function returns the original value.
//! For `float` (GL_EXT_shader_atomic_float and _float2), `atomicAdd` is an
//! IEEE add, and `atomicMin`/`atomicMax` are minNum/maxNum with -0.0 below
//! +0.0 and a NaN losing to any number (see [`float_min_max`]).

use crate::ScalarType;

/// One of the GLSL atomic memory functions (and their image forms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomicAdd`: wrap-around addition.
    Add,
    /// `atomicMin`: signed for int, unsigned for uint.
    Min,
    /// `atomicMax`: signed for int, unsigned for uint.
    Max,
    /// `atomicAnd`.
    And,
    /// `atomicOr`.
    Or,
    /// `atomicXor`.
    Xor,
    /// `atomicExchange`.
    Exchange,
    /// `atomicCompSwap`: strong; writes `data` only if memory equals `compare`.
    CompSwap,
}

impl AtomicOp {
    /// Every function, in the order of the GLSL reference pages.
    pub const ALL: [AtomicOp; 8] = [
        AtomicOp::Add,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompSwap,
    ];

    /// The GLSL name of the buffer form (`atomicAdd`, …).
    pub fn glsl_name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Exchange => "atomicExchange",
            AtomicOp::CompSwap => "atomicCompSwap",
        }
    }

    /// Whether the final value is the same whatever order the calls land in.
    pub fn is_order_independent(self) -> bool {
        !matches!(self, AtomicOp::Exchange | AtomicOp::CompSwap)
    }

    /// Applies the function to memory holding `mem`: returns (new memory, returned value).
    pub fn apply(self, ty: ScalarType, mem: u32, data: u32, compare: u32) -> (u32, u32) {
        let new = match (self, ty) {
            (AtomicOp::Add, ScalarType::F32) => {
                (f32::from_bits(mem) + f32::from_bits(data)).to_bits()
            }
            (AtomicOp::Min, ScalarType::F32) => float_min_max(true, mem, data),
            (AtomicOp::Max, ScalarType::F32) => float_min_max(false, mem, data),
            _ => {
                // The integer functions are the 64-bit ones on the values
                // widened as their type says, cut back to 32 bits.
                let signed = ty == ScalarType::I32;
                let widen = |v: u32| {
                    if signed {
                        v as i32 as i64 as u64
                    } else {
                        u64::from(v)
                    }
                };
                self.apply64(signed, widen(mem), widen(data), widen(compare))
                    .0 as u32
            }
        };
        (new, mem)
    }

    /// [`AtomicOp::apply`] on 64-bit integers (`r64ui`/`r64i` images):
    /// min and max compare signed when `signed`.
    pub fn apply64(self, signed: bool, mem: u64, data: u64, compare: u64) -> (u64, u64) {
        let new = match self {
            AtomicOp::Add => mem.wrapping_add(data),
            AtomicOp::Min if signed => (mem as i64).min(data as i64) as u64,
            AtomicOp::Min => mem.min(data),
            AtomicOp::Max if signed => (mem as i64).max(data as i64) as u64,
            AtomicOp::Max => mem.max(data),
            AtomicOp::And => mem & data,
            AtomicOp::Or => mem | data,
            AtomicOp::Xor => mem ^ data,
            AtomicOp::Exchange => data,
            AtomicOp::CompSwap if mem == compare => data,
            AtomicOp::CompSwap => mem,
        };
        (new, mem)
    }

    /// The final value after applying the function with every argument in
    /// `data`, in order, to `initial` (for order-independent functions, in any order).
    pub fn fold(self, ty: ScalarType, initial: u32, data: impl IntoIterator<Item = u32>) -> u32 {
        data.into_iter()
            .fold(initial, |m, d| self.apply(ty, m, d, 0).0)
    }
}

/// Float `atomicMin` (`min`) or `atomicMax` on bit patterns: the memory
/// takes the value when the value is a number and memory is NaN or the
/// value is smaller (larger), -0.0 counting as below +0.0; a NaN value
/// leaves memory as it is.
pub fn float_min_max(min: bool, mem: u32, value: u32) -> u32 {
    let (m, v) = (f32::from_bits(mem), f32::from_bits(value));
    if v.is_nan() {
        return mem;
    }
    if m.is_nan() {
        return value;
    }
    let negative = value & 0x8000_0000 != 0;
    let takes = if min {
        v < m || (v == m && negative)
    } else {
        v > m || (v == m && !negative)
    };
    if takes { value } else { mem }
}

/// Whether the values returned by calls that all hit one location, plus the
/// final value, are explained by some serial order of those calls starting
/// from `initial`. `calls` holds (data, compare, returned) per call. Searches
/// the orders with backtracking (memoised on the set of calls done and the
/// memory value), which is quick for the handful of calls per location that
/// the tests and the validator use.
pub fn explained_by_serial_order(
    op: AtomicOp,
    ty: ScalarType,
    initial: u32,
    calls: &[(u32, u32, u32)],
    final_value: u32,
) -> bool {
    assert!(
        calls.len() <= 20,
        "serial-order search is for small call counts"
    );
    let mut dead = std::collections::HashSet::new();
    fn go(
        op: AtomicOp,
        ty: ScalarType,
        mem: u32,
        done: u32,
        calls: &[(u32, u32, u32)],
        final_value: u32,
        dead: &mut std::collections::HashSet<(u32, u32)>,
    ) -> bool {
        if done.count_ones() as usize == calls.len() {
            return mem == final_value;
        }
        if dead.contains(&(done, mem)) {
            return false;
        }
        for (i, &(data, compare, returned)) in calls.iter().enumerate() {
            if done & (1 << i) != 0 || returned != mem {
                continue;
            }
            let (next, _) = op.apply(ty, mem, data, compare);
            if go(op, ty, next, done | (1 << i), calls, final_value, dead) {
                return true;
            }
        }
        dead.insert((done, mem));
        false
    }
    go(op, ty, initial, 0, calls, final_value, &mut dead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::{I32, U32};

    #[test]
    fn min_max_compare_by_type() {
        let m1 = (-1i32) as u32;
        assert_eq!(AtomicOp::Min.apply(I32, m1, 5, 0), (m1, m1));
        assert_eq!(AtomicOp::Min.apply(U32, m1, 5, 0), (5, m1));
        assert_eq!(AtomicOp::Max.apply(I32, m1, 5, 0), (5, m1));
        assert_eq!(AtomicOp::Max.apply(U32, m1, 5, 0), (m1, m1));
    }

    #[test]
    fn add_wraps_and_compswap_is_strong() {
        assert_eq!(AtomicOp::Add.apply(U32, u32::MAX, 2, 0), (1, u32::MAX));
        assert_eq!(AtomicOp::CompSwap.apply(U32, 7, 9, 7), (9, 7));
        assert_eq!(AtomicOp::CompSwap.apply(U32, 8, 9, 7), (8, 8));
        assert_eq!(AtomicOp::Xor.fold(U32, 0b1100, [0b1010, 0b0110]), 0);
    }

    #[test]
    fn sixty_four_bit_compares_by_signedness() {
        let m1 = u64::MAX;
        assert_eq!(AtomicOp::Min.apply64(true, m1, 5, 0), (m1, m1));
        assert_eq!(AtomicOp::Min.apply64(false, m1, 5, 0), (5, m1));
        assert_eq!(AtomicOp::Add.apply64(false, m1, 2, 0).0, 1);
        assert_eq!(AtomicOp::CompSwap.apply64(false, 1 << 40, 9, 1 << 40).0, 9);
    }

    #[test]
    fn float_min_max_signed_zero_and_nan() {
        use ScalarType::F32;
        let b = |f: f32| f.to_bits();
        let nan = f32::NAN.to_bits();
        assert_eq!(AtomicOp::Min.apply(F32, b(0.0), b(-0.0), 0).0, b(-0.0));
        assert_eq!(AtomicOp::Min.apply(F32, b(-0.0), b(0.0), 0).0, b(-0.0));
        assert_eq!(AtomicOp::Max.apply(F32, b(-0.0), b(0.0), 0).0, b(0.0));
        assert_eq!(AtomicOp::Max.apply(F32, b(0.0), b(-0.0), 0).0, b(0.0));
        assert_eq!(AtomicOp::Min.apply(F32, b(2.0), nan, 0).0, b(2.0));
        assert_eq!(AtomicOp::Max.apply(F32, nan, b(-7.5), 0).0, b(-7.5));
        assert_eq!(
            AtomicOp::Min.apply(F32, b(2.0), b(-3.0), 0),
            (b(-3.0), b(2.0))
        );
        assert_eq!(AtomicOp::Add.apply(F32, b(1.5), b(2.25), 0).0, b(3.75));
        assert!(f32::from_bits(AtomicOp::Max.fold(F32, nan, [nan])).is_nan());
    }

    #[test]
    fn serial_order_search() {
        // add 1, 2, 4 from 0: returns 0, 1, 3 in the order 1, 2, 4.
        let calls = [(4, 0, 3), (1, 0, 0), (2, 0, 1)];
        assert!(explained_by_serial_order(AtomicOp::Add, U32, 0, &calls, 7));
        assert!(!explained_by_serial_order(AtomicOp::Add, U32, 0, &calls, 8));
        let bad = [(4, 0, 3), (1, 0, 0), (2, 0, 2)];
        assert!(!explained_by_serial_order(AtomicOp::Add, U32, 0, &bad, 7));
        // exchange: each call returns what the previous one wrote.
        let ex = [(5, 0, 9), (6, 0, 5)];
        assert!(explained_by_serial_order(
            AtomicOp::Exchange,
            U32,
            9,
            &ex,
            6
        ));
        assert!(!explained_by_serial_order(
            AtomicOp::Exchange,
            U32,
            9,
            &ex,
            5
        ));
    }
}
