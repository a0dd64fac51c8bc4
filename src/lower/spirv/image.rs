//! SPIR-V pass: storage images used by image atomics — and storage images of
//! a shape WGSL has no storage texture for (cube, cube array, multisample,
//! buffer, rect, 1D array) — become storage buffers of texels.
//!
//! WGSL's texture atomics cannot exchange or compare-exchange, return
//! nothing, and exist only for 1D/2D/2D-array/3D. So the image variable
//! becomes, at its own (set, binding), a buffer
//! `{ uint width, height, layers, samples; T texels[]; }` laid out as in
//! [`crate::lower::memory::texel`], and every access computes the texel's index:
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
//! buffer so that it describes itself, and an unsized array of images used
//! atomically (a binding array of texel buffers, elements of any sizes)
//! reads each element's sizes from it where the element is used.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ImageFormat as SpvFormat, Op, StorageClass, Word};
use serde::Serialize;

use crate::lower::memory::texel::{ChannelKind, ImageDim, ImageFormat};
use crate::lower::model::{Emit, Model, id, with_ids};
use crate::lower::spirv::arrays::SplitArray;
use crate::lower::spirv::float::MaskedStore;
use crate::lower::spirv::formatless::FormatlessImage;
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

/// A storage-image array whose elements share one texel buffer, each in
/// a region of its own (the WebGPU target, where one texel buffer per
/// element would pass `maxStorageBuffersPerShaderStage`): the runtime
/// copies the bound images into it and back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedArray {
    /// Descriptor set.
    pub group: u32,
    /// The binding of the shared buffer (element 0's).
    pub binding: u32,
    /// The array's GLSL name.
    pub name: String,
    /// Each element's overrides, in order.
    pub elements: Vec<crate::PackedElement>,
}

/// What the pass needs to know of one lowered image.
#[derive(Clone)]
struct Lowered {
    dim: ImageDim,
    format: ImageFormat,
    /// Spec constants (width, height, layers, samples).
    sizes: [Word; 4],
    /// The type `imageLoad` gives channels of (the image's sampled type).
    sampled: Word,
    /// The texel buffer's element type: `sampled` when the channels are
    /// whole words, `uint` words of packed texels otherwise.
    texel: Word,
    ptr_texel: Word,
    /// The variable of the buffer that holds the texels: the image's
    /// own, or a packed array's element 0.
    buffer: Word,
    /// For an element of a packed array: the override that gives where
    /// its region starts, in texels of its format.
    base: Option<Word>,
    /// For an unsized array of images (a binding array of texel buffers):
    /// the storage-buffer pointer types to an element's buffer and to a
    /// `uint` of it, through which each access reads the element's sizes
    /// from its header.
    element: Option<(Word, Word)>,
}

/// Ids of types and constants the emitted code uses.
struct Common {
    uint: Word,
    boolean: Word,
    /// `uint 0`: the coordinate of an axis the shape lacks.
    zero: Word,
    /// `uint 4`: the `texels` member of the buffer struct.
    texels_member: Word,
    /// `int`, `float`, `vec2`, `vec4` (float): what packed texels decode through.
    int: Word,
    float: Word,
    vec2: Word,
    vec4: Word,
    /// The GLSL.std.450 import, for the pack and unpack functions.
    glsl: Word,
    /// The [`crate::lower::fault::Fault::SwappedImageAxes`] fault.
    swap_axes: bool,
    /// The sub-word texel stores made, each an `OpAtomicOr` the float pass
    /// makes a masked store.
    stores: std::cell::RefCell<Vec<MaskedStore>>,
}

/// An image variable the pass lowers: (variable, shape, format, sampled
/// type, name, whether it is an unsized array of them).
type Chosen = (Word, ImageDim, ImageFormat, Word, String, bool);

