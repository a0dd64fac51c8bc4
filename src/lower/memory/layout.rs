//! The layout memory declares, as the word view reads it: which scalar
//! types are narrower than a word, where WGSL's own rules would place a
//! member (and so which declared layouts they cannot hold), and the
//! offsets, strides and sizes of the shader's declared layout.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// Widths of the narrow integer and half scalar types, by id.
pub(super) fn narrow_widths(m: &Model) -> HashMap<Word, u32> {
    m.module()
        .types_global_values
        .iter()
        .filter_map(
            |t| match (t.class.opcode, t.operands.first(), t.result_id) {
                (Op::TypeInt, Some(Operand::LiteralBit32(w @ (8 | 16))), Some(r))
                | (Op::TypeFloat, Some(Operand::LiteralBit32(w @ 16)), Some(r)) => Some((r, *w)),
                _ => None,
            },
        )
        .collect()
}

/// Whether type `ty` holds a narrow integer anywhere.
pub(super) fn holds_narrow(m: &Model, narrow: &HashMap<Word, u32>, ty: Word, depth: u32) -> bool {
    if narrow.contains_key(&ty) {
        return true;
    }
    if depth > 32 {
        return false;
    }
    let Some(t) = m.global(ty) else { return false };
    match t.class.opcode {
        Op::TypeStruct => t
            .operands
            .iter()
            .filter_map(id)
            .any(|c| holds_narrow(m, narrow, c, depth + 1)),
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => t
            .operands
            .first()
            .and_then(id)
            .is_some_and(|c| holds_narrow(m, narrow, c, depth + 1)),
        _ => false,
    }
}

/// WGSL's alignment of a type (uniform buffers round structs and arrays
/// up to 16), or `None` for a type WGSL has no layout for.
pub(super) fn wgsl_align(m: &Model, ty: Word, uniform: bool, depth: u32) -> Option<u32> {
    let t = m.global(ty)?;
    if depth > 32 {
        return None;
    }
    let lit = |k: usize| match t.operands.get(k) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    };
    let of = |k: usize| t.operands.get(k).and_then(id);
    Some(match t.class.opcode {
        Op::TypeInt | Op::TypeFloat => (lit(0) / 8).max(2),
        Op::TypeBool => 4,
        Op::TypeVector => {
            let c = wgsl_align(m, of(0)?, uniform, depth + 1)?;
            c * if lit(1) == 2 { 2 } else { 4 }
        }
        Op::TypeMatrix => wgsl_align(m, of(0)?, uniform, depth + 1)?,
        Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct => {
            let a = if t.class.opcode == Op::TypeStruct {
                t.operands
                    .iter()
                    .filter_map(id)
                    .map(|c| wgsl_align(m, c, uniform, depth + 1))
                    .collect::<Option<Vec<u32>>>()?
                    .into_iter()
                    .max()
                    .unwrap_or(4)
            } else {
                wgsl_align(m, of(0)?, uniform, depth + 1)?
            };
            if uniform { a.max(16) } else { a }
        }
        _ => return None,
    })
}

/// How a matrix lies at its declared layout: `MatrixStride` bytes between
/// its columns, or between its rows where it is declared `row_major`
/// (then a column's components lie that far apart, and the columns one
/// scalar apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Major {
    /// Column-major: bytes between columns.
    Columns(u32),
    /// Row-major: bytes between rows.
    Rows(u32),
}

impl Major {
    /// The bytes between the rows or columns: the `MatrixStride`.
    pub(crate) fn stride(self) -> u32 {
        match self {
            Major::Columns(s) | Major::Rows(s) => s,
        }
    }
}

/// The layout member `k` of struct `ty` declares for the matrices it holds
/// (itself or its arrays' elements), if it declares one.
pub(super) fn member_major(m: &Model, ty: Word, k: u32) -> Option<Major> {
    let stride = m.member_decoration(ty, k, Decoration::MatrixStride)?;
    Some(
        if m.member_decoration(ty, k, Decoration::RowMajor).is_some() {
            Major::Rows(stride)
        } else {
            Major::Columns(stride)
        },
    )
}

