//! Memory WGSL cannot type, addressed as 32-bit words: storage buffers,
//! uniform blocks and shared memory holding 8- or 16-bit integers, and
//! buffers laid out where WGSL's rules cannot place their members (scalar
//! layout's `vec3` arrays of stride 12 or a `vec3` at offset 4, std140's
//! `mat2` with 16-byte columns).
//!
//! Such a variable becomes an array of words (`uint w[]` in a storage
//! buffer, `uvec4 w[N]` in a uniform block, `uint w[N]` in shared memory)
//! at its own binding, and every access chain into it a byte offset,
//! computed from the layout the shader declared (member offsets, array and
//! matrix strides; shared memory, which declares none, is laid out
//! scalar-aligned). A load assembles the value from its words: a narrow
//! integer is the bits at its offset (the narrow-integer pass,
//! [`crate::lower::spirv::narrow`], which runs after, extends them), a 32-bit one
//! the word, a vector, matrix, struct or array its parts. A store below a
//! word's size clears and sets its bits with `atomicAnd` and `atomicOr` on
//! the containing word, so that a neighbour's store to the same word is
//! never lost; then every access to those words is atomic. Atomics on
//! 32-bit members act on their word. The host writes the bytes it wrote
//! for Vulkan: the layout is the shader's own.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::{Emit, Model, id, is_atomic, with_ids};
use crate::lower::spirv::float::HalfAtomic;
use crate::lower::spirv::halfs::{PACK_HALF_2X16, UNPACK_HALF_2X16};
use crate::{Error, Result};

/// A buffer made words, with the members it declared, for the binding map
/// (the host writes them where the shader declared them).
#[derive(Clone, Debug, PartialEq)]
pub struct WordBlock {
    /// Descriptor set.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// Its members as declared.
    pub members: Vec<DeclaredMember>,
}

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
    /// Bytes between matrix columns.
    pub column_stride: u32,
    /// Array elements; 1 when not an array.
    pub count: u32,
    /// Bytes between array elements.
    pub stride: u32,
}

/// A SPIR-V type spelled as GLSL, with its scalar, rows and columns.
fn glsl_name(m: &Model, ty: Word) -> (String, Option<crate::ScalarType>, u32, u32) {
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
fn declared_members(l: &Layout, ty: Word) -> Result<Vec<DeclaredMember>> {
    let m = l.m;
    let Some(t) = m.global(ty).filter(|t| t.class.opcode == Op::TypeStruct) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (k, c) in t.operands.iter().filter_map(id).enumerate() {
        let k = k as u32;
        let ms = m.member_decoration(ty, k, Decoration::MatrixStride);
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
            size: l.span(c, ms)?,
            scalar,
            rows,
            columns,
            column_stride: ms.unwrap_or(rows * 4),
            count,
            stride,
        });
    }
    Ok(out)
}

/// A byte offset: known, or computed at run time.
#[derive(Clone, Copy, Debug)]
enum Off {
    Const(u32),
    Dyn(Word),
}

/// One variable made words: its storage class and whether its words are
/// accessed atomically.
#[derive(Clone, Copy, Debug)]
struct Target {
    class: StorageClass,
    /// A uniform block: words read as `uvec4`s.
    block: bool,
    atomic: bool,
    /// The pointer type to one word (`uvec4` in a uniform block).
    word_ptr: Word,
    /// For an access through a buffer reference: whether its address is in
    /// the arena, and the reserved words an access outside it reads (never
    /// written: 0) and writes.
    guard: Option<(Word, Word, Word)>,
    /// A second view of the same words for atomics and sub-word stores,
    /// when `var` itself is read and written plainly (the arena's).
    atomic_view: Option<Word>,
}

/// Widths of the narrow integer and half scalar types, by id.
fn narrow_widths(m: &Model) -> HashMap<Word, u32> {
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
fn holds_narrow(m: &Model, narrow: &HashMap<Word, u32>, ty: Word, depth: u32) -> bool {
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
fn wgsl_align(m: &Model, ty: Word, uniform: bool, depth: u32) -> Option<u32> {
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

/// Whether a type's declared layout puts something where WGSL's rules
/// cannot: a member at an offset its WGSL alignment does not divide, an
/// array stride that alignment does not divide, a two-row matrix whose
/// columns are not 8 bytes apart (std140's `mat2`).
fn misplaced(m: &Model, ty: Word, uniform: bool, depth: u32) -> bool {
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
            at_odd_offset || wide_columns || misplaced(m, c, uniform, depth + 1)
        }),
        Op::TypeArray | Op::TypeRuntimeArray => {
            let Some(e) = t.operands.first().and_then(id) else {
                return false;
            };
            let stride = m.decoration(ty, Decoration::ArrayStride);
            let align = wgsl_align(m, e, uniform, depth + 1);
            // A uniform array's 16-byte stride of scalars is the std140 pass's.
            let odd = matches!((stride, align), (Some(s), Some(a)) if s % a != 0 && !(uniform && s % 16 == 0));
            odd || misplaced(m, e, uniform, depth + 1)
        }
        _ => false,
    }
}

/// The layout of the memory a pass reads: the shader's decorations, and
/// for shared memory (undecorated) a scalar-aligned one of atomport's.
struct Layout<'m> {
    m: &'m Model,
    narrow: &'m HashMap<Word, u32>,
}

impl Layout<'_> {
    /// (size, alignment) of a type laid out scalar-aligned.
    fn natural(&self, ty: Word) -> Result<(u32, u32)> {
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
            Op::TypeStruct => {
                let (mut size, mut align) = (0u32, 1u32);
                for c in t.operands.iter().filter_map(id) {
                    let (s, a) = self.natural(c)?;
                    size = size.next_multiple_of(a) + s;
                    align = align.max(a);
                }
                (size.next_multiple_of(align), align)
            }
            _ => {
                return Err(Error::Unsupported(
                    "shared memory holding 8- or 16-bit integers beside a type atomport cannot lay out".into(),
                ));
            }
        })
    }

    fn member_offset(&self, st: Word, k: u32) -> Result<u32> {
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

    fn array_stride(&self, array: Word) -> Result<u32> {
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
    fn scalar_bytes(&self, ty: Word) -> u32 {
        self.natural(ty).map_or(4, |(s, _)| s)
    }

    /// The bytes a value of `ty` spans at its declared layout (`mstride`:
    /// the column stride its member declares, for a matrix).
    fn span(&self, ty: Word, mstride: Option<u32>) -> Result<u32> {
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
                    let ms = m.member_decoration(ty, k, Decoration::MatrixStride);
                    end = end.max(self.member_offset(ty, k)? + self.span(c, ms)?);
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
            Op::TypeMatrix => match mstride {
                Some(s) => s * lit(1),
                None => self.natural(ty)?.0,
            },
            Op::TypeVector => self.scalar_bytes(of(0)) * lit(1),
            _ => self.natural(ty)?.0,
        })
    }
}

