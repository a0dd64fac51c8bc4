//! SPIR-V pass: storage images and buffer textures passed to functions
//! (`mat4 matrixAt(samplerBuffer t, int i)`, a helper taking the
//! `imageBuffer` it writes) become copies of those functions, one per
//! resource passed, that name the resource itself. The image passes hold
//! such resources in storage buffers, which WGSL passes to no function; a
//! function that names the buffer's variable needs no argument.
//!
//! glslang passes an opaque argument as the pointer to its variable, so
//! each call whose argument is a resource variable calls the copy made
//! for that (function, parameter, variable), without the argument. A copy
//! that passes the resource on is specialized in turn (GLSL has no
//! recursion, so this ends); functions no longer called are dropped.
//! Sampled textures stay arguments: WGSL passes those.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::Operand;
use rspirv::spirv::{Dim, Op, StorageClass, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// The most copies one module gets: a bound on work, far above what a
/// shader's helpers need.
const MAX_COPIES: usize = 512;

/// Whether a value of pointer type `ty` points at a storage image or a
/// buffer texture (what the image passes hold in buffers).
fn held_in_a_buffer(m: &Model, ty: Word) -> bool {
    let Some((StorageClass::UniformConstant, pointee)) = m.pointer(ty) else {
        return false;
    };
    let image = match m.global(pointee) {
        Some(t) if t.class.opcode == Op::TypeSampledImage => t.operands.first().and_then(id),
        Some(t) if t.class.opcode == Op::TypeImage => Some(pointee),
        _ => None,
    };
    image.and_then(|i| m.global(i)).is_some_and(|i| {
        i.operands.get(5) == Some(&Operand::LiteralBit32(2))
            || i.operands.get(1) == Some(&Operand::Dim(Dim::DimBuffer))
    })
}

/// The calls passing a resource variable, each with the first it passes:
/// (function, block, instruction, callee, argument index, variable).
fn resource_calls(m: &Model) -> Vec<(usize, usize, usize, Word, usize, Word)> {
    let mut out = Vec::new();
    for (fi, f) in m.module().functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.instructions.iter().enumerate() {
                if inst.class.opcode != Op::FunctionCall {
                    continue;
                }
                let Some(callee) = inst.operands.first().and_then(id) else {
                    continue;
                };
                let resource = inst.operands.iter().skip(1).filter_map(id).position(|arg| {
                    let global = m
                        .global(arg)
                        .is_some_and(|v| v.class.opcode == Op::Variable);
                    global && m.result_type(arg).is_some_and(|t| held_in_a_buffer(m, t))
                });
                if let Some(k) = resource {
                    let var = inst.operands.get(k + 1).and_then(id).unwrap_or(0);
                    out.push((fi, bi, ii, callee, k, var));
                }
            }
        }
    }
    out
}

/// A copy of `callee` without parameter `k`, naming `var` where it used
/// the parameter; returns its id.
fn copy_without(m: &mut Model, callee: Word, k: usize, var: Word) -> Result<Word> {
    let missing = || Error::Internal(format!("function %{callee} is called but not defined"));
    let mut f = m
        .module()
        .functions
        .iter()
        .find(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(callee))
        .ok_or_else(missing)?
        .clone();
    let param = f
        .parameters
        .get(k)
        .and_then(|p| p.result_id)
        .ok_or_else(missing)?;
    // Every id the function defines gets a fresh one; the parameter, the
    // variable.
    let mut map: HashMap<Word, Word> = HashMap::default();
    map.insert(param, var);
    let defined = defined_ids(&f).filter(|&r| r != param).collect::<Vec<_>>();
    for r in defined {
        map.insert(r, m.fresh());
    }
    f.parameters.remove(k);
    let def = f.def.as_mut().ok_or_else(missing)?;
    // The function type without the parameter.
    let old_type = def.operands.get(1).and_then(id).ok_or_else(missing)?;
    let mut operands = m.global(old_type).ok_or_else(missing)?.operands.clone();
    if operands.len() > k + 1 {
        operands.remove(k + 1);
    }
    let existing = m
        .module()
        .types_global_values
        .iter()
        .find(|t| t.class.opcode == Op::TypeFunction && t.operands == operands);
    let new_type = match existing.and_then(|t| t.result_id) {
        Some(t) => t,
        None => m.add_global(Op::TypeFunction, None, operands),
    };
    def.operands[1] = Operand::IdRef(new_type);
    let renumber = |i: &mut rspirv::dr::Instruction| {
        if let Some(r) = i.result_id.and_then(|r| map.get(&r)) {
            i.result_id = Some(*r);
        }
        for o in &mut i.operands {
            if let Operand::IdRef(w) = o
                && let Some(n) = map.get(w)
            {
                *w = *n;
            }
        }
    };
    f.def.iter_mut().for_each(renumber);
    f.parameters.iter_mut().for_each(renumber);
    for b in &mut f.blocks {
        b.label.iter_mut().for_each(renumber);
        b.instructions.iter_mut().for_each(renumber);
    }
    let copy = map[&callee];
    let name = format!("{}_{}", m.label(callee), m.label(var));
    for (&old, &new) in map.iter().filter(|(o, _)| **o != param) {
        m.copy_decorations(old, new, |_| true);
    }
    m.set_name(copy, name);
    m.module_mut().functions.push(f);
    Ok(copy)
}

