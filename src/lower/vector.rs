//! SPIR-V pass: atomics on one component of a vector become atomics on an
//! element of an array with the same offsets.
//!
//! naga cannot take the address of a vector component (it panics on
//! `atomicAdd(b.v.y, 1u)`), and WGSL has no atomic vectors. The vector that
//! holds such a component — a struct member, the element type of an array,
//! or a `shared` variable — is retyped from `uvecN` to `uint[N]` (ArrayStride
//! 4 in explicitly laid out memory, so every Offset stays as it was); the
//! access chains into it stay valid, and whole-vector loads and stores of it
//! are rebuilt from / split into the scalars.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::{Error, Result};

/// Where a vector that must become an array sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Site {
    /// Member `index` of struct type `id`.
    Member(Word, u32),
    /// The element type of array (or runtime array) type `id`.
    Element(Word),
    /// The pointee of global variable `id`.
    Variable(Word),
}

/// Rewrites `module`; returns how many vector sites were retyped.
pub fn scalarize_vector_atomics(module: &mut Module) -> Result<usize> {
    let defs = Defs::new(module);
    let mut sites: Vec<(Site, Word, StorageClass)> = Vec::new();
    for inst in all_function_instructions(module) {
        if !is_atomic(inst.class.opcode) {
            continue;
        }
        let Some(Operand::IdRef(ptr)) = inst.operands.first() else {
            continue;
        };
        if let Some(site) = defs.vector_component_site(*ptr)?
            && !sites.iter().any(|s| s.0 == site.0)
        {
            sites.push(site);
        }
    }
    if sites.is_empty() {
        return Ok(0);
    }
    let mut rw = Rewriter::new(module);
    let mut new_arrays: HashMap<Word, Word> = HashMap::new(); // array id -> vector id it replaces
    for (site, vector, class) in &sites {
        // A vec3 in an array keeps its 16-byte stride as a 4-element array
        // (the fourth is the padding it had); elsewhere the length is N and
        // the IR layout pass pads the struct to keep the vector's offset.
        let len = match *site {
            Site::Element(a) => rw.array_stride(a).map(|s| s / 4),
            _ => None,
        };
        let array = rw.array_for(*vector, *class, site_anchor(*site), len)?;
        new_arrays.insert(array, *vector);
        match *site {
            Site::Member(s, k) => rw.set_operand(s, k as usize, array),
            Site::Element(a) => rw.set_operand(a, 0, array),
            Site::Variable(v) => {
                let ptr = rw.pointer_to(*class, array);
                rw.set_result_type(v, ptr);
            }
        }
    }
    rw.retype_access_chains()?;
    rw.rebuild_whole_vector_accesses(&new_arrays)?;
    Ok(sites.len())
}

fn site_anchor(site: Site) -> Word {
    match site {
        Site::Member(id, _) | Site::Element(id) | Site::Variable(id) => id,
    }
}

fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

fn all_function_instructions(module: &Module) -> impl Iterator<Item = &Instruction> {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
}

