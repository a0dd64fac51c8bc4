//! SPIR-V passes for what newer compilers emit and naga's reader (or
//! rspirv's) cannot take as is: `OpExecutionModeId` (SPIR-V 1.2+, which
//! glslang uses for every workgroup size from Vulkan 1.3 on), the Vulkan
//! memory model's operands and semantics, and a few reader gaps found in
//! real shaders (bit queries whose operand signedness differs from the
//! result, unused globals of kinds WGSL lacks).

use std::collections::HashSet;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Decoration, MemoryModel, Op, Word};

use super::spirv::{Defs, id};
use crate::{Error, Result};

/// The ids a `LocalSizeId` execution mode named, resolved to values by the
/// specialization-constant pass.
pub type LocalSizeIds = Option<[Word; 3]>;

const OP_EXECUTION_MODE: u32 = 16;
const OP_EXECUTION_MODE_ID: u32 = 331;
const LOCAL_SIZE: u32 = 17;
const LOCAL_SIZE_ID: u32 = 38;
const LOCAL_SIZE_HINT_ID: u32 = 39;

/// Rewrites `OpExecutionModeId` (which rspirv's reader places nowhere) on the
/// words: `LocalSizeId %x %y %z` becomes `LocalSize 1 1 1` and the three ids
/// are returned for [`super::spec`] to write their values in; a
/// `LocalSizeHintId` (a hint, with no meaning for WGSL) is dropped. Any other
/// mode given by id is refused by name.
pub fn execution_mode_ids(words: &[u32]) -> Result<(Vec<u32>, LocalSizeIds)> {
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5.min(words.len())]);
    let mut local_size = None;
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let inst = &words[at..(at + count.max(1)).min(words.len())];
        at += count.max(1);
        if inst[0] & 0xffff != OP_EXECUTION_MODE_ID {
            out.extend_from_slice(inst);
            continue;
        }
        match inst.get(2).copied() {
            Some(LOCAL_SIZE_ID) if inst.len() == 6 => {
                local_size = Some([inst[3], inst[4], inst[5]]);
                out.extend_from_slice(&[
                    (6 << 16) | OP_EXECUTION_MODE,
                    inst[1],
                    LOCAL_SIZE,
                    1,
                    1,
                    1,
                ]);
            }
            Some(LOCAL_SIZE_HINT_ID) => {}
            Some(mode) => {
                let name = rspirv::spirv::ExecutionMode::from_u32(mode)
                    .map_or_else(|| format!("execution mode {mode}"), |m| format!("{m:?}"));
                return Err(Error::Unsupported(format!(
                    "the execution mode {name} has no WGSL form"
                )));
            }
            None => return Err(Error::shader("malformed SPIR-V: a short OpExecutionModeId")),
        }
    }
    Ok((out, local_size))
}

/// A construct whose guarantee WGSL cannot give in full: translation goes
/// on, and the CLI prints it once (`--deny-warnings` makes it an error).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// What the shader asked for and what it gets instead.
    pub message: String,
    /// The 1-based source line of the construct's first use, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// GLSL words that find the construct's line in the source.
    #[serde(skip)]
    pub(crate) words: Vec<&'static str>,
}

