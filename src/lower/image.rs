//! SPIR-V pass: storage images used by image atomics — and storage images of
//! a shape WGSL has no storage texture for (cube, cube array, multisample,
//! buffer, rect, 1D array) — become storage buffers of texels.
//!
//! WGSL's texture atomics cannot exchange or compare-exchange, return
//! nothing, and exist only for 1D/2D/2D-array/3D. So the image variable
//! becomes, at its own (set, binding), a buffer
//! `{ uint width, height, layers, samples; T texels[]; }` laid out as in
//! [`super::texel`], and every access computes the texel's index:
//!
//! - an image atomic (`OpImageTexelPointer` + `OpAtomic*`) runs the same
//!   atomic on `texels[inb ? index : scratch]` and returns `inb ? old : 0`;
//! - `imageLoad` returns `inb ? (t, 0, 0, 1) : (0, 0, 0, 0)`;
//! - `imageStore` writes `texels[inb ? index : scratch]`;
//! - `imageSize` and `imageSamples` return the sizes.
//!
//! `inb` says that every coordinate and the sample are in range (compared
//! unsigned, so negative ones are out of range too): an invalid access
//! touches only the scratch texel, as GL_ARB_shader_image_load_store asks.
//!
//! The sizes (width, height, layers, samples) are pipeline-overridable
//! constants (`@id(…) override`), which the runtime sets from the bound
//! image, compiling one pipeline per set of sizes: the driver folds them
//! into the addressing. Read from the buffer's header instead, they cost
//! almost half the throughput of native texture atomics on lavapipe
//! (measured: 0.55 of native; with constants: 1.0). The header stays in the
//! buffer so that it describes itself.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, ImageFormat as SpvFormat, Op, StorageClass, Word};
use serde::Serialize;

use super::spirv::{Defs, id};
use super::texel::{ImageDim, ImageFormat};
use crate::{Error, Result};

/// An image the pass turned into a texel buffer, for the binding map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ImageBinding {
    /// Descriptor set.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// The GLSL image type's shape.
    pub dim: ImageDim,
    /// The texel format.
    pub format: ImageFormat,
    /// The override ids that carry (width, height, layers, samples): the
    /// runtime compiles the pipeline with the bound image's sizes.
    pub size_overrides: [u32; 4],
}

/// What the pass needs to know of one lowered image.
struct Lowered {
    dim: ImageDim,
    /// Spec constants (width, height, layers, samples).
    sizes: [Word; 4],
    /// Texel scalar type id (uint, int or float).
    texel: Word,
    ptr_texel: Word,
}

/// Ids of types and constants the emitted code uses.
struct Common {
    uint: Word,
    boolean: Word,
    /// `uint 0`: the coordinate of an axis the shape lacks.
    zero: Word,
    /// `uint 4`: the `texels` member of the buffer struct.
    texels_member: Word,
    /// The [`crate::lower::fault::Fault::SwappedImageAxes`] fault.
    swap_axes: bool,
}

