//! IR passes, on naga's module after its SPIR-V reader: barriers where
//! WGSL's uniformity analysis allows them ([`uniformity`]), strong
//! compare-exchanges ([`compswap`]), WGSL's natural layout made equal to
//! the shader's offsets ([`layout`]), each storage image given the access
//! its uses need ([`access`]), conversions of literals folded so the
//! text reads back ([`literals`]), workgroups past WebGPU's default
//! limits split where nothing can tell ([`workgroups`]).

pub mod access;
pub mod compswap;
pub mod layout;
pub mod literals;
pub mod outline;
pub mod predicate;
pub mod privates;
pub mod uniformity;
pub mod workgroups;

/// In each function [`crate::lower::spirv::sampler::outline_binding_array_accesses`] made, the
/// texel access reads (or writes) the element the function selects by its
/// index argument, not the element passed in: see there why.
pub(crate) fn binding_array_accesses(module: &mut naga::Module) {
    use naga::{Expression as E, Statement as S};
    let globals = &module.global_variables;
    let types = &module.types;
    let mut outlined = Vec::new();
    for (handle, f) in module.functions.iter_mut() {
        if f.name.as_deref() != Some(crate::lower::spirv::sampler::ARRAY_ACCESS_FUNCTION)
            || f.arguments.len() < 2
        {
            continue;
        }
        let selected = f.expressions.iter().find_map(|(h, e)| match *e {
            E::Access { base, index }
                if matches!(f.expressions[index], E::FunctionArgument(0))
                    && matches!(f.expressions[base], E::GlobalVariable(g)
                        if matches!(types[globals[g].ty].inner, naga::TypeInner::BindingArray { .. })) =>
            {
                Some(h)
            }
            _ => None,
        });
        let Some(selected) = selected else { continue };
        let passed: Vec<naga::Handle<E>> = f
            .expressions
            .iter()
            .filter(|(_, e)| matches!(e, E::FunctionArgument(1)))
            .map(|(h, _)| h)
            .collect();
        for (_, e) in f.expressions.iter_mut() {
            if let E::ImageLoad { image, .. } = e
                && passed.contains(image)
            {
                *image = selected;
            }
        }
        visit_blocks(&mut f.body, &mut |block| {
            for st in block.iter_mut() {
                if let S::ImageStore { image, .. } = st
                    && passed.contains(image)
                {
                    *image = selected;
                }
            }
        });
        // The element passed in is read no more: the parameter goes (a
        // storage texture passed on counts as read, which a write-only one
        // may not be). Its expression, unused, stands for the index.
        f.arguments.remove(1);
        for (_, e) in f.expressions.iter_mut() {
            if let E::FunctionArgument(k) = e
                && *k >= 1
            {
                *k = if *k == 1 { 0 } else { *k - 1 };
            }
        }
        outlined.push(handle);
    }
    if outlined.is_empty() {
        return;
    }
    let bodies = module.functions.iter_mut().map(|(_, f)| &mut f.body).chain(
        module
            .entry_points
            .iter_mut()
            .map(|ep| &mut ep.function.body),
    );
    for body in bodies {
        visit_blocks(body, &mut |block| {
            for st in block.iter_mut() {
                if let S::Call {
                    function,
                    arguments,
                    ..
                } = st
                    && outlined.contains(function)
                    && arguments.len() > 1
                {
                    arguments.remove(1);
                }
            }
        });
    }
}

