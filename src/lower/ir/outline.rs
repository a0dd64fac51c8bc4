//! Blocks nested past the braces WGSL's compilers accept, moved into
//! functions of their own, so that the text stays valid WGSL: past 127
//! levels of statements, which Chromium's compiler (Tint) reaches at 63
//! nested `if`s, since it counts an `if` and its block both.
//!
//! A block nested [`CUT`] braces deep whose own nesting goes past [`LIMIT`]
//! becomes a call to a new function holding its statements, which starts
//! again at one brace. The new function takes, in order:
//! - every value the block uses and the code before it computed (by value:
//!   it was computed before the block ran, so it is the same value);
//! - a pointer to every local variable, and the pointer every pointer
//!   argument of the outer function holds, that the block uses (the block
//!   reads and writes the outer function's own variables);
//! - for a block that returns a value, a pointer to the local that carries
//!   it out.
//!
//! Pointers into variables that the code before the block computed are
//! computed again inside, from the variable's pointer, so that only whole
//! variables are passed (WGSL's rule for pointer arguments). The function
//! returns how the block ended: it ran to its end (0), or left through a
//! `break` (1), `continue` (2) or `return` (3) aimed at a construct outside
//! it, which the caller then takes. A block so deep that its new function
//! is still too deep is cut again there.
//!
//! The new function's expressions start as a copy of the outer function's,
//! so that the moved statements keep their handles: the values the block
//! takes become its arguments in place, and what the block does not use
//! becomes a literal that nothing reads (naga's compaction drops them).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeSet;

use super::Which;
use naga::{
    AddressSpace, BinaryOperator, Block, Expression, Function, FunctionArgument, FunctionResult,
    Handle, Literal, LocalVariable, Module, Scalar, Span, Statement, Type, TypeInner,
};

/// The depth at which a block too deep is moved out: deep enough that a
/// shader nested a little past the limit keeps most of its shape, shallow
/// enough that what is moved out gains 29 braces.
const CUT: usize = 30;
/// The depth past which a function is cut: the 63 braces Chromium's WGSL
/// compiler accepts (Tint counts an `if` and its block as two of the 127
/// levels of statements WGSL sets), less room for the `if`s a call site
/// adds.
pub const LIMIT: usize = 60;

/// WGSL's limit on a function's parameters (one kept for a returned value).
const MAX_PARAMETERS: usize = 255;

/// How a moved block ended, as its function returns it.
const FELL_THROUGH: u32 = 0;
const BROKE: u32 = 1;
const CONTINUED: u32 = 2;
const RETURNED: u32 = 3;

/// The brace depth of the deepest block in `block`, itself `depth` deep,
/// as naga's WGSL writer nests them: a loop's continuing and a switch's
/// cases one brace deeper than their statement.
pub fn deepest(block: &Block, depth: usize) -> usize {
    block.iter().fold(depth, |d, st| {
        d.max(match st {
            Statement::Block(b) => deepest(b, depth + 1),
            Statement::If { accept, reject, .. } => {
                deepest(accept, depth + 1).max(deepest(reject, depth + 1))
            }
            Statement::Loop {
                body, continuing, ..
            } => deepest(body, depth + 1).max(deepest(continuing, depth + 2)),
            Statement::Switch { cases, .. } => cases
                .iter()
                .map(|c| deepest(&c.body, depth + 2))
                .max()
                .unwrap_or(depth + 1),
            _ => depth,
        })
    })
}

/// Moves blocks out of every function nested past [`LIMIT`], round after
/// round (a moved block may still be too deep), with the module validated
/// between rounds for the types of what is passed; returns how many were
/// moved. A block holding what cannot be moved (ray queries, cooperative
/// matrices) stays, and the nesting check after says so.
pub fn outline_deep_blocks(
    module: &mut Module,
    validate: impl Fn(&Module) -> crate::Result<naga::valid::ModuleInfo>,
) -> crate::Result<usize> {
    let mut moved = 0;
    for _ in 0..64 {
        let info = validate(module)?;
        let round = outline_round(module, &info);
        if round == 0 {
            break;
        }
        moved += round;
    }
    Ok(moved)
}

