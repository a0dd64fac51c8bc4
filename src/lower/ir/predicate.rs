//! IR pass: early returns before a barrier made predication.
//!
//! `if (id >= n) { return; } … barrier(); …` is the common bounds check of
//! GLSL compute shaders: the invocations past the end leave, and the others
//! meet at the barrier (every backend runs it so). WGSL refuses it: after a
//! `return` in non-uniform control flow, no barrier is uniform. Here such a
//! `return` becomes `alive = false`, and every statement with an effect
//! beyond the invocation (a store to memory other than its own variables,
//! an atomic, an image store, a call) runs under `if (alive)`. An
//! invocation that returned so goes on through the function's control
//! flow, computing values it never stores, and meets every barrier. The
//! invocations that did not return do exactly what they did before.
//!
//! A call of a function without effects (one that stores only to its own
//! variables and calls only such functions, as a getter of a uniform
//! block's member does) is not guarded: its result stays in scope for what
//! follows.
//!
//! Only where nothing would change what the others see: the function
//! returns no value; no `return` it turns is inside a loop; no call it
//! guards reaches a barrier. A guarded atomic or call whose result is used
//! after the guard would leave it out of scope: the caller keeps the
//! predicated module only if it validates. Elsewhere the function stays as
//! it was (and the uniformity pass refuses what is still non-uniform).

use rustc_hash::FxHashSet as HashSet;

use naga::{
    Block, Expression, Function, Handle, Literal, LocalVariable, Module, Range, Span, Statement,
};

use crate::lower::ir::{child_blocks, pointer_root};

/// Whether `block` reaches a barrier: directly, or through a call to one of
/// `barrier_functions`.
fn has_barrier(block: &Block, barrier_functions: &HashSet<Handle<Function>>) -> bool {
    let mut found = false;
    crate::lower::ir::visit_blocks_ref(block, &mut |b| {
        found |= b.iter().any(|st| match *st {
            Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_)
            | Statement::WorkGroupUniformLoad { .. } => true,
            Statement::Call { function, .. } => barrier_functions.contains(&function),
            _ => false,
        });
    });
    found
}

/// Whether `block` leaves itself other than by falling through: a `break`
/// or `continue` of a loop around it, or a `return`.
fn jumps(block: &Block) -> bool {
    block.iter().any(jumps_from)
}

/// Whether statement `st` leaves its block other than by falling through.
fn jumps_from(st: &Statement) -> bool {
    match st {
        Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill => true,
        Statement::Block(b) => jumps(b),
        Statement::If { accept, reject, .. } => jumps(accept) || jumps(reject),
        Statement::Switch { cases, .. } => cases.iter().any(|c| jumps(&c.body)),
        // A loop's own breaks stay inside it; a return does not.
        Statement::Loop {
            body, continuing, ..
        } => returns(body) || returns(continuing),
        _ => false,
    }
}

/// Whether `block` holds a `return` anywhere.
fn returns(block: &Block) -> bool {
    let mut found = false;
    crate::lower::ir::visit_blocks_ref(block, &mut |b| {
        found |= b
            .iter()
            .any(|st| matches!(st, Statement::Return { .. } | Statement::Kill));
    });
    found
}

/// Whether `f` has no effect beyond its own variables: it stores only to
/// them, calls only functions in `pure`, and has no atomics, image
/// stores, barriers, subgroup or ray-query operations.
fn effect_free(f: &Function, pure: &HashSet<Handle<Function>>) -> bool {
    let mut free = true;
    crate::lower::ir::visit_blocks_ref(&f.body, &mut |b| {
        free &= b.iter().all(|st| match *st {
            Statement::Emit(_)
            | Statement::Block(_)
            | Statement::If { .. }
            | Statement::Switch { .. }
            | Statement::Loop { .. }
            | Statement::Break
            | Statement::Continue
            | Statement::Return { .. } => true,
            Statement::Store { pointer, .. } => {
                matches!(pointer_root(f, pointer), Expression::LocalVariable(_))
            }
            Statement::Call { function, .. } => pure.contains(&function),
            _ => false,
        });
    });
    free
}

struct Predicate<'a> {
    f: &'a mut Function,
    barrier_functions: &'a HashSet<Handle<Function>>,
    /// Functions without effects ([`effect_free`]): their calls need no guard.
    pure: &'a HashSet<Handle<Function>>,
    /// `&alive`.
    alive: Handle<Expression>,
    /// `false`.
    dead: Handle<Expression>,
    /// Returns made `alive = false`.
    turned: usize,
}

