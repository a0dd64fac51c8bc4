//! SPIR-V passes for what newer compilers emit and naga's reader (or
//! rspirv's) cannot take as is: `OpExecutionModeId` (SPIR-V 1.2+, which
//! glslang uses for every workgroup size from Vulkan 1.3 on), the Vulkan
//! memory model's operands and semantics, and a few reader gaps found in
//! real shaders (bit queries whose operand signedness differs from the
//! result, unused globals of kinds WGSL lacks).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Capability, Decoration, MemoryModel, Op, StorageClass, Word};

use crate::lower::model::{Emit, Model, id, is_atomic, with_ids};
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
/// are returned for [`crate::lower::spirv::spec`] to write their values in; a
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

/// The `OpExecutionModeId` instructions of `words` (which rspirv's reader
/// places nowhere) taken out, for [`put_execution_mode_ids`] to put back.
pub fn take_execution_mode_ids(words: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut out = Vec::with_capacity(words.len());
    let mut taken = Vec::new();
    out.extend_from_slice(&words[..5.min(words.len())]);
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        if inst[0] & 0xffff == OP_EXECUTION_MODE_ID {
            taken.extend_from_slice(inst);
        } else {
            out.extend_from_slice(inst);
        }
        at += count;
    }
    (out, taken)
}

/// `words` with the `taken` instructions after its execution modes (before
/// the debug instructions that follow them), where SPIR-V wants them.
pub fn put_execution_mode_ids(words: &[u32], taken: &[u32]) -> Vec<u32> {
    if taken.is_empty() {
        return words.to_vec();
    }
    // The first instruction that may not precede an execution mode: not a
    // capability, extension, import, memory model, entry point or mode.
    const BEFORE: [u32; 6] = [17, 10, 11, 14, 15, OP_EXECUTION_MODE];
    let mut at = 5;
    while at < words.len() && BEFORE.contains(&(words[at] & 0xffff)) {
        at += ((words[at] >> 16) as usize).max(1);
    }
    let mut out = words[..at.min(words.len())].to_vec();
    out.extend_from_slice(taken);
    out.extend_from_slice(&words[at.min(words.len())..]);
    out
}

/// A construct whose guarantee WGSL cannot give in full: translation goes
/// on, and the CLI prints it once (`--deny-warnings` makes it an error).
#[derive(Clone, Debug, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    /// What the shader asked for and what it gets instead.
    pub message: String,
    /// The 1-based source line of the construct's first use, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// GLSL words that find the construct's line in the source.
    #[serde(skip)]
    #[cfg_attr(not(feature = "glsl"), allow(dead_code))]
    pub(crate) words: Vec<&'static str>,
    /// Which use of the words (0: the first) the warning is about.
    #[serde(skip)]
    #[cfg_attr(not(feature = "glsl"), allow(dead_code))]
    pub(crate) occurrence: usize,
}

/// Two warnings are the same when they say the same of the same line; how
/// the line was found is not part of the warning.
impl PartialEq for Warning {
    fn eq(&self, other: &Warning) -> bool {
        (&self.message, self.line) == (&other.message, other.line)
    }
}

