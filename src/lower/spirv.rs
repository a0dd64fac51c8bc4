//! Tools for editing SPIR-V in place (rspirv's data representation), shared
//! by the SPIR-V passes: id lookups, and a rewriter that keeps every
//! definition before its uses.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use crate::{Error, Result};

/// Where a retyped value sits: what points at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Site {
    /// Member `index` of struct type `id`.
    Member(Word, u32),
    /// The element type of array (or runtime array) type `id`.
    Element(Word),
    /// The pointee of global variable `id`.
    Variable(Word),
}

pub(super) fn site_anchor(site: Site) -> Word {
    match site {
        Site::Member(id, _) | Site::Element(id) | Site::Variable(id) => id,
    }
}

pub(super) fn is_atomic(op: Op) -> bool {
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

pub(super) fn all_function_instructions(module: &Module) -> impl Iterator<Item = &Instruction> {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
}

pub(super) fn id(op: &Operand) -> Option<Word> {
    match op {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

/// An instruction whose operands are all ids (`OpIAdd`, `OpPhi`,
/// `OpBranchConditional`, …).
pub(super) fn with_ids(
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

/// The result type of every id that has one (globals, parameters, instructions).
pub(super) fn result_types(module: &Module) -> HashMap<Word, Word> {
    module
        .types_global_values
        .iter()
        .chain(module.functions.iter().flat_map(|f| f.parameters.iter()))
        .chain(all_function_instructions(module))
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect()
}

/// Whether a type instruction is a 64-bit integer or float.
pub(super) fn is_64_bit(t: &Instruction) -> bool {
    matches!(t.class.opcode, Op::TypeInt | Op::TypeFloat)
        && t.operands.first() == Some(&Operand::LiteralBit32(64))
}

/// A constant's literal: 64 bits wide for a 64-bit type (SPIR-V writes a
/// literal in its type's width).
pub(super) fn literal(bits: u64, wide: bool) -> Operand {
    if wide {
        Operand::LiteralBit64(bits)
    } else {
        Operand::LiteralBit32(bits as u32)
    }
}

/// Lookup tables over a module: definitions by id.
pub(super) struct Defs {
    /// Type and constant definitions, and global variables.
    pub(super) globals: HashMap<Word, Instruction>,
    /// Access chains and other value-producing instructions in functions.
    pub(super) locals: HashMap<Word, Instruction>,
}

impl Defs {
    pub(super) fn new(module: &Module) -> Defs {
        let globals = module
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id.map(|r| (r, i.clone())))
            .collect();
        let locals = module
            .functions
            .iter()
            .flat_map(|f| {
                f.parameters
                    .iter()
                    .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            })
            .filter_map(|i| i.result_id.map(|r| (r, i.clone())))
            .collect();
        Defs { globals, locals }
    }

    pub(super) fn def(&self, id: Word) -> Option<&Instruction> {
        self.globals.get(&id).or_else(|| self.locals.get(&id))
    }

    pub(super) fn constant_u32(&self, id: Word) -> Option<u32> {
        let i = self.globals.get(&id)?;
        match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v),
            _ => None,
        }
    }

    /// `ty` with every array (sized or runtime) around it peeled off.
    pub(super) fn strip_arrays(&self, mut ty: Word) -> Word {
        while let Some(t) = self.globals.get(&ty) {
            match t.class.opcode {
                Op::TypeArray | Op::TypeRuntimeArray => {
                    ty = t.operands.first().and_then(id).unwrap_or(0)
                }
                _ => break,
            }
        }
        ty
    }

    /// (storage class, pointee) of a pointer type.
    pub(super) fn pointer(&self, ty: Word) -> Option<(StorageClass, Word)> {
        let i = self.globals.get(&ty)?;
        if i.class.opcode != Op::TypePointer {
            return None;
        }
        match (&i.operands[0], &i.operands[1]) {
            (Operand::StorageClass(sc), Operand::IdRef(p)) => Some((*sc, *p)),
            _ => None,
        }
    }
}

/// Edits a module in place, keeping definitions before their uses.
pub(super) struct Rewriter<'m> {
    pub(super) module: &'m mut Module,
}

