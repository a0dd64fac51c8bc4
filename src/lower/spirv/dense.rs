//! SPIR-V pass: binding numbers past WebGPU's limit packed densely.
//!
//! WebGPU allows binding numbers below `maxBindingsPerBindGroup` (1000 by
//! default, and wgpu's default limit on every backend), while Vulkan GLSL
//! numbers bindings freely (a post-processing library numbers its own from
//! 2000, to stay clear of its host's). In a set that uses a number at or past
//! the limit, each binding numbered past it takes, in order, the lowest
//! number no binding of the set declares; the others keep theirs. The
//! binding map keeps the shader's own number of a moved binding
//! ([`crate::BindingInfo::declared`]), and the host binds by it or by name.

use std::collections::{BTreeMap, BTreeSet};

use rspirv::dr::Operand;
use rspirv::spirv::Decoration;

use crate::lower::model::Model;
use crate::lower::spirv::alias::Alias;

/// The number no binding may reach: WebGPU's default (and wgpu's)
/// `maxBindingsPerBindGroup`.
pub const MAX_BINDINGS_PER_GROUP: u32 = 1000;

/// A binding that WGSL numbers apart from the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renumbered {
    /// The descriptor set (WGSL group).
    pub group: u32,
    /// The WGSL binding.
    pub binding: u32,
    /// The binding the shader declared.
    pub declared: u32,
    /// The descriptor set the shader declared (the group, unless it was
    /// moved: [`dense_groups`]).
    pub declared_group: u32,
}

/// WebGPU's bind groups (`maxBindGroups`, which browsers do not raise).
pub const WEBGPU_BIND_GROUPS: u32 = 4;

/// Fits the descriptor sets into `max_groups` bind groups: every set
/// numbered `max_groups` or more moves to the lowest set number below it
/// that the shader does not use, with its bindings; when none is left, the
/// set merges into the group with the fewest bindings (one without binding
/// arrays, where there is one), its bindings numbered after that group's.
/// The aliases and the moves already made (`renumbered`) follow; each
/// binding moved is recorded with the set and binding the shader declared.
/// Fails, naming the limit, when a merged group would need a binding
/// number past [`MAX_BINDINGS_PER_GROUP`].
pub fn dense_groups(
    m: &mut Model,
    aliases: &mut [Alias],
    renumbered: &mut Vec<Renumbered>,
    max_groups: u32,
) -> crate::Result<()> {
    let mut vars: Vec<(rspirv::spirv::Word, u32, u32)> = Vec::new();
    for (v, _, _) in m.variables() {
        if let Some(b) = m.decoration(v, Decoration::Binding) {
            let set = m.decoration(v, Decoration::DescriptorSet).unwrap_or(0);
            vars.push((v, set, b));
        }
    }
    let used: BTreeSet<u32> = vars.iter().map(|v| v.1).collect();
    let high: Vec<u32> = used.iter().copied().filter(|&s| s >= max_groups).collect();
    if high.is_empty() {
        return Ok(());
    }
    let mut free = (0..max_groups).filter(|s| !used.contains(s));
    let (mut moves, mut merged) = (Vec::new(), Vec::new());
    for &set in &high {
        match free.next() {
            Some(to) => moves.push((set, to)),
            None => merged.push(set),
        }
    }
    // Where each (set, binding) goes: (group, binding).
    let mut to: BTreeMap<(u32, u32), (u32, u32)> = BTreeMap::new();
    for &(_, set, binding) in &vars {
        let group = moves.iter().find(|m| m.0 == set).map_or(set, |m| m.1);
        if !merged.contains(&set) {
            to.insert((set, binding), (group, binding));
        }
    }
    let arrays = crate::lower::spirv::arrays::sets_with_binding_arrays(m);
    for &set in &merged {
        let count = |g: u32| to.values().filter(|(group, _)| *group == g).count();
        let target = (0..max_groups)
            .min_by_key(|&g| (arrays.contains(&g), count(g), std::cmp::Reverse(g)))
            .unwrap_or(0);
        let first = to
            .values()
            .filter(|(group, _)| *group == target)
            .map(|&(_, b)| b + 1)
            .max()
            .unwrap_or(0);
        let bindings: BTreeSet<u32> = vars.iter().filter(|v| v.1 == set).map(|v| v.2).collect();
        for (binding, next) in bindings.into_iter().zip(first..) {
            if next >= MAX_BINDINGS_PER_GROUP {
                return Err(crate::Error::Unsupported(format!(
                    "the shader uses {} descriptor sets, and merging set {set} into bind group \
                     {target} (WebGPU has {max_groups}) needs binding numbers past \
                     maxBindingsPerBindGroup ({MAX_BINDINGS_PER_GROUP})",
                    used.len()
                )));
            }
            to.insert((set, binding), (target, next));
        }
    }
    for &(_, set, binding) in &vars {
        let (group, new) = to[&(set, binding)];
        if (group, new) == (set, binding) {
            continue;
        }
        match renumbered
            .iter_mut()
            .find(|r| r.group == set && r.binding == binding)
        {
            Some(r) => (r.group, r.binding) = (group, new),
            None => renumbered.push(Renumbered {
                group,
                binding: new,
                declared: binding,
                declared_group: set,
            }),
        }
    }
    for a in aliases.iter_mut() {
        let (set, binding, of) = (a.group, a.binding, a.of);
        if let Some(&(group, new)) = to.get(&(set, binding)) {
            (a.group, a.binding) = (group, new);
        }
        if let Some(&(_, new)) = to.get(&(set, of)) {
            a.of = new;
        }
    }
    // An alias's number was atomport's own, never the shader's.
    renumbered.retain(|r| {
        !aliases
            .iter()
            .any(|a| a.group == r.group && a.binding == r.binding)
    });
    let placed: Vec<(rspirv::spirv::Word, (u32, u32))> = vars
        .iter()
        .map(|&(v, set, binding)| (v, to[&(set, binding)]))
        .collect();
    for a in &mut m.module_mut().annotations {
        let [
            Operand::IdRef(t),
            Operand::Decoration(d),
            Operand::LiteralBit32(v),
        ] = a.operands.as_mut_slice()
        else {
            continue;
        };
        let Some(&(_, (group, binding))) = placed.iter().find(|(var, _)| var == t) else {
            continue;
        };
        match d {
            Decoration::DescriptorSet => *v = group,
            Decoration::Binding => *v = binding,
            _ => {}
        }
    }
    Ok(())
}

