//! Buffer references (`GL_EXT_buffer_reference`) as offsets into one
//! arena buffer, addressed as words with [`crate::lower::memory::words`]'
//! machinery.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::memory::words::*;
use crate::lower::model::{Emit, FreeBindings, Model, id, is_atomic, with_ids};
use crate::lower::spirv::float::{HalfAtomic, WordLoops};
use crate::{Error, Result};

/// A pointer through a buffer reference: its byte offset in the arena, its
/// pointee, the column stride its member declares, and its guard (see
/// [`Target::guard`]).
type RefPointer = (Off, Word, Option<super::words::Major>, (Word, Word, Word));

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
///
/// With `one_view` (the WebGPU target, which binds a written buffer once
/// per dispatch) the arena is the only view: where anything through a
/// reference is atomic or stored below a word, every access to the arena
/// is (`atomicLoad` and `atomicStore` for plain ones), and atomics that
/// need elements other than `uint` (signed min/max, floats, 64-bit) are
/// refused.
pub fn buffer_references(
    m: &mut Model,
    one_view: bool,
) -> Result<(Vec<crate::lower::Alias>, WordLoops)> {
    let refs = reference_pointer_types(m);
    if refs.is_empty() {
        // A reference type the shader declared but never used is gone with
        // the unused globals; what declared the addressing goes too.
        logical_addressing(m);
        return Ok((Vec::new(), WordLoops::default()));
    }
    let narrow = narrow_widths(m);
    let uint = m.uint();
    let ulong = m.int_type(64, false);
    let boolean = m.bool_type();
    let Views {
        arena,
        atomic_arena,
        aliases,
        views,
    } = arena_views(m, uint, one_view)?;
    let mut halves: Vec<HalfAtomic> = Vec::new();
    let target = Target {
        class: StorageClass::StorageBuffer,
        block: false,
        atomic: one_view && atomic_through_references(m, &narrow, &refs),
        ordered: false,
        word_ptr: m.pointer_to(StorageClass::StorageBuffer, uint),
        guard: None,
        atomic_view: (!one_view).then_some(atomic_arena),
    };
    let consts = Consts::new(m, Some(ulong));
    let mut ptrs: HashMap<Word, RefPointer> = HashMap::default();
    let root = |e: &mut Emit, p: Word| reference_root(e, &consts, arena, boolean, p);
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
                let t = Target { guard: Some(guard), ..target };
                atomic_through_reference(e, &layout, &consts, inst, (off, ty), t, &views, &mut halves)
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
                reference_bitcast(e, inst, is_ref(e, first), uint, ulong)
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
    references_become_u64(m, &refs);
    // The atomic views bind the buffer given for the arena.
    let stores = consts.stores.take();
    Ok((aliases, WordLoops { halves, stores }))
}

/// Where a reference value `p` (not a chain) is used as a pointer: its
/// offset into the arena and its guard (valid, read slot, write slot),
/// computed at the use.
fn reference_root(
    e: &mut Emit,
    c: &Consts,
    arena: Word,
    boolean: Word,
    p: Word,
) -> (Off, (Word, Word, Word)) {
    let (uint, ulong) = (c.uint, c.ulong.unwrap_or(c.uint));
    // In 32-bit halves: the address's high word must be the base's
    // (ARENA_BASE is 2^32) and its low word the offset, below the
    // reserved words.
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
}