/// One round over every function; returns the blocks moved.
fn outline_round(module: &mut Module, info: &naga::valid::ModuleInfo) -> usize {
    // Each new function goes right before the function it came from.
    let mut before: HashMap<Handle<Function>, Vec<Handle<Function>>> = HashMap::default();
    let mut moved = 0;
    for which in Which::all(module) {
        let f = which.in_mut(&mut module.functions, &mut module.entry_points);
        if deepest(&f.body, 1) <= LIMIT {
            continue;
        }
        let mut body = std::mem::take(&mut f.body);
        let mut made = Vec::new();
        cut(&mut body, 1, &mut |block| {
            let f = which.in_mut(&mut module.functions, &mut module.entry_points);
            let Some(new) = outline(f, block, which.info(info), &mut module.types) else {
                return false;
            };
            let h = module.functions.append(new.function, Span::UNDEFINED);
            made.push(h);
            let f = which.in_mut(&mut module.functions, &mut module.entry_points);
            call_site(f, block, h, new.arguments, &new.ends, new.result);
            true
        });
        which
            .in_mut(&mut module.functions, &mut module.entry_points)
            .body = body;
        moved += made.len();
        if let Which::Function(h) = which {
            before.entry(h).or_default().extend(made);
        }
    }
    if !before.is_empty() {
        reorder_functions(module, &before);
    }
    moved
}

/// Calls `take` on every block `depth` braces deep past [`CUT`] whose
/// nesting goes past [`LIMIT`] (not a loop's continuing, whose `break if`
/// reads what it computes), and goes deeper where it declines.
fn cut(block: &mut Block, depth: usize, take: &mut impl FnMut(&mut Block) -> bool) {
    for st in block.iter_mut() {
        let children: Vec<(&mut Block, usize, bool)> = match st {
            Statement::Block(b) => vec![(b, depth + 1, true)],
            Statement::If { accept, reject, .. } => {
                vec![(accept, depth + 1, true), (reject, depth + 1, true)]
            }
            Statement::Loop {
                body, continuing, ..
            } => vec![(body, depth + 1, true), (continuing, depth + 2, false)],
            Statement::Switch { cases, .. } => cases
                .iter_mut()
                .map(|c| (&mut c.body, depth + 2, true))
                .collect(),
            _ => Vec::new(),
        };
        for (child, d, movable) in children {
            if deepest(child, d) <= LIMIT {
                continue;
            }
            if !(movable && d >= CUT && take(child)) {
                cut(child, d, take);
            }
        }
    }
}

/// A block made a function.
struct Outlined {
    function: Function,
    /// What the call passes, in the outer function.
    arguments: Vec<Handle<Expression>>,
    /// The ways out of the block other than its end.
    ends: BTreeSet<u32>,
    /// The local that carries a returned value out.
    result: Option<Handle<LocalVariable>>,
}

/// A type, found or added.
fn add_type(types: &mut naga::UniqueArena<Type>, inner: TypeInner) -> Handle<Type> {
    types.insert(Type { name: None, inner }, Span::UNDEFINED)
}

/// What a moved block takes from the function it leaves.
struct Interface {
    /// The new function's expressions: the outer function's, the values
    /// the block takes made its arguments, what it does not use literals.
    expressions: naga::Arena<Expression>,
    parameters: Vec<FunctionArgument>,
    /// What the call passes, in the outer function.
    arguments: Vec<Handle<Expression>>,
    /// Pointers computed before the block, computed again at its start.
    again: BTreeSet<Handle<Expression>>,
}