/// Lowers the images (with `all`, every storage image of a declared format;
/// the formatless ones, `keep`, stay); returns the bindings of those it
/// lowered, and the stores of texels smaller than a word, which the float
/// pass makes masked stores ([`crate::lower::spirv::float::WordLoops`]).
///
/// With `pack` (split arrays, and the storage buffers a stage may bind),
/// arrays of storage images whose texel buffers would pass that limit are
/// packed, largest first, until the kernel fits: each array's elements
/// share element 0's buffer, each at an offset an override gives.
pub fn images_to_texel_buffers(
    m: &mut Model,
    all: bool,
    pack: Option<(&[SplitArray], u32)>,
    keep: &[FormatlessImage],
    swap_axes: bool,
) -> Result<(Vec<ImageBinding>, Vec<MaskedStore>, Vec<PackedArray>)> {
    let chosen: Vec<Chosen> = choose(m, all)?
        .into_iter()
        .filter(|c| {
            let (group, binding) = m.slot(c.0);
            !keep.contains(&FormatlessImage { group, binding })
        })
        .collect();
    if chosen.is_empty() {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    let packed_arrays = match pack {
        Some((split, limit)) => arrays_to_pack(m, &chosen, split, limit),
        None => Vec::new(),
    };
    // Each packed element -> (element 0, its position, the array's name).
    let packed_at: HashMap<Word, (Word, usize, &str)> = packed_arrays
        .iter()
        .flat_map(|a| {
            a.vars
                .iter()
                .enumerate()
                .map(move |(k, &v)| (v, (a.vars[0], k, a.name.as_str())))
        })
        .collect();
    let uint = m.uint();
    let float = m.float_type(32);
    let common = Common {
        uint,
        boolean: m.bool_type(),
        zero: m.constant(uint, 0),
        texels_member: m.constant(uint, 4),
        int: m.int_type(32, true),
        float,
        vec2: m.vector_type(float, 2),
        vec4: m.vector_type(float, 4),
        glsl: m.glsl_std_450(),
        swap_axes,
        stores: Default::default(),
    };
    let mut lowered: HashMap<Word, Lowered> = HashMap::default();
    let mut bindings = Vec::new();
    let mut runtime_arrays: HashMap<Word, Word> = HashMap::default();
    // Override ids above any the shader uses.
    let mut spec_ids = m.free_spec_ids(1000);
    let mut packed_elements: HashMap<Word, Vec<(usize, crate::PackedElement)>> = HashMap::default();
    for (var, dim, format, sampled, name, array_of) in &chosen {
        // Whole-word channels are elements of their own type; packed
        // texels are `uint` words.
        let texel = if format.whole_words() { *sampled } else { uint };
        let stride = if format.layout().1 == 64 { 8 } else { 4 };
        let array = *runtime_arrays.entry(texel).or_insert_with(|| {
            let a = m.add_global(Op::TypeRuntimeArray, None, vec![Operand::IdRef(texel)]);
            m.decorate(a, Decoration::ArrayStride, &[stride]);
            a
        });
        let ptr_struct = texel_buffer_type(m, array, packed_at.get(var).map_or(name, |p| p.2));
        let ptr_texel = m.pointer_to(StorageClass::StorageBuffer, texel);
        if *array_of {
            let (binding, img) = lower_array(
                m,
                *var,
                (*dim, *format, *sampled),
                texel,
                ptr_struct,
                ptr_texel,
            );
            bindings.push(binding);
            lowered.insert(*var, img);
            continue;
        }
        retype_variable(m, *var, ptr_struct);
        let (group, binding) = m.slot(*var);
        let (buffer, base) = match packed_at.get(var) {
            Some(&(first, ..)) => {
                let id = spec_ids.take()?;
                let base =
                    m.add_global(Op::SpecConstant, Some(uint), vec![Operand::LiteralBit32(0)]);
                m.decorate(base, Decoration::SpecId, &[id]);
                m.set_name(base, format!("{name}_offset"));
                (first, Some((base, id)))
            }
            None => (*var, None),
        };
        let (size_overrides, sizes) = size_constants(m, &mut spec_ids, name)?;
        // A packed array binds as its element 0.
        if packed_at.get(var).is_none_or(|p| p.0 == *var) {
            bindings.push(ImageBinding {
                group,
                binding,
                dim: *dim,
                format: *format,
                size_overrides,
            });
        }
        if let Some(&(first, k, _)) = packed_at.get(var) {
            packed_elements.entry(first).or_default().push((
                k,
                crate::PackedElement {
                    size_overrides,
                    offset_override: base.map_or(0, |b| b.1),
                    native_binding: binding,
                },
            ));
        }
        lowered.insert(
            *var,
            Lowered {
                dim: *dim,
                format: *format,
                sizes,
                sampled: *sampled,
                texel,
                ptr_texel,
                buffer,
                base: base.map(|b| b.0),
                element: None,
            },
        );
    }
    rewrite_functions(m, &lowered, &common)?;
    let packed = packed_in_place(m, &packed_arrays, packed_elements);
    m.remove_unused_types(&[Op::TypePointer, Op::TypeImage]);
    // Every 64-bit image is now a buffer of 64-bit integers: naga's reader
    // knows neither the extension nor the capability.
    m.drop_capabilities(
        &[rspirv::spirv::Capability::Int64ImageEXT],
        &["SPV_EXT_shader_image_int64"],
    );
    Ok((bindings, common.stores.take(), packed))
}

/// The spec constants (WGSL overrides) of an image's width, height, layers
/// and samples, and their ids. Constants, so the driver folds them: reading
/// them from memory at every access cost almost half the throughput of
/// native texture atomics on lavapipe.
fn size_constants(
    m: &mut Model,
    spec_ids: &mut crate::lower::model::FreeSpecIds,
    name: &str,
) -> Result<([u32; 4], [Word; 4])> {
    let uint = m.uint();
    let mut ids = [0u32; 4];
    let mut sizes = [0; 4];
    for (k, field) in ["width", "height", "layers", "samples"]
        .into_iter()
        .enumerate()
    {
        ids[k] = spec_ids.take()?;
        sizes[k] = m.add_global(Op::SpecConstant, Some(uint), vec![Operand::LiteralBit32(1)]);
        m.decorate(sizes[k], Decoration::SpecId, &[ids[k]]);
        m.set_name(sizes[k], format!("{name}_{field}"));
    }
    Ok((ids, sizes))
}

/// Makes the unsized image array `var` a binding array of texel buffers
/// (`ptr_struct` each): each element's sizes are its header's, read where
/// it is used, so it has no size overrides.
fn lower_array(
    m: &mut Model,
    var: Word,
    (dim, format, sampled): (ImageDim, ImageFormat, Word),
    texel: Word,
    ptr_struct: Word,
    ptr_texel: Word,
) -> (ImageBinding, Lowered) {
    let st = m
        .global(ptr_struct)
        .and_then(|t| t.operands.get(1))
        .and_then(id)
        .unwrap_or(0);
    let buffers = m.add_global(Op::TypeRuntimeArray, None, vec![Operand::IdRef(st)]);
    let ptr_array = m.pointer_to(StorageClass::StorageBuffer, buffers);
    retype_variable(m, var, ptr_array);
    let uint = m.uint();
    let ptr_uint = m.pointer_to(StorageClass::StorageBuffer, uint);
    let (group, binding) = m.slot(var);
    let shown = ImageBinding {
        group,
        binding,
        dim,
        format,
        size_overrides: [0; 4],
    };
    let img = Lowered {
        dim,
        format,
        sizes: [0; 4],
        sampled,
        texel,
        ptr_texel,
        buffer: var,
        base: None,
        element: Some((ptr_struct, ptr_uint)),
    };
    (shown, img)
}

/// The packed arrays as the binding map shows them, each named as its
/// array at element 0's binding; the other elements' variables, whose
/// texels now live in element 0's buffer, are gone.
fn packed_in_place(
    m: &mut Model,
    arrays: &[&SplitArray],
    mut elements: HashMap<Word, Vec<(usize, crate::PackedElement)>>,
) -> Vec<PackedArray> {
    let mut packed = Vec::new();
    for a in arrays {
        let first = a.vars[0];
        let (group, binding) = m.slot(first);
        let mut of_array = elements.remove(&first).unwrap_or_default();
        of_array.sort_by_key(|e| e.0);
        m.set_name(first, a.name.clone());
        packed.push(PackedArray {
            group,
            binding,
            name: a.name.clone(),
            elements: of_array.into_iter().map(|e| e.1).collect(),
        });
    }
    let gone: std::collections::HashSet<Word> = arrays
        .iter()
        .flat_map(|a| a.vars[1..].iter().copied())
        .collect();
    m.remove_globals(|v| gone.contains(&v));
    packed
}

/// The split arrays of `chosen` storage images to pack, largest first,
/// until the storage buffers the kernel binds (its buffers and every
/// texel buffer) fit in `limit`; none when they already do. An array
/// packs when all its elements are chosen and it has two or more.
fn arrays_to_pack<'s>(
    m: &Model,
    chosen: &[Chosen],
    split: &'s [SplitArray],
    limit: u32,
) -> Vec<&'s SplitArray> {
    let buffers = m
        .variables()
        .filter(|&(_, class, _)| class == StorageClass::StorageBuffer)
        .count();
    let mut count = (buffers + chosen.len()) as u64;
    let mut candidates: Vec<&SplitArray> = split
        .iter()
        .filter(|a| a.vars.len() > 1 && a.vars.iter().all(|v| chosen.iter().any(|c| c.0 == *v)))
        .collect();
    candidates.sort_by_key(|a| std::cmp::Reverse(a.vars.len()));
    let mut out = Vec::new();
    for a in candidates {
        if count <= u64::from(limit) {
            break;
        }
        count -= (a.vars.len() - 1) as u64;
        out.push(a);
    }
    out
}

