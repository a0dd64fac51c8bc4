//! Whole copies of structs and arrays that hold memory used atomically
//! (`Node n = nodes[i];`, `nodes[j] = n;` where `atomicAdd(nodes[k].count,
//! 1u)` is elsewhere): naga gives the atomically used members atomic types,
//! and WGSL copies no atomics as values. Each such load or store becomes
//! one per member, recursively: `atomicLoad`/`atomicStore` for the members
//! atomics use, plain loads and stores for the rest.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::spirv::{Op, StorageClass, Word};

use crate::lower::model::{Emit, Model, id, is_atomic, with_ids};
use crate::{Error, Result};

/// The most elements of an array copied element by element.
const MAX_ELEMENTS: u32 = 256;

/// Which parts of which types atomics use: a struct's member, or (`None`)
/// every element of an array type.
pub(crate) type AtomicParts = HashSet<(Word, Option<u32>)>;

/// Every aggregate type on the access path of an atomic, and the parts
/// atomics use.
pub(crate) fn atomic_paths(m: &Model) -> (HashSet<Word>, AtomicParts) {
    let mut containers = HashSet::default();
    let mut parts = HashSet::default();
    for inst in m.instructions() {
        if !is_atomic(inst.class.opcode) {
            continue;
        }
        let mut ptr = inst.operands.first().and_then(id).unwrap_or(0);
        let mut last = true;
        for _ in 0..64 {
            let Some(def) = m.def(ptr) else { break };
            if !matches!(def.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                break;
            }
            let Ok(Some((_, path, _))) = m.chain_path(def) else {
                break;
            };
            containers.extend(path.iter().map(|(ty, _)| *ty));
            if last && let Some(&(ty, index)) = path.last() {
                let member = match m.global(ty).map(|t| t.class.opcode) {
                    Some(Op::TypeStruct) => m.constant_u32(index),
                    _ => None,
                };
                parts.insert((ty, member));
            }
            last = false;
            ptr = def.operands.first().and_then(id).unwrap_or(0);
        }
    }
    (containers, parts)
}

/// Whether memory of `class` is what atomics act on (a function's own
/// variables keep their plain types, and copy whole).
fn shared(class: StorageClass) -> bool {
    matches!(
        class,
        StorageClass::StorageBuffer | StorageClass::Uniform | StorageClass::Workgroup
    )
}

/// The parts of an aggregate type: (index, type), for structs and sized arrays.
fn parts_of(m: &Model, ty: Word) -> Option<Vec<(u32, Word)>> {
    let t = m.global(ty)?;
    match t.class.opcode {
        Op::TypeStruct => Some(
            t.operands
                .iter()
                .filter_map(id)
                .enumerate()
                .map(|(k, c)| (k as u32, c))
                .collect(),
        ),
        Op::TypeArray => {
            let e = t.operands.first().and_then(id)?;
            let n = t
                .operands
                .get(1)
                .and_then(id)
                .and_then(|l| m.constant_u32(l))?;
            (n <= MAX_ELEMENTS).then(|| (0..n).map(|k| (k, e)).collect())
        }
        _ => None,
    }
}

/// Makes whole loads and stores of aggregates holding atomically used
/// memory member-wise; returns how many.
pub fn member_wise_copies(m: &mut Model) -> Result<usize> {
    let (containers, atomic) = atomic_paths(m);
    if containers.is_empty() {
        return Ok(0);
    }
    // The copies to rewrite, and every pointer type their parts need.
    let mut copied: Vec<(StorageClass, Word)> = Vec::new();
    for inst in m.instructions() {
        if !matches!(inst.class.opcode, Op::Load | Op::Store) {
            continue;
        }
        let Some(p) = inst.operands.first().and_then(id) else {
            continue;
        };
        if let Some((class, pointee)) = m.pointee(p)
            && shared(class)
            && containers.contains(&pointee)
        {
            copied.push((class, pointee));
        }
    }
    if copied.is_empty() {
        return Ok(0);
    }
    let mut pointers: HashMap<(StorageClass, Word), Word> = HashMap::default();
    let mut todo = copied.clone();
    while let Some((class, ty)) = todo.pop() {
        for (_, part) in parts_of(m, ty).unwrap_or_default() {
            if let std::collections::hash_map::Entry::Vacant(v) = pointers.entry((class, part)) {
                v.insert(m.pointer_to(class, part));
                todo.push((class, part));
            }
        }
    }
    let uint = m.uint();
    let n = m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        if !matches!(op, Op::Load | Op::Store) {
            return Ok(false);
        }
        let Some(p) = inst.operands.first().and_then(id) else {
            return Ok(false);
        };
        let Some((class, pointee)) =
            e.m.pointee(p)
                .filter(|(c, t)| shared(*c) && containers.contains(t))
        else {
            return Ok(false);
        };
        let copy = Copy {
            class,
            uint,
            atomic: &atomic,
            pointers: &pointers,
        };
        if op == Op::Load {
            let v = copy.load(e, p, pointee, false, 0)?;
            e.push(with_ids(
                Op::CopyObject,
                inst.result_type,
                inst.result_id,
                &[v],
            ));
        } else {
            let value = inst.operands.get(1).and_then(id).unwrap_or(0);
            copy.store(e, p, pointee, false, value, 0)?;
        }
        Ok(true)
    })?;
    Ok(n)
}

