//! Memory WGSL cannot type, addressed as 32-bit words: storage buffers,
//! uniform blocks and shared memory holding 8- or 16-bit integers,
//! buffers laid out where WGSL's rules cannot place their members (scalar
//! layout's `vec3` arrays of stride 12 or a `vec3` at offset 4, std140's
//! `mat2` with 16-byte columns), and `volatile` buffers, whose every
//! access becomes an atomic read-modify-write of its words.
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

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::{Emit, Model, id, is_atomic, with_ids};
use crate::lower::spirv::float::{HalfAtomic, MaskedStore, WordLoops};
use crate::lower::spirv::halfs::{PACK_HALF_2X16, UNPACK_HALF_2X16};
use crate::{Error, Result};

pub use crate::lower::memory::declared::DeclaredMember;
use crate::lower::memory::declared::declared_members;
pub(super) use crate::lower::memory::declared::{laid_out_wrongly, reachable_types, strip_layout};
pub(super) use crate::lower::memory::layout::{
    Layout, Major, holds_narrow, member_major, misplaced, narrow_widths, uniform_block, wide_values,
};

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
    /// The other blocks declared at this binding and served by its words
    /// (the WebGPU target binds a buffer once): their GLSL instance and
    /// block names, by which the host may bind it too.
    pub also: Vec<String>,
}

/// Each variable of `vars` retyped as words -> the words it is addressed
/// in (its own, or for a block served by another, that one's) and its own
/// type. A class's words are atomic, ordered or writable where any of its
/// blocks' are.
fn word_targets(
    m: &mut Model,
    narrow: &HashMap<Word, u32>,
    vars: &[(Word, StorageClass, Word)],
    served_by: &HashMap<Word, Word>,
    ordered: &HashSet<Word>,
) -> Result<HashMap<Word, (Target, Word)>> {
    let atomic = atomic_words(m, narrow, vars, served_by);
    let first = |v: Word| *served_by.get(&v).unwrap_or(&v);
    let any_of = |m: &Model, var: Word, test: &dyn Fn(&Model, Word) -> bool| {
        vars.iter().any(|&(v, _, _)| first(v) == var && test(m, v))
    };
    let mut targets: HashMap<Word, (Target, Word)> = HashMap::default();
    for &(var, class, pointee) in vars {
        if first(var) != var {
            continue;
        }
        let kind = (
            atomic.contains(&var),
            any_of(m, var, &|_, v| ordered.contains(&v)),
            any_of(m, var, &|m, v| {
                m.pointee(v).is_some_and(|(_, t)| !read_only(m, t))
            }),
        );
        let target = retype_as_words(m, narrow, (var, class, pointee), kind)?;
        targets.insert(var, (target, pointee));
    }
    for &(var, _, pointee) in vars {
        if first(var) != var {
            let target = targets[&first(var)].0;
            targets.insert(var, (target, pointee));
        }
    }
    Ok(targets)
}

/// The variables of `vars` whose words are atomic: those a sub-word store
/// or an atomic reaches (for a block served by another, that one).
fn atomic_words(
    m: &Model,
    narrow: &HashMap<Word, u32>,
    vars: &[(Word, StorageClass, Word)],
    served_by: &HashMap<Word, Word>,
) -> HashSet<Word> {
    let targets: HashSet<Word> = vars.iter().map(|v| v.0).collect();
    let mut atomic = HashSet::default();
    for inst in m.instructions() {
        let ptr = match inst.class.opcode {
            Op::Store => inst.operands.first().and_then(id),
            op if is_atomic(op) => inst.operands.first().and_then(id),
            _ => None,
        };
        let Some(ptr) = ptr else { continue };
        let var = root(m, ptr);
        if !targets.contains(&var) {
            continue;
        }
        let stored = m.pointee(ptr).map(|p| p.1).unwrap_or(0);
        if is_atomic(inst.class.opcode) || holds_narrow(m, narrow, stored, 0) {
            atomic.insert(*served_by.get(&var).unwrap_or(&var));
        }
    }
    atomic
}

