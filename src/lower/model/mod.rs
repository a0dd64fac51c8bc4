//! The one model of a SPIR-V module that every SPIR-V pass works on: the
//! module (rspirv's data representation) with an index of its definitions,
//! names and decorations, find-or-insert of types and constants, fresh ids,
//! the access-chain step, and one walker over function bodies.
//!
//! The index holds positions, not copies, and stays correct as a pass edits:
//! the model's own edits keep it up to date, and a pass that edits the
//! module directly ([`Model::module_mut`], [`Model::rewrite`]) drops it, to
//! be rebuilt on the next query. New types and constants are appended; the
//! globals are put in dependency order once, when the module is assembled.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{Cell, OnceCell};

use rustc_hash::{FxHashMap, FxHashSet};

use rspirv::dr::{Block, Function, Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::{Error, Result};

mod capabilities;
mod checks;
mod emit;
mod insert;
mod non_semantic;

pub(crate) use emit::Emit;

/// Where a definition is.
#[derive(Clone, Copy, Debug)]
enum Loc {
    /// `types_global_values[i]`.
    Global(usize),
    /// A function's parameter: (function, parameter).
    Param(usize, usize),
    /// A function-body instruction: (function, block, instruction).
    Local(usize, usize, usize),
    /// A function (its `OpFunction`) or a block's label: not an instruction
    /// a pass reads.
    Other,
}

/// A target's decorations: (decoration, literal operands).
type Decorations = Vec<(Decoration, Vec<Operand>)>;

/// The types an access chain walks: (storage class, [(composite type,
/// index id)], the pointee it ends at).
pub(crate) type ChainPath = (StorageClass, Vec<(Word, Word)>, Word);

/// The index over a module, built from it in one pass.
#[derive(Default)]
struct Index {
    defs: FxHashMap<Word, Loc>,
    names: FxHashMap<Word, String>,
    member_names: FxHashMap<(Word, u32), String>,
    /// `OpDecorate` by target: (decoration, literal operands).
    decorations: FxHashMap<Word, Decorations>,
    /// `OpMemberDecorate` by (struct, member).
    member_decorations: FxHashMap<(Word, u32), Decorations>,
    /// Types and constants that may be shared, by what defines them.
    interned: FxHashMap<Interned, Word>,
}

/// What identifies a type or constant that find-or-insert may share: an
/// unnamed, undecorated scalar, vector, pointer, sampler or constant.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Interned {
    op: Op,
    result_type: Option<Word>,
    operands: Vec<Operand>,
}

fn shareable(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypePointer
            | Op::TypeSampler
            | Op::Constant
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::ConstantNull
    )
}

impl Index {
    fn build(module: &Module) -> Index {
        let mut ix = Index::default();
        ix.defs
            .reserve(module.header.as_ref().map_or(0, |h| h.bound as usize));
        for (i, inst) in module.types_global_values.iter().enumerate() {
            ix.add_global(i, inst);
        }
        for (fi, f) in module.functions.iter().enumerate() {
            ix.defs.extend(
                f.def
                    .as_ref()
                    .and_then(|d| d.result_id)
                    .map(|r| (r, Loc::Other)),
            );
            for (pi, p) in f.parameters.iter().enumerate() {
                ix.defs.extend(p.result_id.map(|r| (r, Loc::Param(fi, pi))));
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                ix.defs.extend(
                    b.label
                        .as_ref()
                        .and_then(|l| l.result_id)
                        .map(|r| (r, Loc::Other)),
                );
                for (ii, inst) in b.instructions.iter().enumerate() {
                    ix.defs
                        .extend(inst.result_id.map(|r| (r, Loc::Local(fi, bi, ii))));
                }
            }
        }
        for n in &module.debug_names {
            ix.add_name(n);
        }
        for a in &module.annotations {
            ix.add_annotation(a);
        }
        // A decorated or named type is its own, never shared.
        let own: HashSet<Word> = ix
            .decorations
            .keys()
            .chain(ix.names.keys())
            .copied()
            .collect();
        ix.interned
            .retain(|k, v| k.op.eq(&Op::Constant) || !own.contains(v));
        ix
    }

    fn add_global(&mut self, at: usize, inst: &Instruction) {
        let Some(r) = inst.result_id else { return };
        self.defs.insert(r, Loc::Global(at));
        if shareable(inst.class.opcode) {
            self.interned
                .entry(Interned {
                    op: inst.class.opcode,
                    result_type: inst.result_type,
                    operands: inst.operands.clone(),
                })
                .or_insert(r);
        }
    }

    fn add_name(&mut self, n: &Instruction) {
        match (n.class.opcode, n.operands.as_slice()) {
            (Op::Name, [Operand::IdRef(t), Operand::LiteralString(s)]) if !s.is_empty() => {
                self.names.insert(*t, s.clone());
            }
            (
                Op::MemberName,
                [
                    Operand::IdRef(t),
                    Operand::LiteralBit32(k),
                    Operand::LiteralString(s),
                ],
            ) => {
                self.member_names.insert((*t, *k), s.clone());
            }
            _ => {}
        }
    }