/// The storage images to lower: those used by image atomics, 64-bit ones,
/// those of shapes WGSL has no storage texture for (and with `all` every
/// one); refuses those of formats a buffer cannot hold.
fn choose(m: &Model, all: bool) -> Result<Vec<Chosen>> {
    let texel_pointer_images: Vec<Word> = m
        .instructions()
        .filter(|i| i.class.opcode == Op::ImageTexelPointer)
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    // Unsized arrays of images an image atomic reaches through an element.
    let atomic_arrays: Vec<Word> = texel_pointer_images
        .iter()
        .filter_map(|&p| m.def(p))
        .filter(|d| matches!(d.class.opcode, Op::AccessChain | Op::InBoundsAccessChain))
        .filter_map(|d| d.operands.first().and_then(id))
        .collect();
    let (reads, writes) = read_and_written(m);
    let mut chosen = Vec::new();
    for (var, class, pointee) in m.variables() {
        let Some(mut img) = m.global(pointee) else {
            continue;
        };
        let array = img.class.opcode == Op::TypeRuntimeArray;
        if array {
            if !atomic_arrays.contains(&var) {
                continue;
            }
            match img.operands.first().and_then(id).and_then(|e| m.global(e)) {
                Some(e) => img = e,
                None => continue,
            }
        }
        if class != StorageClass::UniformConstant || img.class.opcode != Op::TypeImage {
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
        let name = m.label(var);
        let shape = ImageDim::from_spirv(*dim, lit(3) == 1, lit(4) == 1);
        let atomic = array || texel_pointer_images.contains(&var);
        let native = matches!(
            shape,
            Some(ImageDim::D1 | ImageDim::D2 | ImageDim::D2Array | ImageDim::D3)
        );
        let mapped = ImageFormat::from_spirv(*format);
        let r32 = matches!(format, SpvFormat::R32ui | SpvFormat::R32i | SpvFormat::R32f);
        // 64-bit images always live in texel buffers: WGSL's r64 storage
        // textures need more of the adapter than 64-bit buffer atomics.
        let wide = matches!(format, SpvFormat::R64ui | SpvFormat::R64i);
        // WebGPU's storage textures: its core formats, read-write only in
        // r32 ones; anything else lives in a texel buffer.
        let core = mapped.is_some_and(|f| CORE_STORAGE_FORMATS.contains(&f));
        let read_write = reads.contains(&var) && writes.contains(&var);
        let to_buffer = atomic || wide || all || !core || (read_write && !r32);
        if native && !to_buffer {
            continue;
        }
        let shape = shape.ok_or_else(|| {
            Error::Unsupported(format!(
                "image `{name}` has a shape ({dim:?}) atomport cannot map"
            ))
        })?;
        let format = match mapped {
            Some(f) if !atomic || f.layout().1 >= 32 && f.layout().0 == 1 => f,
            _ => {
                let why = if atomic {
                    "image atomics need r32ui, r32i, r32f, r64ui or r64i"
                } else {
                    "atomport maps every GLSL image format"
                };
                return Err(Error::Unsupported(format!(
                    "image `{name}` ({}) has format {format:?}: {why}",
                    shape.glsl_name()
                )));
            }
        };
        let texel = img.operands.first().and_then(id).unwrap_or(0);
        chosen.push((var, shape, format, texel, name, array));
    }
    Ok(chosen)
}

/// The formats WebGPU has storage textures of without optional features.
const CORE_STORAGE_FORMATS: &[ImageFormat] = &[
    ImageFormat::Rgba8Unorm,
    ImageFormat::Rgba8Snorm,
    ImageFormat::Rgba8Uint,
    ImageFormat::Rgba8Sint,
    ImageFormat::Rgba16Uint,
    ImageFormat::Rgba16Sint,
    ImageFormat::Rgba16Float,
    ImageFormat::R32Uint,
    ImageFormat::R32Sint,
    ImageFormat::R32Float,
    ImageFormat::Rg32Uint,
    ImageFormat::Rg32Sint,
    ImageFormat::Rg32Float,
    ImageFormat::Rgba32Uint,
    ImageFormat::Rgba32Sint,
    ImageFormat::Rgba32Float,
];

/// The image variables `imageLoad` reads and `imageStore` writes (through
/// their loads).
fn read_and_written(m: &Model) -> (Vec<Word>, Vec<Word>) {
    let mut loaded_from: HashMap<Word, Word> = HashMap::default();
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for inst in m.instructions() {
        let first = inst.operands.first().and_then(id);
        match (inst.class.opcode, first, inst.result_id) {
            (Op::Load, Some(p), Some(r)) => {
                loaded_from.insert(r, p);
            }
            (Op::ImageRead, Some(i), _) => reads.extend(loaded_from.get(&i)),
            (Op::ImageWrite, Some(i), _) => writes.extend(loaded_from.get(&i)),
            _ => {}
        }
    }
    (reads, writes)
}

/// Declares `{ uint width, height, layers, samples; T texels[]; }` (a
/// block) for image `name`; returns the storage-buffer pointer type to it.
fn texel_buffer_type(m: &mut Model, array: Word, name: &str) -> Word {
    let uint = m.uint();
    let st = m.add_global(
        Op::TypeStruct,
        None,
        [uint, uint, uint, uint, array]
            .into_iter()
            .map(Operand::IdRef)
            .collect(),
    );
    m.decorate(st, Decoration::Block, &[]);
    for (k, member) in ["width", "height", "layers", "samples", "texels"]
        .into_iter()
        .enumerate()
    {
        m.member_decorate(st, k as u32, Decoration::Offset, &[4 * k as u32]);
        m.set_member_name(st, k as u32, member);
    }
    m.set_name(st, format!("{name}_texels"));
    m.pointer_to(StorageClass::StorageBuffer, st)
}

/// Makes the image variable a storage buffer of type `ptr_struct`, after
/// its new types, without the image-only decorations.
fn retype_variable(m: &mut Model, var: Word, ptr_struct: Word) {
    let module = m.module_mut();
    let Some(at) = module
        .types_global_values
        .iter()
        .position(|i| i.result_id == Some(var))
    else {
        return;
    };
    let mut v = module.types_global_values.remove(at);
    v.result_type = Some(ptr_struct);
    v.operands[0] = Operand::StorageClass(StorageClass::StorageBuffer);
    module.types_global_values.push(v);
    module.annotations.retain(|a| {
        !(a.class.opcode == Op::Decorate
            && a.operands.first() == Some(&Operand::IdRef(var))
            && matches!(
                a.operands.get(1),
                Some(Operand::Decoration(
                    Decoration::NonReadable | Decoration::NonWritable
                ))
            ))
    });
}

/// Per-function state: the ids that stand for a loaded lowered image and
/// for texel pointers.
#[derive(Default)]
struct Accesses {
    /// Loaded image id -> variable.
    loaded: HashMap<Word, Word>,
    /// Texel pointer id -> (pointer into the buffer, in-bounds flag).
    texel_ptrs: HashMap<Word, (Word, Word)>,
    /// Pointer to an element of an unsized image array (now to its texel
    /// buffer) -> the array's variable.
    elements: HashMap<Word, Word>,
}

/// The image a pointer (a lowered image variable, or an element of a
/// lowered image array) stands for, its element's sizes read from the
/// header there.
fn image_at(e: &mut Emit, lowered: &HashMap<Word, Lowered>, acc: &Accesses, p: Word) -> Lowered {
    if let Some(img) = lowered.get(&p) {
        return img.clone();
    }
    let mut img = lowered[&acc.elements[&p]].clone();
    let (_, ptr_uint) = img.element.unwrap_or_default();
    let uint = e.m.uint_id();
    img.buffer = p;
    for (k, size) in img.sizes.iter_mut().enumerate() {
        let member = e.constant(uint, k as u64);
        let at = e.op(Op::AccessChain, ptr_uint, &[p, member]);
        *size = e.op(Op::Load, uint, &[at]);
    }
    img
}

/// Rewrites every access of a lowered image (see the module docs).
fn rewrite_functions(
    m: &mut Model,
    lowered: &HashMap<Word, Lowered>,
    common: &Common,
) -> Result<()> {
    // Ids are unique across functions: one map serves all of them.
    let mut acc = Accesses::default();
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let first = inst.operands.first().and_then(id);
        let image = |p: Word| lowered.contains_key(&p) || acc.elements.contains_key(&p);
        match op {
            // An element of an image array: a pointer to its texel buffer.
            Op::AccessChain | Op::InBoundsAccessChain
                if first.is_some_and(|v| lowered.get(&v).is_some_and(|l| l.element.is_some())) =>
            {
                let var = first.unwrap_or(0);
                let mut chain = inst.clone();
                chain.result_type = lowered[&var].element.map(|(p, _)| p);
                acc.elements.insert(inst.result_id.unwrap_or(0), var);
                e.push(chain);
                Ok(true)
            }
            Op::Load if first.is_some_and(image) => {
                acc.loaded.insert(inst.result_id.unwrap_or(0), first.unwrap_or(0));
                Ok(true)
            }
            Op::ImageTexelPointer if first.is_some_and(image) => {
                let img = &image_at(e, lowered, &acc, first.unwrap_or(0));
                let coord = inst.operands.get(1).and_then(id).unwrap_or(0);
                let sample = inst.operands.get(2).and_then(id);
                let (index, inb) = emit_index(e, common, img, coord, sample);
                let ptr = e.op(
                    Op::AccessChain,
                    img.ptr_texel,
                    &[img.buffer, common.texels_member, index],
                );
                acc.texel_ptrs.insert(inst.result_id.unwrap_or(0), (ptr, inb));
                Ok(true)
            }
            _ if first.is_some_and(|p| acc.texel_ptrs.contains_key(&p)) => {
                let (ptr, inb) = acc.texel_ptrs[&first.unwrap_or(0)];
                texel_atomic(e, inst, ptr, inb);
                Ok(true)
            }
            Op::ImageRead | Op::ImageWrite | Op::ImageQuerySize | Op::ImageQuerySamples
                if first.is_some_and(|i| acc.loaded.contains_key(&i)) =>
            {
                let var = acc.loaded[&first.unwrap_or(0)];
                let img = &image_at(e, lowered, &acc, var);
                match op {
                    Op::ImageRead | Op::ImageWrite => {
                        texel_access(e, common, img.buffer, img, inst)
                    }
                    Op::ImageQuerySize => size_query(e, common, img, inst),
                    _ => {
                        let ty = inst.result_type.unwrap_or(0);
                        let s = img.sizes[3];
                        let s = if ty == common.uint {
                            s
                        } else {
                            e.op(Op::Bitcast, ty, &[s])
                        };
                        e.push(with_ids(Op::CopyObject, Some(ty), inst.result_id, &[s]));
                    }
                }
                Ok(true)
            }
            _ => {
                let uses_lowered = inst
                    .operands
                    .iter()
                    .filter_map(id)
                    .any(|w| image(w) || acc.loaded.contains_key(&w));
                if uses_lowered {
                    return Err(Error::Unsupported(format!(
                        "an image mapped onto a buffer is used by {op:?}, which atomport cannot map \
                         (imageLoad, imageStore, imageSize, imageSamples and the image atomics can be)"
                    )));
                }
                Ok(false)
            }
        }
    })?;
    Ok(())
}