impl Warning {
    pub(crate) fn new(message: impl Into<String>, words: &[&'static str]) -> Warning {
        Warning {
            message: message.into(),
            line: None,
            words: words.to_vec(),
        }
    }

    /// Finds the line of the first whole-word use of one of its words in
    /// `source` (GLSL), outside `//` comments.
    pub(crate) fn locate(&mut self, source: &str) {
        if self.line.is_some() {
            return;
        }
        let has_word = |line: &str, w: &str| {
            let code = line.split("//").next().unwrap_or_default();
            code.match_indices(w).any(|(i, _)| {
                let b = code.as_bytes();
                let ok = |c: u8| !(c.is_ascii_alphanumeric() || c == b'_');
                (i == 0 || ok(b[i - 1])) && b.get(i + w.len()).is_none_or(|&c| ok(c))
            })
        };
        self.line = source
            .lines()
            .position(|l| self.words.iter().any(|w| has_word(l, w)))
            .map(|p| p as u32 + 1);
    }
}

/// Memory semantics bits (SPIR-V's MemorySemantics).
const ACQUIRE: u32 = 0x2;
const RELEASE: u32 = 0x4;
const ACQUIRE_RELEASE: u32 = 0x8;
const SEQUENTIALLY_CONSISTENT: u32 = 0x10;

/// Image operand bits that carry one id each, in bit order; the memory
/// model's are stripped along with their scope ids.
const IMAGE_OPERAND_WORDS: [(u32, usize); 16] = [
    (0x1, 1),     // Bias
    (0x2, 1),     // Lod
    (0x4, 2),     // Grad
    (0x8, 1),     // ConstOffset
    (0x10, 1),    // Offset
    (0x20, 1),    // ConstOffsets
    (0x40, 1),    // Sample
    (0x80, 1),    // MinLod
    (0x100, 1),   // MakeTexelAvailable
    (0x200, 1),   // MakeTexelVisible
    (0x400, 0),   // NonPrivateTexel
    (0x800, 0),   // VolatileTexel
    (0x1000, 0),  // SignExtend
    (0x2000, 0),  // ZeroExtend
    (0x4000, 0),  // Nontemporal
    (0x10000, 1), // Offsets
];
/// MakeTexelAvailable/Visible, NonPrivateTexel, VolatileTexel, SignExtend,
/// ZeroExtend, Nontemporal: no meaning WGSL's texture calls can carry (the
/// texel's sign comes from the texture's format).
const STRIPPED_IMAGE_OPERANDS: u32 = 0x100 | 0x200 | 0x400 | 0x800 | 0x1000 | 0x2000 | 0x4000;

/// Rewrites the Vulkan memory model (`#pragma use_vulkan_memory_model`,
/// GL_KHR_memory_scope_semantics) into the GLSL450 model naga reads: memory
/// access and image operands of availability, visibility, non-private and
/// volatile are dropped, as are `Coherent`/`Volatile` decorations on images
/// (naga keeps them for storage buffers only). Returns a warning for each
/// kind of guarantee WGSL does not give: acquire/release atomics, `coherent`
/// and `volatile` memory.
pub fn relax_memory_model(module: &mut Module) -> Result<Vec<Warning>> {
    let mut warnings = Vec::new();
    if let Some(m) = module.memory_model.as_mut()
        && let Some(Operand::MemoryModel(model)) = m.operands.get_mut(1)
        && *model == MemoryModel::Vulkan
    {
        *model = MemoryModel::GLSL450;
    }
    module.capabilities.retain(|c| {
        !matches!(
            c.operands.first(),
            Some(Operand::Capability(
                Capability::VulkanMemoryModel | Capability::VulkanMemoryModelDeviceScope
            ))
        )
    });
    module.extensions.retain(|e| {
        !matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == "SPV_KHR_vulkan_memory_model")
    });
    let defs = Defs::new(module);
    let semantics = |op: Option<&Operand>| match op {
        Some(Operand::IdMemorySemantics(i) | Operand::IdRef(i)) => defs.constant_u32(*i),
        _ => None,
    };
    let (mut ordered, mut volatile, mut coherent) = (false, false, false);
    for f in &mut module.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                let op = inst.class.opcode;
                match op {
                    Op::Load => {
                        volatile |= memory_access_volatile(inst.operands.get(1));
                        coherent |= memory_access_coherent(inst.operands.get(1));
                        inst.operands.truncate(1);
                    }
                    Op::Store | Op::CopyMemory => {
                        volatile |= memory_access_volatile(inst.operands.get(2));
                        coherent |= memory_access_coherent(inst.operands.get(2));
                        inst.operands.truncate(2);
                    }
                    Op::AtomicLoad
                    | Op::AtomicStore
                    | Op::AtomicExchange
                    | Op::AtomicCompareExchange
                    | Op::AtomicCompareExchangeWeak
                    | Op::AtomicIIncrement
                    | Op::AtomicIDecrement
                    | Op::AtomicIAdd
                    | Op::AtomicISub
                    | Op::AtomicSMin
                    | Op::AtomicUMin
                    | Op::AtomicSMax
                    | Op::AtomicUMax
                    | Op::AtomicAnd
                    | Op::AtomicOr
                    | Op::AtomicXor
                    | Op::AtomicFAddEXT
                    | Op::AtomicFMinEXT
                    | Op::AtomicFMaxEXT => {
                        let sem = semantics(inst.operands.get(2)).unwrap_or(0);
                        let unequal = if matches!(
                            op,
                            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak
                        ) {
                            semantics(inst.operands.get(3)).unwrap_or(0)
                        } else {
                            0
                        };
                        ordered |= (sem | unequal)
                            & (ACQUIRE | RELEASE | ACQUIRE_RELEASE | SEQUENTIALLY_CONSISTENT)
                            != 0;
                    }
                    _ => {
                        if let Some(at) = image_operands_at(op) {
                            strip_image_operands(&mut inst.operands, at);
                        }
                    }
                }
            }
        }
    }
    // `coherent`/`volatile` decorations (the GLSL450 model's form).
    let images: HashSet<Word> = {
        let defs = Defs::new(module);
        module
            .types_global_values
            .iter()
            .filter(|v| v.class.opcode == Op::Variable)
            .filter(|v| {
                let mut ty = v.result_type.and_then(|p| defs.pointer(p)).map(|p| p.1);
                while let Some(t) = ty.and_then(|t| defs.globals.get(&t)) {
                    match t.class.opcode {
                        Op::TypeArray | Op::TypeRuntimeArray => {
                            ty = t.operands.first().and_then(id)
                        }
                        Op::TypeImage => return true,
                        _ => return false,
                    }
                }
                false
            })
            .filter_map(|v| v.result_id)
            .collect()
    };
    // glslang marks its own atomic-counter blocks coherent and volatile:
    // not something the shader asked for, and used only atomically.
    let names = super::spirv::debug_names(module);
    let counter_blocks: HashSet<Word> = {
        let defs = Defs::new(module);
        let types: HashSet<Word> = names
            .iter()
            .filter(|(_, n)| n.starts_with("gl_AtomicCounterBlock"))
            .map(|(t, _)| *t)
            .collect();
        let vars = module
            .types_global_values
            .iter()
            .filter(|v| v.class.opcode == Op::Variable)
            .filter(|v| {
                v.result_type
                    .and_then(|p| defs.pointer(p))
                    .is_some_and(|(_, t)| types.contains(&t))
            })
            .filter_map(|v| v.result_id)
            .collect::<Vec<_>>();
        types.into_iter().chain(vars).collect()
    };
    for a in &module.annotations {
        if a.operands
            .first()
            .and_then(id)
            .is_some_and(|t| counter_blocks.contains(&t))
        {
            continue;
        }
        let decoration = match a.class.opcode {
            Op::Decorate => a.operands.get(1),
            Op::MemberDecorate => a.operands.get(2),
            _ => None,
        };
        match decoration {
            Some(Operand::Decoration(Decoration::Coherent)) => coherent = true,
            Some(Operand::Decoration(Decoration::Volatile)) => volatile = true,
            _ => {}
        }
    }
    module.annotations.retain(|a| {
        let on_image = a.operands.first().and_then(id).is_some_and(|t| images.contains(&t));
        !(on_image
            && matches!(
                a.operands.get(1),
                Some(Operand::Decoration(Decoration::Coherent | Decoration::Volatile))
            ))
    });
    if ordered {
        warnings.push(Warning::new(
            "atomics with acquire, release or sequentially consistent semantics become WGSL's relaxed atomics: ordering between invocations holds only across a barrier within a workgroup, and between workgroups not at all",
            &[
                "gl_SemanticsAcquire",
                "gl_SemanticsRelease",
                "gl_SemanticsAcquireRelease",
                "gl_SemanticsMakeAvailable",
                "gl_SemanticsMakeVisible",
            ],
        ));
    }
    if coherent {
        warnings.push(Warning::new(
            "`coherent` memory: WGSL makes plain loads and stores of other invocations visible only across a barrier within a workgroup; between workgroups only atomics are reliable",
            &["coherent"],
        ));
    }
    if volatile {
        warnings.push(Warning::new(
            "`volatile` memory: WGSL has no volatile access; a value loaded again may be reused, so poll through atomics (atomicLoad or atomicAdd(x, 0))",
            &["volatile"],
        ));
    }
    Ok(warnings)
}

