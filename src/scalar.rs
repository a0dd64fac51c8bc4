//! The scalar types the host reads and writes, and how their values are
//! written as text: shared by every stage, as [`crate::Error`] is.

use naga::ScalarKind;
use serde::Serialize;

use crate::{Error, Result};

/// A scalar element type of a buffer, as the host sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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