/// An image atomic through a texel pointer: the same atomic on the texel,
/// returning `inb ? old : 0`.
fn texel_atomic(e: &mut Emit, inst: &Instruction, ptr: Word, inb: Word) {
    let mut atomic = inst.clone();
    atomic.operands[0] = Operand::IdRef(ptr);
    match (atomic.result_id, atomic.result_type) {
        (Some(result), Some(ty)) => {
            let raw = e.fresh();
            atomic.result_id = Some(raw);
            e.push(atomic);
            let zero = e.null(ty);
            e.push(with_ids(
                Op::Select,
                Some(ty),
                Some(result),
                &[inb, raw, zero],
            ));
        }
        _ => e.push(atomic),
    }
}

/// `imageLoad` (`inb ? (r, g, b, a) : 0`, with the channels the format
/// lacks 0 and alpha 1) or `imageStore` (to the scratch texel when out of
/// range) of a lowered image.
fn texel_access(e: &mut Emit, common: &Common, var: Word, img: &Lowered, inst: &Instruction) {
    let read = inst.class.opcode == Op::ImageRead;
    let coord = inst.operands.get(1).and_then(id).unwrap_or(0);
    let sample = image_operand_sample(inst, if read { 2 } else { 3 });
    let (index, inb) = emit_index(e, common, img, coord, sample);
    if read {
        let vec_ty = inst.result_type.unwrap_or(0);
        let channels = load_texel(e, common, var, img, index);
        let zero = e.null(img.sampled);
        let is_float = e.m.op_of(img.sampled) == Some(Op::TypeFloat);
        let one = e.constant(
            img.sampled,
            if is_float { 1.0f32.to_bits().into() } else { 1 },
        );
        let parts: Vec<Word> = (0..4)
            .map(|k| {
                let v = channels
                    .get(k)
                    .copied()
                    .unwrap_or(if k == 3 { one } else { zero });
                e.op(Op::Select, img.sampled, &[inb, v, zero])
            })
            .collect();
        e.push(with_ids(
            Op::CompositeConstruct,
            Some(vec_ty),
            inst.result_id,
            &parts,
        ));
    } else {
        let texel = inst.operands.get(2).and_then(id).unwrap_or(0);
        let is_vector =
            e.m.result_type(texel)
                .is_some_and(|t| e.m.op_of(t) == Some(Op::TypeVector));
        let (n, _, _) = img.format.layout();
        let channels: Vec<Word> = (0..n)
            .map(|k| {
                if is_vector {
                    e.extract(img.sampled, texel, k)
                } else {
                    texel
                }
            })
            .collect();
        store_texel(e, common, var, img, index, &channels);
    }
}