/// Whether the module has 64-bit values or buffer references (whose
/// addresses are 64-bit).
fn wide_values(m: &Model) -> bool {
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
fn uniform_block(m: &Model, class: StorageClass, pointee: Word) -> bool {
    class == StorageClass::Uniform && !m.has_decoration(pointee, Decoration::BufferBlock)
}

/// The variable an access chain (of chains) starts at.
fn root(m: &Model, mut p: Word) -> Word {
    for _ in 0..64 {
        match m.def(p) {
            Some(d)
                if matches!(
                    d.class.opcode,
                    Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::CopyObject
                ) =>
            {
                p = d.operands.first().and_then(id).unwrap_or(p);
            }
            _ => return p,
        }
    }
    p
}

/// Makes every storage buffer, uniform block and shared variable holding
/// 8- or 16-bit integers, and every buffer laid out where WGSL cannot
/// place its members, an array of words; returns the buffers, with the
/// members they declared.
pub fn word_addressed_memory(m: &mut Model) -> Result<(Vec<WordBlock>, Vec<HalfAtomic>)> {
    let narrow = narrow_widths(m);
    let vars: Vec<(Word, StorageClass, Word)> = m
        .variables()
        .filter(|&(_, class, pointee)| match class {
            StorageClass::Workgroup => holds_narrow(m, &narrow, pointee, 0),
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                holds_narrow(m, &narrow, pointee, 0)
                    || misplaced(m, pointee, uniform_block(m, class, pointee), 0)
            }
            _ => false,
        })
        .collect();
    if vars.is_empty() {
        strip_layout(m, &narrow, &HashSet::new());
        return Ok((Vec::new(), Vec::new()));
    }
    let mut blocks = Vec::new();
    for &(var, class, pointee) in &vars {
        if class != StorageClass::Workgroup {
            let (group, binding) = m.slot(var);
            let layout = Layout { m, narrow: &narrow };
            blocks.push(WordBlock {
                group,
                binding,
                members: declared_members(&layout, pointee)?,
            });
        }
    }
    let targets_set: HashSet<Word> = vars.iter().map(|v| v.0).collect();
    // Sub-word stores and atomics make a variable's words atomic.
    let mut atomic: HashSet<Word> = HashSet::new();
    for inst in m.instructions() {
        let ptr = match inst.class.opcode {
            Op::Store => inst.operands.first().and_then(id),
            op if is_atomic(op) => inst.operands.first().and_then(id),
            _ => None,
        };
        let Some(ptr) = ptr else { continue };
        let var = root(m, ptr);
        if !targets_set.contains(&var) {
            continue;
        }
        let stored = m.pointee(ptr).map(|p| p.1).unwrap_or(0);
        if is_atomic(inst.class.opcode) || holds_narrow(m, &narrow, stored, 0) {
            atomic.insert(var);
        }
    }
    let uint = m.uint();
    let uvec4 = m.vector_type(uint, 4);
    let mut targets: HashMap<Word, (Target, Word)> = HashMap::new();
    for &(var, class, pointee) in &vars {
        let layout = Layout { m, narrow: &narrow };
        let block = uniform_block(m, class, pointee);
        let (new_ty, word_ptr) = match class {
            StorageClass::StorageBuffer | StorageClass::Uniform if !block => {
                let arr = m.array_of(uint, None);
                let st = m.add_global(Op::TypeStruct, None, vec![Operand::IdRef(arr)]);
                (st, m.pointer_to(class, uint))
            }
            StorageClass::Uniform => {
                let span = layout.span(pointee, None)?;
                let n = m.uint_constant(span.div_ceil(16).max(1));
                let arr = m.add_global(
                    Op::TypeArray,
                    None,
                    vec![Operand::IdRef(uvec4), Operand::IdRef(n)],
                );
                m.decorate(arr, Decoration::ArrayStride, &[16]);
                let st = m.add_global(Op::TypeStruct, None, vec![Operand::IdRef(arr)]);
                (st, m.pointer_to(class, uvec4))
            }
            _ => {
                let size = layout.natural(pointee)?.0;
                let n = m.uint_constant(size.div_ceil(4).max(1));
                let arr = m.add_global(
                    Op::TypeArray,
                    None,
                    vec![Operand::IdRef(uint), Operand::IdRef(n)],
                );
                (arr, m.pointer_to(class, uint))
            }
        };
        if class != StorageClass::Workgroup {
            let arr = m
                .global(new_ty)
                .and_then(|t| t.operands.first().and_then(id))
                .unwrap_or(0);
            if !block {
                m.decorate(arr, Decoration::ArrayStride, &[4]);
            }
            // A storage block of SPIR-V 1.0 is a Uniform BufferBlock.
            m.decorate(
                new_ty,
                if m.has_decoration(pointee, Decoration::BufferBlock) {
                    Decoration::BufferBlock
                } else {
                    Decoration::Block
                },
                &[],
            );
            m.member_decorate(new_ty, 0, Decoration::Offset, &[0]);
            let readonly = m.global(pointee).is_some_and(|t| {
                (0..t.operands.len() as u32).all(|k| {
                    m.member_decoration(pointee, k, Decoration::NonWritable)
                        .is_some()
                })
            });
            if readonly {
                m.member_decorate(new_ty, 0, Decoration::NonWritable, &[]);
            }
            let name = m.name(pointee).unwrap_or("Words").to_string();
            m.set_name(new_ty, name);
            m.set_member_name(new_ty, 0, "words");
        }
        let ptr = m.pointer_to(class, new_ty);
        m.set_result_type(var, ptr);
        targets.insert(
            var,
            (
                Target {
                    class,
                    block,
                    atomic: atomic.contains(&var),
                    word_ptr,
                    guard: None,
                    atomic_view: None,
                },
                pointee,
            ),
        );
    }
    let scope_device = m.uint_constant(1);
    let scope_workgroup = m.uint_constant(2);
    let zero = m.uint_constant(0);
    let two = m.uint_constant(2);
    let three = m.uint_constant(3);
    let eight = m.uint_constant(8);
    let mut ptrs: HashMap<Word, (Word, Off, Word, Option<u32>)> = targets
        .iter()
        .map(|(&v, &(_, pointee))| (v, (v, Off::Const(0), pointee, None)))
        .collect();
    let glsl = m.glsl_std_450();
    let float = m.float_type(32);
    let vec2 = m.vector_type(float, 2);
    let float_zero = m.constant(float, 0);
    let ulong = wide_values(m).then(|| m.int_type(64, false));
    let consts = Consts {
        uint,
        ulong,
        glsl,
        float,
        vec2,
        float_zero,
        zero,
        two,
        three,
        eight,
        scope_device,
        scope_workgroup,
    };
    let mut halves: Vec<HalfAtomic> = Vec::new();
    m.rewrite(|e, inst| {
        // The model as it was before the walk, for layout questions.
        let layout = Layout { m: e.m, narrow: &narrow };
        let op = inst.class.opcode;
        let first = inst.operands.first().and_then(id);
        match op {
            Op::AccessChain | Op::InBoundsAccessChain if first.is_some_and(|b| ptrs.contains_key(&b)) => {
                let (var, off, ty, mstride) = ptrs[&first.unwrap_or(0)];
                let indices = inst.operands[1..].iter().filter_map(id);
                let (off, ty, mstride) = walk(
                    e,
                    &layout,
                    &consts,
                    (off, ty, mstride),
                    indices,
                    "in memory holding 8- or 16-bit integers",
                )?;
                if let Some(r) = inst.result_id {
                    ptrs.insert(r, (var, off, ty, mstride));
                }
                Ok(true)
            }
            Op::Load if first.is_some_and(|p| ptrs.contains_key(&p)) => {
                let (var, off, ty, mstride) = ptrs[&first.unwrap_or(0)];
                let target = targets[&var].0;
                let v = load(e, &layout, &consts, var, target, off, ty, mstride, 0)?;
                e.push(with_ids(Op::CopyObject, inst.result_type, inst.result_id, &[v]));
                Ok(true)
            }
            Op::Store if first.is_some_and(|p| ptrs.contains_key(&p)) => {
                let (var, off, ty, mstride) = ptrs[&first.unwrap_or(0)];
                let target = targets[&var].0;
                let value = inst.operands.get(1).and_then(id).unwrap_or(0);
                store(e, &layout, &consts, var, target, off, ty, mstride, value, 0)?;
                Ok(true)
            }
            op if is_atomic(op) && first.is_some_and(|p| ptrs.contains_key(&p)) => {
                let (var, off, ty, mstride) = ptrs[&first.unwrap_or(0)];
                let target = targets[&var].0;
                let half = layout.scalar_bytes(ty) == 2 && e.m.op_of(ty) == Some(Op::TypeFloat);
                match op {
                    // Atomic loads and stores of a half are the pass's
                    // loads and stores (atomic on atomic words).
                    Op::AtomicLoad if half => {
                        let v = load(e, &layout, &consts, var, target, off, ty, mstride, 0)?;
                        e.push(with_ids(Op::CopyObject, inst.result_type, inst.result_id, &[v]));
                        return Ok(true);
                    }
                    Op::AtomicStore if half => {
                        let value = inst.operands.get(3).and_then(id).unwrap_or(0);
                        store(e, &layout, &consts, var, target, off, ty, mstride, value, 0)?;
                        return Ok(true);
                    }
                    // The others, a loop on the word (the float pass's).
                    Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT | Op::AtomicExchange if half => {
                        let mut out = inst.clone();
                        out.operands[0] = Operand::IdRef(word_pointer(e, &consts, var, target, off, true));
                        let shift = bit_shift(e, &consts, off);
                        e.push(out);
                        halves.push(HalfAtomic { result: inst.result_id.unwrap_or(0), shift });
                        return Ok(true);
                    }
                    _ => {}
                }
                if layout.scalar_bytes(ty) != 4 {
                    return Err(Error::Unsupported(format!("an Op{op:?} on a value that is not 32 bits wide in memory holding 8- or 16-bit integers (`{}`)", memory_name(e.m, var))));
                }
                if matches!(op, Op::AtomicSMin | Op::AtomicSMax) {
                    return Err(Error::Unsupported(format!("a signed atomicMin/atomicMax in memory holding 8- or 16-bit integers (`{}`): its words are unsigned", memory_name(e.m, var))));
                }
                let ptr = word_pointer(e, &consts, var, target, off, true);
                atomic_on_word(e, consts.uint, inst, ptr);
                Ok(true)
            }
            Op::ArrayLength if first.is_some_and(|p| targets.contains_key(&p)) => {
                let var = first.unwrap_or(0);
                let pointee = targets[&var].1;
                let k = match inst.operands.get(1) {
                    Some(Operand::LiteralBit32(k)) => *k,
                    _ => 0,
                };
                let member = layout.m.global(pointee).and_then(|t| t.operands.get(k as usize)).and_then(id).unwrap_or(0);
                let offset = layout.member_offset(pointee, k)?;
                let stride = layout.array_stride(member)?;
                let words = e.fresh();
                e.push(Instruction::new(Op::ArrayLength, Some(consts.uint), Some(words), vec![Operand::IdRef(var), Operand::LiteralBit32(0)]));
                let four = e.constant(consts.uint, 4);
                let bytes = e.op(Op::IMul, consts.uint, &[words, four]);
                let o = e.constant(consts.uint, u64::from(offset));
                let rest = e.op(Op::ISub, consts.uint, &[bytes, o]);
                let s = e.constant(consts.uint, u64::from(stride));
                e.push(with_ids(Op::UDiv, inst.result_type, inst.result_id, &[rest, s]));
                Ok(true)
            }
            _ => {
                if let Some(p) = inst.operands.iter().filter_map(id).find(|p| ptrs.contains_key(p)) {
                    let var = ptrs[&p].0;
                    return Err(Error::Unsupported(format!(
                        "`{}` holds 8- or 16-bit integers, which atomport reads as 32-bit words, and Op{op:?} takes a pointer into it: load and store its members instead",
                        memory_name(e.m, var)
                    )));
                }
                Ok(false)
            }
        }
    })?;
    // The types only the replaced variables laid out lose their layout too.
    let replaced: HashSet<Word> = vars
        .iter()
        .filter(|v| v.1 != StorageClass::Workgroup)
        .flat_map(|&(_, class, pointee)| {
            laid_out_wrongly(m, pointee, uniform_block(m, class, pointee))
        })
        .collect();
    strip_layout(m, &narrow, &replaced);
    Ok((blocks, halves))
}