/// Lowers the images (with `all_r32`, every r32 storage image); returns the
/// bindings of those it lowered.
pub fn images_to_texel_buffers(
    module: &mut Module,
    all_r32: bool,
    swap_axes: bool,
) -> Result<Vec<ImageBinding>> {
    let defs = Defs::new(module);
    let (set_of, binding_of) = super::spirv::sets_and_bindings(module);
    let names = super::spirv::debug_names(module);
    let texel_pointer_images: Vec<Word> = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::ImageTexelPointer)
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    // (variable, dim, format, texel type)
    let mut chosen: Vec<(Word, ImageDim, ImageFormat, Word, String)> = Vec::new();
    for v in module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
    {
        let var = v.result_id.unwrap_or(0);
        let Some((StorageClass::UniformConstant, pointee)) =
            v.result_type.and_then(|t| defs.pointer(t))
        else {
            continue;
        };
        let Some(img) = defs.globals.get(&pointee) else {
            continue;
        };
        if img.class.opcode != Op::TypeImage {
            continue;
        }
        let lit = |k: usize| match img.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => 0,
        };
        if lit(5) != 2 {
            continue; // sampled images are not storage images
        }
        let (Some(Operand::Dim(dim)), Some(Operand::ImageFormat(format))) =
            (img.operands.get(1), img.operands.get(6))
        else {
            continue;
        };
        let name = names
            .get(&var)
            .cloned()
            .unwrap_or_else(|| format!("%{var}"));
        let shape = ImageDim::from_spirv(*dim, lit(3) == 1, lit(4) == 1);
        let atomic = texel_pointer_images.contains(&var);
        let native = matches!(
            shape,
            Some(ImageDim::D1 | ImageDim::D2 | ImageDim::D2Array | ImageDim::D3)
        );
        let r32 = matches!(format, SpvFormat::R32ui | SpvFormat::R32i | SpvFormat::R32f);
        // 64-bit images always live in texel buffers: WGSL's r64 storage
        // textures need more of the adapter than 64-bit buffer atomics.
        let wide = matches!(format, SpvFormat::R64ui | SpvFormat::R64i);
        let to_buffer = atomic || wide || (all_r32 && r32);
        let stays_texture = native && !to_buffer;
        if stays_texture {
            continue;
        }
        let shape = shape.ok_or_else(|| {
            Error::Unsupported(format!(
                "image `{name}` has a shape ({dim:?}) atomport cannot map"
            ))
        })?;
        let format = match format {
            SpvFormat::R32ui => ImageFormat::R32Uint,
            SpvFormat::R32i => ImageFormat::R32Sint,
            SpvFormat::R32f => ImageFormat::R32Float,
            SpvFormat::R64ui => ImageFormat::R64Uint,
            SpvFormat::R64i => ImageFormat::R64Sint,
            other => {
                let why = if atomic {
                    "image atomics need r32ui, r32i, r32f, r64ui or r64i"
                } else {
                    "WGSL has no storage texture of this shape, and only r32ui, r32i, r32f, r64ui and r64i images can be mapped onto buffers"
                };
                return Err(Error::Unsupported(format!(
                    "image `{name}` ({}) has format {other:?}: {why}",
                    shape.glsl_name()
                )));
            }
        };
        let texel = id(&img.operands[0]).unwrap_or(0);
        chosen.push((var, shape, format, texel, name));
    }
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let mut rw = super::spirv::Rewriter::new(module);
    let uint = rw.uint_type_at_start();
    let boolean = rw.bool_type();
    let [zero, texels_member] = [0, 4].map(|v| {
        let id = rw.fresh();
        rw.module.types_global_values.push(Instruction::new(
            Op::Constant,
            Some(uint),
            Some(id),
            vec![Operand::LiteralBit32(v)],
        ));
        id
    });
    let common = Common {
        uint,
        boolean,
        zero,
        texels_member,
        swap_axes,
    };
    let mut lowered: HashMap<Word, Lowered> = HashMap::new();
    let mut bindings = Vec::new();
    let mut runtime_arrays: HashMap<Word, Word> = HashMap::new();
    // Override ids above any the shader uses.
    let mut next_spec_id = super::spirv::next_free_spec_id(rw.module, 1000);
    for (var, dim, format, texel, name) in &chosen {
        let array = *runtime_arrays.entry(*texel).or_insert_with(|| {
            let a = rw.fresh();
            rw.module.types_global_values.push(Instruction::new(
                Op::TypeRuntimeArray,
                None,
                Some(a),
                vec![Operand::IdRef(*texel)],
            ));
            let stride = 4 * format.words() as u32;
            rw.module
                .annotations
                .push(decorate(a, Decoration::ArrayStride, &[stride]));
            a
        });
        let st = rw.fresh();
        rw.module.types_global_values.push(Instruction::new(
            Op::TypeStruct,
            None,
            Some(st),
            [uint, uint, uint, uint, array]
                .into_iter()
                .map(Operand::IdRef)
                .collect(),
        ));
        rw.module
            .annotations
            .push(decorate(st, Decoration::Block, &[]));
        for (k, member) in ["width", "height", "layers", "samples", "texels"]
            .into_iter()
            .enumerate()
        {
            rw.module.annotations.push(Instruction::new(
                Op::MemberDecorate,
                None,
                None,
                vec![
                    Operand::IdRef(st),
                    Operand::LiteralBit32(k as u32),
                    Operand::Decoration(Decoration::Offset),
                    Operand::LiteralBit32(4 * k as u32),
                ],
            ));
            rw.module.debug_names.push(Instruction::new(
                Op::MemberName,
                None,
                None,
                vec![
                    Operand::IdRef(st),
                    Operand::LiteralBit32(k as u32),
                    Operand::LiteralString(member.into()),
                ],
            ));
        }
        rw.module.debug_names.push(Instruction::new(
            Op::Name,
            None,
            None,
            vec![
                Operand::IdRef(st),
                Operand::LiteralString(format!("{name}_texels")),
            ],
        ));
        let ptr_struct = rw.pointer_to(StorageClass::StorageBuffer, st);
        let ptr_texel = rw.pointer_to(StorageClass::StorageBuffer, *texel);
        // The variable moves after its new types and becomes a storage buffer.
        let at = rw
            .module
            .types_global_values
            .iter()
            .position(|i| i.result_id == Some(*var))
            .expect("the variable was found above");
        let mut v = rw.module.types_global_values.remove(at);
        v.result_type = Some(ptr_struct);
        v.operands[0] = Operand::StorageClass(StorageClass::StorageBuffer);
        rw.module.types_global_values.push(v);
        rw.module.annotations.retain(|a| {
            !(a.class.opcode == Op::Decorate
                && a.operands.first() == Some(&Operand::IdRef(*var))
                && matches!(
                    a.operands.get(1),
                    Some(Operand::Decoration(
                        Decoration::NonReadable | Decoration::NonWritable
                    ))
                ))
        });
        let group = set_of.get(var).copied().unwrap_or(0);
        let binding = binding_of.get(var).copied().unwrap_or(0);
        // The sizes are specialization constants (WGSL overrides), so the
        // driver folds them: reading them from memory at every access cost
        // almost half the throughput of native texture atomics on lavapipe.
        let mut size_overrides = [0u32; 4];
        for id in &mut size_overrides {
            *id = super::spirv::take_spec_id(&mut next_spec_id)?;
        }
        let sizes: [Word; 4] = std::array::from_fn(|k| {
            let c = rw.fresh();
            let spec_id = size_overrides[k];
            rw.module.types_global_values.push(Instruction::new(
                Op::SpecConstant,
                Some(uint),
                Some(c),
                vec![Operand::LiteralBit32(1)],
            ));
            rw.module
                .annotations
                .push(decorate(c, Decoration::SpecId, &[spec_id]));
            let field = ["width", "height", "layers", "samples"][k];
            rw.module.debug_names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![
                    Operand::IdRef(c),
                    Operand::LiteralString(format!("{name}_{field}")),
                ],
            ));
            c
        });
        bindings.push(ImageBinding {
            group,
            binding,
            dim: *dim,
            format: *format,
            size_overrides,
        });
        lowered.insert(
            *var,
            Lowered {
                dim: *dim,
                sizes,
                texel: *texel,
                ptr_texel,
            },
        );
    }
    rewrite_functions(&mut rw, &lowered, &common)?;
    super::spirv::remove_unused_types(module, &[Op::TypePointer, Op::TypeImage]);
    // Every 64-bit image is now a buffer of 64-bit integers: naga's reader
    // knows neither the extension nor the capability.
    module.extensions.retain(|e| {
        !matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == "SPV_EXT_shader_image_int64")
    });
    module.capabilities.retain(|c| {
        !matches!(
            c.operands.first(),
            Some(Operand::Capability(
                rspirv::spirv::Capability::Int64ImageEXT
            ))
        )
    });
    Ok(bindings)
}