/// A pointer to element `at` of the image's texel buffer.
fn element(e: &mut Emit, common: &Common, var: Word, img: &Lowered, at: Word) -> Word {
    e.op(
        Op::AccessChain,
        img.ptr_texel,
        &[var, common.texels_member, at],
    )
}

/// `index * per + k`, in `uint`.
fn word_index(e: &mut Emit, common: &Common, index: Word, per: u32, k: u32) -> Word {
    if per == 1 && k == 0 {
        return index;
    }
    let per = e.constant(common.uint, per.into());
    let base = e.op(Op::IMul, common.uint, &[index, per]);
    if k == 0 {
        return base;
    }
    let k = e.constant(common.uint, k.into());
    e.op(Op::IAdd, common.uint, &[base, k])
}

/// A sub-word texel's word and the bit its texel starts at.
fn sub_word_place(e: &mut Emit, common: &Common, img: &Lowered, index: Word) -> (Word, Word) {
    let u = common.uint;
    let bytes = e.constant(u, img.format.texel_bytes().into());
    let byte = e.op(Op::IMul, u, &[index, bytes]);
    let two = e.constant(u, 2);
    let word = e.op(Op::ShiftRightLogical, u, &[byte, two]);
    let three = e.constant(u, 3);
    let within = e.op(Op::BitwiseAnd, u, &[byte, three]);
    let shift = e.op(Op::ShiftLeftLogical, u, &[within, three]);
    (word, shift)
}