/// The GLSL name of variable `var`: its own, or its block's.
fn memory_name(m: &Model, var: Word) -> &str {
    m.name(var)
        .filter(|n| !n.is_empty())
        .or_else(|| m.pointee(var).and_then(|(_, t)| m.name(t)))
        .unwrap_or("?")
}

/// Follows access-chain `indices` from `(offset, type, column stride)` at
/// the declared layout; `place` names the memory in messages.
fn walk(
    e: &mut Emit,
    layout: &Layout,
    c: &Consts,
    (mut off, mut ty, mut mstride): (Off, Word, Option<u32>),
    indices: impl Iterator<Item = Word>,
    place: &str,
) -> Result<(Off, Word, Option<u32>)> {
    for idx in indices {
        let t = layout
            .m
            .global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: chain through an unknown type"))?
            .clone();
        let element = t.operands.first().and_then(id).unwrap_or(0);
        let stride = match t.class.opcode {
            Op::TypeStruct => {
                let k = layout.m.constant_u32(idx).ok_or_else(|| {
                    Error::shader("malformed SPIR-V: a struct index that is not a constant")
                })?;
                off = add(e, c, off, Off::Const(layout.member_offset(ty, k)?));
                mstride = layout
                    .m
                    .member_decoration(ty, k, Decoration::MatrixStride)
                    .or(mstride);
                ty = t.operands.get(k as usize).and_then(id).unwrap_or(0);
                continue;
            }
            Op::TypeArray | Op::TypeRuntimeArray => layout.array_stride(ty)?,
            Op::TypeVector => layout.scalar_bytes(element),
            Op::TypeMatrix => mstride.ok_or_else(|| {
                Error::Unsupported(format!("a matrix without a column stride {place}"))
            })?,
            _ => {
                return Err(Error::shader(
                    "malformed SPIR-V: access chain into a non-composite type",
                ));
            }
        };
        let step = scaled(e, c, idx, stride);
        off = add(e, c, off, step);
        ty = element;
    }
    Ok((off, ty, mstride))
}