impl<'m> Rewriter<'m> {
    pub(super) fn new(module: &'m mut Module) -> Self {
        Rewriter { module }
    }

    pub(super) fn fresh(&mut self) -> Word {
        let h = self
            .module
            .header
            .as_mut()
            .expect("a loaded module has a header");
        let id = h.bound;
        h.bound += 1;
        id
    }

    pub(super) fn position(&self, id: Word) -> Option<usize> {
        self.module
            .types_global_values
            .iter()
            .position(|i| i.result_id == Some(id))
    }

    pub(super) fn global(&self, id: Word) -> Option<&Instruction> {
        self.module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    }

    /// Inserts `inst` just before the global `before`.
    pub(super) fn insert_before(&mut self, before: Word, inst: Instruction) {
        let at = self
            .position(before)
            .unwrap_or(self.module.types_global_values.len());
        self.module.types_global_values.insert(at, inst);
    }

    pub(super) fn set_operand(&mut self, target: Word, index: usize, value: Word) {
        if let Some(i) = self
            .module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(target))
        {
            i.operands[index] = Operand::IdRef(value);
        }
    }

    pub(super) fn set_result_type(&mut self, target: Word, ty: Word) {
        if let Some(i) = self
            .module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(target))
        {
            i.result_type = Some(ty);
        }
    }

    /// The id of `OpTypeInt 32 0`, declared before `anchor` (moved there if
    /// it came later: a scalar type depends on nothing) or created.
    pub(super) fn uint_type(&mut self, anchor: Word) -> Word {
        let found = self.module.types_global_values.iter().position(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        });
        if let Some(at) = found {
            let id = self.module.types_global_values[at].result_id.unwrap_or(0);
            if self.position(anchor).is_some_and(|a| a < at) {
                let inst = self.module.types_global_values.remove(at);
                self.insert_before(anchor, inst);
            }
            return id;
        }
        let id = self.fresh();
        self.insert_before(
            anchor,
            Instruction::new(
                Op::TypeInt,
                None,
                Some(id),
                vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
            ),
        );
        id
    }

    /// The id of `OpTypeInt 32 0`, moved to or created at the start of the types.
    pub(super) fn uint_type_at_start(&mut self) -> Word {
        let first = self
            .module
            .types_global_values
            .first()
            .and_then(|i| i.result_id);
        match first {
            Some(f) => self.uint_type(f),
            None => {
                let id = self.fresh();
                self.module.types_global_values.push(Instruction::new(
                    Op::TypeInt,
                    None,
                    Some(id),
                    vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
                ));
                id
            }
        }
    }

    /// A constant of type `ty` (`OpConstant` with `bits`, or
    /// `OpConstantTrue`/`OpConstantFalse` for a bool), found or added at
    /// the end of the globals, after every type it could depend on.
    pub(super) fn constant(&mut self, ty: Word, op: Op, bits: Option<u32>) -> Word {
        let wide = self.global(ty).is_some_and(is_64_bit);
        let operands: Vec<Operand> = bits.map(|b| literal(b.into(), wide)).into_iter().collect();
        if let Some(i) =
            self.module.types_global_values.iter().find(|i| {
                i.class.opcode == op && i.result_type == Some(ty) && i.operands == operands
            })
        {
            return i.result_id.unwrap_or(0);
        }
        let id = self.fresh();
        self.module
            .types_global_values
            .push(Instruction::new(op, Some(ty), Some(id), operands));
        id
    }

    /// The id of `OpTypeBool`, created at the start of the types if missing.
    pub(super) fn bool_type(&mut self) -> Word {
        if let Some(i) = self
            .module
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeBool)
        {
            return i.result_id.unwrap_or(0);
        }
        let id = self.fresh();
        self.module
            .types_global_values
            .insert(0, Instruction::new(Op::TypeBool, None, Some(id), vec![]));
        id
    }

    /// The pointer type to `pointee` in `class`, created after `pointee` if missing.
    pub(super) fn pointer_to(&mut self, class: StorageClass, pointee: Word) -> Word {
        let found = self.module.types_global_values.iter().find(|i| {
            i.class.opcode == Op::TypePointer
                && i.operands == [Operand::StorageClass(class), Operand::IdRef(pointee)]
        });
        if let Some(i) = found {
            return i.result_id.unwrap_or(0);
        }
        let id = self.fresh();
        let at = self.position(pointee).map(|p| p + 1).unwrap_or(0);
        self.module.types_global_values.insert(
            at,
            Instruction::new(
                Op::TypePointer,
                None,
                Some(id),
                vec![Operand::StorageClass(class), Operand::IdRef(pointee)],
            ),
        );
        id
    }

    /// Recomputes the result type of every access chain from its base and indices.
    pub(super) fn retype_access_chains(&mut self) -> Result<()> {
        // Chains may build on chains: process in order, tracking result types.
        let mut result_types: HashMap<Word, Word> = HashMap::new();
        for i in &self.module.types_global_values {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                result_types.insert(r, t);
            }
        }
        let mut fixes: Vec<(usize, usize, usize, StorageClass, Word)> = Vec::new();
        {
            let defs = Defs::new(self.module);
            for (fi, f) in self.module.functions.iter().enumerate() {
                for p in &f.parameters {
                    if let (Some(r), Some(t)) = (p.result_id, p.result_type) {
                        result_types.insert(r, t);
                    }
                }
                for (bi, b) in f.blocks.iter().enumerate() {
                    for (ii, inst) in b.instructions.iter().enumerate() {
                        let (Some(r), Some(t)) = (inst.result_id, inst.result_type) else {
                            continue;
                        };
                        if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                            result_types.insert(r, t);
                            continue;
                        }
                        let base = id(&inst.operands[0]).unwrap_or(0);
                        let Some((class, mut ty)) =
                            result_types.get(&base).and_then(|t| defs.pointer(*t))
                        else {
                            result_types.insert(r, t);
                            continue;
                        };
                        for op in &inst.operands[1..] {
                            let index = id(op).unwrap_or(0);
                            let def = defs.globals.get(&ty).ok_or_else(|| {
                                Error::shader(
                                    "malformed SPIR-V: access chain through an unknown type",
                                )
                            })?;
                            ty = match def.class.opcode {
                                Op::TypeStruct => {
                                    let k = defs.constant_u32(index).unwrap_or(0) as usize;
                                    def.operands.get(k).and_then(id).ok_or_else(|| {
                                        Error::shader(format!(
                                            "malformed SPIR-V: member {k} of a struct with {} members",
                                            def.operands.len()
                                        ))
                                    })?
                                }
                                Op::TypeArray
                                | Op::TypeRuntimeArray
                                | Op::TypeVector
                                | Op::TypeMatrix => id(&def.operands[0]).unwrap_or(0),
                                _ => {
                                    return Err(Error::shader(
                                        "malformed SPIR-V: access chain into a non-composite type",
                                    ));
                                }
                            };
                        }
                        let current = defs.pointer(t);
                        if current != Some((class, ty)) {
                            fixes.push((fi, bi, ii, class, ty));
                        }
                        result_types.insert(r, t);
                    }
                }
            }
        }
        for (fi, bi, ii, class, ty) in fixes {
            let ptr = self.pointer_to(class, ty);
            self.module.functions[fi].blocks[bi].instructions[ii].result_type = Some(ptr);
        }
        Ok(())
    }
}