/// Moves every binding at or past [`MAX_BINDINGS_PER_GROUP`] below it, and
/// `aliases` with them; returns the moves.
pub fn dense_bindings(m: &mut Model, aliases: &mut [Alias]) -> Vec<Renumbered> {
    let mut sets: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut vars = Vec::new();
    for (v, _, _) in m.variables() {
        if let Some(b) = m.decoration(v, Decoration::Binding) {
            let set = m.decoration(v, Decoration::DescriptorSet).unwrap_or(0);
            sets.entry(set).or_default().insert(b);
            vars.push((v, set));
        }
    }
    let mut out = Vec::new();
    for (&set, numbers) in &sets {
        // Numbers below the limit stay; each past it takes the lowest
        // number no binding of the set declares, so that a number the host
        // gives means one binding only.
        let mut free = (0..MAX_BINDINGS_PER_GROUP).filter(|n| !numbers.contains(n));
        for &declared in numbers.iter().filter(|&&n| n >= MAX_BINDINGS_PER_GROUP) {
            let Some(binding) = free.next() else { break };
            out.push(Renumbered {
                group: set,
                binding,
                declared,
                declared_group: set,
            });
        }
    }
    if out.is_empty() {
        return out;
    }
    let new_of = |set: u32, declared: u32| {
        out.iter()
            .find(|r| r.group == set && r.declared == declared)
            .map(|r| r.binding)
    };
    for a in aliases.iter_mut() {
        if let Some(b) = new_of(a.group, a.binding) {
            a.binding = b;
        }
        if let Some(of) = new_of(a.group, a.of) {
            a.of = of;
        }
    }
    for a in &mut m.module_mut().annotations {
        if let [
            Operand::IdRef(t),
            Operand::Decoration(Decoration::Binding),
            Operand::LiteralBit32(v),
        ] = a.operands.as_mut_slice()
            && let Some(&(_, set)) = vars.iter().find(|(var, _)| var == t)
            && let Some(b) = new_of(set, *v)
        {
            *v = b;
        }
    }
    // An alias's number was atomport's own, never the shader's.
    out.retain(|r| {
        !aliases
            .iter()
            .any(|a| a.group == r.group && a.binding == r.binding)
    });
    out
}