/// The buffers of `vars` made words, for the binding map: each class of
/// `shared` once, at its first block, naming the others.
fn word_blocks(
    m: &Model,
    narrow: &HashMap<Word, u32>,
    vars: &[(Word, StorageClass, Word)],
    shared: &[Vec<Word>],
) -> Result<Vec<WordBlock>> {
    let secondary = |v: Word| shared.iter().any(|class| class[1..].contains(&v));
    let mut blocks = Vec::new();
    for &(var, class, pointee) in vars {
        if class == StorageClass::Workgroup || secondary(var) {
            continue;
        }
        let (group, binding) = m.slot(var);
        let layout = Layout { m, narrow };
        // In declaration order, so that every translation names them alike.
        let also = shared
            .iter()
            .filter(|class| class[0] == var)
            .flat_map(|class| &class[1..])
            .flat_map(|&v| {
                // A block is bound by its instance name or its type's.
                let instance = m.name(v).filter(|n| !n.is_empty());
                let block = m.pointee(v).and_then(|(_, t)| m.name(t));
                [instance, block.filter(|b| Some(*b) != instance)]
            })
            .flatten()
            .map(str::to_string)
            .collect();
        blocks.push(WordBlock {
            group,
            binding,
            members: declared_members(&layout, pointee)?,
            also,
        });
    }
    Ok(blocks)
}

/// A byte offset: known, or computed at run time.
#[derive(Clone, Copy, Debug)]
pub(super) enum Off {
    Const(u32),
    Dyn(Word),
}

/// One variable made words: its storage class and whether its words are
/// accessed atomically.
#[derive(Clone, Copy, Debug)]
pub(super) struct Target {
    pub(super) class: StorageClass,
    /// A uniform block: words read as `uvec4`s.
    pub(super) block: bool,
    pub(super) atomic: bool,
    /// Every access a read-modify-write (a `volatile` buffer): a load adds
    /// 0, a store exchanges, so that no backend reuses a value loaded
    /// before or moves the access across the shader's own atomics.
    pub(super) ordered: bool,
    /// The pointer type to one word (`uvec4` in a uniform block).
    pub(super) word_ptr: Word,
    /// For an access through a buffer reference: whether its address is in
    /// the arena, and the reserved words an access outside it reads (never
    /// written: 0) and writes.
    pub(super) guard: Option<(Word, Word, Word)>,
    /// A second view of the same words for atomics and sub-word stores,
    /// when `var` itself is read and written plainly (the arena's).
    pub(super) atomic_view: Option<Word>,
}

/// The variable an access chain (of chains) starts at.
pub(crate) fn root(m: &Model, mut p: Word) -> Word {
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

/// Whether every member of block `pointee` is `readonly`.
fn read_only(m: &Model, pointee: Word) -> bool {
    m.global(pointee).is_some_and(|t| {
        (0..t.operands.len() as u32).all(|k| {
            m.member_decoration(pointee, k, Decoration::NonWritable)
                .is_some()
        })
    })
}

/// Retypes `var` (of `class`, holding `pointee`) as words: an array of
/// `uint` (a runtime-sized one in a storage buffer, `uvec4`s in a uniform
/// block) at its own binding, with the block's decorations and name.
fn retype_as_words(
    m: &mut Model,
    narrow: &HashMap<Word, u32>,
    (var, class, pointee): (Word, StorageClass, Word),
    (atomic, ordered, writable): (bool, bool, bool),
) -> Result<Target> {
    let uint = m.uint();
    let uvec4 = m.vector_type(uint, 4);
    let layout = Layout { m, narrow };
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
        if !writable {
            m.member_decorate(new_ty, 0, Decoration::NonWritable, &[]);
        }
        let name = m.name(pointee).unwrap_or("Words").to_string();
        m.set_name(new_ty, name);
        m.set_member_name(new_ty, 0, "words");
    }
    let ptr = m.pointer_to(class, new_ty);
    m.set_result_type(var, ptr);
    Ok(Target {
        class,
        block,
        atomic: atomic || ordered,
        ordered,
        word_ptr,
        guard: None,
        atomic_view: None,
    })
}