/// An atomic through a reference, at `off` on a value of type `ty`: on the
/// arena's view of its type (a half's on its word, the float pass's loop).
#[allow(clippy::too_many_arguments)]
fn atomic_through_reference(
    e: &mut Emit,
    layout: &Layout,
    consts: &Consts,
    inst: &Instruction,
    (off, ty): (Off, Word),
    target: Target,
    views: &HashMap<Word, (Word, Word)>,
    halves: &mut Vec<HalfAtomic>,
) -> Result<bool> {
    let Some(kind) = atomic_view_type(e.m, inst) else {
        return Err(Error::Unsupported(format!(
            "Op{:?} through a buffer reference on a value of {} bytes: atomics take 32- and 64-bit integers and floats and halfs",
            inst.class.opcode,
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
    let t = Target {
        word_ptr: view_ptr,
        ..target
    };
    let ptr = if wide {
        element_pointer_64(e, consts, view_var, t, off)
    } else {
        word_pointer(e, consts, view_var, t, off, true)
    };
    let half = layout.scalar_bytes(ty) == 2;
    match kind {
        ViewType::Int(..) if !half => atomic_on_word(e, element.unwrap_or(consts.uint), inst, ptr),
        // The float pass makes these loops: a half's on its
        // word, a float's and a double's on their bits.
        _ => {
            let mut out = inst.clone();
            out.operands[0] = Operand::IdRef(ptr);
            // The shift before the atomic: its loop uses it.
            if half {
                let shift = bit_shift(e, consts, off);
                halves.push(HalfAtomic {
                    result: inst.result_id.unwrap_or(0),
                    shift,
                });
            }
            e.push(out);
        }
    }
    Ok(true)
}

/// A bitcast between a reference and a `uvec2`
/// (GL_EXT_buffer_reference_uvec2), or between references: `from_reference`
/// says which way.
fn reference_bitcast(
    e: &mut Emit,
    inst: &Instruction,
    from_reference: bool,
    uint: Word,
    ulong: Word,
) -> Result<bool> {
    let first = inst.operands.first().and_then(id).unwrap_or(0);
    // `uvec2` <-> reference (GL_EXT_buffer_reference_uvec2).
    let uvec2 = if from_reference {
        inst.result_type.unwrap_or(0)
    } else {
        e.m.result_type(first).unwrap_or(0)
    };
    if e.m.global(uvec2).map(|t| t.class.opcode) != Some(Op::TypeVector) {
        e.push(with_ids(
            Op::CopyObject,
            inst.result_type,
            inst.result_id,
            &[first],
        ));
        return Ok(true);
    }
    let s = e.constant(uint, 32);
    if from_reference {
        let lo = e.op(Op::UConvert, uint, &[first]);
        let hi = e.op(Op::ShiftRightLogical, ulong, &[first, s]);
        let hi = e.op(Op::UConvert, uint, &[hi]);
        e.push(with_ids(
            Op::CompositeConstruct,
            inst.result_type,
            inst.result_id,
            &[lo, hi],
        ));
    } else {
        let lo = e.extract(uint, first, 0);
        let hi = e.extract(uint, first, 1);
        let lo = e.op(Op::UConvert, ulong, &[lo]);
        let hi = e.op(Op::UConvert, ulong, &[hi]);
        let hi = e.op(Op::ShiftLeftLogical, ulong, &[hi, s]);
        e.push(with_ids(
            Op::BitwiseOr,
            inst.result_type,
            inst.result_id,
            &[lo, hi],
        ));
    }
    Ok(true)
}

/// The arena and its views, and the aliases that bind them all to the
/// arena's buffer.
struct Views {
    arena: Word,
    atomic_arena: Word,
    aliases: Vec<crate::lower::Alias>,
    /// By element type: the view and the pointer type to its elements.
    views: HashMap<Word, (Word, Word)>,
}

/// The pointer types into physical storage buffers: buffer references.
fn reference_pointer_types(m: &Model) -> HashSet<Word> {
    m.module()
        .types_global_values
        .iter()
        .filter(|t| {
            t.class.opcode == Op::TypePointer
                && t.operands.first()
                    == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
        })
        .filter_map(|t| t.result_id)
        .collect()
}

/// Whether an atomic, or a store of a type holding 8- or 16-bit integers,
/// goes through a buffer reference (a pointer of a type of `refs`): then
/// the arena's words are atomic.
fn atomic_through_references(m: &Model, narrow: &HashMap<Word, u32>, refs: &HashSet<Word>) -> bool {
    let through_reference = |p: Option<Word>| {
        p.and_then(|p| m.result_type(p))
            .is_some_and(|t| refs.contains(&t))
    };
    m.instructions().any(|i| {
        let p = i.operands.first().and_then(id);
        match i.class.opcode {
            op if is_atomic(op) => through_reference(p),
            Op::Store => {
                through_reference(p)
                    && p.and_then(|p| m.pointee(p))
                        .is_some_and(|(_, t)| holds_narrow(m, narrow, t, 0))
            }
            _ => false,
        }
    })
}

/// The arena: `struct { uint words[]; }`, at a free binding of set 0, and
/// a second view of the same buffer at the next, for atomics (and sub-word
/// stores), so that plain loads and stores stay plain; then one view per
/// other type the atomics through references use. With `one_view`, the
/// arena alone, whose words serve the `uint` atomics too; an atomic
/// needing another view is refused.
fn arena_views(m: &mut Model, uint: Word, one_view: bool) -> Result<Views> {
    let mut free = m.free_bindings();
    let (arena, arena_binding) = arena_view(m, &mut free, ARENA, uint)?;
    let (atomic_arena, mut aliases) = if one_view {
        (arena, Vec::new())
    } else {
        let (atomic_arena, atomic_binding) =
            arena_view(m, &mut free, &format!("{ARENA}_atomic"), uint)?;
        let alias = crate::lower::Alias {
            group: 0,
            binding: atomic_binding,
            of: arena_binding,
        };
        (atomic_arena, vec![alias])
    };
    // The other views the atomics through references need, by element type.
    let mut views: HashMap<Word, (Word, Word)> = HashMap::default();
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
        if one_view {
            let what = match w {
                ViewType::Int(32, true) => "a signed atomicMin or atomicMax",
                ViewType::Int(..) => "a 64-bit atomic",
                ViewType::Float(_) => "a float atomic",
            };
            return Err(Error::Unsupported(format!(
                "{what} through a buffer reference: WebGPU binds the memory behind references once, as `uint` words, and this atomic needs elements of another type (make it an unsigned 32-bit atomic, or translate for a native target)"
            )));
        }
        let suffix = match w {
            ViewType::Int(32, true) => "int",
            ViewType::Int(64, false) => "ulong",
            ViewType::Int(64, true) => "long",
            ViewType::Float(64) => "double",
            _ => "float",
        };
        let (var, binding) = arena_view(m, &mut free, &format!("{ARENA}_{suffix}"), ty)?;
        aliases.push(crate::lower::Alias {
            group: 0,
            binding,
            of: arena_binding,
        });
        views.insert(ty, (var, m.pointer_to(StorageClass::StorageBuffer, ty)));
    }
    Ok(Views {
        arena,
        atomic_arena,
        aliases,
        views,
    })
}

/// One view of the arena's buffer: a storage buffer of `element`s named
/// `name`, at the next free binding of set 0.
fn arena_view(
    m: &mut Model,
    free: &mut FreeBindings,
    name: &str,
    element: Word,
) -> Result<(Word, u32)> {
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
}

/// After the rewrite: the types behind references lose a layout WGSL
/// cannot place, reference types become `uint64_t`, and the module has
/// Logical addressing.
fn references_become_u64(m: &mut Model, refs: &HashSet<Word>) {
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
    strip_layout(m, &HashMap::default(), &misplaced_only_behind);
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
    module.annotations.retain(|a| {
        !matches!(
            a.operands.get(1),
            Some(Operand::Decoration(
                Decoration::AliasedPointer | Decoration::RestrictPointer
            ))
        )
    });
    logical_addressing(m);
}

/// Whether the module has a buffer reference type (a pointer into
/// PhysicalStorageBuffer memory).
pub(crate) fn has_reference_types(m: &Model) -> bool {
    m.module().types_global_values.iter().any(|t| {
        t.class.opcode == Op::TypePointer
            && t.operands.first()
                == Some(&Operand::StorageClass(StorageClass::PhysicalStorageBuffer))
    })
}

/// The module's addressing made Logical, without the capability and
/// extensions of physical addresses: no reference types are left.
pub(crate) fn logical_addressing(m: &mut Model) {
    if let Some(mm) = m.memory_model_mut()
        && let Some(Operand::AddressingModel(a)) = mm.operands.get_mut(0)
    {
        *a = rspirv::spirv::AddressingModel::Logical;
    }
    m.drop_capabilities(
        &[rspirv::spirv::Capability::PhysicalStorageBufferAddresses],
        &[
            "SPV_KHR_physical_storage_buffer",
            "SPV_EXT_physical_storage_buffer",
        ],
    );
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