/// naga's SPIR-V reader gives a storage image its access (`readonly`,
/// `writeonly`) only when it is not in an array: a binding array of storage
/// images gets the access its uses need, loads and stores.
pub(crate) fn storage_array_access(module: &mut naga::Module) {
    use naga::{Expression as E, Statement as S, StorageAccess as A};
    let arrays: Vec<naga::Handle<naga::GlobalVariable>> = module
        .global_variables
        .iter()
        .filter(|(_, v)| {
            matches!(module.types[v.ty].inner, naga::TypeInner::BindingArray { base, .. }
            if matches!(module.types[base].inner, naga::TypeInner::Image {
                class: naga::ImageClass::Storage { .. }, ..
            }))
        })
        .map(|(h, _)| h)
        .collect();
    for var in arrays {
        let mut access = A::empty();
        let functions = module
            .functions
            .iter()
            .map(|(_, f)| f)
            .chain(module.entry_points.iter().map(|ep| &ep.function));
        for f in functions {
            let of_var = |image: naga::Handle<E>| match f.expressions[image] {
                E::Access { base, .. } | E::AccessIndex { base, .. } => {
                    matches!(f.expressions[base], E::GlobalVariable(g) if g == var)
                }
                _ => false,
            };
            for (_, e) in f.expressions.iter() {
                if let E::ImageLoad { image, .. } = *e
                    && of_var(image)
                {
                    access |= A::LOAD;
                }
            }
            let mut body = f.body.clone();
            visit_blocks(&mut body, &mut |block| {
                for st in block.iter() {
                    if let S::ImageStore { image, .. } = *st
                        && of_var(image)
                    {
                        access |= A::STORE;
                    }
                }
            });
        }
        let ty = module.global_variables[var].ty;
        let naga::TypeInner::BindingArray { base, size } = module.types[ty].inner else {
            continue;
        };
        let naga::TypeInner::Image {
            dim,
            arrayed,
            class:
                naga::ImageClass::Storage {
                    format,
                    access: old,
                },
        } = module.types[base].inner
        else {
            continue;
        };
        if access.is_empty() || access == old {
            continue;
        }
        let image = module.types.insert(
            naga::Type {
                name: None,
                inner: naga::TypeInner::Image {
                    dim,
                    arrayed,
                    class: naga::ImageClass::Storage { format, access },
                },
            },
            naga::Span::UNDEFINED,
        );
        let array = module.types.insert(
            naga::Type {
                name: None,
                inner: naga::TypeInner::BindingArray { base: image, size },
            },
            naga::Span::UNDEFINED,
        );
        module.global_variables[var].ty = array;
        // The functions binding_array_accesses made take the element too.
        for (_, f) in module.functions.iter_mut() {
            for a in &mut f.arguments {
                if a.ty == base {
                    a.ty = image;
                }
            }
        }
    }
}

/// An array of buffer blocks that stays one binding (`buffer B { … }
/// bufs[];`, indexed at run time): naga's SPIR-V reader makes binding
/// arrays only of images and samplers, and reads this one as an array of
/// structs, which WGSL cannot hold in a storage buffer. It is a binding
/// array of storage buffers, which wgpu binds where the adapter has
/// BUFFER_BINDING_ARRAY and STORAGE_RESOURCE_BINDING_ARRAY.
pub(crate) fn buffer_binding_arrays(module: &mut naga::Module) {
    let handles: Vec<_> = module.global_variables.iter().map(|(h, _)| h).collect();
    for h in handles {
        let var = &module.global_variables[h];
        if var.binding.is_none() || !matches!(var.space, naga::AddressSpace::Storage { .. }) {
            continue;
        }
        let naga::TypeInner::Array { base, size, .. } = module.types[var.ty].inner else {
            continue;
        };
        if !matches!(module.types[base].inner, naga::TypeInner::Struct { .. }) {
            continue;
        }
        let name = module.types[var.ty].name.clone();
        let ty = module.types.insert(
            naga::Type {
                name,
                inner: naga::TypeInner::BindingArray { base, size },
            },
            naga::Span::UNDEFINED,
        );
        module.global_variables[h].ty = ty;
    }
}

/// WGSL has no write-only storage buffers: a GLSL `writeonly buffer` becomes
/// `read_write` (reading it is still never done by the shader).
pub(crate) fn writeonly_storage_readable(module: &mut naga::Module) {
    for (_, var) in module.global_variables.iter_mut() {
        if let naga::AddressSpace::Storage { access } = &mut var.space
            && !access.contains(naga::StorageAccess::LOAD)
        {
            *access |= naga::StorageAccess::LOAD;
        }
    }
}

