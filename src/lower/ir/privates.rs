//! IR pass: private variables that hold uniform values, in a form WGSL's
//! uniformity analysis can see through.
//!
//! WGSL counts every read of a `var<private>` as non-uniform, whatever it
//! holds. Two kinds of private variable hold uniform values all the same,
//! and a barrier that depends on one is refused by browsers for it:
//! - the copies naga's SPIR-V reader makes of uniform built-ins
//!   (`gl_WorkGroupID`, `gl_NumWorkGroups`): the entry point stores its
//!   argument into the variable and calls the shader's `main`, so a
//!   `if (gl_WorkGroupID.x * 4096u >= count) { return; }` before a barrier
//!   is refused;
//! - variables never written, with a constant initializer (atomport's
//!   one-lane subgroup values and float bit patterns, kept out of constant
//!   folding on purpose).
//!
//! Each function that reads such a variable gets a function-local copy: of
//! the initializer for the first kind, and for the second of a new argument
//! that every call passes down from the entry point's built-in. Locals set
//! once in uniform control flow from uniform values are uniform to WGSL.

use rustc_hash::FxHashSet as HashSet;

use naga::{
    AddressSpace, Binding, BuiltIn, Expression, Function, FunctionArgument, GlobalVariable, Handle,
    LocalVariable, Module, Span, Statement,
};

use crate::lower::ir::{functions_mut, visit_blocks, visit_blocks_ref};

/// What a private variable is, for this pass.
enum Kind {
    /// Never written: its initializer, copied into each function.
    Constant(Expression),
    /// Written only at the top of every entry point from a uniform
    /// built-in argument: that argument's index in each entry point.
    Builtin(Vec<u32>),
}

/// How a function uses a variable: whether it reads it, and its stores
/// into it as (pointer, value).
type Uses = (bool, Vec<(Handle<Expression>, Handle<Expression>)>);

/// Which expressions of `f` point into `g`.
fn rooted(f: &Function, g: Handle<GlobalVariable>) -> Vec<bool> {
    let mut r = vec![false; f.expressions.len()];
    for (h, e) in f.expressions.iter() {
        r[h.index()] = match *e {
            Expression::GlobalVariable(v) => v == g,
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                r[base.index()]
            }
            _ => false,
        };
    }
    r
}

/// How `f` uses `g`: whether it reads it, and the stores into it
/// (pointer, value); `None` when it passes a pointer to it on, or uses it
/// atomically.
fn uses(f: &Function, g: Handle<GlobalVariable>) -> Option<Uses> {
    let r = rooted(f, g);
    let at = |h: Handle<Expression>| r[h.index()];
    let mut reads = false;
    for (_, e) in f.expressions.iter() {
        match *e {
            Expression::Load { pointer } if at(pointer) => reads = true,
            Expression::ArrayLength(p) if at(p) => return None,
            _ => {}
        }
    }
    let mut stores = Vec::new();
    let mut plain = true;
    visit_blocks_ref(&f.body, &mut |b| {
        for st in b.iter() {
            match *st {
                Statement::Store { pointer, value } if at(pointer) => stores.push((pointer, value)),
                Statement::Atomic { pointer, .. }
                | Statement::WorkGroupUniformLoad { pointer, .. }
                    if at(pointer) =>
                {
                    plain = false
                }
                Statement::Call { ref arguments, .. } if arguments.iter().any(|&a| at(a)) => {
                    plain = false
                }
                Statement::RayQuery { query, .. } if at(query) => plain = false,
                _ => {}
            }
        }
    });
    plain.then_some((reads, stores))
}

/// The kind of private variable `g` is, if one this pass handles.
fn kind(module: &Module, g: Handle<GlobalVariable>) -> Option<Kind> {
    let var = &module.global_variables[g];
    if var.space != AddressSpace::Private {
        return None;
    }
    let mut stored_in_functions = false;
    for (_, f) in module.functions.iter() {
        let (_, stores) = uses(f, g)?;
        stored_in_functions |= !stores.is_empty();
    }
    let mut entry_stores = Vec::new();
    for ep in &module.entry_points {
        let (_, stores) = uses(&ep.function, g)?;
        entry_stores.push(stores);
    }
    if stored_in_functions {
        return None;
    }
    if entry_stores.iter().all(Vec::is_empty) {
        let init = module.global_expressions[var.init?].clone();
        return matches!(
            init,
            Expression::Literal(_) | Expression::ZeroValue(_) | Expression::Constant(_)
        )
        .then_some(Kind::Constant(init));
    }
    // Naga's entry point: `var = argument;` at its top, once.
    let mut arguments = Vec::new();
    for (ep, stores) in module.entry_points.iter().zip(&entry_stores) {
        let f = &ep.function;
        let [(pointer, value)] = stores[..] else {
            return None;
        };
        let Expression::FunctionArgument(k) = f.expressions[value] else {
            return None;
        };
        let top = f.body.iter().any(|st| {
            matches!(*st, Statement::Store { pointer: p, value: v } if p == pointer && v == value)
        });
        let builtin = matches!(
            f.arguments.get(k as usize).and_then(|a| a.binding.as_ref()),
            Some(Binding::BuiltIn(
                BuiltIn::WorkGroupId | BuiltIn::NumWorkGroups
            ))
        );
        if !top || !builtin || f.expressions[pointer] != Expression::GlobalVariable(g) {
            return None;
        }
        arguments.push(k);
    }
    Some(Kind::Builtin(arguments))
}

