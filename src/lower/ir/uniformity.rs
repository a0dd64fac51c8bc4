//! IR pass: barriers only where WGSL's uniformity analysis allows them.
//!
//! GLSL's memory-only barriers (`memoryBarrier()`, `memoryBarrierBuffer()`,
//! `memoryBarrierShared()`, `memoryBarrierImage()`, `groupMemoryBarrier()`)
//! are legal in divergent code, but WGSL has no memory-only barrier: naga
//! writes them as `storageBarrier()`/`workgroupBarrier()`, which WGSL allows
//! only in uniform control flow (Chrome's WebGPU rejects the module
//! otherwise, and it is undefined behaviour on Vulkan). This pass runs a
//! conservative form of WGSL's uniformity analysis over the module:
//!
//! - uniform values: constants, overrides, `gl_WorkGroupID`,
//!   `gl_NumWorkGroups`, loads from uniform blocks, read-only buffers and
//!   function-local variables only ever given uniform values in uniform
//!   control flow, `workgroupUniformLoad`, the results of functions that
//!   return only such values in uniform control flow, called in uniform
//!   control flow (as WGSL's analysis has it, per call: a getter some
//!   other call makes from divergent code still gives a uniform call a
//!   uniform value), and what is computed from them alone;
//! - everything else is non-uniform (invocation ids, read-write buffers,
//!   `shared` memory, private variables, as WGSL has it: the uniform ones
//!   become locals first, [`super::privates`]; atomics, other function
//!   results);
//! - control flow is uniform inside a branch or loop on a uniform value,
//!   until a `break`, `continue` or `return` in non-uniform control flow
//!   (after which the rest of the loop, or the function, is not); after a
//!   loop it is as uniform as before it.
//!
//! A memory-only barrier in non-uniform control flow is dropped, with a
//! warning: WGSL atomics stay atomic, but the ordering the barrier gave is
//! lost. A control barrier (`barrier()`) in control flow the analysis cannot
//! prove uniform is kept (GLSL requires it to be dynamically uniform, and
//! native backends run it) and warned about: browsers may reject that WGSL.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use naga::{
    AddressSpace, Binding, Block, BuiltIn, Expression, Function, Handle, Module, Statement,
    StorageAccess,
};

use crate::lower::ir::{Which, pointer_root, visit_blocks};
use crate::lower::spirv::compat::Warning;

/// What one function's callers say about it.
#[derive(Clone)]
struct Callers {
    /// Every call is in uniform control flow.
    uniform: bool,
    /// Argument `i` is uniform at every call.
    arguments: Vec<bool>,
}

struct Analysis<'m> {
    module: &'m Module,
    callers: Vec<Callers>,
    /// Per function, which of its arguments are pointers.
    pointer_arguments: Vec<Vec<bool>>,
    /// Per function, which pointer arguments it may store through (or pass
    /// on to a call): only those make the caller's memory non-uniform.
    writes_through: Vec<Vec<bool>>,
    /// (function key, local variable) given a non-uniform value or given
    /// one in non-uniform control flow.
    tainted_local: HashSet<(usize, Handle<naga::LocalVariable>)>,
    /// (function key, pointer argument) stored through with a non-uniform
    /// value or in non-uniform control flow.
    tainted_arguments: HashSet<(usize, u32)>,
    /// Per function, whether every value it returns is uniform, returned
    /// in uniform control flow, when it is called in uniform control flow
    /// (as WGSL tags a function's return value): a helper that some call
    /// makes in divergent code still returns a uniform value to a call in
    /// uniform code.
    results: Vec<bool>,
    /// (function key, call result) of calls made in non-uniform control
    /// flow, whose results are not uniform whatever the callee returns.
    divergent_results: HashSet<(usize, Handle<Expression>)>,
    /// Walking a function as if called in uniform control flow, to find
    /// [`Analysis::results`] alone: nothing else is recorded.
    results_only: bool,
    changed: bool,
    /// Barrier statements found in non-uniform control flow, by address,
    /// and whether each is a control barrier.
    non_uniform: HashMap<usize, bool>,
    /// `Emit` statements in uniform control flow, by address.
    uniform_emits: HashSet<usize>,
    /// `If`s and loops reached in uniform control flow whose condition
    /// (a loop's `break_if`) is not uniform, by address.
    non_uniform_conditions: HashSet<usize>,
}

