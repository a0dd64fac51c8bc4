//! SPIR-V passes for sampled textures:
//!
//! - Combined image samplers (`sampler2D`, `isampler3D`, `samplerCube`,
//!   `sampler2DShadow`, and arrays of them indexed by constants), which
//!   naga's reader cannot take ("invalid id"), become a texture at the
//!   combined sampler's own (set, binding) and a sampler at the next free
//!   binding of the set. Every load of the combined sampler becomes a load
//!   of each and an `OpSampledImage`, which naga reads as the pair it is.
//!   An array of them indexed at run time or without a size (`sampler2D
//!   textures[]` with `nonuniformEXT`) becomes an array of textures and an
//!   array of samplers of the same length, each one binding (a wgpu binding
//!   array), indexed alike.
//! - Implicit-LOD sampling (`texture()` outside fragment shaders, where
//!   GLSL defines the level as 0 plus the bias) becomes explicit-LOD
//!   sampling at that level: WGSL's `textureSample` exists in fragment
//!   shaders only.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Block, Function, Instruction, Operand};
use rspirv::spirv::{Decoration, FunctionControl, ImageOperands, Op, StorageClass, Word};

use crate::lower::model::{Model, id, with_ids};
use crate::{Error, Result};

/// A combined sampler the pass split, for the binding map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitSampler {
    /// Descriptor set of both halves.
    pub group: u32,
    /// The texture's binding (the combined sampler's own).
    pub texture_binding: u32,
    /// The sampler's binding (the next free one of the set).
    pub sampler_binding: u32,
    /// The GLSL name of the combined sampler.
    pub name: String,
}

/// Suffix of the sampler half's name (`tex` → `tex_sampler`).
pub const SAMPLER_SUFFIX: &str = "_sampler";

/// A combined sampler variable: (variable, element sampled-image type,
/// the array length's constant, whether the array is runtime-sized).
type Combined = (Word, Word, Option<Word>, bool);

/// Every combined image sampler variable, and every array of them.
fn combined_samplers(m: &Model) -> Vec<Combined> {
    let mut found = Vec::new();
    for (var, class, pointee) in m.variables() {
        if class != StorageClass::UniformConstant {
            continue;
        }
        let Some(t) = m.global(pointee) else {
            continue;
        };
        match t.class.opcode {
            Op::TypeSampledImage => found.push((var, pointee, None, false)),
            Op::TypeArray | Op::TypeRuntimeArray => {
                let Some(e) = t.operands.first().and_then(id) else {
                    continue;
                };
                if m.op_of(e) == Some(Op::TypeSampledImage) {
                    let len = t.operands.get(1).and_then(id);
                    found.push((var, e, len, t.class.opcode == Op::TypeRuntimeArray));
                }
            }
            _ => {}
        }
    }
    found
}

