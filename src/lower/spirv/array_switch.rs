//! SPIR-V pass: resource arrays of a few elements indexed at run time,
//! where a wgpu binding array cannot hold them, become a `switch` over the
//! index with one case per element, each of which uses its element by a
//! constant index; [`super::arrays`] then splits them into one binding per
//! element, as it does arrays indexed by constants. This serves:
//!
//! - arrays of buffer blocks (`buffer Part { … } parts[4]`, indexed by
//!   `nonuniformEXT(i)` or a push constant), which WGSL has no binding
//!   array of that wgpu binds;
//! - arrays whose length is a specialization constant (`image2D
//!   mips[MIPS]`, a mip chain bound whole), which naga reads as no size at
//!   all: the length is the constant's value at translation;
//! - shadow samplers (`sampler2DShadow cascades[3]`) indexed at run time,
//!   whose comparison naga's reader cannot give a binding array (it
//!   panicked);
//! - storage images of such arrays that are held in texel buffers (used
//!   by image atomics, or of no declared format);
//! - every array of resources so indexed, where the translation is not
//!   to use binding arrays (`SourceOptions::binding_arrays` off, as by
//!   default, and always for WebGPU): GL, Debian 12's lavapipe and
//!   browsers have none.
//!
//! Each use of an element (a sample, a load or store through a chain, an
//! atomic, `imageSize`, `.length()`) goes into its own `switch`, whose
//! cases repeat the chain that reaches the element (access chains, loads
//! of the image, `OpSampledImage`) with a constant index; its value comes
//! out of an `OpPhi`. An index past the end, which GLSL leaves undefined,
//! uses the last element. The native run gets the same rewrite, so that
//! both bind the same elements.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{Op, SelectionControl, StorageClass, Word};

use crate::Result;
use crate::lower::model::{Model, id, with_ids};

/// The most elements an array indexed at run time is switched over.
pub const MAX_SWITCHED: u32 = 16;

/// Rewrites every use of an element of the arrays that need it (see the
/// module docs), binding arrays allowed where `binding_arrays`; returns
/// how many uses.
pub fn switch_dynamic_indices(m: &mut Model, binding_arrays: bool) -> Result<usize> {
    let folded = fold_specialized_lengths(m);
    let chosen = choose(m, &folded, binding_arrays);
    if chosen.is_empty() {
        return Ok(0);
    }
    // The index constants, of both signednesses, made before the walk.
    let most = chosen.values().copied().max().unwrap_or(0);
    let mut constants: HashMap<(Word, u32), Word> = HashMap::default();
    for signed in [false, true] {
        let ty = m.int_type(32, signed);
        for k in 0..most {
            constants.insert((ty, k), m.constant(ty, k.into()));
        }
    }
    let mut uses = 0;
    // (old label, label of the block that now ends as it ended)
    let mut relabeled: Vec<(Word, Word)> = Vec::new();
    // (original, copy in a case) of every instruction copied into a case.
    let mut copies: Vec<(Word, Word)> = Vec::new();
    m.rewrite_blocks(|m, _, block| {
        let out = split_block(m, block, &chosen, &constants, &mut copies)?;
        if let Some((blocks, n)) = &out {
            uses += n;
            let old = block.label.as_ref().and_then(|l| l.result_id);
            let last = blocks
                .last()
                .and_then(|b| b.label.as_ref())
                .and_then(|l| l.result_id);
            if let (Some(old), Some(last)) = (old, last) {
                relabeled.push((old, last));
            }
        }
        Ok(out.map(|(b, _)| b))
    })?;
    rename_phi_parents(m, &relabeled);
    // A copy is what its original was: `NonUniform` above all, or a
    // driver reads every invocation's element as the first one's.
    for (original, copy) in copies {
        m.copy_decorations(original, copy, |_| true);
    }
    remove_dead_chains(m);
    Ok(uses)
}

