//! The conformance matrix, after the Khronos Vulkan CTS image atomic tests:
//! every GLSL atomic function × {int, uint} × every kind of memory (buffer
//! member, buffer array element, vector component, shared array element, and
//! the eleven image types), generated as GLSL, translated by atomport's own
//! pipeline, dispatched, and checked against [`super::reference`].
//!
//! Method, per case:
//! - several invocations ([`CALLS`]) hit each location with distinct
//!   arguments (x² + y² with alternating signs for min/max); initial values
//!   are chosen so that every call is visible;
//! - the final value must be the fold of the initial value with every
//!   argument (add/min/max/and/or/xor); for exchange, the returned values
//!   plus the final value are a permutation of the initial value plus the
//!   arguments; for compare-swap (all comparing the initial value) exactly
//!   one call wins;
//! - the returned values at a location must be produced by some serial
//!   order of the calls that hit it (searched with backtracking);
//! - words or texels that no call targets must not change;
//! - a compare-swap chain (every invocation sweeps the links: compare A_j,
//!   write A_j+1) must take every link exactly once;
//! - out of range (images): an atomic with any coordinate or sample out of
//!   range returns 0 and changes nothing; so do imageLoad (0) and imageStore.
//!
//! Two memory-model litmus tests run many times each (200 dispatches of 64
//! workgroups at full size): message passing through a flag with
//! release/acquire inside a workgroup, and coherence of one word under many
//! writers and readers; each outcome is checked against the outcomes the
//! shader's memory model allows.
//!
//! Every standard case runs twice: as Vulkan GLSL and as OpenGL GLSL (`gl/`
//! cases: `#version 430`, loose uniforms for the parameters, OpenGL binding
//! numbers with image unit 0 beside buffer binding 0, resources bound by
//! name). The OpenGL cases add the atomic-counter functions: three counters
//! in one binding at different offsets, 128 invocations on each, checked
//! by the reference model (increment returns a permutation of the
//! initial value onwards, decrement the values after, the rest by fold,
//! permutation and single winner), with the words between counters unchanged.

use crate::lower::texel::{ImageDim, ImageFormat, TexelAddress};
use crate::validate::reference::{AtomicOp, explained_by_serial_order};
use crate::{
    Bind, Buffer, Context, Dialect, Image, ImageDesc, Kernel, Result, ScalarType, SourceOptions,
    Uniforms,
};

/// Calls per location.
pub const CALLS: usize = 5;
/// Links of a compare-swap chain.
const LINKS: u32 = 16;

/// Where the atomics land.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// A buffer-block member (`b.member`).
    Member,
    /// An element of an array in a buffer (`b.arr[i]`).
    ArrayElement,
    /// One component of a vector in a buffer (`b.v.y`).
    VectorComponent,
    /// An element of a `shared` array.
    Shared,
    /// A texel of a storage image.
    Image(ImageDim),
    /// An `atomic_uint` counter (OpenGL GLSL).
    Counter,
}

impl Memory {
    /// Every kind of memory, buffers first.
    pub fn all() -> Vec<Memory> {
        let mut v = vec![
            Memory::Member,
            Memory::ArrayElement,
            Memory::VectorComponent,
            Memory::Shared,
        ];
        v.extend(ImageDim::ALL.into_iter().map(Memory::Image));
        v.push(Memory::Counter);
        v
    }

    /// Short name: `member`, `array`, `vector`, `shared`, or the image dim (`cubearray`).
    pub fn name(self) -> &'static str {
        match self {
            Memory::Member => "member",
            Memory::ArrayElement => "array",
            Memory::VectorComponent => "vector",
            Memory::Shared => "shared",
            Memory::Image(d) => d.name(),
            Memory::Counter => "counter",
        }
    }
}

/// What a case checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// [`CALLS`] calls per location, checked by fold / permutation / winner and serial order.
    Standard,
    /// A compare-swap chain.
    Chain,
    /// Image accesses out of range.
    OutOfRange,
    /// Float atomicAdd on a buffer (GL_EXT_shader_atomic_float).
    FloatAdd,
    /// imageAtomicExchange on an r32f image.
    FloatExchange,
    /// An atomic-counter function (OpenGL GLSL).
    Counter(CounterFn),
    /// An image atomic on a 64-bit image (`r64ui` for uint, `r64i` for int;
    /// GL_EXT_shader_image_int64), on adapters with 64-bit atomics.
    Int64,
    /// Memory-model litmus test: message passing through a flag with
    /// release/acquire inside a workgroup (Vulkan memory model GLSL).
    MessagePassing,
    /// Memory-model litmus test: coherence of one location under many
    /// writers and readers across workgroups.
    Coherence,
}

/// The atomic-counter functions of OpenGL GLSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterFn {
    /// `atomicCounterIncrement`: returns the value before.
    Increment,
    /// `atomicCounterDecrement`: returns the value after.
    Decrement,
    /// `atomicCounterSubtract`.
    Subtract,
    /// `atomicCounterAdd`, `…Min`, `…Max`, `…And`, `…Or`, `…Xor`,
    /// `…Exchange`, `…CompSwap`: the case's [`Case::op`].
    Op,
}

impl CounterFn {
    /// The GLSL function for `op`.
    pub fn glsl_name(self, op: AtomicOp) -> String {
        match self {
            CounterFn::Increment => "atomicCounterIncrement".into(),
            CounterFn::Decrement => "atomicCounterDecrement".into(),
            CounterFn::Subtract => "atomicCounterSubtract".into(),
            CounterFn::Op => format!("atomicCounter{}", &op.glsl_name()["atomic".len()..]),
        }
    }
}

/// One case of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    /// The function.
    pub op: AtomicOp,
    /// int or uint (f32 for the float variants).
    pub ty: ScalarType,
    /// Where it lands.
    pub memory: Memory,
    /// What is checked.
    pub variant: Variant,
    /// The GLSL the case is written in.
    pub dialect: Dialect,
}

impl Case {
    /// `atomicAdd/uint/member`, `imageAtomicCompSwap/int/cube/chain`,
    /// `gl/atomicAdd/uint/member`, `gl/atomicCounterIncrement/uint/counter`, …
    pub fn name(&self) -> String {
        let f = match self.memory {
            Memory::Counter => match self.variant {
                Variant::Counter(f) => f.glsl_name(self.op),
                _ => self.op.glsl_name().to_string(),
            },
            Memory::Image(_) => format!(
                "image{}{}",
                &self.op.glsl_name()[..1].to_uppercase(),
                &self.op.glsl_name()[1..]
            ),
            _ => self.op.glsl_name().to_string(),
        };
        let ty = match (self.ty, self.variant) {
            (ScalarType::U32, Variant::Int64) => "uint64",
            (ScalarType::I32, Variant::Int64) => "int64",
            (ScalarType::U32, _) => "uint",
            (ScalarType::I32, _) => "int",
            (ScalarType::F32, _) => "float",
        };
        if let Some(l) = self.litmus_name() {
            return format!("litmus/{l}/uint/{}", self.memory.name());
        }
        let suffix = match self.variant {
            Variant::Chain => "/chain",
            Variant::OutOfRange => "/out-of-range",
            _ => "",
        };
        let gl = if self.dialect == Dialect::OpenGl {
            "gl/"
        } else {
            ""
        };
        format!("{gl}{f}/{ty}/{}{suffix}", self.memory.name())
    }

    /// `message-passing` or `coherence` for the litmus tests.
    fn litmus_name(&self) -> Option<&'static str> {
        match self.variant {
            Variant::MessagePassing => Some("message-passing"),
            Variant::Coherence => Some("coherence"),
            _ => None,
        }
    }

    /// The function's name as the summary table shows it (`atomicAdd`, `atomicCompSwap chain`, …).
    pub fn function_label(&self) -> String {
        if let Some(l) = self.litmus_name() {
            return format!("litmus {l}");
        }
        if let Variant::Counter(f) = self.variant {
            return f.glsl_name(self.op);
        }
        let base = match self.ty {
            ScalarType::F32 => format!("{} float", self.op.glsl_name()),
            _ => self.op.glsl_name().to_string(),
        };
        let base = match self.variant {
            Variant::Int64 => format!("{base} 64-bit"),
            Variant::Chain => format!("{base} chain"),
            Variant::OutOfRange => format!("{base} out-of-range"),
            _ => base,
        };
        match self.dialect {
            Dialect::OpenGl => format!("{base} (GL)"),
            Dialect::Vulkan => base,
        }
    }
}

