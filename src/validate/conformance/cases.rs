//! The cases of the matrix: what each one tests, its name, and the
//! matrix itself.

use super::*;

/// Calls per location.
pub const CALLS: usize = 5;

/// Links of a compare-swap chain.
pub(super) const LINKS: u32 = 16;

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