/// The function `block` of `f` becomes, or `None` where it holds what
/// cannot be moved.
fn outline(
    f: &mut Function,
    block: &Block,
    info: &naga::valid::FunctionInfo,
    types: &mut naga::UniqueArena<Type>,
) -> Option<Outlined> {
    let mut defined = HashSet::default();
    let mut used = Vec::new();
    if !scan(block, &f.expressions, &mut defined, &mut used) {
        return None;
    }
    let Interface {
        mut expressions,
        mut parameters,
        mut arguments,
        again,
    } = interface(f, info, types, &defined, used)?;
    let uint = add_type(types, TypeInner::Scalar(Scalar::U32));
    let mut body = Block::with_capacity(again.len() + block.len() + 1);
    for &h in &again {
        body.push(
            Statement::Emit(naga::Range::new_from_bounds(h, h)),
            Span::UNDEFINED,
        );
    }
    // A value the block returns goes out through a local of the caller.
    let carrier = match f.result.as_ref().map(|r| r.ty) {
        Some(ty) if returns_value(block) => {
            let l = f.local_variables.append(
                LocalVariable {
                    name: Some("outlined_result".into()),
                    ty,
                    init: None,
                },
                Span::UNDEFINED,
            );
            let k = parameters.len() as u32;
            let p = expressions.append(Expression::FunctionArgument(k), Span::UNDEFINED);
            parameters.push(FunctionArgument {
                name: Some("outlined_result".into()),
                ty: add_type(
                    types,
                    TypeInner::Pointer {
                        base: ty,
                        space: AddressSpace::Function,
                    },
                ),
                binding: None,
            });
            arguments.push(
                f.expressions
                    .append(Expression::LocalVariable(l), Span::UNDEFINED),
            );
            Some((l, p))
        }
        _ => None,
    };
    let mut ends = BTreeSet::new();
    let mut exits = |k: u32| {
        ends.insert(k);
        expressions.append(Expression::Literal(Literal::U32(k)), Span::UNDEFINED)
    };
    let moved = exits_as_returns(
        block.clone(),
        false,
        false,
        carrier.map(|c| c.1),
        &mut exits,
    );
    body.extend_block(moved);
    let end = exits(FELL_THROUGH);
    body.push(Statement::Return { value: Some(end) }, Span::UNDEFINED);
    ends.remove(&FELL_THROUGH);
    let named_expressions = f
        .named_expressions
        .iter()
        .filter(|(h, _)| defined.contains(h))
        .map(|(h, n)| (*h, n.clone()))
        .collect();
    // What the block computed is the new function's now: in the outer one
    // no statement computes it any more.
    for &h in &defined {
        f.expressions[h] = Expression::Literal(Literal::U32(0));
        f.named_expressions.shift_remove(&h);
    }
    Some(Outlined {
        function: Function {
            name: Some(format!(
                "{}_nested",
                f.name.as_deref().unwrap_or("function")
            )),
            arguments: parameters,
            result: Some(FunctionResult {
                ty: uint,
                binding: None,
            }),
            local_variables: Default::default(),
            expressions,
            named_expressions,
            body,
            diagnostic_filter_leaf: None,
        },
        arguments,
        ends,
        result: carrier.map(|c| c.0),
    })
}

/// The parameters a block of `f` that computes `defined` and reads `used`
/// takes, or `None` past WGSL's limit on them.
fn interface(
    f: &Function,
    info: &naga::valid::FunctionInfo,
    types: &mut naga::UniqueArena<Type>,
    defined: &HashSet<Handle<Expression>>,
    mut used: Vec<Handle<Expression>>,
) -> Option<Interface> {
    let mut expressions = f.expressions.clone();
    let mut parameters = Vec::new();
    let mut arguments = Vec::new();
    let mut again = BTreeSet::new();
    let mut outer: HashSet<Handle<Expression>> = HashSet::default();
    // One parameter per variable and per argument, however many
    // expressions name it: two pointers to one variable would alias.
    let mut passed: HashMap<(bool, usize), u32> = HashMap::default();
    while let Some(h) = used.pop() {
        if defined.contains(&h) || !outer.insert(h) {
            continue;
        }
        let key = match f.expressions[h] {
            Expression::LocalVariable(l) => Some((true, l.index())),
            Expression::FunctionArgument(i) => Some((false, i as usize)),
            _ => None,
        };
        if let Some(&k) = key.and_then(|e| passed.get(&e)) {
            expressions[h] = Expression::FunctionArgument(k);
            continue;
        }
        let (ty, name) = match f.expressions[h] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
            | Expression::GlobalVariable(_) => continue,
            Expression::LocalVariable(l) => {
                let local = &f.local_variables[l];
                let pointer = TypeInner::Pointer {
                    base: local.ty,
                    space: AddressSpace::Function,
                };
                (add_type(types, pointer), local.name.clone())
            }
            Expression::FunctionArgument(i) => {
                let a = &f.arguments[i as usize];
                (a.ty, a.name.clone())
            }
            // A pointer computed before the block: computed again inside.
            Expression::Access { .. } | Expression::AccessIndex { .. }
                if matches!(
                    info[h].ty.inner_with(types),
                    TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                ) =>
            {
                operands(&f.expressions[h], &mut used);
                again.insert(h);
                continue;
            }
            _ => {
                let ty = match &info[h].ty {
                    naga::proc::TypeResolution::Handle(t) => *t,
                    naga::proc::TypeResolution::Value(inner) => add_type(types, inner.clone()),
                };
                (ty, f.named_expressions.get(&h).cloned())
            }
        };
        let k = parameters.len() as u32;
        expressions[h] = Expression::FunctionArgument(k);
        if let Some(e) = key {
            passed.insert(e, k);
        }
        parameters.push(FunctionArgument {
            name,
            ty,
            binding: None,
        });
        arguments.push(h);
    }
    if parameters.len() >= MAX_PARAMETERS {
        return None;
    }
    // What the block does not use reads nothing the new function lacks.
    for (h, e) in expressions.iter_mut() {
        if !defined.contains(&h) && !outer.contains(&h) {
            *e = Expression::Literal(Literal::U32(0));
        }
    }
    Some(Interface {
        expressions,
        parameters,
        arguments,
        again,
    })
}