/// Makes every storage buffer, uniform block and shared variable holding
/// 8- or 16-bit integers, every buffer laid out where WGSL cannot place
/// its members, and every writable buffer among `volatile` (the variables
/// the shader declared so) an array of words; returns the buffers, with
/// the members they declared.
///
/// A volatile buffer's words are accessed by read-modify-writes only:
/// core WGSL has no volatile access, and `@volatile` (where a device has
/// it) neither orders plain accesses against the atomics of a lock that
/// guards them nor exists off Vulkan and GL, so a critical section's
/// updates were lost on llvmpipe's GL. An atomic read-modify-write is
/// never served from a copy, and no compiler moves one across another.
///
/// Each class of `shared` (buffer blocks declared at one binding, the one
/// keeping it first) becomes one array of words at the first's binding,
/// which every block of the class addresses at its own declared layout;
/// the others are gone. WebGPU binds a buffer once per dispatch where a
/// binding writes it, so this is how the WebGPU target serves aliased
/// blocks (a raw `uint` view beside a `uint8_t` one) from one binding.
/// The words are atomic where any block's are.
pub fn word_addressed_memory(
    m: &mut Model,
    volatile: &[Word],
    shared: &[Vec<Word>],
) -> Result<(Vec<WordBlock>, WordLoops)> {
    let narrow = narrow_widths(m);
    // Each block of a class -> the class's first block.
    let served_by: HashMap<Word, Word> = shared
        .iter()
        .flat_map(|class| class.iter().map(move |&v| (v, class[0])))
        .collect();
    let ordered: HashSet<Word> = m
        .variables()
        .filter(|&(v, class, pointee)| {
            volatile.contains(&v)
                && matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform)
                && !uniform_block(m, class, pointee)
                && !read_only(m, pointee)
        })
        .map(|v| v.0)
        .collect();
    let vars: Vec<(Word, StorageClass, Word)> = m
        .variables()
        .filter(|&(v, class, pointee)| match class {
            StorageClass::Workgroup => holds_narrow(m, &narrow, pointee, 0),
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                ordered.contains(&v)
                    || served_by.contains_key(&v)
                    || holds_narrow(m, &narrow, pointee, 0)
                    || misplaced(m, pointee, uniform_block(m, class, pointee), 0)
            }
            _ => false,
        })
        .collect();
    if vars.is_empty() {
        strip_layout(m, &narrow, &HashSet::default());
        return Ok((Vec::new(), WordLoops::default()));
    }
    let blocks = word_blocks(m, &narrow, &vars, shared)?;
    let targets = word_targets(m, &narrow, &vars, &served_by, &ordered)?;
    let first = |v: Word| *served_by.get(&v).unwrap_or(&v);
    let mut ptrs: HashMap<Word, (Word, Off, Word, Option<Major>)> = targets
        .iter()
        .map(|(&v, &(_, pointee))| (v, (first(v), Off::Const(0), pointee, None)))
        .collect();
    let ulong = wide_values(m).then(|| m.int_type(64, false));
    let consts = Consts::new(m, ulong);
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
                    "in memory atomport addresses as 32-bit words",
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
                let place = ptrs[&first.unwrap_or(0)];
                atomic_on_place(e, &layout, &consts, inst, place, targets[&place.0].0, &mut halves)
            }
            Op::ArrayLength if first.is_some_and(|p| targets.contains_key(&p)) => {
                let var = first.unwrap_or(0);
                let words = *served_by.get(&var).unwrap_or(&var);
                array_length(e, &layout, &consts, inst, words, targets[&var].1)
            }
            _ => {
                if let Some(p) = inst.operands.iter().filter_map(id).find(|p| ptrs.contains_key(p)) {
                    let var = ptrs[&p].0;
                    let why = if targets[&var].0.ordered {
                        "is volatile"
                    } else if holds_narrow(e.m, &narrow, targets[&var].1, 0) {
                        "holds 8- or 16-bit integers"
                    } else {
                        "is laid out where WGSL cannot place its members"
                    };
                    return Err(Error::Unsupported(format!(
                        "`{}` {why}, so atomport addresses it as 32-bit words, and Op{op:?} takes a pointer into it: load and store its members instead",
                        memory_name(e.m, var)
                    )));
                }
                Ok(false)
            }
        }
    })?;
    // The blocks served by another's words are gone.
    m.remove_globals(|v| served_by.get(&v).is_some_and(|&f| f != v));
    // The types only the replaced variables laid out lose their layout too.
    let replaced: HashSet<Word> = vars
        .iter()
        .filter(|v| v.1 != StorageClass::Workgroup)
        .flat_map(|&(_, class, pointee)| {
            laid_out_wrongly(m, pointee, uniform_block(m, class, pointee))
        })
        .collect();
    strip_layout(m, &narrow, &replaced);
    let stores = consts.stores.take();
    Ok((blocks, WordLoops { halves, stores }))
}