/// Specializes every function a storage image or buffer texture is passed
/// to (see the module docs); returns how many copies were made.
pub fn specialize_resource_arguments(m: &mut Model) -> Result<usize> {
    let mut copies: HashMap<(Word, usize, Word), Word> = HashMap::default();
    // A round rewrites every call found by one walk; the next finds what
    // the copies pass on, and a call's further resource arguments.
    loop {
        let calls = resource_calls(m);
        if calls.is_empty() {
            break;
        }
        let mut targets = Vec::with_capacity(calls.len());
        for &(_, _, _, callee, k, var) in &calls {
            let copy = match copies.get(&(callee, k, var)) {
                Some(&c) => c,
                None => {
                    if copies.len() >= MAX_COPIES {
                        return Err(Error::Unsupported(format!(
                            "images and buffer textures are passed to functions in more than {MAX_COPIES} ways: atomport makes a copy of the function for each"
                        )));
                    }
                    let c = copy_without(m, callee, k, var)?;
                    copies.insert((callee, k, var), c);
                    c
                }
            };
            targets.push(copy);
        }
        // Copies go after the functions that are there: the places found
        // stay where they were.
        let functions = &mut m.module_mut().functions;
        for (&(fi, bi, ii, _, k, _), copy) in calls.iter().zip(targets) {
            let call = &mut functions[fi].blocks[bi].instructions[ii];
            call.operands[0] = Operand::IdRef(copy);
            call.operands.remove(k + 1);
        }
    }
    if !copies.is_empty() {
        drop_uncalled(m);
        // The old functions' types name the resources' pointer types,
        // which the image passes must see unused.
        m.remove_unused_types(&[Op::TypeFunction]);
    }
    Ok(copies.len())
}

/// Drops the functions neither an entry point nor a call names, with the
/// names and decorations of what they define.
fn drop_uncalled(m: &mut Model) {
    loop {
        let module = m.module();
        let mut named: HashSet<Word> = module
            .entry_points
            .iter()
            .filter_map(|e| e.operands.get(1).and_then(id))
            .collect();
        for inst in module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| &b.instructions))
        {
            if inst.class.opcode == Op::FunctionCall {
                named.extend(inst.operands.first().and_then(id));
            }
        }
        let uncalled = |f: &rspirv::dr::Function| {
            f.def
                .as_ref()
                .and_then(|d| d.result_id)
                .is_some_and(|r| !named.contains(&r))
        };
        let dead: Vec<Word> = module
            .functions
            .iter()
            .filter(|f| uncalled(f))
            .flat_map(defined_ids)
            .collect();
        if dead.is_empty() {
            return;
        }
        m.module_mut().functions.retain(|f| !uncalled(f));
        m.remove_definitions(&dead);
    }
}

/// The ids function `f` defines: itself, its parameters, its blocks'
/// labels and its instructions' results.
fn defined_ids(f: &rspirv::dr::Function) -> impl Iterator<Item = Word> + '_ {
    f.def
        .iter()
        .chain(&f.parameters)
        .chain(
            f.blocks
                .iter()
                .flat_map(|b| b.label.iter().chain(&b.instructions)),
        )
        .filter_map(|i| i.result_id)
}