/// Whether a type's declared layout puts something where WGSL's rules
/// cannot: a member at an offset its WGSL alignment does not divide, an
/// array stride that alignment does not divide, a two-row matrix whose
/// columns are not 8 bytes apart (std140's `mat2`), a `row_major` matrix
/// (WGSL's are column-major).
pub(super) fn misplaced(m: &Model, ty: Word, uniform: bool, depth: u32) -> bool {
    let Some(t) = m.global(ty) else { return false };
    if depth > 32 {
        return false;
    }
    match t.class.opcode {
        Op::TypeStruct => t.operands.iter().filter_map(id).enumerate().any(|(k, c)| {
            let k = k as u32;
            let off = m.member_decoration(ty, k, Decoration::Offset);
            let align = wgsl_align(m, c, uniform, depth + 1);
            let at_odd_offset = matches!((off, align), (Some(o), Some(a)) if o % a != 0);
            let row_major = matches!(member_major(m, ty, k), Some(Major::Rows(_)));
            let wide_columns = m
                .member_decoration(ty, k, Decoration::MatrixStride)
                .is_some_and(|s| {
                    let rows = m
                        .global(m.strip_arrays(c))
                        .filter(|x| x.class.opcode == Op::TypeMatrix)
                        .and_then(|x| x.operands.first().and_then(id))
                        .and_then(|col| m.global(col))
                        .and_then(|col| match col.operands.get(1) {
                            Some(Operand::LiteralBit32(n)) => Some(*n),
                            _ => None,
                        });
                    rows == Some(2) && s != 8
                });
            at_odd_offset || wide_columns || row_major || misplaced(m, c, uniform, depth + 1)
        }),
        Op::TypeArray | Op::TypeRuntimeArray => {
            let Some(e) = t.operands.first().and_then(id) else {
                return false;
            };
            let stride = m.decoration(ty, Decoration::ArrayStride);
            let align = wgsl_align(m, e, uniform, depth + 1);
            // A uniform array's 16-byte stride of scalars is the std140
            // pass's; any stride that is not a multiple of 16 (std430 or
            // scalar layout's `float w[8]` in a uniform block) WGSL's
            // uniform rules cannot hold.
            let odd = match (stride, align) {
                (Some(s), _) if uniform => s % 16 != 0,
                (Some(s), Some(a)) => s % a != 0,
                _ => false,
            };
            odd || misplaced(m, e, uniform, depth + 1)
        }
        _ => false,
    }
}

/// The layout of the memory a pass reads: the shader's decorations, and
/// for shared memory (undecorated) a scalar-aligned one of atomport's.
pub(super) struct Layout<'m> {
    pub(super) m: &'m Model,
    pub(super) narrow: &'m HashMap<Word, u32>,
}