/// Splits every combined image sampler variable; returns what it split.
pub fn split_combined_samplers(m: &mut Model) -> Result<Vec<SplitSampler>> {
    let found = combined_samplers(m);
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let mut free = m.free_bindings();
    let sampler_ty = m.sampler_type();
    let at_run_time: Vec<Word> = found
        .iter()
        .filter(|f| f.3 || indexed_at_run_time(m, f.0))
        .map(|f| f.0)
        .collect();
    // array variable -> (its texture array, its sampler array, and the
    // pointer types of one element of each)
    let mut whole: HashMap<Word, Whole> = HashMap::default();
    let mut split = Vec::new();
    // variable -> its (texture, sampler) variables, one pair per element
    let mut pairs: HashMap<Word, Vec<(Word, Word)>> = HashMap::default();
    // variable -> the image type of its texture half
    let mut image_of: HashMap<Word, Word> = HashMap::default();
    for &(var, si, len, runtime) in &found {
        let image = m
            .global(si)
            .and_then(|t| t.operands.first())
            .and_then(id)
            .ok_or_else(|| {
                Error::shader("malformed SPIR-V: OpTypeSampledImage without an image")
            })?;
        image_of.insert(var, image);
        let name = m.name(var).unwrap_or_default().to_string();
        // An array of combined samplers becomes one texture and one sampler
        // per element, each at a binding of its own (WGSL binds them one by one).
        let (set, first_binding) = m.slot(var);
        if at_run_time.contains(&var) {
            let image_ptr = m.pointer_to(StorageClass::UniformConstant, image);
            let sampler_ptr = m.pointer_to(StorageClass::UniformConstant, sampler_ty);
            let textures = m.array_of(image, len);
            let samplers = m.array_of(sampler_ty, len);
            let textures = m.pointer_to(StorageClass::UniformConstant, textures);
            let samplers = m.pointer_to(StorageClass::UniformConstant, samplers);
            let sb = free.take(set)?;
            let mut add = |ty: Word, binding: u32, label: String| {
                let v = m.add_global(
                    Op::Variable,
                    Some(ty),
                    vec![Operand::StorageClass(StorageClass::UniformConstant)],
                );
                m.decorate(v, Decoration::DescriptorSet, &[set]);
                m.decorate(v, Decoration::Binding, &[binding]);
                m.set_name(v, label);
                v
            };
            let tv = add(textures, first_binding, name.clone());
            let sv = add(samplers, sb, format!("{name}{SAMPLER_SUFFIX}"));
            m.list_beside(var, &[tv, sv]);
            whole.insert(var, (tv, sv, image_ptr, sampler_ptr));
            split.push(SplitSampler {
                group: set,
                texture_binding: first_binding,
                sampler_binding: sb,
                name,
            });
            continue;
        }
        let count = match (len, runtime) {
            (None, false) => None,
            (Some(l), false) => Some(m.constant_u32(l).filter(|&n| (1..=64).contains(&n)).ok_or_else(
                || {
                    Error::Unsupported(format!(
                        "the combined sampler array `{name}` has a length atomport cannot split (1 to 64 elements)"
                    ))
                },
            )?),
            _ => {
                return Err(Error::Unsupported(format!(
                    "the combined sampler array `{name}` has no size: WGSL binds each texture and sampler on its own; give it a size"
                )));
            }
        };
        let image_ptr = m.pointer_to(StorageClass::UniformConstant, image);
        let sampler_ptr = m.pointer_to(StorageClass::UniformConstant, sampler_ty);
        let add_var = |m: &mut Model, ptr: Word, binding: u32, label: String| {
            let v = m.add_global(
                Op::Variable,
                Some(ptr),
                vec![Operand::StorageClass(StorageClass::UniformConstant)],
            );
            m.decorate(v, Decoration::DescriptorSet, &[set]);
            m.decorate(v, Decoration::Binding, &[binding]);
            m.set_name(v, label);
            v
        };
        let mut elements = Vec::new();
        match count {
            None => {
                m.set_result_type(var, image_ptr);
                let b = free.take(set)?;
                let svar = add_var(m, sampler_ptr, b, format!("{name}{SAMPLER_SUFFIX}"));
                elements.push((var, svar));
                split.push(SplitSampler {
                    group: set,
                    texture_binding: first_binding,
                    sampler_binding: b,
                    name: name.clone(),
                });
            }
            Some(n) => {
                for k in 0..n {
                    let element = format!("{name}[{k}]");
                    // Element 0 keeps the array's binding.
                    let tb = if k == 0 {
                        first_binding
                    } else {
                        free.take(set)?
                    };
                    let tvar = add_var(m, image_ptr, tb, element.clone());
                    let sb = free.take(set)?;
                    let svar = add_var(m, sampler_ptr, sb, format!("{element}{SAMPLER_SUFFIX}"));
                    elements.push((tvar, svar));
                    split.push(SplitSampler {
                        group: set,
                        texture_binding: tb,
                        sampler_binding: sb,
                        name: element,
                    });
                }
            }
        }
        pairs.insert(var, elements);
    }
    let params = split_parameters(m, &mut image_of, sampler_ty);
    rewrite_uses(m, &pairs, &whole, &params, &image_of, sampler_ty)?;
    // The arrays themselves are gone: only their elements, or the arrays
    // of their halves, are bound. (From SPIR-V 1.4 the entry point lists
    // them too.)
    let arrays: Vec<Word> = found
        .iter()
        .filter(|f| f.2.is_some() || f.3)
        .map(|f| f.0)
        .collect();
    m.remove_globals(|r| arrays.contains(&r));
    Ok(split)
}

/// A combined sampler array indexed at run time: its texture array, its
/// sampler array, and the pointer types to one texture and one sampler.
type Whole = (Word, Word, Word, Word);