fn id(op: &Operand) -> Option<Word> {
    match op {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

/// Lookup tables over a module: definitions by id.
struct Defs {
    /// Type and constant definitions, and global variables.
    globals: HashMap<Word, Instruction>,
    /// Access chains and other value-producing instructions in functions.
    locals: HashMap<Word, Instruction>,
}

impl Defs {
    fn new(module: &Module) -> Defs {
        let globals = module
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id.map(|r| (r, i.clone())))
            .collect();
        let locals = module
            .functions
            .iter()
            .flat_map(|f| {
                f.parameters
                    .iter()
                    .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            })
            .filter_map(|i| i.result_id.map(|r| (r, i.clone())))
            .collect();
        Defs { globals, locals }
    }

    fn def(&self, id: Word) -> Option<&Instruction> {
        self.globals.get(&id).or_else(|| self.locals.get(&id))
    }

    fn constant_u32(&self, id: Word) -> Option<u32> {
        let i = self.globals.get(&id)?;
        match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v),
            _ => None,
        }
    }

    /// (storage class, pointee) of a pointer type.
    fn pointer(&self, ty: Word) -> Option<(StorageClass, Word)> {
        let i = self.globals.get(&ty)?;
        if i.class.opcode != Op::TypePointer {
            return None;
        }
        match (&i.operands[0], &i.operands[1]) {
            (Operand::StorageClass(sc), Operand::IdRef(p)) => Some((*sc, *p)),
            _ => None,
        }
    }

    /// If `ptr` points at one component of a vector, where that vector sits.
    fn vector_component_site(&self, ptr: Word) -> Result<Option<(Site, Word, StorageClass)>> {
        let Some(chain) = self.def(ptr) else {
            return Ok(None);
        };
        if !matches!(
            chain.class.opcode,
            Op::AccessChain | Op::InBoundsAccessChain
        ) {
            return Ok(None);
        }
        let base = id(&chain.operands[0]).unwrap_or(0);
        let base_def = self.def(base);
        let Some((class, mut ty)) = base_def
            .and_then(|d| d.result_type)
            .and_then(|t| self.pointer(t))
        else {
            return Ok(None);
        };
        let mut site = match base_def {
            Some(d) if d.class.opcode == Op::Variable && self.globals.contains_key(&base) => {
                Some(Site::Variable(base))
            }
            _ => None,
        };
        let indices: Vec<Word> = chain.operands[1..].iter().filter_map(id).collect();
        for (n, &index) in indices.iter().enumerate() {
            let Some(t) = self.globals.get(&ty) else {
                return Ok(None);
            };
            match t.class.opcode {
                Op::TypeStruct => {
                    let k = self.constant_u32(index).ok_or_else(|| {
                        Error::Internal("a struct index that is not a constant".into())
                    })?;
                    site = Some(Site::Member(ty, k));
                    ty = id(&t.operands[k as usize]).unwrap_or(0);
                }
                Op::TypeArray | Op::TypeRuntimeArray => {
                    site = Some(Site::Element(ty));
                    ty = id(&t.operands[0]).unwrap_or(0);
                }
                Op::TypeVector | Op::TypeMatrix if n + 1 == indices.len() => {
                    if t.class.opcode == Op::TypeMatrix {
                        return Ok(None);
                    }
                    return match site {
                        Some(s) => Ok(Some((s, ty, class))),
                        None => Err(Error::Unsupported(
                            "an atomic on a vector component reached through a pointer that is not a variable"
                                .into(),
                        )),
                    };
                }
                _ => return Ok(None),
            }
        }
        Ok(None)
    }
}

/// Edits a module in place, keeping definitions before their uses.
struct Rewriter<'m> {
    module: &'m mut Module,
}

impl<'m> Rewriter<'m> {
    fn new(module: &'m mut Module) -> Self {
        Rewriter { module }
    }

    fn fresh(&mut self) -> Word {
        let h = self
            .module
            .header
            .as_mut()
            .expect("a loaded module has a header");
        let id = h.bound;
        h.bound += 1;
        id
    }

    fn position(&self, id: Word) -> Option<usize> {
        self.module
            .types_global_values
            .iter()
            .position(|i| i.result_id == Some(id))
    }

    fn global(&self, id: Word) -> Option<&Instruction> {
        self.module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    }

    /// Inserts `inst` just before the global `before`.
    fn insert_before(&mut self, before: Word, inst: Instruction) {
        let at = self
            .position(before)
            .unwrap_or(self.module.types_global_values.len());
        self.module.types_global_values.insert(at, inst);
    }