impl Warning {
    pub(crate) fn new(message: impl Into<String>, words: &[&'static str]) -> Warning {
        Warning::nth(0, message, words)
    }

    /// A warning about the `n`th use (from 0) of `words` in the source.
    pub(crate) fn nth(n: usize, message: impl Into<String>, words: &[&'static str]) -> Warning {
        Warning {
            message: message.into(),
            line: None,
            words: words.to_vec(),
            occurrence: n,
        }
    }

    /// Finds the line of the warning's whole-word use of one of its words
    /// in `source` (GLSL), outside `//` comments: the `occurrence`th, or
    /// the first when the source has fewer.
    #[cfg(feature = "glsl")]
    pub(crate) fn locate(&mut self, source: &str) {
        if self.line.is_some() {
            return;
        }
        let uses: Vec<u32> = source
            .lines()
            .enumerate()
            .flat_map(|(p, l)| {
                let code = l.split("//").next().unwrap_or_default();
                let n: usize = self.words.iter().map(|w| word_uses(code, w)).sum();
                std::iter::repeat_n(p as u32 + 1, n)
            })
            .collect();
        self.line = uses.get(self.occurrence).or(uses.first()).copied();
    }
}

/// Whether `text` holds `word` as a whole GLSL identifier (not inside a
/// longer one).
pub(crate) fn has_word(text: &str, word: &str) -> bool {
    word_uses(text, word) > 0
}

/// How many times `text` holds `word` as a whole GLSL identifier.
fn word_uses(text: &str, word: &str) -> usize {
    let b = text.as_bytes();
    let ok = |c: u8| !(c.is_ascii_alphanumeric() || c == b'_');
    text.match_indices(word)
        .filter(|(i, _)| (*i == 0 || ok(b[i - 1])) && b.get(i + word.len()).is_none_or(|&c| ok(c)))
        .count()
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
/// volatile are dropped, as are `Coherent`/`Volatile` decorations (naga
/// would make them `@coherent`, which needs a device capability no adapter
/// here has, and WGSL gives no such guarantee anyway). Returns a warning for
/// each kind of guarantee WGSL does not give: acquire/release atomics,
/// `coherent` and `volatile` memory, and the buffers the shader declared
/// `coherent` or `volatile` (or whose block's members it did): the runtime
/// decorates them `@coherent` and `@volatile` where the device has
/// MEMORY_DECORATION_COHERENT and MEMORY_DECORATION_VOLATILE.
pub fn relax_memory_model(m: &mut Model) -> Result<(Vec<Warning>, Qualified)> {
    m.drop_capabilities(
        &[
            Capability::VulkanMemoryModel,
            Capability::VulkanMemoryModelDeviceScope,
        ],
        &["SPV_KHR_vulkan_memory_model"],
    );
    let (ordered, mut volatile, mut coherent, volatile_accesses) = relax_accesses(m)?;
    // glslang marks its own atomic-counter blocks coherent and volatile:
    // not something the shader asked for, and used only atomically.
    let counter_types: HashSet<Word> = m
        .names()
        .filter(|(_, n)| n.starts_with(crate::front::ATOMIC_COUNTER_BLOCK))
        .map(|(t, _)| t)
        .collect();
    let counter_vars: HashSet<Word> = m
        .variables()
        .filter(|(_, _, t)| counter_types.contains(t))
        .map(|(v, _, _)| v)
        .collect();
    let mut qualified = Qualified::default();
    // Whether the shader has a coherent or volatile decoration: only then do
    // the decorations change (and the index with them).
    let mut decorated = false;
    for a in &m.module().annotations {
        let Some(decoration) = qualifier(a) else {
            continue;
        };
        decorated = true;
        let target = a.operands.first().and_then(id);
        if target.is_some_and(|t| counter_types.contains(&t) || counter_vars.contains(&t)) {
            continue;
        }
        let is_volatile = decoration == Decoration::Volatile;
        if is_volatile {
            volatile = true;
        } else {
            coherent = true;
        }
        let Some(target) = target else { continue };
        // Buffers only: WGSL's `@coherent` and `@volatile` are for the
        // storage address space (a coherent image keeps the warning alone).
        // GLSL treats volatile memory as coherent too.
        let buffers: Vec<Word> = m
            .variables()
            .filter(|&(v, class, t)| {
                (v == target || t == target)
                    && matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform)
                    && m.op_of(t) == Some(Op::TypeStruct)
            })
            .map(|(v, _, _)| v)
            .collect();
        if is_volatile {
            qualified.volatile.extend(&buffers);
        }
        qualified.coherent.extend(buffers);
    }
    // Under the Vulkan memory model volatility is the access's, not the
    // variable's: a buffer so accessed anywhere is volatile.
    for p in volatile_accesses {
        let var = crate::lower::memory::words::root(m, p);
        if m.variables().any(|(v, class, _)| {
            v == var && matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform)
        }) {
            qualified.volatile.push(var);
            qualified.coherent.push(var);
        }
    }
    for list in [&mut qualified.coherent, &mut qualified.volatile] {
        list.sort_unstable();
        list.dedup();
    }
    if let Some(mm) = m.memory_model_mut()
        && let Some(Operand::MemoryModel(model)) = mm.operands.get_mut(1)
        && *model == MemoryModel::Vulkan
    {
        *model = MemoryModel::GLSL450;
    }
    if decorated {
        m.module_mut()
            .annotations
            .retain(|a| qualifier(a).is_none());
    }
    let mut warnings = Vec::new();
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
            "`coherent` memory: core WGSL makes plain loads and stores of other invocations visible only across a barrier within a workgroup, and between workgroups only atomics are reliable; atomport's runtime compiles it @coherent where the device has MEMORY_DECORATION_COHERENT",
            &["coherent"],
        ));
    }
    if volatile {
        warnings.push(Warning::new(
            "`volatile` memory: core WGSL has no volatile access, so every load and store of a writable volatile buffer becomes an atomic read-modify-write of its words (atomicAdd(w, 0u) to load, atomicExchange to store), which no backend serves from a copy or moves across the shader's atomics, at the cost of an atomic per access; read-only volatile buffers and volatile images keep plain accesses, which the runtime compiles @volatile where the device has MEMORY_DECORATION_VOLATILE",
            &["volatile"],
        ));
    }
    Ok((warnings, qualified))
}

