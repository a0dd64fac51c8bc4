//! SPIR-V pass: `debugPrintfEXT` (GL_EXT_debug_printf) calls are dropped,
//! with a warning. WGSL has no printf, and naga's reader refuses the
//! `NonSemantic.DebugPrintf` instruction set; a print has no effect on the
//! shader's results (Vulkan's validation layers are what show it), so the
//! shader runs the same without it, and is never refused for it.

use rspirv::dr::Operand;
use rspirv::spirv::Op;

use crate::lower::model::{Model, id};
use crate::lower::spirv::compat::Warning;

/// The instruction set glslang imports for `debugPrintfEXT`.
const PRINTF_SET: &str = "NonSemantic.DebugPrintf";

/// Drops every `debugPrintfEXT` call and the set's import; a warning names
/// how many.
pub fn drop_debug_printf(m: &mut Model) -> Option<Warning> {
    let sets: Vec<_> = m
        .module()
        .ext_inst_imports
        .iter()
        .filter(
            |i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == PRINTF_SET),
        )
        .filter_map(|i| i.result_id)
        .collect();
    if sets.is_empty() {
        return None;
    }
    let module = m.module_mut();
    module
        .ext_inst_imports
        .retain(|i| !i.result_id.is_some_and(|r| sets.contains(&r)));
    let mut dropped = 0;
    for b in module
        .functions
        .iter_mut()
        .flat_map(|f| f.blocks.iter_mut())
    {
        b.instructions.retain(|i| {
            let print = i.class.opcode == Op::ExtInst
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|s| sets.contains(&s));
            dropped += usize::from(print);
            !print
        });
    }
    Some(Warning::new(
        format!(
            "{dropped} debugPrintfEXT call{} dropped: WGSL has no printf, and the shader's results do not depend on its prints",
            if dropped == 1 { "" } else { "s" }
        ),
        &["debugPrintfEXT"],
    ))
}