/// The debug name (OpName) of every id that has a non-empty one.
pub(super) fn debug_names(module: &Module) -> HashMap<Word, String> {
    module
        .debug_names
        .iter()
        .filter_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(t), Operand::LiteralString(n)]
                if i.class.opcode == Op::Name && !n.is_empty() =>
            {
                Some((*t, n.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The DescriptorSet and the Binding decorations, by decorated id.
pub(super) fn sets_and_bindings(module: &Module) -> (HashMap<Word, u32>, HashMap<Word, u32>) {
    let (mut sets, mut bindings) = (HashMap::new(), HashMap::new());
    for a in &module.annotations {
        if a.class.opcode != Op::Decorate {
            continue;
        }
        if let [
            Operand::IdRef(t),
            Operand::Decoration(d),
            Operand::LiteralBit32(v),
        ] = a.operands.as_slice()
        {
            match d {
                Decoration::DescriptorSet => {
                    sets.insert(*t, *v);
                }
                Decoration::Binding => {
                    bindings.insert(*t, *v);
                }
                _ => {}
            }
        }
    }
    (sets, bindings)
}

/// Every ArrayStride decoration, by array type.
pub(super) fn array_strides(module: &Module) -> HashMap<Word, u32> {
    module
        .annotations
        .iter()
        .filter_map(|a| match (a.class.opcode, a.operands.as_slice()) {
            (
                Op::Decorate,
                [
                    Operand::IdRef(t),
                    Operand::Decoration(Decoration::ArrayStride),
                    Operand::LiteralBit32(s),
                ],
            ) => Some((*t, *s)),
            _ => None,
        })
        .collect()
}

/// The ArrayStride decoration of `array`, if any.
pub(super) fn array_stride(module: &Module, array: Word) -> Option<u32> {
    module
        .annotations
        .iter()
        .find_map(|a| match (a.class.opcode, a.operands.as_slice()) {
            (
                Op::Decorate,
                [
                    Operand::IdRef(t),
                    Operand::Decoration(Decoration::ArrayStride),
                    Operand::LiteralBit32(s),
                ],
            ) if *t == array => Some(*s),
            _ => None,
        })
}

/// The first specialization constant id at or above `floor` that is above
/// every id the module already uses, so that added overrides never collide.
pub(super) fn next_free_spec_id(module: &Module, floor: u32) -> u32 {
    module
        .annotations
        .iter()
        .filter_map(|a| match a.operands.as_slice() {
            [
                _,
                Operand::Decoration(Decoration::SpecId),
                Operand::LiteralBit32(v),
            ] => Some(v.saturating_add(1)),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .max(floor)
}

/// Takes the next specialization constant id from `next`, or names the
/// problem when the ids are used up (a shader's own ids near u32::MAX).
pub(super) fn take_spec_id(next: &mut u32) -> Result<u32> {
    let id = *next;
    *next = next
        .checked_add(1)
        .ok_or_else(|| Error::shader("no specialization constant id is left"))?;
    Ok(id)
}

/// Binding numbers above every one a descriptor set uses, handed out one
/// by one for the resources the passes add.
pub(super) struct FreeBindings(HashMap<u32, u64>);

impl FreeBindings {
    pub(super) fn new(sets: &HashMap<Word, u32>, bindings: &HashMap<Word, u32>) -> FreeBindings {
        let mut next: HashMap<u32, u64> = HashMap::new();
        for (v, &b) in bindings {
            let n = next.entry(sets.get(v).copied().unwrap_or(0)).or_insert(0);
            *n = (*n).max(u64::from(b) + 1);
        }
        FreeBindings(next)
    }

    /// The next free binding of `set`, or an error when none is left.
    pub(super) fn take(&mut self, set: u32) -> Result<u32> {
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

/// Refuses whole-aggregate loads, stores and copies of memory that atomics
/// also use: naga gives the atomically used parts atomic types, and a plain
/// copy of a struct or array holding them cannot be expressed in WGSL.
pub(super) fn refuse_aggregate_copies_of_atomics(module: &Module) -> Result<()> {
    let defs = Defs::new(module);
    let names = debug_names(module);
    let result_type = |v: Word| defs.def(v).and_then(|d| d.result_type);
    // Every aggregate type on the access path of an atomic.
    let mut containers: std::collections::HashSet<Word> = std::collections::HashSet::new();
    for inst in all_function_instructions(module) {
        if !is_atomic(inst.class.opcode) {
            continue;
        }
        let mut ptr = inst.operands.first().and_then(id).unwrap_or(0);
        // Walk back through chains to the variable, collecting pointee types.
        for _ in 0..64 {
            let Some(def) = defs.def(ptr) else { break };
            if matches!(def.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                let base = id(&def.operands[0]).unwrap_or(0);
                let Some((_, mut ty)) = result_type(base).and_then(|t| defs.pointer(t)) else {
                    break;
                };
                for op in &def.operands[1..def.operands.len()] {
                    containers.insert(ty);
                    let Some(t) = defs.globals.get(&ty) else {
                        break;
                    };
                    ty = match t.class.opcode {
                        Op::TypeStruct => {
                            let k = id(op).and_then(|i| defs.constant_u32(i)).unwrap_or(0);
                            t.operands.get(k as usize).and_then(id).unwrap_or(0)
                        }
                        _ => t.operands.first().and_then(id).unwrap_or(0),
                    };
                }
                ptr = base;
            } else {
                break;
            }
        }
    }
    for inst in all_function_instructions(module) {
        let ptrs: Vec<Word> = match inst.class.opcode {
            Op::Load | Op::Store => inst.operands.first().and_then(id).into_iter().collect(),
            Op::CopyMemory => inst.operands.iter().take(2).filter_map(id).collect(),
            _ => continue,
        };
        for p in ptrs {
            if let Some((_, pointee)) = result_type(p).and_then(|t| defs.pointer(t))
                && containers.contains(&pointee)
            {
                let what = names
                    .get(&pointee)
                    .map(|n| format!("`{n}`"))
                    .unwrap_or_else(|| "a struct or array".into());
                return Err(Error::Unsupported(format!(
                    "a whole copy of {what}, which holds memory used atomically; WGSL cannot copy atomics as values: copy its members one by one"
                )));
            }
        }
    }
    Ok(())
}

/// Removes the global variables `dead` says, with their names, decorations
/// and entry-point listing (nothing may use them any more).
pub(super) fn remove_globals(module: &mut Module, dead: impl Fn(Word) -> bool) {
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

/// Removes declarations of the given type opcodes that nothing uses any more
/// (e.g. `OpTypePointer Image`, which naga cannot read, once the image pass
/// replaced every texel pointer), with their names and decorations.
pub(super) fn remove_unused_types(module: &mut Module, kinds: &[Op]) {
    loop {
        let mut used = std::collections::HashSet::new();
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
            used.extend(i.result_type);
            used.extend(i.operands.iter().filter_map(id));
        }
        let before = module.types_global_values.len();
        let mut removed = Vec::new();
        module.types_global_values.retain(|i| {
            let dead =
                kinds.contains(&i.class.opcode) && i.result_id.is_some_and(|r| !used.contains(&r));
            if dead {
                removed.extend(i.result_id);
            }
            !dead
        });
        module.annotations.retain(|a| {
            !a.operands
                .first()
                .and_then(id)
                .is_some_and(|t| removed.contains(&t))
        });
        module.debug_names.retain(|a| {
            !a.operands
                .first()
                .and_then(id)
                .is_some_and(|t| removed.contains(&t))
        });
        if module.types_global_values.len() == before {
            break;
        }
    }
}

/// Makes every integer atomic's value operands the type of its result.
/// glslang's OpenGL ES rules build `atomicCounterIncrement` as an
/// `OpAtomicIAdd` of a `uint` with the `int` constant 1, which SPIR-V
/// forbids and naga refuses: a constant is replaced by the same bits in the
/// result's type, any other value is bitcast first.
pub(super) fn match_atomic_operand_types(module: &mut Module) -> Result<usize> {
    let defs = Defs::new(module);
    let types = result_types(module);
    let int_type = |ty: Word| {
        defs.globals.get(&ty).and_then(|t| match t.operands[..] {
            [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]
                if t.class.opcode == Op::TypeInt =>
            {
                Some((w, s))
            }
            _ => None,
        })
    };
    // (function, block, the atomic's result id, operand, result type, value)
    let mut fixes = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            for inst in &b.instructions {
                let first_value = match inst.class.opcode {
                    Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => 4,
                    Op::AtomicExchange
                    | Op::AtomicIAdd
                    | Op::AtomicISub
                    | Op::AtomicSMin
                    | Op::AtomicUMin
                    | Op::AtomicSMax
                    | Op::AtomicUMax
                    | Op::AtomicAnd
                    | Op::AtomicOr
                    | Op::AtomicXor => 3,
                    _ => continue,
                };
                let (Some(result), Some(atomic)) = (inst.result_type, inst.result_id) else {
                    continue;
                };
                let Some(want) = int_type(result) else {
                    continue;
                };
                for (k, op) in inst.operands.iter().enumerate().skip(first_value) {
                    let Some(v) = id(op) else { continue };
                    let Some(ty) = types.get(&v).copied() else {
                        continue;
                    };
                    match int_type(ty) {
                        Some(have) if have != want && have.0 == want.0 => {
                            fixes.push((fi, bi, atomic, k, result, v));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let count = fixes.len();
    let mut rw = Rewriter::new(module);
    for (fi, bi, atomic, k, result, v) in fixes {
        let constant = defs
            .globals
            .get(&v)
            .filter(|c| c.class.opcode == Op::Constant)
            .map(|c| c.operands.clone());
        let new = match constant {
            Some(bits) => {
                let found = rw.module.types_global_values.iter().find(|i| {
                    i.class.opcode == Op::Constant
                        && i.result_type == Some(result)
                        && i.operands == bits
                });
                match found.and_then(|i| i.result_id) {
                    Some(c) => c,
                    None => {
                        let c = rw.fresh();
                        let at = rw.position(result).map_or(0, |p| p + 1);
                        rw.module.types_global_values.insert(
                            at,
                            Instruction::new(Op::Constant, Some(result), Some(c), bits),
                        );
                        c
                    }
                }
            }
            None => {
                let cast = rw.fresh();
                let block = &mut rw.module.functions[fi].blocks[bi].instructions;
                let at = block
                    .iter()
                    .position(|i| i.result_id == Some(atomic))
                    .unwrap_or(0);
                block.insert(
                    at,
                    Instruction::new(
                        Op::Bitcast,
                        Some(result),
                        Some(cast),
                        vec![Operand::IdRef(v)],
                    ),
                );
                cast
            }
        };
        if let Some(inst) = rw.module.functions[fi].blocks[bi]
            .instructions
            .iter_mut()
            .find(|i| i.result_id == Some(atomic))
        {
            inst.operands[k] = Operand::IdRef(new);
        }
    }
    Ok(count)
}

/// Refuses a module that uses an id nothing defines, naming the id and the
/// instruction: the passes and naga's reader would index past their tables.
pub(super) fn check_ids(module: &Module, name: &str) -> Result<()> {
    let all = || {
        module
            .all_inst_iter()
            .chain(
                module
                    .functions
                    .iter()
                    .flat_map(|f| f.def.iter().chain(f.end.iter())),
            )
            .chain(
                module
                    .functions
                    .iter()
                    .flat_map(|f| f.blocks.iter().filter_map(|b| b.label.as_ref())),
            )
    };
    let defined: std::collections::HashSet<Word> = all().filter_map(|i| i.result_id).collect();
    let bound = module.header.as_ref().map_or(0, |h| h.bound);
    for inst in module.all_inst_iter() {
        let used = inst
            .operands
            .iter()
            .filter_map(id)
            .chain(inst.result_type)
            .find(|u| !defined.contains(u));
        if let Some(u) = used {
            let why = if u >= bound {
                format!("past the module's id bound {bound}")
            } else {
                "which nothing defines".into()
            };
            return Err(Error::shader(format!(
                "{name}: malformed SPIR-V: Op{:?} uses %{u}, {why}",
                inst.class.opcode
            )));
        }
    }
    // Types and constants may use only what comes before them (a pointer
    // declared by OpTypeForwardPointer aside): a cycle such as
    // `%a = OpTypeArray %a %n` would make every walk over types endless.
    let globals = &module.types_global_values;
    let position: HashMap<Word, usize> = globals
        .iter()
        .enumerate()
        .filter_map(|(p, i)| Some((i.result_id?, p)))
        .collect();
    let forward: std::collections::HashSet<Word> = globals
        .iter()
        .filter(|i| i.class.opcode == Op::TypeForwardPointer)
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    // Non-semantic instructions (debug info) may refer forward; no pass
    // walks through them.
    for (p, inst) in globals
        .iter()
        .enumerate()
        .filter(|(_, i)| i.class.opcode != Op::ExtInst)
    {
        let early = inst
            .operands
            .iter()
            .filter_map(id)
            .chain(inst.result_type)
            .find(|u| position.get(u).is_some_and(|&q| q >= p) && !forward.contains(u));
        if let Some(u) = early {
            return Err(Error::shader(format!(
                "{name}: malformed SPIR-V: Op{:?} uses %{u} before it is declared",
                inst.class.opcode
            )));
        }
    }
    Ok(())
}

/// Drops `OpLine`/`OpNoLine` (debug line info, `glslangValidator -g`),
/// which naga's reader refuses and which carry no meaning.
pub(super) fn strip_debug_lines(module: &mut Module) {
    let keep = |i: &Instruction| !matches!(i.class.opcode, Op::Line | Op::NoLine);
    module.types_global_values.retain(keep);
    for f in &mut module.functions {
        for b in &mut f.blocks {
            b.instructions.retain(keep);
        }
    }
}

/// Two blocks declared at one (set, binding) alias one buffer (a raw view
/// and a typed view of the same memory, as sorters and compactors declare
/// them). WGSL binds one resource per binding, so every alias after the
/// first moves to a binding of its own above every binding the set uses; the
/// runtime binds the one buffer given to all of them. Two resources of
/// other kinds (or a uniform block with a storage buffer) at one binding are
/// refused, naming both. (OpenGL GLSL's shared numbers are the binding
/// pass's to sort.)
pub(super) fn alias_shared_bindings(module: &mut Module) -> Result<Vec<super::Alias>> {
    let (sets, bindings) = sets_and_bindings(module);
    let names = debug_names(module);
    // A block without an instance name is known by its type's name.
    let defs = Defs::new(module);
    let label = |v: Word| {
        let block = defs
            .globals
            .get(&v)
            .and_then(|var| var.result_type)
            .and_then(|p| defs.pointer(p))
            .and_then(|(_, t)| names.get(&t));
        match names.get(&v).or(block) {
            Some(n) => format!("`{n}`"),
            None => format!("%{v}"),
        }
    };
    // Buffer blocks: (storage class) of the variable, if it is one.
    let buffer_class = |v: Word| -> Option<StorageClass> {
        let (class, _) = defs
            .globals
            .get(&v)
            .and_then(|var| var.result_type)
            .and_then(|p| defs.pointer(p))?;
        matches!(class, StorageClass::StorageBuffer | StorageClass::Uniform)
            .then_some(class)
            .filter(|_| {
                // A Uniform-class variable is a block only if its type is a
                // struct (uniform buffers), never an image or sampler.
                defs.globals
                    .get(&v)
                    .and_then(|var| var.result_type)
                    .and_then(|p| defs.pointer(p))
                    .and_then(|(_, t)| defs.globals.get(&t))
                    .is_some_and(|t| t.class.opcode == Op::TypeStruct)
            })
    };
    let mut seen: HashMap<(u32, u32), Word> = HashMap::new();
    let mut vars: Vec<(Word, u32)> = bindings.iter().map(|(&v, &b)| (v, b)).collect();
    vars.sort_unstable();
    let mut free = FreeBindings::new(&sets, &bindings);
    let mut moves: Vec<(Word, u32, u32, u32)> = Vec::new();
    for (var, binding) in vars {
        let set = sets.get(&var).copied().unwrap_or(0);
        let Some(&other) = seen.get(&(set, binding)) else {
            seen.insert((set, binding), var);
            continue;
        };
        let (a, b) = (buffer_class(other), buffer_class(var));
        if a.is_none() || a != b {
            return Err(Error::Unsupported(format!(
                "{} and {} are both at set {set} binding {binding}: WebGPU binds one resource per binding, and only buffer blocks of one kind can alias one buffer; give one another binding",
                label(other),
                label(var)
            )));
        }
        moves.push((var, set, binding, free.take(set)?));
    }
    let mut aliases = Vec::new();
    for (var, set, of, to) in moves {
        for a in &mut module.annotations {
            if let [
                Operand::IdRef(t),
                Operand::Decoration(Decoration::Binding),
                Operand::LiteralBit32(v),
            ] = a.operands.as_mut_slice()
                && *t == var
            {
                *v = to;
            }
        }
        aliases.push(super::Alias {
            group: set,
            binding: to,
            of,
        });
    }
    Ok(aliases)
}

/// Refuses a storage image declared without a format qualifier, naming it:
/// WGSL storage textures always have one.
pub(super) fn refuse_storage_images_without_format(module: &Module) -> Result<()> {
    let defs = Defs::new(module);
    let names = debug_names(module);
    for v in &module.types_global_values {
        if v.class.opcode != Op::Variable {
            continue;
        }
        let Some((_, ty)) = v.result_type.and_then(|p| defs.pointer(p)) else {
            continue;
        };
        let Some(t) = defs.globals.get(&defs.strip_arrays(ty)) else {
            continue;
        };
        // Operands: sampled type, Dim, Depth, Arrayed, MS, Sampled, Format.
        let storage = t.operands.get(5) == Some(&Operand::LiteralBit32(2));
        let unknown = matches!(
            t.operands.get(6),
            Some(Operand::ImageFormat(rspirv::spirv::ImageFormat::Unknown))
        );
        if t.class.opcode == Op::TypeImage && storage && unknown {
            return Err(Error::Unsupported(format!(
                "the storage image `{}` has no format qualifier (e.g. layout(rgba8)): WGSL storage textures need one",
                v.result_id
                    .and_then(|r| names.get(&r))
                    .map_or("?", String::as_str)
            )));
        }
    }
    Ok(())
}

/// Refuses a matrix with two rows laid out with a 16-byte column stride
/// (std140's `mat2`, `mat3x2`, `mat4x2`, a loose `uniform mat2` among
/// them), naming the member: naga's reader cannot take that stride.
pub(super) fn refuse_two_row_matrices_with_wide_columns(module: &Module) -> Result<()> {
    let defs = Defs::new(module);
    for a in &module.annotations {
        let [
            Operand::IdRef(s),
            Operand::LiteralBit32(k),
            Operand::Decoration(Decoration::MatrixStride),
            Operand::LiteralBit32(stride),
        ] = a.operands.as_slice()
        else {
            continue;
        };
        let rows = defs
            .globals
            .get(s)
            .and_then(|st| st.operands.get(*k as usize))
            .and_then(id)
            // Through arrays of matrices.
            .map(|t| defs.strip_arrays(t))
            .and_then(|m| defs.globals.get(&m))
            .filter(|m| m.class.opcode == Op::TypeMatrix)
            .and_then(|m| m.operands.first().and_then(id))
            .and_then(|col| defs.globals.get(&col))
            .and_then(|col| match col.operands.get(1) {
                Some(Operand::LiteralBit32(n)) => Some(*n),
                _ => None,
            });
        if rows == Some(2) && *stride > 8 {
            let member = module
                .debug_names
                .iter()
                .find_map(|n| match n.operands.as_slice() {
                    [
                        Operand::IdRef(t),
                        Operand::LiteralBit32(m),
                        Operand::LiteralString(name),
                    ] if t == s && m == k && n.class.opcode == Op::MemberName => {
                        Some(name.as_str())
                    }
                    _ => None,
                });
            return Err(Error::Unsupported(format!(
                "`{}` is a matrix with two rows laid out with a {stride}-byte column stride (std140's mat2, mat3x2, mat4x2), which naga cannot read: use vec4 columns or a std430 block",
                member.unwrap_or("?")
            )));
        }
    }
    Ok(())
}