/// Image sizes: the CTS-like full sizes or small ones for quick tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// 64 (1D, buffer), 64×8 (1D array), 64×64 (2D, rect, cube), 64×64×8 (2D array),
    /// 48×48×8 (3D), 64×64 × 2 cubes, 64×64 × 4 samples, 64×64×2 × 4 samples.
    Full,
    /// A few texels per axis, no two axes alike (catches swapped axes).
    Small,
    /// Heavy contention on buffers: 4096 calls on one member or vector
    /// component, 512 on each of 8 array elements, 128 per workgroup on each
    /// of 8 shared elements (the serial-order search is skipped at these
    /// counts). Images as [`Scale::Small`].
    Heavy,
}

/// `imageSize`'s numbers and the samples for a shape at a scale.
pub fn image_size(dim: ImageDim, scale: Scale) -> (Vec<u32>, u32) {
    match scale {
        Scale::Full => match dim {
            ImageDim::D1 | ImageDim::Buffer => (vec![64], 1),
            ImageDim::D1Array => (vec![64, 8], 1),
            ImageDim::D2 | ImageDim::Rect | ImageDim::Cube => (vec![64, 64], 1),
            ImageDim::D2Array => (vec![64, 64, 8], 1),
            ImageDim::D3 => (vec![48, 48, 8], 1),
            ImageDim::CubeArray => (vec![64, 64, 2], 1),
            ImageDim::D2Ms => (vec![64, 64], 4),
            ImageDim::D2MsArray => (vec![64, 64, 2], 4),
        },
        Scale::Small | Scale::Heavy => match dim {
            ImageDim::D1 | ImageDim::Buffer => (vec![7], 1),
            ImageDim::D1Array => (vec![5, 3], 1),
            ImageDim::D2 | ImageDim::Rect => (vec![5, 3], 1),
            ImageDim::Cube => (vec![3, 3], 1),
            ImageDim::D2Array => (vec![4, 3, 2], 1),
            ImageDim::D3 => (vec![3, 4, 2], 1),
            ImageDim::CubeArray => (vec![2, 2, 2], 1),
            ImageDim::D2Ms => (vec![3, 2], 4),
            ImageDim::D2MsArray => (vec![2, 3, 2], 2),
        },
    }
}

/// The whole matrix.
pub fn matrix() -> Vec<Case> {
    let mut out = Vec::new();
    let case = |op, ty, memory, variant| Case {
        op,
        ty,
        memory,
        variant,
        dialect: Dialect::Vulkan,
    };
    for memory in Memory::all() {
        if memory == Memory::Counter {
            continue;
        }
        for op in AtomicOp::ALL {
            for ty in [ScalarType::I32, ScalarType::U32] {
                out.push(case(op, ty, memory, Variant::Standard));
                if op == AtomicOp::CompSwap {
                    out.push(case(op, ty, memory, Variant::Chain));
                }
                if matches!(memory, Memory::Image(_)) {
                    out.push(case(op, ty, memory, Variant::OutOfRange));
                    out.push(case(op, ty, memory, Variant::Int64));
                }
            }
        }
        // Float atomics (GL_EXT_shader_atomic_float and _float2): add,
        // min and max everywhere, exchange on images.
        let float = |op, variant| case(op, ScalarType::F32, memory, variant);
        match memory {
            Memory::Member | Memory::ArrayElement | Memory::Shared | Memory::Image(_) => {
                out.push(float(AtomicOp::Add, Variant::FloatAdd));
                out.push(float(AtomicOp::Min, Variant::Standard));
                out.push(float(AtomicOp::Max, Variant::Standard));
                if matches!(memory, Memory::Image(_)) {
                    out.push(float(AtomicOp::Exchange, Variant::FloatExchange));
                }
            }
            _ => {}
        }
    }
    // The same functions written as OpenGL GLSL, and the counter functions.
    // (glslang declares float atomicMin/atomicMax for Vulkan GLSL only.)
    let gl: Vec<Case> = out
        .iter()
        .filter(|c| c.variant == Variant::Standard && c.ty != ScalarType::F32)
        .map(|c| Case {
            dialect: Dialect::OpenGl,
            ..*c
        })
        .collect();
    out.extend(gl);
    let counter = |op, f| Case {
        op,
        ty: ScalarType::U32,
        memory: Memory::Counter,
        variant: Variant::Counter(f),
        dialect: Dialect::OpenGl,
    };
    // Memory-model litmus tests.
    out.push(case(
        AtomicOp::Exchange,
        ScalarType::U32,
        Memory::Shared,
        Variant::MessagePassing,
    ));
    out.push(case(
        AtomicOp::Exchange,
        ScalarType::U32,
        Memory::Member,
        Variant::Coherence,
    ));
    out.push(counter(AtomicOp::Add, CounterFn::Increment));
    out.push(counter(AtomicOp::Add, CounterFn::Decrement));
    out.push(counter(AtomicOp::Add, CounterFn::Subtract));
    for op in AtomicOp::ALL {
        out.push(counter(op, CounterFn::Op));
    }
    out
}

/// The result of one case on one adapter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    /// [`Case::name`].
    pub name: String,
    /// Backend name.
    pub backend: String,
    /// Whether every check held.
    pub passed: bool,
    /// For a failure: the location, the expected and the observed values.
    pub detail: String,
    /// Why the case did not run on this adapter (it lacks a feature the
    /// case needs); neither passed nor failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// Options for the mapping under test.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Translate float atomics natively (the adapter must have SHADER_FLOAT32_ATOMIC).
    pub native_float_atomics: bool,
}

/// Runs one case on `ctx`.
pub fn run_case(ctx: &Context, case: &Case, scale: Scale, opts: &RunOptions) -> Outcome {
    let result = match case.variant {
        Variant::Counter(f) => run_counter(ctx, case, f, opts),
        Variant::Chain => run_chain(ctx, case, scale, opts),
        Variant::OutOfRange => run_out_of_range(ctx, case, scale, opts),
        Variant::MessagePassing => run_message_passing(ctx, case, scale, opts),
        Variant::Int64 => {
            let need = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
            if !ctx.device().features().contains(need) {
                return Outcome {
                    name: case.name(),
                    backend: ctx.backend_name().to_string(),
                    passed: false,
                    skipped: Some(
                        "the device has no SHADER_INT64_ATOMIC_ALL_OPS (64-bit atomics)".into(),
                    ),
                    detail: String::new(),
                };
            }
            run_int64_image(ctx, case, scale, opts)
        }
        Variant::Coherence => run_coherence(ctx, case, scale, opts),
        _ => run_standard(ctx, case, scale, opts),
    };
    let (passed, detail) = match result {
        Ok(None) => (true, String::new()),
        Ok(Some(why)) => (false, why),
        Err(e) => (false, e.to_string()),
    };
    Outcome {
        name: case.name(),
        backend: ctx.backend_name().to_string(),
        passed,
        detail,
        skipped: None,
    }
}

fn glsl_scalar(ty: ScalarType) -> (&'static str, &'static str, &'static str) {
    // (scalar, vec4, image prefix)
    match ty {
        ScalarType::U32 => ("uint", "uvec4", "u"),
        ScalarType::I32 => ("int", "ivec4", "i"),
        ScalarType::F32 => ("float", "vec4", ""),
    }
}

fn image_format(ty: ScalarType) -> ImageFormat {
    match ty {
        ScalarType::U32 => ImageFormat::R32Uint,
        ScalarType::I32 => ImageFormat::R32Sint,
        ScalarType::F32 => ImageFormat::R32Float,
    }
}

fn translate(case: &Case, src: &str, opts: &RunOptions) -> Result<Kernel> {
    let mut o = SourceOptions::named(format!("{}.comp", case.name()));
    o.native_float_atomics = opts.native_float_atomics;
    o.dialect = Some(case.dialect);
    #[cfg(feature = "glsl")]
    {
        Kernel::from_glsl(src, &o)
    }
    #[cfg(not(feature = "glsl"))]
    {
        let _ = src;
        Err(crate::Error::Unsupported(format!(
            "{}: the conformance cases are GLSL, which needs atomport's `glsl` feature",
            o.display_name()
        )))
    }
}

/// The first lines of a case's shader: the version, and for OpenGL GLSL
/// the loose uniforms that carry its parameters (`u_n`, `u_locs`, and
/// `u_compare` for compare-swaps).
fn header(case: &Case, uniforms: &[&str]) -> String {
    match case.dialect {
        Dialect::Vulkan => "#version 450\n".into(),
        Dialect::OpenGl => {
            let (t, _, _) = glsl_scalar(case.ty);
            let mut h = "#version 430\n".to_string();
            for u in uniforms {
                h.push_str(&format!("uniform uint {u};\n"));
            }
            if case.op == AtomicOp::CompSwap {
                h.push_str(&format!("uniform {t} u_compare;\n"));
            }
            h
        }
    }
}

