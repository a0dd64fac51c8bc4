//! IR pass for the WebGPU target: a workgroup larger than WebGPU's default
//! limits (256 invocations; 256, 256 and 64 along x, y and z) is split into
//! smaller ones where nothing can tell, so that a browser that grants only
//! the defaults runs it.
//!
//! Invocations of one workgroup can see each other only through `shared`
//! memory, barriers and subgroup operations. A kernel without any of them
//! computes the same whichever invocations share a workgroup, as long as
//! each sees the built-ins it would have: the entry point becomes a
//! function called by a new one of the smaller size, which gives it the
//! original workgroup and local IDs, local index and workgroup count.
//! Workgroup `w` of the new size is, along each axis, part `w % f` of the
//! original workgroup `w / f`, where `f` is the factor the size was divided
//! by; the dispatch has `f` times the workgroups
//! ([`crate::Kernel::workgroup_split`]), and the global IDs are unchanged.

use naga::{
    BinaryOperator, Binding, BuiltIn, Expression, Function, FunctionArgument, Handle, Literal,
    Scalar, Span, Statement, Type, TypeInner, VectorSize,
};

/// WebGPU's default `maxComputeInvocationsPerWorkgroup`.
const INVOCATIONS: u32 = 256;
/// WebGPU's default `maxComputeWorkgroupSize{X,Y,Z}`.
const AXES: [u32; 3] = [256, 256, 64];

/// The size a workgroup of `size` is split to and the factor per axis, or
/// `None` where it is within the defaults (or empty).
pub(crate) fn split_size(size: [u32; 3]) -> Option<([u32; 3], [u32; 3])> {
    let fits = |s: &[u32; 3]| {
        s.iter().map(|&n| u64::from(n)).product::<u64>() <= u64::from(INVOCATIONS)
            && s.iter().zip(AXES).all(|(&n, max)| n <= max)
    };
    if fits(&size) || size.contains(&0) {
        return None;
    }
    let (mut new, mut factor) = (size, [1u32; 3]);
    while !fits(&new) {
        // The axis past its own limit first, else the longest; divided by
        // its smallest prime factor, so every part is the same size.
        let k = (0..3)
            .find(|&k| new[k] > AXES[k])
            .unwrap_or_else(|| (0..3).max_by_key(|&k| (new[k], 3 - k)).unwrap_or(0));
        let p = (2..=new[k]).find(|p| new[k] % p == 0)?;
        new[k] /= p;
        factor[k] *= p;
    }
    Some((new, factor))
}

/// Why the entry point's invocations may see which others share their
/// workgroup, if they may: what keeps it whole.
fn keeps_whole(module: &naga::Module, ep: &naga::EntryPoint) -> Option<&'static str> {
    if ep.workgroup_size_overrides.is_some() {
        return Some("its size is set by specialization");
    }
    if module
        .global_variables
        .iter()
        .any(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
    {
        return Some("it has shared memory");
    }
    let shared_builtin = ep.function.arguments.iter().any(|a| {
        !matches!(
            a.binding,
            Some(Binding::BuiltIn(
                BuiltIn::GlobalInvocationId
                    | BuiltIn::LocalInvocationId
                    | BuiltIn::LocalInvocationIndex
                    | BuiltIn::WorkGroupId
                    | BuiltIn::NumWorkGroups
            ))
        )
    });
    if shared_builtin {
        return Some("it reads subgroup built-ins");
    }
    let mut why = None;
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(std::iter::once(&ep.function));
    for f in functions {
        super::visit_blocks_ref(&f.body, &mut |block| {
            for st in block.iter() {
                why = why.or(match st {
                    Statement::ControlBarrier(_)
                    | Statement::MemoryBarrier(_)
                    | Statement::WorkGroupUniformLoad { .. } => Some("it has barriers"),
                    Statement::SubgroupBallot { .. }
                    | Statement::SubgroupGather { .. }
                    | Statement::SubgroupCollectiveOperation { .. } => {
                        Some("it has subgroup operations")
                    }
                    _ => None,
                });
            }
        });
    }
    why
}

/// Splits the workgroups of every compute entry point past WebGPU's
/// defaults where nothing can tell (see the module docs); returns the
/// factor per axis the dispatch multiplies the workgroups by (`[1, 1, 1]`
/// where none was split), with the reason one was kept whole.
pub(crate) fn split_workgroups(module: &mut naga::Module) -> ([u32; 3], Option<String>) {
    let mut split = [1u32; 3];
    let mut kept = None;
    for i in 0..module.entry_points.len() {
        let ep = &module.entry_points[i];
        if ep.stage != naga::ShaderStage::Compute {
            continue;
        }
        let Some((size, factor)) = split_size(ep.workgroup_size) else {
            continue;
        };
        if let Some(why) = keeps_whole(module, ep) {
            let s = ep.workgroup_size;
            kept = Some(format!(
                "its workgroup of {}x{}x{} invocations is past WebGPU's default limits and stays whole: {why}",
                s[0], s[1], s[2]
            ));
            continue;
        }
        let original = ep.workgroup_size;
        let u32x3 = module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Vector {
                    size: VectorSize::Tri,
                    scalar: Scalar::U32,
                },
            },
            Span::UNDEFINED,
        );
        let ep = &mut module.entry_points[i];
        let mut inner = std::mem::take(&mut ep.function);
        let builtins: Vec<Option<BuiltIn>> = inner
            .arguments
            .iter_mut()
            .map(|a| match a.binding.take() {
                Some(Binding::BuiltIn(b)) => Some(b),
                _ => None,
            })
            .collect();
        inner.name = Some(format!("{}_of_whole_workgroup", ep.name));
        let outer = outer_entry(&builtins, original, size, factor, u32x3, module, inner);
        let ep = &mut module.entry_points[i];
        ep.function = outer;
        ep.workgroup_size = size;
        split = factor;
    }
    (split, kept)
}