/// Whether `block` returns a value somewhere.
fn returns_value(block: &Block) -> bool {
    block.iter().any(|st| match st {
        Statement::Return { value } => value.is_some(),
        _ => super::child_blocks(st).into_iter().any(returns_value),
    })
}

/// Records what `block` computes (`defined`) and every expression its
/// statements and those computations read (`used`); `false` where it holds
/// what cannot be moved.
fn scan(
    block: &Block,
    expressions: &naga::Arena<Expression>,
    defined: &mut HashSet<Handle<Expression>>,
    used: &mut Vec<Handle<Expression>>,
) -> bool {
    for st in block.iter() {
        match st {
            Statement::Emit(range) => {
                for h in range.clone() {
                    if matches!(
                        expressions[h],
                        Expression::CooperativeLoad { .. }
                            | Expression::CooperativeMultiplyAdd { .. }
                    ) {
                        return false;
                    }
                    defined.insert(h);
                    operands(&expressions[h], used);
                }
            }
            Statement::RayQuery { .. }
            | Statement::RayPipelineFunction(_)
            | Statement::CooperativeStore { .. } => return false,
            _ => {
                defined.extend(result(st));
                statement_operands(st, used);
                for child in super::child_blocks(st) {
                    if !scan(child, expressions, defined, used) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// `block` with every `break` and `continue` aimed outside it (outside
/// the loops and switches it holds) and every `return` made a return of
/// the code `exit` gives, a returned value stored through `carrier` first.
fn exits_as_returns(
    block: Block,
    in_loop: bool,
    in_switch: bool,
    carrier: Option<Handle<Expression>>,
    exit: &mut impl FnMut(u32) -> Handle<Expression>,
) -> Block {
    let mut out = Block::with_capacity(block.len());
    for (st, span) in block.span_into_iter() {
        let code = match st {
            Statement::Break if !in_loop && !in_switch => BROKE,
            Statement::Continue if !in_loop => CONTINUED,
            Statement::Return { value } => {
                if let (Some(value), Some(pointer)) = (value, carrier) {
                    out.push(Statement::Store { pointer, value }, span);
                }
                RETURNED
            }
            st => {
                // Inside a loop or a switch of the block, a `break` is
                // its own (and inside a loop a `continue`).
                let inner_loop = in_loop || matches!(st, Statement::Loop { .. });
                let inner_switch = in_switch || matches!(st, Statement::Switch { .. });
                let st = super::map_blocks(st, |b, _| {
                    Ok::<_, std::convert::Infallible>(exits_as_returns(
                        b,
                        inner_loop,
                        inner_switch,
                        carrier,
                        exit,
                    ))
                });
                out.push(st.unwrap_or_else(|never| match never {}), span);
                continue;
            }
        };
        out.push(
            Statement::Return {
                value: Some(exit(code)),
            },
            span,
        );
    }
    out
}

/// Replaces `block` of `f` with a call to `function`, then the way out the
/// call returned: `break`, `continue` or `return` (of the value `result`
/// carries).
fn call_site(
    f: &mut Function,
    block: &mut Block,
    function: Handle<Function>,
    arguments: Vec<Handle<Expression>>,
    ends: &BTreeSet<u32>,
    result: Option<Handle<LocalVariable>>,
) {
    let code = f
        .expressions
        .append(Expression::CallResult(function), Span::UNDEFINED);
    let mut site = Block::with_capacity(1 + 2 * ends.len());
    site.push(
        Statement::Call {
            function,
            arguments,
            result: Some(code),
        },
        Span::UNDEFINED,
    );
    for &k in ends {
        let literal = f
            .expressions
            .append(Expression::Literal(Literal::U32(k)), Span::UNDEFINED);
        let taken = f.expressions.append(
            Expression::Binary {
                op: BinaryOperator::Equal,
                left: code,
                right: literal,
            },
            Span::UNDEFINED,
        );
        site.push(
            Statement::Emit(naga::Range::new_from_bounds(taken, taken)),
            Span::UNDEFINED,
        );
        let mut accept = Block::new();
        match k {
            BROKE => accept.push(Statement::Break, Span::UNDEFINED),
            CONTINUED => accept.push(Statement::Continue, Span::UNDEFINED),
            _ => {
                let value = result.map(|l| {
                    let pointer = f
                        .expressions
                        .append(Expression::LocalVariable(l), Span::UNDEFINED);
                    let value = f
                        .expressions
                        .append(Expression::Load { pointer }, Span::UNDEFINED);
                    accept.push(
                        Statement::Emit(naga::Range::new_from_bounds(value, value)),
                        Span::UNDEFINED,
                    );
                    value
                });
                accept.push(Statement::Return { value }, Span::UNDEFINED);
            }
        }
        site.push(
            Statement::If {
                condition: taken,
                accept,
                reject: Block::new(),
            },
            Span::UNDEFINED,
        );
    }
    *block = site;
}

/// Puts the functions in `before`'s lists right before their key (a
/// function may call only those declared before it), and renumbers every
/// call.
fn reorder_functions(
    module: &mut Module,
    before: &HashMap<Handle<Function>, Vec<Handle<Function>>>,
) {
    let placed: HashSet<Handle<Function>> = before.values().flatten().copied().collect();
    let mut order = Vec::new();
    fn place(
        h: Handle<Function>,
        before: &HashMap<Handle<Function>, Vec<Handle<Function>>>,
        order: &mut Vec<Handle<Function>>,
    ) {
        for &b in before.get(&h).into_iter().flatten() {
            place(b, before, order);
        }
        order.push(h);
    }
    for (h, _) in module.functions.iter() {
        if !placed.contains(&h) {
            place(h, before, &mut order);
        }
    }
    let new_index: HashMap<Handle<Function>, usize> =
        order.iter().enumerate().map(|(i, &h)| (h, i)).collect();
    let mut old: Vec<Option<(Function, Span)>> = module
        .functions
        .drain()
        .map(|(_, f, s)| Some((f, s)))
        .collect();
    let mut handles = Vec::with_capacity(order.len());
    for &h in &order {
        let (f, s) = old[h.index()].take().expect("each function placed once");
        handles.push(module.functions.append(f, s));
    }
    let renumber = |h: Handle<Function>| handles[new_index[&h]];
    for f in super::functions_mut(&mut module.functions, &mut module.entry_points) {
        for (_, e) in f.expressions.iter_mut() {
            if let Expression::CallResult(h) = e {
                *h = renumber(*h);
            }
        }
        super::visit_blocks(&mut f.body, &mut |b: &mut Block| {
            for st in b.iter_mut() {
                if let Statement::Call { function, .. } = st {
                    *function = renumber(*function);
                }
            }
        });
    }
}

/// The expression a statement computes, if any.
fn result(st: &Statement) -> Option<Handle<Expression>> {
    match *st {
        Statement::Call { result, .. } | Statement::Atomic { result, .. } => result,
        Statement::WorkGroupUniformLoad { result, .. }
        | Statement::SubgroupBallot { result, .. }
        | Statement::SubgroupGather { result, .. }
        | Statement::SubgroupCollectiveOperation { result, .. } => Some(result),
        _ => None,
    }
}

/// The expressions a statement reads (not those of the blocks it holds).
fn statement_operands(st: &Statement, out: &mut Vec<Handle<Expression>>) {
    match *st {
        Statement::If { condition, .. } => out.push(condition),
        Statement::Switch { selector, .. } => out.push(selector),
        Statement::Loop { break_if, .. } => out.extend(break_if),
        Statement::Return { value } => out.extend(value),
        Statement::Store { pointer, value } => out.extend([pointer, value]),
        Statement::ImageStore {
            image,
            coordinate,
            array_index,
            value,
        } => {
            out.extend([image, coordinate, value]);
            out.extend(array_index);
        }
        Statement::Atomic {
            pointer,
            ref fun,
            value,
            ..
        } => {
            out.extend([pointer, value]);
            if let naga::AtomicFunction::Exchange { compare } = *fun {
                out.extend(compare);
            }
        }
        Statement::ImageAtomic {
            image,
            coordinate,
            array_index,
            ref fun,
            value,
        } => {
            out.extend([image, coordinate, value]);
            out.extend(array_index);
            if let naga::AtomicFunction::Exchange { compare } = *fun {
                out.extend(compare);
            }
        }
        Statement::WorkGroupUniformLoad { pointer, .. } => out.push(pointer),
        Statement::Call { ref arguments, .. } => out.extend(arguments),
        Statement::SubgroupBallot { predicate, .. } => out.extend(predicate),
        Statement::SubgroupGather { mode, argument, .. } => {
            out.push(argument);
            use naga::GatherMode as G;
            match mode {
                G::Broadcast(h)
                | G::Shuffle(h)
                | G::ShuffleDown(h)
                | G::ShuffleUp(h)
                | G::ShuffleXor(h)
                | G::QuadBroadcast(h) => out.push(h),
                G::BroadcastFirst | G::QuadSwap(_) => {}
            }
        }
        Statement::SubgroupCollectiveOperation { argument, .. } => out.push(argument),
        _ => {}
    }
}

/// The expressions an expression reads.
fn operands(e: &Expression, out: &mut Vec<Handle<Expression>>) {
    use Expression as E;
    match *e {
        E::Compose { ref components, .. } => out.extend(components),
        E::Access { base, index } => out.extend([base, index]),
        E::AccessIndex { base, .. } => out.push(base),
        E::Splat { value, .. } => out.push(value),
        E::Swizzle { vector, .. } => out.push(vector),
        E::Load { pointer } => out.push(pointer),
        E::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            ..
        } => {
            out.extend([image, sampler, coordinate]);
            out.extend(array_index.into_iter().chain(offset).chain(depth_ref));
            match level {
                naga::SampleLevel::Exact(h) | naga::SampleLevel::Bias(h) => out.push(h),
                naga::SampleLevel::Gradient { x, y } => out.extend([x, y]),
                naga::SampleLevel::Auto | naga::SampleLevel::Zero => {}
            }
        }
        E::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => {
            out.extend([image, coordinate]);
            out.extend(array_index.into_iter().chain(sample).chain(level));
        }
        E::ImageQuery { image, query } => {
            out.push(image);
            if let naga::ImageQuery::Size { level } = query {
                out.extend(level);
            }
        }
        E::Unary { expr, .. } | E::As { expr, .. } | E::Derivative { expr, .. } => out.push(expr),
        E::Binary { left, right, .. } => out.extend([left, right]),
        E::Select {
            condition,
            accept,
            reject,
        } => out.extend([condition, accept, reject]),
        E::Relational { argument, .. } => out.push(argument),
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => {
            out.push(arg);
            out.extend(arg1.into_iter().chain(arg2).chain(arg3));
        }
        E::ArrayLength(h) => out.push(h),
        E::RayQueryVertexPositions { query, .. } | E::RayQueryGetIntersection { query, .. } => {
            out.push(query)
        }
        E::CooperativeMultiplyAdd { a, b, c } => out.extend([a, b, c]),
        E::CooperativeLoad { ref data, .. } => out.extend([data.pointer, data.stride]),
        E::Literal(_)
        | E::Constant(_)
        | E::Override(_)
        | E::ZeroValue(_)
        | E::FunctionArgument(_)
        | E::GlobalVariable(_)
        | E::LocalVariable(_)
        | E::CallResult(_)
        | E::AtomicResult { .. }
        | E::WorkGroupUniformLoadResult { .. }
        | E::RayQueryProceedResult
        | E::SubgroupBallotResult
        | E::SubgroupOperationResult { .. } => {}
    }
}