/// `OpAtomic*` on a texel-buffer word, device scope, relaxed.
fn word_atomic(e: &mut Emit, common: &Common, op: Op, ptr: Word, value: Option<Word>) -> Word {
    let scope = e.constant(common.uint, 1);
    let relaxed = e.constant(common.uint, 0);
    let mut args = vec![ptr, scope, relaxed];
    args.extend(value);
    e.op(op, common.uint, &args)
}

/// The channels of texel `index`, in the image's sampled type.
fn load_texel(e: &mut Emit, common: &Common, var: Word, img: &Lowered, index: Word) -> Vec<Word> {
    let (n, _, _) = img.format.layout();
    if img.format.whole_words() {
        return (0..n)
            .map(|k| {
                let at = word_index(e, common, index, n, k);
                let p = element(e, common, var, img, at);
                e.op(Op::Load, img.texel, &[p])
            })
            .collect();
    }
    let words: Vec<Word> = if img.format.is_sub_word() {
        let (at, shift) = sub_word_place(e, common, img, index);
        let p = element(e, common, var, img, at);
        let word = word_atomic(e, common, Op::AtomicLoad, p, None);
        vec![e.op(Op::ShiftRightLogical, common.uint, &[word, shift])]
    } else {
        let per = img.format.words() as u32;
        (0..per)
            .map(|j| {
                let at = word_index(e, common, index, per, j);
                let p = element(e, common, var, img, at);
                e.op(Op::Load, common.uint, &[p])
            })
            .collect()
    };
    decode(e, common, img, &words)
}

/// GLSL.std.450's pack and unpack functions: (pack, unpack) for 16-bit
/// floats, 16-bit unorm and snorm, 8-bit unorm and snorm.
fn packing(bits: u32, kind: ChannelKind) -> Option<(u32, u32)> {
    match (bits, kind) {
        (16, ChannelKind::Float) => Some((58, 62)),
        (16, ChannelKind::Unorm) => Some((57, 61)),
        (16, ChannelKind::Snorm) => Some((56, 60)),
        (8, ChannelKind::Unorm) => Some((55, 64)),
        (8, ChannelKind::Snorm) => Some((54, 63)),
        _ => None,
    }
}

/// A GLSL.std.450 instruction.
fn glsl_op(e: &mut Emit, common: &Common, ty: Word, n: u32, args: &[Word]) -> Word {
    e.ext_inst(common.glsl, ty, n, args)
}

/// The channels of a packed texel from its words (the texel in the low
/// bits of the first), in the image's sampled type.
fn decode(e: &mut Emit, common: &Common, img: &Lowered, words: &[Word]) -> Vec<Word> {
    if let Some(widths) = img.format.packed() {
        return decode_packed(e, common, img, words[0], widths);
    }
    let (n, bits, kind) = img.format.layout();
    let per_word = 32 / bits;
    let mut out = Vec::new();
    for k in 0..n {
        let word = words[(k / per_word) as usize];
        let slot = k % per_word;
        let v = match packing(bits, kind) {
            Some((_, unpack)) => {
                let ty = if bits == 16 { common.vec2 } else { common.vec4 };
                let v = glsl_op(e, common, ty, unpack, &[word]);
                e.extract(common.float, v, slot)
            }
            None => {
                let (op, ty, base) = if kind == ChannelKind::Sint {
                    let w = e.op(Op::Bitcast, common.int, &[word]);
                    (Op::BitFieldSExtract, common.int, w)
                } else {
                    (Op::BitFieldUExtract, common.uint, word)
                };
                let offset = e.constant(common.uint, (slot * bits).into());
                let count = e.constant(common.uint, bits.into());
                e.op(op, ty, &[base, offset, count])
            }
        };
        let ty = match kind {
            ChannelKind::Sint => common.int,
            ChannelKind::Uint => common.uint,
            _ => common.float,
        };
        out.push(if ty == img.sampled {
            v
        } else {
            e.op(Op::Bitcast, img.sampled, &[v])
        });
    }
    out
}