/// Appends expressions to a function's arena.
struct Exprs<'a>(&'a mut naga::Arena<Expression>);

impl Exprs<'_> {
    fn add(&mut self, x: Expression) -> Handle<Expression> {
        self.0.append(x, Span::UNDEFINED)
    }

    fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.add(Expression::Literal(Literal::U32(v)))
    }

    fn bin(
        &mut self,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.add(Expression::Binary { op, left, right })
    }

    /// `vec3<u32>` of `f(k)` for each axis `k`.
    fn vector(
        &mut self,
        ty: Handle<Type>,
        mut f: impl FnMut(&mut Self, u32) -> Handle<Expression>,
    ) -> Handle<Expression> {
        let components = (0..3).map(|k| f(self, k)).collect();
        self.add(Expression::Compose { ty, components })
    }
}

/// The new entry point: computes the original built-ins (`builtins`, the
/// inner function's arguments in order) from its own and calls `inner`,
/// which joins the module's functions.
fn outer_entry(
    builtins: &[Option<BuiltIn>],
    original: [u32; 3],
    size: [u32; 3],
    factor: [u32; 3],
    u32x3: Handle<Type>,
    module: &mut naga::Module,
    inner: Function,
) -> Function {
    let called = module.functions.append(inner, Span::UNDEFINED);
    let mut f = Function {
        name: None,
        arguments: [
            ("workgroup", BuiltIn::WorkGroupId),
            ("local", BuiltIn::LocalInvocationId),
            ("workgroups", BuiltIn::NumWorkGroups),
        ]
        .into_iter()
        .map(|(name, b)| FunctionArgument {
            name: Some(name.into()),
            ty: u32x3,
            binding: Some(Binding::BuiltIn(b)),
        })
        .collect(),
        ..Function::default()
    };
    let wants = |b: BuiltIn| builtins.contains(&Some(b));
    let mut e = Exprs(&mut f.expressions);
    let [w, l, n] = [0, 1, 2].map(|k| e.add(Expression::FunctionArgument(k)));
    let factors = factor.map(|v| e.u32(v));
    let sizes = size.map(|v| e.u32(v));
    let row = e.u32(original[0]);
    let layer = e.u32(original[0] * original[1]);
    // Everything after the literals and arguments is emitted.
    let first = e.0.len();
    let axis = |e: &mut Exprs, base, k: u32| e.add(Expression::AccessIndex { base, index: k });
    use BinaryOperator::{Add, Divide, Modulo, Multiply};
    let (mut group, mut local, mut index, mut global, mut count) = (None, None, None, None, None);
    if wants(BuiltIn::WorkGroupId) {
        group = Some(e.vector(u32x3, |e, k| {
            let wk = axis(e, w, k);
            e.bin(Divide, wk, factors[k as usize])
        }));
    }
    if wants(BuiltIn::LocalInvocationId) || wants(BuiltIn::LocalInvocationIndex) {
        let parts = [0, 1, 2].map(|k| {
            let (wk, lk) = (axis(&mut e, w, k), axis(&mut e, l, k));
            let part = e.bin(Modulo, wk, factors[k as usize]);
            let offset = e.bin(Multiply, part, sizes[k as usize]);
            e.bin(Add, offset, lk)
        });
        if wants(BuiltIn::LocalInvocationIndex) {
            let y = e.bin(Multiply, parts[1], row);
            let z = e.bin(Multiply, parts[2], layer);
            let xy = e.bin(Add, parts[0], y);
            index = Some(e.bin(Add, xy, z));
        }
        local = Some(e.add(Expression::Compose {
            ty: u32x3,
            components: parts.to_vec(),
        }));
    }
    if wants(BuiltIn::GlobalInvocationId) {
        global = Some(e.vector(u32x3, |e, k| {
            let (wk, lk) = (axis(e, w, k), axis(e, l, k));
            let start = e.bin(Multiply, wk, sizes[k as usize]);
            e.bin(Add, start, lk)
        }));
    }
    if wants(BuiltIn::NumWorkGroups) {
        count = Some(e.vector(u32x3, |e, k| {
            let nk = axis(e, n, k);
            e.bin(Divide, nk, factors[k as usize])
        }));
    }
    let emitted = f.expressions.range_from(first);
    let arguments = builtins
        .iter()
        .filter_map(|b| match b {
            Some(BuiltIn::WorkGroupId) => group,
            Some(BuiltIn::LocalInvocationId) => local,
            Some(BuiltIn::LocalInvocationIndex) => index,
            Some(BuiltIn::NumWorkGroups) => count,
            // Only the five built-ins above reach here (keeps_whole).
            _ => global,
        })
        .collect();
    f.body.push(Statement::Emit(emitted), Span::UNDEFINED);
    f.body.push(
        Statement::Call {
            function: called,
            arguments,
            result: None,
        },
        Span::UNDEFINED,
    );
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_split_into_equal_parts_within_the_defaults() {
        assert_eq!(split_size([16, 16, 1]), None);
        assert_eq!(split_size([32, 32, 1]), Some(([16, 16, 1], [2, 2, 1])));
        assert_eq!(split_size([1024, 1, 1]), Some(([256, 1, 1], [4, 1, 1])));
        assert_eq!(split_size([1, 1, 128]), Some(([1, 1, 64], [1, 1, 2])));
        assert_eq!(split_size([10, 10, 10]), Some(([5, 5, 10], [2, 2, 1])));
        // 257 is prime: parts of one invocation.
        assert_eq!(split_size([257, 1, 1]), Some(([1, 1, 1], [257, 1, 1])));
    }
}