/// The GLSL name of variable `var`: its own, or its block's.
pub(super) fn memory_name(m: &Model, var: Word) -> &str {
    m.name(var)
        .filter(|n| !n.is_empty())
        .or_else(|| m.pointee(var).and_then(|(_, t)| m.name(t)))
        .unwrap_or("?")
}

/// Follows access-chain `indices` from `(offset, type, matrix layout)` at
/// the declared layout; `place` names the memory in messages. The matrix
/// layout is the one the last struct member passed declared, kept down to
/// the matrix and, for a row-major one, to its column (whose components
/// lie a row apart).
pub(super) fn walk(
    e: &mut Emit,
    layout: &Layout,
    c: &Consts,
    (mut off, mut ty, mut major): (Off, Word, Option<Major>),
    indices: impl Iterator<Item = Word>,
    place: &str,
) -> Result<(Off, Word, Option<Major>)> {
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
                major = member_major(layout.m, ty, k).or(major);
                ty = t.operands.get(k as usize).and_then(id).unwrap_or(0);
                continue;
            }
            Op::TypeArray | Op::TypeRuntimeArray => layout.array_stride(ty)?,
            Op::TypeVector => match major {
                Some(Major::Rows(s)) => s,
                _ => layout.scalar_bytes(element),
            },
            Op::TypeMatrix => match major {
                Some(Major::Columns(s)) => s,
                // A column of a row-major matrix starts one scalar on.
                Some(Major::Rows(_)) => layout.component_bytes(element),
                None => {
                    return Err(Error::Unsupported(format!(
                        "a matrix without a column stride {place}"
                    )));
                }
            },
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
    Ok((off, ty, major))
}

/// The parts of composite `ty` (defined by `d`) as (offset, type, matrix
/// layout), at the declared layout; `verb` says whether they are loaded
/// or stored, for messages.
pub(super) fn parts(
    l: &Layout,
    d: &Instruction,
    ty: Word,
    major: Option<Major>,
    (verb, short): (&str, &str),
) -> Result<Vec<(u32, Word, Option<Major>)>> {
    let count = match d.operands.get(1) {
        Some(Operand::LiteralBit32(n)) => *n,
        _ => 0,
    };
    let first = d.operands.first().and_then(id).unwrap_or(0);
    Ok(match d.class.opcode {
        Op::TypeVector => {
            // A row-major matrix's column: its components a row apart.
            let size = match major {
                Some(Major::Rows(s)) => s,
                _ => l.scalar_bytes(first),
            };
            (0..count).map(|k| (k * size, first, None)).collect()
        }
        Op::TypeMatrix => match major {
            Some(Major::Columns(s)) => (0..count).map(|k| (k * s, first, None)).collect(),
            Some(Major::Rows(_)) => {
                let size = l.component_bytes(first);
                (0..count).map(|k| (k * size, first, major)).collect()
            }
            None => {
                return Err(Error::Unsupported(
                    "a matrix without a column stride in memory atomport addresses as 32-bit words"
                        .into(),
                ));
            }
        },
        Op::TypeArray => {
            let n = d
                .operands
                .get(1)
                .and_then(id)
                .and_then(|x| l.m.constant_u32(x))
                .unwrap_or(0);
            if n > 256 {
                return Err(Error::Unsupported(format!(
                    "a whole array of {n} elements {verb} memory atomport addresses as 32-bit words: {short} its elements"
                )));
            }
            let stride = l.array_stride(ty)?;
            (0..n).map(|k| (k * stride, first, major)).collect()
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
                    member_major(l.m, ty, k as u32),
                ))
            })
            .collect::<Result<_>>()?,
    })
}