/// `layout(set = 0, binding = N` (Vulkan) or `layout(binding = N` (OpenGL).
fn binding(case: &Case, n: u32) -> String {
    match case.dialect {
        Dialect::Vulkan => format!("layout(set = 0, binding = {n}"),
        Dialect::OpenGl => format!("layout(binding = {n}"),
    }
}

/// A constant of the case, written as GLSL: the literal, or for OpenGL
/// GLSL the loose uniform that carries it.
fn param(case: &Case, uniform: &str, literal: String) -> String {
    match case.dialect {
        Dialect::Vulkan => literal,
        Dialect::OpenGl => uniform.into(),
    }
}

/// For OpenGL GLSL: the loose uniforms' buffer, with each of `values` the
/// kernel has.
fn uniforms(ctx: &Context, kernel: &Kernel, values: &[(&str, u32)]) -> Result<Option<Buffer>> {
    if kernel.dialect() != Some(Dialect::OpenGl) {
        return Ok(None);
    }
    let Ok(mut u) = Uniforms::new(kernel) else {
        return Ok(None);
    };
    let present: Vec<String> = u.members().iter().map(|m| m.name.clone()).collect();
    for (name, v) in values.iter().chain(&[("u_compare", COMPARE)]) {
        if present.iter().any(|p| p == name) {
            u.set(name, *v)?;
        }
    }
    u.to_buffer(ctx).map(Some)
}

/// Binds `uniforms` (if any) after `binds`.
fn with_uniforms<'a>(mut binds: Vec<Bind<'a>>, uniforms: &'a Option<Buffer>) -> Vec<Bind<'a>> {
    if let Some(u) = uniforms {
        binds.push(Bind::named(crate::lower::opengl::DEFAULT_UNIFORM_BLOCK, u));
    }
    binds
}

/// A tiny deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 32) as u32
    }
}

const COMPARE: u32 = 0x1234_5678;

fn initial(case: &Case, rng: &mut Rng) -> u32 {
    let signed = case.ty == ScalarType::I32;
    match case.op {
        AtomicOp::Min => {
            if signed {
                1 << 30
            } else {
                0xF000_0000
            }
        }
        AtomicOp::Max => {
            if signed {
                (-(1i32 << 30)) as u32
            } else {
                5
            }
        }
        AtomicOp::And => 0xFFFF_FFFF ^ (rng.next() & 0x0101_0101),
        AtomicOp::Or => 0,
        AtomicOp::CompSwap => COMPARE,
        _ => rng.next(),
    }
}

/// Argument of call `k` at location `loc` (distinct per location for exchange / compare-swap).
fn argument(case: &Case, loc: usize, k: usize, rng: &mut Rng) -> u32 {
    let r = rng.next();
    match case.op {
        AtomicOp::Min | AtomicOp::Max => {
            let (x, y) = ((loc % 64) as i64, (k + loc / 64) as i64);
            let v = x * x + y * y + (r % 100) as i64;
            (if k.is_multiple_of(2) { v } else { -v }) as i32 as u32
        }
        AtomicOp::And => !(1u32 << (r % 32)),
        AtomicOp::Or => 1u32 << (r % 32),
        AtomicOp::CompSwap | AtomicOp::Exchange => 0x1000_0000 + (k as u32) * 7 + 1,
        _ => r,
    }
}

/// The call in GLSL: `imageAtomicAdd(img, P, args[i])`, `atomicCompSwap(t, C, args[i])`.
fn call(case: &Case, target: &str, coords: &str, sample: &str) -> String {
    let (t, _, _) = glsl_scalar(case.ty);
    let name = case.op.glsl_name();
    let compare = if case.op == AtomicOp::CompSwap {
        format!("{}, ", param(case, "u_compare", format!("{t}({COMPARE}u)")))
    } else {
        String::new()
    };
    match case.memory {
        Memory::Image(_) => format!(
            "image{}{}(img, {coords}, {sample}{compare}args[i])",
            &name[..1].to_uppercase(),
            &name[1..]
        ),
        _ => format!("{name}({target}, {compare}args[i])"),
    }
}

/// GLSL's `P` from the coords buffer, and the sample argument with its
/// trailing comma (`"coords[…], "`) for multisample images, else `""`.
fn coord_expr(dim: ImageDim) -> (String, String) {
    let c = |k: u32| format!("coords[4u * i + {k}u]");
    let p = match dim.coordinate_count() {
        1 => c(0),
        2 => format!("ivec2({}, {})", c(0), c(1)),
        _ => format!("ivec3({}, {}, {})", c(0), c(1), c(2)),
    };
    let s = if dim.is_multisampled() {
        format!("{}, ", c(3))
    } else {
        String::new()
    };
    (p, s)
}

/// How the invocations of a buffer case are laid out.
struct BufferLayout {
    locs: usize,
    workgroup: usize,
    groups: usize,
}

fn buffer_layout(memory: Memory, scale: Scale) -> BufferLayout {
    if scale == Scale::Heavy {
        return match memory {
            Memory::Member | Memory::VectorComponent => BufferLayout {
                locs: 1,
                workgroup: 64,
                groups: 64,
            },
            Memory::ArrayElement => BufferLayout {
                locs: 8,
                workgroup: 64,
                groups: 64,
            },
            _ => BufferLayout {
                locs: 8,
                workgroup: 1024,
                groups: 4,
            },
        };
    }
    let many = if scale == Scale::Full { 64 } else { 8 };
    match memory {
        Memory::Member | Memory::VectorComponent => BufferLayout {
            locs: 1,
            workgroup: CALLS,
            groups: 1,
        },
        Memory::ArrayElement => BufferLayout {
            locs: many,
            workgroup: CALLS * many,
            groups: 1,
        },
        _ => BufferLayout {
            locs: 8,
            workgroup: CALLS * 8,
            groups: if scale == Scale::Full { 16 } else { 2 },
        },
    }
}

/// Word of `Mem { before; member; v (@16); after; arr[] (@36) }`.
const MEMBER: usize = 1;
const VECTOR_Y: usize = 5;
const ARR: usize = 9;

fn buffer_preamble(case: &Case, workgroup: usize, locs: usize) -> String {
    let (t, v, _) = glsl_scalar(case.ty);
    let v = if case.ty == ScalarType::F32 {
        "vec4"
    } else {
        v
    };
    let ext = float_extensions(case);
    format!(
        "{}{ext}#define LOCS {locs}u
layout(local_size_x = {workgroup}) in;
{}) buffer Mem {{ {t} before; {t} member; {v} v; {t} after; {t} arr[]; }} mem;
{}) readonly buffer Args {{ {t} args[]; }};
{}) writeonly buffer Rets {{ {t} rets[]; }};
shared {t} sh[LOCS];
",
        header(case, &["u_locs"]),
        binding(case, 0),
        binding(case, 1),
        binding(case, 2),
    )
}

fn buffer_target(memory: Memory) -> &'static str {
    match memory {
        Memory::Member => "mem.member",
        Memory::ArrayElement => "mem.arr[loc]",
        Memory::VectorComponent => "mem.v.y",
        _ => "sh[loc]",
    }
}

fn shared_copy(memory: Memory) -> (&'static str, &'static str) {
    if memory == Memory::Shared {
        (
            "if (gl_LocalInvocationIndex < LOCS) sh[gl_LocalInvocationIndex] = mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex];\n    barrier();",
            "barrier();\n    if (gl_LocalInvocationIndex < LOCS) mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex] = sh[gl_LocalInvocationIndex];",
        )
    } else {
        ("", "")
    }
}

/// For exchanges: the values returned and the final one must be the
/// initial value and the arguments, in some order.
fn not_a_permutation<T: Ord + Copy + std::fmt::LowerHex + std::fmt::Debug>(
    what: &str,
    initial: T,
    data: &[T],
    returned: &[T],
    fin: T,
) -> Option<String> {
    let mut lhs = returned.to_vec();
    lhs.push(fin);
    let mut rhs = data.to_vec();
    rhs.push(initial);
    lhs.sort_unstable();
    rhs.sort_unstable();
    (lhs != rhs).then(|| {
        format!(
            "{what}: returned {returned:x?} + final {fin:#x} is not a permutation of initial {initial:#x} + arguments {data:x?}"
        )
    })
}