/// GLSL's `memoryBarrier()` orders image memory too, which naga reads as a
/// `textureBarrier()`; in a module without storage textures that barrier
/// orders nothing, and it is not available on every backend, so drop it.
pub(crate) fn barriers_without_textures(module: &mut naga::Module) {
    let has_storage_textures = module.global_variables.iter().any(|(_, v)| {
        matches!(
            module.types[v.ty].inner,
            naga::TypeInner::Image {
                class: naga::ImageClass::Storage { .. },
                ..
            }
        )
    });
    if has_storage_textures {
        return;
    }
    let mut strip = |block: &mut naga::Block| {
        for (st, _) in block.span_iter_mut() {
            if let naga::Statement::ControlBarrier(flags) | naga::Statement::MemoryBarrier(flags) =
                st
            {
                flags.remove(naga::Barrier::TEXTURE);
            }
        }
    };
    for (_, f) in module.functions.iter_mut() {
        visit_blocks(&mut f.body, &mut strip);
    }
    for ep in module.entry_points.iter_mut() {
        visit_blocks(&mut ep.function.body, &mut strip);
    }
}

/// Which function of a module: an entry point's or one of
/// `module.functions`.
#[derive(Clone, Copy)]
pub(crate) enum Which {
    Entry(usize),
    Function(naga::Handle<naga::Function>),
}

impl Which {
    /// Every function of `module`, module functions first.
    pub(crate) fn all(module: &naga::Module) -> Vec<Which> {
        module
            .functions
            .iter()
            .map(|(h, _)| Which::Function(h))
            .chain((0..module.entry_points.len()).map(Which::Entry))
            .collect()
    }

    /// A number for each function of `module`, entry points after.
    pub(crate) fn key(self, module: &naga::Module) -> usize {
        match self {
            Which::Entry(i) => module.functions.len() + i,
            Which::Function(h) => h.index(),
        }
    }

    /// The function, to read.
    pub(crate) fn of(self, module: &naga::Module) -> &naga::Function {
        match self {
            Which::Entry(i) => &module.entry_points[i].function,
            Which::Function(h) => &module.functions[h],
        }
    }

    /// The function, to edit, given the module's two fields (so that its
    /// other fields stay free to borrow).
    pub(crate) fn in_mut<'m>(
        self,
        functions: &'m mut naga::Arena<naga::Function>,
        entry_points: &'m mut [naga::EntryPoint],
    ) -> &'m mut naga::Function {
        match self {
            Which::Entry(i) => &mut entry_points[i].function,
            Which::Function(h) => &mut functions[h],
        }
    }

    /// Its validation info.
    pub(crate) fn info(self, info: &naga::valid::ModuleInfo) -> &naga::valid::FunctionInfo {
        match self {
            Which::Entry(i) => info.get_entry_point(i),
            Which::Function(h) => &info[h],
        }
    }
}

/// Every function of a module, entry points' last, to edit (given the
/// module's two fields, so that its other fields stay free to borrow).
pub(crate) fn functions_mut<'m>(
    functions: &'m mut naga::Arena<naga::Function>,
    entry_points: &'m mut [naga::EntryPoint],
) -> impl Iterator<Item = &'m mut naga::Function> {
    functions
        .iter_mut()
        .map(|(_, f)| f)
        .chain(entry_points.iter_mut().map(|ep| &mut ep.function))
}

/// The expression a pointer expression of `f` starts from: the variable or
/// argument under its chain of accesses.
pub(crate) fn pointer_root(
    f: &naga::Function,
    mut pointer: naga::Handle<naga::Expression>,
) -> &naga::Expression {
    loop {
        match f.expressions[pointer] {
            naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. } => {
                pointer = base
            }
            ref e => return e,
        }
    }
}

