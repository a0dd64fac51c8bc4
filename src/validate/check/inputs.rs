//! Inputs from the shader alone: every binding's resource made from its
//! declared type, in one of several [`Variant`]s, and the type of each
//! 4-byte word of a buffer, which both the inputs and the comparison read.
//!
//! A buffer's words are typed from the original SPIR-V's declarations (the
//! block as the native run sees it; the translation keeps its bytes), read
//! by naga's SPIR-V front end. Where that front end cannot read a module,
//! the binding map's element type types every word.

use crate::runtime::job::Resources;
use crate::runtime::job::spec::{
    BindingRef, BufferArg, BufferInit, ImageArg, SamplerArg, Slot, TextureArg,
};
use crate::{ArrayLength, BindingInfo, BindingKind, Kernel};

/// The module's types and globals as naga reads them: its instructions up
/// to the first function, without entry points (the declarations are all
/// a layout needs, and naga's reader refuses some functions a driver
/// runs). A storage image declared without a format is read as one of
/// four 32-bit channels of its sampled type, and capabilities naga does
/// not know (`StorageImageWriteWithoutFormat`) are passed over: neither
/// changes a buffer's layout. None where even they cannot be read.
pub fn declarations(words: &[u32]) -> Option<naga::Module> {
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    const OP_TYPE_IMAGE: u32 = 25;
    // SPIR-V's Rgba32f, Rgba32i and Rgba32ui.
    const RGBA32F: u32 = 1;
    const RGBA32I: u32 = 21;
    const RGBA32UI: u32 = 30;
    // Arrays sized by spec-constant operations take their default lengths.
    let folded = crate::lower::spirv::spec::with_defaults_folded(words);
    let words = folded.as_deref().unwrap_or(words);
    let mut kept: Vec<u32> = words.get(..5)?.to_vec();
    // Each scalar type's four-channel 32-bit image format.
    let mut formats: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if count == 0 || i + count > words.len() || op == 54 {
            break;
        }
        let inst = &words[i..i + count];
        match (op, inst) {
            (OP_TYPE_INT, [_, id, _, signed, ..]) => {
                formats.insert(*id, if *signed == 1 { RGBA32I } else { RGBA32UI });
            }
            (OP_TYPE_FLOAT, [_, id, ..]) => {
                formats.insert(*id, RGBA32F);
            }
            _ => {}
        }
        // OpEntryPoint, OpExecutionMode, OpExecutionModeId go, and
        // OpSpecConstantOp, which naga does not read (the functions that
        // use its values are gone too); a
        // specialization constant is its default (naga sizes no array by
        // one): OpSpecConstantTrue, False, OpSpecConstant and Composite
        // become the constants they default to, their SpecId decorations
        // dropped.
        let spec_id = op == 71 && words.get(i + 2) == Some(&1);
        if !matches!(op, 15 | 16 | 52 | 331) && !spec_id {
            let at = kept.len();
            kept.extend_from_slice(&words[i..i + count]);
            if let 48..=51 = op {
                kept[at] = (words[i] & 0xFFFF_0000) | (op - 7);
            }
            // Sampled 2 (a storage image), format Unknown.
            if let (OP_TYPE_IMAGE, [_, _, sampled_type, _, _, _, _, 2, 0, ..]) = (op, inst) {
                kept[at + 8] = formats.get(sampled_type).copied().unwrap_or(RGBA32F);
            }
        }
        i += count;
    }
    let options = naga::front::spv::Options {
        strict_capabilities: false,
        ..Default::default()
    };
    crate::guard("naga's SPIR-V reader", || {
        naga::front::spv::Frontend::new(kept.into_iter(), &options)
            .parse()
            .map_err(|e| crate::Error::Internal(e.to_string()))
    })
    .ok()
}

/// One set of generated inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// What a real caller passes: finite floats of moderate size (0.5 to
    /// 2), small non-zero integers (1 to 3), and members named as counts,
    /// sizes or extents set to the dispatch's, indices and offsets 0. The
    /// verdict rests on it.
    WellFormed,
    /// [`Variant::WellFormed`]'s inputs on one workgroup.
    OneGroup,
    /// Every word zero.
    Zero,
    /// Word `i` holds `i` (as a float where the word is one).
    Iota,
    /// Random integers; floats random in -100 to 100.
    Random,
    /// The extremes: 0, -1, the largest and smallest integers; ±0, the
    /// largest floats, infinities and NaN.
    Extremes,
}

impl Variant {
    /// Every variant, well-formed ones first.
    pub const ALL: [Variant; 6] = [
        Variant::WellFormed,
        Variant::OneGroup,
        Variant::Zero,
        Variant::Iota,
        Variant::Random,
        Variant::Extremes,
    ];