fn decorate(target: Word, d: Decoration, literals: &[u32]) -> Instruction {
    let mut ops = vec![Operand::IdRef(target), Operand::Decoration(d)];
    ops.extend(literals.iter().map(|l| Operand::LiteralBit32(*l)));
    Instruction::new(Op::Decorate, None, None, ops)
}

/// Emits instructions into a block, with fresh ids.
struct Emitter<'a> {
    out: Vec<Instruction>,
    bound: &'a mut Word,
}

impl Emitter<'_> {
    fn fresh(&mut self) -> Word {
        *self.bound += 1;
        *self.bound - 1
    }

    fn op(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let r = self.fresh();
        self.out.push(Instruction::new(
            op,
            Some(ty),
            Some(r),
            operands.iter().map(|w| Operand::IdRef(*w)).collect(),
        ));
        r
    }

    fn extract(&mut self, ty: Word, from: Word, k: u32) -> Word {
        let r = self.fresh();
        self.out.push(Instruction::new(
            Op::CompositeExtract,
            Some(ty),
            Some(r),
            vec![Operand::IdRef(from), Operand::LiteralBit32(k)],
        ));
        r
    }
}

/// Per-function state: the ids that stand for a loaded lowered image.
fn rewrite_functions(
    rw: &mut super::spirv::Rewriter,
    lowered: &HashMap<Word, Lowered>,
    common: &Common,
) -> Result<()> {
    let defs = Defs::new(rw.module);
    let result_types = super::spirv::result_types(rw.module);
    // Constants made on demand: (type, None) is OpConstantNull, (type, Some(bits)) a value.
    let mut consts: HashMap<(Word, Option<u32>), Word> = HashMap::new();
    let mut bound = rw.module.header.as_ref().map_or(0, |h| h.bound);
    let mut new_globals: Vec<Instruction> = Vec::new();
    let mut constant = |ty: Word, bits: Option<u32>, bound: &mut Word| -> Word {
        *consts.entry((ty, bits)).or_insert_with(|| {
            let r = *bound;
            *bound += 1;
            new_globals.push(match bits {
                None => Instruction::new(Op::ConstantNull, Some(ty), Some(r), vec![]),
                Some(b) => Instruction::new(
                    Op::Constant,
                    Some(ty),
                    Some(r),
                    vec![super::spirv::literal(
                        b.into(),
                        defs.globals.get(&ty).is_some_and(super::spirv::is_64_bit),
                    )],
                ),
            });
            r
        })
    };
    for f in &mut rw.module.functions {
        // Loaded image id -> variable.
        let mut loaded: HashMap<Word, Word> = HashMap::new();
        // Texel pointer id -> (pointer into the buffer, in-bounds flag).
        let mut texel_ptrs: HashMap<Word, (Word, Word)> = HashMap::new();
        for b in &mut f.blocks {
            let mut em = Emitter {
                out: Vec::with_capacity(b.instructions.len()),
                bound: &mut bound,
            };
            for inst in b.instructions.drain(..) {
                let op = inst.class.opcode;
                let first = inst.operands.first().and_then(id);
                match op {
                    Op::Load if first.is_some_and(|p| lowered.contains_key(&p)) => {
                        loaded.insert(inst.result_id.unwrap_or(0), first.unwrap_or(0));
                    }
                    Op::ImageTexelPointer => {
                        let var = first.unwrap_or(0);
                        let Some(img) = lowered.get(&var) else {
                            em.out.push(inst);
                            continue;
                        };
                        let coord = id(&inst.operands[1]).unwrap_or(0);
                        let sample = id(&inst.operands[2]);
                        let (index, inb) =
                            emit_index(&mut em, common, &defs, &result_types, img, coord, sample)?;
                        let ptr = em.op(
                            Op::AccessChain,
                            img.ptr_texel,
                            &[var, common.texels_member, index],
                        );
                        texel_ptrs.insert(inst.result_id.unwrap_or(0), (ptr, inb));
                    }
                    _ if first.is_some_and(|p| texel_ptrs.contains_key(&p)) => {
                        let (ptr, inb) = texel_ptrs[&first.unwrap_or(0)];
                        let mut atomic = inst.clone();
                        atomic.operands[0] = Operand::IdRef(ptr);
                        match (atomic.result_id, atomic.result_type) {
                            (Some(result), Some(ty)) => {
                                let raw = em.fresh();
                                atomic.result_id = Some(raw);
                                em.out.push(atomic);
                                let zero = constant(ty, None, em.bound);
                                em.out.push(Instruction::new(
                                    Op::Select,
                                    Some(ty),
                                    Some(result),
                                    vec![
                                        Operand::IdRef(inb),
                                        Operand::IdRef(raw),
                                        Operand::IdRef(zero),
                                    ],
                                ));
                            }
                            _ => em.out.push(atomic),
                        }
                    }
                    Op::ImageRead | Op::ImageWrite | Op::ImageQuerySize | Op::ImageQuerySamples
                        if first.is_some_and(|i| loaded.contains_key(&i)) =>
                    {
                        let var = loaded[&first.unwrap_or(0)];
                        let img = &lowered[&var];
                        match op {
                            Op::ImageRead | Op::ImageWrite => {
                                let coord = id(&inst.operands[1]).unwrap_or(0);
                                let sample = image_operand_sample(
                                    &inst,
                                    if op == Op::ImageRead { 2 } else { 3 },
                                );
                                let (index, inb) = emit_index(
                                    &mut em,
                                    common,
                                    &defs,
                                    &result_types,
                                    img,
                                    coord,
                                    sample,
                                )?;
                                let ptr = em.op(
                                    Op::AccessChain,
                                    img.ptr_texel,
                                    &[var, common.texels_member, index],
                                );
                                if op == Op::ImageRead {
                                    let vec_ty = inst.result_type.unwrap_or(0);
                                    let t = em.op(Op::Load, img.texel, &[ptr]);
                                    let zero = constant(img.texel, None, em.bound);
                                    let is_float = defs
                                        .globals
                                        .get(&img.texel)
                                        .is_some_and(|t| t.class.opcode == Op::TypeFloat);
                                    let one_bits = if is_float { 1.0f32.to_bits() } else { 1 };
                                    let one = constant(img.texel, Some(one_bits), em.bound);
                                    let t = em.op(Op::Select, img.texel, &[inb, t, zero]);
                                    let w = em.op(Op::Select, img.texel, &[inb, one, zero]);
                                    em.out.push(Instruction::new(
                                        Op::CompositeConstruct,
                                        Some(vec_ty),
                                        inst.result_id,
                                        [t, zero, zero, w]
                                            .into_iter()
                                            .map(Operand::IdRef)
                                            .collect(),
                                    ));
                                } else {
                                    let texel = id(&inst.operands[2]).unwrap_or(0);
                                    let is_vector = result_types
                                        .get(&texel)
                                        .and_then(|t| defs.globals.get(t))
                                        .is_some_and(|t| t.class.opcode == Op::TypeVector);
                                    let t = if is_vector {
                                        em.extract(img.texel, texel, 0)
                                    } else {
                                        texel
                                    };
                                    em.out.push(Instruction::new(
                                        Op::Store,
                                        None,
                                        None,
                                        vec![Operand::IdRef(ptr), Operand::IdRef(t)],
                                    ));
                                }
                            }
                            Op::ImageQuerySize => {
                                let ty = inst.result_type.unwrap_or(0);
                                let int = scalar_of(&defs, ty);
                                let mut parts = vec![img.sizes[0]];
                                if img.dim.has_height() {
                                    parts.push(img.sizes[1]);
                                }
                                if img.dim.size_count() as usize > parts.len() {
                                    let layers = img.sizes[2];
                                    let layers = if img.dim == ImageDim::CubeArray {
                                        let six = constant(common.uint, Some(6), em.bound);
                                        em.op(Op::UDiv, common.uint, &[layers, six])
                                    } else {
                                        layers
                                    };
                                    parts.push(layers);
                                }
                                let parts: Vec<Word> = parts
                                    .into_iter()
                                    .map(|p| {
                                        if int == common.uint {
                                            p
                                        } else {
                                            em.op(Op::Bitcast, int, &[p])
                                        }
                                    })
                                    .collect();
                                if parts.len() == 1 {
                                    em.out.push(Instruction::new(
                                        Op::CopyObject,
                                        Some(ty),
                                        inst.result_id,
                                        vec![Operand::IdRef(parts[0])],
                                    ));
                                } else {
                                    em.out.push(Instruction::new(
                                        Op::CompositeConstruct,
                                        Some(ty),
                                        inst.result_id,
                                        parts.into_iter().map(Operand::IdRef).collect(),
                                    ));
                                }
                            }
                            _ => {
                                let ty = inst.result_type.unwrap_or(0);
                                let s = img.sizes[3];
                                let s = if ty == common.uint {
                                    s
                                } else {
                                    em.op(Op::Bitcast, ty, &[s])
                                };
                                em.out.push(Instruction::new(
                                    Op::CopyObject,
                                    Some(ty),
                                    inst.result_id,
                                    vec![Operand::IdRef(s)],
                                ));
                            }
                        }
                    }
                    _ => {
                        let uses_lowered = inst
                            .operands
                            .iter()
                            .filter_map(id)
                            .any(|w| lowered.contains_key(&w) || loaded.contains_key(&w));
                        if uses_lowered {
                            return Err(Error::Unsupported(format!(
                                "an image mapped onto a buffer is used by {op:?}, which atomport cannot map \
                                 (imageLoad, imageStore, imageSize, imageSamples and the image atomics can be)"
                            )));
                        }
                        em.out.push(inst);
                    }
                }
            }
            b.instructions = em.out;
        }
    }
    // Constants go after every type, before the image variables that moved to the end.
    let first_var = rw
        .module
        .types_global_values
        .iter()
        .position(|i| i.result_id.is_some_and(|r| lowered.contains_key(&r)))
        .unwrap_or(rw.module.types_global_values.len());
    let tail = rw.module.types_global_values.split_off(first_var);
    rw.module.types_global_values.extend(new_globals);
    rw.module.types_global_values.extend(tail);
    if let Some(h) = rw.module.header.as_mut() {
        h.bound = bound;
    }
    Ok(())
}