/// The words of a packed texel from its channels (in the image's sampled
/// type); a sub-word texel in the low bits of one word, the rest zero.
fn encode(e: &mut Emit, common: &Common, img: &Lowered, channels: &[Word]) -> Vec<Word> {
    if let Some(widths) = img.format.packed() {
        return vec![encode_packed(e, common, img, channels, widths)];
    }
    let (n, bits, kind) = img.format.layout();
    let per_word = (32 / bits).min(n);
    let mut words = Vec::new();
    for first in (0..n).step_by(per_word as usize) {
        let group: Vec<Word> = (first..(first + per_word).min(n))
            .map(|k| channels[k as usize])
            .collect();
        let word = match packing(bits, kind) {
            Some((pack, _)) => {
                let (ty, width) = if bits == 16 {
                    (common.vec2, 2)
                } else {
                    (common.vec4, 4)
                };
                let zero = e.constant(common.float, 0);
                let mut parts = group.clone();
                parts.resize(width, zero);
                let v = e.op(Op::CompositeConstruct, ty, &parts);
                glsl_op(e, common, common.uint, pack, &[v])
            }
            None => {
                let mut word = common.zero;
                for (slot, &c) in group.iter().enumerate() {
                    let c = if img.sampled == common.uint {
                        c
                    } else {
                        e.op(Op::Bitcast, common.uint, &[c])
                    };
                    let offset = e.constant(common.uint, (slot as u32 * bits).into());
                    let count = e.constant(common.uint, bits.into());
                    word = e.op(Op::BitFieldInsert, common.uint, &[word, c, offset, count]);
                }
                word
            }
        };
        words.push(word);
    }
    words
}

/// Writes the channels of texel `index`.
fn store_texel(
    e: &mut Emit,
    common: &Common,
    var: Word,
    img: &Lowered,
    index: Word,
    channels: &[Word],
) {
    let (n, _, _) = img.format.layout();
    if img.format.whole_words() {
        for (k, &c) in channels.iter().enumerate() {
            let at = word_index(e, common, index, n, k as u32);
            let p = element(e, common, var, img, at);
            e.push(with_ids(Op::Store, None, None, &[p, c]));
        }
        return;
    }
    let words = encode(e, common, img, channels);
    if img.format.is_sub_word() {
        // Neighbours share the word: the texel's bits are replaced by one
        // atomic masked store (an `OpAtomicOr` the float pass makes a
        // compare-and-swap loop), so that neither a neighbour's store nor
        // a racing store to the same texel leaves bits no store wrote.
        let (at, shift) = sub_word_place(e, common, img, index);
        let p = element(e, common, var, img, at);
        let u = common.uint;
        let mask = e.constant(u, (1u64 << (8 * img.format.texel_bytes())) - 1);
        let placed_mask = e.op(Op::ShiftLeftLogical, u, &[mask, shift]);
        let keep = e.op(Op::Not, u, &[placed_mask]);
        let placed = e.op(Op::ShiftLeftLogical, u, &[words[0], shift]);
        let result = word_atomic(e, common, Op::AtomicOr, p, Some(placed));
        common
            .stores
            .borrow_mut()
            .push(MaskedStore { result, keep });
        return;
    }
    let per = img.format.words() as u32;
    for (j, &w) in words.iter().enumerate() {
        let at = word_index(e, common, index, per, j as u32);
        let p = element(e, common, var, img, at);
        e.push(with_ids(Op::Store, None, None, &[p, w]));
    }
}

/// `imageSize` of a lowered image, from its size overrides.
fn size_query(e: &mut Emit, common: &Common, img: &Lowered, inst: &Instruction) {
    let ty = inst.result_type.unwrap_or(0);
    let int = e.m.scalar_of(ty);
    let mut parts = vec![img.sizes[0]];
    if img.dim.has_height() {
        parts.push(img.sizes[1]);
    }
    if img.dim.size_count() as usize > parts.len() {
        let layers = img.sizes[2];
        let layers = if img.dim == ImageDim::CubeArray {
            let six = e.constant(common.uint, 6);
            e.op(Op::UDiv, common.uint, &[layers, six])
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
                e.op(Op::Bitcast, int, &[p])
            }
        })
        .collect();
    let op = if parts.len() == 1 {
        Op::CopyObject
    } else {
        Op::CompositeConstruct
    };
    e.push(with_ids(op, Some(ty), inst.result_id, &parts));
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