/// Emits atomic `inst` on the word `ptr`: its values as `uint` words and
/// its result back in its own type (an `int` atomic on unsigned words).
pub(super) fn atomic_on_word(e: &mut Emit, uint: Word, inst: &Instruction, ptr: Word) {
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

/// An atomic on a place in memory made words: on its word (a half's, a
/// loop on the word, the float pass's).
fn atomic_on_place(
    e: &mut Emit,
    layout: &Layout,
    consts: &Consts,
    inst: &Instruction,
    (var, off, ty, mstride): (Word, Off, Word, Option<Major>),
    target: Target,
    halves: &mut Vec<HalfAtomic>,
) -> Result<bool> {
    let op = inst.class.opcode;
    let half = layout.scalar_bytes(ty) == 2 && e.m.op_of(ty) == Some(Op::TypeFloat);
    match op {
        // Atomic loads and stores of a half are the pass's
        // loads and stores (atomic on atomic words).
        Op::AtomicLoad if half => {
            let v = load(e, layout, consts, var, target, off, ty, mstride, 0)?;
            e.push(with_ids(
                Op::CopyObject,
                inst.result_type,
                inst.result_id,
                &[v],
            ));
            return Ok(true);
        }
        Op::AtomicStore if half => {
            let value = inst.operands.get(3).and_then(id).unwrap_or(0);
            store(e, layout, consts, var, target, off, ty, mstride, value, 0)?;
            return Ok(true);
        }
        // The others, a loop on the word (the float pass's).
        Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT | Op::AtomicExchange if half => {
            let mut out = inst.clone();
            out.operands[0] = Operand::IdRef(word_pointer(e, consts, var, target, off, true));
            let shift = bit_shift(e, consts, off);
            e.push(out);
            halves.push(HalfAtomic {
                result: inst.result_id.unwrap_or(0),
                shift,
            });
            return Ok(true);
        }
        _ => {}
    }
    if layout.scalar_bytes(ty) != 4 {
        return Err(Error::Unsupported(format!(
            "an Op{op:?} on a value that is not 32 bits wide in memory atomport addresses as 32-bit words (`{}`)",
            memory_name(e.m, var)
        )));
    }
    if matches!(op, Op::AtomicSMin | Op::AtomicSMax) {
        return Err(Error::Unsupported(format!(
            "a signed atomicMin/atomicMax in memory atomport addresses as 32-bit words (`{}`): its words are unsigned",
            memory_name(e.m, var)
        )));
    }
    let ptr = word_pointer(e, consts, var, target, off, true);
    atomic_on_word(e, consts.uint, inst, ptr);
    Ok(true)
}

/// `arrayLength` of the runtime-sized member of `var` (holding `pointee`),
/// made words: from the words' length, the member's offset and stride.
fn array_length(
    e: &mut Emit,
    layout: &Layout,
    consts: &Consts,
    inst: &Instruction,
    var: Word,
    pointee: Word,
) -> Result<bool> {
    let k = match inst.operands.get(1) {
        Some(Operand::LiteralBit32(k)) => *k,
        _ => 0,
    };
    let member = layout
        .m
        .global(pointee)
        .and_then(|t| t.operands.get(k as usize))
        .and_then(id)
        .unwrap_or(0);
    let offset = layout.member_offset(pointee, k)?;
    let stride = layout.array_stride(member)?;
    let words = e.fresh();
    e.push(Instruction::new(
        Op::ArrayLength,
        Some(consts.uint),
        Some(words),
        vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
    ));
    let four = e.constant(consts.uint, 4);
    let bytes = e.op(Op::IMul, consts.uint, &[words, four]);
    let o = e.constant(consts.uint, u64::from(offset));
    let rest = e.op(Op::ISub, consts.uint, &[bytes, o]);
    let s = e.constant(consts.uint, u64::from(stride));
    e.push(with_ids(
        Op::UDiv,
        inst.result_type,
        inst.result_id,
        &[rest, s],
    ));
    Ok(true)
}

/// Constants the walk uses.
pub(super) struct Consts {
    pub(super) uint: Word,
    /// `uint64_t`, where the module has 64-bit values (declaring it
    /// otherwise would make naga ask for SHADER_INT64).
    pub(super) ulong: Option<Word>,
    /// For halfs: GLSL.std.450, `float`, `vec2`, `0.0`.
    pub(super) glsl: Word,
    pub(super) float: Word,
    pub(super) vec2: Word,
    pub(super) float_zero: Word,
    pub(super) zero: Word,
    pub(super) two: Word,
    pub(super) three: Word,
    pub(super) eight: Word,
    pub(super) scope_device: Word,
    pub(super) scope_workgroup: Word,
    /// The stores below a word's size made so far, each a loop the float
    /// pass makes.
    pub(super) stores: std::cell::RefCell<Vec<MaskedStore>>,
}

impl Consts {
    /// The constants, found or added; `ulong` where the module has 64-bit
    /// values.
    pub(super) fn new(m: &mut Model, ulong: Option<Word>) -> Consts {
        let float = m.float_type(32);
        Consts {
            uint: m.uint(),
            ulong,
            glsl: m.glsl_std_450(),
            float,
            vec2: m.vector_type(float, 2),
            float_zero: m.constant(float, 0),
            zero: m.uint_constant(0),
            two: m.uint_constant(2),
            three: m.uint_constant(3),
            eight: m.uint_constant(8),
            scope_device: m.uint_constant(1),
            scope_workgroup: m.uint_constant(2),
            stores: Default::default(),
        }
    }
}

pub(super) fn add(e: &mut Emit, c: &Consts, a: Off, b: Off) -> Off {
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
pub(super) fn scaled(e: &mut Emit, c: &Consts, index: Word, stride: u32) -> Off {
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

pub(super) fn value(e: &mut Emit, c: &Consts, o: Off) -> Word {
    match o {
        Off::Const(k) => e.constant(c.uint, u64::from(k)),
        Off::Dyn(v) => v,
    }
}

/// A pointer to the word holding byte `off` (to its `uvec4` in a uniform block).
pub(super) fn word_pointer(
    e: &mut Emit,
    c: &Consts,
    var: Word,
    t: Target,
    off: Off,
    writing: bool,
) -> Word {
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

pub(super) fn scope(c: &Consts, t: Target) -> Word {
    if t.class == StorageClass::Workgroup {
        c.scope_workgroup
    } else {
        c.scope_device
    }
}

/// The word holding byte `off`, as a `uint`.
pub(super) fn load_word(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off) -> Word {
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
    if t.ordered {
        e.op(Op::AtomicIAdd, c.uint, &[ptr, scope(c, t), c.zero, c.zero])
    } else if t.atomic {
        e.op(Op::AtomicLoad, c.uint, &[ptr, scope(c, t), c.zero])
    } else {
        e.op(Op::Load, c.uint, &[ptr])
    }
}

/// Stores `uint` `w` as the word holding byte `off` (atomically in
/// memory whose words are atomic).
pub(super) fn store_word(e: &mut Emit, c: &Consts, var: Word, t: Target, off: Off, w: Word) {
    let ptr = word_pointer(e, c, var, t, off, true);
    if t.ordered {
        e.op(Op::AtomicExchange, c.uint, &[ptr, scope(c, t), c.zero, w]);
    } else if t.atomic {
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
pub(super) fn bit_shift(e: &mut Emit, c: &Consts, off: Off) -> Word {
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
pub(super) fn declared(
    l: &Layout,
    ty: Word,
    depth: u32,
    what: &str,
) -> Result<(Instruction, impl Fn(usize) -> u32 + use<>)> {
    if depth > 16 {
        return Err(Error::Unsupported(
            "a value nested too deep in memory atomport addresses as 32-bit words".into(),
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
pub(super) fn load(
    e: &mut Emit,
    l: &Layout,
    c: &Consts,
    var: Word,
    t: Target,
    off: Off,
    ty: Word,
    mstride: Option<Major>,
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
            let v = e.ext_inst(c.glsl, c.vec2, UNPACK_HALF_2X16, &[bits]);
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
            "a value of Op{:?} ({} bits) in memory atomport addresses as 32-bit words: atomport reads such memory as words and has no rule for it (64-bit values and halfs among them)",
            d.class.opcode,
            lit(0)
        ))),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn store(
    e: &mut Emit,
    l: &Layout,
    c: &Consts,
    var: Word,
    t: Target,
    off: Off,
    ty: Word,
    mstride: Option<Major>,
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
                e.ext_inst(c.glsl, c.uint, PACK_HALF_2X16, &[v])
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
            // The float pass makes it a loop that sets these bits alone.
            let result = e.op(Op::AtomicOr, c.uint, &[ptr, sc, c.zero, set]);
            c.stores.borrow_mut().push(MaskedStore { result, keep });
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
            "a value of Op{:?} ({} bits) in memory atomport addresses as 32-bit words: atomport writes such memory as words and has no rule for it (64-bit values and halfs among them)",
            d.class.opcode,
            lit(0)
        ))),
    }
}