    /// The name reports use (`well-formed`, `one-group`, …).
    pub fn name(self) -> &'static str {
        match self {
            Variant::WellFormed => "well-formed",
            Variant::OneGroup => "one-group",
            Variant::Zero => "zero",
            Variant::Iota => "iota",
            Variant::Random => "random",
            Variant::Extremes => "extremes",
        }
    }

    /// Whether a real caller could pass these inputs: a difference under a
    /// well-formed variant is a translation's, under a raw one possibly the
    /// original's undefined behaviour.
    pub fn well_formed(self) -> bool {
        matches!(self, Variant::WellFormed | Variant::OneGroup)
    }
}

/// What a 4-byte word of a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// Bits of no known type (halfs, narrow integers, padding).
    Bits,
    /// A 32-bit integer, unsigned or signed.
    Int,
    /// The high word of a 64-bit integer.
    IntHigh,
    /// A 32-bit float.
    F32,
    /// The low word of a 64-bit float (the next word is its high word).
    F64,
    /// The high word of a 64-bit float.
    F64High,
}

/// What an integer's name says it is, in the well-formed variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Nothing: a small non-zero value.
    Plain,
    /// A count or size: the number of invocations.
    Count,
    /// An extent along axis 0, 1 or 2 (`width`, `height`, `depth`).
    Extent(usize),
    /// An index, offset or start: 0.
    Index,
    /// A stride or step: 1.
    Stride,
    /// A lock, mutex or semaphore: 0, free.
    Lock,
    /// A ticket counter that workgroups take turns from (`done`,
    /// `finished`, `arrived`): 0, as the host clears it before a
    /// dispatch, so that the last to arrive is the last to run.
    Ticket,
}

impl Role {
    /// The role a member's name gives it.
    fn of(name: &str) -> Role {
        let n = name.to_ascii_lowercase();
        let has = |w: &[&str]| w.iter().any(|w| n.contains(w));
        if has(&["width", "size_x", "sizex", "dimx", "dim_x"]) || n == "w" || n == "nx" {
            Role::Extent(0)
        } else if has(&["height", "size_y", "sizey", "dimy", "dim_y"]) || n == "h" || n == "ny" {
            Role::Extent(1)
        } else if has(&["depth", "size_z", "dimz"]) || n == "nz" {
            Role::Extent(2)
        } else if has(&["stride", "step", "pitch"]) {
            Role::Stride
        } else if has(&["lock", "mutex", "semaphore", "spin"]) {
            Role::Lock
        } else if has(&[
            "done",
            "finished",
            "arrived",
            "ticket",
            "retired",
            "completed",
        ]) {
            Role::Ticket
        } else if has(&[
            "count", "num", "len", "size", "total", "max", "limit", "elements",
        ]) || n == "n"
        {
            Role::Count
        } else if has(&[
            "index", "idx", "offset", "start", "first", "begin", "base", "min",
        ]) || ["level", "lod", "mip"].iter().any(|s| n.ends_with(s))
        {
            // A mip level picks an element of an array of a level's images
            // (`outputTexture[level]`), and level 0 is always there.
            Role::Index
        } else {
            Role::Plain
        }
    }
}

/// The typed words of a buffer binding, and the stride of the runtime
/// array it ends with.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Word `i` of the fixed part and of one runtime-array element after it.
    words: Vec<(Word, Role)>,
    /// The byte offset and stride of the runtime array, if it ends with one.
    runtime: Option<(u32, u32)>,
}

impl Layout {
    /// The layout of the binding `info` in the original SPIR-V `module`
    /// (none where it cannot be read: every word then has the binding map's
    /// element type).
    pub fn of(module: Option<&naga::Module>, info: &BindingInfo) -> Layout {
        let ty = module.and_then(|m| {
            let (_, g) = m.global_variables.iter().find(|(_, g)| {
                if info.push_constant {
                    g.space == naga::AddressSpace::Immediate
                } else {
                    g.binding.as_ref().is_some_and(|b| {
                        (b.group, b.binding)
                            == (
                                info.declared_group.unwrap_or(info.group),
                                info.declared.unwrap_or(info.binding),
                            )
                    })
                }
            })?;
            Some((m, g.ty))
        });
        let mut layout = Layout::default();
        match ty {
            // Members say what they are, or inherit what their block's
            // name says (`buffer Lock { uint value; }`).
            Some((m, ty)) => {
                let named = [&info.block_name, &info.name].into_iter().flatten();
                let role = named.map(|n| Role::of(n)).find(|r| *r != Role::Plain);
                layout.walk(m, ty, 0, role.unwrap_or(Role::Plain));
            }
            None => {
                let word = match info.element_type {
                    Some(crate::ElementType::F32) => Word::F32,
                    Some(t) if t.bytes() == 4 => Word::Int,
                    _ => Word::Bits,
                };
                layout.words = vec![(word, Role::Plain); (info.min_size as usize).div_ceil(4)];
                if info.kind != BindingKind::Uniform && info.element_type.is_some() {
                    let stride = info.element_type.map_or(4, |t| t.bytes() as u32);
                    layout.runtime = Some(((info.min_size as u32).saturating_sub(stride), stride));
                }
            }
        }
        layout
    }