impl Layout<'_> {
    /// (size, alignment) of a type laid out scalar-aligned.
    pub(super) fn natural(&self, ty: Word) -> Result<(u32, u32)> {
        let m = self.m;
        if let Some(w) = self.narrow.get(&ty) {
            return Ok((w / 8, w / 8));
        }
        let t = m
            .global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: an unknown type in shared memory"))?;
        let lit = |k: usize| match t.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => 0,
        };
        Ok(match t.class.opcode {
            Op::TypeInt | Op::TypeFloat => (lit(0) / 8, lit(0) / 8),
            Op::TypeBool => (4, 4),
            Op::TypeVector | Op::TypeMatrix => {
                let (s, a) = self.natural(t.operands.first().and_then(id).unwrap_or(0))?;
                (s * lit(1), a)
            }
            Op::TypeArray => {
                let (s, a) = self.natural(t.operands.first().and_then(id).unwrap_or(0))?;
                let n = t
                    .operands
                    .get(1)
                    .and_then(id)
                    .and_then(|c| m.constant_u32(c))
                    .unwrap_or(0);
                (s.next_multiple_of(a) * n, a)
            }
            // The last member of a block reached through a reference: its
            // elements start at the offset and it adds no size.
            Op::TypeRuntimeArray => {
                let (_, a) = self.natural(t.operands.first().and_then(id).unwrap_or(0))?;
                (0, a)
            }
            Op::TypeStruct => {
                let (mut size, mut align) = (0u32, 1u32);
                for c in t.operands.iter().filter_map(id) {
                    let (s, a) = self.natural(c)?;
                    size = size.next_multiple_of(a) + s;
                    align = align.max(a);
                }
                (size.next_multiple_of(align), align)
            }
            op => {
                return Err(Error::Unsupported(format!(
                    "memory without a declared layout (shared memory, or what a buffer reference points at) holding 8- or 16-bit integers beside a type atomport cannot lay out ({})",
                    format!("{op:?}").trim_start_matches("Type")
                )));
            }
        })
    }

    pub(super) fn member_offset(&self, st: Word, k: u32) -> Result<u32> {
        if let Some(o) = self.m.member_decoration(st, k, Decoration::Offset) {
            return Ok(o);
        }
        let t = self
            .m
            .global(st)
            .ok_or_else(|| Error::shader("malformed SPIR-V: unknown struct"))?;
        let mut off = 0u32;
        for (i, c) in t.operands.iter().filter_map(id).enumerate() {
            let (s, a) = self.natural(c)?;
            off = off.next_multiple_of(a);
            if i as u32 == k {
                return Ok(off);
            }
            off += s;
        }
        Err(Error::shader(
            "malformed SPIR-V: a member past its struct's end",
        ))
    }

    pub(super) fn array_stride(&self, array: Word) -> Result<u32> {
        if let Some(s) = self.m.decoration(array, Decoration::ArrayStride) {
            return Ok(s);
        }
        let e = self
            .m
            .global(array)
            .and_then(|t| t.operands.first().and_then(id))
            .unwrap_or(0);
        let (s, a) = self.natural(e)?;
        Ok(s.next_multiple_of(a))
    }

    /// The byte size of a scalar type.
    pub(super) fn scalar_bytes(&self, ty: Word) -> u32 {
        self.natural(ty).map_or(4, |(s, _)| s)
    }

    /// The byte size of a vector type's components.
    pub(super) fn component_bytes(&self, vector: Word) -> u32 {
        let scalar = self
            .m
            .global(vector)
            .and_then(|v| v.operands.first().and_then(id));
        self.scalar_bytes(scalar.unwrap_or(0))
    }

    /// The bytes a value of `ty` spans at its declared layout (`major`:
    /// the layout its member declares, for a matrix).
    pub(super) fn span(&self, ty: Word, major: Option<Major>) -> Result<u32> {
        let m = self.m;
        let t = m
            .global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: unknown type"))?;
        let lit = |k: usize| match t.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => 0,
        };
        let of = |k: usize| t.operands.get(k).and_then(id).unwrap_or(0);
        Ok(match t.class.opcode {
            Op::TypeStruct => {
                let mut end = 0;
                for (k, c) in t.operands.iter().filter_map(id).enumerate() {
                    let k = k as u32;
                    let major = member_major(m, ty, k);
                    end = end.max(self.member_offset(ty, k)? + self.span(c, major)?);
                }
                end
            }
            Op::TypeArray => {
                let n = t
                    .operands
                    .get(1)
                    .and_then(id)
                    .and_then(|l| m.constant_u32(l))
                    .unwrap_or(0);
                self.array_stride(ty)? * n
            }
            // One element, as the binding map counts a runtime array.
            Op::TypeRuntimeArray => self.array_stride(ty)?,
            Op::TypeMatrix => match major {
                Some(Major::Columns(s)) => s * lit(1),
                // As many rows as a column has components.
                Some(Major::Rows(s)) => {
                    let rows = m.global(of(0)).and_then(|c| match c.operands.get(1) {
                        Some(Operand::LiteralBit32(n)) => Some(*n),
                        _ => None,
                    });
                    s * rows.unwrap_or(1)
                }
                None => self.natural(ty)?.0,
            },
            Op::TypeVector => self.scalar_bytes(of(0)) * lit(1),
            _ => self.natural(ty)?.0,
        })
    }
}

/// Whether the module has 64-bit values or buffer references (whose
/// addresses are 64-bit).
pub(super) fn wide_values(m: &Model) -> bool {
    m.module().types_global_values.iter().any(|t| {
        (matches!(t.class.opcode, Op::TypeInt | Op::TypeFloat)
            && t.operands.first() == Some(&Operand::LiteralBit32(64)))
            || (t.class.opcode == Op::TypePointer
                && t.operands.first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer)))
    })
}

/// Whether a variable of `class` holding `pointee` is a uniform block (a
/// storage block of SPIR-V 1.0 is a Uniform `BufferBlock`).
pub(super) fn uniform_block(m: &Model, class: StorageClass, pointee: Word) -> bool {
    class == StorageClass::Uniform && !m.has_decoration(pointee, Decoration::BufferBlock)
}