/// MemoryAccess bits.
const VOLATILE: u32 = 0x1;
const MAKE_POINTER_AVAILABLE: u32 = 0x8;
const MAKE_POINTER_VISIBLE: u32 = 0x10;

fn memory_access_bits(op: Option<&Operand>) -> u32 {
    match op {
        Some(Operand::MemoryAccess(m)) => m.bits(),
        _ => 0,
    }
}

fn memory_access_volatile(op: Option<&Operand>) -> bool {
    memory_access_bits(op) & VOLATILE != 0
}

fn memory_access_coherent(op: Option<&Operand>) -> bool {
    memory_access_bits(op) & (MAKE_POINTER_AVAILABLE | MAKE_POINTER_VISIBLE) != 0
}

/// Where an image instruction's ImageOperands sit, if it can have them.
fn image_operands_at(op: Op) -> Option<usize> {
    Some(match op {
        Op::ImageRead | Op::ImageFetch | Op::ImageSparseRead | Op::ImageSparseFetch => 2,
        Op::ImageWrite => 3,
        Op::ImageSampleImplicitLod
        | Op::ImageSampleExplicitLod
        | Op::ImageSampleProjImplicitLod
        | Op::ImageSampleProjExplicitLod
        | Op::ImageQueryLod => 2,
        Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageGather
        | Op::ImageDrefGather => 3,
        _ => return None,
    })
}