    /// Types the words of `ty` at byte `offset`.
    fn walk(&mut self, m: &naga::Module, ty: naga::Handle<naga::Type>, offset: u32, role: Role) {
        use naga::{ScalarKind as K, TypeInner as T};
        let mut put = |at: u32, w: Word| {
            let i = (at / 4) as usize;
            if self.words.len() <= i {
                self.words.resize(i + 1, (Word::Bits, Role::Plain));
            }
            self.words[i] = (w, role);
        };
        let scalar =
            |at: u32, s: naga::Scalar, put: &mut dyn FnMut(u32, Word)| match (s.kind, s.width) {
                (K::Float, 4) => put(at, Word::F32),
                (K::Float, 8) => {
                    put(at, Word::F64);
                    put(at + 4, Word::F64High);
                }
                (K::Sint | K::Uint | K::Bool, 4) => put(at, Word::Int),
                (K::Sint | K::Uint, 8) => {
                    put(at, Word::Int);
                    put(at + 4, Word::IntHigh);
                }
                _ => put(at & !3, Word::Bits),
            };
        match &m.types[ty].inner {
            T::Scalar(s) | T::Atomic(s) => scalar(offset, *s, &mut put),
            T::Vector { size, scalar: s } => {
                for k in 0..*size as u32 {
                    scalar(offset + k * u32::from(s.width), *s, &mut put);
                }
            }
            T::Matrix {
                columns,
                rows,
                scalar: s,
            } => {
                let column = match rows {
                    naga::VectorSize::Bi => 2,
                    _ => 4,
                } * u32::from(s.width);
                for c in 0..*columns as u32 {
                    for r in 0..*rows as u32 {
                        scalar(offset + c * column + r * u32::from(s.width), *s, &mut put);
                    }
                }
            }
            T::Array { base, size, stride } => match size {
                naga::ArraySize::Constant(n) => {
                    for k in 0..n.get().min(1 << 16) {
                        self.walk(m, *base, offset + k * stride, role);
                    }
                }
                _ => {
                    self.runtime = Some((offset, *stride));
                    self.walk(m, *base, offset, role);
                }
            },
            // An element of a binding array of blocks.
            T::BindingArray { base, .. } => self.walk(m, *base, offset, role),
            T::Struct { members, .. } => {
                for mem in members {
                    let own = mem.name.as_deref().map_or(Role::Plain, Role::of);
                    let role = if own == Role::Plain { role } else { own };
                    self.walk(m, mem.ty, offset + mem.offset, role);
                }
            }
            _ => {}
        }
    }

    /// The word types of a buffer of `len` bytes: the runtime array's
    /// element repeated to the end.
    pub fn words(&self, len: usize) -> Vec<(Word, Role)> {
        let n = len.div_ceil(4);
        (0..n)
            .map(|i| match self.runtime {
                Some((start, stride)) if i * 4 >= start as usize + stride as usize => {
                    let stride = stride.max(4) as usize;
                    let j = start as usize + (i * 4 - start as usize) % stride;
                    self.words.get(j / 4).copied()
                }
                _ => self.words.get(i).copied(),
            })
            .map(|w| w.unwrap_or((Word::Bits, Role::Plain)))
            .collect()
    }

    /// The bytes a buffer of the binding takes: the static part, and for a
    /// runtime array `elements` elements.
    pub fn len(&self, info: &BindingInfo, elements: u64) -> u64 {
        let fixed = info.min_size.max(4 * self.words.len() as u64);
        let len = match self.runtime {
            Some((start, stride)) => u64::from(start) + u64::from(stride.max(4)) * elements,
            None => fixed,
        };
        // Uniform blocks bind in multiples of 16 bytes.
        len.max(fixed).div_ceil(16) * 16
    }

    /// Whether byte `at` lies in the last element of the runtime array of a
    /// buffer of `len` bytes: where WGSL's clamped indices land an access
    /// past the end that the native run (robust buffer access) discards.
    pub fn in_last_element(&self, at: usize, len: usize) -> bool {
        match self.runtime {
            Some((start, stride)) => {
                let stride = stride.max(4) as usize;
                let body = len.saturating_sub(start as usize) / stride * stride;
                at >= start as usize + body.saturating_sub(stride)
            }
            None => false,
        }
    }
}

