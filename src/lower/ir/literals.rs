//! IR pass: conversions of literals folded into the literal they make.
//!
//! naga's SPIR-V reader converts a shift amount to `u32` and keeps the
//! conversion of a constant as an expression: `x >> 33ul` reads as
//! `x >> u32(33lu)`. naga validates that module, but its WGSL reader cannot
//! evaluate `u32(33lu)` (`Cannot cast scalar components of expression
//! Literal(U64(33)) to type u32`), so the text atomport prints would not
//! read back. A conversion of an integer literal is exact to do here, with
//! GLSL's rules (integers wrap to the low bits, integers to floats round to
//! nearest), so the conversion becomes the literal it yields.

use naga::{Expression as E, Literal as L, Scalar, ScalarKind, Statement as S};

use crate::lower::ir::visit_blocks;

/// Folds every conversion of an integer literal (or of a constant holding
/// one) into a literal; returns how many.
pub fn fold_literal_conversions(module: &mut naga::Module) -> usize {
    let mut folded = 0;
    let constants = &module.constants;
    let globals = &module.global_expressions;
    let literal_of = |exprs: &naga::Arena<E>, h: naga::Handle<E>| match exprs[h] {
        E::Literal(l) => Some(l),
        E::Constant(c) => match globals[constants[c].init] {
            E::Literal(l) => Some(l),
            _ => None,
        },
        _ => None,
    };
    let mut functions: Vec<&mut naga::Function> =
        crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points).collect();
    for f in functions.iter_mut() {
        let mut literals = Vec::new();
        for (h, e) in f.expressions.iter() {
            if let E::As {
                expr,
                kind,
                convert: Some(width),
            } = *e
                && let Some(l) = literal_of(&f.expressions, expr)
                && let Some(to) = convert(l, Scalar { kind, width })
            {
                literals.push((h, to));
            }
        }
        if literals.is_empty() {
            continue;
        }
        folded += literals.len();
        // A literal is in scope from the start: it leaves the emitted ranges.
        let handles: Vec<_> = literals.iter().map(|&(h, _)| h).collect();
        visit_blocks(&mut f.body, &mut |block| unemit(block, &handles));
        for (h, l) in literals {
            f.expressions[h] = E::Literal(l);
        }
    }
    folded
}

/// `l` converted to `to` as GLSL converts it, where that is exact to say:
/// from an integer to an integer or a float.
fn convert(l: L, to: Scalar) -> Option<L> {
    let v: i128 = match l {
        L::U32(v) => v.into(),
        L::I32(v) => v.into(),
        L::U64(v) => v.into(),
        L::I64(v) => v.into(),
        _ => return None,
    };
    Some(match (to.kind, to.width) {
        (ScalarKind::Uint, 4) => L::U32(v as u32),
        (ScalarKind::Sint, 4) => L::I32(v as i32),
        (ScalarKind::Uint, 8) => L::U64(v as u64),
        (ScalarKind::Sint, 8) => L::I64(v as i64),
        (ScalarKind::Float, 4) => L::F32(v as f32),
        (ScalarKind::Float, 8) => L::F64(v as f64),
        _ => return None,
    })
}

/// Splits each `Emit` in `block` around the handles in `out`.
fn unemit(block: &mut naga::Block, out: &[naga::Handle<E>]) {
    let touched = block.iter().any(|st| match st {
        S::Emit(r) => r.clone().any(|h| out.contains(&h)),
        _ => false,
    });
    if !touched {
        return;
    }
    let old = std::mem::take(block);
    for (st, span) in old.span_into_iter() {
        let S::Emit(range) = st else {
            block.push(st, span);
            continue;
        };
        let mut run: Option<(naga::Handle<E>, naga::Handle<E>)> = None;
        for h in range {
            if out.contains(&h) {
                if let Some((a, b)) = run.take() {
                    block.push(S::Emit(naga::Range::new_from_bounds(a, b)), span);
                }
            } else {
                run = Some(run.map_or((h, h), |(a, _)| (a, h)));
            }
        }
        if let Some((a, b)) = run {
            block.push(S::Emit(naga::Range::new_from_bounds(a, b)), span);
        }
    }
}