/// Drops the stripped image operand bits, and the ids that go with them.
fn strip_image_operands(operands: &mut Vec<Operand>, at: usize) {
    let Some(Operand::ImageOperands(bits)) = operands.get(at) else {
        return;
    };
    let bits = bits.bits();
    if bits & STRIPPED_IMAGE_OPERANDS == 0 {
        return;
    }
    let mut kept = vec![];
    let mut next = at + 1;
    for (bit, words) in IMAGE_OPERAND_WORDS {
        if bits & bit == 0 {
            continue;
        }
        let end = (next + words).min(operands.len());
        if bit & STRIPPED_IMAGE_OPERANDS == 0 {
            kept.extend_from_slice(&operands[next..end]);
        }
        next = end;
    }
    let remaining = bits & !STRIPPED_IMAGE_OPERANDS;
    operands.truncate(at);
    if remaining != 0 {
        operands.push(Operand::ImageOperands(
            rspirv::spirv::ImageOperands::from_bits_truncate(remaining),
        ));
        operands.extend(kept);
    }
}

/// GLSL.std.450's FindILsb, FindSMsb and FindUMsb.
const FIND_LSB_MSB: [u32; 3] = [73, 74, 75];

/// `int x = findLSB(someUint)`: glslang gives the bit queries (FindILsb,
/// FindSMsb, FindUMsb, OpBitCount) a result whose signedness differs from
/// the operand's, which naga refuses. The query is retyped to its operand's
/// type and its result bitcast to the type the shader wants (the values
/// agree: the results are small, or -1 on both sides).
pub fn match_bit_query_types(module: &mut Module) -> Result<usize> {
    let glsl_std = module.ext_inst_imports.iter().find_map(|i| match i.operands.first() {
        Some(Operand::LiteralString(s)) if s == "GLSL.std.450" => i.result_id,
        _ => None,
    });
    let types = super::spirv::result_types(module);
    let mut count = 0;
    let mut bound = module.header.as_ref().map_or(0, |h| h.bound);
    for f in &mut module.functions {
        for b in &mut f.blocks {
            let mut k = 0;
            while k < b.instructions.len() {
                let inst = &b.instructions[k];
                let operand = match inst.class.opcode {
                    Op::BitCount => inst.operands.first().and_then(id),
                    Op::ExtInst
                        if glsl_std.is_some()
                            && inst.operands.first().and_then(id) == glsl_std
                            && matches!(inst.operands.get(1), Some(Operand::LiteralExtInstInteger(n)) if FIND_LSB_MSB.contains(n)) =>
                    {
                        inst.operands.get(2).and_then(id)
                    }
                    _ => None,
                };
                let (Some(v), Some(want), Some(r)) = (operand, inst.result_type, inst.result_id)
                else {
                    k += 1;
                    continue;
                };
                let Some(&have) = types.get(&v) else {
                    k += 1;
                    continue;
                };
                if have == want {
                    k += 1;
                    continue;
                }
                let query = bound;
                bound += 1;
                let inst = &mut b.instructions[k];
                inst.result_type = Some(have);
                inst.result_id = Some(query);
                b.instructions.insert(
                    k + 1,
                    Instruction::new(Op::Bitcast, Some(want), Some(r), vec![Operand::IdRef(query)]),
                );
                count += 1;
                k += 2;
            }
        }
    }
    if let Some(h) = module.header.as_mut() {
        h.bound = bound;
    }
    Ok(count)
}