/// The blocks a statement holds (an `if`'s, a `switch`'s cases, a loop's
/// body and continuing, a nested block), to read.
pub(crate) fn child_blocks(st: &naga::Statement) -> Vec<&naga::Block> {
    use naga::Statement as S;
    match st {
        S::Block(b) => vec![b],
        S::If { accept, reject, .. } => vec![accept, reject],
        S::Switch { cases, .. } => cases.iter().map(|c| &c.body).collect(),
        S::Loop {
            body, continuing, ..
        } => vec![body, continuing],
        _ => Vec::new(),
    }
}

/// `st` with each block it holds (an `if`'s, a `switch`'s cases, a loop's
/// body and continuing, a nested block) replaced by `f(block, in_loop)`,
/// where `in_loop` says the block is a loop's; other statements as they are.
pub(crate) fn map_blocks<E>(
    st: naga::Statement,
    mut f: impl FnMut(naga::Block, bool) -> Result<naga::Block, E>,
) -> Result<naga::Statement, E> {
    use naga::Statement as S;
    Ok(match st {
        S::Block(b) => S::Block(f(b, false)?),
        S::If {
            condition,
            accept,
            reject,
        } => S::If {
            condition,
            accept: f(accept, false)?,
            reject: f(reject, false)?,
        },
        S::Switch { selector, cases } => S::Switch {
            selector,
            cases: cases
                .into_iter()
                .map(|mut c| {
                    c.body = f(std::mem::take(&mut c.body), false)?;
                    Ok(c)
                })
                .collect::<Result<Vec<_>, E>>()?,
        },
        S::Loop {
            body,
            continuing,
            break_if,
        } => S::Loop {
            body: f(body, true)?,
            continuing: f(continuing, true)?,
            break_if,
        },
        other => other,
    })
}

/// Calls `f` on `block` and every block nested in it, reading them only
/// (outer blocks first).
pub(crate) fn visit_blocks_ref(block: &naga::Block, f: &mut impl FnMut(&naga::Block)) {
    f(block);
    for st in block.iter() {
        for b in child_blocks(st) {
            visit_blocks_ref(b, f);
        }
    }
}

/// Calls `f` on `block` and every block nested in it (inner blocks first,
/// so that `f` may edit a block after its nested ones were seen).
pub(crate) fn visit_blocks(block: &mut naga::Block, f: &mut impl FnMut(&mut naga::Block)) {
    for (st, _) in block.span_iter_mut() {
        match st {
            naga::Statement::Block(b) => visit_blocks(b, f),
            naga::Statement::If { accept, reject, .. } => {
                visit_blocks(accept, f);
                visit_blocks(reject, f);
            }
            naga::Statement::Switch { cases, .. } => {
                for c in cases {
                    visit_blocks(&mut c.body, f);
                }
            }
            naga::Statement::Loop {
                body, continuing, ..
            } => {
                visit_blocks(body, f);
                visit_blocks(continuing, f);
            }
            _ => {}
        }
    }
    f(block);
}

