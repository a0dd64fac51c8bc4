//! IR pass: make WGSL's natural layout of every struct equal the offsets the
//! SPIR-V declared.
//!
//! naga's WGSL writer prints no `@align`/`@size`, so a struct member whose
//! declared offset is past its natural WGSL offset would move. That happens
//! when the vector pass turns an `ivec4` (16-byte aligned) into `i32[4]`
//! (4-byte aligned). Explicit padding members restore every offset, and the
//! member indices in the functions are renumbered to match.

use rustc_hash::FxHashMap as HashMap;

use naga::proc::Layouter;
use naga::{Expression, Handle, ScalarKind, StructMember, Type, TypeInner};

use crate::{Error, Result};

/// The name of every padding member is this prefix and a number.
pub(crate) const PADDING: &str = "_pad";

/// Whether a member is one the pass added.
pub(crate) fn is_padding(name: &str) -> bool {
    name.strip_prefix(PADDING)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

/// Pads structs so their natural layout matches their offsets; returns how many it padded.
pub fn match_natural_layout(
    module: &mut naga::Module,
    info: &naga::valid::ModuleInfo,
) -> Result<usize> {
    let plans = padding_plans(module)?;
    if plans.is_empty() {
        return Ok(0);
    }
    let edits = module
        .functions
        .iter()
        .map(|(fh, f)| member_renumbering(module, &plans, f, &info[fh]))
        .chain(module.entry_points.iter().enumerate().map(|(i, ep)| {
            member_renumbering(module, &plans, &ep.function, info.get_entry_point(i))
        }))
        .collect::<Result<Vec<_>>>()?;
    let functions =
        crate::lower::ir::functions_mut(&mut module.functions, &mut module.entry_points);
    for (f, edits) in functions.zip(edits) {
        for (eh, new_index) in edits {
            if let Expression::AccessIndex { index, .. } = f.expressions.get_mut(eh) {
                *index = new_index;
            }
        }
    }
    let count = plans.len();
    for (h, (members, _)) in plans {
        let old = &module.types[h];
        let TypeInner::Struct { span, .. } = old.inner else {
            continue;
        };
        let new = Type {
            name: old.name.clone(),
            inner: TypeInner::Struct { members, span },
        };
        module.types.replace(h, new);
    }
    Ok(count)
}

/// Per struct that needs padding: (its new members, old index -> new index).
type Plans = HashMap<Handle<Type>, (Vec<StructMember>, Vec<u32>)>;

/// The padded members of every struct whose natural layout would move a
/// member; refuses members no padding can place.
fn padding_plans(module: &naga::Module) -> Result<Plans> {
    let mut layouter = Layouter::default();
    layouter.update(module.to_ctx()).map_err(|e| {
        Error::Unsupported(format!("a type has no WGSL layout ({e}): is it too large?"))
    })?;
    let mut plans = Plans::default();
    for (h, ty) in module.types.iter() {
        let TypeInner::Struct { ref members, .. } = ty.inner else {
            continue;
        };
        let struct_name = ty.name.as_deref().unwrap_or("struct");
        let mut out = Vec::with_capacity(members.len());
        let mut map = Vec::with_capacity(members.len());
        let mut cur = 0u32;
        let mut pads = 0;
        let mut filler = None;
        for m in members {
            let layout = layouter[m.ty];
            let natural = layout.alignment.round_up(cur);
            if m.offset != natural {
                // More than 4 KiB of padding is no layout GLSL makes: refuse
                // rather than build thousands of members.
                if m.offset < natural
                    || m.offset - natural > 4096
                    || layout.alignment.round_up(m.offset) != m.offset
                    || !cur.is_multiple_of(4)
                {
                    return Err(Error::Unsupported(format!(
                        "member `{}` of `{struct_name}` at offset {} cannot be placed there in WGSL (its natural offset is {natural})",
                        m.name.as_deref().unwrap_or("?"),
                        m.offset
                    )));
                }
                let (filler, size) = *filler.get_or_insert(
                    filler_before(module, &layouter, h, cur, m.offset).ok_or_else(|| {
                        Error::Unsupported(format!(
                            "no type declared before `{struct_name}` fills the {} bytes before its member `{}` (a 4-byte scalar would)",
                            m.offset - natural,
                            m.name.as_deref().unwrap_or("?")
                        ))
                    })?,
                );
                if !(m.offset - cur).is_multiple_of(size) || !cur.is_multiple_of(size) {
                    return Err(Error::Unsupported(format!(
                        "member `{}` of `{struct_name}` at offset {} cannot be placed there in WGSL: the padding before it would be {size}-byte pieces",
                        m.name.as_deref().unwrap_or("?"),
                        m.offset
                    )));
                }
                while cur < m.offset {
                    out.push(StructMember {
                        name: Some(format!("{PADDING}{pads}")),
                        ty: filler,
                        binding: None,
                        offset: cur,
                    });
                    pads += 1;
                    cur += size;
                }
            }
            map.push(out.len() as u32);
            out.push(m.clone());
            cur = m.offset + layout.size;
        }
        if pads > 0 {
            plans.insert(h, (out, map));
        }
    }
    Ok(plans)
}

/// The member accesses of `f` into padded structs, with their new indices.
fn member_renumbering(
    module: &naga::Module,
    plans: &Plans,
    f: &naga::Function,
    fi: &naga::valid::FunctionInfo,
) -> Result<Vec<(Handle<Expression>, u32)>> {
    // The struct an access's base resolves to.
    let resolve = |res: &naga::proc::TypeResolution| -> Option<Handle<Type>> {
        match *res {
            naga::proc::TypeResolution::Handle(t) => match module.types[t].inner {
                TypeInner::Pointer { base, .. } => Some(base),
                _ => Some(t),
            },
            naga::proc::TypeResolution::Value(TypeInner::Pointer { base, .. }) => Some(base),
            _ => None,
        }
    };
    let mut edits = Vec::new();
    for (eh, e) in f.expressions.iter() {
        match *e {
            Expression::AccessIndex { base, index } => {
                if let Some(t) = resolve(&fi[base].ty)
                    && let Some((_, map)) = plans.get(&t)
                {
                    edits.push((eh, map[index as usize]));
                }
            }
            Expression::Compose { ty, .. } if plans.contains_key(&ty) => {
                return Err(Error::Unsupported(
                    "constructing a whole struct that holds a vector used by atomics".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(edits)
}

/// A 32-bit scalar type declared before `before`, to pad with.
fn filler_before(
    module: &naga::Module,
    layouter: &Layouter,
    before: Handle<Type>,
    from: u32,
    to: u32,
) -> Option<(Handle<Type>, u32)> {
    let earlier = || module.types.iter().take_while(|(h, _)| *h < before);
    // A 4-byte scalar fills any gap; else a vector whose size is its
    // alignment (`vec2`, `vec4` of 4-byte scalars) fills one it divides,
    // where a block declares only vectors (a `vec4` at offset 16).
    earlier()
        .find(|(_, t)| {
            matches!(t.inner, TypeInner::Scalar(s) if s.width == 4 && s.kind != ScalarKind::Bool)
        })
        .map(|(h, _)| (h, 4))
        .or_else(|| {
            earlier().find_map(|(h, t)| {
                let TypeInner::Vector { scalar, .. } = t.inner else {
                    return None;
                };
                let l = layouter[h];
                let size = l.size;
                (scalar.width == 4
                    && scalar.kind != ScalarKind::Bool
                    && l.alignment.round_up(1) == size
                    && from.is_multiple_of(size)
                    && (to - from).is_multiple_of(size))
                .then_some((h, size))
            })
        })
}
