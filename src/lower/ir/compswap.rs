//! IR pass: every compare-exchange becomes a strong one.
//!
//! naga reads SPIR-V's (strong) `OpAtomicCompareExchange` as a single WGSL
//! `atomicCompareExchangeWeak`, which may fail spuriously (it does on Metal).
//! GLSL's `atomicCompSwap` must not, so each such statement becomes
//!
//! ```wgsl
//! loop {
//!     let r = atomicCompareExchangeWeak(p, compare, value);
//!     old = r.old_value;
//!     if r.exchanged || r.old_value != compare { break; }
//! }
//! ```
//!
//! and the original result (`.old_value`) becomes a load of `old` after the
//! loop. naga requires an expression to refer only to earlier ones, so the
//! original result's slot in the arena is reused for the local variable and
//! each `.old_value` of it becomes a load of that variable.

use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Span,
    Statement, TypeInner,
};

use crate::{Error, Result};

/// One compare-exchange statement's operands.
#[derive(Clone, Copy)]
struct CompareExchange {
    pointer: Handle<Expression>,
    cmp: Handle<Expression>,
    value: Handle<Expression>,
    result: Handle<Expression>,
}

type Rewrite<'a> = dyn FnMut(
        &mut Function,
        &naga::UniqueArena<naga::Type>,
        CompareExchange,
        Span,
    ) -> Result<Vec<Statement>>
    + 'a;

/// Rebuilds every function with each compare-exchange replaced by the
/// statements `rewrite` returns; returns how many it replaced.
fn rewrite_all(module: &mut naga::Module, rewrite: &mut Rewrite) -> Result<usize> {
    let mut count = 0;
    let types = &module.types;
    let functions =
        crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points);
    for f in functions {
        let body = std::mem::take(&mut f.body);
        f.body = rewrite_block(body, f, types, rewrite, &mut count)?;
    }
    Ok(count)
}

fn rewrite_block(
    block: Block,
    f: &mut Function,
    types: &naga::UniqueArena<naga::Type>,
    rewrite: &mut Rewrite,
    count: &mut usize,
) -> Result<Block> {
    let mut out = Block::with_capacity(block.len());
    for (stmt, span) in block.span_into_iter() {
        let stmt = match stmt {
            Statement::Atomic {
                pointer,
                fun: AtomicFunction::Exchange { compare: Some(cmp) },
                value,
                result: Some(result),
            } => {
                *count += 1;
                let cx = CompareExchange {
                    pointer,
                    cmp,
                    value,
                    result,
                };
                for s in rewrite(f, types, cx, span)? {
                    out.push(s, span);
                }
                continue;
            }
            other => super::map_blocks(other, |b, _| rewrite_block(b, f, types, rewrite, count))?,
        };
        out.push(stmt, span);
    }
    Ok(out)
}

/// Which of a module's compare-exchanges sit in atomport's own retry loops:
/// their ordinals among all `OpAtomicCompareExchange`s of the SPIR-V, and
/// how many there are. naga's reader makes one statement of each, with a
/// span in the binary, so the spans in order are the instructions in order.
#[derive(Clone, Debug, Default)]
pub struct Ordinals {
    weak: Vec<usize>,
    total: usize,
}

impl Ordinals {
    /// The ordinals of the compare-exchanges whose results are `weak` in `words`.
    pub fn of(words: &[u32], weak: &[u32]) -> Ordinals {
        const OP_ATOMIC_COMPARE_EXCHANGE: u32 = 230;
        let mut out = Ordinals::default();
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            if count == 0 {
                break;
            }
            if words[at] & 0xffff == OP_ATOMIC_COMPARE_EXCHANGE {
                if words.get(at + 2).is_some_and(|r| weak.contains(r)) {
                    out.weak.push(out.total);
                }
                out.total += 1;
            }
            at += count;
        }
        out
    }

    /// The spans of the weak ones among the module's compare-exchanges;
    /// none unless the module has exactly as many as the binary had.
    fn spans(&self, module: &naga::Module) -> Vec<Span> {
        if self.weak.is_empty() {
            return Vec::new();
        }
        let mut spans = Vec::new();
        let bodies = module
            .functions
            .iter()
            .map(|(_, f)| &f.body)
            .chain(module.entry_points.iter().map(|ep| &ep.function.body));
        for body in bodies {
            compare_exchange_spans(body, &mut spans);
        }
        if spans.len() != self.total {
            return Vec::new();
        }
        spans.sort_by_key(|s| s.to_range().map_or(0, |r| r.start));
        self.weak
            .iter()
            .filter_map(|&k| spans.get(k).copied())
            .collect()
    }
}