/// Checks one location's calls; `None` when they are right.
fn check_location(
    case: &Case,
    what: &str,
    initial: u32,
    data: &[u32],
    returned: &[u32],
    fin: u32,
) -> Option<String> {
    let ty = case.ty;
    let op = case.op;
    if case.ty == ScalarType::F32 && case.variant == Variant::FloatAdd {
        let f = |b: u32| f32::from_bits(b);
        let expected = data.iter().fold(f(initial), |a, &d| a + f(d));
        if f(fin) != expected {
            return Some(format!(
                "{what}: final {} but the sum is {expected}",
                f(fin)
            ));
        }
        let mut r: Vec<f32> = returned.iter().map(|&b| f(b)).collect();
        r.sort_by(f32::total_cmp);
        if r[0] != f(initial) || r.windows(2).any(|w| w[0] >= w[1]) {
            return Some(format!(
                "{what}: returned values {r:?} are not distinct partial sums from {}",
                f(initial)
            ));
        }
        return None;
    }
    if ty == ScalarType::F32 && op == AtomicOp::Exchange {
        // Exchange of float bits: a serial order (below) says it all.
    } else if op.is_order_independent() {
        let expected = op.fold(ty, initial, data.iter().copied());
        if fin != expected {
            return Some(format!(
                "{what}: expected final {expected:#x}, observed {fin:#x}"
            ));
        }
    } else if op == AtomicOp::Exchange {
        if let Some(why) = not_a_permutation(what, initial, data, returned, fin) {
            return Some(why);
        }
    } else {
        let winners = returned.iter().filter(|&&r| r == initial).count();
        if winners != 1 {
            return Some(format!(
                "{what}: {winners} compare-swaps won (expected exactly 1); returned {returned:x?}"
            ));
        }
    }
    let calls: Vec<(u32, u32, u32)> = data
        .iter()
        .zip(returned)
        .map(|(&d, &r)| (d, COMPARE, r))
        .collect();
    // The search is exponential in the worst case: only for a handful of calls.
    if calls.len() <= 12 && !explained_by_serial_order(op, ty, initial, &calls, fin) {
        return Some(format!(
            "{what}: returned {returned:x?} from initial {initial:#x} with arguments {data:x?} ending at {fin:#x} fit no serial order"
        ));
    }
    None
}

fn run_standard(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let mut rng = Rng(0x5eed ^ (case.name().len() as u64) << 7 ^ case.op as u64);
    match case.memory {
        Memory::Image(dim) => run_standard_image(ctx, case, dim, scale, opts, &mut rng),
        memory => run_standard_buffer(ctx, case, memory, scale, opts, &mut rng),
    }
}

fn run_standard_buffer(
    ctx: &Context,
    case: &Case,
    memory: Memory,
    scale: Scale,
    opts: &RunOptions,
    rng: &mut Rng,
) -> Result<Option<String>> {
    let l = buffer_layout(memory, scale);
    let (load, store) = shared_copy(memory);
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint loc = i % {};
    {load}
    rets[i] = {};
    {store}
}}
",
        buffer_preamble(case, l.workgroup, l.locs),
        param(case, "u_locs", "LOCS".into()),
        call(case, buffer_target(memory), "", "")
    );
    let kernel = translate(case, &src, opts)?;
    let n = l.workgroup * l.groups;
    // (word, invocations hitting it)
    let locations: Vec<(usize, Vec<usize>)> = match memory {
        Memory::Member => vec![(MEMBER, (0..n).collect())],
        Memory::VectorComponent => vec![(VECTOR_Y, (0..n).collect())],
        Memory::ArrayElement => (0..l.locs)
            .map(|c| (ARR + c, (0..n).filter(|i| i % l.locs == c).collect()))
            .collect(),
        _ => (0..l.groups)
            .flat_map(|g| {
                (0..l.locs).map(move |c| {
                    (
                        ARR + g * l.locs + c,
                        (g * l.workgroup..(g + 1) * l.workgroup)
                            .filter(|i| i % l.locs == c)
                            .collect(),
                    )
                })
            })
            .collect(),
    };
    // The block's size is a multiple of 16 bytes (its vector's alignment).
    let words = (ARR + l.groups * l.locs + l.locs).next_multiple_of(4);
    let sentinel = |w: usize| 0xA000_0000u32 + w as u32;
    let mut mem: Vec<u32> = (0..words).map(sentinel).collect();
    let mut args = vec![0u32; n];
    for (loc, (w, hits)) in locations.iter().enumerate() {
        if case.ty == ScalarType::F32 && case.variant == Variant::Standard {
            let (init, values) = float_min_max_values(case, loc, hits.len());
            mem[*w] = init;
            for (&i, v) in hits.iter().zip(values) {
                args[i] = v;
            }
            continue;
        }
        mem[*w] = if case.ty == ScalarType::F32 {
            0.5f32.to_bits()
        } else {
            initial(case, rng)
        };
        for (k, &i) in hits.iter().enumerate() {
            args[i] = if case.ty == ScalarType::F32 {
                ((1 + (i + k) % 13) as f32).to_bits()
            } else {
                argument(case, loc, k, rng)
            };
        }
    }
    let mem_buf = Buffer::from_slice(ctx, &mem)?;
    let args_buf = Buffer::from_slice(ctx, &args)?;
    let rets_buf = Buffer::zeroed(ctx, n as u64 * 4)?;
    let u = uniforms(ctx, &kernel, &[("u_locs", l.locs as u32)])?;
    let out = ctx.dispatch_and_read(
        &kernel,
        [l.groups as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("mem", &mem_buf),
                Bind::named("Args", &args_buf),
                Bind::named("Rets", &rets_buf),
            ],
            &u,
        ),
    )?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let rets: Vec<u32> = bytemuck::pod_collect_to_vec(&out[2]);
    for (w, (&a, &m)) in after.iter().zip(&mem).enumerate() {
        if !locations.iter().any(|(t, _)| *t == w) && a != m {
            return Ok(Some(format!(
                "word {w} outside every target changed: expected {m:#x}, observed {a:#x}"
            )));
        }
    }
    for (w, hits) in &locations {
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        if let Some(why) = check_location(
            case,
            &format!("word {w}"),
            mem[*w],
            &data,
            &returned,
            after[*w],
        ) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// The `#extension` lines a float case needs.
fn float_extensions(case: &Case) -> &'static str {
    match (case.ty, case.op) {
        (ScalarType::F32, AtomicOp::Min | AtomicOp::Max) => {
            "#extension GL_EXT_shader_atomic_float2 : require\n"
        }
        (ScalarType::F32, _) => "#extension GL_EXT_shader_atomic_float : require\n",
        _ => "",
    }
}

/// Initial value and arguments of a float min/max location: every
/// location sees a NaN, -0.0 and +0.0 among numbers; even locations only
/// numbers on the zeros' losing side, so the zeros' order decides the
/// result; location 3 starts as NaN, which the first number replaces.
fn float_min_max_values(case: &Case, loc: usize, calls: usize) -> (u32, Vec<u32>) {
    let min = case.op == AtomicOp::Min;
    let initial = if loc % 8 == 3 {
        f32::NAN
    } else if min {
        1.0e30
    } else {
        -1.0e30
    };
    let away = if min { 1.0f32 } else { -1.0 };
    let args = (0..calls)
        .map(|k| {
            let v = match k % 5 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => {
                    let m = (1 + (loc * 7 + k * 3) % 50) as f32 * 0.5;
                    if loc.is_multiple_of(2) || k.is_multiple_of(2) {
                        away * m
                    } else {
                        -away * m
                    }
                }
            };
            v.to_bits()
        })
        .collect();
    (initial.to_bits(), args)
}

fn image_preamble(case: &Case, dim: ImageDim) -> String {
    let (t, _, prefix) = glsl_scalar(case.ty);
    let format = image_format(case.ty).name();
    // OpenGL numbers image units apart from buffers: unit 0 beside buffer 0.
    let first_buffer = match case.dialect {
        Dialect::Vulkan => 1,
        Dialect::OpenGl => 0,
    };
    format!(
        "{}{}layout(local_size_x = 64) in;
{}, {format}) uniform {prefix}{} img;
{}) readonly buffer Coords {{ int coords[]; }};
{}) readonly buffer Args {{ {t} args[]; }};
{}) writeonly buffer Rets {{ {t} rets[]; }};
",
        header(case, &["u_n"]),
        float_extensions(case),
        binding(case, 0),
        dim.glsl_name(),
        binding(case, first_buffer),
        binding(case, first_buffer + 1),
        binding(case, first_buffer + 2),
    )
}

fn image_desc(case: &Case, dim: ImageDim, scale: Scale) -> Result<ImageDesc> {
    let (size, samples) = image_size(dim, scale);
    ImageDesc::new(dim, image_format(case.ty), &size, samples)
}