/// Removes global variables no function uses (with their names,
/// decorations and entry-point listing), so that an unused declaration of a
/// kind WGSL lacks (an `imageCube` of a format WGSL has no storage texture
/// for) is not refused; naga would drop them anyway. Workgroup and private
/// variables go too.
pub fn remove_unused_globals(module: &mut Module) -> usize {
    let mut used: HashSet<Word> = HashSet::new();
    for f in &module.functions {
        for i in f
            .def
            .iter()
            .chain(f.parameters.iter())
            .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
        {
            used.extend(i.operands.iter().filter_map(id));
        }
    }
    // Constants may name variables (OpSpecConstantOp does not; be safe).
    for i in &module.types_global_values {
        if i.class.opcode != Op::Variable {
            used.extend(i.operands.iter().filter_map(id));
        }
    }
    let builtin: HashSet<Word> = module
        .annotations
        .iter()
        .filter(|a| matches!(a.operands.get(1), Some(Operand::Decoration(Decoration::BuiltIn))))
        .filter_map(|a| a.operands.first().and_then(id))
        .collect();
    let dead: HashSet<Word> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| i.result_id)
        .filter(|r| !used.contains(r) && !builtin.contains(r))
        .collect();
    if dead.is_empty() {
        return 0;
    }
    module
        .types_global_values
        .retain(|i| !i.result_id.is_some_and(|r| dead.contains(&r)));
    let names_dead = |i: &Instruction| i.operands.first().and_then(id).is_some_and(|t| dead.contains(&t));
    module.annotations.retain(|a| !names_dead(a));
    module.debug_names.retain(|a| !names_dead(a));
    for ep in &mut module.entry_points {
        ep.operands.retain(|o| !id(o).is_some_and(|t| dead.contains(&t)));
    }
    super::spirv::remove_unused_types(module, &[Op::TypePointer, Op::TypeImage, Op::TypeSampledImage, Op::TypeSampler]);
    dead.len()
}