/// The buffer variables a shader declared `coherent` or `volatile`.
#[derive(Debug, Default)]
pub struct Qualified {
    /// Declared `coherent`, or `volatile` (which GLSL makes coherent too).
    pub coherent: Vec<Word>,
    /// Declared `volatile`.
    pub volatile: Vec<Word>,
}

/// The `Coherent` or `Volatile` an `OpDecorate` or `OpMemberDecorate`
/// gives, if it gives one.
fn qualifier(a: &Instruction) -> Option<Decoration> {
    let decoration = match a.class.opcode {
        Op::Decorate => a.operands.get(1),
        Op::MemberDecorate => a.operands.get(2),
        _ => None,
    };
    match decoration {
        Some(&Operand::Decoration(d @ (Decoration::Coherent | Decoration::Volatile))) => Some(d),
        _ => None,
    }
}

/// Drops the memory-model operands of loads, stores, copies and image
/// instructions; returns whether an atomic asked for ordering, whether
/// an access was volatile or made memory available/visible (coherent),
/// and the pointers accessed volatile.
fn relax_accesses(m: &mut Model) -> Result<(bool, bool, bool, Vec<Word>)> {
    let semantics = |m: &Model, op: Option<&Operand>| match op {
        Some(Operand::IdMemorySemantics(i) | Operand::IdRef(i)) => m.constant_u32(*i),
        _ => None,
    };
    let (mut ordered, mut volatile, mut coherent) = (false, false, false);
    let mut volatile_accesses = Vec::new();
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        // Only the instructions that change are cloned: most do not.
        let truncated = |len: usize| {
            let mut new = inst.clone();
            new.operands.truncate(len);
            new
        };
        let new = match op {
            Op::Load if inst.operands.len() > 1 => {
                if memory_access_volatile(inst.operands.get(1)) {
                    volatile = true;
                    volatile_accesses.extend(inst.operands.first().and_then(id));
                }
                coherent |= memory_access_coherent(inst.operands.get(1));
                truncated(1)
            }
            Op::Store | Op::CopyMemory if inst.operands.len() > 2 => {
                if memory_access_volatile(inst.operands.get(2)) {
                    volatile = true;
                    volatile_accesses.extend(inst.operands.first().and_then(id));
                }
                coherent |= memory_access_coherent(inst.operands.get(2));
                truncated(2)
            }
            op if is_atomic(op) => {
                let sem = semantics(e.m, inst.operands.get(2)).unwrap_or(0);
                let unequal = if matches!(
                    op,
                    Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak
                ) {
                    semantics(e.m, inst.operands.get(3)).unwrap_or(0)
                } else {
                    0
                };
                ordered |= (sem | unequal)
                    & (ACQUIRE | RELEASE | ACQUIRE_RELEASE | SEQUENTIALLY_CONSISTENT)
                    != 0;
                return Ok(false);
            }
            _ => match image_operands_at(op) {
                Some(at) if strips_image_operands(&inst.operands, at) => {
                    let mut new = inst.clone();
                    strip_image_operands(&mut new.operands, at);
                    new
                }
                _ => return Ok(false),
            },
        };
        e.push(new);
        Ok(true)
    })?;
    Ok((ordered, volatile, coherent, volatile_accesses))
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

/// Whether the ImageOperands at `at` have a bit that
/// [`strip_image_operands`] drops.
fn strips_image_operands(operands: &[Operand], at: usize) -> bool {
    matches!(operands.get(at), Some(Operand::ImageOperands(bits)) if bits.bits() & STRIPPED_IMAGE_OPERANDS != 0)
}

/// Drops the stripped image operand bits, and the ids that go with them.
fn strip_image_operands(operands: &mut Vec<Operand>, at: usize) {
    let Some(Operand::ImageOperands(bits)) = operands.get(at) else {
        return;
    };
    let bits = bits.bits();
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
pub fn match_bit_query_types(m: &mut Model) -> Result<usize> {
    let glsl_std = m
        .module()
        .ext_inst_imports
        .iter()
        .find_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) if s == "GLSL.std.450" => i.result_id,
            _ => None,
        });
    m.rewrite(|e, inst| {
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
        let (Some(v), Some(want), Some(r)) = (operand, inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let Some(have) = e.m.result_type(v).filter(|&have| have != want) else {
            return Ok(false);
        };
        let query = e.fresh();
        let mut retyped = inst.clone();
        retyped.result_type = Some(have);
        retyped.result_id = Some(query);
        e.push(retyped);
        e.push(with_ids(Op::Bitcast, Some(want), Some(r), &[query]));
        Ok(true)
    })
}

