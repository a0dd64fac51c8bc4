//! Checking a case's results: its arguments and initial values, and the
//! checks of every location against the reference model.

use super::*;

/// A tiny deterministic generator (SplitMix64).
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 32) as u32
    }
}

pub(super) const COMPARE: u32 = 0x1234_5678;

pub(super) fn initial(case: &Case, rng: &mut Rng) -> u32 {
    let signed = case.ty == ScalarType::I32;
    match case.op {
        AtomicOp::Min => {
            if signed {
                1 << 30
            } else {
                0xF000_0000
            }
        }
        AtomicOp::Max => {
            if signed {
                (-(1i32 << 30)) as u32
            } else {
                5
            }
        }
        AtomicOp::And => 0xFFFF_FFFF ^ (rng.next() & 0x0101_0101),
        AtomicOp::Or => 0,
        AtomicOp::CompSwap => COMPARE,
        _ => rng.next(),
    }
}

/// Argument of call `k` at location `loc` (distinct per location for exchange / compare-swap).
pub(super) fn argument(case: &Case, loc: usize, k: usize, rng: &mut Rng) -> u32 {
    let r = rng.next();
    match case.op {
        AtomicOp::Min | AtomicOp::Max => {
            let (x, y) = ((loc % 64) as i64, (k + loc / 64) as i64);
            let v = x * x + y * y + (r % 100) as i64;
            (if k.is_multiple_of(2) { v } else { -v }) as i32 as u32
        }
        AtomicOp::And => !(1u32 << (r % 32)),
        AtomicOp::Or => 1u32 << (r % 32),
        AtomicOp::CompSwap | AtomicOp::Exchange => 0x1000_0000 + (k as u32) * 7 + 1,
        _ => r,
    }
}

/// For exchanges: the values returned and the final one must be the
/// initial value and the arguments, in some order.
pub(super) fn not_a_permutation<T: Ord + Copy + std::fmt::LowerHex + std::fmt::Debug>(
    what: &str,
    initial: T,
    data: &[T],
    returned: &[T],
    fin: T,
) -> Option<String> {
    let mut lhs = returned.to_vec();
    lhs.push(fin);
    let mut rhs = data.to_vec();
    rhs.push(initial);
    lhs.sort_unstable();
    rhs.sort_unstable();
    (lhs != rhs).then(|| {
        format!(
            "{what}: returned {returned:x?} + final {fin:#x} is not a permutation of initial {initial:#x} + arguments {data:x?}"
        )
    })
}

/// Checks one location's calls; `None` when they are right. A `native`
/// run's float min/max is checked with the zeros compared by value: the
/// SPIR-V instructions leave open which of -0 and +0 wins (atomport's
/// translation orders -0 below +0, and is checked so).
pub(super) fn check_location(
    case: &Case,
    what: &str,
    location: (u32, &[u32], &[u32], u32),
    native: bool,
) -> Option<String> {
    let ty = case.ty;
    let op = case.op;
    let zeros_open = native && ty == ScalarType::F32 && matches!(op, AtomicOp::Min | AtomicOp::Max);
    let unsign = |b: u32| if zeros_open && b == 0x8000_0000 { 0 } else { b };
    let (initial, data, returned, fin) = location;
    let (initial, fin) = (unsign(initial), unsign(fin));
    let data: &[u32] = &data.iter().map(|&b| unsign(b)).collect::<Vec<_>>();
    let returned: &[u32] = &returned.iter().map(|&b| unsign(b)).collect::<Vec<_>>();
    if case.ty == ScalarType::F32 && case.variant == Variant::FloatAdd {
        let f = |b: u32| f32::from_bits(b);
        let expected = data.iter().fold(f(initial), |a, &d| a + f(d));
        if f(fin) != expected {
            return Some(format!(
                "{what}: final {} but the sum is {expected}",
                f(fin)
            ));
        }
        let mut r: Vec<f32> = returned.iter().map(|&b| f(b)).collect();
        r.sort_by(f32::total_cmp);
        if r[0] != f(initial) || r.windows(2).any(|w| w[0] >= w[1]) {
            return Some(format!(
                "{what}: returned values {r:?} are not distinct partial sums from {}",
                f(initial)
            ));
        }
        return None;
    }
    if ty == ScalarType::F32 && op == AtomicOp::Exchange {
        // Exchange of float bits: a serial order (below) says it all.
    } else if op.is_order_independent() {
        let expected = op.fold(ty, initial, data.iter().copied());
        if fin != expected {
            return Some(format!(
                "{what}: expected final {expected:#x}, observed {fin:#x}"
            ));
        }
    } else if op == AtomicOp::Exchange {
        if let Some(why) = not_a_permutation(what, initial, data, returned, fin) {
            return Some(why);
        }
    } else {
        let winners = returned.iter().filter(|&&r| r == initial).count();
        if winners != 1 {
            return Some(format!(
                "{what}: {winners} compare-swaps won (expected exactly 1); returned {returned:x?}"
            ));
        }
    }
    let calls: Vec<(u32, u32, u32)> = data
        .iter()
        .zip(returned)
        .map(|(&d, &r)| (d, COMPARE, r))
        .collect();
    // The search is exponential in the worst case: only for a handful of calls.
    if calls.len() <= 12 && !explained_by_serial_order(op, ty, initial, &calls, fin) {
        return Some(format!(
            "{what}: returned {returned:x?} from initial {initial:#x} with arguments {data:x?} ending at {fin:#x} fit no serial order"
        ));
    }
    None
}

