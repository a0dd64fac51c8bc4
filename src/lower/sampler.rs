//! SPIR-V passes for sampled textures:
//!
//! - Combined image samplers (`sampler2D`, `isampler3D`, `samplerCube`,
//!   `sampler2DShadow`, and arrays of them indexed by constants), which
//!   naga's reader cannot take ("invalid id"), become a texture at the
//!   combined sampler's own (set, binding) and a sampler at the next free
//!   binding of the set. Every load of the combined sampler becomes a load
//!   of each and an `OpSampledImage`, which naga reads as the pair it is.
//! - Implicit-LOD sampling (`texture()` outside fragment shaders, where
//!   GLSL defines the level as 0 plus the bias) becomes explicit-LOD
//!   sampling at that level: WGSL's `textureSample` exists in fragment
//!   shaders only.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, ImageOperands, Op, StorageClass, Word};

use super::spirv::{Defs, Rewriter, id};
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

/// Splits every combined image sampler variable; returns what it split.
pub fn split_combined_samplers(module: &mut Module) -> Result<Vec<SplitSampler>> {
    let defs = Defs::new(module);
    let names = super::spirv::debug_names(module);
    // (variable, element SI type, array length constant or None, runtime?)
    let mut found: Vec<(Word, Word, Option<Word>, bool)> = Vec::new();
    for i in &module.types_global_values {
        if i.class.opcode != Op::Variable
            || i.operands.first() != Some(&Operand::StorageClass(StorageClass::UniformConstant))
        {
            continue;
        }
        let (Some(var), Some(ptr)) = (i.result_id, i.result_type) else {
            continue;
        };
        let Some((_, pointee)) = defs.pointer(ptr) else {
            continue;
        };
        let Some(t) = defs.globals.get(&pointee) else {
            continue;
        };
        match t.class.opcode {
            Op::TypeSampledImage => found.push((var, pointee, None, false)),
            Op::TypeArray | Op::TypeRuntimeArray => {
                let Some(e) = t.operands.first().and_then(id) else {
                    continue;
                };
                if defs
                    .globals
                    .get(&e)
                    .is_some_and(|e| e.class.opcode == Op::TypeSampledImage)
                {
                    let len = t.operands.get(1).and_then(id);
                    found.push((var, e, len, t.class.opcode == Op::TypeRuntimeArray));
                }
            }
            _ => {}
        }
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let (sets, bindings) = super::spirv::sets_and_bindings(module);
    let mut free = super::spirv::FreeBindings::new(&sets, &bindings);
    let mut rw = Rewriter::new(module);
    let sampler_ty = sampler_type(&mut rw);
    let mut split = Vec::new();
    // variable -> its (texture, sampler) variables, one pair per element
    let mut pairs: HashMap<Word, Vec<(Word, Word)>> = HashMap::new();
    for &(var, si, len, runtime) in &found {
        let image = defs
            .globals
            .get(&si)
            .and_then(|t| t.operands.first())
            .and_then(id)
            .ok_or_else(|| {
                Error::shader("malformed SPIR-V: OpTypeSampledImage without an image")
            })?;
        let name = names.get(&var).cloned().unwrap_or_default();
        // An array of combined samplers becomes one texture and one sampler
        // per element, each at a binding of its own (WGSL binds them one by one).
        let count = match (len, runtime) {
            (None, false) => None,
            (Some(l), false) => Some(defs.constant_u32(l).filter(|&n| (1..=64).contains(&n)).ok_or_else(
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
        let image_ptr = rw.pointer_to(StorageClass::UniformConstant, image);
        let sampler_ptr = rw.pointer_to(StorageClass::UniformConstant, sampler_ty);
        let set = sets.get(&var).copied().unwrap_or(0);
        let first_binding = bindings.get(&var).copied().unwrap_or(0);
        let add_var = |rw: &mut Rewriter, ptr: Word, binding: u32, label: String| {
            let v = rw.fresh();
            let at = rw
                .position(var)
                .map_or(rw.module.types_global_values.len(), |p| p + 1);
            rw.module.types_global_values.insert(
                at,
                Instruction::new(
                    Op::Variable,
                    Some(ptr),
                    Some(v),
                    vec![Operand::StorageClass(StorageClass::UniformConstant)],
                ),
            );
            for (d, x) in [
                (Decoration::DescriptorSet, set),
                (Decoration::Binding, binding),
            ] {
                rw.module.annotations.push(Instruction::new(
                    Op::Decorate,
                    None,
                    None,
                    vec![
                        Operand::IdRef(v),
                        Operand::Decoration(d),
                        Operand::LiteralBit32(x),
                    ],
                ));
            }
            rw.module.debug_names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![Operand::IdRef(v), Operand::LiteralString(label)],
            ));
            v
        };
        let mut next = |set: u32| free.take(set);
        let mut elements = Vec::new();
        match count {
            None => {
                rw.set_result_type(var, image_ptr);
                let b = next(set)?;
                let svar = add_var(&mut rw, sampler_ptr, b, format!("{name}{SAMPLER_SUFFIX}"));
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
                    let tb = if k == 0 { first_binding } else { next(set)? };
                    let tvar = add_var(&mut rw, image_ptr, tb, element.clone());
                    let sb = next(set)?;
                    let svar = add_var(
                        &mut rw,
                        sampler_ptr,
                        sb,
                        format!("{element}{SAMPLER_SUFFIX}"),
                    );
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
    // The arrays themselves are gone: only their elements are bound.
    let arrays: Vec<Word> = found
        .iter()
        .filter(|f| f.2.is_some())
        .map(|f| f.0)
        .collect();
    // (From SPIR-V 1.4 the entry point lists them too.)
    super::spirv::remove_globals(rw.module, |r| arrays.contains(&r));
    rewrite_uses(&mut rw, &defs, &names, &found, &pairs, sampler_ty)?;
    Ok(split)
}

/// `OpTypeSampler`, found or created at the start of the types.
fn sampler_type(rw: &mut Rewriter) -> Word {
    if let Some(s) = rw
        .module
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeSampler)
        .and_then(|i| i.result_id)
    {
        return s;
    }
    let s = rw.fresh();
    rw.module
        .types_global_values
        .insert(0, Instruction::new(Op::TypeSampler, None, Some(s), vec![]));
    s
}

/// Loads of a split variable (or of an element of a split array, selected
/// by a constant) become a load of its texture, a load of its sampler and
/// an `OpSampledImage`.
fn rewrite_uses(
    rw: &mut Rewriter,
    defs: &Defs,
    names: &HashMap<Word, String>,
    found: &[(Word, Word, Option<Word>, bool)],
    pairs: &HashMap<Word, Vec<(Word, Word)>>,
    sampler_ty: Word,
) -> Result<()> {
    let image_of: HashMap<Word, Word> = found
        .iter()
        .filter_map(|&(v, si, _, _)| {
            let img = defs.globals.get(&si)?.operands.first().and_then(id)?;
            Some((v, img))
        })
        .collect();
    // Pointer -> (split variable, its texture and sampler variables).
    let mut alias: HashMap<Word, (Word, Word, Word)> = pairs
        .iter()
        .filter(|(v, e)| e.len() == 1 && e[0].0 == **v)
        .map(|(v, e)| (*v, (*v, e[0].0, e[0].1)))
        .collect();
    let arrays: HashMap<Word, &Vec<(Word, Word)>> = pairs
        .iter()
        .filter(|(v, e)| !(e.len() == 1 && e[0].0 == **v))
        .map(|(v, e)| (*v, e))
        .collect();
    let mut bound = rw.module.header.as_ref().map_or(0, |h| h.bound);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    for f in &mut rw.module.functions {
        for b in &mut f.blocks {
            let mut out = Vec::with_capacity(b.instructions.len());
            for inst in std::mem::take(&mut b.instructions) {
                let first = inst.operands.first().and_then(id);
                match (inst.class.opcode, first) {
                    (Op::AccessChain | Op::InBoundsAccessChain, Some(base))
                        if arrays.contains_key(&base) =>
                    {
                        let elements = arrays[&base];
                        let label = names.get(&base).map_or("?", String::as_str);
                        let indices: Vec<Word> = inst.operands[1..].iter().filter_map(id).collect();
                        let k = match indices.as_slice() {
                            [i] => defs.constant_u32(*i),
                            _ => None,
                        };
                        let Some(&(tex, samp)) = k.and_then(|k| elements.get(k as usize)) else {
                            return Err(Error::Unsupported(format!(
                                "the combined sampler array `{label}` is indexed by a value known only at run time: WGSL binds each texture and sampler on its own; index it with constants"
                            )));
                        };
                        if let Some(r) = inst.result_id {
                            alias.insert(r, (base, tex, samp));
                        }
                    }
                    (Op::Load, Some(ptr)) if alias.contains_key(&ptr) => {
                        let (var, tex, samp) = alias[&ptr];
                        let (Some(r), Some(si)) = (inst.result_id, inst.result_type) else {
                            out.push(inst);
                            continue;
                        };
                        let (t, s) = (fresh(), fresh());
                        out.push(Instruction::new(
                            Op::Load,
                            Some(image_of[&var]),
                            Some(t),
                            vec![Operand::IdRef(tex)],
                        ));
                        out.push(Instruction::new(
                            Op::Load,
                            Some(sampler_ty),
                            Some(s),
                            vec![Operand::IdRef(samp)],
                        ));
                        out.push(Instruction::new(
                            Op::SampledImage,
                            Some(si),
                            Some(r),
                            vec![Operand::IdRef(t), Operand::IdRef(s)],
                        ));
                    }
                    (op, _) => {
                        // Any other use of a split pointer (a function argument,
                        // a whole-array load).
                        if let Some(p) = inst
                            .operands
                            .iter()
                            .filter_map(id)
                            .find(|p| alias.contains_key(p) || arrays.contains_key(p))
                        {
                            let var = alias.get(&p).map_or(p, |a| a.0);
                            return Err(Error::Unsupported(format!(
                                "the combined sampler `{}` is used by Op{op:?} (passed to a function, or a whole array loaded): atomport splits combined samplers where they are loaded; load them where they are used",
                                names.get(&var).map_or("?", String::as_str)
                            )));
                        }
                        out.push(inst);
                    }
                }
            }
            b.instructions = out;
        }
    }
    if let Some(h) = rw.module.header.as_mut() {
        h.bound = bound;
    }
    Ok(())
}

/// Declares the 2- and 3-component `int`, `uint` and `float` vector types
/// in a module with arrayed images: naga's reader splits an arrayed
/// image's coordinates into such a vector and the layer, and panics when
/// the module never declared the vector type (a `texelFetch` on a
/// `sampler2DArray` with `ivec3` coordinates).
pub fn declare_coordinate_types(module: &mut Module) {
    let arrayed = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::TypeImage && i.operands.get(3) == Some(&Operand::LiteralBit32(1))
    });
    if !arrayed {
        return;
    }
    let mut rw = Rewriter::new(module);
    for (op, operands) in [
        (
            Op::TypeInt,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(1)],
        ),
        (
            Op::TypeInt,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        ),
        (Op::TypeFloat, vec![Operand::LiteralBit32(32)]),
    ] {
        let scalar = match rw
            .module
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == op && i.operands == operands)
            .and_then(|i| i.result_id)
        {
            Some(s) => s,
            None => {
                let s = rw.fresh();
                rw.module
                    .types_global_values
                    .insert(0, Instruction::new(op, None, Some(s), operands.clone()));
                s
            }
        };
        for n in [2u32, 3] {
            let want = vec![Operand::IdRef(scalar), Operand::LiteralBit32(n)];
            let exists = rw
                .module
                .types_global_values
                .iter()
                .any(|i| i.class.opcode == Op::TypeVector && i.operands == want);
            if !exists {
                let v = rw.fresh();
                let at = rw.position(scalar).map_or(0, |p| p + 1);
                rw.module
                    .types_global_values
                    .insert(at, Instruction::new(Op::TypeVector, None, Some(v), want));
            }
        }
    }
}