/// The parts of composite `ty` (defined by `d`) as (offset, type, column
/// stride), at the declared layout; `verb` says whether they are loaded or
/// stored, for messages.
fn parts(
    l: &Layout,
    d: &Instruction,
    ty: Word,
    mstride: Option<u32>,
    (verb, short): (&str, &str),
) -> Result<Vec<(u32, Word, Option<u32>)>> {
    let count = match d.operands.get(1) {
        Some(Operand::LiteralBit32(n)) => *n,
        _ => 0,
    };
    let first = d.operands.first().and_then(id).unwrap_or(0);
    Ok(match d.class.opcode {
        Op::TypeVector => {
            let size = l.scalar_bytes(first);
            (0..count).map(|k| (k * size, first, None)).collect()
        }
        Op::TypeMatrix => {
            let stride = mstride.ok_or_else(|| {
                Error::Unsupported(
                    "a matrix without a column stride in memory holding 8- or 16-bit integers"
                        .into(),
                )
            })?;
            (0..count).map(|k| (k * stride, first, None)).collect()
        }
        Op::TypeArray => {
            let n = d
                .operands
                .get(1)
                .and_then(id)
                .and_then(|x| l.m.constant_u32(x))
                .unwrap_or(0);
            if n > 256 {
                return Err(Error::Unsupported(format!(
                    "a whole array of {n} elements {verb} memory holding 8- or 16-bit integers: {short} its elements"
                )));
            }
            let stride = l.array_stride(ty)?;
            (0..n).map(|k| (k * stride, first, mstride)).collect()
        }
        _ => d
            .operands
            .iter()
            .filter_map(id)
            .enumerate()
            .map(|(k, m)| {
                Ok((
                    l.member_offset(ty, k as u32)?,
                    m,
                    l.m.member_decoration(ty, k as u32, Decoration::MatrixStride),
                ))
            })
            .collect::<Result<_>>()?,
    })
}

/// Emits atomic `inst` on the word `ptr`: its values as `uint` words and
/// its result back in its own type (an `int` atomic on unsigned words).
fn atomic_on_word(e: &mut Emit, uint: Word, inst: &Instruction, ptr: Word) {
    let mut out = inst.clone();
    out.operands[0] = Operand::IdRef(ptr);
    let value_ty = e.m.atomic_value_type(inst);
    let signed = value_ty.is_some_and(|t| t != uint);
    if signed {
        for o in out.operands.iter_mut().skip(3) {
            if let Some(v) = id(o).filter(|v| e.m.result_type(*v) == value_ty) {
                *o = Operand::IdRef(e.op(Op::Bitcast, uint, &[v]));
            }
        }
    }
    match (signed, inst.result_id) {
        (true, Some(r)) => {
            let t = e.fresh();
            out.result_type = Some(uint);
            out.result_id = Some(t);
            e.push(out);
            e.push(with_ids(Op::Bitcast, inst.result_type, Some(r), &[t]));
        }
        _ => e.push(out),
    }
}

/// Constants the walk uses.
struct Consts {
    uint: Word,
    /// `uint64_t`, where the module has 64-bit values (declaring it
    /// otherwise would make naga ask for SHADER_INT64).
    ulong: Option<Word>,
    /// For halfs: GLSL.std.450, `float`, `vec2`, `0.0`.
    glsl: Word,
    float: Word,
    vec2: Word,
    float_zero: Word,
    zero: Word,
    two: Word,
    three: Word,
    eight: Word,
    scope_device: Word,
    scope_workgroup: Word,
}

fn add(e: &mut Emit, c: &Consts, a: Off, b: Off) -> Off {
    match (a, b) {
        (Off::Const(x), Off::Const(y)) => Off::Const(x + y),
        (Off::Const(0), d) | (d, Off::Const(0)) => d,
        (x, y) => {
            let (x, y) = (value(e, c, x), value(e, c, y));
            Off::Dyn(e.op(Op::IAdd, c.uint, &[x, y]))
        }
    }
}

/// `index * stride` as a byte offset (the index as a `uint`).
fn scaled(e: &mut Emit, c: &Consts, index: Word, stride: u32) -> Off {
    if let Some(k) = e.m.constant_u32(index) {
        return Off::Const(k * stride);
    }
    let i = if e.m.result_type(index) == Some(c.uint) {
        index
    } else {
        e.op(Op::Bitcast, c.uint, &[index])
    };
    let s = e.constant(c.uint, u64::from(stride));
    Off::Dyn(e.op(Op::IMul, c.uint, &[i, s]))
}

fn value(e: &mut Emit, c: &Consts, o: Off) -> Word {
    match o {
        Off::Const(k) => e.constant(c.uint, u64::from(k)),
        Off::Dyn(v) => v,
    }
}

/// A pointer to the word holding byte `off` (to its `uvec4` in a uniform block).
fn word_pointer(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off, writing: bool) -> Word {
    let shift = if t.block { 4 } else { 2 };
    let index = match off {
        Off::Const(k) => e.constant(c.uint, u64::from(k >> shift)),
        Off::Dyn(v) => {
            let s = e.constant(c.uint, shift);
            e.op(Op::ShiftRightLogical, c.uint, &[v, s])
        }
    };
    // Through a buffer reference outside the arena: the reserved words.
    let index = match t.guard {
        Some((valid, read, write)) => {
            let spare = if writing { write } else { read };
            e.op(Op::Select, c.uint, &[valid, index, spare])
        }
        None => index,
    };
    match t.class {
        StorageClass::Workgroup => e.op(Op::AccessChain, t.word_ptr, &[var, index]),
        _ => e.op(Op::AccessChain, t.word_ptr, &[var, c.zero, index]),
    }
}

fn scope(c: &Consts, t: Target) -> Word {
    if t.class == StorageClass::Workgroup {
        c.scope_workgroup
    } else {
        c.scope_device
    }
}

/// The word holding byte `off`, as a `uint`.
fn load_word(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off) -> Word {
    let ptr = word_pointer(e, c, var, t, off, false);
    if t.block {
        let uvec4 = e.m.pointer(t.word_ptr).map_or(0, |p| p.1);
        let v = e.op(Op::Load, uvec4, &[ptr]);
        let lane = match off {
            Off::Const(k) => e.constant(c.uint, u64::from((k >> 2) & 3)),
            Off::Dyn(o) => {
                let w = e.op(Op::ShiftRightLogical, c.uint, &[o, c.two]);
                e.op(Op::BitwiseAnd, c.uint, &[w, c.three])
            }
        };
        return e.op(Op::VectorExtractDynamic, c.uint, &[v, lane]);
    }
    if t.atomic {
        e.op(Op::AtomicLoad, c.uint, &[ptr, scope(c, t), c.zero])
    } else {
        e.op(Op::Load, c.uint, &[ptr])
    }
}