/// Removes global variables no function uses (with their names,
/// decorations and entry-point listing), so that an unused declaration of a
/// kind WGSL lacks (an `imageCube` of a format WGSL has no storage texture
/// for) is not refused; naga would drop them anyway. Workgroup and private
/// variables go too.
pub fn remove_unused_globals(m: &mut Model) -> usize {
    let module = m.module();
    let mut used: HashSet<Word> = HashSet::default();
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
    let dead: HashSet<Word> = m
        .variables()
        .map(|(v, _, _)| v)
        .filter(|v| !used.contains(v) && !m.has_decoration(*v, Decoration::BuiltIn))
        .collect();
    if dead.is_empty() {
        return 0;
    }
    m.remove_globals(|v| dead.contains(&v));
    // Arrays too: an unused bindless array's element type is the kind
    // that would be refused (a formatless storage image).
    m.remove_unused_types(&[
        Op::TypePointer,
        Op::TypeArray,
        Op::TypeRuntimeArray,
        Op::TypeImage,
        Op::TypeSampledImage,
        Op::TypeSampler,
    ]);
    dead.len()
}

/// Execution modes that ask for more reconvergence than SPIR-V's default
/// (`SubgroupUniformControlFlowKHR`, GL_EXT_subgroup_uniform_control_flow;
/// `MaximallyReconvergesKHR`, GL_EXT_maximal_reconvergence), which naga's
/// reader refuses by their extensions: dropped, with a warning. Neither
/// changes what an invocation computes alone; subgroup operations after
/// divergent control flow may see the subgroup split where the mode would
/// have kept it whole.
pub fn drop_reconvergence_modes(m: &mut Model) -> Option<Warning> {
    use rspirv::spirv::ExecutionMode as E;
    let dropped = m.retain_execution_modes(|i| {
        !matches!(
            i.operands.get(1),
            Some(Operand::ExecutionMode(
                E::SubgroupUniformControlFlowKHR | E::MaximallyReconvergesKHR
            ))
        )
    }) > 0;
    m.drop_capabilities(
        &[],
        &[
            "SPV_KHR_subgroup_uniform_control_flow",
            "SPV_KHR_maximal_reconvergence",
        ],
    );
    dropped.then(|| {
        Warning::new(
            "the shader asks subgroups to reconverge (subgroup_uniform_control_flow or \
             maximal_reconvergence), which WGSL cannot ask for: subgroup operations after \
             divergent control flow may see the subgroup split",
            &["subgroup_uniform_control_flow", "maximal_reconvergence"],
        )
    })
}

/// `OpCopyLogical` (SPIR-V 1.4+): glslang copies a struct or array between
/// a block's laid-out type and a variable's plain one with it (`Meshlet m =
/// meshlets[i];` for Vulkan 1.2 and later), which naga cannot read. Each
/// becomes the copy spelled out: every member or element extracted and the
/// value built again in the other type.
pub fn copy_logical(m: &mut Model) -> Result<usize> {
    m.rewrite(|e, inst| {
        if inst.class.opcode != Op::CopyLogical {
            return Ok(false);
        }
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        let src = inst.operands.first().and_then(id).unwrap_or(0);
        let from = e.m.result_type(src).unwrap_or(0);
        let parts = logical_parts(e, src, from, ty, 0)?;
        e.push(with_ids(Op::CompositeConstruct, Some(ty), Some(r), &parts));
        Ok(true)
    })
}

/// `OpCopyObject` of an image, sampler or sampled image: glslang copies the
/// combined sampler a `nonuniformEXT(sampler2D(textures[i], samplers[j]))`
/// builds (the bindless pattern), and naga's reader takes such values only
/// from the instructions that make them ("invalid id"). Each copy becomes
/// the instruction that made the value, made again: a load of the same
/// descriptor, or the same combination of image and sampler.
pub fn copy_opaque_values(m: &mut Model) -> Result<usize> {
    m.rewrite(|e, inst| {
        if inst.class.opcode != Op::CopyObject {
            return Ok(false);
        }
        let (Some(ty), Some(r)) = (inst.result_type, inst.result_id) else {
            return Ok(false);
        };
        if !matches!(
            e.m.op_of(ty),
            Some(Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler)
        ) {
            return Ok(false);
        }
        // Through copies of copies to what made the value.
        let mut src = inst.operands.first().and_then(id).unwrap_or(0);
        for _ in 0..64 {
            let Some(def) = e.m.def(src) else {
                return Ok(false);
            };
            match def.class.opcode {
                Op::CopyObject => src = def.operands.first().and_then(id).unwrap_or(0),
                Op::Load | Op::SampledImage | Op::Image => {
                    let mut again = def.clone();
                    again.result_id = Some(r);
                    e.out.push(again);
                    return Ok(true);
                }
                _ => return Ok(false),
            }
        }
        Ok(false)
    })
}