/// Refuses sampling an integer texture with a sampler, which WGSL has no
/// form for (`textureLod` on an `isampler2D`); `texelFetch` reads one.
pub fn refuse_integer_sampling(module: &Module) -> Result<()> {
    let defs = Defs::new(module);
    let result_types = super::spirv::result_types(module);
    for i in super::spirv::all_function_instructions(module) {
        // Gathers of integer textures are WGSL's too: only sampling is refused.
        if !i.class.opname.starts_with("ImageSample") {
            continue;
        }
        let Some(si) = i
            .operands
            .first()
            .and_then(id)
            .and_then(|v| result_types.get(&v))
        else {
            continue;
        };
        // OpTypeSampledImage -> OpTypeImage -> sampled type.
        let image = defs
            .globals
            .get(si)
            .and_then(|t| t.operands.first())
            .and_then(id);
        let sampled = image
            .and_then(|t| defs.globals.get(&t))
            .and_then(|t| t.operands.first())
            .and_then(id)
            .and_then(|t| defs.globals.get(&t));
        if sampled.is_some_and(|t| t.class.opcode == Op::TypeInt) {
            let texture = i
                .operands
                .first()
                .and_then(id)
                .and_then(|v| source_variable(&defs, v))
                .and_then(|var| super::spirv::debug_names(module).remove(&var))
                .unwrap_or_else(|| "?".into());
            return Err(Error::Unsupported(format!(
                "the integer texture `{texture}` is sampled (texture/textureLod on an isampler or usampler): WGSL samples float textures only; read its texels with texelFetch"
            )));
        }
    }
    Ok(())
}

