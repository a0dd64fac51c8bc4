//! SPIR-V pass: integer textures sampled (`texture(isampler2D, uv)`,
//! `textureLod(usampler2DArray, uvw, lod)`), which WGSL cannot do (it
//! samples float textures only), become the texel fetch a nearest sampler
//! makes, as Vulkan defines it:
//!
//! - the level: `clamp(ceil(lod + 0.5) - 1, 0, levels - 1)` (a nearest mip
//!   filter; `texture()` in a compute shader samples level 0, plus the bias);
//! - per axis, the texel `i = floor(u × size) + offset`, wrapped by the
//!   sampler's address mode: clamp to edge, repeat, mirrored repeat, or
//!   clamp to border, which reads zero (transparent black) outside;
//! - the layer of an array texture: `clamp(roundEven(w), 0, layers - 1)`.
//!
//! The address mode is the host's: it reaches the shader as an override
//! constant per sampler (`address_override` in the binding map: 0 clamp to
//! edge, 1 repeat, 2 mirrored repeat, 3 clamp to border), which the runtime
//! sets from the bound sampler, so the driver folds the choice away. A
//! linear filter on an integer texture, which Vulkan forbids too, is
//! refused when the sampler is bound. For an element of a sampler binding
//! array (`usampler2DArray(textures[i], samplers[j])`, the bindless
//! pattern) the modes of all its elements reach the shader packed, 2 bits
//! per element, 16 elements per override (`address_overrides`), and the
//! fetch picks element j's; a linear one there is read as nearest (the
//! array also serves float textures, which it filters). Projective, comparison and
//! gradient sampling of integer textures, cube and rectangle ones, stay
//! refused by name ([`super::refuse::integer_sampling`]).

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Dim, ImageOperands, Op, Word};
use serde::Serialize;

use crate::lower::model::{Emit, Model, id, with_ids};
use crate::{Error, Result};

/// A sampler an integer texture is sampled through, for the binding map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AddressModes {
    /// Descriptor set.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// The override id that receives the bound sampler's address mode; for
    /// a sampler binding array, the first of [`PACKED_MODE_WORDS`]
    /// consecutive ids that receive its elements' modes, packed.
    pub override_id: u32,
    /// Whether the sampler is a binding array.
    pub packed: bool,
}

/// How many overrides hold the address modes of a sampler binding array's
/// elements: with [`MODES_PER_WORD`] each, the most elements an array an
/// integer texture is sampled through may have.
pub const PACKED_MODE_WORDS: u32 = 4;

/// Elements whose address modes one override holds, 2 bits each (element
/// k in override k / 16, bits 2(k % 16) and up).
pub const MODES_PER_WORD: u32 = 16;

/// Where a sample's address mode comes from: an override constant, or for
/// a sampler binding array the overrides its elements' modes are packed
/// in.
#[derive(Clone, Copy)]
enum ModeSource {
    One(Word),
    Packed([Word; PACKED_MODE_WORDS as usize]),
}

/// GLSL.std.450's Floor, Ceil, RoundEven, FClamp and SClamp.
const FLOOR: u32 = 8;
const CEIL: u32 = 9;
const ROUND_EVEN: u32 = 2;
const F_CLAMP: u32 = 43;
const S_CLAMP: u32 = 45;

/// What the rewrite of one sample uses: types, the import, and each
/// sampler variable's address-mode constant.
struct Ids {
    int: Word,
    uint: Word,
    float: Word,
    boolean: Word,
    glsl: Word,
    /// `ivecN` and `bvecN` at N (2 to 4).
    ivec: [Word; 5],
    bvec: [Word; 5],
    /// Sampler variable -> its address-mode override constants.
    modes: HashMap<Word, ModeSource>,
}

/// Whether `inst` samples an integer texture, in a form this pass maps.
fn integer_sample(m: &Model, inst: &Instruction) -> bool {
    if !matches!(
        inst.class.opcode,
        Op::ImageSampleImplicitLod | Op::ImageSampleExplicitLod
    ) {
        return false;
    }
    let sampled = inst
        .operands
        .first()
        .and_then(id)
        .and_then(|v| m.result_type(v))
        .and_then(|si| m.global(si))
        .and_then(|t| t.operands.first().and_then(id))
        .and_then(|image| m.global(image))
        .and_then(|t| t.operands.first().and_then(id));
    sampled.is_some_and(|t| m.op_of(t) == Some(Op::TypeInt))
}