/// How a block ended, for the statements after it.
#[derive(Clone, Copy, Default)]
struct Exit {
    /// A `break` in non-uniform control flow.
    broke: bool,
    /// A `continue` in non-uniform control flow.
    continued: bool,
    /// A `return` (or `discard`) in non-uniform control flow.
    returned: bool,
}

impl<'m> Analysis<'m> {
    fn function(&self, which: Which) -> &'m Function {
        which.of(self.module)
    }

    /// Whether each expression of the function is uniform.
    fn expressions(&self, which: Which) -> Vec<bool> {
        let f = self.function(which);
        let key = which.key(self.module);
        let mut u: Vec<bool> = Vec::with_capacity(f.expressions.len());
        for (handle, e) in f.expressions.iter() {
            let at = |h: Handle<Expression>| u.get(h.index()).copied().unwrap_or(false);
            let value = match *e {
                Expression::Literal(_)
                | Expression::Constant(_)
                | Expression::Override(_)
                | Expression::ZeroValue(_)
                | Expression::GlobalVariable(_)
                | Expression::LocalVariable(_)
                | Expression::WorkGroupUniformLoadResult { .. } => true,
                Expression::FunctionArgument(i) => match which {
                    Which::Entry(_) => matches!(
                        f.arguments.get(i as usize).and_then(|a| a.binding.as_ref()),
                        Some(Binding::BuiltIn(
                            BuiltIn::WorkGroupId | BuiltIn::NumWorkGroups
                        ))
                    ),
                    Which::Function(h) => self.callers[h.index()]
                        .arguments
                        .get(i as usize)
                        .copied()
                        .unwrap_or(false),
                },
                Expression::Access { base, index } => at(base) && at(index),
                Expression::AccessIndex { base, .. } => at(base),
                Expression::Splat { value, .. } => at(value),
                Expression::Swizzle { vector, .. } => at(vector),
                Expression::Compose { ref components, .. } => components.iter().all(|&c| at(c)),
                Expression::Load { pointer } => at(pointer) && self.uniform_memory(f, key, pointer),
                Expression::Unary { expr, .. } | Expression::As { expr, .. } => at(expr),
                Expression::Relational { argument, .. } => at(argument),
                Expression::Binary { left, right, .. } => at(left) && at(right),
                Expression::Select {
                    condition,
                    accept,
                    reject,
                } => at(condition) && at(accept) && at(reject),
                Expression::Math {
                    arg,
                    arg1,
                    arg2,
                    arg3,
                    ..
                } => at(arg) && [arg1, arg2, arg3].into_iter().flatten().all(at),
                Expression::ArrayLength(e) => at(e),
                Expression::CallResult(h) => {
                    self.results[h.index()] && !self.divergent_results.contains(&(key, handle))
                }
                Expression::ImageQuery { image, .. } => at(image),
                _ => false,
            };
            u.push(value);
        }
        u
    }

    /// Whether memory behind `pointer` holds uniform values.
    fn uniform_memory(&self, f: &Function, key: usize, pointer: Handle<Expression>) -> bool {
        match *pointer_root(f, pointer) {
            Expression::GlobalVariable(g) => match self.module.global_variables[g].space {
                AddressSpace::Uniform | AddressSpace::Handle | AddressSpace::Immediate => true,
                AddressSpace::Storage { access } => !access.contains(StorageAccess::STORE),
                // WGSL counts every private read as non-uniform (the
                // uniform ones became locals: `privates`).
                _ => false,
            },
            Expression::LocalVariable(l) => !self.tainted_local.contains(&(key, l)),
            // A pointer argument: what every caller's memory behind it held
            // (the function's own stores through it are the callers' taint).
            // (Entry points take no pointers; `key` is a function's index.)
            Expression::FunctionArgument(i) => {
                !self.tainted_arguments.contains(&(key, i))
                    && self
                        .callers
                        .get(key)
                        .and_then(|c| c.arguments.get(i as usize))
                        .copied()
                        .unwrap_or(false)
            }
            _ => false,
        }
    }

    /// Marks the variable behind `pointer` as holding non-uniform values.
    fn taint(&mut self, f: &Function, key: usize, pointer: Handle<Expression>) {
        if self.results_only {
            return;
        }
        let fresh = match *pointer_root(f, pointer) {
            Expression::LocalVariable(l) => self.tainted_local.insert((key, l)),
            Expression::FunctionArgument(i) => self.tainted_arguments.insert((key, i)),
            _ => false,
        };
        self.changed |= fresh;
    }

    fn run(&mut self, which: Which, uniform: bool) {
        let u = self.expressions(which);
        let f = self.function(which);
        let key = which.key(self.module);
        if let Which::Function(_) = which {
            self.results_only = true;
            self.block(which, f, key, &u, &f.body, true);
            self.results_only = false;
        }
        self.block(which, f, key, &u, &f.body, uniform);
    }

    fn block(
        &mut self,
        which: Which,
        f: &Function,
        key: usize,
        u: &[bool],
        block: &Block,
        mut cf: bool,
    ) -> Exit {
        let at = |h: Handle<Expression>| u.get(h.index()).copied().unwrap_or(false);
        let mut exit = Exit::default();
        for st in block.iter() {
            match *st {
                Statement::Block(ref b) => {
                    let e = self.block(which, f, key, u, b, cf);
                    exit = merge(exit, e);
                }
                Statement::If {
                    condition,
                    ref accept,
                    ref reject,
                } => {
                    let inner = cf && at(condition);
                    if cf && !inner && !self.results_only {
                        self.non_uniform_conditions
                            .insert(st as *const Statement as usize);
                    }
                    let a = self.block(which, f, key, u, accept, inner);
                    let r = self.block(which, f, key, u, reject, inner);
                    exit = merge(exit, merge(a, r));
                }
                Statement::Switch {
                    selector,
                    ref cases,
                } => {
                    let inner = cf && at(selector);
                    for c in cases {
                        let mut e = self.block(which, f, key, u, &c.body, inner);
                        // A break leaves the switch, which joins again.
                        e.broke = false;
                        exit = merge(exit, e);
                    }
                }
                Statement::Loop {
                    ref body,
                    ref continuing,
                    break_if,
                } => {
                    let mut e = self.loop_body(which, f, key, u, body, continuing, cf);
                    let break_uniform = break_if.is_none_or(at);
                    if cf && !break_uniform && !self.results_only {
                        self.non_uniform_conditions
                            .insert(st as *const Statement as usize);
                    }
                    if cf && (e.broke || e.continued || !break_uniform) {
                        // Later iterations diverge: the whole loop is not uniform.
                        e = self.loop_body(which, f, key, u, body, continuing, false);
                    }
                    // Invocations that left early wait at the loop's end:
                    // after it, control flow is as uniform as before.
                    exit.returned |= e.returned;
                }
                Statement::Break => exit.broke |= !cf,
                Statement::Continue => exit.continued |= !cf,
                Statement::Return { value } => {
                    exit.returned |= !cf;
                    let uniform = cf && value.is_none_or(at);
                    if let Which::Function(h) = which
                        && self.results_only
                        && !uniform
                        && self.results[h.index()]
                    {
                        self.results[h.index()] = false;
                        self.changed = true;
                    }
                }
                Statement::Kill => exit.returned |= !cf,
                _ if self.results_only => {}
                Statement::ControlBarrier(_) | Statement::MemoryBarrier(_) if !cf => {
                    self.non_uniform.insert(
                        st as *const Statement as usize,
                        matches!(st, Statement::ControlBarrier(_)),
                    );
                }
                Statement::Emit(_) if cf => {
                    self.uniform_emits.insert(st as *const Statement as usize);
                }
                Statement::Store { pointer, value } if !cf || !at(value) || !at(pointer) => {
                    self.taint(f, key, pointer);
                }
                Statement::Call {
                    function,
                    ref arguments,
                    result,
                } => {
                    if let Some(r) = result
                        && !cf
                    {
                        self.changed |= self.divergent_results.insert((key, r));
                    }
                    let c = &mut self.callers[function.index()];
                    let mut changed = false;
                    if c.uniform && !cf {
                        c.uniform = false;
                        changed = true;
                    }
                    let pointers = &self.pointer_arguments[function.index()];
                    let uniform: Vec<bool> = arguments
                        .iter()
                        .zip(pointers)
                        .map(|(&a, &p)| at(a) && (!p || self.uniform_memory(f, key, a)))
                        .collect();
                    let c = &mut self.callers[function.index()];
                    for (i, &u) in uniform.iter().enumerate() {
                        if c.arguments.get(i).copied().unwrap_or(false) && !u {
                            c.arguments[i] = false;
                            changed = true;
                        }
                    }
                    self.changed |= changed;
                    // The callee may store anything through the pointer
                    // arguments it writes through.
                    for (i, &a) in arguments.iter().enumerate() {
                        let written = self.writes_through[function.index()]
                            .get(i)
                            .copied()
                            .unwrap_or(true);
                        let pointer = self.pointer_arguments[function.index()]
                            .get(i)
                            .copied()
                            .unwrap_or(false);
                        if pointer && written {
                            self.taint(f, key, a);
                        }
                    }
                }
                _ => {}
            }
            // After a divergent exit, the rest of the block is divergent.
            if exit.broke || exit.continued || exit.returned {
                cf = false;
            }
        }
        exit
    }

    #[allow(clippy::too_many_arguments)]
    fn loop_body(
        &mut self,
        which: Which,
        f: &Function,
        key: usize,
        u: &[bool],
        body: &Block,
        continuing: &Block,
        cf: bool,
    ) -> Exit {
        let b = self.block(which, f, key, u, body, cf);
        let cf_continuing = cf && !b.broke && !b.continued && !b.returned;
        let c = self.block(which, f, key, u, continuing, cf_continuing);
        merge(b, c)
    }
}