/// Replaces every pointer to `g` in `f` with one to a new local variable
/// (with `init`, an expression to add to `f`), which it returns.
fn localize(
    f: &mut Function,
    g: Handle<GlobalVariable>,
    var: &GlobalVariable,
    init: Option<Expression>,
) -> Handle<LocalVariable> {
    let init = init.map(|e| f.expressions.append(e, Span::UNDEFINED));
    let local = f.local_variables.append(
        LocalVariable {
            name: var.name.clone(),
            ty: var.ty,
            init,
        },
        Span::UNDEFINED,
    );
    for (_, e) in f.expressions.iter_mut() {
        if *e == Expression::GlobalVariable(g) {
            *e = Expression::LocalVariable(local);
        }
    }
    local
}

/// Whether `f` reads or writes `g` (naga's SPIR-V reader gives every
/// function an expression for every global, used or not).
fn names(f: &Function, g: Handle<GlobalVariable>) -> bool {
    uses(f, g).is_none_or(|(reads, stores)| reads || !stores.is_empty())
}

/// Threads a uniform built-in's private copy `g` through the functions
/// that read it, as an argument; `entry_args`: the built-in's argument in
/// each entry point.
fn thread_builtin(module: &mut Module, g: Handle<GlobalVariable>, entry_args: &[u32]) {
    let var = module.global_variables[g].clone();
    // The functions that read it, and those that call one of those.
    let mut need: HashSet<Handle<Function>> = module
        .functions
        .iter()
        .filter(|(_, f)| names(f, g))
        .map(|(h, _)| h)
        .collect();
    loop {
        let mut more = Vec::new();
        for (h, f) in module.functions.iter() {
            if !need.contains(&h) && calls_any(f, &need) {
                more.push(h);
            }
        }
        if more.is_empty() {
            break;
        }
        need.extend(more);
    }
    let mut argument_of: Vec<Option<u32>> = vec![None; module.functions.len()];
    for (h, f) in module.functions.iter_mut() {
        if need.contains(&h) {
            argument_of[h.index()] = Some(f.arguments.len() as u32);
            f.arguments.push(FunctionArgument {
                name: var.name.clone(),
                ty: var.ty,
                binding: None,
            });
        }
    }
    let functions = module
        .functions
        .iter_mut()
        .map(|(h, f)| (argument_of[h.index()], f));
    let entries = module
        .entry_points
        .iter_mut()
        .zip(entry_args)
        .map(|(ep, &k)| (Some(k), &mut ep.function));
    for (argument, f) in functions.chain(entries) {
        let Some(k) = argument else { continue };
        let passed = f
            .expressions
            .append(Expression::FunctionArgument(k), Span::UNDEFINED);
        visit_blocks(&mut f.body, &mut |b| {
            for (st, _) in b.span_iter_mut() {
                if let Statement::Call {
                    function,
                    ref mut arguments,
                    ..
                } = *st
                    && need.contains(&function)
                {
                    arguments.push(passed);
                }
            }
        });
        let reads = uses(f, g).is_none_or(|(reads, _)| reads);
        if !reads {
            // The entry point's own copy into the variable, read nowhere now.
            let copies: Vec<usize> = f
                .body
                .iter()
                .enumerate()
                .filter(|(_, st)| {
                    matches!(**st, Statement::Store { pointer, .. }
                        if f.expressions[pointer] == Expression::GlobalVariable(g))
                })
                .map(|(i, _)| i)
                .collect();
            for i in copies.into_iter().rev() {
                f.body.cull(i..i + 1);
            }
        } else {
            let local = localize(f, g, &var, None);
            let pointer = f
                .expressions
                .append(Expression::LocalVariable(local), Span::UNDEFINED);
            let mut first = naga::Block::new();
            first.push(
                Statement::Store {
                    pointer,
                    value: passed,
                },
                Span::UNDEFINED,
            );
            f.body.splice(0..0, first);
        }
    }
}

/// Whether `f` calls one of `these`.
fn calls_any(f: &Function, these: &HashSet<Handle<Function>>) -> bool {
    let mut found = false;
    visit_blocks_ref(&f.body, &mut |b| {
        found |= b
            .iter()
            .any(|st| matches!(*st, Statement::Call { function, .. } if these.contains(&function)));
    });
    found
}

/// Gives the private variables this pass handles function-local copies;
/// returns how many variables it changed.
pub fn uniform_privates(module: &mut Module) -> usize {
    let globals: Vec<Handle<GlobalVariable>> =
        module.global_variables.iter().map(|(h, _)| h).collect();
    let mut changed = 0;
    for g in globals {
        match kind(module, g) {
            Some(Kind::Constant(init)) => {
                let var = module.global_variables[g].clone();
                for f in functions_mut(&mut module.functions, &mut module.entry_points) {
                    if names(f, g) {
                        localize(f, g, &var, Some(init.clone()));
                    }
                }
                changed += 1;
            }
            Some(Kind::Builtin(arguments)) => {
                thread_builtin(module, g, &arguments);
                changed += 1;
            }
            None => {}
        }
    }
    changed
}
