//! The scalar types the host reads and writes, and how their values are
//! written as text: shared by every stage, as [`crate::Error`] is.

use naga::ScalarKind;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// A scalar element type of a buffer, as the host sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    /// 32-bit unsigned integer (GLSL `uint`, WGSL `u32`).
    U32,
    /// 32-bit signed integer (GLSL `int`, WGSL `i32`).
    I32,
    /// 32-bit float (GLSL `float`, WGSL `f32`).
    F32,
}

impl ScalarType {
    /// The name used on the command line and in JSON: `u32`, `i32`, `f32`.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::U32 => "u32",
            ScalarType::I32 => "i32",
            ScalarType::F32 => "f32",
        }
    }

    /// Parses `u32`, `i32` or `f32`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "u32" => Some(ScalarType::U32),
            "i32" => Some(ScalarType::I32),
            "f32" => Some(ScalarType::F32),
            _ => None,
        }
    }

    /// Parses one value of this type to its 32-bit pattern: decimal or
    /// `0x` hex integers in range, or a float that is finite unless written
    /// as `inf` or `nan`.
    pub fn parse_value(self, s: &str) -> Result<u32> {
        let s = s.trim();
        let bad = || Error::InvalidValue(format!("`{s}` is not a valid {} value", self.name()));
        match self {
            ScalarType::U32 => match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(h) => u32::from_str_radix(h, 16).map_err(|_| bad()),
                None => s.parse::<u32>().map_err(|_| bad()),
            },
            ScalarType::I32 => {
                let (neg, body) = match s.strip_prefix('-') {
                    Some(b) => (true, b),
                    None => (false, s),
                };
                let v: i64 = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16).map_err(|_| bad())?,
                    None => body.parse::<i64>().map_err(|_| bad())?,
                };
                let v = if neg { -v } else { v };
                i32::try_from(v).map(|v| v as u32).map_err(|_| bad())
            }
            ScalarType::F32 => {
                let v = s.parse::<f32>().map_err(|_| bad())?;
                let spelled = s.to_ascii_lowercase();
                if !(v.is_finite() || spelled.contains("inf") || spelled.contains("nan")) {
                    return Err(Error::InvalidValue(format!(
                        "`{s}` is out of the range of f32 (largest finite: {:e})",
                        f32::MAX
                    )));
                }
                Ok(v.to_bits())
            }
        }
    }

    /// The host type of a naga scalar, for 32-bit ones.
    pub(crate) fn from_naga(scalar: naga::Scalar) -> Option<Self> {
        match (scalar.kind, scalar.width) {
            (ScalarKind::Uint, 4) => Some(ScalarType::U32),
            (ScalarKind::Sint, 4) => Some(ScalarType::I32),
            (ScalarKind::Float, 4) => Some(ScalarType::F32),
            _ => None,
        }
    }
}

/// An integer of `width` bits (decimal or `0x` hex, `-` for signed ones) as
/// its bit pattern, or `None` when it does not fit.
pub(crate) fn parse_int(s: &str, width: u32, signed: bool) -> Option<u64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u64>().ok()?,
    };
    if signed {
        let v: i128 = if neg {
            -(magnitude as i128)
        } else {
            magnitude as i128
        };
        let (lo, hi) = (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1);
        (lo..=hi).contains(&v).then(|| {
            if width >= 64 {
                v as u64
            } else {
                v as u64 & ((1u64 << width) - 1)
            }
        })
    } else {
        let hi = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        (!neg && magnitude <= hi).then_some(magnitude)
    }
}

/// A buffer's element type at every width a GLSL block can declare, as the
/// command line writes buffers (`--buffer B=u8:[…]`) and `run` prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementType {
    /// `uint8_t`.
    U8,
    /// `int8_t`.
    I8,
    /// `uint16_t`.
    U16,
    /// `int16_t`.
    I16,
    /// `float16_t`.
    F16,
    /// `uint`.
    U32,
    /// `int`.
    I32,
    /// `float`.
    F32,
    /// `uint64_t`.
    U64,
    /// `int64_t`.
    I64,
}

impl ElementType {
    /// Every element type, for messages.
    pub const ALL: [ElementType; 10] = [
        ElementType::U8,
        ElementType::I8,
        ElementType::U16,
        ElementType::I16,
        ElementType::F16,
        ElementType::U32,
        ElementType::I32,
        ElementType::F32,
        ElementType::U64,
        ElementType::I64,
    ];