/// The members or elements of `value` (of type `from`) as the members or
/// elements of `to`, each copied logically in turn.
fn logical_parts(e: &mut Emit, value: Word, from: Word, to: Word, depth: u32) -> Result<Vec<Word>> {
    let unsupported =
        || Error::Unsupported("an OpCopyLogical between types atomport cannot match".into());
    if depth > 32 {
        return Err(unsupported());
    }
    let (Some(f), Some(t)) = (e.m.global(from).cloned(), e.m.global(to).cloned()) else {
        return Err(unsupported());
    };
    // (the source part's type, the target part's type), one per part.
    let pairs: Vec<(Word, Word)> = match (f.class.opcode, t.class.opcode) {
        (Op::TypeStruct, Op::TypeStruct) if f.operands.len() == t.operands.len() => f
            .operands
            .iter()
            .zip(&t.operands)
            .filter_map(|(a, b)| Some((id(a)?, id(b)?)))
            .collect(),
        (Op::TypeArray, Op::TypeArray) => {
            let n = f
                .operands
                .get(1)
                .and_then(id)
                .and_then(|l| e.m.constant_u32(l))
                .filter(|&n| n <= 1024)
                .ok_or_else(unsupported)?;
            let (a, b) = (
                f.operands.first().and_then(id).unwrap_or(0),
                t.operands.first().and_then(id).unwrap_or(0),
            );
            vec![(a, b); n as usize]
        }
        _ => return Err(unsupported()),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (k, (a, b)) in pairs.into_iter().enumerate() {
        let part = e.extract(a, value, k as u32);
        let composite = matches!(e.m.op_of(b), Some(Op::TypeStruct | Op::TypeArray));
        out.push(if a == b || !composite {
            part
        } else {
            let inner = logical_parts(e, part, a, b, depth + 1)?;
            e.op(Op::CompositeConstruct, b, &inner)
        });
    }
    Ok(out)
}

/// `unpackUint2x32`, `packInt2x32` and their kin: glslang writes them as an
/// `OpBitcast` between a 64-bit integer and a two-component 32-bit vector,
/// which WGSL's `bitcast` cannot do. Each becomes conversions and shifts on
/// the halves (low word first, as the GLSL functions define).
pub fn split_wide_bitcasts(m: &mut Model) -> Result<usize> {
    // The component type of a two-component 32-bit integer vector.
    let pair = |m: &Model, t: Word| match m.global(t) {
        Some(i) if i.class.opcode == Op::TypeVector => match i.operands[..] {
            [Operand::IdRef(c), Operand::LiteralBit32(2)] => {
                m.int_type_of(c).filter(|&(w, _)| w == 32).map(|_| c)
            }
            _ => None,
        },
        _ => None,
    };
    let wide = |m: &Model, t: Word| m.int_type_of(t).is_some_and(|(w, _)| w == 64);
    let splits = |m: &Model, inst: &Instruction| {
        let (Some(to), Some(v)) = (inst.result_type, inst.operands.first().and_then(id)) else {
            return false;
        };
        let Some(from) = m.result_type(v) else {
            return false;
        };
        inst.class.opcode == Op::Bitcast
            && ((wide(m, from) && pair(m, to).is_some())
                || (pair(m, from).is_some() && wide(m, to)))
    };
    if !m.instructions().any(|i| splits(m, i)) {
        return Ok(0);
    }
    let uint = m.uint();
    let thirty_two = m.constant(uint, 32);
    let u64_ty = m.int_type(64, false);
    let uvec2 = m.vector_type(uint, 2);
    m.rewrite(|e, inst| {
        if !splits(e.m, inst) {
            return Ok(false);
        }
        let (to, v, r) = (
            inst.result_type.unwrap_or(0),
            inst.operands.first().and_then(id).unwrap_or(0),
            inst.result_id.unwrap_or(0),
        );
        let from = e.m.result_type(v).unwrap_or(0);
        let last = |e: &mut Emit, op: Op, ty: Word, args: &[Word], want: Word| {
            if want == ty {
                e.push(with_ids(op, Some(ty), Some(r), args));
            } else {
                let x = e.op(op, ty, args);
                e.push(with_ids(Op::Bitcast, Some(want), Some(r), &[x]));
            }
        };
        if pair(e.m, to).is_some() {
            // 64-bit integer to two words, low first.
            let x = if e.m.int_type_of(from) == Some((64, false)) {
                v
            } else {
                e.op(Op::Bitcast, u64_ty, &[v])
            };
            let lo = e.op(Op::UConvert, uint, &[x]);
            let high = e.op(Op::ShiftRightLogical, u64_ty, &[x, thirty_two]);
            let hi = e.op(Op::UConvert, uint, &[high]);
            last(e, Op::CompositeConstruct, uvec2, &[lo, hi], to);
        } else {
            // Two words to a 64-bit integer.
            let words = if from == uvec2 {
                v
            } else {
                e.op(Op::Bitcast, uvec2, &[v])
            };
            let lo = e.extract(uint, words, 0);
            let hi = e.extract(uint, words, 1);
            let lo64 = e.op(Op::UConvert, u64_ty, &[lo]);
            let hi64 = e.op(Op::UConvert, u64_ty, &[hi]);
            let shifted = e.op(Op::ShiftLeftLogical, u64_ty, &[hi64, thirty_two]);
            last(e, Op::BitwiseOr, u64_ty, &[shifted, lo64], to);
        }
        Ok(true)
    })
}

const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_MATRIX: u32 = 24;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_STRUCT: u32 = 30;
const OP_SPEC_CONSTANT_COMPOSITE: u32 = 51;
const OP_SPEC_CONSTANT_OP: u32 = 52;
const OP_VECTOR_SHUFFLE: u32 = 79;
const OP_COMPOSITE_EXTRACT: u32 = 81;
const OP_COMPOSITE_INSERT: u32 = 82;

/// Splits the `OpSpecConstantOp`s with several literal operands
/// (`CompositeExtract` through nested composites, `VectorShuffle`), which
/// rspirv's reader cannot take, into ones with a single literal each: a
/// chain of one-level extracts; for a nested `CompositeInsert`, extracts
/// down to the innermost level and one-level inserts back up; or one
/// extract per shuffled component gathered by `OpSpecConstantComposite`. Works on the words, before
/// anything reads the module; malformed words are left for the checks.
pub fn split_variadic_spec_constant_ops(words: &[u32]) -> Vec<u32> {
    let Some(mut split) = SpecOpSplit::scan(words) else {
        return words.to_vec();
    };
    let mut out = words[..5].to_vec();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let inst = &words[at..at + count];
        at += count;
        let done = inst[0] & 0xffff == OP_SPEC_CONSTANT_OP
            && count >= 6
            && match inst[3] {
                OP_COMPOSITE_EXTRACT if count > 6 => split.extract(inst, &mut out),
                OP_COMPOSITE_INSERT if count > 7 => split.insert(inst, &mut out),
                OP_VECTOR_SHUFFLE if count > 7 => split.shuffle(inst, &mut out),
                _ => false,
            };
        if !done {
            out.extend_from_slice(inst);
        }
    }
    out[3] = split.bound;
    out
}

