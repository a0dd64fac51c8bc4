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

/// Moves every descriptor set numbered `max_groups` or more to the lowest
/// set number below it that the shader does not use, with its bindings,
/// their aliases and the moves already made (`renumbered`); records each
/// binding moved. Fails, naming the sets, when there are more sets than
/// `max_groups`.
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
    let mut moves: Vec<(u32, u32)> = Vec::new();
    for &set in &high {
        let Some(to) = free.next() else {
            let sets: Vec<String> = used.iter().map(u32::to_string).collect();
            return Err(crate::Error::Unsupported(format!(
                "the shader uses {} descriptor sets ({}); WebGPU has {max_groups} bind groups",
                used.len(),
                sets.join(", ")
            )));
        };
        moves.push((set, to));
    }
    let to_of = |set: u32| moves.iter().find(|m| m.0 == set).map(|m| m.1);
    for &(_, set, binding) in &vars {
        let Some(to) = to_of(set) else { continue };
        match renumbered
            .iter_mut()
            .find(|r| r.group == set && r.binding == binding)
        {
            Some(r) => r.group = to,
            None => renumbered.push(Renumbered {
                group: to,
                binding,
                declared: binding,
                declared_group: set,
            }),
        }
    }
    for a in aliases.iter_mut() {
        if let Some(to) = to_of(a.group) {
            a.group = to;
        }
    }
    let moved: Vec<(rspirv::spirv::Word, u32)> = vars
        .iter()
        .filter_map(|&(v, set, _)| Some((v, to_of(set)?)))
        .collect();
    for a in &mut m.module_mut().annotations {
        if let [
            Operand::IdRef(t),
            Operand::Decoration(Decoration::DescriptorSet),
            Operand::LiteralBit32(v),
        ] = a.operands.as_mut_slice()
            && let Some(&(_, to)) = moved.iter().find(|(var, _)| var == t)
        {
            *v = to;
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