/// Whether an access chain selects an element of `var` by a value that is
/// not a constant.
fn indexed_at_run_time(m: &Model, var: Word) -> bool {
    m.instructions().any(|i| {
        matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
            && i.operands.first().and_then(id) == Some(var)
            && i.operands
                .get(1)
                .and_then(id)
                .is_none_or(|x| m.constant_u32(x).is_none())
    })
}

/// Function parameters that take a combined sampler (GLSL's `vec4
/// f(sampler2D tex)`, a pointer to it) become two: the texture's and the
/// sampler's pointers, the function's type following. Returns parameter ->
/// (texture parameter, sampler parameter); `image_of` learns each one's
/// image type.
fn split_parameters(
    m: &mut Model,
    image_of: &mut HashMap<Word, Word>,
    sampler_ty: Word,
) -> HashMap<Word, (Word, Word)> {
    let sampler_ptr = m.pointer_to(StorageClass::UniformConstant, sampler_ty);
    // (function, parameter, its image type), found before anything changes.
    let mut found = Vec::new();
    for (fi, f) in m.module().functions.iter().enumerate() {
        for p in &f.parameters {
            let image = p
                .result_type
                .and_then(|t| m.pointer(t))
                .filter(|(class, _)| *class == StorageClass::UniformConstant)
                .and_then(|(_, pointee)| m.global(pointee))
                .filter(|t| t.class.opcode == Op::TypeSampledImage)
                .and_then(|t| t.operands.first().and_then(id));
            if let (Some(image), Some(r)) = (image, p.result_id) {
                found.push((fi, r, image));
            }
        }
    }
    let mut split = HashMap::default();
    for &(fi, param, image) in &found {
        let image_ptr = m.pointer_to(StorageClass::UniformConstant, image);
        let (t, s) = (m.fresh(), m.fresh());
        image_of.insert(param, image);
        split.insert(param, (t, s));
        let f = &mut m.module_mut().functions[fi];
        let at = f
            .parameters
            .iter()
            .position(|p| p.result_id == Some(param))
            .expect("found above");
        f.parameters.splice(
            at..=at,
            [
                Instruction::new(Op::FunctionParameter, Some(image_ptr), Some(t), vec![]),
                Instruction::new(Op::FunctionParameter, Some(sampler_ptr), Some(s), vec![]),
            ],
        );
    }
    // Each changed function gets the type its parameters now say.
    let mut changed: Vec<usize> = found.iter().map(|f| f.0).collect();
    changed.dedup();
    for fi in changed {
        let f = &m.module().functions[fi];
        let ret = f.def.as_ref().and_then(|d| d.result_type).unwrap_or(0);
        let params: Vec<Word> = f.parameters.iter().filter_map(|p| p.result_type).collect();
        let mut operands = vec![Operand::IdRef(ret)];
        operands.extend(params.into_iter().map(Operand::IdRef));
        let ty = m.add_global(Op::TypeFunction, None, operands);
        if let Some(def) = m.module_mut().functions[fi].def.as_mut() {
            def.operands[1] = Operand::IdRef(ty);
        }
    }
    split
}