/// What splitting variadic `OpSpecConstantOp`s needs of the module's words.
struct SpecOpSplit {
    /// Composite types (opcode, operands) by id.
    types: HashMap<u32, (u32, Vec<u32>)>,
    /// Result types of constants, by id.
    result_types: HashMap<u32, u32>,
    bound: u32,
}

impl SpecOpSplit {
    /// Reads the types and constants; `None` when no operation needs
    /// splitting or the words are malformed (left for the checks).
    fn scan(words: &[u32]) -> Option<SpecOpSplit> {
        if words.len() < 5 {
            return None;
        }
        let mut split = SpecOpSplit {
            types: HashMap::default(),
            result_types: HashMap::default(),
            bound: words[3],
        };
        let mut any = false;
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            if count == 0 || at + count > words.len() {
                return None;
            }
            let inst = &words[at..at + count];
            let op = inst[0] & 0xffff;
            match op {
                OP_TYPE_VECTOR | OP_TYPE_MATRIX | OP_TYPE_ARRAY | OP_TYPE_STRUCT if count >= 2 => {
                    split.types.insert(inst[1], (op, inst[2..].to_vec()));
                }
                // Constants and spec constants: (type, result, …).
                41..=46 | 48..=52 if count >= 3 => {
                    split.result_types.insert(inst[2], inst[1]);
                    any |= op == OP_SPEC_CONSTANT_OP
                        && count >= 5
                        && ((inst[3] == OP_COMPOSITE_EXTRACT && count > 6)
                            || (inst[3] == OP_COMPOSITE_INSERT && count > 7)
                            || (inst[3] == OP_VECTOR_SHUFFLE && count > 7));
                }
                _ => {}
            }
            at += count;
        }
        any.then_some(split)
    }

    fn fresh(&mut self) -> u32 {
        self.bound += 1;
        self.bound - 1
    }

    /// The type of member `k` of a composite type.
    fn member(&self, ty: u32, k: u32) -> Option<u32> {
        let (op, ops) = self.types.get(&ty)?;
        match *op {
            OP_TYPE_STRUCT => ops.get(k as usize).copied(),
            _ => ops.first().copied(),
        }
    }

    /// The component count of a vector type.
    fn width(&self, ty: u32) -> Option<u32> {
        match self.types.get(&ty)? {
            (OP_TYPE_VECTOR, ops) => ops.get(1).copied(),
            _ => None,
        }
    }

    /// `%r = extract %from k` as a spec constant operation.
    fn push_extract(out: &mut Vec<u32>, ty: u32, r: u32, from: u32, k: u32) {
        out.extend_from_slice(&[
            (6 << 16) | OP_SPEC_CONSTANT_OP,
            ty,
            r,
            OP_COMPOSITE_EXTRACT,
            from,
            k,
        ]);
    }

    /// `%r = extract %c i j k` → `%t1 = extract %c i; %t2 = extract %t1 j;
    /// %r = extract %t2 k`; false when a type on the way is unknown.
    fn extract(&mut self, inst: &[u32], out: &mut Vec<u32>) -> bool {
        let (ty, r) = (inst[1], inst[2]);
        let mut from = inst[4];
        let mut from_ty = self.result_types.get(&from).copied();
        let indices = &inst[5..];
        let mut chain = Vec::new();
        for (n, &k) in indices.iter().enumerate() {
            let last = n + 1 == indices.len();
            let step_ty = if last {
                Some(ty)
            } else {
                from_ty.and_then(|t| self.member(t, k))
            };
            let Some(step_ty) = step_ty else {
                return false;
            };
            let step = if last { r } else { self.fresh() };
            Self::push_extract(&mut chain, step_ty, step, from, k);
            from = step;
            from_ty = Some(step_ty);
        }
        out.extend(chain);
        true
    }

    /// `%r = insert %obj into %c at i0 … ik`: the parts down the path, then
    /// one-level inserts back up; false when a type on the way is unknown.
    fn insert(&mut self, inst: &[u32], out: &mut Vec<u32>) -> bool {
        let (ty, r, object, whole) = (inst[1], inst[2], inst[4], inst[5]);
        let path = &inst[6..];
        let mut parts = vec![(whole, ty)];
        for &i in &path[..path.len() - 1] {
            let (_, t) = parts[parts.len() - 1];
            let Some(member_ty) = self.member(t, i) else {
                return false;
            };
            let part = self.fresh();
            parts.push((part, member_ty));
        }
        for (j, &i) in path[..path.len() - 1].iter().enumerate() {
            Self::push_extract(out, parts[j + 1].1, parts[j + 1].0, parts[j].0, i);
        }
        let mut inserted = object;
        for (j, &i) in path.iter().enumerate().rev() {
            let (into, t) = parts[j];
            let result = if j == 0 { r } else { self.fresh() };
            out.extend_from_slice(&[
                (7 << 16) | OP_SPEC_CONSTANT_OP,
                t,
                result,
                OP_COMPOSITE_INSERT,
                inserted,
                into,
                i,
            ]);
            inserted = result;
        }
        true
    }

    /// A shuffle: one extract per component, gathered by
    /// `OpSpecConstantComposite`; false when a type is unknown.
    fn shuffle(&mut self, inst: &[u32], out: &mut Vec<u32>) -> bool {
        let (ty, r, a, b) = (inst[1], inst[2], inst[4], inst[5]);
        let a_width = self.result_types.get(&a).and_then(|t| self.width(*t));
        let (Some(a_width), Some(component)) = (a_width, self.member(ty, 0)) else {
            return false;
        };
        let mut parts = Vec::new();
        for &c in &inst[6..] {
            let (src, k) = if c == 0xffff_ffff {
                (a, 0)
            } else if c < a_width {
                (a, c)
            } else {
                (b, c - a_width)
            };
            let part = self.fresh();
            Self::push_extract(out, component, part, src, k);
            parts.push(part);
        }
        out.push((((3 + parts.len()) as u32) << 16) | OP_SPEC_CONSTANT_COMPOSITE);
        out.push(ty);
        out.push(r);
        out.extend(parts);
        true
    }
}