/// The sampler variable an `OpSampledImage` of `si` takes its sampler
/// from, and for an element of a sampler binding array, its index.
fn sampler_variable(m: &Model, si: Word) -> Option<(Word, Option<Word>)> {
    let combine = m.def(si).filter(|d| d.class.opcode == Op::SampledImage)?;
    let loaded = combine.operands.get(1).and_then(id)?;
    let load = m.def(loaded).filter(|d| d.class.opcode == Op::Load)?;
    let pointer = load.operands.first().and_then(id)?;
    let variable = |v: Word| {
        m.global(v)
            .is_some_and(|v| v.class.opcode == Op::Variable)
            .then_some(v)
    };
    if let Some(var) = variable(pointer) {
        return Some((var, None));
    }
    let chain = m.def(pointer).filter(|d| {
        matches!(d.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) && d.operands.len() == 2
    })?;
    let var = variable(chain.operands.first().and_then(id)?)?;
    Some((var, Some(chain.operands.get(1).and_then(id)?)))
}

/// Rewrites every integer sample this pass maps; returns the samplers it
/// gave an address-mode override.
pub fn integer_sampling_as_fetches(m: &mut Model) -> Result<Vec<AddressModes>> {
    let sites: Vec<(Word, (Word, Option<Word>))> = m
        .instructions()
        .filter(|i| integer_sample(m, i))
        .filter_map(|i| {
            let si = i.operands.first().and_then(id)?;
            Some((si, sampler_variable(m, si)?))
        })
        .collect();
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let uint = m.uint();
    let mut spec_ids = m.free_spec_ids(1000);
    let mut modes = HashMap::default();
    let mut found = Vec::new();
    for &(_, (var, index)) in &sites {
        if modes.contains_key(&var) {
            continue;
        }
        let mut constant = |m: &mut Model, name: String| -> Result<(Word, u32)> {
            let override_id = spec_ids.take()?;
            let c = m.add_global(Op::SpecConstant, Some(uint), vec![Operand::LiteralBit32(0)]);
            m.decorate(c, Decoration::SpecId, &[override_id]);
            m.set_name(c, name);
            Ok((c, override_id))
        };
        let label = m.label(var);
        let (source, override_id) = match index {
            None => {
                let (c, id) = constant(m, format!("{label}_address_mode"))?;
                (ModeSource::One(c), id)
            }
            Some(_) => {
                let mut words = [0; PACKED_MODE_WORDS as usize];
                let mut first = 0;
                for (k, w) in words.iter_mut().enumerate() {
                    let (c, id) = constant(m, format!("{label}_address_modes_{k}"))?;
                    *w = c;
                    if k == 0 {
                        first = id;
                    }
                }
                (ModeSource::Packed(words), first)
            }
        };
        modes.insert(var, source);
        let (group, binding) = m.slot(var);
        found.push(AddressModes {
            group,
            binding,
            override_id,
            packed: index.is_some(),
        });
    }
    let (int, boolean) = (m.int_type(32, true), m.bool_type());
    let (mut ivec, mut bvec) = ([0; 5], [0; 5]);
    for n in 2..=4 {
        ivec[n] = m.vector_type(int, n as u32);
        bvec[n] = m.vector_type(boolean, n as u32);
    }
    let ids = Ids {
        int,
        uint,
        float: m.float_type(32),
        boolean,
        glsl: m.glsl_std_450(),
        ivec,
        bvec,
        modes,
    };
    m.rewrite(|e, inst| {
        if !integer_sample(e.m, inst) {
            return Ok(false);
        }
        let si = inst.operands.first().and_then(id).unwrap_or(0);
        match sampler_variable(e.m, si) {
            Some((var, index)) => {
                fetch(e, &ids, var, index, inst)?;
                Ok(true)
            }
            None => Ok(false),
        }
    })?;
    Ok(found)
}