/// Loads of a split variable (or of an element of a split array, selected
/// by a constant, or of a split parameter) become a load of its texture, a
/// load of its sampler and an `OpSampledImage`; calls pass both halves.
fn rewrite_uses(
    m: &mut Model,
    pairs: &HashMap<Word, Vec<(Word, Word)>>,
    whole: &HashMap<Word, Whole>,
    params: &HashMap<Word, (Word, Word)>,
    image_of: &HashMap<Word, Word>,
    sampler_ty: Word,
) -> Result<()> {
    // Pointer -> (split variable or parameter, its texture and sampler).
    let mut alias: HashMap<Word, (Word, Word, Word)> = pairs
        .iter()
        .filter(|(v, e)| e.len() == 1 && e[0].0 == **v)
        .map(|(v, e)| (*v, (*v, e[0].0, e[0].1)))
        .chain(params.iter().map(|(&p, &(t, s))| (p, (p, t, s))))
        .collect();
    let arrays: HashMap<Word, &Vec<(Word, Word)>> = pairs
        .iter()
        .filter(|(v, e)| !(e.len() == 1 && e[0].0 == **v))
        .map(|(v, e)| (*v, e))
        .collect();
    // Ids the rewrite made whose originals were `NonUniform`: so are they.
    let mut non_uniform: Vec<Word> = Vec::new();
    m.rewrite(|e, inst| {
        let first = inst.operands.first().and_then(id);
        let marked = |r: Option<Word>| r.is_some_and(|r| e.m.has_decoration(r, Decoration::NonUniform));
        match (inst.class.opcode, first) {
            (Op::AccessChain | Op::InBoundsAccessChain, Some(base)) if whole.contains_key(&base) => {
                let (textures, samplers, image_ptr, sampler_ptr) = whole[&base];
                let Some(r) = inst.result_id else {
                    return Ok(false);
                };
                let mut halves = [(textures, image_ptr, 0), (samplers, sampler_ptr, 0)];
                for (array, ptr, chain) in &mut halves {
                    *chain = e.fresh();
                    let mut operands = vec![Operand::IdRef(*array)];
                    operands.extend(inst.operands[1..].iter().cloned());
                    e.push(Instruction::new(inst.class.opcode, Some(*ptr), Some(*chain), operands));
                }
                if marked(Some(r)) {
                    non_uniform.extend([halves[0].2, halves[1].2]);
                }
                alias.insert(r, (base, halves[0].2, halves[1].2));
                Ok(true)
            }
            (Op::AccessChain | Op::InBoundsAccessChain, Some(base))
                if arrays.contains_key(&base) =>
            {
                let elements = arrays[&base];
                let indices: Vec<Word> = inst.operands[1..].iter().filter_map(id).collect();
                let k = match indices.as_slice() {
                    [i] => e.m.constant_u32(*i),
                    _ => None,
                };
                let Some(&(tex, samp)) = k.and_then(|k| elements.get(k as usize)) else {
                    return Err(Error::Unsupported(format!(
                        "the combined sampler array `{}` is indexed by a value known only at run time: WGSL binds each texture and sampler on its own; index it with constants",
                        e.m.name(base).unwrap_or("?")
                    )));
                };
                if let Some(r) = inst.result_id {
                    alias.insert(r, (base, tex, samp));
                }
                // The chain is gone: its loads load the element's halves.
                Ok(true)
            }
            (Op::FunctionCall, _)
                if inst.operands[1..]
                    .iter()
                    .filter_map(id)
                    .any(|a| alias.contains_key(&a)) =>
            {
                let mut call = inst.clone();
                call.operands.truncate(1);
                for op in &inst.operands[1..] {
                    match id(op).and_then(|a| alias.get(&a)) {
                        Some(&(_, t, s)) => {
                            call.operands.extend([Operand::IdRef(t), Operand::IdRef(s)]);
                        }
                        None => call.operands.push(op.clone()),
                    }
                }
                e.push(call);
                Ok(true)
            }
            (Op::Load, Some(ptr)) if alias.contains_key(&ptr) => {
                let (var, tex, samp) = alias[&ptr];
                let (Some(r), Some(si)) = (inst.result_id, inst.result_type) else {
                    return Ok(false);
                };
                let t = e.op(Op::Load, image_of[&var], &[tex]);
                let s = e.op(Op::Load, sampler_ty, &[samp]);
                if marked(Some(r)) {
                    non_uniform.extend([t, s]);
                }
                e.push(with_ids(Op::SampledImage, Some(si), Some(r), &[t, s]));
                Ok(true)
            }
            (op, _) => {
                // Any other use of a split pointer (a function argument,
                // a whole-array load).
                if let Some(p) = inst
                    .operands
                    .iter()
                    .filter_map(id)
                    .find(|p| {
                        alias.contains_key(p) || arrays.contains_key(p) || whole.contains_key(p)
                    })
                {
                    let var = alias.get(&p).map_or(p, |a| a.0);
                    return Err(Error::Unsupported(format!(
                        "the combined sampler `{}` is used by Op{op:?} (a whole array loaded or passed on): atomport splits combined samplers where they are loaded or passed one by one; use the elements",
                        e.m.name(var).unwrap_or("?")
                    )));
                }
                Ok(false)
            }
        }
    })?;
    for r in non_uniform {
        m.decorate(r, Decoration::NonUniform, &[]);
    }
    Ok(())
}