/// `frexp` and `modf` (GLSL.std.450's FrexpStruct and ModfStruct): naga's
/// reader makes each a `Math` expression whose result is WGSL's predeclared
/// `__frexp_result_*` / `__modf_result_*` struct, but registers no such
/// type, so the module does not validate ("Special type is not
/// registered"). Each one the module needs is registered, by the type of
/// the argument, in order, so that a `frexp` of a `frexp`'s part resolves.
pub(crate) fn predeclared_results(module: &mut naga::Module) {
    use naga::{Expression, MathFunction, PredeclaredType, TypeInner};
    let calls: Vec<(Option<naga::Handle<naga::Function>>, usize, _, _)> = module
        .functions
        .iter()
        .map(|(h, f)| (Some(h), 0, f))
        .chain(
            module
                .entry_points
                .iter()
                .enumerate()
                .map(|(k, ep)| (None, k, &ep.function)),
        )
        .flat_map(|(h, k, f)| {
            f.expressions.iter().filter_map(move |(_, e)| match *e {
                Expression::Math {
                    fun: fun @ (MathFunction::Frexp | MathFunction::Modf),
                    arg,
                    ..
                } => Some((h, k, fun, arg)),
                _ => None,
            })
        })
        .collect();
    for (h, k, fun, arg) in calls {
        let wanted = {
            let f = match h {
                Some(h) => &module.functions[h],
                None => &module.entry_points[k].function,
            };
            let ctx =
                naga::proc::ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
            // The typifier resolves every expression of the arena it is
            // given: given those up to the argument, as later ones may be
            // results not registered yet.
            let mut before = naga::Arena::new();
            for (_, e) in f.expressions.iter().take(arg.index() + 1) {
                before.append(e.clone(), naga::Span::UNDEFINED);
            }
            let mut types = naga::front::Typifier::new();
            if types.grow(arg, &before, &ctx).is_err() {
                continue;
            }
            let (size, scalar) = match *types.get(arg, &module.types) {
                TypeInner::Scalar(s) => (None, s),
                TypeInner::Vector { size, scalar } => (Some(size), scalar),
                _ => continue,
            };
            match fun {
                MathFunction::Frexp => PredeclaredType::FrexpResult { size, scalar },
                _ => PredeclaredType::ModfResult { size, scalar },
            }
        };
        module.generate_predeclared_type(wanted);
    }
}

/// A shadow sampler passed to a function: naga's reader makes a global
/// sampler a comparison sampler when a depth comparison samples through it,
/// but leaves a function's sampler parameter a plain one ("Comparison
/// sampling mismatch"). A parameter that a depth comparison samples through,
/// or that is passed on to such a parameter, becomes a comparison sampler.
pub(crate) fn comparison_sampler_parameters(module: &mut naga::Module) {
    let sampler = |comparison| naga::Type {
        name: None,
        inner: naga::TypeInner::Sampler { comparison },
    };
    let Some(plain) = module.types.get(&sampler(false)) else {
        return;
    };
    let comparison = module.types.insert(sampler(true), naga::Span::UNDEFINED);
    // Each round makes the parameters passed on to the last round's
    // comparison ones; a chain of calls is at most as long as there are
    // functions.
    for _ in 0..=module.functions.len() {
        let wanted: Vec<(naga::Handle<naga::Function>, usize)> = module
            .functions
            .iter()
            .flat_map(|(h, f)| {
                comparison_uses(module, f)
                    .into_iter()
                    .filter(move |&k| f.arguments.get(k).is_some_and(|a| a.ty == plain))
                    .map(move |k| (h, k))
            })
            .collect();
        if wanted.is_empty() {
            return;
        }
        for (h, k) in wanted {
            module.functions[h].arguments[k].ty = comparison;
        }
    }
}

/// The parameters of `f` that a depth comparison samples through, or that
/// `f` passes to a comparison-sampler parameter.
fn comparison_uses(module: &naga::Module, f: &naga::Function) -> Vec<usize> {
    use naga::{Expression, Statement};
    let parameter = |e: naga::Handle<Expression>| match f.expressions[e] {
        Expression::FunctionArgument(k) => Some(k as usize),
        _ => None,
    };
    let mut out: Vec<usize> = f
        .expressions
        .iter()
        .filter_map(|(_, e)| match *e {
            Expression::ImageSample {
                sampler,
                depth_ref: Some(_),
                ..
            } => parameter(sampler),
            _ => None,
        })
        .collect();
    let mut found = Vec::new();
    visit_blocks_ref(&f.body, &mut |block| {
        for st in block.iter() {
            if let Statement::Call {
                function,
                arguments,
                ..
            } = st
            {
                found.push((*function, arguments.clone()));
            }
        }
    });
    for (callee, arguments) in found {
        for (j, &a) in arguments.iter().enumerate() {
            let to_comparison = module.functions[callee].arguments.get(j).is_some_and(|p| {
                matches!(
                    module.types[p.ty].inner,
                    naga::TypeInner::Sampler { comparison: true }
                )
            });
            if to_comparison && let Some(k) = parameter(a) {
                out.push(k);
            }
        }
    }
    out
}