/// Resource arrays whose length is a specialization constant get a plain
/// constant of its value (the caller's, applied before); returns their
/// variables.
fn fold_specialized_lengths(m: &mut Model) -> HashSet<Word> {
    let mut folded = HashSet::default();
    let mut arrays = Vec::new();
    for (var, class, pointee) in m.variables() {
        let Some(t) = m.global(pointee) else { continue };
        let element = t.operands.first().and_then(id).unwrap_or(0);
        if t.class.opcode != Op::TypeArray || resource_kind(m, class, element).is_none() {
            continue;
        }
        let Some(len) = t.operands.get(1).and_then(id) else {
            continue;
        };
        if m.op_of(len) == Some(Op::SpecConstant)
            && let Some(n) = m.global(len).and_then(|c| match c.operands.first() {
                Some(Operand::LiteralBit32(n)) => Some(*n),
                _ => None,
            })
        {
            arrays.push((pointee, m.result_type(len).unwrap_or(0), n));
            folded.insert(var);
        }
    }
    for (array, ty, n) in arrays {
        let c = m.constant(ty, n.into());
        m.set_operand(array, 1, c);
    }
    folded
}

/// The arrays to switch over: of at most [`MAX_SWITCHED`] elements,
/// indexed at run time, and not to be a binding array (see the module
/// docs).
fn choose(m: &Model, folded: &HashSet<Word>, binding_arrays: bool) -> HashMap<Word, u32> {
    let compares = m.instructions().any(|i| {
        matches!(
            i.class.opcode,
            Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
                | Op::ImageDrefGather
        )
    });
    let dynamic: HashSet<Word> = m
        .instructions()
        .filter(|i| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain))
        .filter(|i| {
            i.operands
                .get(1)
                .and_then(id)
                .is_some_and(|k| m.constant_u32(k).is_none())
        })
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    let mut chosen = HashMap::default();
    for (var, class, pointee) in m.variables() {
        if !dynamic.contains(&var) {
            continue;
        }
        let Some(t) = m
            .global(pointee)
            .filter(|t| t.class.opcode == Op::TypeArray)
        else {
            continue;
        };
        let len = t
            .operands
            .get(1)
            .and_then(id)
            .and_then(|l| m.constant_u32(l));
        let Some(len) = len.filter(|n| (1..=MAX_SWITCHED).contains(n)) else {
            continue;
        };
        let element = t.operands.first().and_then(id).unwrap_or(0);
        let needs = folded.contains(&var)
            || (!binding_arrays && resource_kind(m, class, element).is_some())
            || !bindable(m, var, class, element, compares);
        if needs {
            chosen.insert(var, len);
        }
    }
    chosen
}

/// What an array of `element`s in `class` holds (`arrays`' names:
/// "texture", "image", "sampler", "buffer block"), a combined sampler
/// counting as the texture it splits into; `None` for what is no resource.
fn resource_kind(m: &Model, class: StorageClass, element: Word) -> Option<&'static str> {
    let image = match m.global(element) {
        Some(t) if t.class.opcode == Op::TypeSampledImage => t.operands.first().and_then(id)?,
        _ => element,
    };
    super::arrays::kind(m, class, image)
}

/// Whether an array of `element`s can be a wgpu binding array: as
/// [`super::arrays`] binds them (textures, samplers, storage images of a
/// declared format without image atomics), never compared through (naga
/// cannot type that), and not of buffer blocks, which are switched over
/// when they are this short. What is no resource is left alone.
fn bindable(m: &Model, var: Word, class: StorageClass, element: Word, compares: bool) -> bool {
    let depth = |t: &Instruction| t.operands.get(2) == Some(&Operand::LiteralBit32(1));
    let shadow = match m.global(element) {
        Some(t) if t.class.opcode == Op::TypeSampledImage => t
            .operands
            .first()
            .and_then(id)
            .and_then(|i| m.global(i))
            .is_some_and(depth),
        Some(t) if t.class.opcode == Op::TypeImage => depth(t),
        _ => false,
    };
    match resource_kind(m, class, element) {
        None => true,
        Some("buffer block") => false,
        Some(what) => {
            let compared = compares && (what == "sampler" || shadow);
            // A short formatless array is switched over: each element a
            // binding, so each takes the format bound to it.
            let formatless = super::arrays::of_formatless_images(m, var);
            super::arrays::binds_whole(m, var, what) && !compared && !formatless
        }
    }
}