/// The argument a pointer expression of `f` points into, if one.
fn root_argument(f: &Function, pointer: Handle<Expression>) -> Option<u32> {
    match *pointer_root(f, pointer) {
        Expression::FunctionArgument(i) => Some(i),
        _ => None,
    }
}

/// The arguments of `f` it stores through (or passes on to a call, which
/// may).
fn stores_through(f: &Function) -> HashSet<u32> {
    let mut out = HashSet::default();
    crate::lower::ir::visit_blocks_ref(&f.body, &mut |b| {
        for st in b.iter() {
            match *st {
                Statement::Store { pointer, .. }
                | Statement::Atomic { pointer, .. }
                | Statement::WorkGroupUniformLoad { pointer, .. } => {
                    out.extend(root_argument(f, pointer));
                }
                Statement::Call { ref arguments, .. } => {
                    out.extend(arguments.iter().filter_map(|&a| root_argument(f, a)));
                }
                _ => {}
            }
        }
    });
    out
}

/// For each argument of `f`, whether `f` may store through it.
fn writes_through(f: &Function) -> Vec<bool> {
    let written = stores_through(f);
    (0..f.arguments.len() as u32)
        .map(|i| written.contains(&i))
        .collect()
}

fn merge(a: Exit, b: Exit) -> Exit {
    Exit {
        broke: a.broke || b.broke,
        continued: a.continued || b.continued,
        returned: a.returned || b.returned,
    }
}