/// Initial value and arguments of a float min/max location: every
/// location sees a NaN, -0.0 and +0.0 among numbers; even locations only
/// numbers on the zeros' losing side, so the zeros' order decides the
/// result; location 3 starts as NaN, which the first number replaces.
pub(super) fn float_min_max_values(case: &Case, loc: usize, calls: usize) -> (u32, Vec<u32>) {
    let min = case.op == AtomicOp::Min;
    let initial = if loc % 8 == 3 {
        f32::NAN
    } else if min {
        1.0e30
    } else {
        -1.0e30
    };
    let away = if min { 1.0f32 } else { -1.0 };
    let args = (0..calls)
        .map(|k| {
            let v = match k % 5 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => {
                    let m = (1 + (loc * 7 + k * 3) % 50) as f32 * 0.5;
                    if loc.is_multiple_of(2) || k.is_multiple_of(2) {
                        away * m
                    } else {
                        -away * m
                    }
                }
            };
            v.to_bits()
        })
        .collect();
    (initial.to_bits(), args)
}

pub(super) fn coords_of(desc: &ImageDesc, t: usize) -> [i32; 4] {
    let a = TexelAddress::from_index(t, desc.width, desc.height, desc.layers());
    let c = a.coordinates(desc.dim);
    [
        c[0],
        *c.get(1).unwrap_or(&0),
        *c.get(2).unwrap_or(&0),
        a.sample as i32,
    ]
}

pub(super) fn link(j: u32) -> u32 {
    (j as i32 * 7919 - 100_000) as u32
}

pub(super) fn check_chain(
    finals: &[u32],
    untouched: &[u32],
    wins: &[u32],
    locs: usize,
) -> Result<Option<String>> {
    for (l, &f) in finals.iter().enumerate() {
        if f != link(LINKS) {
            return Ok(Some(format!(
                "location {l}: the chain ended at {f:#x}, not its last link {:#x}",
                link(LINKS)
            )));
        }
        for j in 0..LINKS as usize {
            let w = wins[l * LINKS as usize + j];
            if w != 1 {
                return Ok(Some(format!(
                    "location {l}: link {j} was taken {w} times, not once"
                )));
            }
        }
    }
    let bad = wins[locs * LINKS as usize];
    if bad != 0 {
        return Ok(Some(format!(
            "{bad} failed compare-swaps returned a value that memory never held after their link"
        )));
    }
    if let Some(v) = untouched.iter().find(|&&v| v != 0xDEAD && v != 0xCAFE) {
        return Ok(Some(format!("memory outside the chains changed to {v:#x}")));
    }
    Ok(None)
}

pub(super) const COMPARE64: u64 = 0x1234_5678_9abc_def0;