fn coords_of(desc: &ImageDesc, t: usize) -> [i32; 4] {
    let a = TexelAddress::from_index(t, desc.width, desc.height, desc.layers());
    let c = a.coordinates(desc.dim);
    [
        c[0],
        *c.get(1).unwrap_or(&0),
        *c.get(2).unwrap_or(&0),
        a.sample as i32,
    ]
}

fn run_standard_image(
    ctx: &Context,
    case: &Case,
    dim: ImageDim,
    scale: Scale,
    opts: &RunOptions,
    rng: &mut Rng,
) -> Result<Option<String>> {
    let desc = image_desc(case, dim, scale)?;
    let texels = desc.texel_count();
    let n = texels * CALLS;
    let (p, s) = coord_expr(dim);
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {}) return;
    rets[i] = {};
}}
",
        image_preamble(case, dim),
        param(case, "u_n", format!("{n}u")),
        call(case, "", &p, &s)
    );
    let kernel = translate(case, &src, opts)?;
    // Invocation i hits texel i % texels: neighbours in a workgroup hit different texels,
    // and the calls at one texel come from different workgroups.
    let mut coords = vec![0i32; 4 * n];
    let mut args = vec![0u32; n];
    let mut init = vec![0u32; texels];
    for (t, v) in init.iter_mut().enumerate() {
        *v = if case.ty == ScalarType::F32 {
            (t as f32 * 0.25 - 3.0).to_bits()
        } else {
            initial(case, rng)
        };
    }
    let float_min_max = case.ty == ScalarType::F32 && case.variant == Variant::Standard;
    if float_min_max {
        for (t, v) in init.iter_mut().enumerate() {
            *v = float_min_max_values(case, t, CALLS).0;
        }
    }
    for i in 0..n {
        let (t, k) = (i % texels, i / texels);
        coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, t));
        args[i] = if float_min_max {
            float_min_max_values(case, t, CALLS).1[k]
        } else if case.ty == ScalarType::F32 {
            (1000.0 + i as f32).to_bits()
        } else {
            argument(case, t, k, rng)
        };
    }
    let (after, rets) = run_image_kernel(ctx, &kernel, desc, &init, &coords, &args, n, 0)?;
    for t in 0..texels {
        let hits: Vec<usize> = (0..CALLS).map(|k| k * texels + t).collect();
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        let a = TexelAddress::from_index(t, desc.width, desc.height, desc.layers());
        let what = format!(
            "texel {t} (x {}, y {}, layer {}, sample {})",
            a.x, a.y, a.layer, a.sample
        );
        if let Some(why) = check_location(case, &what, init[t], &data, &returned, after[t]) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// Dispatches an image case's kernel (image at 0, coords at 1, arguments at
/// 2, returns at 3) with one invocation per argument; returns the texels
/// after it and the `rets_len` words of returns, pre-filled with `rets_fill`.
#[allow(clippy::too_many_arguments)]
fn run_image_kernel(
    ctx: &Context,
    kernel: &Kernel,
    desc: ImageDesc,
    init: &[u32],
    coords: &[i32],
    args: &[u32],
    rets_len: usize,
    rets_fill: u32,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let img = Image::from_texels(ctx, desc, init)?;
    let coords_buf = Buffer::from_slice(ctx, coords)?;
    let args_buf = Buffer::from_slice(ctx, args)?;
    let rets_buf = Buffer::filled(ctx, rets_fill, rets_len)?;
    let u = uniforms(ctx, kernel, &[("u_n", args.len() as u32)])?;
    let out = ctx.dispatch_and_read(
        kernel,
        [args.len().div_ceil(64) as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("img", &img),
                Bind::named("Coords", &coords_buf),
                Bind::named("Args", &args_buf),
                Bind::named("Rets", &rets_buf),
            ],
            &u,
        ),
    )?;
    Ok((
        bytemuck::pod_collect_to_vec(&out[0]),
        bytemuck::pod_collect_to_vec(&out[3]),
    ))
}

fn link(j: u32) -> u32 {
    (j as i32 * 7919 - 100_000) as u32
}

fn run_chain(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let (t, _, _) = glsl_scalar(case.ty);
    let chain_body = |target: &str, coords: &str, sample: &str, loc_expr: &str| {
        let call = match case.memory {
            Memory::Image(_) => {
                format!("imageAtomicCompSwap(img, {coords}, {sample}link(j), link(j + 1u))")
            }
            _ => format!("atomicCompSwap({target}, link(j), link(j + 1u))"),
        };
        format!(
            "{t} link(uint j) {{ return {t}(int(j) * 7919 - 100000); }}
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint loc = {loc_expr};
    LOAD
    for (uint j = 0u; j < {LINKS}u; j++) {{
        {t} seen = {call};
        if (seen == link(j)) {{
            atomicAdd(wins[loc * {LINKS}u + j], 1u);
        }} else {{
            int k = (int(seen) + 100000) / 7919;
            if (int(seen) + 100000 != k * 7919 || k <= int(j) || k > {LINKS}) atomicAdd(wins[WINS_BAD], 1u);
        }}
    }}
    STORE
}}
"
        )
    };
    let wins_decl = format!("{}) buffer Wins {{ uint wins[]; }};\n", binding(case, 4));
    match case.memory {
        Memory::Image(dim) => {
            let desc = image_desc(case, dim, scale)?;
            let locs = desc.texel_count().min(8);
            let n = 64 * 2;
            let (p, s) = coord_expr(dim);
            let src = image_preamble(case, dim)
                + &wins_decl
                + &chain_body("", &p, &s, &format!("i % {locs}u"))
                    .replace("LOAD", "")
                    .replace("STORE", "")
                    .replace("WINS_BAD", &format!("{}u", locs * LINKS as usize));
            let kernel = translate(case, &src, opts)?;
            let mut coords = vec![0i32; 4 * n];
            for i in 0..n {
                coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, i % locs));
            }
            let init: Vec<u32> = (0..desc.texel_count())
                .map(|t| if t < locs { link(0) } else { 0xDEAD })
                .collect();
            let img = Image::from_texels(ctx, desc, &init)?;
            let coords_buf = Buffer::from_slice(ctx, &coords)?;
            let wins = Buffer::zeroed(ctx, (locs * LINKS as usize + 1) as u64 * 4)?;
            let out = ctx.dispatch_and_read(
                &kernel,
                [(n / 64) as u32, 1, 1],
                &[
                    Bind::named("img", &img),
                    Bind::named("Coords", &coords_buf),
                    Bind::named("Wins", &wins),
                ],
            )?;
            let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
            let wins: Vec<u32> = bytemuck::pod_collect_to_vec(&out[2]);
            check_chain(&after[..locs], &after[locs..], &wins, locs)
        }
        memory => {
            let locs = if memory == Memory::ArrayElement { 4 } else { 1 };
            let (load, store) = match memory {
                Memory::Shared => (
                    "if (gl_LocalInvocationIndex == 0u) sh[0] = mem.arr[gl_WorkGroupID.x]; barrier();",
                    "barrier(); if (gl_LocalInvocationIndex == 0u) mem.arr[gl_WorkGroupID.x] = sh[0];",
                ),
                _ => ("", ""),
            };
            let groups = 2;
            let locs_total = if memory == Memory::Shared {
                groups
            } else {
                locs
            };
            let loc_expr = if memory == Memory::Shared {
                "gl_WorkGroupID.x".to_string()
            } else {
                format!("i % {locs}u")
            };
            let target = match memory {
                Memory::Member => "mem.member",
                Memory::ArrayElement => "mem.arr[loc]",
                Memory::VectorComponent => "mem.v.y",
                _ => "sh[0]",
            };
            let src = buffer_preamble(case, 64, 1)
                + &wins_decl
                + &chain_body(target, "", "", &loc_expr)
                    .replace("LOAD", load)
                    .replace("STORE", store)
                    .replace("WINS_BAD", &format!("{}u", locs_total * LINKS as usize));
            let kernel = translate(case, &src, opts)?;
            let words = ARR + 7;
            let mut mem = vec![0xCAFEu32; words];
            let targets: Vec<usize> = match memory {
                Memory::Member => vec![MEMBER],
                Memory::VectorComponent => vec![VECTOR_Y],
                Memory::ArrayElement => (0..locs).map(|c| ARR + c).collect(),
                _ => (0..groups).map(|g| ARR + g).collect(),
            };
            for &w in &targets {
                mem[w] = link(0);
            }
            let mem_buf = Buffer::from_slice(ctx, &mem)?;
            let wins = Buffer::zeroed(ctx, (locs_total * LINKS as usize + 1) as u64 * 4)?;
            let out = ctx.dispatch_and_read(
                &kernel,
                [groups as u32, 1, 1],
                &[Bind::named("mem", &mem_buf), Bind::named("Wins", &wins)],
            )?;
            let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
            let finals: Vec<u32> = targets.iter().map(|&w| after[w]).collect();
            let rest: Vec<u32> = (0..words)
                .filter(|w| !targets.contains(w))
                .map(|w| after[w])
                .collect();
            let wins: Vec<u32> = bytemuck::pod_collect_to_vec(&out[1]);
            check_chain(&finals, &rest, &wins, locs_total)
        }
    }
}