/// The spans of the compare-exchanges in `block` and the blocks in it.
fn compare_exchange_spans(block: &Block, out: &mut Vec<Span>) {
    for (s, span) in block.span_iter() {
        match s {
            Statement::Atomic {
                fun: AtomicFunction::Exchange { compare: Some(_) },
                ..
            } => out.push(*span),
            Statement::Block(b) => compare_exchange_spans(b, out),
            Statement::If { accept, reject, .. } => {
                compare_exchange_spans(accept, out);
                compare_exchange_spans(reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    compare_exchange_spans(&c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                compare_exchange_spans(body, out);
                compare_exchange_spans(continuing, out);
            }
            _ => {}
        }
    }
}

/// Makes every compare-exchange in `module` strong, but those in
/// atomport's own retry loops (`in_retry_loops`), which retry a spurious
/// failure themselves: they stay one weak call, and the loop's test of
/// their success (`old_value == compare`) becomes `exchanged`. Returns how
/// many it made strong.
pub fn strong_compare_exchange(
    module: &mut naga::Module,
    in_retry_loops: &Ordinals,
) -> Result<usize> {
    let weak = in_retry_loops.spans(module);
    rewrite_all(module, &mut |f, types, cx, span| {
        if weak.contains(&span) {
            test_exchanged(f, cx);
            return Ok(vec![Statement::Atomic {
                pointer: cx.pointer,
                fun: AtomicFunction::Exchange {
                    compare: Some(cx.cmp),
                },
                value: cx.value,
                result: Some(cx.result),
            }]);
        }
        Ok(vec![strong_loop(
            f, types, cx.pointer, cx.cmp, cx.value, cx.result, span,
        )?])
    })
}

/// Turns every `old_value == compare` of a weak compare-exchange's result
/// into its `exchanged`: after a spurious failure the two differ.
fn test_exchanged(f: &mut Function, cx: CompareExchange) {
    let old_values: Vec<Handle<Expression>> = f
        .expressions
        .iter()
        .filter(
            |(_, e)| matches!(e, Expression::AccessIndex { base, index: 0 } if *base == cx.result),
        )
        .map(|(h, _)| h)
        .collect();
    let tests: Vec<Handle<Expression>> = f
        .expressions
        .iter()
        .filter(|(_, e)| match **e {
            Expression::Binary {
                op: BinaryOperator::Equal,
                left,
                right,
            } => {
                (old_values.contains(&left) && right == cx.cmp)
                    || (old_values.contains(&right) && left == cx.cmp)
            }
            _ => false,
        })
        .map(|(h, _)| h)
        .collect();
    for t in tests {
        *f.expressions.get_mut(t) = Expression::AccessIndex {
            base: cx.result,
            index: 1,
        };
    }
}

fn strong_loop(
    f: &mut Function,
    types: &naga::UniqueArena<naga::Type>,
    pointer: Handle<Expression>,
    cmp: Handle<Expression>,
    value: Handle<Expression>,
    result: Handle<Expression>,
    span: Span,
) -> Result<Statement> {
    let Expression::AtomicResult { ty: result_ty, .. } = f.expressions[result] else {
        return Err(Error::Internal(
            "a compare-exchange whose result is not an AtomicResult".into(),
        ));
    };
    let TypeInner::Struct { ref members, .. } = types[result_ty].inner else {
        return Err(Error::Internal(
            "a compare-exchange whose result is not a struct".into(),
        ));
    };
    let old_ty = members[0].ty;
    // Every use of the result must be its `.old_value`: that is all naga's
    // SPIR-V reader produces. Anything else is refused rather than miscompiled.
    let users: Vec<Handle<Expression>> = f
        .expressions
        .iter()
        .filter(|(_, e)| refers_to(e, result))
        .map(|(h, _)| h)
        .collect();
    for &u in &users {
        if !matches!(f.expressions[u], Expression::AccessIndex { base, index: 0 } if base == result)
        {
            return Err(Error::Unsupported(
                "a compare-exchange whose `exchanged` flag is used cannot be made strong".into(),
            ));
        }
    }
    let local = f.local_variables.append(
        LocalVariable {
            name: Some("atomic_compare_old".into()),
            ty: old_ty,
            init: None,
        },
        span,
    );
    *f.expressions.get_mut(result) = Expression::LocalVariable(local);
    for u in users {
        *f.expressions.get_mut(u) = Expression::Load { pointer: result };
    }
    let weak = f.expressions.append(
        Expression::AtomicResult {
            ty: result_ty,
            comparison: true,
        },
        span,
    );
    let old = f.expressions.append(
        Expression::AccessIndex {
            base: weak,
            index: 0,
        },
        span,
    );
    let exchanged = f.expressions.append(
        Expression::AccessIndex {
            base: weak,
            index: 1,
        },
        span,
    );
    let differs = f.expressions.append(
        Expression::Binary {
            op: BinaryOperator::NotEqual,
            left: old,
            right: cmp,
        },
        span,
    );
    let done = f.expressions.append(
        Expression::Binary {
            op: BinaryOperator::LogicalOr,
            left: exchanged,
            right: differs,
        },
        span,
    );
    let mut body = Block::with_capacity(4);
    body.push(
        Statement::Atomic {
            pointer,
            fun: AtomicFunction::Exchange { compare: Some(cmp) },
            value,
            result: Some(weak),
        },
        span,
    );
    body.push(
        Statement::Emit(naga::Range::new_from_bounds(old, done)),
        span,
    );
    body.push(
        Statement::Store {
            pointer: result,
            value: old,
        },
        span,
    );
    body.push(
        Statement::If {
            condition: done,
            accept: Block::from_vec(vec![Statement::Break]),
            reject: Block::new(),
        },
        span,
    );
    Ok(Statement::Loop {
        body,
        continuing: Block::new(),
        break_if: None,
    })
}

/// Collapses every strong compare-exchange loop (the shape
/// [`strong_compare_exchange`] makes: one call, its `.old_value` stored,
/// and a break when it exchanged or saw another value) to its one call,
/// for a backend whose compare-exchange never fails spuriously (naga
/// writes SPIR-V's `OpAtomicCompareExchange`, GLSL's `atomicCompSwap` and
/// HLSL's `InterlockedCompareExchange` for WGSL's weak one: all strong).
/// A loop the shader did not ask for costs more than its one iteration:
/// llvmpipe stops a shader after 65 535 loop iterations in all, so a spin
/// lock's critical sections would run fewer times than natively. Returns
/// how many loops.
// The runtime's alone: a translation keeps its loops.
#[cfg(feature = "runtime")]
pub fn single_calls_where_strong(module: &mut naga::Module) -> usize {
    let mut count = 0;
    let functions =
        crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points);
    for f in functions {
        let exprs = &f.expressions;
        crate::lower::ir::visit_blocks(&mut f.body, &mut |block| {
            for (st, _) in block.span_iter_mut() {
                if let Some(call) = retry_of_one_call(exprs, st) {
                    *st = Statement::Block(call);
                    count += 1;
                }
            }
        });
    }
    count
}

/// The loop's call, its emit and its store, when `st` is a loop that
/// retries one compare-exchange until it exchanged or saw another value.
#[cfg(feature = "runtime")]
fn retry_of_one_call(exprs: &naga::Arena<Expression>, st: &Statement) -> Option<Block> {
    let Statement::Loop {
        body,
        continuing,
        break_if: None,
    } = st
    else {
        return None;
    };
    if !continuing.is_empty() {
        return None;
    }
    let [
        Statement::Atomic {
            fun: AtomicFunction::Exchange { compare: Some(cmp) },
            result: Some(weak),
            ..
        },
        Statement::Emit(_),
        Statement::Store { value: old, .. },
        Statement::If {
            condition,
            accept,
            reject,
        },
    ] = body.iter().as_slice()
    else {
        return None;
    };
    let is = |h: Handle<Expression>, base: Handle<Expression>, k: u32| matches!(exprs[h], Expression::AccessIndex { base: b, index } if b == base && index == k);
    let exits = matches!(accept.iter().as_slice(), [Statement::Break]) && reject.is_empty();
    let done = match exprs[*condition] {
        Expression::Binary {
            op: BinaryOperator::LogicalOr,
            left,
            right,
        } => {
            is(left, *weak, 1)
                && matches!(exprs[right], Expression::Binary { op: BinaryOperator::NotEqual, left: o, right: c }
                    if is(o, *weak, 0) && c == *cmp)
        }
        _ => false,
    };
    if !(exits && done && is(*old, *weak, 0)) {
        return None;
    }
    let mut call = body.clone();
    call.cull(3..);
    Some(call)
}

/// Whether expression `e` takes `h` as an operand (only the forms that can
/// take an atomic's result struct are listed).
fn refers_to(e: &Expression, h: Handle<Expression>) -> bool {
    match *e {
        Expression::AccessIndex { base, .. } => base == h,
        Expression::Access { base, index } => base == h || index == h,
        Expression::Load { pointer } => pointer == h,
        Expression::Compose { ref components, .. } => components.contains(&h),
        Expression::Splat { value, .. } => value == h,
        Expression::Swizzle { vector, .. } => vector == h,
        Expression::Unary { expr, .. } => expr == h,
        Expression::Binary { left, right, .. } => left == h || right == h,
        Expression::Select {
            condition,
            accept,
            reject,
        } => condition == h || accept == h || reject == h,
        Expression::Relational { argument, .. } => argument == h,
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => arg == h || arg1 == Some(h) || arg2 == Some(h) || arg3 == Some(h),
        Expression::As { expr, .. } => expr == h,
        _ => false,
    }
}

/// The [`crate::lower::fault::Fault::SpuriousCompareExchange`] fault: leaves each
/// compare-exchange a single weak call and makes it fail spuriously when
/// its value is odd, by comparing against `compare ^ 1` (memory still holds
/// `compare`, so nothing is written and the original is returned, as a
/// spurious failure does). Returns how many calls it broke.
pub fn spurious_failures(module: &mut naga::Module) -> Result<usize> {
    rewrite_all(module, &mut spurious_call)
}

/// The faulty replacement of one compare-exchange (see [`spurious_failures`]).
fn spurious_call(
    f: &mut Function,
    types: &naga::UniqueArena<naga::Type>,
    cx: CompareExchange,
    span: Span,
) -> Result<Vec<Statement>> {
    let CompareExchange {
        pointer,
        cmp,
        value,
        result,
    } = cx;
    let kind = match f.expressions[result] {
        Expression::AtomicResult { ty, .. } => match &types[ty].inner {
            TypeInner::Struct { members, .. } => match types[members[0].ty].inner {
                TypeInner::Scalar(s) => s.kind,
                _ => naga::ScalarKind::Uint,
            },
            _ => naga::ScalarKind::Uint,
        },
        _ => naga::ScalarKind::Uint,
    };
    let as_uint = |e| Expression::As {
        expr: e,
        kind: naga::ScalarKind::Uint,
        convert: None,
    };
    // A literal needs no Emit: append it before the emitted range.
    let one = f
        .expressions
        .append(Expression::Literal(naga::Literal::U32(1)), span);
    let bits = f.expressions.append(as_uint(value), span);
    let odd = f.expressions.append(
        Expression::Binary {
            op: BinaryOperator::And,
            left: bits,
            right: one,
        },
        span,
    );
    let cmp_bits = f.expressions.append(as_uint(cmp), span);
    let wrong_bits = f.expressions.append(
        Expression::Binary {
            op: BinaryOperator::ExclusiveOr,
            left: cmp_bits,
            right: odd,
        },
        span,
    );
    let wrong = f.expressions.append(
        Expression::As {
            expr: wrong_bits,
            kind,
            convert: None,
        },
        span,
    );
    Ok(vec![
        Statement::Emit(naga::Range::new_from_bounds(bits, wrong)),
        Statement::Atomic {
            pointer,
            fun: AtomicFunction::Exchange {
                compare: Some(wrong),
            },
            value,
            result: Some(result),
        },
    ])
}