/// Drops `OpLine`/`OpNoLine` (debug line info, `glslangValidator -g`),
/// which naga's reader refuses and which carry no meaning.
pub fn strip_debug_lines(m: &mut Model) {
    let keep = |i: &Instruction| !matches!(i.class.opcode, Op::Line | Op::NoLine);
    let module = m.module_mut();
    module.types_global_values.retain(keep);
    for f in &mut module.functions {
        for b in &mut f.blocks {
            b.instructions.retain(keep);
        }
    }
}

/// glslang names each function by its signature (`hash(u1;`,
/// `tap(s21;vf2;`), which naga writes as `hash_u0028_u1_u003b`: the name
/// before the parenthesis is kept, as the shader's author wrote it, and
/// naga's namer tells overloads apart (`hash`, `hash_1`) and steers clear of
/// WGSL's keywords and built-in functions.
pub fn function_names_as_written(m: &mut Model) {
    let functions: HashSet<Word> = m
        .module()
        .functions
        .iter()
        .filter_map(|f| f.def.as_ref()?.result_id)
        .collect();
    // Where a function's name has its signature, if it has one.
    let signature = |i: &Instruction| match i.operands.as_slice() {
        [Operand::IdRef(t), Operand::LiteralString(s)] if functions.contains(t) => {
            s.find('(').filter(|&k| k > 0)
        }
        _ => None,
    };
    let cuts: Vec<(usize, usize)> = m
        .module()
        .debug_names
        .iter()
        .enumerate()
        .filter_map(|(n, i)| Some((n, signature(i)?)))
        .collect();
    if cuts.is_empty() {
        return;
    }
    let names = &mut m.module_mut().debug_names;
    for (n, k) in cuts {
        if let Some(Operand::LiteralString(s)) = names[n].operands.get_mut(1) {
            s.truncate(k);
        }
    }
}