fn check_chain(
    finals: &[u32],
    untouched: &[u32],
    wins: &[u32],
    locs: usize,
) -> Result<Option<String>> {
    for (l, &f) in finals.iter().enumerate() {
        if f != link(LINKS) {
            return Ok(Some(format!(
                "location {l}: the chain ended at {f:#x}, not its last link {:#x}",
                link(LINKS)
            )));
        }
        for j in 0..LINKS as usize {
            let w = wins[l * LINKS as usize + j];
            if w != 1 {
                return Ok(Some(format!(
                    "location {l}: link {j} was taken {w} times, not once"
                )));
            }
        }
    }
    let bad = wins[locs * LINKS as usize];
    if bad != 0 {
        return Ok(Some(format!(
            "{bad} failed compare-swaps returned a value that memory never held after their link"
        )));
    }
    if let Some(v) = untouched.iter().find(|&&v| v != 0xDEAD && v != 0xCAFE) {
        return Ok(Some(format!("memory outside the chains changed to {v:#x}")));
    }
    Ok(None)
}

fn run_out_of_range(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let Memory::Image(dim) = case.memory else {
        return Ok(Some("out-of-range cases are for images".into()));
    };
    let desc = image_desc(case, dim, scale)?;
    let (t, v4, _) = glsl_scalar(case.ty);
    // Every axis just below 0 and just past its end, with the others in range.
    let limits = [
        desc.width as i32,
        if dim.has_height() {
            desc.height as i32
        } else {
            1
        },
        desc.layers() as i32,
        desc.samples as i32,
    ];
    let mut bad: Vec<[i32; 4]> = Vec::new();
    let axes: Vec<usize> = {
        let mut a = vec![0];
        if dim.has_height() {
            a.push(1);
        }
        if dim.layer_coordinate().is_some() {
            a.push(2);
        }
        if dim.is_multisampled() {
            a.push(3);
        }
        a
    };
    for &axis in &axes {
        for v in [-1, limits[axis], i32::MIN, i32::MAX] {
            let mut c = [0; 4];
            c[axis] = v;
            bad.push(c);
        }
    }
    // Coordinates as GLSL passes them: the layer of a 1D array is P.y.
    let n = bad.len();
    let coords: Vec<i32> = bad
        .iter()
        .flat_map(|c| {
            let (x, y, l, s) = (c[0], c[1], c[2], c[3]);
            match dim.coordinate_count() {
                1 => [x, 0, 0, s],
                2 if dim == ImageDim::D1Array => [x, l, 0, s],
                2 => [x, y, 0, s],
                _ => [x, y, l, s],
            }
        })
        .collect();
    let (p, s) = coord_expr(dim);
    // imageLoad(img, P[, sample]) and imageStore(img, P[, sample], data).
    let sample_arg = s.trim_end_matches(", ");
    let load_args = if sample_arg.is_empty() {
        p.clone()
    } else {
        format!("{p}, {sample_arg}")
    };
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {n}u) return;
    rets[3u * i] = {};
    {v4} l = imageLoad(img, {load_args});
    rets[3u * i + 1u] = l.x + l.w;
    imageStore(img, {load_args}, {v4}(args[i]));
    rets[3u * i + 2u] = {t}(imageSize(img).x);
}}
",
        image_preamble(case, dim),
        call(case, "", &p, &s),
    );
    let kernel = translate(case, &src, opts)?;
    let init: Vec<u32> = (0..desc.texel_count()).map(|t| 1000 + t as u32).collect();
    let args: Vec<u32> = (0..n).map(|i| 0x0777_0000 + i as u32).collect();
    // Pre-filled, so that a return value that is never written cannot pass as 0.
    let (after, rets) = run_image_kernel(
        ctx,
        &kernel,
        desc,
        &init,
        &coords,
        &args,
        3 * n,
        0xFFFF_FFFF,
    )?;
    if let Some(t) = (0..after.len()).find(|&t| after[t] != init[t]) {
        return Ok(Some(format!(
            "texel {t} changed from {} to {:#x} by out-of-range accesses",
            init[t], after[t]
        )));
    }
    for (i, c) in bad.iter().enumerate() {
        let (atomic, load) = (rets[3 * i], rets[3 * i + 1]);
        if atomic != 0 || load != 0 {
            return Ok(Some(format!(
                "out-of-range (x {}, y {}, layer {}, sample {}): the atomic returned {atomic:#x} and imageLoad {load:#x}, not 0",
                c[0], c[1], c[2], c[3]
            )));
        }
        if rets[3 * i + 2] != desc.width {
            return Ok(Some(format!(
                "imageSize(img).x is {}, not {}",
                rets[3 * i + 2],
                desc.width
            )));
        }
    }
    Ok(None)
}

/// Counters of a counter case and their byte offsets in binding 0: the
/// word at offset 4 lies between two counters and must never change.
const COUNTER_OFFSETS: [u32; 3] = [0, 8, 12];
/// Invocations per counter.
const COUNTER_CALLS: usize = 128;

fn run_counter(
    ctx: &Context,
    case: &Case,
    f: CounterFn,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let counters = COUNTER_OFFSETS.len();
    let n = counters * COUNTER_CALLS;
    let call = |c: &str| match f {
        CounterFn::Increment | CounterFn::Decrement => format!("{}({c})", f.glsl_name(case.op)),
        CounterFn::Op if case.op == AtomicOp::CompSwap => {
            format!("{}({c}, u_compare, args[i])", f.glsl_name(case.op))
        }
        _ => format!("{}({c}, args[i])", f.glsl_name(case.op)),
    };
    let compare = if case.op == AtomicOp::CompSwap && f == CounterFn::Op {
        "uniform uint u_compare;\n"
    } else {
        ""
    };
    let src = format!(
        "#version 460
layout(local_size_x = 64) in;
uniform uint u_n;
{compare}layout(binding = 0, offset = {}) uniform atomic_uint c0;
layout(binding = 0, offset = {}) uniform atomic_uint c1;
layout(binding = 0) uniform atomic_uint c2;
layout(std430, binding = 0) readonly buffer Args {{ uint args[]; }};
layout(std430, binding = 1) writeonly buffer Rets {{ uint rets[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_n) return;
    uint which = i % 3u;
    uint r;
    if (which == 0u) {{
        r = {};
    }} else if (which == 1u) {{
        r = {};
    }} else {{
        r = {};
    }}
    rets[i] = r;
}}
",
        COUNTER_OFFSETS[0],
        COUNTER_OFFSETS[1],
        call("c0"),
        call("c1"),
        call("c2"),
    );
    let kernel = translate(case, &src, opts)?;
    let mut rng = Rng(0xC0DE ^ case.op as u64 ^ (f as u64) << 8);
    let words = 8;
    let mut init: Vec<u32> = (0..words as u32).map(|w| 0xB000_0000 + w).collect();
    let mut args = vec![0u32; n];
    for (c, &offset) in COUNTER_OFFSETS.iter().enumerate() {
        init[offset as usize / 4] = match f {
            CounterFn::Increment | CounterFn::Decrement => 1000 * (c as u32 + 1),
            _ => initial(case, &mut rng),
        };
        for k in 0..COUNTER_CALLS {
            args[k * counters + c] = argument(case, c, k, &mut rng);
        }
    }
    let counter_buf = Buffer::from_slice(ctx, &init)?;
    let args_buf = Buffer::from_slice(ctx, &args)?;
    let rets_buf = Buffer::filled(ctx, 0xFFFF_FFFFu32, n)?;
    let u = uniforms(ctx, &kernel, &[("u_n", n as u32)])?;
    let out = ctx.dispatch_and_read(
        &kernel,
        [n.div_ceil(64) as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("c0", &counter_buf),
                Bind::named("Rets", &rets_buf),
            ]
            .into_iter()
            // Increment and decrement take no arguments.
            .chain(
                kernel
                    .binding_named("Args")
                    .is_ok()
                    .then(|| Bind::named("Args", &args_buf)),
            )
            .collect(),
            &u,
        ),
    )?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let rets: Vec<u32> = bytemuck::pod_collect_to_vec(&out[1]);
    for w in 0..words {
        if !COUNTER_OFFSETS.contains(&(w as u32 * 4)) && after[w] != init[w] {
            return Ok(Some(format!(
                "word {w}, beside the counters, changed from {:#x} to {:#x}",
                init[w], after[w]
            )));
        }
    }
    for (c, &offset) in COUNTER_OFFSETS.iter().enumerate() {
        let w = offset as usize / 4;
        let hits: Vec<usize> = (0..COUNTER_CALLS).map(|k| k * counters + c).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        let what = format!("counter c{c} (offset {offset})");
        let (start, fin) = (init[w], after[w]);
        let steps = COUNTER_CALLS as u32;
        match f {
            CounterFn::Increment | CounterFn::Decrement => {
                // Increment returns the values before: start … start+n-1;
                // decrement the values after: start-1 … start-n.
                let expected: Vec<u32> = (0..steps)
                    .map(|k| match f {
                        CounterFn::Increment => start.wrapping_add(k),
                        _ => start.wrapping_sub(k + 1),
                    })
                    .collect();
                let expected_final = match f {
                    CounterFn::Increment => start.wrapping_add(steps),
                    _ => start.wrapping_sub(steps),
                };
                let mut sorted = returned.clone();
                sorted.sort_unstable();
                let mut want = expected.clone();
                want.sort_unstable();
                if sorted != want {
                    return Ok(Some(format!(
                        "{what}: {} returned {:?}… which is not a permutation of {:?}…",
                        f.glsl_name(case.op),
                        &sorted[..4],
                        &want[..4]
                    )));
                }
                if fin != expected_final {
                    return Ok(Some(format!(
                        "{what}: final {fin}, expected {expected_final}"
                    )));
                }
            }
            CounterFn::Subtract => {
                // Subtracting d is adding its two's complement.
                let data: Vec<u32> = hits.iter().map(|&i| args[i].wrapping_neg()).collect();
                let add = Case {
                    op: AtomicOp::Add,
                    ..*case
                };
                if let Some(why) = check_location(&add, &what, start, &data, &returned, fin) {
                    return Ok(Some(why));
                }
            }
            CounterFn::Op => {
                let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
                if let Some(why) = check_location(case, &what, start, &data, &returned, fin) {
                    return Ok(Some(why));
                }
            }
        }
    }
    Ok(None)
}