    fn add_annotation(&mut self, a: &Instruction) {
        match (a.class.opcode, a.operands.as_slice()) {
            (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(d), rest @ ..]) => {
                self.decorations
                    .entry(*t)
                    .or_default()
                    .push((*d, rest.to_vec()));
            }
            (
                Op::MemberDecorate,
                [
                    Operand::IdRef(t),
                    Operand::LiteralBit32(k),
                    Operand::Decoration(d),
                    rest @ ..,
                ],
            ) => {
                self.member_decorations
                    .entry((*t, *k))
                    .or_default()
                    .push((*d, rest.to_vec()));
            }
            _ => {}
        }
    }
}

/// A SPIR-V module and its index (see the module docs).
pub(crate) struct Model {
    module: Module,
    index: OnceCell<Index>,
    /// The id bound: in a cell, so that ids can be handed out while the
    /// model is being read.
    bound: Cell<Word>,
}

/// The operand at `k` as an id.
pub(crate) fn id(op: &Operand) -> Option<Word> {
    match op {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

/// An instruction whose operands are all ids (`OpIAdd`, `OpPhi`,
/// `OpBranchConditional`, …).
pub(crate) fn with_ids(
    op: Op,
    ty: Option<Word>,
    result: Option<Word>,
    args: &[Word],
) -> Instruction {
    Instruction::new(
        op,
        ty,
        result,
        args.iter().map(|&a| Operand::IdRef(a)).collect(),
    )
}

/// An `OpDecorate` of `target` with literal operands.
pub(crate) fn decorate(target: Word, d: Decoration, literals: &[u32]) -> Instruction {
    let mut ops = vec![Operand::IdRef(target), Operand::Decoration(d)];
    ops.extend(literals.iter().map(|l| Operand::LiteralBit32(*l)));
    Instruction::new(Op::Decorate, None, None, ops)
}

/// Whether `op` is one of the atomic instructions.
pub(crate) fn is_atomic(op: Op) -> bool {
    matches!(
        op,
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
            | Op::AtomicFMaxEXT
    )
}

/// A constant's literal: 64 bits wide for a 64-bit type (SPIR-V writes a
/// literal in its type's width).
pub(crate) fn literal(bits: u64, wide: bool) -> Operand {
    if wide {
        Operand::LiteralBit64(bits)
    } else {
        Operand::LiteralBit32(bits as u32)
    }
}

/// Where a retyped value sits: what points at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Site {
    /// Member `index` of struct type `id`.
    Member(Word, u32),
    /// The element type of array (or runtime array) type `id`.
    Element(Word),
    /// The pointee of global variable `id`.
    Variable(Word),
}

/// Binding numbers handed out one by one per descriptor set (see
/// [`Model::free_bindings`]).
pub(crate) struct FreeBindings(HashMap<u32, u64>);

impl FreeBindings {
    /// The next free binding of `set`, or an error when none is left.
    pub(crate) fn take(&mut self, set: u32) -> Result<u32> {
        let slot = self.0.entry(set).or_insert(0);
        let b = u32::try_from(*slot).map_err(|_| {
            Error::Unsupported(format!(
                "descriptor set {set} has no binding number left for the resources atomport adds"
            ))
        })?;
        *slot += 1;
        Ok(b)
    }
}

/// Specialization constant ids handed out one by one (see
/// [`Model::free_spec_ids`]).
pub(crate) struct FreeSpecIds(u64);

impl FreeSpecIds {
    /// The next id, or an error naming the problem when the ids are used
    /// up (a shader's own ids near u32::MAX).
    pub(crate) fn take(&mut self) -> Result<u32> {
        let id = u32::try_from(self.0)
            .map_err(|_| Error::shader("no specialization constant id is left"))?;
        self.0 += 1;
        Ok(id)
    }
}

/// Whether a type instruction is a 64-bit integer or float.
pub(crate) fn is_64_bit(t: &Instruction) -> bool {
    matches!(t.class.opcode, Op::TypeInt | Op::TypeFloat)
        && t.operands.first() == Some(&Operand::LiteralBit32(64))
}

/// A module rspirv cannot read because of an extension it does not know,
/// refused as such rather than as malformed: descriptor heaps
/// (`GL_EXT_descriptor_heap`, Granite's bindless heap) declare untyped
/// variables outside any function, where rspirv places none.
fn unreadable_extension(words: &[u32], name: &str) -> Option<Error> {
    let exts = crate::front::spirv::declared_extensions(words);
    let has = |e: &str| exts.iter().any(|x| x == e);
    if has("SPV_EXT_descriptor_heap") {
        Some(Error::Unsupported(format!(
            "{name}: descriptor heaps (`GL_EXT_descriptor_heap`, SPV_EXT_descriptor_heap) are not translated: WebGPU binds resources only through bind groups, and atomport's SPIR-V reader has no untyped pointers"
        )))
    } else if has("SPV_KHR_untyped_pointers") {
        Some(Error::Unsupported(format!(
            "{name}: untyped pointers (SPV_KHR_untyped_pointers) are not translated: atomport's SPIR-V reader has none"
        )))
    } else {
        None
    }
}

impl Model {
    /// Reads a module; malformed words are named as such. Debug
    /// information (non-semantic instruction sets) is dropped first.
    pub(crate) fn load(words: &[u32], name: &str) -> Result<Model> {
        let stripped = non_semantic::without_non_semantic(words);
        let words = stripped.as_deref().unwrap_or(words);
        // rspirv's reader panics on some corrupt modules (a string past its
        // instruction's end): that is malformed input, not atomport's bug.
        let module = crate::guard_with(
            || {
                rspirv::dr::load_words(words).map_err(|e| {
                    unreadable_extension(words, name)
                        .unwrap_or_else(|| Error::shader(format!("{name}: malformed SPIR-V: {e}")))
                })
            },
            |msg| {
                Error::shader(format!(
                    "{name}: malformed SPIR-V: the reader failed ({msg})"
                ))
            },
        )?;
        Ok(Model::new(module))
    }

    /// The model of `module`.
    pub(crate) fn new(module: Module) -> Model {
        let bound = module.header.as_ref().map_or(1, |h| h.bound);
        Model {
            module,
            index: OnceCell::new(),
            bound: Cell::new(bound),
        }
    }

    /// The module's words, its globals in dependency order.
    pub(crate) fn assemble(mut self) -> Result<Vec<u32>> {
        self.order_globals()?;
        let bound = self.bound.get().max(self.header_bound());
        if let Some(h) = self.module.header.as_mut() {
            h.bound = bound;
        }
        use rspirv::binary::Assemble;
        Ok(self.module.assemble())
    }

    /// The module, to read.
    pub(crate) fn module(&self) -> &Module {
        &self.module
    }

    /// The module, to edit directly: the index is dropped, to be rebuilt
    /// from the edited module on the next query.
    pub(crate) fn module_mut(&mut self) -> &mut Module {
        self.index.take();
        let bound = self.bound.get().max(self.header_bound());
        if let Some(h) = self.module.header.as_mut() {
            h.bound = bound;
        }
        &mut self.module
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(&self.module))
    }

    /// A fresh id.
    pub(crate) fn fresh(&self) -> Word {
        let id = self.bound.get().max(self.header_bound());
        self.bound.set(id + 1);
        id
    }

    /// The bound the header says (edits made through [`Model::module_mut`]
    /// may have raised it).
    fn header_bound(&self) -> Word {
        self.module.header.as_ref().map_or(0, |h| h.bound)
    }

    // ---- Reading -------------------------------------------------------

    /// The instruction that defines `id` (a global, a parameter or an
    /// instruction in a function).
    pub(crate) fn def(&self, id: Word) -> Option<&Instruction> {
        match *self.index().defs.get(&id)? {
            Loc::Global(i) => self.module.types_global_values.get(i),
            Loc::Param(f, p) => self.module.functions.get(f)?.parameters.get(p),
            Loc::Local(f, b, i) => self
                .module
                .functions
                .get(f)?
                .blocks
                .get(b)?
                .instructions
                .get(i),
            Loc::Other => None,
        }
    }

    /// The global (type, constant or variable) `id`.
    pub(crate) fn global(&self, id: Word) -> Option<&Instruction> {
        match *self.index().defs.get(&id)? {
            Loc::Global(i) => self.module.types_global_values.get(i),
            _ => None,
        }
    }

    /// Whether `id` is a global.
    pub(crate) fn is_global(&self, id: Word) -> bool {
        matches!(self.index().defs.get(&id), Some(Loc::Global(_)))
    }

    /// The opcode of the global `id`.
    pub(crate) fn op_of(&self, id: Word) -> Option<Op> {
        self.global(id).map(|t| t.class.opcode)
    }

    /// The result type of `id`.
    pub(crate) fn result_type(&self, id: Word) -> Option<Word> {
        self.def(id).and_then(|d| d.result_type)
    }

    /// The value of a 32-bit `OpConstant`.
    pub(crate) fn constant_u32(&self, id: Word) -> Option<u32> {
        let i = self.global(id)?;
        match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v),
            _ => None,
        }
    }

    /// (storage class, pointee) of a pointer type.
    pub(crate) fn pointer(&self, ty: Word) -> Option<(StorageClass, Word)> {
        let i = self.global(ty)?;
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::TypePointer, [Operand::StorageClass(sc), Operand::IdRef(p)]) => Some((*sc, *p)),
            _ => None,
        }
    }

    /// (storage class, pointee) of a pointer value.
    pub(crate) fn pointee(&self, ptr: Word) -> Option<(StorageClass, Word)> {
        self.result_type(ptr).and_then(|t| self.pointer(t))
    }

    /// `ty` with every array (sized or runtime) around it peeled off.
    pub(crate) fn strip_arrays(&self, mut ty: Word) -> Word {
        // Bounded: a malformed module may make types cycle.
        for _ in 0..64 {
            match self.global(ty) {
                Some(t) if matches!(t.class.opcode, Op::TypeArray | Op::TypeRuntimeArray) => {
                    ty = t.operands.first().and_then(id).unwrap_or(0)
                }
                _ => break,
            }
        }
        ty
    }

    /// The scalar type of a scalar or vector type.
    pub(crate) fn scalar_of(&self, ty: Word) -> Word {
        match self.global(ty) {
            Some(t) if t.class.opcode == Op::TypeVector => {
                t.operands.first().and_then(id).unwrap_or(ty)
            }
            _ => ty,
        }
    }

    /// How many components a scalar or vector type has.
    pub(crate) fn components(&self, ty: Word) -> u32 {
        match self.global(ty) {
            Some(t) if t.class.opcode == Op::TypeVector => match t.operands.get(1) {
                Some(Operand::LiteralBit32(n)) => *n,
                _ => 1,
            },
            _ => 1,
        }
    }

    /// (width, signed) of an integer type.
    pub(crate) fn int_type_of(&self, ty: Word) -> Option<(u32, bool)> {
        match self
            .global(ty)
            .map(|t| (t.class.opcode, t.operands.as_slice()))
        {
            Some((Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)])) => {
                Some((*w, *s != 0))
            }
            _ => None,
        }
    }

    /// The type one access-chain index selects from `ty`: a struct's
    /// member (the index must be a constant), an array's, vector's or
    /// matrix's element. Malformed chains are errors naming what is wrong.
    pub(crate) fn step(&self, ty: Word, index: Word) -> Result<Word> {
        let k = match self.op_of(ty) {
            Some(Op::TypeStruct) => self.constant_u32(index).ok_or_else(|| {
                Error::shader("malformed SPIR-V: a struct index that is not a constant")
            })?,
            _ => 0,
        };
        self.component(ty, k)
    }

    /// The type of component `k` of a composite of type `ty` (what an
    /// `OpCompositeExtract` index selects): a struct's member, an array's,
    /// vector's or matrix's element.
    pub(crate) fn component(&self, ty: Word, k: u32) -> Result<Word> {
        let t = self.global(ty).ok_or_else(|| {
            Error::shader("malformed SPIR-V: access chain through an unknown type")
        })?;
        match t.class.opcode {
            Op::TypeStruct => {
                let k = k as usize;
                t.operands.get(k).and_then(id).ok_or_else(|| {
                    Error::shader(format!(
                        "malformed SPIR-V: member {k} of a struct with {} members",
                        t.operands.len()
                    ))
                })
            }
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
                t.operands.first().and_then(id).ok_or_else(|| {
                    Error::shader("malformed SPIR-V: a composite type without an element")
                })
            }
            _ => Err(Error::shader(
                "malformed SPIR-V: access chain into a non-composite type",
            )),
        }
    }

    /// The types an access chain walks: (storage class, [(composite type,
    /// index id)], the pointee it ends at).
    pub(crate) fn chain_path(&self, chain: &Instruction) -> Result<Option<ChainPath>> {
        let Some(base) = chain.operands.first().and_then(id) else {
            return Ok(None);
        };
        let Some((class, mut ty)) = self.pointee(base) else {
            return Ok(None);
        };
        let mut path = Vec::with_capacity(chain.operands.len());
        for op in &chain.operands[1..] {
            let index = id(op).unwrap_or(0);
            path.push((ty, index));
            ty = self.step(ty, index)?;
        }
        Ok(Some((class, path, ty)))
    }

    /// The variable an image, sampled image or pointer value comes from,
    /// through loads and access chains. Bounded: malformed SPIR-V may loop.
    pub(crate) fn source_variable(&self, mut v: Word) -> Option<Word> {
        for _ in 0..64 {
            let d = self.def(v)?;
            match d.class.opcode {
                Op::Variable => return Some(v),
                // `nonuniformEXT(x)` is a copy.
                Op::Load
                | Op::SampledImage
                | Op::Image
                | Op::CopyObject
                | Op::AccessChain
                | Op::InBoundsAccessChain => v = d.operands.first().and_then(id)?,
                _ => return None,
            }
        }
        None
    }

    /// Binding numbers above every one a descriptor set uses, for the
    /// resources the passes add.
    pub(crate) fn free_bindings(&self) -> FreeBindings {
        let mut next: HashMap<u32, u64> = HashMap::default();
        for (v, _, _) in self.variables() {
            if let Some(b) = self.decoration(v, Decoration::Binding) {
                let set = self.decoration(v, Decoration::DescriptorSet).unwrap_or(0);
                let n = next.entry(set).or_insert(0);
                *n = (*n).max(u64::from(b) + 1);
            }
        }
        FreeBindings(next)
    }

    /// Specialization constant ids at or above `floor` and above every id
    /// the module uses, so that added overrides never collide.
    pub(crate) fn free_spec_ids(&self, floor: u32) -> FreeSpecIds {
        let next = self
            .module
            .annotations
            .iter()
            .filter_map(|a| match a.operands.as_slice() {
                [
                    _,
                    Operand::Decoration(Decoration::SpecId),
                    Operand::LiteralBit32(v),
                ] => Some(u64::from(*v) + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
            .max(floor.into());
        FreeSpecIds(next)
    }

    /// The debug name of `id`, if it has a non-empty one.
    pub(crate) fn name(&self, id: Word) -> Option<&str> {
        self.index().names.get(&id).map(String::as_str)
    }

    /// `id`'s name for messages: its debug name, or `%id`.
    pub(crate) fn label(&self, id: Word) -> String {
        self.name(id)
            .map_or_else(|| format!("%{id}"), str::to_string)
    }

    /// The name of member `k` of struct `ty`.
    pub(crate) fn member_name(&self, ty: Word, k: u32) -> Option<&str> {
        self.index().member_names.get(&(ty, k)).map(String::as_str)
    }

    /// Every (id, name) the module names.
    pub(crate) fn names(&self) -> impl Iterator<Item = (Word, &str)> {
        self.index().names.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// The first literal of decoration `d` on `id` (`Binding`, `SpecId`, …).
    pub(crate) fn decoration(&self, id: Word, d: Decoration) -> Option<u32> {
        self.decorations(id)
            .find(|(x, _)| *x == d)
            .map(|(_, rest)| match rest.first() {
                Some(Operand::LiteralBit32(v)) => *v,
                _ => 0,
            })
    }

    /// Whether `id` has decoration `d`.
    pub(crate) fn has_decoration(&self, id: Word, d: Decoration) -> bool {
        self.decorations(id).any(|(x, _)| x == d)
    }

    /// Every decoration of `id` with its operands.
    pub(crate) fn decorations(&self, id: Word) -> impl Iterator<Item = (Decoration, &[Operand])> {
        self.index()
            .decorations
            .get(&id)
            .into_iter()
            .flatten()
            .map(|(d, rest)| (*d, rest.as_slice()))
    }

    /// The literal of decoration `d` on member `k` of struct `ty`, if it has it.
    pub(crate) fn member_decoration(&self, ty: Word, k: u32, d: Decoration) -> Option<u32> {
        self.index()
            .member_decorations
            .get(&(ty, k))?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, rest)| match rest.first() {
                Some(Operand::LiteralBit32(v)) => *v,
                _ => 0,
            })
    }

    /// The (set, binding) a variable is decorated with (0 where missing).
    pub(crate) fn slot(&self, var: Word) -> (u32, u32) {
        (
            self.decoration(var, Decoration::DescriptorSet).unwrap_or(0),
            self.decoration(var, Decoration::Binding).unwrap_or(0),
        )
    }

    /// The `ArrayStride` of an array type.
    pub(crate) fn array_stride(&self, array: Word) -> Option<u32> {
        self.decoration(array, Decoration::ArrayStride)
    }

    /// The variable decorated as built-in `which`.
    pub(crate) fn builtin(&self, which: rspirv::spirv::BuiltIn) -> Option<Word> {
        self.module
            .annotations
            .iter()
            .find_map(|a| match a.operands.as_slice() {
                [
                    Operand::IdRef(t),
                    Operand::Decoration(Decoration::BuiltIn),
                    Operand::BuiltIn(b),
                ] if *b == which => Some(*t),
                _ => None,
            })
    }

    /// Every global variable: (id, storage class, pointee type).
    pub(crate) fn variables(&self) -> impl Iterator<Item = (Word, StorageClass, Word)> + '_ {
        self.module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|v| {
                let (class, pointee) = self.pointer(v.result_type?)?;
                Some((v.result_id?, class, pointee))
            })
    }

    /// Every instruction in every function body, in order.
    pub(crate) fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
    }

    /// The type of the value atomic `inst` reads or writes: its result's, or
    /// for `OpAtomicStore` the stored value's.
    pub(crate) fn atomic_value_type(&self, inst: &Instruction) -> Option<Word> {
        match inst.class.opcode {
            Op::AtomicStore => inst
                .operands
                .get(3)
                .and_then(id)
                .and_then(|v| self.result_type(v)),
            _ => inst.result_type,
        }
    }

    /// The id of the `OpTypeFloat 32`, if the module has one.
    pub(crate) fn float32(&self) -> Option<Word> {
        self.float_of_width(32)
    }

    /// The id of the `OpTypeFloat width`, if the module has one.
    pub(crate) fn float_of_width(&self, width: u32) -> Option<Word> {
        self.find(Op::TypeFloat, None, &[Operand::LiteralBit32(width)])
    }

    fn find(&self, op: Op, result_type: Option<Word>, operands: &[Operand]) -> Option<Word> {
        self.index()
            .interned
            .get(&Interned {
                op,
                result_type,
                operands: operands.to_vec(),
            })
            .copied()
    }

    /// The id of `OpTypeInt 32 0`, declared beforehand with [`Model::uint`]
    /// (0 when it is not).
    pub(crate) fn uint_id(&self) -> Word {
        let ops = [Operand::LiteralBit32(32), Operand::LiteralBit32(0)];
        self.find(Op::TypeInt, None, &ops).unwrap_or(0)
    }

    /// The id of `OpTypeInt width signed`, if the module has it.
    pub(crate) fn int_type_id(&self, width: u32, signed: bool) -> Option<Word> {
        let ops = [
            Operand::LiteralBit32(width),
            Operand::LiteralBit32(signed.into()),
        ];
        self.find(Op::TypeInt, None, &ops)
    }

    /// The id of `OpTypeInt 32 1`, declared beforehand with
    /// [`Model::int_type`] (0 when it is not).
    pub(crate) fn int_id(&self) -> Word {
        let ops = [Operand::LiteralBit32(32), Operand::LiteralBit32(1)];
        self.find(Op::TypeInt, None, &ops).unwrap_or(0)
    }

    /// The 32- or 64-bit constant of type `ty` with `bits`, if there is one.
    pub(crate) fn find_constant(&self, ty: Word, bits: u64) -> Option<Word> {
        let wide = self.global(ty).is_some_and(is_64_bit);
        self.find(Op::Constant, Some(ty), &[literal(bits, wide)])
    }

    // ---- Edits that keep the index -------------------------------------

    /// Sets operand `k` of the global `target` to the id `value`.
    pub(crate) fn set_operand(&mut self, target: Word, k: usize, value: Word) {
        if let Some(Loc::Global(i)) = self.index().defs.get(&target).copied() {
            let inst = &mut self.module.types_global_values[i];
            if let Some(op) = inst.operands.get_mut(k) {
                *op = Operand::IdRef(value);
            }
        }
    }

    /// Sets the result type of the global `target`.
    pub(crate) fn set_result_type(&mut self, target: Word, ty: Word) {
        if let Some(Loc::Global(i)) = self.index().defs.get(&target).copied() {
            self.module.types_global_values[i].result_type = Some(ty);
        }
    }

    /// Replaces the global `target` by `inst` (same result id).
    pub(crate) fn replace_global(&mut self, target: Word, inst: Instruction) {
        if let Some(Loc::Global(i)) = self.index().defs.get(&target).copied() {
            self.module.types_global_values[i] = inst;
            // What it interned as may have changed.
            self.index.take();
        }
    }

    /// Adds an annotation (`OpDecorate`, `OpMemberDecorate`).
    pub(crate) fn annotate(&mut self, a: Instruction) {
        if let Some(ix) = self.index.get_mut() {
            ix.add_annotation(&a);
        }
        self.module.annotations.push(a);
    }

    /// Decorates `target` with `d` and literal operands.
    pub(crate) fn decorate(&mut self, target: Word, d: Decoration, literals: &[u32]) {
        self.annotate(decorate(target, d, literals));
    }

    /// Gives `to` every decoration of `from` that `keep` keeps, with its
    /// operands.
    pub(crate) fn copy_decorations(
        &mut self,
        from: Word,
        to: Word,
        keep: impl Fn(Decoration) -> bool,
    ) {
        let copies: Vec<Instruction> = self
            .decorations(from)
            .filter(|(d, _)| keep(*d))
            .map(|(d, rest)| {
                let mut ops = vec![Operand::IdRef(to), Operand::Decoration(d)];
                ops.extend_from_slice(rest);
                Instruction::new(Op::Decorate, None, None, ops)
            })
            .collect();
        for c in copies {
            self.annotate(c);
        }
    }

    /// Decorates member `k` of struct `target` with `d` and literals.
    pub(crate) fn member_decorate(
        &mut self,
        target: Word,
        k: u32,
        d: Decoration,
        literals: &[u32],
    ) {
        let mut ops = vec![
            Operand::IdRef(target),
            Operand::LiteralBit32(k),
            Operand::Decoration(d),
        ];
        ops.extend(literals.iter().map(|l| Operand::LiteralBit32(*l)));
        self.annotate(Instruction::new(Op::MemberDecorate, None, None, ops));
    }

    /// Names `target` (`OpName`).
    pub(crate) fn set_name(&mut self, target: Word, name: impl Into<String>) {
        let n = Instruction::new(
            Op::Name,
            None,
            None,
            vec![Operand::IdRef(target), Operand::LiteralString(name.into())],
        );
        if let Some(ix) = self.index.get_mut() {
            ix.add_name(&n);
        }
        self.module.debug_names.push(n);
    }

    /// Names member `k` of struct `target` (`OpMemberName`).
    pub(crate) fn set_member_name(&mut self, target: Word, k: u32, name: impl Into<String>) {
        let n = Instruction::new(
            Op::MemberName,
            None,
            None,
            vec![
                Operand::IdRef(target),
                Operand::LiteralBit32(k),
                Operand::LiteralString(name.into()),
            ],
        );
        if let Some(ix) = self.index.get_mut() {
            ix.add_name(&n);
        }
        self.module.debug_names.push(n);
    }

    /// Lists `vars` in every entry point's interface that lists `var`
    /// (from SPIR-V 1.4 an entry point lists every global it uses): the
    /// variables that take its place.
    pub(crate) fn list_beside(&mut self, var: Word, vars: &[Word]) {
        for ep in &mut self.module_mut().entry_points {
            if ep.operands.iter().any(|o| id(o) == Some(var)) {
                ep.operands.extend(vars.iter().map(|&v| Operand::IdRef(v)));
            }
        }
    }

    /// The array type of `len` (a constant's id; `None`: runtime-sized)
    /// elements of `element`.
    pub(crate) fn array_of(&mut self, element: Word, len: Option<Word>) -> Word {
        match len {
            Some(l) => self.intern(
                Op::TypeArray,
                None,
                vec![Operand::IdRef(element), Operand::IdRef(l)],
            ),
            None => self.intern(Op::TypeRuntimeArray, None, vec![Operand::IdRef(element)]),
        }
    }

    /// Removes the global variables `dead` says, with their names,
    /// decorations and entry-point listing (nothing may use them any more).
    pub(crate) fn remove_globals(&mut self, dead: impl Fn(Word) -> bool) {
        let module = self.module_mut();
        module
            .types_global_values
            .retain(|i| !(i.class.opcode == Op::Variable && i.result_id.is_some_and(&dead)));
        let names_dead = |i: &Instruction| i.operands.first().and_then(id).is_some_and(&dead);
        module.annotations.retain(|a| !names_dead(a));
        module.debug_names.retain(|a| !names_dead(a));
        for ep in &mut module.entry_points {
            ep.operands.retain(|o| !id(o).is_some_and(&dead));
        }
    }

    /// Removes declarations of the given type opcodes that nothing uses any
    /// more (e.g. `OpTypePointer Image` once no texel pointer is left), with
    /// their names and decorations.
    pub(crate) fn remove_unused_types(&mut self, kinds: &[Op]) {
        // One count of the uses of every id, then a worklist: removing a
        // type takes one use from each id it names, which may free those
        // (a pointer, then its pointee). Types that name each other (through
        // a forward pointer) are never freed, as before.
        let module = &self.module;
        let mut uses: FxHashMap<Word, u32> = FxHashMap::default();
        let all = module
            .types_global_values
            .iter()
            .chain(module.entry_points.iter())
            .chain(module.execution_modes.iter())
            .chain(module.functions.iter().flat_map(|f| {
                f.def
                    .iter()
                    .chain(f.parameters.iter())
                    .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            }));
        for i in all {
            for r in i
                .result_type
                .into_iter()
                .chain(i.operands.iter().filter_map(id))
            {
                *uses.entry(r).or_default() += 1;
            }
        }
        let candidates: FxHashMap<Word, usize> = module
            .types_global_values
            .iter()
            .enumerate()
            .filter(|(_, i)| kinds.contains(&i.class.opcode))
            .filter_map(|(at, i)| Some((i.result_id?, at)))
            .collect();
        let mut work: Vec<Word> = candidates
            .keys()
            .copied()
            .filter(|r| !uses.contains_key(r))
            .collect();
        let mut dead: FxHashSet<Word> = FxHashSet::default();
        while let Some(r) = work.pop() {
            if !dead.insert(r) {
                continue;
            }
            let inst = &module.types_global_values[candidates[&r]];
            for named in inst
                .result_type
                .into_iter()
                .chain(inst.operands.iter().filter_map(id))
            {
                if let Some(n) = uses.get_mut(&named) {
                    *n -= 1;
                    if *n == 0 && candidates.contains_key(&named) {
                        work.push(named);
                    }
                }
            }
        }
        if !dead.is_empty() {
            self.remove_definitions(&dead.into_iter().collect::<Vec<_>>());
        }
    }

    /// Removes the globals `ids` define, with their names and decorations.
    pub(crate) fn remove_definitions(&mut self, ids: &[Word]) {
        let ids: FxHashSet<Word> = ids.iter().copied().collect();
        let module = self.module_mut();
        module
            .types_global_values
            .retain(|i| i.result_id.is_none_or(|r| !ids.contains(&r)));
        let about = |i: &Instruction| {
            i.operands
                .first()
                .and_then(id)
                .is_some_and(|t| ids.contains(&t))
        };
        module.annotations.retain(|a| !about(a));
        module.debug_names.retain(|a| !about(a));
    }

    // ---- Walking function bodies ---------------------------------------

    /// Rewrites function bodies instruction by instruction: `f` gets an
    /// [`Emit`] (the model as it was before the walk, fresh ids, constants
    /// on demand) and each instruction, and either emits what replaces it
    /// and returns `true`, or returns `false` to keep it. Returns how many
    /// were replaced.
    pub(crate) fn rewrite(
        &mut self,
        mut f: impl FnMut(&mut Emit, &Instruction) -> Result<bool>,
    ) -> Result<usize> {
        let mut constants = HashMap::default();
        let mut globals = Vec::new();
        // (function, block, instruction, what replaces it), in walk order:
        // the instructions kept are moved, not cloned, once the walk ends.
        let mut replacements: Vec<(usize, usize, usize, Vec<Instruction>)> = Vec::new();
        for (fi, func) in self.module.functions.iter().enumerate() {
            for (bi, block) in func.blocks.iter().enumerate() {
                let mut e = Emit {
                    m: self,
                    out: Vec::new(),
                    constants: &mut constants,
                    globals: &mut globals,
                };
                for (ii, inst) in block.instructions.iter().enumerate() {
                    e.out.clear();
                    if f(&mut e, inst)? {
                        replacements.push((fi, bi, ii, std::mem::take(&mut e.out)));
                    }
                }
            }
        }
        let replaced = replacements.len();
        if replacements.is_empty() && globals.is_empty() {
            return Ok(replaced);
        }
        let module = self.module_mut();
        let mut replacements = replacements.into_iter().peekable();
        while let Some(&(fi, bi, _, _)) = replacements.peek() {
            let block = &mut module.functions[fi].blocks[bi].instructions;
            let old = std::mem::take(block);
            block.reserve(old.len());
            for (ii, inst) in old.into_iter().enumerate() {
                match replacements.next_if(|r| (r.0, r.1, r.2) == (fi, bi, ii)) {
                    Some((_, _, _, new)) => block.extend(new),
                    None => block.push(inst),
                }
            }
        }
        module.types_global_values.extend(globals);
        Ok(replaced)
    }

    /// Rewrites function bodies block by block: `f` gets the model (as it
    /// was before the walk), a function's index and one of its blocks, and
    /// returns the blocks that replace it (`None` keeps it).
    pub(crate) fn rewrite_blocks(
        &mut self,
        mut f: impl FnMut(&Model, usize, &Block) -> Result<Option<Vec<Block>>>,
    ) -> Result<usize> {
        let mut changes: Vec<(usize, usize, Vec<Block>)> = Vec::new();
        for (fi, func) in self.module.functions.iter().enumerate() {
            for (bi, block) in func.blocks.iter().enumerate() {
                if let Some(new) = f(self, fi, block)? {
                    changes.push((fi, bi, new));
                }
            }
        }
        let count = changes.len();
        if count == 0 {
            return Ok(0);
        }
        let module = self.module_mut();
        // Back to front, so that earlier positions stay valid.
        for (fi, bi, new) in changes.into_iter().rev() {
            module.functions[fi].blocks.splice(bi..=bi, new);
        }
        Ok(count)
    }

    /// The functions, taken out to be edited together with fresh ids from
    /// the model; the index is dropped.
    pub(crate) fn with_functions<T>(
        &mut self,
        f: impl FnOnce(&Model, &mut Vec<Function>) -> T,
    ) -> T {
        let mut functions = std::mem::take(&mut self.module_mut().functions);
        let out = f(self, &mut functions);
        self.module_mut().functions = functions;
        out
    }

    /// Recomputes the result type of every access chain from its base and
    /// indices, after a pass retyped what they point into.
    pub(crate) fn retype_access_chains(&mut self) -> Result<()> {
        // Chains build on chains: in order, with the types already fixed.
        let mut fixed: HashMap<Word, (StorageClass, Word)> = HashMap::default();
        let mut fixes: Vec<(usize, usize, usize, StorageClass, Word)> = Vec::new();
        for (fi, f) in self.module.functions.iter().enumerate() {
            for (bi, b) in f.blocks.iter().enumerate() {
                for (ii, inst) in b.instructions.iter().enumerate() {
                    if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                        continue;
                    }
                    let base = inst.operands.first().and_then(id).unwrap_or(0);
                    let Some((class, mut ty)) =
                        fixed.get(&base).copied().or_else(|| self.pointee(base))
                    else {
                        continue;
                    };
                    for op in &inst.operands[1..] {
                        ty = self.step(ty, id(op).unwrap_or(0))?;
                    }
                    if let Some(r) = inst.result_id {
                        fixed.insert(r, (class, ty));
                    }
                    if inst.result_type.and_then(|t| self.pointer(t)) != Some((class, ty)) {
                        fixes.push((fi, bi, ii, class, ty));
                    }
                }
            }
        }
        let pointers: Vec<Word> = fixes
            .iter()
            .map(|&(_, _, _, class, ty)| self.pointer_to(class, ty))
            .collect();
        if fixes.is_empty() {
            return Ok(());
        }
        let module = self.module_mut();
        for ((fi, bi, ii, _, _), ptr) in fixes.into_iter().zip(pointers) {
            module.functions[fi].blocks[bi].instructions[ii].result_type = Some(ptr);
        }
        Ok(())
    }

    /// Puts the globals in dependency order (every id defined before it is
    /// used, a forward-declared pointer aside), keeping the order they have
    /// wherever it already is one: passes append what they add.
    fn order_globals(&mut self) -> Result<()> {
        let globals = std::mem::take(&mut self.module.types_global_values);
        let position: HashMap<Word, usize> = globals
            .iter()
            .enumerate()
            .filter_map(|(p, i)| Some((i.result_id?, p)))
            .collect();
        let forward: HashSet<Word> = globals
            .iter()
            .filter(|i| i.class.opcode == Op::TypeForwardPointer)
            .filter_map(|i| i.operands.first().and_then(id))
            .collect();
        let deps = |i: &Instruction| -> Vec<usize> {
            // Debug information (OpExtInst) may refer forward; it stays put.
            if i.class.opcode == Op::ExtInst || i.class.opcode == Op::TypeForwardPointer {
                return Vec::new();
            }
            i.result_type
                .into_iter()
                .chain(i.operands.iter().filter_map(id))
                .filter(|u| !forward.contains(u))
                .filter_map(|u| position.get(&u).copied())
                .collect()
        };
        // 0: not placed, 1: being placed, 2: placed.
        let mut state = vec![0u8; globals.len()];
        let mut order = Vec::with_capacity(globals.len());
        for start in 0..globals.len() {
            if state[start] != 0 {
                continue;
            }
            // Depth first, dependencies before dependents, without recursion.
            let mut stack = vec![(start, false)];
            while let Some((at, done)) = stack.pop() {
                if done {
                    state[at] = 2;
                    order.push(at);
                    continue;
                }
                if state[at] != 0 {
                    continue;
                }
                state[at] = 1;
                stack.push((at, true));
                for d in deps(&globals[at]).into_iter().rev() {
                    match state[d] {
                        0 => stack.push((d, false)),
                        1 if d != at => {
                            return Err(Error::Internal(format!(
                                "the passes left %{} depending on itself",
                                globals[d].result_id.unwrap_or(0)
                            )));
                        }
                        _ => {}
                    }
                }
            }
        }
        let mut slots: Vec<Option<Instruction>> = globals.into_iter().map(Some).collect();
        self.module.types_global_values =
            order.into_iter().filter_map(|p| slots[p].take()).collect();
        self.index.take();
        Ok(())
    }
}