/// Implicit-LOD sampling becomes explicit at level 0 (or at the bias, which
/// GLSL adds to the level 0 of non-fragment stages); returns how many.
pub fn explicit_lod_sampling(module: &mut Module) -> Result<usize> {
    let mut sites = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if matches!(
                    i.class.opcode,
                    Op::ImageSampleImplicitLod
                        | Op::ImageSampleDrefImplicitLod
                        | Op::ImageSampleProjImplicitLod
                        | Op::ImageSampleProjDrefImplicitLod
                ) {
                    sites.push((fi, bi, ii));
                }
            }
        }
    }
    if sites.is_empty() {
        return Ok(0);
    }
    let mut rw = Rewriter::new(module);
    let zero = float_zero(&mut rw)?;
    for &(fi, bi, ii) in &sites {
        let inst = &mut rw.module.functions[fi].blocks[bi].instructions[ii];
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
        let mut new_ids = Vec::new();
        let lod = if mask.contains(ImageOperands::BIAS) {
            rest.next().unwrap_or(Operand::IdRef(zero))
        } else {
            Operand::IdRef(zero)
        };
        new_ids.push(lod);
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
        *inst = Instruction::new(op, inst.result_type, inst.result_id, operands);
    }
    Ok(sites.len())
}

/// A 32-bit float constant 0.0, found or created.
fn float_zero(rw: &mut Rewriter) -> Result<Word> {
    let float = rw
        .module
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeFloat && i.operands == [Operand::LiteralBit32(32)])
        .and_then(|i| i.result_id)
        .ok_or_else(|| Error::shader("malformed SPIR-V: sampling without a 32-bit float type"))?;
    if let Some(z) = rw.module.types_global_values.iter().find(|i| {
        i.class.opcode == Op::Constant
            && i.result_type == Some(float)
            && i.operands == [Operand::LiteralBit32(0)]
    }) {
        return Ok(z.result_id.unwrap_or(0));
    }
    let z = rw.fresh();
    let at = rw.position(float).map_or(0, |p| p + 1);
    rw.module.types_global_values.insert(
        at,
        Instruction::new(
            Op::Constant,
            Some(float),
            Some(z),
            vec![Operand::LiteralBit32(0)],
        ),
    );
    Ok(z)
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