/// The shape of the sampled image `name`: (axes, arrayed), or why it is
/// refused.
fn shape(m: &Model, image_ty: Word, name: &str) -> Result<(u32, bool)> {
    let t = m.global(image_ty);
    let dim = t.and_then(|t| match t.operands.get(1) {
        Some(Operand::Dim(d)) => Some(*d),
        _ => None,
    });
    let arrayed = t.and_then(|t| t.operands.get(3)) == Some(&Operand::LiteralBit32(1));
    // 2D only: the sampler stays bound through a gather, which WGSL has
    // for 2D textures and arrays of them alone.
    let axes = match dim {
        Some(Dim::Dim2D) => 2,
        d => {
            let d = match d {
                Some(Dim::Dim1D) => "1D",
                Some(Dim::Dim3D) => "3D",
                Some(Dim::DimCube) => "cube",
                Some(Dim::DimRect) => "rectangle",
                _ => "this",
            };
            return Err(Error::Unsupported(format!(
                "the {d} integer texture `{name}` is sampled: atomport maps sampling of 2D integer textures (and arrays of them) to texel fetches; read it with texelFetch"
            )));
        }
    };
    Ok((axes, arrayed))
}

/// The level of detail and the offset a sample's image operands give.
fn lod_and_offset(
    e: &mut Emit,
    ids: &Ids,
    inst: &Instruction,
    name: &str,
) -> Result<(Word, Option<Word>)> {
    let zero = e.constant(ids.float, 0f32.to_bits().into());
    let Some(Operand::ImageOperands(bits)) = inst.operands.get(2) else {
        return Ok((zero, None));
    };
    let mut rest = inst.operands[3..].iter().filter_map(id);
    let mut lod = zero;
    let mut offset = None;
    if bits.contains(ImageOperands::BIAS) {
        lod = rest.next().unwrap_or(zero);
    }
    if bits.contains(ImageOperands::LOD) {
        lod = rest.next().unwrap_or(zero);
    }
    if bits.intersects(ImageOperands::GRAD | ImageOperands::CONST_OFFSETS | ImageOperands::MIN_LOD)
    {
        return Err(Error::Unsupported(format!(
            "the integer texture `{name}` is sampled with gradients or a minimum level: atomport maps texture() and textureLod() of integer textures (with offsets) to texel fetches; read it with texelFetch"
        )));
    }
    if bits.intersects(ImageOperands::CONST_OFFSET | ImageOperands::OFFSET) {
        offset = rest.next();
    }
    Ok((lod, offset))
}

/// The address mode of element `index` of a sampler array whose modes
/// `words` hold, packed: `(words[index / 16] >> 2(index % 16)) & 3`.
fn packed_mode(e: &mut Emit, ids: &Ids, words: &[Word], index: Word) -> Word {
    let uint = ids.uint;
    let signed =
        e.m.result_type(index)
            .and_then(|t| e.m.global(t))
            .is_some_and(|t| t.operands.get(1) == Some(&Operand::LiteralBit32(1)));
    let index = if signed {
        e.op(Op::Bitcast, uint, &[index])
    } else {
        index
    };
    let per_word = e.constant(uint, MODES_PER_WORD.into());
    let which = e.op(Op::UDiv, uint, &[index, per_word]);
    let mut word = words[0];
    for (k, &w) in words.iter().enumerate().skip(1) {
        let k = e.constant(uint, k as u64);
        let here = e.op(Op::IEqual, ids.boolean, &[which, k]);
        word = e.op(Op::Select, uint, &[here, w, word]);
    }
    let slot = e.op(Op::UMod, uint, &[index, per_word]);
    let two = e.constant(uint, 2);
    let shift = e.op(Op::IMul, uint, &[slot, two]);
    let shifted = e.op(Op::ShiftRightLogical, uint, &[word, shift]);
    let three = e.constant(uint, 3);
    e.op(Op::BitwiseAnd, uint, &[shifted, three])
}