/// Whether `inst` makes a handle or a pointer on the way to an element
/// (and so is repeated in each case rather than switched itself).
fn on_the_way(m: &Model, inst: &Instruction) -> bool {
    let handle = inst.result_type.and_then(|t| m.global(t)).is_some_and(|t| {
        matches!(
            t.class.opcode,
            Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage | Op::TypePointer
        )
    });
    match inst.class.opcode {
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::SampledImage
        | Op::Image
        | Op::ImageTexelPointer => true,
        Op::Load | Op::CopyObject => handle,
        _ => false,
    }
}

/// The most instructions between an array and a use of its element
/// (chains, loads, `OpSampledImage`): real code has a handful; malformed
/// SPIR-V can name a chain its own base, which must not recurse forever.
const MAX_CHAIN: usize = 64;

/// What reaches an element of a switched array from `w`: the array, the
/// index, and the instructions from the array to `w`, in order.
fn chain_to(
    m: &Model,
    w: Word,
    chosen: &HashMap<Word, u32>,
    depth: usize,
) -> Option<(Word, Word, Vec<Instruction>)> {
    let def = m.def(w)?;
    if depth >= MAX_CHAIN || !on_the_way(m, def) {
        return None;
    }
    let base = def.operands.first().and_then(id)?;
    let chain = matches!(def.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
    if chain && chosen.contains_key(&base) {
        let index = def.operands.get(1).and_then(id)?;
        return Some((base, index, vec![def.clone()]));
    }
    // Through any operand (an `OpSampledImage` of an element and a sampler).
    let (var, index, mut deps) = def
        .operands
        .iter()
        .filter_map(id)
        .find_map(|o| chain_to(m, o, chosen, depth + 1))?;
    deps.push(def.clone());
    Some((var, index, deps))
}

/// The block with each use of a switched element made a `switch` (see the
/// module docs), and how many uses; `None` when it has none, or when it is
/// a loop header (which must stay one block). Each instruction copied into
/// a case is added to `copies` with its original.
fn split_block(
    m: &Model,
    block: &Block,
    chosen: &HashMap<Word, u32>,
    constants: &HashMap<(Word, u32), Word>,
    copies: &mut Vec<(Word, Word)>,
) -> Result<Option<(Vec<Block>, usize)>> {
    let header = block
        .instructions
        .iter()
        .any(|i| i.class.opcode == Op::LoopMerge);
    let mut blocks = Vec::new();
    let mut label = block.label.clone();
    let mut current: Vec<Instruction> = Vec::new();
    let mut uses = 0;
    // Kept only where the block is rewritten.
    let mut made: Vec<(Word, Word)> = Vec::new();
    for inst in &block.instructions {
        let found = if on_the_way(m, inst) {
            None
        } else {
            inst.operands
                .iter()
                .filter_map(id)
                .find_map(|o| chain_to(m, o, chosen, 0))
        };
        let Some((var, index, deps)) = found else {
            current.push(inst.clone());
            continue;
        };
        if header {
            return Ok(None);
        }
        uses += 1;
        let len = chosen[&var];
        let index_ty = m.result_type(index).unwrap_or(0);
        let tail = m.fresh();
        let cases: Vec<Word> = (0..len).map(|_| m.fresh()).collect();
        current.push(Instruction::new(
            Op::SelectionMerge,
            None,
            None,
            vec![
                Operand::IdRef(tail),
                Operand::SelectionControl(SelectionControl::NONE),
            ],
        ));
        // The last element is the default: an index past the end is undefined.
        let mut targets = vec![
            Operand::IdRef(index),
            Operand::IdRef(cases[len as usize - 1]),
        ];
        for (k, case) in cases.iter().enumerate().take(len as usize - 1) {
            targets.push(Operand::LiteralBit32(k as u32));
            targets.push(Operand::IdRef(*case));
        }
        current.push(Instruction::new(Op::Switch, None, None, targets));
        blocks.push(Block {
            label: label.take(),
            instructions: std::mem::take(&mut current),
        });
        let mut results = Vec::new();
        for (k, &case) in cases.iter().enumerate() {
            let k_const = constants.get(&(index_ty, k as u32)).copied();
            let Some(k_const) = k_const else {
                return Ok(None); // an index of another type: left as it is
            };
            let mut body = Vec::new();
            let mut renamed: HashMap<Word, Word> = HashMap::default();
            for d in deps.iter().chain(std::iter::once(inst)) {
                let mut c = d.clone();
                for o in &mut c.operands {
                    if let Operand::IdRef(w) = o
                        && let Some(&r) = renamed.get(w)
                    {
                        *w = r;
                    }
                }
                let chain = matches!(c.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
                if chain && c.operands.first() == Some(&Operand::IdRef(var)) {
                    c.operands[1] = Operand::IdRef(k_const);
                }
                if let Some(r) = c.result_id {
                    let fresh = m.fresh();
                    renamed.insert(r, fresh);
                    made.push((r, fresh));
                    c.result_id = Some(fresh);
                }
                body.push(c);
            }
            if let Some(r) = inst.result_id {
                results.push((renamed[&r], case));
            }
            body.push(with_ids(Op::Branch, None, None, &[tail]));
            blocks.push(Block {
                label: Some(Instruction::new(Op::Label, None, Some(case), vec![])),
                instructions: body,
            });
        }
        label = Some(Instruction::new(Op::Label, None, Some(tail), vec![]));
        if let (Some(r), Some(ty)) = (inst.result_id, inst.result_type) {
            let mut operands = Vec::new();
            for (value, parent) in results {
                operands.extend([Operand::IdRef(value), Operand::IdRef(parent)]);
            }
            current.push(Instruction::new(Op::Phi, Some(ty), Some(r), operands));
        }
    }
    if uses == 0 {
        return Ok(None);
    }
    blocks.push(Block {
        label,
        instructions: current,
    });
    copies.extend(made);
    Ok(Some((blocks, uses)))
}

/// Phis that named a split block as a parent name the block that now ends
/// as it ended.
fn rename_phi_parents(m: &mut Model, relabeled: &[(Word, Word)]) {
    let map: HashMap<Word, Word> = relabeled.iter().copied().collect();
    for f in &mut m.module_mut().functions {
        for b in &mut f.blocks {
            for i in &mut b.instructions {
                if i.class.opcode != Op::Phi {
                    continue;
                }
                for (k, o) in i.operands.iter_mut().enumerate() {
                    if k % 2 == 1
                        && let Operand::IdRef(w) = o
                        && let Some(&n) = map.get(w)
                    {
                        *w = n;
                    }
                }
            }
        }
    }
}

/// Drops the chains to elements that nothing uses any more (the originals,
/// with their index known only at run time), and what decorates them.
fn remove_dead_chains(m: &mut Model) {
    loop {
        let used: HashSet<Word> = m
            .instructions()
            .flat_map(|i| i.operands.iter().filter_map(id))
            .collect();
        let mut dead = HashSet::default();
        for i in m.instructions() {
            if let Some(r) = i.result_id
                && on_the_way(m, i)
                && !used.contains(&r)
            {
                dead.insert(r);
            }
        }
        if dead.is_empty() {
            return;
        }
        let module = m.module_mut();
        for f in &mut module.functions {
            for b in &mut f.blocks {
                b.instructions
                    .retain(|i| i.result_id.is_none_or(|r| !dead.contains(&r)));
            }
        }
        module.annotations.retain(|a| {
            a.operands
                .first()
                .and_then(id)
                .is_none_or(|t| !dead.contains(&t))
        });
        module.debug_names.retain(|a| {
            a.operands
                .first()
                .and_then(id)
                .is_none_or(|t| !dead.contains(&t))
        });
    }
}