/// Stores `uint` `w` as the word holding byte `off` (atomically in
/// memory whose words are atomic).
fn store_word(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off, w: Word) {
    let ptr = word_pointer(e, c, var, t, off, true);
    if t.atomic {
        e.push(with_ids(
            Op::AtomicStore,
            None,
            None,
            &[ptr, scope(c, t), c.zero, w],
        ));
    } else {
        e.push(with_ids(Op::Store, None, None, &[ptr, w]));
    }
}

/// The bit position of byte `off` in its word.
fn bit_shift(e: &mut Emit, c: &Consts, off: Off) -> Word {
    match off {
        Off::Const(k) => e.constant(c.uint, u64::from((k & 3) * 8)),
        Off::Dyn(o) => {
            let b = e.op(Op::BitwiseAnd, c.uint, &[o, c.three]);
            e.op(Op::IMul, c.uint, &[b, c.eight])
        }
    }
}

/// The declaration of `ty`, which a `what` (load or store) of memory words
/// walks `depth` levels into, and a reader of its literal operands (a
/// scalar's width first); a nesting past 16 levels is refused.
fn declared(
    l: &Layout,
    ty: Word,
    depth: u32,
    what: &str,
) -> Result<(Instruction, impl Fn(usize) -> u32 + use<>)> {
    if depth > 16 {
        return Err(Error::Unsupported(
            "a value nested too deep in memory holding 8- or 16-bit integers".into(),
        ));
    }
    let d =
        l.m.global(ty)
            .ok_or_else(|| Error::shader(format!("malformed SPIR-V: {what} of an unknown type")))?
            .clone();
    let literals: Vec<u32> = d
        .operands
        .iter()
        .map(|o| match o {
            Operand::LiteralBit32(v) => *v,
            _ => 0,
        })
        .collect();
    Ok((d, move |k: usize| literals.get(k).copied().unwrap_or(0)))
}

#[allow(clippy::too_many_arguments)]
fn load(
    e: &mut Emit,
    l: &Layout,
    c: &Consts,
    var: Word,
    t: Target,
    off: Off,
    ty: Word,
    mstride: Option<u32>,
    depth: u32,
) -> Result<Word> {
    let (d, lit) = declared(l, ty, depth, "load")?;
    match d.class.opcode {
        Op::TypeInt | Op::TypeFloat if lit(0) == 32 => {
            let w = load_word(e, c, var, t, off);
            Ok(if ty == c.uint {
                w
            } else {
                e.op(Op::Bitcast, ty, &[w])
            })
        }
        Op::TypeInt if lit(0) == 8 || lit(0) == 16 => {
            let w = load_word(e, c, var, t, off);
            let s = bit_shift(e, c, off);
            let bits = e.op(Op::ShiftRightLogical, c.uint, &[w, s]);
            Ok(e.op(Op::Bitcast, ty, &[bits]))
        }
        Op::TypeInt | Op::TypeFloat | Op::TypePointer
            if (lit(0) == 64 || d.class.opcode == Op::TypePointer) && c.ulong.is_some() =>
        {
            let ulong = c.ulong.unwrap_or(0);
            let lo = load_word(e, c, var, t, off);
            let at = add(e, c, off, Off::Const(4));
            let hi = load_word(e, c, var, t, at);
            let lo = e.op(Op::UConvert, ulong, &[lo]);
            let hi = e.op(Op::UConvert, ulong, &[hi]);
            let s = e.constant(c.uint, 32);
            let hi = e.op(Op::ShiftLeftLogical, ulong, &[hi, s]);
            let v = e.op(Op::BitwiseOr, ulong, &[lo, hi]);
            Ok(if ty == ulong {
                v
            } else {
                e.op(Op::Bitcast, ty, &[v])
            })
        }
        Op::TypeFloat if lit(0) == 16 => {
            let w = load_word(e, c, var, t, off);
            let s = bit_shift(e, c, off);
            let bits = e.op(Op::ShiftRightLogical, c.uint, &[w, s]);
            let v = e.ext_inst(c.glsl, c.vec2, UNPACK_HALF_2X16, bits);
            let x = e.extract(c.float, v, 0);
            Ok(e.op(Op::FConvert, ty, &[x]))
        }
        Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeStruct => {
            let parts = parts(l, &d, ty, mstride, ("loaded from", "load"))?;
            let mut values = Vec::new();
            for (o, pty, ms) in parts {
                let at = add(e, c, off, Off::Const(o));
                values.push(load(e, l, c, var, t, at, pty, ms, depth + 1)?);
            }
            Ok(e.op(Op::CompositeConstruct, ty, &values))
        }
        _ => Err(Error::Unsupported(format!(
            "a value of Op{:?} ({} bits) in memory holding 8- or 16-bit integers: atomport reads such memory as words and has no rule for it (64-bit values and halfs among them)",
            d.class.opcode,
            lit(0)
        ))),
    }
}

#[allow(clippy::too_many_arguments)]
fn store(
    e: &mut Emit,
    l: &Layout,
    c: &Consts,
    var: Word,
    t: Target,
    off: Off,
    ty: Word,
    mstride: Option<u32>,
    value: Word,
    depth: u32,
) -> Result<()> {
    let (d, lit) = declared(l, ty, depth, "store")?;
    match d.class.opcode {
        Op::TypeInt | Op::TypeFloat if lit(0) == 32 => {
            let w = if ty == c.uint {
                value
            } else {
                e.op(Op::Bitcast, c.uint, &[value])
            };
            store_word(e, c, var, t, off, w);
            Ok(())
        }
        Op::TypeInt | Op::TypeFloat | Op::TypePointer
            if (lit(0) == 64 || d.class.opcode == Op::TypePointer) && c.ulong.is_some() =>
        {
            let ulong = c.ulong.unwrap_or(0);
            let v = if ty == ulong {
                value
            } else {
                e.op(Op::Bitcast, ulong, &[value])
            };
            let s = e.constant(c.uint, 32);
            let hi = e.op(Op::ShiftRightLogical, ulong, &[v, s]);
            for (k, part) in [v, hi].into_iter().enumerate() {
                let w = e.op(Op::UConvert, c.uint, &[part]);
                let at = add(e, c, off, Off::Const(4 * k as u32));
                store_word(e, c, var, t, at, w);
            }
            Ok(())
        }
        Op::TypeInt | Op::TypeFloat if lit(0) == 8 || lit(0) == 16 => {
            let bits = if d.class.opcode == Op::TypeFloat {
                let x = e.op(Op::FConvert, c.float, &[value]);
                let v = e.op(Op::CompositeConstruct, c.vec2, &[x, c.float_zero]);
                e.ext_inst(c.glsl, c.uint, PACK_HALF_2X16, v)
            } else {
                // The low bits, zero-extended (the narrow pass's reading of this bitcast).
                e.op(Op::Bitcast, c.uint, &[value])
            };
            let s = bit_shift(e, c, off);
            let ones = e.constant(c.uint, (1u64 << lit(0)) - 1);
            let mask = e.op(Op::ShiftLeftLogical, c.uint, &[ones, s]);
            let keep = e.op(Op::Not, c.uint, &[mask]);
            let set = e.op(Op::ShiftLeftLogical, c.uint, &[bits, s]);
            let ptr = word_pointer(e, c, t.atomic_view.unwrap_or(var), t, off, true);
            let sc = scope(c, t);
            e.op(Op::AtomicAnd, c.uint, &[ptr, sc, c.zero, keep]);
            e.op(Op::AtomicOr, c.uint, &[ptr, sc, c.zero, set]);
            Ok(())
        }
        Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeStruct => {
            let parts = parts(l, &d, ty, mstride, ("stored to", "store"))?;
            for (k, (o, pty, ms)) in parts.into_iter().enumerate() {
                let part = e.extract(pty, value, k as u32);
                let at = add(e, c, off, Off::Const(o));
                store(e, l, c, var, t, at, pty, ms, part, depth + 1)?;
            }
            Ok(())
        }
        _ => Err(Error::Unsupported(format!(
            "a value of Op{:?} ({} bits) in memory holding 8- or 16-bit integers: atomport writes such memory as words and has no rule for it (64-bit values and halfs among them)",
            d.class.opcode,
            lit(0)
        ))),
    }
}