/// Runs `cases` on `ctx`, calling `progress` after each.
pub fn run_all(
    ctx: &Context,
    cases: &[Case],
    scale: Scale,
    opts: &RunOptions,
    mut progress: impl FnMut(&Outcome),
) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let o = run_case(ctx, c, scale, opts);
            progress(&o);
            o
        })
        .collect()
}

/// The function × memory table: one row per function (int and uint
/// together), one column per memory kind; a cell is `ok` when every case in
/// it passed on every backend, `FAIL gl` (the failing backends) otherwise,
/// `-` where the matrix has no case, and `.` where its cases did not run
/// (skipped: the adapter lacks a feature they need).
pub fn summary_table(cases: &[Case], outcomes: &[Outcome]) -> String {
    let memories = Memory::all();
    let mut rows: Vec<String> = Vec::new();
    for c in cases {
        let label = c.function_label();
        if !rows.contains(&label) {
            rows.push(label);
        }
    }
    let width = rows.iter().map(|r| r.len()).max().unwrap_or(8).max(8);
    let cell_width = 9;
    let mut out = format!("{:width$}", "");
    for m in &memories {
        out.push_str(&format!(" {:>cell_width$}", m.name()));
    }
    out.push('\n');
    for row in &rows {
        out.push_str(&format!("{row:width$}"));
        for m in &memories {
            let names: Vec<String> = cases
                .iter()
                .filter(|c| c.memory == *m && &c.function_label() == row)
                .map(|c| c.name())
                .collect();
            let cell = if names.is_empty() {
                "-".to_string()
            } else {
                let mut failing: Vec<&str> = outcomes
                    .iter()
                    .filter(|o| !o.passed && o.skipped.is_none() && names.contains(&o.name))
                    .map(|o| o.backend.as_str())
                    .collect();
                failing.dedup();
                let ran = outcomes
                    .iter()
                    .any(|o| o.skipped.is_none() && names.contains(&o.name));
                match (ran, failing.is_empty()) {
                    (false, _) => ".".to_string(),
                    (true, true) => "ok".to_string(),
                    (true, false) => format!("FAIL {}", failing.join(",")),
                }
            };
            out.push_str(&format!(" {cell:>cell_width$}"));
        }
        out.push('\n');
    }
    out
}

/// Dispatches of each litmus test, and workgroups per dispatch.
fn litmus_runs(scale: Scale) -> (usize, u32) {
    match scale {
        Scale::Small => (4, 8),
        Scale::Full | Scale::Heavy => (200, 64),
    }
}

/// Message passing inside a workgroup: 32 writers each store a payload and
/// release a flag; 32 readers (in other subgroups) acquire a flag and read
/// its payload. The reference model (the Vulkan memory model the shader
/// asks for) allows (flag, payload) = (0, 0), (0, 1) and (1, 1), never
/// (1, 0). atomport maps the release/acquire pair to WGSL's relaxed atomics
/// (with a warning), so this checks that what the adapter does stays within
/// the shader's model.
fn run_message_passing(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let src = "#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Outcomes { uint outcome[]; };
shared uint payload[32];
shared uint flag[32];
void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid < 32u) {
        payload[lid] = 0u;
        atomicStore(flag[lid], 0u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    }
    barrier();
    if (lid < 32u) {
        payload[lid] = 1u;
        atomicStore(flag[lid], 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    } else {
        uint p = (lid - 32u) ^ 21u;
        uint f = atomicLoad(flag[p], gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire);
        uint d = payload[p];
        outcome[gl_WorkGroupID.x * 32u + p] = f * 2u + d;
    }
}
";
    let kernel = translate(case, src, opts)?;
    let (runs, groups) = litmus_runs(scale);
    let out = Buffer::zeroed(ctx, u64::from(groups) * 32 * 4)?;
    let mut seen = [0u64; 4];
    for _ in 0..runs {
        ctx.dispatch(&kernel, [groups, 1, 1], &[Bind::named("Outcomes", &out)])?;
        for v in out.read::<u32>(ctx)? {
            seen[(v as usize).min(3)] += 1;
        }
    }
    let histogram = format!(
        "(flag, payload) = (0,0): {}, (0,1): {}, (1,0): {}, (1,1): {}",
        seen[0], seen[1], seen[2], seen[3]
    );
    if seen[2] > 0 {
        return Ok(Some(format!(
            "a reader acquired the flag but read the old payload, which release/acquire forbids: {histogram}"
        )));
    }
    Ok(None)
}

/// Coherence of one location: half the invocations of many workgroups
/// exchange their own increasing sequence into one word, the other half read
/// it again and again (`atomicOr(x, 0)`). Every location has one order of
/// writes that all readers agree with: a reader never sees a writer's k-th
/// value after its later one, every value read was written (or is the
/// initial 0), and the final value is some writer's last.
fn run_coherence(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    const WRITES: u32 = 8;
    const READS: u32 = 16;
    let src = format!(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Word {{ uint x; }};
layout(set = 0, binding = 1) buffer Reads {{ uint seen[]; }};
void main() {{
    uint id = gl_GlobalInvocationID.x;
    uint who = id / 2u;
    if (id % 2u == 0u) {{
        for (uint k = 1u; k <= {WRITES}u; ++k) atomicExchange(x, (who << 8) | k);
    }} else {{
        for (uint j = 0u; j < {READS}u; ++j) seen[who * {READS}u + j] = atomicOr(x, 0u);
    }}
}}
"
    );
    let kernel = translate(case, &src, opts)?;
    let (runs, groups) = litmus_runs(scale);
    let pairs = groups as usize * 32;
    let word = Buffer::zeroed(ctx, 4)?;
    let reads = Buffer::zeroed(ctx, (pairs * READS as usize * 4) as u64)?;
    for run in 0..runs {
        word.write(ctx, &[0u32])?;
        ctx.dispatch(
            &kernel,
            [groups, 1, 1],
            &[Bind::named("Word", &word), Bind::named("Reads", &reads)],
        )?;
        let fin = word.read::<u32>(ctx)?[0];
        if (fin & 0xff) != WRITES || (fin >> 8) as usize >= pairs {
            return Ok(Some(format!(
                "run {run}: the final value {fin:#x} is no writer's last write"
            )));
        }
        let seen = reads.read::<u32>(ctx)?;
        for (reader, values) in seen.chunks(READS as usize).enumerate() {
            let mut latest: std::collections::HashMap<u32, u32> = Default::default();
            for &v in values {
                if v == 0 {
                    if !latest.is_empty() {
                        return Ok(Some(format!(
                            "run {run}: reader {reader} read the initial 0 after a write: {values:x?}"
                        )));
                    }
                    continue;
                }
                let (w, k) = (v >> 8, v & 0xff);
                if w as usize >= pairs || k == 0 || k > WRITES {
                    return Ok(Some(format!(
                        "run {run}: reader {reader} read {v:#x}, which nobody wrote"
                    )));
                }
                let last = latest.entry(w).or_insert(0);
                if k < *last {
                    return Ok(Some(format!(
                        "run {run}: reader {reader} read writer {w}'s write {k} after its write {last}: {values:x?}"
                    )));
                }
                *last = k;
            }
        }
    }
    Ok(None)
}