    /// The name on the command line and in JSON: `u8`, `f16`, `i64`, …
    pub fn name(self) -> &'static str {
        match self {
            ElementType::U8 => "u8",
            ElementType::I8 => "i8",
            ElementType::U16 => "u16",
            ElementType::I16 => "i16",
            ElementType::F16 => "f16",
            ElementType::U32 => "u32",
            ElementType::I32 => "i32",
            ElementType::F32 => "f32",
            ElementType::U64 => "u64",
            ElementType::I64 => "i64",
        }
    }

    /// Parses a name [`ElementType::name`] gives.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            ElementType::U8 | ElementType::I8 => 1,
            ElementType::U16 | ElementType::I16 | ElementType::F16 => 2,
            ElementType::U32 | ElementType::I32 | ElementType::F32 => 4,
            ElementType::U64 | ElementType::I64 => 8,
        }
    }

    /// The 32-bit type of the same kind, for those that are one.
    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            ElementType::U32 => Some(ScalarType::U32),
            ElementType::I32 => Some(ScalarType::I32),
            ElementType::F32 => Some(ScalarType::F32),
            _ => None,
        }
    }

    /// The type a GLSL name spells (`uint8_t`, `int16_t`, `float16_t`,
    /// `uint`, `int`, `float`, `uint64_t`, `int64_t`).
    pub fn from_glsl(name: &str) -> Option<Self> {
        Some(match name {
            "uint8_t" => ElementType::U8,
            "int8_t" => ElementType::I8,
            "uint16_t" => ElementType::U16,
            "int16_t" => ElementType::I16,
            "float16_t" => ElementType::F16,
            "uint" => ElementType::U32,
            "int" => ElementType::I32,
            "float" => ElementType::F32,
            "uint64_t" => ElementType::U64,
            "int64_t" => ElementType::I64,
            _ => return None,
        })
    }

    /// A scalar or vector type by its GLSL name (`uint8_t`, `f16vec2`,
    /// `u8vec4`, `uvec3`, `uint64_t`): its component type and count.
    pub fn of_glsl_type(ty: &str) -> Option<(ElementType, usize)> {
        if let Some(t) = ElementType::from_glsl(ty) {
            return Some((t, 1));
        }
        let (prefix, n) = ty.split_once("vec")?;
        let n: usize = n.parse().ok().filter(|n| (2..=4).contains(n))?;
        let t = match prefix {
            "u8" => ElementType::U8,
            "i8" => ElementType::I8,
            "u16" => ElementType::U16,
            "i16" => ElementType::I16,
            "f16" => ElementType::F16,
            "u" => ElementType::U32,
            "i" => ElementType::I32,
            "" => ElementType::F32,
            "u64" => ElementType::U64,
            "i64" => ElementType::I64,
            _ => return None,
        };
        Some((t, n))
    }

    /// Parses one value to its bit pattern (in the low bytes): integers in
    /// range (decimal or `0x` hex), floats finite unless written as `inf`
    /// or `nan` (a half rounded to the nearest, ties to even).
    pub fn parse_value(self, s: &str) -> Result<u64> {
        let s = s.trim();
        let bad = || Error::InvalidValue(format!("`{s}` is not a valid {} value", self.name()));
        let int = |width: u32, signed: bool| parse_int(s, width, signed).ok_or_else(bad);
        match self {
            ElementType::U8 => int(8, false),
            ElementType::I8 => int(8, true),
            ElementType::U16 => int(16, false),
            ElementType::I16 => int(16, true),
            ElementType::U64 => int(64, false),
            ElementType::I64 => int(64, true),
            ElementType::F16 => {
                let v = s.parse::<f32>().map_err(|_| bad())?;
                let spelled = s.to_ascii_lowercase();
                let h = f32_to_half(v);
                if h & 0x7c00 == 0x7c00 && !(spelled.contains("inf") || spelled.contains("nan")) {
                    return Err(Error::InvalidValue(format!(
                        "`{s}` is out of the range of f16 (largest finite: 65504)"
                    )));
                }
                Ok(u64::from(h))
            }
            t => t
                .scalar()
                .map(|x| x.parse_value(s).map(u64::from))
                .unwrap_or_else(|| Err(bad())),
        }
    }
}

impl From<ScalarType> for ElementType {
    fn from(t: ScalarType) -> Self {
        match t {
            ScalarType::U32 => ElementType::U32,
            ScalarType::I32 => ElementType::I32,
            ScalarType::F32 => ElementType::F32,
        }
    }
}

/// The f32 value of half-precision bits.
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: normalise.
            let shift = f.leading_zeros() - 21;
            let f = (f << shift) & 0x3ff;
            sign | ((113 - shift) << 23) | (f << 13)
        }
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 112) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

/// The half nearest `x` (ties to even) as its bits; past the largest
/// finite half, infinity.
pub fn f32_to_half(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let e = ((a.to_bits() >> 23) & 0xff) as i32 - 127;
    // Units of the half's last place at this magnitude (subnormals: 2^-24).
    let ulp = 2f64.powi(e.max(-14) - 10);
    let q = (f64::from(a) / ulp).round_ties_even();
    let v = q * ulp;
    if v > 65504.0 {
        return sign | 0x7c00;
    }
    if v < 2f64.powi(-14) {
        return sign | q as u16; // subnormal: the count of 2^-24 units
    }
    let e = v.log2().floor() as i32;
    // Exact powers of two can land one below in log2's rounding.
    let e = if 2f64.powi(e + 1) <= v { e + 1 } else { e };
    let frac = ((v / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    sign | (((e + 15) as u16) << 10) | frac
}

#[cfg(test)]
mod half_tests {
    use super::{f32_to_half, half_to_f32};

    #[test]
    fn halfs_round_trip_and_round_to_nearest_even() {
        for h in 0..=0xffffu16 {
            if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
                continue; // NaNs
            }
            assert_eq!(f32_to_half(half_to_f32(h)), h, "{h:#06x}");
        }
        assert_eq!(f32_to_half(1.0 + 2f32.powi(-11)), 0x3c00); // tie to even
        assert_eq!(f32_to_half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_half(65520.0), 0x7c00);
        assert_eq!(f32_to_half(2f32.powi(-25)), 0); // tie to even (zero)
        assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
    }
}