/// Emits `(index, inb)` for a coordinate (and sample) of image `var`.
fn emit_index(
    em: &mut Emit,
    common: &Common,
    img: &Lowered,
    coord: Word,
    sample: Option<Word>,
) -> (Word, Word) {
    let u = common.uint;
    let [w, h, l, s] = img.sizes;
    let coord_ty = em.m.result_type(coord).unwrap_or(0);
    let comp_ty = em.m.scalar_of(coord_ty);
    let n = img.dim.coordinate_count();
    let as_uint = |em: &mut Emit, v: Word, ty: Word| {
        if ty == u {
            v
        } else {
            em.op(Op::Bitcast, u, &[v])
        }
    };
    let component = |em: &mut Emit, k: u32| -> Word {
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
            let sty = em.m.result_type(sid).unwrap_or(u);
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
    // A packed array's element: its region of the shared buffer.
    let index = match img.base {
        Some(base) => em.op(Op::IAdd, u, &[index, base]),
        None => index,
    };
    (index, inb)
}

/// GLSL.std.450's PackHalf2x16, UnpackHalf2x16, RoundEven and FClamp.
const PACK_HALF: u32 = 58;
const UNPACK_HALF: u32 = 62;
const ROUND_EVEN: u32 = 2;
const F_CLAMP: u32 = 43;

/// The channels of a texel of a packed format (`rgb10_a2`, `rgb10_a2ui`,
/// `r11f_g11f_b10f`) from its word, as Vulkan converts them: unorm
/// `c / (2^b - 1)`, unsigned integers as they are, unsigned small floats
/// through the half they are the top bits of (same exponent, shorter
/// mantissa, no sign).
fn decode_packed(
    e: &mut Emit,
    common: &Common,
    img: &Lowered,
    word: Word,
    widths: &[u32],
) -> Vec<Word> {
    let (_, _, kind) = img.format.layout();
    let mut offset = 0;
    let mut out = Vec::new();
    for &w in widths {
        let at = e.constant(common.uint, offset.into());
        let count = e.constant(common.uint, w.into());
        offset += w;
        let c = e.op(Op::BitFieldUExtract, common.uint, &[word, at, count]);
        out.push(match kind {
            ChannelKind::Unorm => {
                let f = e.op(Op::ConvertUToF, common.float, &[c]);
                let max = e.constant(common.float, (((1u32 << w) - 1) as f32).to_bits().into());
                e.op(Op::FDiv, common.float, &[f, max])
            }
            ChannelKind::Float => {
                // The half whose top bits these are: mantissa shifted up.
                let shift = e.constant(common.uint, (15 - w).into());
                let half = e.op(Op::ShiftLeftLogical, common.uint, &[c, shift]);
                let v = glsl_op(e, common, common.vec2, UNPACK_HALF, &[half]);
                e.extract(common.float, v, 0)
            }
            _ => c,
        });
    }
    out
}

/// The word of a texel of a packed format from its channels: unorm
/// `roundEven(clamp(x, 0, 1) × (2^b - 1))`; unsigned integers to their low
/// bits; unsigned small floats as the half of the value rounded to their
/// mantissa (to nearest, ties to even), negative values (and -0) as 0, NaN
/// kept a NaN.
fn encode_packed(
    e: &mut Emit,
    common: &Common,
    img: &Lowered,
    channels: &[Word],
    widths: &[u32],
) -> Word {
    let (_, _, kind) = img.format.layout();
    let mut word = common.zero;
    let mut offset = 0;
    for (&w, &c) in widths.iter().zip(channels) {
        let bits = match kind {
            ChannelKind::Unorm => {
                let zero = e.constant(common.float, 0);
                let one = e.constant(common.float, 1f32.to_bits().into());
                let max = e.constant(common.float, (((1u32 << w) - 1) as f32).to_bits().into());
                let x = glsl_op(e, common, common.float, F_CLAMP, &[c, zero, one]);
                let x = e.op(Op::FMul, common.float, &[x, max]);
                let x = glsl_op(e, common, common.float, ROUND_EVEN, &[x]);
                e.op(Op::ConvertFToU, common.uint, &[x])
            }
            ChannelKind::Float => small_float(e, common, c, w),
            _ => c,
        };
        let at = e.constant(common.uint, offset.into());
        let count = e.constant(common.uint, w.into());
        offset += w;
        word = e.op(Op::BitFieldInsert, common.uint, &[word, bits, at, count]);
    }
    word
}

/// The unsigned float of `w` bits (5 of exponent) nearest to `x`.
fn small_float(e: &mut Emit, common: &Common, x: Word, w: u32) -> Word {
    let u = common.uint;
    let zero_f = e.constant(common.float, 0);
    let v = e.op(Op::CompositeConstruct, common.vec2, &[x, zero_f]);
    let half = glsl_op(e, common, u, PACK_HALF, &[v]);
    // Drop 15 - w mantissa bits, to nearest, ties to even.
    let s = 15 - w;
    let shift = e.constant(u, s.into());
    let low_mask = e.constant(u, ((1u32 << s) - 1).into());
    let halfway = e.constant(u, (1u32 << (s - 1)).into());
    let one = e.constant(u, 1);
    let q = e.op(Op::ShiftRightLogical, u, &[half, shift]);
    let rest = e.op(Op::BitwiseAnd, u, &[half, low_mask]);
    // Up past halfway, or at halfway when that makes it even.
    let odd = e.op(Op::BitwiseAnd, u, &[q, one]);
    let rest_odd = e.op(Op::IAdd, u, &[rest, odd]);
    let up = e.op(Op::UGreaterThan, common.boolean, &[rest_odd, halfway]);
    let q_up = e.op(Op::IAdd, u, &[q, one]);
    let rounded = e.op(Op::Select, u, &[up, q_up, q]);
    // Infinity and NaN: the exponent all ones, a NaN keeping a mantissa bit.
    let inf_half = e.constant(u, 0x7c00);
    let abs_mask = e.constant(u, 0x7fff);
    let magnitude = e.op(Op::BitwiseAnd, u, &[half, abs_mask]);
    let is_nan = e.op(Op::UGreaterThan, common.boolean, &[magnitude, inf_half]);
    let nan = e.constant(u, ((0x1fu32 << (w - 5)) | 1).into());
    let is_inf = e.op(Op::IEqual, common.boolean, &[magnitude, inf_half]);
    let inf = e.constant(u, (0x1fu32 << (w - 5)).into());
    let special = e.op(Op::Select, u, &[is_inf, inf, rounded]);
    let special = e.op(Op::Select, u, &[is_nan, nan, special]);
    // Negative values (the half's sign) are 0; a negative NaN stays NaN.
    let sign = e.constant(u, 0x8000);
    let signed = e.op(Op::BitwiseAnd, u, &[half, sign]);
    let negative = e.op(Op::INotEqual, common.boolean, &[signed, common.zero]);
    let not_nan = e.op(Op::LogicalNot, common.boolean, &[is_nan]);
    let clear = e.op(Op::LogicalAnd, common.boolean, &[negative, not_nan]);
    e.op(Op::Select, u, &[clear, common.zero, special])
}