/// What the analysis found, by statement address in the module analysed.
struct Found {
    /// Barriers in non-uniform control flow: whether each is a control barrier.
    non_uniform: HashMap<usize, bool>,
    /// How many of them are control barriers.
    control: usize,
    /// `Emit` statements in uniform control flow.
    uniform_emits: HashSet<usize>,
    /// `If`s and loops in uniform control flow on a non-uniform condition.
    non_uniform_conditions: HashSet<usize>,
}

/// Runs the analysis to its fixed point; `None` when there is none within
/// the bound (then nothing is proved).
fn analyze(module: &Module) -> Option<Found> {
    let mut a = Analysis {
        module,
        callers: module
            .functions
            .iter()
            .map(|(_, f)| Callers {
                uniform: true,
                arguments: vec![true; f.arguments.len()],
            })
            .collect(),
        pointer_arguments: module
            .functions
            .iter()
            .map(|(_, f)| {
                f.arguments
                    .iter()
                    .map(|a| {
                        matches!(
                            module.types[a.ty].inner,
                            naga::TypeInner::Pointer { .. } | naga::TypeInner::ValuePointer { .. }
                        )
                    })
                    .collect()
            })
            .collect(),
        writes_through: module
            .functions
            .iter()
            .map(|(_, f)| writes_through(f))
            .collect(),
        tainted_local: HashSet::default(),
        tainted_arguments: HashSet::default(),
        results: vec![true; module.functions.len()],
        divergent_results: HashSet::default(),
        results_only: false,
        changed: true,
        non_uniform: HashMap::default(),
        uniform_emits: HashSet::default(),
        non_uniform_conditions: HashSet::default(),
    };
    // Variables only get tainted and callers only lose uniformity: a fixed
    // point comes within a bounded number of rounds.
    let mut rounds = 0;
    while a.changed && rounds < 64 {
        a.changed = false;
        a.non_uniform.clear();
        a.uniform_emits.clear();
        a.non_uniform_conditions.clear();
        for i in 0..module.entry_points.len() {
            a.run(Which::Entry(i), true);
        }
        // Callers come after their callees in the arena.
        let handles: Vec<Handle<Function>> = module.functions.iter().map(|(h, _)| h).collect();
        for &h in handles.iter().rev() {
            let uniform = a.callers[h.index()].uniform;
            a.run(Which::Function(h), uniform);
        }
        rounds += 1;
    }
    if a.changed {
        return None;
    }
    let control = a.non_uniform.values().filter(|&&c| c).count();
    Some(Found {
        non_uniform: a.non_uniform,
        control,
        uniform_emits: a.uniform_emits,
        non_uniform_conditions: a.non_uniform_conditions,
    })
}