/// Emits the fetch that replaces the sample `inst` through sampler `var`
/// (element `index` of it, for a sampler binding array).
fn fetch(
    e: &mut Emit,
    ids: &Ids,
    var: Word,
    index: Option<Word>,
    inst: &Instruction,
) -> Result<()> {
    let si = inst.operands.first().and_then(id).unwrap_or(0);
    let coord = inst.operands.get(1).and_then(id).unwrap_or(0);
    let image =
        e.m.def(si)
            .and_then(|d| d.operands.first().and_then(id))
            .unwrap_or(0);
    let image_ty = e.m.result_type(image).unwrap_or(0);
    let name =
        e.m.source_variable(image)
            .and_then(|v| e.m.name(v))
            .unwrap_or("?")
            .to_string();
    let (axes, arrayed) = shape(e.m, image_ty, &name)?;
    let (lod, offset) = lod_and_offset(e, ids, inst, &name)?;
    let (int, float) = (ids.int, ids.float);
    let (i0, i1) = (e.constant(int, 0), e.constant(int, 1));
    let f0 = e.constant(float, 0f32.to_bits().into());
    let f_half = e.constant(float, 0.5f32.to_bits().into());
    let f1 = e.constant(float, 1f32.to_bits().into());
    // The level: clamp(ceil(lod + 0.5) - 1, 0, levels - 1).
    let levels = e.op(Op::ImageQueryLevels, int, &[image]);
    let last = e.op(Op::ISub, int, &[levels, i1]);
    let last_f = e.op(Op::ConvertSToF, float, &[last]);
    let half = e.op(Op::FAdd, float, &[lod, f_half]);
    let up = e.ext_inst(ids.glsl, float, CEIL, &[half]);
    let level_f = e.op(Op::FSub, float, &[up, f1]);
    let level_f = e.ext_inst(ids.glsl, float, F_CLAMP, &[level_f, f0, last_f]);
    let level = e.op(Op::ConvertFToS, int, &[level_f]);
    let n = axes + u32::from(arrayed);
    let size_ty = if n == 1 { int } else { ids.ivec[n as usize] };
    let size = e.op(Op::ImageQuerySizeLod, size_ty, &[image, level]);
    let component = |e: &mut Emit, ty: Word, v: Word, k: u32, of: u32| {
        if of == 1 { v } else { e.extract(ty, v, k) }
    };
    let code = match (ids.modes[&var], index) {
        (ModeSource::Packed(words), Some(index)) => packed_mode(e, ids, &words, index),
        (ModeSource::One(c), _) => c,
        // Packed modes belong to a sampler array, and every use of one is an element.
        (ModeSource::Packed(_), None) => {
            return Err(Error::Internal(format!(
                "sampler array `{name}` sampled without an element"
            )));
        }
    };
    // The address mode, tested once for every axis.
    let is = |e: &mut Emit, k: u32| {
        let k = e.constant(ids.uint, k.into());
        e.op(Op::IEqual, ids.boolean, &[code, k])
    };
    let modes = Modes {
        repeat: is(e, 1),
        mirror: is(e, 2),
        border: is(e, 3),
    };
    let mut texel = Vec::new();
    let mut outside: Option<Word> = None;
    for a in 0..axes {
        let u = component(e, float, coord, a, n);
        let s = component(e, int, size, a, n);
        let s_f = e.op(Op::ConvertSToF, float, &[s]);
        let scaled = e.op(Op::FMul, float, &[u, s_f]);
        let floor = e.ext_inst(ids.glsl, float, FLOOR, &[scaled]);
        let mut i = e.op(Op::ConvertFToS, int, &[floor]);
        if let Some(o) = offset {
            let o = component(e, int, o, a, axes);
            i = e.op(Op::IAdd, int, &[i, o]);
        }
        let (wrapped, out) = wrap(e, ids, i, s, &modes);
        texel.push(wrapped);
        outside = Some(match outside {
            Some(o) => e.op(Op::LogicalOr, ids.boolean, &[o, out]),
            None => out,
        });
    }
    if arrayed {
        let w = component(e, float, coord, axes, n);
        let nearest = e.ext_inst(ids.glsl, float, ROUND_EVEN, &[w]);
        let l = e.op(Op::ConvertFToS, int, &[nearest]);
        let layers = component(e, int, size, axes, n);
        let top = e.op(Op::ISub, int, &[layers, i1]);
        texel.push(e.ext_inst(ids.glsl, int, S_CLAMP, &[l, i0, top]));
    }
    let at = if n == 1 {
        texel[0]
    } else {
        e.op(Op::CompositeConstruct, size_ty, &texel)
    };
    let ty = inst.result_type.unwrap_or(0);
    let read = e.fresh();
    e.push(Instruction::new(
        Op::ImageFetch,
        Some(ty),
        Some(read),
        vec![
            Operand::IdRef(image),
            Operand::IdRef(at),
            Operand::ImageOperands(ImageOperands::LOD),
            Operand::IdRef(level),
        ],
    ));
    // Clamp to border reads zero outside: a select per component.
    let outside = outside.unwrap_or(0);
    let width = e.m.components(ty);
    let mask = per_component(e, ids, outside, width);
    let zero = e.null(ty);
    let texel = e.op(Op::Select, ty, &[mask, zero, read]);
    // The sampler stays bound, as it is to the original: a gather through
    // it, chosen by a test on the address mode that never holds, which the
    // driver folds away with the override.
    let component = e.constant(ids.int, 0);
    let gathered = e.op(Op::ImageGather, ty, &[si, coord, component]);
    let never = e.constant(ids.uint, 4);
    let never = e.op(Op::IEqual, ids.boolean, &[code, never]);
    let never = per_component(e, ids, never, width);
    e.push(with_ids(
        Op::Select,
        Some(ty),
        inst.result_id,
        &[never, gathered, texel],
    ));
    Ok(())
}