/// The dispatch a check runs: two workgroups along every axis the
/// workgroup spans (and x), and along x 16 invocations at least. Two, not
/// more: kernels are often written for a grid a little larger than one
/// workgroup (arrays, images and output rows sized for it), and past it
/// invocations write over each other, which says nothing of the
/// translation.
pub fn dispatch(workgroup: [u32; 3]) -> [u32; 3] {
    let mut g = [1u32; 3];
    for (k, &w) in workgroup.iter().enumerate() {
        if w > 1 || k == 0 {
            g[k] = 2;
        }
    }
    g[0] = g[0].max(16u32.div_ceil(workgroup[0].max(1)));
    g
}

/// A small deterministic random source (xorshift), so that a check's
/// inputs are the same every time.
pub struct Rng(u64);

impl Rng {
    /// The source for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 32 random bits.
    pub fn word(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }

    /// A float in `lo..hi`.
    fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * f64::from(self.word()) / f64::from(u32::MAX)
    }
}

/// The bytes of a buffer of `words` in `variant`; `extent` is the
/// dispatch's invocations along each axis.
pub fn buffer_bytes(
    words: &[(Word, Role)],
    variant: Variant,
    extent: [u32; 3],
    rng: &mut Rng,
) -> Vec<u8> {
    let total = extent.iter().product::<u32>();
    let well = variant.well_formed();
    let mut out: Vec<u32> = Vec::with_capacity(words.len());
    for (i, &(word, role)) in words.iter().enumerate() {
        let double = |x: f64, half: usize| (x.to_bits() >> (32 * half)) as u32;
        let v = match (variant, word) {
            (Variant::Zero, _) => 0,
            // A 64-bit float's words, each from the value its low word's
            // index chose (the random one from a source reseeded by index).
            (_, Word::F64 | Word::F64High) => {
                let (at, half) = if word == Word::F64 {
                    (i, 0)
                } else {
                    (i.saturating_sub(1), 1)
                };
                let mut r = Rng::new(at as u64 ^ variant as u64);
                let x = match variant {
                    Variant::Iota => at as f64,
                    Variant::Random => r.float(-100.0, 100.0),
                    Variant::Extremes => {
                        [f64::MAX, f64::INFINITY, f64::NAN, -0.0, f64::NEG_INFINITY][at % 5]
                    }
                    _ => r.float(0.5, 2.0),
                };
                double(x, half)
            }
            (_, Word::Int) if well => match role {
                Role::Count => total,
                Role::Extent(k) => extent[k],
                Role::Index | Role::Lock | Role::Ticket => 0,
                Role::Stride => 1,
                Role::Plain => 1 + rng.word() % 3,
            },
            (_, Word::IntHigh) if well => 0,
            (_, Word::F32) if well => (rng.float(0.5, 2.0) as f32).to_bits(),
            // Halfs and bytes: each half a small positive number, each byte non-zero.
            (_, Word::Bits) if well => 0x3C01_3C01,
            (Variant::Iota, Word::F32) => (i as f32).to_bits(),
            (Variant::Iota, Word::IntHigh) => 0,
            (Variant::Iota, _) => i as u32,
            (Variant::Random, Word::F32) => (rng.float(-100.0, 100.0) as f32).to_bits(),
            (Variant::Random, _) => rng.word(),
            (Variant::Extremes, Word::F32) => [
                f32::MAX,
                -f32::MAX,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                -0.0,
                f32::MIN_POSITIVE / 2.0,
                0.0,
            ][i % 8]
                .to_bits(),
            (_, _) => [u32::MAX, 0x8000_0000, 0x7FFF_FFFF, 0, 1][i % 5],
        };
        out.push(v);
    }
    out.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Where `info` binds, as a spec writes it: its name, or `GROUP.BINDING`
/// as the shader declared them.
fn slot_text(info: &BindingInfo) -> String {
    match (&info.name, &info.combined) {
        (Some(n), _) | (None, Some(n)) => n.clone(),
        _ => format!(
            "{}.{}",
            info.declared_group.unwrap_or(info.group),
            info.declared.unwrap_or(info.binding)
        ),
    }
}

/// Where `info` binds, as a spec names it.
fn slot_of(info: &BindingInfo) -> BindingRef {
    match (&info.name, &info.combined) {
        (Some(n), _) | (None, Some(n)) => BindingRef::Name(n.clone()),
        _ => BindingRef::Slot(Slot {
            group: info.declared_group.unwrap_or(info.group),
            binding: info.declared.unwrap_or(info.binding),
            element: 0,
        }),
    }
}

/// The elements made for a binding array declared without a size: as
/// many as the well-formed variant's small indices (1 to 3, and 0) reach.
const UNSIZED_ELEMENTS: u32 = 4;

/// The most elements made for a binding array declared with a size; a
/// longer one's elements are the caller's to give.
const MAX_ELEMENTS: u32 = 64;

/// The size an image or texture of shape `dim` gets, as a spec writes it.
fn image_size(dim: &str) -> &'static str {
    match dim {
        "1d" | "buffer" => "64",
        "1darray" => "64x4",
        "2darray" | "2dmsarray" => "32x32x4",
        "cubearray" => "16x16x2",
        "cube" => "16x16",
        "3d" => "16x16x8",
        _ => "32x32",
    }
}

