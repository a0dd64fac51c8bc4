//! The members of a buffer made words as the shader declared them (GLSL
//! names and types, offsets, strides), for the binding map: the host
//! writes them where the shader declared them; and the declared layout
//! taken off the types whose values now live in words.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};

use crate::Result;
use crate::lower::memory::layout::{Layout, holds_narrow, misplaced};
use crate::lower::model::{Model, id};

/// One member of a buffer made words, as the shader declared it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredMember {
    /// The GLSL name.
    pub name: String,
    /// The GLSL type (`uint8_t`, `mat2`, `vec3[4]`).
    pub ty: String,
    /// Byte offset.
    pub offset: u32,
    /// Bytes it spans.
    pub size: u32,
    /// The 32-bit scalar of its components; `None` for narrow or 64-bit ones.
    pub scalar: Option<crate::ScalarType>,
    /// Components of a vector (rows of a matrix column); 1 for scalars.
    pub rows: u32,
    /// Matrix columns; 1 otherwise.
    pub columns: u32,
    /// Bytes between matrix columns, or between rows where `row_major`.
    pub column_stride: u32,
    /// A matrix declared `row_major`: its rows `column_stride` apart, its
    /// columns one scalar apart.
    pub row_major: bool,
    /// Array elements; 1 when not an array.
    pub count: u32,
    /// Bytes between array elements.
    pub stride: u32,
}

/// A SPIR-V type spelled as GLSL, with its scalar, rows and columns.
pub(super) fn glsl_name(m: &Model, ty: Word) -> (String, Option<crate::ScalarType>, u32, u32) {
    let Some(t) = m.global(ty) else {
        return ("?".into(), None, 1, 1);
    };
    let lit = |k: usize| match t.operands.get(k) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    };
    let of = |k: usize| t.operands.get(k).and_then(id).unwrap_or(0);
    match t.class.opcode {
        Op::TypeInt => {
            let (w, signed) = (lit(0), lit(1) == 1);
            let name = match (w, signed) {
                (32, false) => "uint".to_string(),
                (32, true) => "int".to_string(),
                (w, false) => format!("uint{w}_t"),
                (w, true) => format!("int{w}_t"),
            };
            let scalar = match (w, signed) {
                (32, false) => Some(crate::ScalarType::U32),
                (32, true) => Some(crate::ScalarType::I32),
                _ => None,
            };
            (name, scalar, 1, 1)
        }
        Op::TypeFloat => match lit(0) {
            32 => ("float".into(), Some(crate::ScalarType::F32), 1, 1),
            64 => ("double".into(), None, 1, 1),
            w => (format!("float{w}_t"), None, 1, 1),
        },
        Op::TypeBool => ("bool".into(), None, 1, 1),
        Op::TypeVector => {
            let (c, scalar, _, _) = glsl_name(m, of(0));
            let prefix = match c.as_str() {
                "uint" => "u".to_string(),
                "int" => "i".to_string(),
                "float" => String::new(),
                "bool" => "b".to_string(),
                other => {
                    // uint8_t -> u8, int16_t -> i16, float16_t -> f16
                    let bits: String = other.chars().filter(|ch| ch.is_ascii_digit()).collect();
                    let k = if other.starts_with("uint") {
                        "u"
                    } else if other.starts_with("int") {
                        "i"
                    } else {
                        "f"
                    };
                    format!("{k}{bits}")
                }
            };
            (format!("{prefix}vec{}", lit(1)), scalar, lit(1), 1)
        }
        Op::TypeMatrix => {
            let (col, scalar, rows, _) = glsl_name(m, of(0));
            let _ = col;
            let cols = lit(1);
            let name = if cols == rows {
                format!("mat{cols}")
            } else {
                format!("mat{cols}x{rows}")
            };
            (name, scalar, rows, cols)
        }
        Op::TypeArray | Op::TypeRuntimeArray => {
            let (e, _, _, _) = glsl_name(m, of(0));
            let n = t
                .operands
                .get(1)
                .and_then(id)
                .and_then(|l| m.constant_u32(l));
            (
                format!("{e}[{}]", n.map_or(String::new(), |n| n.to_string())),
                None,
                1,
                1,
            )
        }
        _ => ("struct".into(), None, 1, 1),
    }
}