/// `ty` and the types in it whose layout WGSL cannot place.
fn laid_out_wrongly(m: &Model, ty: Word, uniform: bool) -> Vec<Word> {
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
fn reachable_types(m: &Model, roots: &[Word]) -> HashSet<Word> {
    let mut seen = HashSet::new();
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
fn strip_layout(m: &mut Model, narrow: &HashMap<Word, u32>, also: &HashSet<Word>) {
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

/// A pointer through a buffer reference: its byte offset in the arena, its
/// pointee, the column stride its member declares, and its guard (see
/// [`Target::guard`]).
type RefPointer = (Off, Word, Option<u32>, (Word, Word, Word));

/// The name of the storage buffer every addressable buffer lives in
/// (see [`crate::Arena`]).
pub const ARENA: &str = "atomport_arena";

/// The address of the arena's first byte: 0 and small addresses are never
/// a buffer's.
pub const ARENA_BASE: u64 = 1 << 32;

/// Buffer references (`GL_EXT_buffer_reference`): every buffer the host
/// makes addressable lives in one storage buffer, [`ARENA`], bound like any
/// other; an address is [`ARENA_BASE`] plus a byte offset into it, a
/// `uint64_t`. A reference value becomes that `uint64_t` (in registers and
/// in memory, where it takes 8 bytes as it did), and every access through
/// one an access to the arena's words at the offset, as for
/// [`word_addressed_memory`]: members, array elements and pointer
/// arithmetic (`OpPtrAccessChain`, by the reference type's stride) at the
/// reference type's declared layout, loads, stores and atomics. An access
/// at an address outside the arena reads 0 and writes nothing: it is sent
/// to two 8-byte slots the arena keeps at its end, one never written
/// (read) and one never read (written). Atomics (and stores below a word)
/// go through other bindings of the same buffer, whose elements are
/// atomic, so that plain loads and stores stay plain: `atomport_arena_atomic`
/// (`uint` words) for 32-bit integers, halfs (a loop on their word, the
/// float pass's) and sub-word stores, and one view per other type atomics
/// use (`atomport_arena_int` for signed 32-bit min/max, `_ulong` and
/// `_long` for 64-bit integers, `_float` and `_double` for the float
/// pass's loops), each indexed by the offset over its element's size (a
/// 64-bit atomic's address is a multiple of 8, as GLSL aligns them). The
/// runtime binds the arena's buffer to every view (as to any alias).
/// Returns the views, and the half atomics for the float pass.
pub fn buffer_references(m: &mut Model) -> Result<(Vec<crate::lower::Alias>, Vec<HalfAtomic>)> {
    let refs: HashSet<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter(|t| {
            t.class.opcode == Op::TypePointer
                && t.operands.first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
        })
        .filter_map(|t| t.result_id)
        .collect();
    if refs.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let narrow = narrow_widths(m);
    let uint = m.uint();
    let ulong = m.int_type(64, false);
    let boolean = m.bool_type();
    // The arena: `struct { uint words[]; }`, at a free binding of set 0,
    // and a second view of the same buffer at the next, for atomics (and
    // sub-word stores): plain loads and stores stay plain.
    let mut free = m.free_bindings();
    let mut view = |m: &mut Model, name: &str, element: Word| -> Result<(Word, u32)> {
        let arr = m.array_of(element, None);
        let bytes = if m
            .global(element)
            .is_some_and(crate::lower::model::is_64_bit)
        {
            8
        } else {
            4
        };
        m.decorate(arr, Decoration::ArrayStride, &[bytes]);
        let st = m.add_global(Op::TypeStruct, None, vec![Operand::IdRef(arr)]);
        m.decorate(st, Decoration::Block, &[]);
        m.member_decorate(st, 0, Decoration::Offset, &[0]);
        m.set_name(st, "AtomportArena");
        m.set_member_name(st, 0, "words");
        let ptr = m.pointer_to(StorageClass::StorageBuffer, st);
        let var = m.add_global(
            Op::Variable,
            Some(ptr),
            vec![Operand::StorageClass(StorageClass::StorageBuffer)],
        );
        let binding = free.take(0)?;
        m.decorate(var, Decoration::DescriptorSet, &[0]);
        m.decorate(var, Decoration::Binding, &[binding]);
        m.set_name(var, name);
        for ep in &mut m.module_mut().entry_points {
            ep.operands.push(Operand::IdRef(var));
        }
        Ok((var, binding))
    };
    let (arena, arena_binding) = view(m, ARENA, uint)?;
    let (atomic_arena, atomic_binding) = view(m, &format!("{ARENA}_atomic"), uint)?;
    let mut aliases = vec![crate::lower::Alias {
        group: 0,
        binding: atomic_binding,
        of: arena_binding,
    }];
    // The other views the atomics through references need, by element type.
    let mut views: HashMap<Word, (Word, Word)> = HashMap::new();
    views.insert(
        uint,
        (
            atomic_arena,
            m.pointer_to(StorageClass::StorageBuffer, uint),
        ),
    );
    let wanted: Vec<ViewType> = m
        .instructions()
        .filter(|i| is_atomic(i.class.opcode))
        .filter(|i| {
            i.operands
                .first()
                .and_then(id)
                .and_then(|p| m.result_type(p))
                .is_some_and(|t| {
                    m.global(t).is_some_and(|t| {
                        t.operands.first()
                            == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
                    })
                })
        })
        .filter_map(|i| atomic_view_type(m, i))
        .collect();
    for w in wanted {
        let ty = match w {
            ViewType::Int(width, signed) => m.int_type(width, signed),
            ViewType::Float(width) => m.float_type(width),
        };
        if views.contains_key(&ty) {
            continue;
        }
        let suffix = match w {
            ViewType::Int(32, true) => "int",
            ViewType::Int(64, false) => "ulong",
            ViewType::Int(64, true) => "long",
            ViewType::Float(64) => "double",
            _ => "float",
        };
        let (var, binding) = view(m, &format!("{ARENA}_{suffix}"), ty)?;
        aliases.push(crate::lower::Alias {
            group: 0,
            binding,
            of: arena_binding,
        });
        views.insert(ty, (var, m.pointer_to(StorageClass::StorageBuffer, ty)));
    }
    let mut halves: Vec<HalfAtomic> = Vec::new();
    let target = Target {
        class: StorageClass::StorageBuffer,
        block: false,
        atomic: false,
        word_ptr: m.pointer_to(StorageClass::StorageBuffer, uint),
        guard: None,
        atomic_view: Some(atomic_arena),
    };
    let glsl = m.glsl_std_450();
    let float = m.float_type(32);
    let vec2 = m.vector_type(float, 2);
    let consts = Consts {
        uint,
        ulong: Some(ulong),
        glsl,
        float,
        vec2,
        float_zero: m.constant(float, 0),
        zero: m.uint_constant(0),
        two: m.uint_constant(2),
        three: m.uint_constant(3),
        eight: m.uint_constant(8),
        scope_device: m.uint_constant(1),
        scope_workgroup: m.uint_constant(2),
    };
    let mut ptrs: HashMap<Word, RefPointer> = HashMap::new();
    // Where a reference value (not a chain) is used as a pointer: its
    // offset and guard, computed at the use.
    let root = |e: &mut Emit, p: Word| -> (Off, (Word, Word, Word)) {
        // In 32-bit halves: the address's high word must be the base's
        // (ARENA_BASE is 2^32) and its low word the offset, below the
        // reserved words.
        let c = &consts;
        let s = e.constant(uint, 32);
        let off = e.op(Op::UConvert, uint, &[p]);
        let high = e.op(Op::ShiftRightLogical, ulong, &[p, s]);
        let high = e.op(Op::UConvert, uint, &[high]);
        let words = e.fresh();
        e.push(Instruction::new(
            Op::ArrayLength,
            Some(uint),
            Some(words),
            vec![Operand::IdRef(arena), Operand::LiteralBit32(0)],
        ));
        // The read slot is the words at 16 bytes before the end, the
        // write slot those at 8.
        let four = e.constant(uint, 4);
        let read = e.op(Op::ISub, uint, &[words, four]);
        let write = e.op(Op::ISub, uint, &[words, c.two]);
        let limit = e.op(Op::IMul, uint, &[read, four]);
        let base_high = e.constant(uint, ARENA_BASE >> 32);
        let in_base = e.op(Op::IEqual, boolean, &[high, base_high]);
        let below = e.op(Op::ULessThan, boolean, &[off, limit]);
        let valid = e.op(Op::LogicalAnd, boolean, &[in_base, below]);
        (Off::Dyn(off), (valid, read, write))
    };
    m.rewrite(|e, inst| {
        let layout = Layout {
            m: e.m,
            narrow: &narrow,
        };
        let op = inst.class.opcode;
        let first = inst.operands.first().and_then(id).unwrap_or(0);
        let is_ref = |e: &Emit, v: Word| e.m.result_type(v).is_some_and(|t| refs.contains(&t));
        // The pointer `p` as (offset, pointee, column stride, guard).
        let resolve = |e: &mut Emit, ptrs: &HashMap<Word, RefPointer>, p: Word| {
            if let Some(&x) = ptrs.get(&p) {
                return Some(x);
            }
            if !is_ref(e, p) {
                return None;
            }
            let pointee = e.m.pointee(p).map(|x| x.1)?;
            let (off, guard) = root(e, p);
            Some((off, pointee, None, guard))
        };
        match op {
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain
                if ptrs.contains_key(&first) || is_ref(e, first) =>
            {
                let Some((mut off, ty, mstride, guard)) = resolve(e, &ptrs, first) else {
                    return Ok(false);
                };
                let mut indices: Vec<Word> = inst.operands[1..].iter().filter_map(id).collect();
                if op == Op::PtrAccessChain && !indices.is_empty() {
                    // `ref + k`: k whole pointees further on.
                    let element = indices.remove(0);
                    let base_ty = e.m.result_type(first).unwrap_or(0);
                    let stride = match e.m.decoration(base_ty, Decoration::ArrayStride) {
                        Some(s) => s,
                        None => layout.span(ty, None)?,
                    };
                    let step = scaled(e, &consts, element, stride);
                    off = add(e, &consts, off, step);
                }
                let (off, ty, mstride) = walk(
                    e,
                    &layout,
                    &consts,
                    (off, ty, mstride),
                    indices.into_iter(),
                    "behind a buffer reference",
                )?;
                if let Some(r) = inst.result_id {
                    ptrs.insert(r, (off, ty, mstride, guard));
                }
                Ok(true)
            }
            Op::Load if ptrs.contains_key(&first) || is_ref(e, first) => {
                let Some((off, ty, mstride, guard)) = resolve(e, &ptrs, first) else {
                    return Ok(false);
                };
                let t = Target { guard: Some(guard), ..target };
                let v = load(e, &layout, &consts, arena, t, off, ty, mstride, 0)?;
                e.push(with_ids(Op::CopyObject, inst.result_type, inst.result_id, &[v]));
                Ok(true)
            }
            Op::Store if ptrs.contains_key(&first) || is_ref(e, first) => {
                let Some((off, ty, mstride, guard)) = resolve(e, &ptrs, first) else {
                    return Ok(false);
                };
                let t = Target { guard: Some(guard), ..target };
                let value = inst.operands.get(1).and_then(id).unwrap_or(0);
                store(e, &layout, &consts, arena, t, off, ty, mstride, value, 0)?;
                Ok(true)
            }
            op if is_atomic(op) && (ptrs.contains_key(&first) || is_ref(e, first)) => {
                let Some((off, ty, _, guard)) = resolve(e, &ptrs, first) else {
                    return Ok(false);
                };
                let Some(kind) = atomic_view_type(e.m, inst) else {
                    return Err(Error::Unsupported(format!(
                        "Op{op:?} through a buffer reference on a value of {} bytes: atomics take 32- and 64-bit integers and floats and halfs",
                        layout.scalar_bytes(ty)
                    )));
                };
                let element = match kind {
                    ViewType::Int(w, signed) => e.m.int_type_id(w, signed),
                    ViewType::Float(w) => e.m.float_of_width(w),
                };
                let Some(&(view_var, view_ptr)) = element.and_then(|t| views.get(&t)) else {
                    return Ok(false);
                };
                let wide = matches!(kind, ViewType::Int(64, _) | ViewType::Float(64));
                let t = Target { guard: Some(guard), word_ptr: view_ptr, ..target };
                let ptr = if wide {
                    element_pointer_64(e, &consts, view_var, t, off)
                } else {
                    word_pointer(e, &consts, view_var, t, off, true)
                };
                let half = layout.scalar_bytes(ty) == 2;
                match kind {
                    ViewType::Int(..) if !half => atomic_on_word(e, element.unwrap_or(uint), inst, ptr),
                    // The float pass makes these loops: a half's on its
                    // word, a float's and a double's on their bits.
                    _ => {
                        let mut out = inst.clone();
                        out.operands[0] = Operand::IdRef(ptr);
                        // The shift before the atomic: its loop uses it.
                        if half {
                            let shift = bit_shift(e, &consts, off);
                            halves.push(HalfAtomic { result: inst.result_id.unwrap_or(0), shift });
                        }
                        e.push(out);
                    }
                }
                Ok(true)
            }
            // References are addresses: converting one is a copy.
            Op::ConvertPtrToU | Op::ConvertUToPtr => {
                let ty = inst.result_type.unwrap_or(0);
                let src = first;
                let to_wide = e.m.global(ty).is_some_and(crate::lower::model::is_64_bit) || refs.contains(&ty);
                if to_wide {
                    e.push(with_ids(Op::CopyObject, inst.result_type, inst.result_id, &[src]));
                } else {
                    e.push(with_ids(Op::UConvert, inst.result_type, inst.result_id, &[src]));
                }
                Ok(true)
            }
            Op::Bitcast if refs.contains(&inst.result_type.unwrap_or(0)) || is_ref(e, first) => {
                // `uvec2` <-> reference (GL_EXT_buffer_reference_uvec2).
                let c = &consts;
                let uvec2 = if is_ref(e, first) { inst.result_type.unwrap_or(0) } else { e.m.result_type(first).unwrap_or(0) };
                if e.m.global(uvec2).map(|t| t.class.opcode) != Some(Op::TypeVector) {
                    e.push(with_ids(Op::CopyObject, inst.result_type, inst.result_id, &[first]));
                    return Ok(true);
                }
                let s = e.constant(uint, 32);
                if is_ref(e, first) {
                    let lo = e.op(Op::UConvert, uint, &[first]);
                    let hi = e.op(Op::ShiftRightLogical, ulong, &[first, s]);
                    let hi = e.op(Op::UConvert, uint, &[hi]);
                    e.push(with_ids(Op::CompositeConstruct, inst.result_type, inst.result_id, &[lo, hi]));
                } else {
                    let lo = e.extract(uint, first, 0);
                    let hi = e.extract(uint, first, 1);
                    let lo = e.op(Op::UConvert, ulong, &[lo]);
                    let hi = e.op(Op::UConvert, ulong, &[hi]);
                    let hi = e.op(Op::ShiftLeftLogical, ulong, &[hi, s]);
                    e.push(with_ids(Op::BitwiseOr, inst.result_type, inst.result_id, &[lo, hi]));
                }
                let _ = c;
                Ok(true)
            }
            _ => {
                if let Some(p) = inst.operands.iter().filter_map(id).find(|p| ptrs.contains_key(p)) {
                    return Err(Error::Unsupported(format!(
                        "Op{op:?} takes a pointer through a buffer reference (%{p}): atomport reads references as arena offsets; load and store through them instead"
                    )));
                }
                Ok(false)
            }
        }
    })?;
    // The types behind references are values in registers now: those laid
    // out where WGSL cannot place them (scalar layout's `vec3` then `vec2`)
    // lose their layout, unless bound memory also holds them.
    let behind: Vec<Word> = refs
        .iter()
        .filter_map(|&p| m.global(p).and_then(|t| t.operands.get(1)).and_then(id))
        .collect();
    let bound: HashSet<Word> = {
        let roots: Vec<Word> = m
            .variables()
            .filter(|&(_, class, _)| class != StorageClass::Function)
            .map(|(_, _, pointee)| pointee)
            .collect();
        reachable_types(m, &roots)
    };
    let misplaced_only_behind: HashSet<Word> = behind
        .iter()
        .flat_map(|&t| laid_out_wrongly(m, t, false))
        .filter(|t| !bound.contains(t))
        .collect();
    strip_layout(m, &HashMap::new(), &misplaced_only_behind);
    // Reference types become `uint64_t`; the module has Logical addressing.
    let module = m.module_mut();
    module
        .types_global_values
        .retain(|t| t.class.opcode != Op::TypeForwardPointer);
    for t in &mut module.types_global_values {
        if t.result_id.is_some_and(|r| refs.contains(&r)) {
            *t = Instruction::new(
                Op::TypeInt,
                None,
                t.result_id,
                vec![Operand::LiteralBit32(64), Operand::LiteralBit32(0)],
            );
        }
    }
    if let Some(mm) = module.memory_model.as_mut()
        && let Some(Operand::AddressingModel(a)) = mm.operands.get_mut(0)
    {
        *a = rspirv::spirv::AddressingModel::Logical;
    }
    module.annotations.retain(|a| {
        !matches!(
            a.operands.get(1),
            Some(Operand::Decoration(
                Decoration::AliasedPointer | Decoration::RestrictPointer
            ))
        )
    });
    m.drop_capabilities(
        &[rspirv::spirv::Capability::PhysicalStorageBufferAddresses],
        &[
            "SPV_KHR_physical_storage_buffer",
            "SPV_EXT_physical_storage_buffer",
        ],
    );
    // The atomic views bind the buffer given for the arena.
    Ok((aliases, halves))
}

/// The element type of the arena view an atomic through a reference
/// works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ViewType {
    /// An integer of this width and signedness.
    Int(u32, bool),
    /// A float of this width.
    Float(u32),
}

/// The view atomic `inst` works on, by the type of its value: a half's is
/// its `uint` word; a signed min/max needs signed elements, other integer
/// atomics unsigned ones (a signed value is bitcast). None for a type no
/// view holds.
fn atomic_view_type(m: &Model, inst: &Instruction) -> Option<ViewType> {
    let op = inst.class.opcode;
    let ty = m.atomic_value_type(inst)?;
    let t = m.global(ty)?;
    let width = match t.operands.first() {
        Some(Operand::LiteralBit32(w)) => *w,
        _ => return None,
    };
    match (t.class.opcode, width) {
        (Op::TypeFloat, 16) => Some(ViewType::Int(32, false)),
        (Op::TypeFloat, 32 | 64) => Some(ViewType::Float(width)),
        (Op::TypeInt, 32 | 64) => Some(ViewType::Int(
            width,
            matches!(op, Op::AtomicSMin | Op::AtomicSMax),
        )),
        _ => None,
    }
}

/// A pointer to the 8-byte element at byte `off` of a 64-bit view (the
/// guard's slots, in words, halved).
fn element_pointer_64(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off) -> Word {
    let index = match off {
        Off::Const(k) => e.constant(c.uint, u64::from(k >> 3)),
        Off::Dyn(v) => {
            let s = e.constant(c.uint, 3);
            e.op(Op::ShiftRightLogical, c.uint, &[v, s])
        }
    };
    let index = match t.guard {
        Some((valid, _, write)) => {
            // An atomic reads and writes: the write slot.
            let one = e.constant(c.uint, 1);
            let spare = e.op(Op::ShiftRightLogical, c.uint, &[write, one]);
            e.op(Op::Select, c.uint, &[valid, index, spare])
        }
        None => index,
    };
    e.op(Op::AccessChain, t.word_ptr, &[var, c.zero, index])
}