/// The `Sample` image operand's id, if the instruction has one at `at`.
fn image_operand_sample(inst: &Instruction, at: usize) -> Option<Word> {
    match inst.operands.get(at) {
        Some(Operand::ImageOperands(m)) if m.contains(rspirv::spirv::ImageOperands::SAMPLE) => {
            // Operands follow the mask in bit order; Sample comes after Bias/Lod/Grad/ConstOffset/Offset/ConstOffsets.
            inst.operands.get(at + 1).and_then(id)
        }
        _ => None,
    }
}

/// The scalar type of a scalar or vector type.
fn scalar_of(defs: &Defs, ty: Word) -> Word {
    match defs.globals.get(&ty) {
        Some(t) if t.class.opcode == Op::TypeVector => id(&t.operands[0]).unwrap_or(ty),
        _ => ty,
    }
}

/// Emits `(index, inb)` for a coordinate (and sample) of image `var`.
#[allow(clippy::too_many_arguments)]
fn emit_index(
    em: &mut Emitter,
    common: &Common,
    defs: &Defs,
    result_types: &HashMap<Word, Word>,
    img: &Lowered,
    coord: Word,
    sample: Option<Word>,
) -> Result<(Word, Word)> {
    let u = common.uint;
    let [w, h, l, s] = img.sizes;
    let coord_ty = result_types.get(&coord).copied().unwrap_or(0);
    let comp_ty = scalar_of(defs, coord_ty);
    let n = img.dim.coordinate_count();
    let as_uint = |em: &mut Emitter, v: Word, ty: Word| {
        if ty == u {
            v
        } else {
            em.op(Op::Bitcast, u, &[v])
        }
    };
    let component = |em: &mut Emitter, k: u32| -> Word {
        if n == 1 {
            coord
        } else {
            em.extract(comp_ty, coord, k)
        }
    };
    let x = component(em, 0);
    let x = as_uint(em, x, comp_ty);
    let y = if img.dim.has_height() {
        let c = component(em, 1);
        as_uint(em, c, comp_ty)
    } else {
        common.zero
    };
    let layer = match img.dim.layer_coordinate() {
        Some(k) => {
            let c = component(em, k);
            as_uint(em, c, comp_ty)
        }
        None => common.zero,
    };
    let smp = match (img.dim.is_multisampled(), sample) {
        (true, Some(sid)) => {
            let sty = result_types.get(&sid).copied().unwrap_or(u);
            as_uint(em, sid, sty)
        }
        _ => common.zero,
    };
    let b = common.boolean;
    let in_x = em.op(Op::ULessThan, b, &[x, w]);
    let in_y = em.op(Op::ULessThan, b, &[y, h]);
    let in_l = em.op(Op::ULessThan, b, &[layer, l]);
    let in_s = em.op(Op::ULessThan, b, &[smp, s]);
    let xy = em.op(Op::LogicalAnd, b, &[in_x, in_y]);
    let xyl = em.op(Op::LogicalAnd, b, &[xy, in_l]);
    let inb = em.op(Op::LogicalAnd, b, &[xyl, in_s]);
    let (x, y) = if common.swap_axes { (y, x) } else { (x, y) };
    // ((s * L + l) * H + y) * W + x
    let sl = em.op(Op::IMul, u, &[smp, l]);
    let sl = em.op(Op::IAdd, u, &[sl, layer]);
    let slh = em.op(Op::IMul, u, &[sl, h]);
    let slh = em.op(Op::IAdd, u, &[slh, y]);
    let lin = em.op(Op::IMul, u, &[slh, w]);
    let lin = em.op(Op::IAdd, u, &[lin, x]);
    // The scratch texel follows the last one: S * L * H * W.
    let total = em.op(Op::IMul, u, &[s, l]);
    let total = em.op(Op::IMul, u, &[total, h]);
    let total = em.op(Op::IMul, u, &[total, w]);
    let index = em.op(Op::Select, u, &[inb, lin, total]);
    Ok((index, inb))
}