/// The members of block type `ty` as declared.
pub(super) fn declared_members(l: &Layout, ty: Word) -> Result<Vec<DeclaredMember>> {
    let m = l.m;
    let Some(t) = m.global(ty).filter(|t| t.class.opcode == Op::TypeStruct) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (k, c) in t.operands.iter().filter_map(id).enumerate() {
        let k = k as u32;
        let major = super::layout::member_major(m, ty, k);
        let (name_ty, mut scalar, mut rows, mut columns) = glsl_name(m, c);
        let (mut count, mut stride) = (1, 0);
        if let Some(a) = m.global(c).filter(|a| a.class.opcode == Op::TypeArray) {
            let e = a.operands.first().and_then(id).unwrap_or(0);
            let (_, es, er, ec) = glsl_name(m, e);
            (scalar, rows, columns) = (es, er, ec);
            count = a
                .operands
                .get(1)
                .and_then(id)
                .and_then(|x| m.constant_u32(x))
                .unwrap_or(1);
            stride = l.array_stride(c)?;
        }
        out.push(DeclaredMember {
            name: m.member_name(ty, k).unwrap_or_default().to_string(),
            ty: name_ty,
            offset: l.member_offset(ty, k)?,
            size: l.span(c, major)?,
            scalar,
            rows,
            columns,
            column_stride: major.map_or(rows * 4, super::layout::Major::stride),
            row_major: matches!(major, Some(super::layout::Major::Rows(_))),
            count,
            stride,
        });
    }
    Ok(out)
}

/// `ty` and the types in it whose layout WGSL cannot place.
pub(super) fn laid_out_wrongly(m: &Model, ty: Word, uniform: bool) -> Vec<Word> {
    let mut out = Vec::new();
    let mut todo = vec![(ty, 0u32)];
    while let Some((t, depth)) = todo.pop() {
        if depth > 32 || !misplaced(m, t, uniform, 0) || out.contains(&t) {
            continue;
        }
        out.push(t);
        if let Some(d) = m.global(t) {
            todo.extend(d.operands.iter().filter_map(id).map(|c| (c, depth + 1)));
        }
    }
    out
}

/// Every type `roots` are made of, themselves among them, but what buffer
/// references point at.
pub(super) fn reachable_types(m: &Model, roots: &[Word]) -> HashSet<Word> {
    let mut seen = HashSet::default();
    let mut todo: Vec<Word> = roots.to_vec();
    while let Some(t) = todo.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let Some(d) = m.global(t).filter(|d| d.class.opcode != Op::TypePointer) {
            todo.extend(
                d.operands
                    .iter()
                    .filter_map(id)
                    .filter(|c| m.global(*c).is_some()),
            );
        }
    }
    seen
}

/// Types holding narrow integers, and `also` (those only the replaced
/// variables laid out, where WGSL cannot), keep no layout decorations:
/// their values now live in registers only (32 bits per narrow integer),
/// and naga would read the declared offsets as overlapping or misplaced
/// members.
pub(super) fn strip_layout(m: &mut Model, narrow: &HashMap<Word, u32>, also: &HashSet<Word>) {
    let holding: HashSet<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter_map(|t| t.result_id)
        .filter(|&t| !narrow.contains_key(&t) && holds_narrow(m, narrow, t, 0))
        .chain(also.iter().copied())
        .collect();
    if holding.is_empty() {
        return;
    }
    m.module_mut().annotations.retain(|a| {
        let target = a.operands.first().and_then(id).unwrap_or(0);
        if !holding.contains(&target) {
            return true;
        }
        !matches!(
            (a.class.opcode, a.operands.get(1), a.operands.get(2)),
            (
                Op::MemberDecorate,
                _,
                Some(Operand::Decoration(
                    Decoration::Offset
                        | Decoration::MatrixStride
                        | Decoration::ColMajor
                        | Decoration::RowMajor
                ))
            ) | (
                Op::Decorate,
                Some(Operand::Decoration(
                    Decoration::ArrayStride | Decoration::Block | Decoration::BufferBlock
                )),
                _
            )
        )
    });
}
