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

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::lower::model::{Model, Site, id, is_atomic};
use crate::{Error, Result};

/// Rewrites the module; returns how many vector sites were retyped.
pub fn scalarize_vector_atomics(m: &mut Model) -> Result<usize> {
    let mut sites: Vec<(Site, Word, StorageClass)> = Vec::new();
    for inst in m.instructions() {
        if !is_atomic(inst.class.opcode) {
            continue;
        }
        let Some(Operand::IdRef(ptr)) = inst.operands.first() else {
            continue;
        };
        if let Some(site) = vector_component_site(m, *ptr)?
            && !sites.iter().any(|s| s.0 == site.0)
        {
            sites.push(site);
        }
    }
    if sites.is_empty() {
        return Ok(0);
    }
    let mut new_arrays: HashMap<Word, Word> = HashMap::default(); // array id -> vector id it replaces
    for (site, vector, class) in &sites {
        // A vec3 in an array keeps its 16-byte stride as a 4-element array
        // (the fourth is the padding it had); elsewhere the length is N and
        // the IR layout pass pads the struct to keep the vector's offset.
        let len = match *site {
            Site::Element(a) => m.array_stride(a).map(|s| s / 4),
            _ => None,
        };
        let array = array_for(m, *vector, *class, len)?;
        new_arrays.insert(array, *vector);
        match *site {
            Site::Member(s, k) => m.set_operand(s, k as usize, array),
            Site::Element(a) => m.set_operand(a, 0, array),
            Site::Variable(v) => {
                let ptr = m.pointer_to(*class, array);
                m.set_result_type(v, ptr);
            }
        }
    }
    m.retype_access_chains()?;
    rebuild_whole_vector_accesses(m, &new_arrays)?;
    Ok(sites.len())
}

/// If `ptr` points at one component of a vector: where that vector sits,
/// the vector type and the storage class.
fn vector_component_site(m: &Model, ptr: Word) -> Result<Option<(Site, Word, StorageClass)>> {
    let Some(chain) = m.def(ptr) else {
        return Ok(None);
    };
    if !matches!(
        chain.class.opcode,
        Op::AccessChain | Op::InBoundsAccessChain
    ) {
        return Ok(None);
    }
    let base = chain.operands.first().and_then(id).unwrap_or(0);
    let Some((class, mut ty)) = m.pointee(base) else {
        return Ok(None);
    };
    let mut site = (m.def(base).map(|d| d.class.opcode) == Some(Op::Variable) && m.is_global(base))
        .then_some(Site::Variable(base));
    let indices: Vec<Word> = chain.operands[1..].iter().filter_map(id).collect();
    for (n, &index) in indices.iter().enumerate() {
        match m.op_of(ty) {
            Some(Op::TypeStruct) => {
                let k = m.constant_u32(index).unwrap_or(u32::MAX);
                site = Some(Site::Member(ty, k));
                ty = m.step(ty, index)?;
            }
            Some(Op::TypeArray | Op::TypeRuntimeArray) => {
                site = Some(Site::Element(ty));
                ty = m.step(ty, index)?;
            }
            Some(Op::TypeVector) if n + 1 == indices.len() => {
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

/// A new `scalar[len]` array type standing for `vector` (`len` at least
/// its size).
fn array_for(m: &mut Model, vector: Word, class: StorageClass, len: Option<u32>) -> Result<Word> {
    let v = m
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
    let len = m.uint_constant(n);
    let array = m.add_global(
        Op::TypeArray,
        None,
        vec![Operand::IdRef(scalar), Operand::IdRef(len)],
    );
    if matches!(
        class,
        StorageClass::StorageBuffer
            | StorageClass::Uniform
            | StorageClass::PushConstant
            | StorageClass::PhysicalStorageBuffer
    ) {
        m.decorate(array, Decoration::ArrayStride, &[4]);
    }
    Ok(array)
}

/// Types that contain one of `arrays` somewhere inside (but are not one).
fn containing(m: &Model, arrays: &HashMap<Word, Word>) -> HashSet<Word> {
    let mut containing: HashSet<Word> = HashSet::default();
    loop {
        let before = containing.len();
        for i in &m.module().types_global_values {
            let Some(r) = i.result_id else { continue };
            if !matches!(
                i.class.opcode,
                Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray
            ) || arrays.contains_key(&r)
            {
                continue;
            }
            let inner: Vec<Word> = match i.class.opcode {
                Op::TypeStruct => i.operands.iter().filter_map(id).collect(),
                _ => i.operands.first().and_then(id).into_iter().collect(),
            };
            if inner
                .iter()
                .any(|t| arrays.contains_key(t) || containing.contains(t))
            {
                containing.insert(r);
            }
        }
        if containing.len() == before {
            return containing;
        }
    }
}

/// Rebuilds loads and stores of a retyped vector component by component
/// (naga reads each element as an atomic, so a whole-array load would not
/// compose, and a padded array keeps its padding); refuses whole-aggregate
/// copies of anything that contains one.
fn rebuild_whole_vector_accesses(m: &mut Model, new_arrays: &HashMap<Word, Word>) -> Result<()> {
    // Pointer types and index constants the component-wise accesses use.
    let mut scalar_pointers: HashMap<(StorageClass, Word), Word> = HashMap::default();
    let mut index_constants = Vec::new();
    for (&array, &vector) in new_arrays {
        let classes: Vec<StorageClass> = m
            .module()
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
        let scalar = m.scalar_of(vector);
        for c in classes {
            let p = m.pointer_to(c, scalar);
            scalar_pointers.insert((c, scalar), p);
        }
    }
    for k in 0..4 {
        index_constants.push(m.uint_constant(k));
    }
    let containing = containing(m, new_arrays);
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let Some(ptr) = (match op {
            Op::Load | Op::Store | Op::CopyMemory => inst.operands.first().and_then(id),
            _ => None,
        }) else {
            return Ok(false);
        };
        let Some((class, target)) = e.m.pointee(ptr) else {
            return Ok(false);
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
            return Ok(false);
        };
        let (scalar, n) = match e.m.global(vector).map(|v| v.operands.as_slice()) {
            Some([Operand::IdRef(s), Operand::LiteralBit32(n)]) => (*s, *n),
            _ => return Err(Error::shader("malformed SPIR-V: malformed OpTypeVector")),
        };
        let scalar_ptr = *scalar_pointers.get(&(class, scalar)).ok_or_else(|| {
            Error::shader("malformed SPIR-V: no pointer type for a vector's scalar")
        })?;
        if op == Op::Load {
            let mut parts = Vec::with_capacity(n as usize);
            for &index in &index_constants[..n as usize] {
                let element = e.op(Op::AccessChain, scalar_ptr, &[ptr, index]);
                let part = e.fresh();
                let mut load = inst.clone();
                load.result_type = Some(scalar);
                load.result_id = Some(part);
                load.operands[0] = Operand::IdRef(element);
                e.push(load);
                parts.push(part);
            }
            e.push(Instruction::new(
                Op::CompositeConstruct,
                Some(vector),
                inst.result_id,
                parts.into_iter().map(Operand::IdRef).collect(),
            ));
        } else {
            let value = inst.operands.get(1).and_then(id).unwrap_or(0);
            for k in 0..n {
                let part = e.extract(scalar, value, k);
                let element = e.op(
                    Op::AccessChain,
                    scalar_ptr,
                    &[ptr, index_constants[k as usize]],
                );
                let mut store = inst.clone();
                store.operands[0] = Operand::IdRef(element);
                store.operands[1] = Operand::IdRef(part);
                e.push(store);
            }
        }
        Ok(true)
    })?;
    Ok(())
}