    fn set_operand(&mut self, target: Word, index: usize, value: Word) {
        if let Some(i) = self
            .module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(target))
        {
            i.operands[index] = Operand::IdRef(value);
        }
    }

    fn set_result_type(&mut self, target: Word, ty: Word) {
        if let Some(i) = self
            .module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(target))
        {
            i.result_type = Some(ty);
        }
    }

    /// A new `scalar[N]` array type standing for `vector`, defined before `anchor`.
    /// The ArrayStride decoration of `array`, if any.
    fn array_stride(&self, array: Word) -> Option<u32> {
        self.module
            .annotations
            .iter()
            .find_map(|a| match (a.class.opcode, a.operands.as_slice()) {
                (
                    Op::Decorate,
                    [
                        Operand::IdRef(t),
                        Operand::Decoration(Decoration::ArrayStride),
                        Operand::LiteralBit32(s),
                    ],
                ) if *t == array => Some(*s),
                _ => None,
            })
    }

    /// A new `scalar[len]` array type standing for `vector` (`len` at least
    /// its size), defined before `anchor`.
    fn array_for(
        &mut self,
        vector: Word,
        class: StorageClass,
        anchor: Word,
        len: Option<u32>,
    ) -> Result<Word> {
        let v = self
            .global(vector)
            .ok_or_else(|| Error::Internal("vector type not found".into()))?;
        let (Some(Operand::IdRef(scalar)), Some(Operand::LiteralBit32(n))) =
            (v.operands.first().cloned(), v.operands.get(1).cloned())
        else {
            return Err(Error::Internal("malformed OpTypeVector".into()));
        };
        let n = len.map_or(n, |l| l.max(n));
        let uint = self.uint_type(anchor);
        let len = self.fresh();
        self.insert_before(
            anchor,
            Instruction::new(
                Op::Constant,
                Some(uint),
                Some(len),
                vec![Operand::LiteralBit32(n)],
            ),
        );
        let array = self.fresh();
        self.insert_before(
            anchor,
            Instruction::new(
                Op::TypeArray,
                None,
                Some(array),
                vec![Operand::IdRef(scalar), Operand::IdRef(len)],
            ),
        );
        if matches!(
            class,
            StorageClass::StorageBuffer
                | StorageClass::Uniform
                | StorageClass::PushConstant
                | StorageClass::PhysicalStorageBuffer
        ) {
            self.module.annotations.push(Instruction::new(
                Op::Decorate,
                None,
                None,
                vec![
                    Operand::IdRef(array),
                    Operand::Decoration(Decoration::ArrayStride),
                    Operand::LiteralBit32(4),
                ],
            ));
        }
        Ok(array)
    }

    /// The id of `OpTypeInt 32 0`, declared before `anchor` (moved there if
    /// it came later: a scalar type depends on nothing) or created.
    fn uint_type(&mut self, anchor: Word) -> Word {
        let found = self.module.types_global_values.iter().position(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        });
        if let Some(at) = found {
            let id = self.module.types_global_values[at].result_id.unwrap_or(0);
            if self.position(anchor).is_some_and(|a| a < at) {
                let inst = self.module.types_global_values.remove(at);
                self.insert_before(anchor, inst);
            }
            return id;
        }
        let id = self.fresh();
        self.insert_before(
            anchor,
            Instruction::new(
                Op::TypeInt,
                None,
                Some(id),
                vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
            ),
        );
        id
    }

    /// The id of `OpTypeInt 32 0`, moved to or created at the start of the types.
    fn uint_type_at_start(&mut self) -> Word {
        let first = self
            .module
            .types_global_values
            .first()
            .and_then(|i| i.result_id);
        match first {
            Some(f) => self.uint_type(f),
            None => {
                let id = self.fresh();
                self.module.types_global_values.push(Instruction::new(
                    Op::TypeInt,
                    None,
                    Some(id),
                    vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
                ));
                id
            }
        }
    }

    /// The pointer type to `pointee` in `class`, created after `pointee` if missing.
    fn pointer_to(&mut self, class: StorageClass, pointee: Word) -> Word {
        let found = self.module.types_global_values.iter().find(|i| {
            i.class.opcode == Op::TypePointer
                && i.operands == [Operand::StorageClass(class), Operand::IdRef(pointee)]
        });
        if let Some(i) = found {
            return i.result_id.unwrap_or(0);
        }
        let id = self.fresh();
        let at = self.position(pointee).map(|p| p + 1).unwrap_or(0);
        self.module.types_global_values.insert(
            at,
            Instruction::new(
                Op::TypePointer,
                None,
                Some(id),
                vec![Operand::StorageClass(class), Operand::IdRef(pointee)],
            ),
        );
        id
    }

    /// Recomputes the result type of every access chain from its base and indices.
    fn retype_access_chains(&mut self) -> Result<()> {
        // Chains may build on chains: process in order, tracking result types.
        let mut result_types: HashMap<Word, Word> = HashMap::new();
        for i in &self.module.types_global_values {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                result_types.insert(r, t);
            }
        }
        let mut fixes: Vec<(usize, usize, usize, StorageClass, Word)> = Vec::new();
        {
            let defs = Defs::new(self.module);
            for (fi, f) in self.module.functions.iter().enumerate() {
                for p in &f.parameters {
                    if let (Some(r), Some(t)) = (p.result_id, p.result_type) {
                        result_types.insert(r, t);
                    }
                }
                for (bi, b) in f.blocks.iter().enumerate() {
                    for (ii, inst) in b.instructions.iter().enumerate() {
                        let (Some(r), Some(t)) = (inst.result_id, inst.result_type) else {
                            continue;
                        };
                        if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                            result_types.insert(r, t);
                            continue;
                        }
                        let base = id(&inst.operands[0]).unwrap_or(0);
                        let Some((class, mut ty)) =
                            result_types.get(&base).and_then(|t| defs.pointer(*t))
                        else {
                            result_types.insert(r, t);
                            continue;
                        };
                        for op in &inst.operands[1..] {
                            let index = id(op).unwrap_or(0);
                            let def = defs.globals.get(&ty).ok_or_else(|| {
                                Error::Internal("access chain through an unknown type".into())
                            })?;
                            ty = match def.class.opcode {
                                Op::TypeStruct => {
                                    let k = defs.constant_u32(index).unwrap_or(0) as usize;
                                    id(&def.operands[k]).unwrap_or(0)
                                }
                                Op::TypeArray
                                | Op::TypeRuntimeArray
                                | Op::TypeVector
                                | Op::TypeMatrix => id(&def.operands[0]).unwrap_or(0),
                                _ => {
                                    return Err(Error::Internal(
                                        "access chain into a non-composite type".into(),
                                    ));
                                }
                            };
                        }
                        let current = defs.pointer(t);
                        if current != Some((class, ty)) {
                            fixes.push((fi, bi, ii, class, ty));
                        }
                        result_types.insert(r, t);
                    }
                }
            }
        }
        for (fi, bi, ii, class, ty) in fixes {
            let ptr = self.pointer_to(class, ty);
            self.module.functions[fi].blocks[bi].instructions[ii].result_type = Some(ptr);
        }
        Ok(())
    }

    /// Rebuilds loads and stores of a retyped vector; refuses whole-aggregate
    /// copies of anything that contains one.
    fn rebuild_whole_vector_accesses(&mut self, new_arrays: &HashMap<Word, Word>) -> Result<()> {
        // Pointer types and index constants the component-wise stores use.
        let mut scalar_pointers: HashMap<(StorageClass, Word), Word> = HashMap::new();
        let mut max_len = 0;
        for (&array, &vector) in new_arrays {
            let classes: Vec<StorageClass> = self
                .module
                .types_global_values
                .iter()
                .filter(|i| {
                    i.class.opcode == Op::TypePointer
                        && i.operands.get(1) == Some(&Operand::IdRef(array))
                })
                .filter_map(|i| match i.operands[0] {
                    Operand::StorageClass(c) => Some(c),
                    _ => None,
                })
                .collect();
            let vdef = self.global(vector).cloned();
            if let Some(v) = vdef {
                let scalar = id(&v.operands[0]).unwrap_or(0);
                if let Operand::LiteralBit32(n) = v.operands[1] {
                    max_len = max_len.max(n);
                }
                for c in classes {
                    let p = self.pointer_to(c, scalar);
                    scalar_pointers.insert((c, scalar), p);
                }
            }
        }
        let uint = self.uint_type_at_start();
        let index_constants: Vec<Word> = (0..max_len)
            .map(|k| {
                let c = self.fresh();
                self.module.types_global_values.push(Instruction::new(
                    Op::Constant,
                    Some(uint),
                    Some(c),
                    vec![Operand::LiteralBit32(k)],
                ));
                c
            })
            .collect();
        let defs = Defs::new(self.module);
        // Types that contain a new array somewhere inside (but are not one).
        let mut containing: HashSet<Word> = HashSet::new();
        loop {
            let before = containing.len();
            for i in &self.module.types_global_values {
                let Some(r) = i.result_id else { continue };
                if !matches!(
                    i.class.opcode,
                    Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray
                ) || new_arrays.contains_key(&r)
                {
                    continue;
                }
                let inner = match i.class.opcode {
                    Op::TypeStruct => i.operands.iter().filter_map(id).collect::<Vec<_>>(),
                    _ => id(&i.operands[0]).into_iter().collect(),
                };
                if inner
                    .iter()
                    .any(|t| new_arrays.contains_key(t) || containing.contains(t))
                {
                    containing.insert(r);
                }
            }
            if containing.len() == before {
                break;
            }
        }
        let mut result_types: HashMap<Word, Word> = HashMap::new();
        for i in self
            .module
            .types_global_values
            .iter()
            .chain(all_function_instructions(self.module))
            .chain(
                self.module
                    .functions
                    .iter()
                    .flat_map(|f| f.parameters.iter()),
            )
        {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                result_types.insert(r, t);
            }
        }
        let pointee = |ptr: Word| -> Option<Word> {
            result_types
                .get(&ptr)
                .and_then(|t| defs.pointer(*t))
                .map(|p| p.1)
        };
        let mut bound = self.module.header.as_ref().map(|h| h.bound).unwrap_or(0);
        for f in &mut self.module.functions {
            for b in &mut f.blocks {
                let mut out = Vec::with_capacity(b.instructions.len());
                for inst in b.instructions.drain(..) {
                    let op = inst.class.opcode;
                    let ptr = match op {
                        Op::Load | Op::Store | Op::CopyMemory => id(&inst.operands[0]),
                        _ => None,
                    };
                    let target = ptr.and_then(pointee);
                    let Some(target) = target else {
                        out.push(inst);
                        continue;
                    };
                    if containing.contains(&target)
                        || (op == Op::CopyMemory && new_arrays.contains_key(&target))
                    {
                        return Err(Error::Unsupported(
                            "a whole-struct or whole-array copy of memory that holds a vector used by atomics; \
                             copy its members one by one"
                                .into(),
                        ));
                    }
                    let Some(&vector) = new_arrays.get(&target) else {
                        out.push(inst);
                        continue;
                    };
                    let vdef = defs
                        .globals
                        .get(&vector)
                        .ok_or_else(|| Error::Internal("vector type not found".into()))?;
                    let scalar = id(&vdef.operands[0]).unwrap_or(0);
                    let Operand::LiteralBit32(n) = vdef.operands[1] else {
                        return Err(Error::Internal("malformed OpTypeVector".into()));
                    };
                    let mut fresh = || {
                        bound += 1;
                        bound - 1
                    };
                    let extract = |from: Word, k: u32, to: Word| {
                        Instruction::new(
                            Op::CompositeExtract,
                            Some(scalar),
                            Some(to),
                            vec![Operand::IdRef(from), Operand::LiteralBit32(k)],
                        )
                    };
                    if op == Op::Load {
                        let whole = fresh();
                        let mut load = inst.clone();
                        let result = load.result_id.unwrap_or(0);
                        load.result_type = Some(target);
                        load.result_id = Some(whole);
                        out.push(load);
                        let parts: Vec<Word> = (0..n).map(|_| fresh()).collect();
                        for (k, &p) in parts.iter().enumerate() {
                            out.push(extract(whole, k as u32, p));
                        }
                        out.push(Instruction::new(
                            Op::CompositeConstruct,
                            Some(vector),
                            Some(result),
                            parts.into_iter().map(Operand::IdRef).collect(),
                        ));
                    } else {
                        // Component by component: a padded array keeps its padding.
                        let value = id(&inst.operands[1]).unwrap_or(0);
                        let (class, _) = result_types
                            .get(&ptr.unwrap_or(0))
                            .and_then(|t| defs.pointer(*t))
                            .ok_or_else(|| Error::Internal("store through a non-pointer".into()))?;
                        let scalar_ptr =
                            *scalar_pointers.get(&(class, scalar)).ok_or_else(|| {
                                Error::Internal("no pointer type for a vector's scalar".into())
                            })?;
                        for k in 0..n {
                            let part = fresh();
                            out.push(extract(value, k, part));
                            let element = fresh();
                            out.push(Instruction::new(
                                Op::AccessChain,
                                Some(scalar_ptr),
                                Some(element),
                                vec![
                                    Operand::IdRef(ptr.unwrap_or(0)),
                                    Operand::IdRef(index_constants[k as usize]),
                                ],
                            ));
                            let mut store = inst.clone();
                            store.operands[0] = Operand::IdRef(element);
                            store.operands[1] = Operand::IdRef(part);
                            out.push(store);
                        }
                    }
                }
                b.instructions = out;
            }
        }
        if let Some(h) = self.module.header.as_mut() {
            h.bound = bound;
        }
        Ok(())
    }
}