/// A texel fetch, storage-image read or write on an element of a binding
/// array, set aside to be outlined: the instruction, the access chain to
/// the element, and the ids it uses that are not globals.
struct Outlined {
    inst: Instruction,
    chain: Word,
    args: Vec<Word>,
}

/// The function that reads (or writes) through `site`'s access chain into
/// a binding array: `(function, its id, its result type)`.
fn outline(m: &mut Model, site: &Outlined, void: Word) -> Result<(Function, Word, Word)> {
    let ptr = m.result_type(site.chain).ok_or_else(|| {
        Error::Internal("an access chain into a binding array without a type".into())
    })?;
    let image = m.pointee(site.chain).map(|p| p.1).ok_or_else(|| {
        Error::Internal("an access chain into a binding array to no image".into())
    })?;
    let ret = site.inst.result_type.unwrap_or(void);
    let (array, index) = m
        .def(site.chain)
        .and_then(|c| {
            Some((
                c.operands.first().and_then(id)?,
                c.operands.get(1).and_then(id)?,
            ))
        })
        .ok_or_else(|| {
            Error::Internal("an access chain into a binding array without an index".into())
        })?;
    let index_ty = m.result_type(index).ok_or_else(|| {
        Error::Internal("the index of an access chain into a binding array has no type".into())
    })?;
    let types: Vec<Word> = site
        .args
        .iter()
        .map(|&a| {
            m.result_type(a).ok_or_else(|| {
                Error::Internal(format!("the image access argument %{a} has no type"))
            })
        })
        .collect::<Result<_>>()?;
    let mut ty_operands = vec![
        Operand::IdRef(ret),
        Operand::IdRef(index_ty),
        Operand::IdRef(ptr),
    ];
    ty_operands.extend(types.iter().map(|&t| Operand::IdRef(t)));
    let fty = m.add_global(Op::TypeFunction, None, ty_operands);
    let f = m.fresh();
    m.set_name(f, ARRAY_ACCESS_FUNCTION);
    let i = m.fresh();
    let p = m.fresh();
    let selected = m.fresh();
    let params: Vec<(Word, Word)> = types.iter().map(|&t| (t, m.fresh())).collect();
    let loaded = m.fresh();
    let mut body = site.inst.clone();
    body.operands[0] = Operand::IdRef(loaded);
    for o in &mut body.operands[1..] {
        if let Some(k) = id(o).and_then(|a| site.args.iter().position(|&x| x == a)) {
            *o = Operand::IdRef(params[k].1);
        }
    }
    let result = body.result_id.map(|_| m.fresh());
    body.result_id = result;
    let mut instructions = vec![
        with_ids(Op::AccessChain, Some(ptr), Some(selected), &[array, i]),
        with_ids(Op::Load, Some(image), Some(loaded), &[p]),
        body,
    ];
    instructions.push(match result {
        Some(r) => with_ids(Op::ReturnValue, None, None, &[r]),
        None => Instruction::new(Op::Return, None, None, vec![]),
    });
    let mut parameters = vec![
        Instruction::new(Op::FunctionParameter, Some(index_ty), Some(i), vec![]),
        Instruction::new(Op::FunctionParameter, Some(ptr), Some(p), vec![]),
    ];
    parameters.extend(
        params
            .iter()
            .map(|&(t, r)| Instruction::new(Op::FunctionParameter, Some(t), Some(r), vec![])),
    );
    let function = Function {
        def: Some(Instruction::new(
            Op::Function,
            Some(ret),
            Some(f),
            vec![
                Operand::FunctionControl(FunctionControl::NONE),
                Operand::IdRef(fty),
            ],
        )),
        end: Some(Instruction::new(Op::FunctionEnd, None, None, vec![])),
        parameters,
        blocks: vec![Block {
            label: Some(Instruction::new(Op::Label, None, Some(m.fresh()), vec![])),
            instructions,
        }],
    };
    Ok((function, f, ret))
}

/// The name of the functions [`outline_binding_array_accesses`] makes; the
/// IR pass [`crate::lower::ir::binding_array_accesses`] finds them by it.
pub const ARRAY_ACCESS_FUNCTION: &str = "atomport_binding_array_access";

