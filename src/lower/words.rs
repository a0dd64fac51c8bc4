//! Memory WGSL cannot type, addressed as 32-bit words: storage buffers,
//! uniform blocks and shared memory holding 8- or 16-bit integers.
//!
//! Such a variable becomes an array of words (`uint w[]` in a storage
//! buffer, `uvec4 w[N]` in a uniform block, `uint w[N]` in shared memory)
//! at its own binding, and every access chain into it a byte offset,
//! computed from the layout the shader declared (member offsets, array and
//! matrix strides; shared memory, which declares none, is laid out
//! scalar-aligned). A load assembles the value from its words: a narrow
//! integer is the bits at its offset (the narrow-integer pass,
//! [`crate::lower::narrow`], which runs after, extends them), a 32-bit one
//! the word, a vector, matrix, struct or array its parts. A store below a
//! word's size clears and sets its bits with `atomicAnd` and `atomicOr` on
//! the containing word, so that a neighbour's store to the same word is
//! never lost; then every access to those words is atomic. Atomics on
//! 32-bit members act on their word. The host writes the bytes it wrote
//! for Vulkan: the layout is the shader's own.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::model::{Emit, Model, id, is_atomic, with_ids};
use crate::{Error, Result};

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
    atomic: bool,
    /// The pointer type to one word (`uvec4` in a uniform block).
    word_ptr: Word,
}