/// Makes every integer atomic's value operands the type of its result.
/// glslang's OpenGL ES rules build `atomicCounterIncrement` as an
/// `OpAtomicIAdd` of a `uint` with the `int` constant 1, which SPIR-V
/// forbids and naga refuses: a constant is replaced by the same bits in the
/// result's type, any other value is bitcast first.
pub fn match_atomic_operand_types(m: &mut Model) -> Result<usize> {
    let first_value = |op: Op| match op {
        Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => Some(4),
        Op::AtomicExchange
        | Op::AtomicIAdd
        | Op::AtomicISub
        | Op::AtomicSMin
        | Op::AtomicUMin
        | Op::AtomicSMax
        | Op::AtomicUMax
        | Op::AtomicAnd
        | Op::AtomicOr
        | Op::AtomicXor => Some(3),
        _ => None,
    };
    // The operands of `inst` to retype: (index, value).
    let mismatched = |m: &Model, inst: &Instruction| -> Vec<(usize, Word)> {
        let (Some(start), Some(want)) = (
            first_value(inst.class.opcode),
            inst.result_type.and_then(|t| m.int_type_of(t)),
        ) else {
            return Vec::new();
        };
        inst.operands
            .iter()
            .enumerate()
            .skip(start)
            .filter_map(|(k, op)| {
                let v = id(op)?;
                let have = m.result_type(v).and_then(|t| m.int_type_of(t))?;
                (have != want && have.0 == want.0).then_some((k, v))
            })
            .collect()
    };
    let mut count = 0;
    m.rewrite(|e, inst| {
        let fixes = mismatched(e.m, inst);
        if fixes.is_empty() {
            return Ok(false);
        }
        let ty = inst.result_type.unwrap_or(0);
        let mut atomic = inst.clone();
        for (k, v) in fixes {
            let bits = match e.m.global(v) {
                Some(c) if c.class.opcode == Op::Constant => match c.operands.first() {
                    Some(Operand::LiteralBit32(b)) => Some(u64::from(*b)),
                    Some(Operand::LiteralBit64(b)) => Some(*b),
                    _ => None,
                },
                _ => None,
            };
            let new = match bits {
                Some(b) => e.constant(ty, b),
                None => e.op(Op::Bitcast, ty, &[v]),
            };
            atomic.operands[k] = Operand::IdRef(new);
            count += 1;
        }
        e.push(atomic);
        Ok(true)
    })?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_modes_given_by_id_are_read_or_refused_by_name() {
        let header = [0x0723_0203u32, 0x0001_0600, 0, 100, 0];
        let module = |inst: &[u32]| [&header[..], inst].concat();
        // LocalSizeId becomes LocalSize, its ids returned.
        let (words, ids) =
            execution_mode_ids(&module(&[(6 << 16) | 331, 4, 38, 10, 11, 12])).unwrap();
        assert_eq!(ids, Some([10, 11, 12]));
        assert_eq!(&words[5..], &[(6 << 16) | 16, 4, 17, 1, 1, 1]);
        // LocalSizeHintId is a hint: dropped.
        let (words, ids) = execution_mode_ids(&module(&[(6 << 16) | 331, 4, 39, 1, 2, 3])).unwrap();
        assert_eq!((words.len(), ids), (5, None));
        // Any other mode given by id is named.
        let e = execution_mode_ids(&module(&[(4 << 16) | 331, 4, 37, 8])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the execution mode SubgroupsPerWorkgroupId has no WGSL form"
        );
        let e = execution_mode_ids(&module(&[(2 << 16) | 331, 4])).unwrap_err();
        assert!(matches!(e, Error::Shader(_)), "{e:?}");
        assert!(e.to_string().contains("a short OpExecutionModeId"), "{e}");
    }
}