const COMPARE64: u64 = 0x1234_5678_9abc_def0;

/// An image atomic on a 64-bit image: [`CALLS`] calls per texel with 64-bit
/// arguments whose both halves matter, checked against the 64-bit model by
/// fold, permutation or single winner.
fn run_int64_image(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let Memory::Image(dim) = case.memory else {
        return Ok(Some("a 64-bit case needs an image".into()));
    };
    let signed = case.ty == ScalarType::I32;
    let (t, prefix, format) = if signed {
        ("int64_t", "i64", ImageFormat::R64Sint)
    } else {
        ("uint64_t", "u64", ImageFormat::R64Uint)
    };
    let (size, samples) = image_size(dim, scale);
    let desc = ImageDesc::new(dim, format, &size, samples)?;
    let texels = desc.texel_count();
    let n = texels * CALLS;
    let (p, smp) = coord_expr(dim);
    let name = case.op.glsl_name();
    let compare = if case.op == AtomicOp::CompSwap {
        format!("{t}({COMPARE64}ul), ")
    } else {
        String::new()
    };
    let src = format!(
        "#version 450
#extension GL_EXT_shader_image_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, {}) uniform {prefix}{} img;
layout(set = 0, binding = 1) readonly buffer Coords {{ int coords[]; }};
layout(set = 0, binding = 2) readonly buffer Args {{ {t} args[]; }};
layout(set = 0, binding = 3) writeonly buffer Rets {{ {t} rets[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {n}u) return;
    rets[i] = image{}{}(img, {p}, {smp}{compare}args[i]);
}}
",
        format.name(),
        dim.glsl_name(),
        &name[..1].to_uppercase(),
        &name[1..],
    );
    let kernel = translate(case, &src, opts)?;
    let mut rng = Rng(0x64 ^ (case.name().len() as u64) << 9 ^ case.op as u64);
    let wide = |rng: &mut Rng| (u64::from(rng.next()) << 32) | u64::from(rng.next());
    let initial = |rng: &mut Rng| -> u64 {
        match (case.op, signed) {
            (AtomicOp::Min, true) => i64::MAX as u64,
            (AtomicOp::Min, false) => u64::MAX,
            (AtomicOp::Max, true) => i64::MIN as u64,
            (AtomicOp::Max, false) => 0,
            (AtomicOp::And, _) => !(wide(rng) & 0x0101_0101_0101_0101),
            (AtomicOp::Or, _) => 0,
            (AtomicOp::CompSwap, _) => COMPARE64,
            _ => wide(rng),
        }
    };
    let init: Vec<u64> = (0..texels).map(|_| initial(&mut rng)).collect();
    let mut coords = vec![0i32; 4 * n];
    let mut args = vec![0u64; n];
    for i in 0..n {
        let (texel, k) = (i % texels, i / texels);
        coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, texel));
        let r = wide(&mut rng);
        args[i] = match case.op {
            AtomicOp::And => !(1u64 << (r % 64)),
            AtomicOp::Or => 1u64 << (r % 64),
            AtomicOp::CompSwap | AtomicOp::Exchange => {
                0x1000_0000_0000_0000 + (k as u64) * 0x1_0000_0007 + texel as u64
            }
            _ => r,
        };
    }
    let words = |v: &[u64]| -> Vec<u32> { bytemuck::cast_slice(v).to_vec() };
    let (after, rets) = run_image_kernel(
        ctx,
        &kernel,
        desc,
        &words(&init),
        &coords,
        &words(&args),
        2 * n,
        0,
    )?;
    let after: Vec<u64> = bytemuck::pod_collect_to_vec(&after);
    let rets: Vec<u64> = bytemuck::pod_collect_to_vec(&rets);
    for texel in 0..texels {
        let hits: Vec<usize> = (0..CALLS).map(|k| k * texels + texel).collect();
        let data: Vec<u64> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u64> = hits.iter().map(|&i| rets[i]).collect();
        let (start, fin) = (init[texel], after[texel]);
        let what = format!("texel {texel}");
        match case.op {
            AtomicOp::Exchange => {
                if let Some(why) = not_a_permutation(&what, start, &data, &returned, fin) {
                    return Ok(Some(why));
                }
            }
            AtomicOp::CompSwap => {
                let winners = returned.iter().filter(|&&r| r == start).count();
                let fin_ok = data.contains(&fin);
                if winners != 1 || !fin_ok {
                    return Ok(Some(format!(
                        "{what}: {winners} compare-swaps won (expected exactly 1), final {fin:#x}; returned {returned:x?}"
                    )));
                }
            }
            op => {
                let expected = data
                    .iter()
                    .fold(start, |m, &d| op.apply64(signed, m, d, 0).0);
                if fin != expected {
                    return Ok(Some(format!(
                        "{what}: expected final {expected:#x}, observed {fin:#x}"
                    )));
                }
                // Every returned value is a state some prefix of the calls
                // reaches: for the commutative ones, a fold of a subset.
                if !returned.contains(&start) {
                    return Ok(Some(format!(
                        "{what}: no call returned the initial value {start:#x}: {returned:x?}"
                    )));
                }
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    //! The matrix fails when the mapping is broken on purpose (faults
    //! injected through the test-only hook), on every backend present.
    use super::*;
    use crate::lower::fault::{Fault, inject};
    use crate::validate::reference::AtomicOp;
    use crate::{BackendChoice, ContextOptions};

    fn contexts() -> Vec<Context> {
        let found: Vec<Context> = BackendChoice::SINGLE
            .into_iter()
            .filter_map(|b| Context::new(&ContextOptions::default().with_backend(b)).ok())
            .collect();
        assert!(!found.is_empty(), "no adapter on any backend");
        found
    }

    fn fails_with(fault: Fault, cases: &[Case]) {
        for ctx in contexts() {
            for c in cases {
                let o = inject(Some(fault), || {
                    run_case(&ctx, c, Scale::Small, &RunOptions::default())
                });
                assert!(
                    !o.passed,
                    "{} passed on {} with {fault:?}",
                    o.name,
                    ctx.backend_name()
                );
                assert!(!o.detail.is_empty());
                println!("{fault:?} caught by {}: {}", o.name, o.detail);
                // Without the fault the same case passes: the fault is what failed it.
                assert!(run_case(&ctx, c, Scale::Small, &RunOptions::default()).passed);
            }
        }
    }

    #[test]
    fn a_spurious_weak_compare_exchange_is_caught() {
        let case = |memory, variant| Case {
            op: AtomicOp::CompSwap,
            ty: ScalarType::U32,
            memory,
            variant,
            dialect: Dialect::Vulkan,
        };
        fails_with(
            Fault::SpuriousCompareExchange,
            &[
                case(Memory::Member, Variant::Standard),
                case(Memory::ArrayElement, Variant::Chain),
                case(Memory::Image(ImageDim::D2), Variant::Standard),
                case(Memory::Image(ImageDim::Cube), Variant::Chain),
            ],
        );
    }

    #[test]
    fn swapped_image_axes_are_caught() {
        let cases: Vec<Case> = [
            ImageDim::D2,
            ImageDim::Rect,
            ImageDim::D2Array,
            ImageDim::D2MsArray,
        ]
        .into_iter()
        .map(|d| Case {
            op: AtomicOp::Add,
            ty: ScalarType::I32,
            memory: Memory::Image(d),
            variant: Variant::Standard,
            dialect: Dialect::Vulkan,
        })
        .collect();
        fails_with(Fault::SwappedImageAxes, &cases);
    }
}
