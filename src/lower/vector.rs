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

use super::spirv::{
    Defs, Rewriter, Site, all_function_instructions, id, is_atomic, result_types, site_anchor,
};
use crate::{Error, Result};

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
        if let Some(site) = vector_component_site(&defs, *ptr)?
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
            Site::Element(a) => super::spirv::array_stride(rw.module, a).map(|s| s / 4),
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

/// If `ptr` points at one component of a vector: where that vector sits,
/// the vector type and the storage class.
fn vector_component_site(defs: &Defs, ptr: Word) -> Result<Option<(Site, Word, StorageClass)>> {
    let Some(chain) = defs.def(ptr) else {
        return Ok(None);
    };
    if !matches!(
        chain.class.opcode,
        Op::AccessChain | Op::InBoundsAccessChain
    ) {
        return Ok(None);
    }
    let base = id(&chain.operands[0]).unwrap_or(0);
    let base_def = defs.def(base);
    let Some((class, mut ty)) = base_def
        .and_then(|d| d.result_type)
        .and_then(|t| defs.pointer(t))
    else {
        return Ok(None);
    };
    let mut site = match base_def {
        Some(d) if d.class.opcode == Op::Variable && defs.globals.contains_key(&base) => {
            Some(Site::Variable(base))
        }
        _ => None,
    };
    let indices: Vec<Word> = chain.operands[1..].iter().filter_map(id).collect();
    for (n, &index) in indices.iter().enumerate() {
        let Some(t) = defs.globals.get(&ty) else {
            return Ok(None);
        };
        match t.class.opcode {
            Op::TypeStruct => {
                let k = defs.constant_u32(index).ok_or_else(|| {
                    Error::shader("malformed SPIR-V: a struct index that is not a constant")
                })?;
                site = Some(Site::Member(ty, k));
                ty = t.operands.get(k as usize).and_then(id).ok_or_else(|| {
                    Error::shader(format!(
                        "malformed SPIR-V: member {k} of a struct with {} members",
                        t.operands.len()
                    ))
                })?;
            }
            Op::TypeArray | Op::TypeRuntimeArray => {
                site = Some(Site::Element(ty));
                ty = t.operands.first().and_then(id).unwrap_or(0);
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

impl Rewriter<'_> {
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
            .ok_or_else(|| Error::shader("malformed SPIR-V: vector type not found"))?;
        let (Some(Operand::IdRef(scalar)), Some(Operand::LiteralBit32(n))) =
            (v.operands.first().cloned(), v.operands.get(1).cloned())
        else {
            return Err(Error::shader("malformed SPIR-V: malformed OpTypeVector"));
        };
        if !(2..=4).contains(&n) {
            return Err(Error::Unsupported(format!("a vector of {n} components")));
        }
        // A padded element keeps its array stride, at most 16 bytes here.
        let n = len.map_or(n, |l| l.max(n)).min(4);
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
        let result_types = result_types(self.module);
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
                        .ok_or_else(|| Error::shader("malformed SPIR-V: vector type not found"))?;
                    let scalar = id(&vdef.operands[0]).unwrap_or(0);
                    let Operand::LiteralBit32(n) = vdef.operands[1] else {
                        return Err(Error::shader("malformed SPIR-V: malformed OpTypeVector"));
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
                    // Component by component, both ways: naga reads each
                    // element as an atomic (so a whole-array load would not
                    // compose), and a padded array keeps its padding.
                    let (class, _) = result_types
                        .get(&ptr.unwrap_or(0))
                        .and_then(|t| defs.pointer(*t))
                        .ok_or_else(|| {
                            Error::shader("malformed SPIR-V: access through a non-pointer")
                        })?;
                    let scalar_ptr = *scalar_pointers.get(&(class, scalar)).ok_or_else(|| {
                        Error::shader("malformed SPIR-V: no pointer type for a vector's scalar")
                    })?;
                    let element = |k: u32, e: Word| {
                        Instruction::new(
                            Op::AccessChain,
                            Some(scalar_ptr),
                            Some(e),
                            vec![
                                Operand::IdRef(ptr.unwrap_or(0)),
                                Operand::IdRef(index_constants[k as usize]),
                            ],
                        )
                    };
                    if op == Op::Load {
                        let result = inst.result_id.unwrap_or(0);
                        let mut parts = Vec::with_capacity(n as usize);
                        for k in 0..n {
                            let e = fresh();
                            out.push(element(k, e));
                            let part = fresh();
                            let mut load = inst.clone();
                            load.result_type = Some(scalar);
                            load.result_id = Some(part);
                            load.operands[0] = Operand::IdRef(e);
                            out.push(load);
                            parts.push(part);
                        }
                        out.push(Instruction::new(
                            Op::CompositeConstruct,
                            Some(vector),
                            Some(result),
                            parts.into_iter().map(Operand::IdRef).collect(),
                        ));
                    } else {
                        let value = id(&inst.operands[1]).unwrap_or(0);
                        for k in 0..n {
                            let part = fresh();
                            out.push(extract(value, k, part));
                            let e = fresh();
                            out.push(element(k, e));
                            let mut store = inst.clone();
                            store.operands[0] = Operand::IdRef(e);
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