/// The mip levels of a generated texture of shape `dim`: the full chain of
/// [`image_size`]'s size (WebGPU gives a 1D texture one level).
fn mip_levels(dim: &str) -> u32 {
    match dim {
        "2d" | "2darray" => 6,
        "cube" | "cubearray" | "3d" => 5,
        _ => 1,
    }
}

/// The value every texel of a generated image starts at: 0 in the zero
/// variant, in the extremes one the largest value of a 32- or 64-bit
/// integer format (what a depth or minimum buffer is cleared to), 1
/// otherwise.
pub fn image_fill(info: &BindingInfo, variant: Variant) -> &'static str {
    let format = match (&info.image, &info.texture) {
        (Some(s), _) => s.format.name().to_string(),
        (None, Some(t)) => t.format.clone().unwrap_or_default(),
        _ => String::new(),
    };
    match variant {
        Variant::Zero => "0",
        Variant::Extremes if matches!(format.as_str(), "r32ui" | "r64ui" | "r32uint") => {
            "4294967295"
        }
        Variant::Extremes if matches!(format.as_str(), "r32i" | "r64i" | "r32sint") => "2147483647",
        _ => "1",
    }
}

/// What [`generate`] made: each generated buffer's binding (group,
/// binding) and initial bytes, and every generated resource as `run`'s
/// flags would give it (`--buffer 0.1=u32:[…]`), for a runner that takes
/// flags.
#[derive(Clone, Debug, Default)]
pub struct Made {
    /// Each buffer's binding and initial bytes: the generated ones, and
    /// those given whose bytes are known before the run, keyed by binding
    /// and element (0 but in a binding array).
    pub buffers: Vec<((u32, u32, u32), Vec<u8>)>,
    /// The generated resources as job flags.
    pub flags: Vec<String>,
}