/// Texel fetches, storage-image reads and writes on an element of a binding
/// array (`texelFetch(textures[nonuniformEXT(i)], p, 0)`) each go into a
/// function of their own, [`ARRAY_ACCESS_FUNCTION`], that takes the
/// element's index, the element, and the access's other operands. naga's
/// SPIR-V reader types such an access by the variable it comes from — the
/// array, not its element — and refuses it ("invalid image"), while it reads
/// an image parameter as the image it is. The function also selects the
/// element by the index itself (an access chain nothing loads), which the IR
/// pass then makes the access's image: inside the function the index is
/// non-uniform, so naga's SPIR-V writer marks the element `NonUniform`
/// there, as drivers need (an image passed as a parameter loses the mark).
/// Returns how many.
pub fn outline_binding_array_accesses(m: &mut Model) -> Result<usize> {
    let arrays: std::collections::HashSet<Word> = m
        .variables()
        .filter(|&(_, class, pointee)| {
            class == StorageClass::UniformConstant
                && m.global(pointee).is_some_and(|t| {
                    matches!(t.class.opcode, Op::TypeArray | Op::TypeRuntimeArray)
                        && t.operands.first().and_then(id).and_then(|e| m.op_of(e))
                            == Some(Op::TypeImage)
                })
        })
        .map(|v| v.0)
        .collect();
    if arrays.is_empty() {
        return Ok(0);
    }
    // The access chain an image value was loaded through, if it selects an
    // element of a binding array.
    let chain_of = |m: &Model, mut value: Word| -> Option<Word> {
        for _ in 0..8 {
            let d = m.def(value)?;
            match d.class.opcode {
                Op::Image | Op::SampledImage | Op::CopyObject => {
                    value = d.operands.first().and_then(id)?;
                }
                Op::Load => {
                    let p = d.operands.first().and_then(id)?;
                    let c = m.def(p)?;
                    let base = c.operands.first().and_then(id)?;
                    return (matches!(c.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                        && arrays.contains(&base))
                    .then_some(p);
                }
                _ => return None,
            }
        }
        None
    };
    let mut sites: Vec<Outlined> = Vec::new();
    for inst in m.instructions() {
        if !matches!(
            inst.class.opcode,
            Op::ImageFetch | Op::ImageRead | Op::ImageWrite
        ) {
            continue;
        }
        let Some(chain) = inst
            .operands
            .first()
            .and_then(id)
            .and_then(|i| chain_of(m, i))
        else {
            continue;
        };
        let mut args: Vec<Word> = Vec::new();
        for a in inst.operands[1..].iter().filter_map(id) {
            if !m.is_global(a) && !args.contains(&a) {
                args.push(a);
            }
        }
        sites.push(Outlined {
            inst: inst.clone(),
            chain,
            args,
        });
    }
    if sites.is_empty() {
        return Ok(0);
    }
    let void = m.void_type();
    // instruction (by its operands and result) -> (function, its result type)
    let mut calls: HashMap<String, (Word, Word)> = HashMap::default();
    let mut functions = Vec::new();
    for site in &sites {
        let key = format!("{:?}", site.inst);
        if calls.contains_key(&key) {
            continue;
        }
        let (function, f, ret) = outline(m, site, void)?;
        functions.push(function);
        calls.insert(key, (f, ret));
    }
    let mut chains: HashMap<String, (Word, Word, Vec<Word>)> = HashMap::default();
    for s in sites {
        let index = m
            .def(s.chain)
            .and_then(|c| c.operands.get(1).and_then(id))
            .unwrap_or(0);
        chains.insert(format!("{:?}", s.inst), (index, s.chain, s.args));
    }
    let n = m.rewrite(|e, inst| {
        let key = format!("{:?}", inst);
        let (Some(&(f, ret)), Some((index, chain, args))) = (calls.get(&key), chains.get(&key))
        else {
            return Ok(false);
        };
        let r = inst.result_id.unwrap_or_else(|| e.fresh());
        let mut operands = vec![
            Operand::IdRef(f),
            Operand::IdRef(*index),
            Operand::IdRef(*chain),
        ];
        operands.extend(args.iter().map(|&a| Operand::IdRef(a)));
        e.push(Instruction::new(
            Op::FunctionCall,
            Some(ret),
            Some(r),
            operands,
        ));
        Ok(true)
    })?;
    let module = m.module_mut();
    let rest = std::mem::take(&mut module.functions);
    module.functions = functions.into_iter().chain(rest).collect();
    Ok(n)
}

/// Declares the 2- and 3-component `int`, `uint` and `float` vector types
/// in a module with arrayed images: naga's reader splits an arrayed
/// image's coordinates into such a vector and the layer, and panics when
/// the module never declared the vector type (a `texelFetch` on a
/// `sampler2DArray` with `ivec3` coordinates).
pub fn declare_coordinate_types(m: &mut Model) {
    let arrayed = m.module().types_global_values.iter().any(|i| {
        i.class.opcode == Op::TypeImage && i.operands.get(3) == Some(&Operand::LiteralBit32(1))
    });
    if !arrayed {
        return;
    }
    for scalar in [m.int_type(32, true), m.uint(), m.float_type(32)] {
        for n in [2u32, 3] {
            m.vector_type(scalar, n);
        }
    }
}

/// Implicit-LOD sampling becomes explicit at level 0 (or at the bias, which
/// GLSL adds to the level 0 of non-fragment stages); returns how many.
pub fn explicit_lod_sampling(m: &mut Model) -> Result<usize> {
    let implicit = |op: Op| {
        matches!(
            op,
            Op::ImageSampleImplicitLod
                | Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleProjImplicitLod
                | Op::ImageSampleProjDrefImplicitLod
        )
    };
    if !m.instructions().any(|i| implicit(i.class.opcode)) {
        return Ok(0);
    }
    let float = m
        .float32()
        .ok_or_else(|| Error::shader("malformed SPIR-V: sampling without a 32-bit float type"))?;
    let zero = m.constant(float, 0);
    m.rewrite(|e, inst| {
        if !implicit(inst.class.opcode) {
            return Ok(false);
        }
        let (op, fixed) = match inst.class.opcode {
            Op::ImageSampleImplicitLod => (Op::ImageSampleExplicitLod, 2),
            Op::ImageSampleDrefImplicitLod => (Op::ImageSampleDrefExplicitLod, 3),
            Op::ImageSampleProjImplicitLod => (Op::ImageSampleProjExplicitLod, 2),
            _ => (Op::ImageSampleProjDrefExplicitLod, 3),
        };
        let mut operands: Vec<Operand> = inst.operands[..fixed.min(inst.operands.len())].to_vec();
        let (mask, ids) = match inst.operands.get(fixed) {
            Some(Operand::ImageOperands(m)) => (*m, inst.operands[fixed + 1..].to_vec()),
            _ => (ImageOperands::NONE, Vec::new()),
        };
        // Operand ids follow the mask's bits in order: Bias (first) becomes
        // Lod; MinLod (only for implicit or gradient sampling) is dropped.
        let mut rest = ids.into_iter();
        let mut new_mask = ImageOperands::LOD;
        let lod = if mask.contains(ImageOperands::BIAS) {
            rest.next().unwrap_or(Operand::IdRef(zero))
        } else {
            Operand::IdRef(zero)
        };
        let mut new_ids = vec![lod];
        for bit in [
            ImageOperands::CONST_OFFSET,
            ImageOperands::OFFSET,
            ImageOperands::CONST_OFFSETS,
            ImageOperands::SAMPLE,
            ImageOperands::MIN_LOD,
        ] {
            if mask.contains(bit) {
                let v = rest.next();
                if bit != ImageOperands::MIN_LOD {
                    new_mask |= bit;
                    new_ids.extend(v);
                }
            }
        }
        operands.push(Operand::ImageOperands(new_mask));
        operands.extend(new_ids);
        e.push(Instruction::new(
            op,
            inst.result_type,
            inst.result_id,
            operands,
        ));
        Ok(true)
    })
}

/// An array texture whose layer count reaches the shader as an override.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerCount {
    /// Descriptor set of the texture.
    pub group: u32,
    /// Binding of the texture.
    pub binding: u32,
    /// The override id (WGSL `@id`) that receives the layer count (cubes
    /// for a cube array) of the bound texture.
    pub override_id: u32,
}