/// The condition `b` for each of `width` components (a `select`'s mask).
fn per_component(e: &mut Emit, ids: &Ids, b: Word, width: u32) -> Word {
    match width {
        2..=4 => e.op(
            Op::CompositeConstruct,
            ids.bvec[width as usize],
            &vec![b; width as usize],
        ),
        _ => b,
    }
}

/// Which address mode the bound sampler has (clamp to edge when none).
struct Modes {
    repeat: Word,
    mirror: Word,
    border: Word,
}

/// Texel `i` of an axis of `s` texels wrapped by the address mode:
/// the texel to read, and whether it reads the border.
fn wrap(e: &mut Emit, ids: &Ids, i: Word, s: Word, modes: &Modes) -> (Word, Word) {
    let int = ids.int;
    let boolean = ids.boolean;
    let zero = e.constant(int, 0);
    let one = e.constant(int, 1);
    let minus_one = e.constant(int, u32::MAX.into());
    let last = e.op(Op::ISub, int, &[s, one]);
    let clamped = e.ext_inst(ids.glsl, int, S_CLAMP, &[i, zero, last]);
    // Repeat: i mod s, in [0, s).
    let positive_mod = |e: &mut Emit, x: Word, n: Word| {
        let r = e.op(Op::SRem, int, &[x, n]);
        let negative = e.op(Op::SLessThan, boolean, &[r, zero]);
        let up = e.op(Op::IAdd, int, &[r, n]);
        e.op(Op::Select, int, &[negative, up, r])
    };
    let repeated = positive_mod(e, i, s);
    // Mirrored repeat: (s - 1) - mirror((i mod 2s) - s), mirror(x) = x >= 0 ? x : -(1 + x).
    let two_s = e.op(Op::IAdd, int, &[s, s]);
    let t = positive_mod(e, i, two_s);
    let x = e.op(Op::ISub, int, &[t, s]);
    let non_negative = e.op(Op::SGreaterThanEqual, boolean, &[x, zero]);
    let flipped = e.op(Op::ISub, int, &[minus_one, x]);
    let mirror = e.op(Op::Select, int, &[non_negative, x, flipped]);
    let mirrored = e.op(Op::ISub, int, &[last, mirror]);
    let pick = e.op(Op::Select, int, &[modes.mirror, mirrored, clamped]);
    let texel = e.op(Op::Select, int, &[modes.repeat, repeated, pick]);
    let inside = e.op(Op::IEqual, boolean, &[i, clamped]);
    let outside = e.op(Op::LogicalNot, boolean, &[inside]);
    let reads_border = e.op(Op::LogicalAnd, boolean, &[modes.border, outside]);
    (texel, reads_border)
}
