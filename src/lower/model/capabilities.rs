//! The module's capabilities and extensions, declared and dropped as the
//! passes change what the module uses.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;

use super::Model;

impl Model {
    /// Drops every capability and extension that `drop` matches.
    pub(crate) fn drop_capabilities(
        &mut self,
        capabilities: &[rspirv::spirv::Capability],
        extensions: &[&str],
    ) {
        let module = &mut self.module;
        module.capabilities.retain(|c| {
            !matches!(c.operands.first(), Some(Operand::Capability(x)) if capabilities.contains(x))
        });
        module.extensions.retain(|e| {
            !matches!(e.operands.first(), Some(Operand::LiteralString(s)) if extensions.contains(&s.as_str()))
        });
    }

    /// The module's `OpMemoryModel`, to edit: the index does not cover it,
    /// so editing it keeps the index (as [`Model::module_mut`] does not).
    pub(crate) fn memory_model_mut(&mut self) -> Option<&mut Instruction> {
        self.module.memory_model.as_mut()
    }

    /// Keeps the execution modes `keep` says, returning how many went: the
    /// index does not cover them, so it stays.
    pub(crate) fn retain_execution_modes(
        &mut self,
        keep: impl FnMut(&Instruction) -> bool,
    ) -> usize {
        let modes = &mut self.module.execution_modes;
        let before = modes.len();
        modes.retain(keep);
        before - modes.len()
    }

    /// Declares `capability` unless the module has it.
    pub(crate) fn add_capability(&mut self, capability: rspirv::spirv::Capability) {
        let module = &mut self.module;
        let has = module
            .capabilities
            .iter()
            .any(|c| c.operands.first() == Some(&Operand::Capability(capability)));
        if !has {
            module.capabilities.push(Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(capability)],
            ));
        }
    }
}