/// The variable an image, sampled image or pointer value comes from,
/// through loads and access chains. Bounded: malformed SPIR-V may loop.
fn source_variable(defs: &Defs, mut v: Word) -> Option<Word> {
    for _ in 0..64 {
        let d = defs.def(v)?;
        match d.class.opcode {
            Op::Variable => return Some(v),
            Op::Load | Op::SampledImage | Op::Image | Op::AccessChain | Op::InBoundsAccessChain => {
                v = d.operands.first().and_then(id)?
            }
            _ => return None,
        }
    }
    None
}

/// `textureSize`/`imageSize` of an array texture: naga's reader drops the
/// layer count (it answers the size of one layer). The query becomes the
/// size of one layer and the layer count, an override constant the runtime
/// sets from the bound texture, as the image pass does for image sizes.
pub fn array_sizes_from_overrides(module: &mut Module) -> Result<Vec<LayerCount>> {
    let defs = Defs::new(module);
    let types = super::spirv::result_types(module);
    let mut sites = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, i) in b.instructions.iter().enumerate() {
                if !matches!(i.class.opcode, Op::ImageQuerySize | Op::ImageQuerySizeLod) {
                    continue;
                }
                let Some(img) = i.operands.first().and_then(id) else {
                    continue;
                };
                let Some(img_ty) = types.get(&img).and_then(|t| defs.globals.get(t)) else {
                    continue;
                };
                if img_ty.class.opcode != Op::TypeImage
                    || img_ty.operands.get(3) != Some(&Operand::LiteralBit32(1))
                {
                    continue;
                }
                let Some(var) = source_variable(&defs, img) else {
                    continue;
                };
                sites.push((fi, bi, ii, var));
            }
        }
    }
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let (sets, bindings) = super::spirv::sets_and_bindings(module);
    let mut next_spec_id = super::spirv::next_free_spec_id(module, 2000);
    let mut rw = Rewriter::new(module);
    // variable -> (count constant, its scalar type, what it answers)
    let mut counts: HashMap<Word, (Word, Word, LayerCount)> = HashMap::new();
    // Back to front, so that inserted instructions keep earlier indices.
    for &(fi, bi, ii, var) in sites.iter().rev() {
        let inst = rw.module.functions[fi].blocks[bi].instructions[ii].clone();
        let (Some(result_ty), Some(result)) = (inst.result_type, inst.result_id) else {
            continue;
        };
        let Some(vec_ty) = defs.globals.get(&result_ty) else {
            continue;
        };
        // An array texture's size is a vector of 2 to 4 components.
        let (Op::TypeVector, Some(scalar), Some(&Operand::LiteralBit32(n @ 2..=4))) = (
            vec_ty.class.opcode,
            vec_ty.operands.first().and_then(id),
            vec_ty.operands.get(1),
        ) else {
            continue;
        };
        let layers = match counts.get(&var) {
            Some(&(c, _, _)) => c,
            None => {
                let c = rw.fresh();
                let override_id = super::spirv::take_spec_id(&mut next_spec_id)?;
                let lc = LayerCount {
                    group: sets.get(&var).copied().unwrap_or(0),
                    binding: bindings.get(&var).copied().unwrap_or(0),
                    override_id,
                };
                counts.insert(var, (c, scalar, lc));
                c
            }
        };
        // The size of one layer: a vector one shorter, or the scalar.
        let short = match n - 1 {
            1 => scalar,
            m => {
                let found = rw
                    .module
                    .types_global_values
                    .iter()
                    .find(|t| {
                        t.class.opcode == Op::TypeVector
                            && t.operands == [Operand::IdRef(scalar), Operand::LiteralBit32(m)]
                    })
                    .and_then(|t| t.result_id);
                match found {
                    Some(s) => s,
                    None => {
                        let s = rw.fresh();
                        let at = rw.position(scalar).map_or(0, |p| p + 1);
                        rw.module.types_global_values.insert(
                            at,
                            Instruction::new(
                                Op::TypeVector,
                                None,
                                Some(s),
                                vec![Operand::IdRef(scalar), Operand::LiteralBit32(m)],
                            ),
                        );
                        s
                    }
                }
            }
        };
        let layer_size = rw.fresh();
        let mut query = inst.clone();
        query.result_type = Some(short);
        query.result_id = Some(layer_size);
        let mut parts = Vec::new();
        let mut new_insts = vec![query];
        if n == 2 {
            parts.push(layer_size);
        } else {
            for k in 0..n - 1 {
                let e = rw.fresh();
                new_insts.push(Instruction::new(
                    Op::CompositeExtract,
                    Some(scalar),
                    Some(e),
                    vec![Operand::IdRef(layer_size), Operand::LiteralBit32(k)],
                ));
                parts.push(e);
            }
        }
        parts.push(layers);
        new_insts.push(Instruction::new(
            Op::CompositeConstruct,
            Some(result_ty),
            Some(result),
            parts.into_iter().map(Operand::IdRef).collect(),
        ));
        let block = &mut rw.module.functions[fi].blocks[bi].instructions;
        block.splice(ii..=ii, new_insts);
    }
    // In override order, so that the output is the same on every run.
    let mut counts: Vec<_> = counts.into_values().collect();
    counts.sort_by_key(|(_, _, lc)| lc.override_id);
    let mut out = Vec::new();
    for (c, scalar, lc) in counts {
        // Declared with the scalar type of the queries (int or uint).
        rw.module.types_global_values.push(Instruction::new(
            Op::SpecConstant,
            Some(scalar),
            Some(c),
            vec![Operand::LiteralBit32(1)],
        ));
        rw.module.annotations.push(Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![
                Operand::IdRef(c),
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(lc.override_id),
            ],
        ));
        out.push(lc);
    }
    out.sort_by_key(|l| (l.group, l.binding));
    Ok(out)
}