/// Widths of the narrow integer scalar types, by id.
fn narrow_widths(m: &Model) -> HashMap<Word, u32> {
    m.module()
        .types_global_values
        .iter()
        .filter_map(
            |t| match (t.class.opcode, t.operands.first(), t.result_id) {
                (Op::TypeInt, Some(Operand::LiteralBit32(w @ (8 | 16))), Some(r)) => Some((r, *w)),
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

    /// The bytes a block's members span (for a uniform block's word count).
    fn span(&self, ty: Word) -> Result<u32> {
        let t = self
            .m
            .global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: unknown type"))?;
        if t.class.opcode != Op::TypeStruct {
            return Ok(self.natural(ty)?.0);
        }
        let mut end = 0;
        for (k, c) in t.operands.iter().filter_map(id).enumerate() {
            let off = self.member_offset(ty, k as u32)?;
            let size = match self.m.global(c).map(|x| x.class.opcode) {
                Some(Op::TypeArray) => {
                    let n = self
                        .m
                        .global(c)
                        .and_then(|x| x.operands.get(1))
                        .and_then(id)
                        .and_then(|l| self.m.constant_u32(l))
                        .unwrap_or(0);
                    self.array_stride(c)? * n
                }
                _ => self.natural(c)?.0.max(4),
            };
            end = end.max(off + size);
        }
        Ok(end)
    }
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
/// 8- or 16-bit integers an array of words; returns how many.
pub fn word_addressed_memory(m: &mut Model) -> Result<usize> {
    let narrow = narrow_widths(m);
    if narrow.is_empty() {
        return Ok(0);
    }
    let vars: Vec<(Word, StorageClass, Word)> = m
        .variables()
        .filter(|&(_, class, pointee)| {
            matches!(
                class,
                StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::Workgroup
            ) && holds_narrow(m, &narrow, pointee, 0)
        })
        .collect();
    if vars.is_empty() {
        strip_layout(m, &narrow);
        return Ok(0);
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
        let (new_ty, word_ptr) = match class {
            StorageClass::StorageBuffer => {
                let arr = m.array_of(uint, None);
                let st = m.add_global(Op::TypeStruct, None, vec![Operand::IdRef(arr)]);
                (st, m.pointer_to(class, uint))
            }
            StorageClass::Uniform => {
                let span = layout.span(pointee)?;
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
            if class == StorageClass::StorageBuffer {
                m.decorate(arr, Decoration::ArrayStride, &[4]);
            }
            m.decorate(new_ty, Decoration::Block, &[]);
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
                    atomic: atomic.contains(&var),
                    word_ptr,
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
    let consts = Consts {
        uint,
        zero,
        two,
        three,
        eight,
        scope_device,
        scope_workgroup,
    };
    m.rewrite(|e, inst| {
        // The model as it was before the walk, for layout questions.
        let layout = Layout { m: e.m, narrow: &narrow };
        let op = inst.class.opcode;
        let first = inst.operands.first().and_then(id);
        match op {
            Op::AccessChain | Op::InBoundsAccessChain if first.is_some_and(|b| ptrs.contains_key(&b)) => {
                let (var, mut off, mut ty, mut mstride) = ptrs[&first.unwrap_or(0)];
                for idx in inst.operands[1..].iter().filter_map(id) {
                    let t = layout.m.global(ty).ok_or_else(|| Error::shader("malformed SPIR-V: chain through an unknown type"))?.clone();
                    match t.class.opcode {
                        Op::TypeStruct => {
                            let k = layout.m.constant_u32(idx).ok_or_else(|| Error::shader("malformed SPIR-V: a struct index that is not a constant"))?;
                            off = add(e, &consts, off, Off::Const(layout.member_offset(ty, k)?));
                            mstride = layout.m.member_decoration(ty, k, Decoration::MatrixStride).or(mstride);
                            ty = t.operands.get(k as usize).and_then(id).unwrap_or(0);
                        }
                        Op::TypeArray | Op::TypeRuntimeArray => {
                            let stride = layout.array_stride(ty)?;
                            let step = scaled(e, &consts, idx, stride);
                            off = add(e, &consts, off, step);
                            ty = t.operands.first().and_then(id).unwrap_or(0);
                        }
                        Op::TypeVector => {
                            let c = t.operands.first().and_then(id).unwrap_or(0);
                            let step = scaled(e, &consts, idx, layout.scalar_bytes(c));
                            off = add(e, &consts, off, step);
                            ty = c;
                        }
                        Op::TypeMatrix => {
                            let stride = mstride.ok_or_else(|| Error::Unsupported("a matrix without a column stride in memory holding 8- or 16-bit integers".into()))?;
                            let step = scaled(e, &consts, idx, stride);
                            off = add(e, &consts, off, step);
                            ty = t.operands.first().and_then(id).unwrap_or(0);
                        }
                        _ => return Err(Error::shader("malformed SPIR-V: access chain into a non-composite type")),
                    }
                }
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
                let (var, off, ty, _) = ptrs[&first.unwrap_or(0)];
                let target = targets[&var].0;
                if layout.scalar_bytes(ty) != 4 {
                    return Err(Error::Unsupported(format!("an Op{op:?} on a value that is not 32 bits wide in memory holding 8- or 16-bit integers")));
                }
                if matches!(op, Op::AtomicSMin | Op::AtomicSMax) {
                    return Err(Error::Unsupported("a signed atomicMin/atomicMax in memory holding 8- or 16-bit integers: its words are unsigned".into()));
                }
                let ptr = word_pointer(e, &consts, var, target, off);
                let uint = consts.uint;
                let mut out = inst.clone();
                out.operands[0] = Operand::IdRef(ptr);
                // Values as uint words; the result back in the op's type.
                let signed = inst.result_type.is_some_and(|t| t != uint);
                if signed {
                    for o in out.operands.iter_mut().skip(1) {
                        if let Some(v) = id(o).filter(|v| e.m.result_type(*v) == inst.result_type) {
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
                        e.m.name(var).unwrap_or("?")
                    )));
                }
                Ok(false)
            }
        }
    })?;
    strip_layout(m, &narrow);
    Ok(vars.len())
}

/// Constants the walk uses.
struct Consts {
    uint: Word,
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
fn word_pointer(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off) -> Word {
    let shift = if t.class == StorageClass::Uniform {
        4
    } else {
        2
    };
    let index = match off {
        Off::Const(k) => e.constant(c.uint, u64::from(k >> shift)),
        Off::Dyn(v) => {
            let s = e.constant(c.uint, shift);
            e.op(Op::ShiftRightLogical, c.uint, &[v, s])
        }
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
    let ptr = word_pointer(e, c, var, t, off);
    if t.class == StorageClass::Uniform {
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
    if depth > 16 {
        return Err(Error::Unsupported(
            "a value nested too deep in memory holding 8- or 16-bit integers".into(),
        ));
    }
    let d =
        l.m.global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: load of an unknown type"))?
            .clone();
    let lit = |k: usize| match d.operands.get(k) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    };
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
        Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeStruct => {
            let parts: Vec<(u32, Word, Option<u32>)> = match d.class.opcode {
                Op::TypeVector => {
                    let comp = d.operands.first().and_then(id).unwrap_or(0);
                    let size = l.scalar_bytes(comp);
                    (0..lit(1)).map(|k| (k * size, comp, None)).collect()
                }
                Op::TypeMatrix => {
                    let col = d.operands.first().and_then(id).unwrap_or(0);
                    let stride = mstride.ok_or_else(|| Error::Unsupported("a matrix without a column stride in memory holding 8- or 16-bit integers".into()))?;
                    (0..lit(1)).map(|k| (k * stride, col, None)).collect()
                }
                Op::TypeArray => {
                    let elem = d.operands.first().and_then(id).unwrap_or(0);
                    let n = d
                        .operands
                        .get(1)
                        .and_then(id)
                        .and_then(|x| l.m.constant_u32(x))
                        .unwrap_or(0);
                    if n > 256 {
                        return Err(Error::Unsupported(format!(
                            "a whole array of {n} elements loaded from memory holding 8- or 16-bit integers: load its elements"
                        )));
                    }
                    let stride = l.array_stride(ty)?;
                    (0..n).map(|k| (k * stride, elem, mstride)).collect()
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
            };
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
    if depth > 16 {
        return Err(Error::Unsupported(
            "a value nested too deep in memory holding 8- or 16-bit integers".into(),
        ));
    }
    let d =
        l.m.global(ty)
            .ok_or_else(|| Error::shader("malformed SPIR-V: store of an unknown type"))?
            .clone();
    let lit = |k: usize| match d.operands.get(k) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    };
    match d.class.opcode {
        Op::TypeInt | Op::TypeFloat if lit(0) == 32 => {
            let w = if ty == c.uint {
                value
            } else {
                e.op(Op::Bitcast, c.uint, &[value])
            };
            let ptr = word_pointer(e, c, var, t, off);
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
            Ok(())
        }
        Op::TypeInt if lit(0) == 8 || lit(0) == 16 => {
            // The low bits, zero-extended (the narrow pass's reading of this bitcast).
            let bits = e.op(Op::Bitcast, c.uint, &[value]);
            let s = bit_shift(e, c, off);
            let ones = e.constant(c.uint, (1u64 << lit(0)) - 1);
            let mask = e.op(Op::ShiftLeftLogical, c.uint, &[ones, s]);
            let keep = e.op(Op::Not, c.uint, &[mask]);
            let set = e.op(Op::ShiftLeftLogical, c.uint, &[bits, s]);
            let ptr = word_pointer(e, c, var, t, off);
            let sc = scope(c, t);
            e.op(Op::AtomicAnd, c.uint, &[ptr, sc, c.zero, keep]);
            e.op(Op::AtomicOr, c.uint, &[ptr, sc, c.zero, set]);
            Ok(())
        }
        Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeStruct => {
            let parts: Vec<(u32, Word, Option<u32>)> = match d.class.opcode {
                Op::TypeVector => {
                    let comp = d.operands.first().and_then(id).unwrap_or(0);
                    let size = l.scalar_bytes(comp);
                    (0..lit(1)).map(|k| (k * size, comp, None)).collect()
                }
                Op::TypeMatrix => {
                    let col = d.operands.first().and_then(id).unwrap_or(0);
                    let stride = mstride.ok_or_else(|| Error::Unsupported("a matrix without a column stride in memory holding 8- or 16-bit integers".into()))?;
                    (0..lit(1)).map(|k| (k * stride, col, None)).collect()
                }
                Op::TypeArray => {
                    let elem = d.operands.first().and_then(id).unwrap_or(0);
                    let n = d
                        .operands
                        .get(1)
                        .and_then(id)
                        .and_then(|x| l.m.constant_u32(x))
                        .unwrap_or(0);
                    if n > 256 {
                        return Err(Error::Unsupported(format!(
                            "a whole array of {n} elements stored to memory holding 8- or 16-bit integers: store its elements"
                        )));
                    }
                    let stride = l.array_stride(ty)?;
                    (0..n).map(|k| (k * stride, elem, mstride)).collect()
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
            };
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

/// Types holding narrow integers keep no layout decorations: their values
/// now live in registers only (32 bits per narrow integer), and naga would
/// read the declared offsets as overlapping members.
fn strip_layout(m: &mut Model, narrow: &HashMap<Word, u32>) {
    let holding: HashSet<Word> = m
        .module()
        .types_global_values
        .iter()
        .filter_map(|t| t.result_id)
        .filter(|&t| !narrow.contains_key(&t) && holds_narrow(m, narrow, t, 0))
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