/// What a member-wise copy needs.
struct Copy<'a> {
    class: StorageClass,
    uint: Word,
    atomic: &'a AtomicParts,
    pointers: &'a HashMap<(StorageClass, Word), Word>,
}

impl Copy<'_> {
    fn scope(&self, e: &mut Emit) -> Word {
        let s = if self.class == StorageClass::Workgroup {
            2
        } else {
            1
        };
        e.constant(self.uint, s)
    }

    /// The parts of `ty` with whether atomics use each, and pointers to them.
    fn parts(&self, e: &mut Emit, p: Word, ty: Word) -> Result<Vec<(Word, Word, bool)>> {
        let parts = parts_of(e.m, ty).ok_or_else(|| {
            Error::Unsupported(format!(
                "a whole copy of `{}`, which holds memory used atomically, through a runtime-sized array or one of more than {MAX_ELEMENTS} elements: copy its members one by one",
                e.m.name(ty).unwrap_or("a struct or array")
            ))
        })?;
        let is_struct =
            e.m.global(ty)
                .is_some_and(|t| t.class.opcode == Op::TypeStruct);
        let mut out = Vec::new();
        for (k, part) in parts {
            let used = self
                .atomic
                .contains(&(ty, if is_struct { Some(k) } else { None }));
            let index = e.constant(self.uint, u64::from(k));
            let ptr_ty = self.pointers[&(self.class, part)];
            let chain = e.op(Op::AccessChain, ptr_ty, &[p, index]);
            out.push((chain, part, used));
        }
        Ok(out)
    }

    fn load(&self, e: &mut Emit, p: Word, ty: Word, atomic: bool, depth: u32) -> Result<Word> {
        if depth > 16 {
            return Err(Error::Unsupported("a whole copy nested too deep".into()));
        }
        if parts_of(e.m, ty).is_none()
            || !matches!(e.m.op_of(ty), Some(Op::TypeStruct | Op::TypeArray))
        {
            return Ok(if atomic {
                let s = self.scope(e);
                let zero = e.constant(self.uint, 0);
                e.op(Op::AtomicLoad, ty, &[p, s, zero])
            } else {
                e.op(Op::Load, ty, &[p])
            });
        }
        let mut values = Vec::new();
        for (chain, part, used) in self.parts(e, p, ty)? {
            values.push(self.load(e, chain, part, used || atomic, depth + 1)?);
        }
        Ok(e.op(Op::CompositeConstruct, ty, &values))
    }

    fn store(
        &self,
        e: &mut Emit,
        p: Word,
        ty: Word,
        atomic: bool,
        value: Word,
        depth: u32,
    ) -> Result<()> {
        if depth > 16 {
            return Err(Error::Unsupported("a whole copy nested too deep".into()));
        }
        if parts_of(e.m, ty).is_none()
            || !matches!(e.m.op_of(ty), Some(Op::TypeStruct | Op::TypeArray))
        {
            if atomic {
                let s = self.scope(e);
                let zero = e.constant(self.uint, 0);
                e.push(with_ids(Op::AtomicStore, None, None, &[p, s, zero, value]));
            } else {
                e.push(with_ids(Op::Store, None, None, &[p, value]));
            }
            return Ok(());
        }
        for (k, (chain, part, used)) in self.parts(e, p, ty)?.into_iter().enumerate() {
            let v = e.extract(part, value, k as u32);
            self.store(e, chain, part, used || atomic, v, depth + 1)?;
        }
        Ok(())
    }
}