/// `textureSize`/`imageSize` of an array texture: naga's reader drops the
/// layer count (it answers the size of one layer). The query becomes the
/// size of one layer and the layer count, an override constant the runtime
/// sets from the bound texture, as the image pass does for image sizes.
pub fn array_sizes_from_overrides(m: &mut Model) -> Result<Vec<LayerCount>> {
    // The arrayed image variable a size query asks of.
    let queried = |m: &Model, i: &Instruction| -> Option<Word> {
        if !matches!(i.class.opcode, Op::ImageQuerySize | Op::ImageQuerySizeLod) {
            return None;
        }
        let img = i.operands.first().and_then(id)?;
        let ty = m.global(m.result_type(img)?)?;
        if ty.class.opcode != Op::TypeImage || ty.operands.get(3) != Some(&Operand::LiteralBit32(1))
        {
            return None;
        }
        m.source_variable(img)
    };
    // Ids handed out from the last query up, as they always were.
    let mut vars: Vec<Word> = Vec::new();
    for v in m
        .instructions()
        .filter_map(|i| queried(m, i))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        if !vars.contains(&v) {
            vars.push(v);
        }
    }
    if vars.is_empty() {
        return Ok(Vec::new());
    }
    // Per variable: the layer count's constant and what it answers.
    let mut free = m.free_spec_ids(2000);
    let mut counts: HashMap<Word, (Word, LayerCount)> = HashMap::default();
    for var in vars {
        let (group, binding) = m.slot(var);
        let lc = LayerCount {
            group,
            binding,
            override_id: free.take()?,
        };
        counts.insert(var, (m.fresh(), lc));
    }
    // (vector type, its scalar, its length) of each query's result, and
    // the types one shorter.
    let mut shorter: HashMap<Word, (Word, u32, Word)> = HashMap::default();
    let queries: Vec<Word> = m
        .instructions()
        .filter(|i| queried(m, i).is_some())
        .filter_map(|i| i.result_type)
        .collect();
    for ty in queries {
        let Some(t) = m.global(ty) else { continue };
        // An array texture's size is a vector of 2 to 4 components.
        let (Op::TypeVector, Some(scalar), Some(&Operand::LiteralBit32(n @ 2..=4))) = (
            t.class.opcode,
            t.operands.first().and_then(id),
            t.operands.get(1),
        ) else {
            continue;
        };
        let short = if n == 2 {
            scalar
        } else {
            m.vector_type(scalar, n - 1)
        };
        shorter.insert(ty, (scalar, n, short));
    }
    // Each count declared with the scalar type of its queries (int or uint).
    let mut scalar_of_count: HashMap<Word, Word> = HashMap::default();
    m.rewrite(|e, inst| {
        let Some(var) = queried(e.m, inst) else {
            return Ok(false);
        };
        let (Some(result_ty), Some(result)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let Some(&(scalar, n, short)) = shorter.get(&result_ty) else {
            return Ok(false);
        };
        let layers = counts[&var].0;
        scalar_of_count.insert(layers, scalar);
        // The size of one layer: a vector one shorter, or the scalar.
        let layer_size = e.fresh();
        let mut query = inst.clone();
        query.result_type = Some(short);
        query.result_id = Some(layer_size);
        e.push(query);
        let mut parts: Vec<Word> = if n == 2 {
            vec![layer_size]
        } else {
            (0..n - 1)
                .map(|k| e.extract(scalar, layer_size, k))
                .collect()
        };
        parts.push(layers);
        e.push(with_ids(
            Op::CompositeConstruct,
            Some(result_ty),
            Some(result),
            &parts,
        ));
        Ok(true)
    })?;
    Ok(declare_layer_counts(m, counts, &scalar_of_count))
}

/// Declares each layer count (an override, of the scalar type its queries
/// use) and returns them in binding order.
fn declare_layer_counts(
    m: &mut Model,
    counts: HashMap<Word, (Word, LayerCount)>,
    scalar_of_count: &HashMap<Word, Word>,
) -> Vec<LayerCount> {
    // In override order, so that the output is the same on every run.
    let mut counts: Vec<(Word, LayerCount)> = counts.into_values().collect();
    counts.sort_by_key(|(_, lc)| lc.override_id);
    let mut out = Vec::new();
    for (c, lc) in counts {
        let Some(&scalar) = scalar_of_count.get(&c) else {
            continue;
        };
        m.push_global(Instruction::new(
            Op::SpecConstant,
            Some(scalar),
            Some(c),
            vec![Operand::LiteralBit32(1)],
        ));
        m.decorate(c, Decoration::SpecId, &[lc.override_id]);
        out.push(lc);
    }
    out.sort_by_key(|l| (l.group, l.binding));
    out
}