/// Every resource `kernel` needs that `given` does not name, made for
/// `variant`; the dispatch covers `extent` invocations. Returns the
/// resources and what was generated ([`Made`]). What cannot be generated is an `Err` naming
/// it: the check reports it as not run.
pub fn generate(
    kernel: &Kernel,
    module: Option<&naga::Module>,
    given: &Resources,
    variant: Variant,
    extent: [u32; 3],
) -> Result<(Resources, Made), String> {
    let mut res = given.clone();
    let mut made = Made::default();
    let mut rng = Rng::new(variant as u64 + 1);
    let mut float_textures = 0u32;
    let total = u64::from(extent.iter().product::<u32>());
    // Whether a given spec binds `info` (element `element` of it, where
    // given), as the job will resolve it.
    let named_element = |r: &BindingRef, info: &BindingInfo, element: Option<u32>| {
        r.resolve(kernel).is_ok_and(|(slot, i)| {
            i.is_some_and(|i| (i.group, i.binding) == (info.group, info.binding))
                && element.is_none_or(|k| slot.element == k)
        })
    };
    let named = |r: &BindingRef, info: &BindingInfo| named_element(r, info, None);
    // What to make: each binding, or each element of a binding array.
    let mut wanted: Vec<(&BindingInfo, Option<u32>)> = Vec::new();
    for info in kernel.bindings() {
        if info.alias_of.is_some() {
            continue;
        }
        let Some(length) = info.array else {
            wanted.push((info, None));
            continue;
        };
        // Elements the caller gave (`--run '--image mips[0]=…'`): the job
        // names any it lacks.
        let given = res.buffers.iter().any(|a| named(&a.slot, info))
            || res.images.iter().any(|a| named(&a.slot, info))
            || res.textures.iter().any(|a| named(&a.slot, info));
        // Arrays declared at one binding are one descriptor array: the
        // first one's elements serve it (stand-ins fill the others').
        let shared = wanted
            .iter()
            .any(|(w, k)| k.is_some() && (w.group, w.binding) == (info.group, info.binding));
        if given || shared {
            continue;
        }
        let n = match length {
            ArrayLength::Fixed(n) => n,
            ArrayLength::Unsized => UNSIZED_ELEMENTS,
        };
        if n > MAX_ELEMENTS || info.name.is_none() && info.combined.is_none() {
            return Err(format!(
                "`{}` is an array of {n} resources: give its elements with --buffer/--image/--texture NAME[k]=…",
                info.display_name()
            ));
        }
        wanted.extend((0..n).map(|k| (info, Some(k))));
    }
    for (info, element) in wanted {
        let named = |r: &BindingRef, info: &BindingInfo| named_element(r, info, element);
        let slot_text = |info: &BindingInfo| match element {
            Some(k) => format!("{}[{k}]", slot_text(info)),
            None => slot_text(info),
        };
        let slot_of = |info: &BindingInfo| match element {
            Some(_) => BindingRef::Name(slot_text(info)),
            None => slot_of(info),
        };
        let key = (info.group, info.binding, element.unwrap_or(0));
        match info.kind {
            k if k.is_buffer() => {
                if let Some(a) = res.buffers.iter().find(|a| named(&a.slot, info)) {
                    // Its bytes, where they can be known before the run,
                    // to count what the run wrote.
                    if let Ok((_, bytes)) = a.init.materialize(&|_| Ok(0)) {
                        made.buffers.push((key, bytes));
                    }
                    continue;
                }
                if (info.push_constant && !res.push.is_empty())
                    || (k == BindingKind::Uniform
                        && !info.push_constant
                        && res
                            .uniforms
                            .iter()
                            .any(|u| info.members.iter().any(|m| m.name == u.name)))
                {
                    continue;
                }
                if info.name.as_deref() == Some(crate::Arena::BINDING) {
                    return Err("the kernel reaches buffers by address (buffer_reference): give them with --buffer @NAME=…".into());
                }
                let layout = Layout::of(module, info);
                let len = layout.len(info, (total * 4).max(64)).min(64 << 20);
                let words = layout.words(len as usize);
                let bytes = buffer_bytes(&words, variant, extent, &mut rng);
                let words: Vec<String> = bytes
                    .chunks(4)
                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]).to_string())
                    .collect();
                made.flags.extend([
                    "--buffer".to_string(),
                    format!("{}=u32:[{}]", slot_text(info), words.join(",")),
                ]);
                made.buffers.push((key, bytes.clone()));
                res.buffers.push(BufferArg {
                    slot: slot_of(info),
                    init: BufferInit::Bytes(bytes),
                });
            }
            BindingKind::Image | BindingKind::StorageTexture => {
                if res.images.iter().any(|a| named(&a.slot, info)) {
                    continue;
                }
                let dim = match (&info.image, &info.texture) {
                    (Some(s), _) => Some(s.dim.name()),
                    (None, Some(t)) => t.dim.map(|d| d.name()),
                    _ => None,
                }
                .unwrap_or_default();
                let samples = if dim.contains("ms") { ":samples=4" } else { "" };
                // A storage image declared without a format takes one of
                // its sampled type: r32 where it is read and written (what
                // every backend stores so), four channels otherwise.
                let format = match info.texture.as_ref().filter(|t| t.format_from_host) {
                    Some(t) => {
                        let both = t.access.is_none_or(|a| a == "read_write");
                        match (t.sample, both) {
                            ("uint", true) => ":r32uint",
                            ("sint", true) => ":r32sint",
                            (_, true) => ":r32float",
                            ("uint", false) => ":rgba32uint",
                            ("sint", false) => ":rgba32sint",
                            _ => ":rgba16float",
                        }
                    }
                    None => "",
                };
                let spec = format!(
                    "{}={}{format}:fill={}{samples}",
                    slot_text(info),
                    image_size(dim),
                    image_fill(info, variant)
                );
                let arg: ImageArg = spec.parse().map_err(|e: crate::Error| e.to_string())?;
                made.flags.extend(["--image".to_string(), spec]);
                res.images.push(arg);
            }
            BindingKind::SampledTexture => {
                if res.textures.iter().any(|a| named(&a.slot, info)) {
                    continue;
                }
                if info.texture.as_ref().is_some_and(|t| t.multisampled) {
                    return Err(format!(
                        "`{}` is a multisampled texture, which atomport neither makes nor binds",
                        info.display_name()
                    ));
                }
                let dim = info
                    .texture
                    .as_ref()
                    .and_then(|t| t.dim)
                    .map_or("2d", |d| d.name());
                let mode = if variant == Variant::Zero {
                    "fill=0"
                } else {
                    "iota"
                };
                // Float textures alternate between 8-bit normalized
                // channels (iota counts i / 255) and 16-bit floats (iota
                // counts i), so that two textures a shader compares (an
                // error metric, a difference of frames) differ.
                let float = info.texture.as_ref().is_some_and(|t| t.sample == "float");
                float_textures += u32::from(float);
                let format = if float && float_textures.is_multiple_of(2) {
                    ":rgba16float"
                } else {
                    ""
                };
                // A full mip chain: a kernel that reads a level past 0 (a
                // downsampler reading its source level) reads data, as
                // the texture it was written for has, not past the end.
                let spec = format!(
                    "{}={}{format}:{mode}:mips={}",
                    slot_text(info),
                    image_size(dim),
                    mip_levels(dim)
                );
                let arg: TextureArg = spec.parse().map_err(|e: crate::Error| e.to_string())?;
                made.flags.extend(["--texture".to_string(), spec]);
                res.textures.push(arg);
            }
            BindingKind::Sampler => {
                let shadow = info.comparison == Some(true);
                let name = match (&info.combined, &info.name) {
                    // A combined sampler samples with nearest,clamp unless
                    // it compares, which has no default.
                    (Some(c), _) if shadow => c.clone(),
                    (None, Some(n)) => n.clone(),
                    _ => continue,
                };
                let name = match element {
                    Some(k) => format!("{name}[{k}]"),
                    None => name,
                };
                if res.samplers.iter().any(|s| s.name == name) {
                    continue;
                }
                let spec = if shadow {
                    "nearest,clamp,compare=less"
                } else {
                    "nearest,clamp"
                };
                made.flags
                    .extend(["--sampler".to_string(), format!("{name}={spec}")]);
                res.samplers.push(SamplerArg {
                    name,
                    desc: spec.parse().map_err(|e: crate::Error| e.to_string())?,
                });
            }
            _ => {}
        }
    }
    Ok((res, made))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceOptions;

    #[test]
    fn names_say_what_integers_are() {
        assert_eq!(Role::of("elementCount"), Role::Count);
        assert_eq!(Role::of("num_items"), Role::Count);
        assert_eq!(Role::of("width"), Role::Extent(0));
        assert_eq!(Role::of("imageHeight"), Role::Extent(1));
        assert_eq!(Role::of("baseIndex"), Role::Index);
        assert_eq!(Role::of("rowStride"), Role::Stride);
        assert_eq!(Role::of("seed"), Role::Plain);
        assert_eq!(Role::of("Lock"), Role::Lock);
        assert_eq!(Role::of("groupsDone"), Role::Ticket);
        assert_eq!(Role::of("level"), Role::Index);
        assert_eq!(Role::of("mipLevel"), Role::Index);
        assert_eq!(Role::of("mipLevels"), Role::Plain);
        assert_eq!(Role::of("levelCount"), Role::Count);
    }

    #[test]
    fn the_dispatch_covers_every_axis_the_workgroup_spans() {
        assert_eq!(dispatch([64, 1, 1]), [2, 1, 1]);
        assert_eq!(dispatch([8, 8, 1]), [2, 2, 1]);
        assert_eq!(dispatch([1, 1, 1]), [16, 1, 1]);
        assert_eq!(dispatch([4, 4, 4]), [4, 2, 2]);
    }

    #[test]
    fn words_are_typed_from_the_declarations() {
        let k = Kernel::from_glsl(
            r#"#version 450
layout(local_size_x = 1) in;
struct P { vec2 at; uint id; float w; };
layout(set = 0, binding = 0) buffer B { uint count; float scale; double d; P items[]; };
void main() { items[0].id = count; }
"#,
            &SourceOptions::named("t.comp"),
        )
        .unwrap();
        let words = k.original_spirv().unwrap();
        let module = super::declarations(words).expect("declarations read");
        let info = k.binding_named("B").unwrap();
        let l = Layout::of(Some(&module), info);
        let w: Vec<Word> = l.words(48).into_iter().map(|x| x.0).collect();
        use Word::*;
        assert_eq!(
            w,
            vec![
                Int, F32, F64, F64High, F32, F32, Int, F32, F32, F32, Int, F32
            ]
        );
        assert_eq!(l.words(8)[0].1, Role::Count);
        // The runtime array's elements (16 bytes from byte 16), as many as asked.
        assert_eq!(l.len(info, 10), 16 + 160);
        assert!(l.in_last_element(160, 176));
        assert!(!l.in_last_element(140, 176));
    }

    #[test]
    fn arrays_sized_by_specialization_constants_do_not_stop_the_layout() {
        let k = Kernel::from_glsl(
            r#"#version 450
layout(constant_id = 0) const uint BLOCK = 32;
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint KX; uint count; float scale; } p;
layout(set = 0, binding = 0) buffer D { float d[]; };
shared float vals[BLOCK];
void main() {
    vals[gl_LocalInvocationID.x] = p.scale;
    barrier();
    if (gl_LocalInvocationID.x < p.KX) d[gl_LocalInvocationID.x] = vals[p.count % BLOCK];
}
"#,
            &SourceOptions::named("t.comp"),
        )
        .unwrap();
        let module = super::declarations(k.native_spirv().unwrap()).expect("declarations read");
        let info = k.bindings().iter().find(|b| b.push_constant).unwrap();
        let w = Layout::of(Some(&module), info).words(12);
        assert_eq!(w[2].0, Word::F32);
        assert_eq!(w[1], (Word::Int, Role::Count));
    }

    /// A stats block sized by a spec-constant operation (an indirect-draw
    /// culling kernel's `lodCount[MAX_LOD + 1]`): the operation must not
    /// stop naga from reading the declarations, or every buffer of the
    /// kernel is made at its minimum size, one instance for the whole grid,
    /// and the runs compare what reads past the end return.
    #[test]
    fn arrays_sized_by_spec_constant_operations_leave_the_layouts_readable() {
        let k = Kernel::from_glsl(
            r#"#version 450
layout(constant_id = 0) const int MAX_LOD = 5;
layout(local_size_x = 16) in;
struct Instance { vec3 pos; float scale; };
layout(set = 0, binding = 0, std140) readonly buffer Instances { Instance instances[]; };
layout(set = 0, binding = 1) buffer Stats { uint drawn; uint lodCount[MAX_LOD + 1]; } stats;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint lod = uint(min(length(instances[i].pos), float(MAX_LOD)));
    atomicAdd(stats.lodCount[lod], 1u);
}
"#,
            &SourceOptions::named("t.comp"),
        )
        .unwrap();
        let module = super::declarations(k.native_spirv().unwrap()).expect("declarations read");
        let instances = k.binding_named("Instances").unwrap();
        let l = Layout::of(Some(&module), instances);
        assert_eq!(l.len(instances, 32), 32 * 16);
        let stats = k.binding_named("Stats").unwrap();
        assert_eq!(Layout::of(Some(&module), stats).len(stats, 32), 32);
    }

    /// A storage image written without a format (a wavelet pass's output)
    /// needs a capability naga's reader does not know and a format it
    /// cannot read: neither may leave the push constants beside it
    /// untyped (they were filled as halfs, so a resolution read as 10⁹).
    #[test]
    fn formatless_storage_images_leave_the_declarations_readable() {
        let k = Kernel::from_glsl(
            r#"#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Registers { ivec2 resolution; vec2 inv_resolution; };
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1) writeonly uniform image2D dst;
layout(set = 0, binding = 2) writeonly uniform uimage2D marks;
void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(c, resolution))) return;
    imageStore(dst, c, textureLod(src, (vec2(c) + 0.5) * inv_resolution, 0.0));
    imageStore(marks, c, uvec4(1u));
}
"#,
            &SourceOptions::named("t.comp"),
        )
        .unwrap();
        let module = super::declarations(k.native_spirv().unwrap()).expect("declarations read");
        let info = k.bindings().iter().find(|b| b.push_constant).unwrap();
        let w: Vec<Word> = Layout::of(Some(&module), info)
            .words(16)
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(w, vec![Word::Int, Word::Int, Word::F32, Word::F32]);
    }

    #[test]
    fn generated_textures_have_a_full_mip_chain() {
        let k = crate::Kernel::from_glsl(
            "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1) uniform samplerCube env;
layout(set = 0, binding = 2) buffer Out { vec4 v[2]; };
void main() { v[0] = texelFetch(src, ivec2(0), 2); v[1] = textureLod(env, vec3(1, 0, 0), 3.0); }
",
            &SourceOptions::named("mips.comp"),
        )
        .unwrap();
        let (_, made) = generate(
            &k,
            None,
            &Resources::default(),
            Variant::WellFormed,
            [1, 1, 1],
        )
        .unwrap();
        let textures: Vec<&str> = made
            .flags
            .windows(2)
            .filter(|w| w[0] == "--texture")
            .map(|w| w[1].as_str())
            .collect();
        assert_eq!(
            textures,
            ["src=32x32:iota:mips=6", "env=16x16:rgba16float:iota:mips=5"],
            "{:?}",
            made.flags
        );
    }

    #[test]
    fn well_formed_values_are_moderate() {
        let words = vec![
            (Word::F32, Role::Plain),
            (Word::Int, Role::Count),
            (Word::Int, Role::Plain),
            (Word::Int, Role::Index),
        ];
        let b = buffer_bytes(&words, Variant::WellFormed, [64, 2, 1], &mut Rng::new(1));
        let w: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!((0.5..2.0).contains(&f32::from_bits(w[0])));
        assert_eq!(w[1], 128);
        assert!((1..=3).contains(&w[2]));
        assert_eq!(w[3], 0);
        assert!(
            buffer_bytes(&words, Variant::Zero, [1, 1, 1], &mut Rng::new(1))
                .iter()
                .all(|&x| x == 0)
        );
    }
}