impl Predicate<'_> {
    /// `if (alive) { guarded }`, with the load of `alive` it needs.
    fn guard(&mut self, guarded: Block, out: &mut Block) {
        if guarded.is_empty() {
            return;
        }
        let load = self.f.expressions.append(
            Expression::Load {
                pointer: self.alive,
            },
            Span::UNDEFINED,
        );
        out.push(
            Statement::Emit(Range::new_from_bounds(load, load)),
            Span::UNDEFINED,
        );
        out.push(
            Statement::If {
                condition: load,
                accept: guarded,
                reject: Block::new(),
            },
            Span::UNDEFINED,
        );
    }

    /// `block` with its effects guarded, its returns turned (outside loops,
    /// where `in_loop` is false); `None` where that cannot be done.
    fn block(&mut self, block: Block, in_loop: bool) -> Option<Block> {
        let mut out = Block::with_capacity(block.len());
        let mut pending = Block::new();
        for (st, span) in block.span_into_iter() {
            let effect = match st {
                Statement::Emit(_)
                | Statement::ControlBarrier(_)
                | Statement::MemoryBarrier(_)
                | Statement::WorkGroupUniformLoad { .. }
                | Statement::Break
                | Statement::Continue => false,
                Statement::Store { pointer, .. } => {
                    !matches!(pointer_root(self.f, pointer), Expression::LocalVariable(_))
                }
                // (A guarded atomic or call whose result is used after the
                // guard leaves it out of scope: the caller validates.)
                Statement::Call { function, .. } => {
                    if self.barrier_functions.contains(&function) {
                        return None;
                    }
                    !self.pure.contains(&function)
                }
                Statement::Return { value: None } if !in_loop => {
                    self.turned += 1;
                    let alive = self.alive;
                    let dead = self.dead;
                    let pending = std::mem::take(&mut pending);
                    self.guard(pending, &mut out);
                    out.push(
                        Statement::Store {
                            pointer: alive,
                            value: dead,
                        },
                        span,
                    );
                    continue;
                }
                Statement::Return { .. } | Statement::Kill => return None,
                ref s @ (Statement::If { .. }
                | Statement::Switch { .. }
                | Statement::Loop { .. }
                | Statement::Block(_)) => {
                    let opens = child_blocks(s)
                        .into_iter()
                        .any(|b| has_barrier(b, self.barrier_functions))
                        || jumps_from(s);
                    if !opens {
                        // Neither a barrier nor a jump: all of it under the guard.
                        pending.push(st, span);
                        continue;
                    }
                    let pending_now = std::mem::take(&mut pending);
                    self.guard(pending_now, &mut out);
                    let inner = self.open(st, in_loop)?;
                    out.push(inner, span);
                    continue;
                }
                _ => true,
            };
            if effect {
                pending.push(st, span);
            } else {
                let pending_now = std::mem::take(&mut pending);
                self.guard(pending_now, &mut out);
                out.push(st, span);
            }
        }
        self.guard(pending, &mut out);
        Some(out)
    }

    /// A compound statement with a barrier or a jump inside: kept, its
    /// blocks predicated.
    fn open(&mut self, st: Statement, in_loop: bool) -> Option<Statement> {
        crate::lower::ir::map_blocks(st, |b, looped| self.block(b, in_loop || looped).ok_or(()))
            .ok()
    }
}

/// Predicates the early returns of every function that returns no value
/// and has a barrier after a `return`; returns how many returns it turned.
pub fn early_returns(module: &mut Module) -> usize {
    // The functions that reach a barrier, callees first in the arena.
    let mut barrier_functions = HashSet::default();
    let mut pure = HashSet::default();
    for (h, f) in module.functions.iter() {
        if has_barrier(&f.body, &barrier_functions) {
            barrier_functions.insert(h);
        }
        if effect_free(f, &pure) {
            pure.insert(h);
        }
    }
    let bool_ty = module.types.insert(
        naga::Type {
            name: None,
            inner: naga::TypeInner::Scalar(naga::Scalar::BOOL),
        },
        Span::UNDEFINED,
    );
    let mut turned = 0;
    for f in crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points) {
        if f.result.is_some() || !returns(&f.body) || !has_barrier(&f.body, &barrier_functions) {
            continue;
        }
        let mut candidate = f.clone();
        let live = candidate
            .expressions
            .append(Expression::Literal(Literal::Bool(true)), Span::UNDEFINED);
        let local = candidate.local_variables.append(
            LocalVariable {
                name: Some("atomport_alive".into()),
                ty: bool_ty,
                init: Some(live),
            },
            Span::UNDEFINED,
        );
        let alive = candidate
            .expressions
            .append(Expression::LocalVariable(local), Span::UNDEFINED);
        let dead = candidate
            .expressions
            .append(Expression::Literal(Literal::Bool(false)), Span::UNDEFINED);
        // The function's own last `return` stays.
        let mut body = std::mem::take(&mut candidate.body);
        let last = body.len().checked_sub(1);
        let trailing = last.filter(|&i| matches!(body[i], Statement::Return { value: None }));
        if let Some(i) = trailing {
            body.cull(i..);
        }
        let mut p = Predicate {
            f: &mut candidate,
            barrier_functions: &barrier_functions,
            pure: &pure,
            alive,
            dead,
            turned: 0,
        };
        let Some(mut predicated) = p.block(body, false) else {
            continue;
        };
        let n = p.turned;
        if n == 0 {
            continue;
        }
        if trailing.is_some() {
            predicated.push(Statement::Return { value: None }, Span::UNDEFINED);
        }
        candidate.body = predicated;
        *f = candidate;
        turned += n;
    }
    turned
}