/// `module` as `change` leaves a copy of it (saying whether it changed
/// anything), where that leaves fewer control barriers non-uniform than
/// `found` counts; `found` then is the copy's.
fn keep_if_fewer(module: &mut Module, found: &mut Found, change: impl FnOnce(&mut Module) -> bool) {
    if found.control == 0 {
        return;
    }
    let mut candidate = module.clone();
    if change(&mut candidate)
        && let Some(after) = analyze(&candidate)
        && after.control < found.control
    {
        *module = candidate;
        *found = after;
    }
}

/// Every barrier statement in source order (a statement before the blocks
/// it holds), by address, with whether it is a memory-only barrier.
fn barriers_in_order(block: &Block, out: &mut Vec<(usize, bool)>) {
    for st in block.iter() {
        match st {
            Statement::MemoryBarrier(_) => out.push((st as *const Statement as usize, true)),
            Statement::ControlBarrier(_) => out.push((st as *const Statement as usize, false)),
            Statement::Block(b) => barriers_in_order(b, out),
            Statement::If { accept, reject, .. } => {
                barriers_in_order(accept, out);
                barriers_in_order(reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    barriers_in_order(&c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                barriers_in_order(body, out);
                barriers_in_order(continuing, out);
            }
            _ => {}
        }
    }
}

/// Removes memory-only barriers in non-uniform control flow; returns the
/// warnings (one per kind) for what it removed and for control barriers it
/// could not prove uniform.
///
/// Before that, a control barrier under a branch on `shared` memory (a flag
/// one invocation set: `if (s_last != 0u) { …; barrier(); }`) is what WGSL's
/// `workgroupUniformLoad` is for: loads of non-atomic `shared` scalars (or
/// elements at a constant index) in uniform control flow become
/// `workgroupUniformLoad`s when that makes some control barrier uniform.
pub fn barriers_in_uniform_control_flow(module: &mut Module) -> Vec<Warning> {
    let Some(mut found) = analyze(module) else {
        return Vec::new();
    };
    // Early returns before a barrier become predication, and shared flags
    // are read with workgroupUniformLoad, each where it makes some control
    // barrier uniform.
    keep_if_fewer(module, &mut found, |c| {
        super::predicate::early_returns(c) > 0 && crate::front::validate(c, None, "").is_ok()
    });
    keep_if_fewer(module, &mut found, |c| {
        analyze(c).is_some_and(|before| uniform_workgroup_loads(c, &before.uniform_emits) > 0)
    });
    // What still decides whether a barrier is reached takes the value the
    // workgroup agrees on, outermost constructs first: each round makes
    // the next level in uniform.
    // A level converted may leave the count as it was until the levels
    // inside it are: the rounds are kept together, where they end with
    // fewer barriers the analysis cannot prove uniform.
    keep_if_fewer(module, &mut found, |c| {
        let mut any = false;
        for _ in 0..16 {
            let Some(a) = analyze(c) else { break };
            if a.control == 0 || uniform_conditions(c, &a.non_uniform_conditions) == 0 {
                break;
            }
            any = true;
        }
        any
    });
    let non_uniform = found.non_uniform;
    if non_uniform.is_empty() {
        return Vec::new();
    }
    // Which barrier of its kind, in source order, each warning is about:
    // the line found for it is that occurrence's.
    let mut order = Vec::new();
    for (_, f) in module.functions.iter() {
        barriers_in_order(&f.body, &mut order);
    }
    for ep in module.entry_points.iter() {
        barriers_in_order(&ep.function.body, &mut order);
    }
    let nth = |memory: bool| {
        order
            .iter()
            .filter(|(_, m)| *m == memory)
            .position(|(p, _)| non_uniform.contains_key(p))
            .unwrap_or(0)
    };
    let (first_dropped, first_kept) = (nth(true), nth(false));
    let (mut dropped, mut kept) = (0, 0);
    let mut strip = |block: &mut Block| {
        let remove: Vec<usize> = block
            .iter()
            .enumerate()
            .filter(|(_, st)| non_uniform.contains_key(&(*st as *const Statement as usize)))
            .filter_map(|(i, st)| match st {
                Statement::MemoryBarrier(_) => Some(i),
                _ => {
                    kept += 1;
                    None
                }
            })
            .collect();
        for &i in remove.iter().rev() {
            block.cull(i..i + 1);
            dropped += 1;
        }
    };
    for (_, f) in module.functions.iter_mut() {
        visit_blocks(&mut f.body, &mut strip);
    }
    for ep in module.entry_points.iter_mut() {
        visit_blocks(&mut ep.function.body, &mut strip);
    }
    let mut warnings = Vec::new();
    if dropped > 0 {
        warnings.push(Warning::nth(
            first_dropped,
            "a memory barrier (memoryBarrier*(), groupMemoryBarrier()) in non-uniform control flow is dropped: WGSL has barriers only for uniform control flow, so the ordering it gave is lost (its atomics stay atomic)",
            &[
                "memoryBarrierBuffer",
                "memoryBarrierShared",
                "memoryBarrierImage",
                "memoryBarrier",
                "groupMemoryBarrier",
            ],
        ));
    }
    if kept > 0 {
        warnings.push(Warning::nth(first_kept, NON_UNIFORM_BARRIER, &["barrier"]));
    }
    warnings
}

/// The warning for a control barrier kept where the analysis cannot prove
/// it uniform; for the WebGPU target it is an error instead.
pub(crate) const NON_UNIFORM_BARRIER: &str = "barrier() in control flow that WGSL's uniformity analysis cannot prove uniform: native backends run it, but browsers' WebGPU may reject the WGSL; branch on uniform values (uniform blocks, read-only buffers, workgroup ids, shared flags read in uniform control flow) around barriers";

/// Makes the eligible loads in the uniform `Emit` statements (addresses in
/// `module`) `workgroupUniformLoad`s; returns how many.
fn uniform_workgroup_loads(module: &mut Module, uniform_emits: &HashSet<usize>) -> usize {
    let mut converted = 0;
    let globals = &module.global_variables;
    let types = &module.types;
    let convert = |f: &mut Function, converted: &mut usize| {
        // The loaded type of an eligible pointer: a whole non-atomic scalar
        // or vector `shared` variable, or an element at a constant index.
        let eligible = |f: &Function, h: Handle<Expression>| -> Option<Handle<naga::Type>> {
            let Expression::Load { pointer } = f.expressions[h] else {
                return None;
            };
            let ty = match f.expressions[pointer] {
                Expression::GlobalVariable(g) if globals[g].space == AddressSpace::WorkGroup => {
                    globals[g].ty
                }
                Expression::AccessIndex { base, .. } => match f.expressions[base] {
                    Expression::GlobalVariable(g)
                        if globals[g].space == AddressSpace::WorkGroup =>
                    {
                        match types[globals[g].ty].inner {
                            naga::TypeInner::Array { base, .. } => base,
                            _ => return None,
                        }
                    }
                    _ => return None,
                },
                _ => return None,
            };
            matches!(
                types[ty].inner,
                naga::TypeInner::Scalar(_) | naga::TypeInner::Vector { .. }
            )
            .then_some(ty)
        };
        // The body comes out so that the rewrite can edit the expressions
        // (its statements' addresses stay: their buffers do not move).
        let mut body = std::mem::take(&mut f.body);
        let mut rewrite = |block: &mut Block| {
            let plan: Vec<bool> = block
                .iter()
                .map(|st| {
                    matches!(st, Statement::Emit(_))
                        && uniform_emits.contains(&(st as *const Statement as usize))
                })
                .collect();
            if !plan.contains(&true) {
                return;
            }
            let old = std::mem::take(block);
            for ((st, span), uniform) in old.span_into_iter().zip(plan) {
                let Statement::Emit(ref range) = st else {
                    block.push(st, span);
                    continue;
                };
                if !uniform {
                    block.push(st, span);
                    continue;
                }
                let bounds = range.index_range();
                let mut start = bounds.start;
                for h in range.clone() {
                    let Some(ty) = eligible(f, h) else { continue };
                    let Expression::Load { pointer } = f.expressions[h] else {
                        continue;
                    };
                    let at = h.index() as u32;
                    if start < at {
                        block.push(
                            Statement::Emit(naga::Range::from_index_range(
                                start..at,
                                &f.expressions,
                            )),
                            span,
                        );
                    }
                    f.expressions[h] = Expression::WorkGroupUniformLoadResult { ty };
                    block.push(Statement::WorkGroupUniformLoad { pointer, result: h }, span);
                    start = at + 1;
                    *converted += 1;
                }
                if start < bounds.end {
                    block.push(
                        Statement::Emit(naga::Range::from_index_range(
                            start..bounds.end,
                            &f.expressions,
                        )),
                        span,
                    );
                }
            }
        };
        visit_blocks(&mut body, &mut rewrite);
        f.body = body;
    };
    for (_, f) in module.functions.iter_mut() {
        convert(f, &mut converted);
    }
    for ep in module.entry_points.iter_mut() {
        convert(&mut ep.function, &mut converted);
    }
    converted
}

/// Whether `block` reaches a control barrier: `barrier()`, a
/// `workgroupUniformLoad`, or a call to a function in `reaching`.
fn reaches_barrier(block: &Block, reaching: &[bool]) -> bool {
    block.iter().any(|st| match st {
        Statement::ControlBarrier(_) | Statement::WorkGroupUniformLoad { .. } => true,
        Statement::Call { function, .. } => reaching[function.index()],
        Statement::Block(b) => reaches_barrier(b, reaching),
        Statement::If { accept, reject, .. } => {
            reaches_barrier(accept, reaching) || reaches_barrier(reject, reaching)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| reaches_barrier(&c.body, reaching)),
        Statement::Loop {
            body, continuing, ..
        } => reaches_barrier(body, reaching) || reaches_barrier(continuing, reaching),
        _ => false,
    })
}

/// Whether `block` leaves the loop around it or its iteration (`break`,
/// `continue`; a `break` inside a `switch` leaves the switch only).
fn leaves_iteration(block: &Block, in_switch: bool) -> bool {
    block.iter().any(|st| match st {
        Statement::Break => !in_switch,
        Statement::Continue => true,
        Statement::Block(b) => leaves_iteration(b, in_switch),
        Statement::If { accept, reject, .. } => {
            leaves_iteration(accept, in_switch) || leaves_iteration(reject, in_switch)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| leaves_iteration(&c.body, true)),
        _ => false,
    })
}

/// The workgroup variable through which a condition's value is shared.
const SHARED_CONDITION: &str = "atomport_uniform_condition";

/// GLSL requires every invocation of a workgroup to reach each `barrier()`
/// together, so every condition deciding whether one is reached (a branch
/// around it, a loop's exit or `break`/`continue` in a loop that holds one)
/// has one value across the workgroup in a valid program, though WGSL
/// cannot prove it (a count read from a buffer, a ballot merged in shared
/// memory). Each such construct in `candidates` (reached in uniform
/// control flow) gets that value through a workgroup variable: every
/// invocation stores it (all the same value), and `workgroupUniformLoad`
/// reads it back, which WGSL knows uniform. No valid program's results
/// change. Returns how many conditions were converted.
fn uniform_conditions(module: &mut Module, candidates: &HashSet<usize>) -> usize {
    if candidates.is_empty() {
        return 0;
    }
    // Which functions reach a barrier (callees come first in the arena).
    let mut reaching = vec![false; module.functions.len()];
    for (h, f) in module.functions.iter() {
        reaching[h.index()] = reaches_barrier(&f.body, &reaching);
    }
    let u32_ty = module.types.insert(
        naga::Type {
            name: None,
            inner: naga::TypeInner::Scalar(naga::Scalar::U32),
        },
        naga::Span::UNDEFINED,
    );
    let existing = module
        .global_variables
        .iter()
        .find(|(_, g)| g.name.as_deref() == Some(SHARED_CONDITION))
        .map(|(h, _)| h);
    let var = match existing {
        Some(h) => h,
        None => module.global_variables.append(
            naga::GlobalVariable {
                name: Some(SHARED_CONDITION.into()),
                space: AddressSpace::WorkGroup,
                binding: None,
                ty: u32_ty,
                init: None,
                memory_decorations: Default::default(),
            },
            naga::Span::UNDEFINED,
        ),
    };
    let mut converted = 0;
    let mut convert = |f: &mut Function| {
        let mut body = std::mem::take(&mut f.body);
        share(
            &mut body,
            f,
            false,
            &Share {
                candidates,
                reaching: &reaching,
                var,
                u32_ty,
            },
            &mut converted,
        );
        f.body = body;
    };
    for (_, f) in module.functions.iter_mut() {
        convert(f);
    }
    for ep in module.entry_points.iter_mut() {
        convert(&mut ep.function);
    }
    converted
}

/// What [`share`] needs besides the block.
struct Share<'a> {
    candidates: &'a HashSet<usize>,
    reaching: &'a [bool],
    var: Handle<naga::GlobalVariable>,
    u32_ty: Handle<naga::Type>,
}

/// The statements that give `condition` the workgroup's value: stored to
/// the shared variable and read back uniformly; and that value.
fn shared_value(
    f: &mut Function,
    how: &Share,
    condition: Handle<Expression>,
    span: naga::Span,
) -> (Vec<Statement>, Handle<Expression>) {
    let e = &mut f.expressions;
    let pointer = e.append(Expression::GlobalVariable(how.var), span);
    let one = e.append(Expression::Literal(naga::Literal::U32(1)), span);
    let zero = e.append(Expression::Literal(naga::Literal::U32(0)), span);
    let select = e.append(
        Expression::Select {
            condition,
            accept: one,
            reject: zero,
        },
        span,
    );
    let result = e.append(
        Expression::WorkGroupUniformLoadResult { ty: how.u32_ty },
        span,
    );
    let agreed = e.append(
        Expression::Binary {
            op: naga::BinaryOperator::NotEqual,
            left: result,
            right: zero,
        },
        span,
    );
    let statements = vec![
        Statement::Emit(naga::Range::new_from_bounds(select, select)),
        Statement::Store {
            pointer,
            value: select,
        },
        Statement::WorkGroupUniformLoad { pointer, result },
        Statement::Emit(naga::Range::new_from_bounds(agreed, agreed)),
    ];
    (statements, agreed)
}

/// Converts the candidate constructs of `block` and of the blocks it
/// holds (see [`uniform_conditions`]); `in_barrier_loop`: the innermost
/// loop around `block` reaches a barrier.
fn share(
    block: &mut Block,
    f: &mut Function,
    in_barrier_loop: bool,
    how: &Share,
    converted: &mut usize,
) {
    let chosen: Vec<bool> = block
        .iter()
        .map(|st| how.candidates.contains(&(st as *const Statement as usize)))
        .collect();
    let old = std::mem::take(block);
    for ((mut st, span), chosen) in old.span_into_iter().zip(chosen) {
        match st {
            Statement::Block(ref mut b) => share(b, f, in_barrier_loop, how, converted),
            Statement::If {
                ref mut condition,
                ref mut accept,
                ref mut reject,
            } => {
                share(accept, f, in_barrier_loop, how, converted);
                share(reject, f, in_barrier_loop, how, converted);
                let decides = reaches_barrier(accept, how.reaching)
                    || reaches_barrier(reject, how.reaching)
                    || (in_barrier_loop
                        && (leaves_iteration(accept, false) || leaves_iteration(reject, false)));
                if chosen && decides {
                    let (before, agreed) = shared_value(f, how, *condition, span);
                    for s in before {
                        block.push(s, span);
                    }
                    *condition = agreed;
                    *converted += 1;
                }
            }
            Statement::Switch { ref mut cases, .. } => {
                for c in cases.iter_mut() {
                    share(&mut c.body, f, in_barrier_loop, how, converted);
                }
            }
            Statement::Loop {
                ref mut body,
                ref mut continuing,
                ref mut break_if,
            } => {
                let holds = reaches_barrier(body, how.reaching)
                    || reaches_barrier(continuing, how.reaching);
                share(body, f, holds, how, converted);
                share(continuing, f, holds, how, converted);
                if let Some(condition) = *break_if
                    && chosen
                    && holds
                {
                    let (after, agreed) = shared_value(f, how, condition, span);
                    for s in after {
                        continuing.push(s, span);
                    }
                    *break_if = Some(agreed);
                    *converted += 1;
                }
            }
            _ => {}
        }
        block.push(st, span);
    }
}
