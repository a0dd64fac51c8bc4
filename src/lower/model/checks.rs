//! The checks a module passes before any pass walks it: every id defined
//! and declared before use, and shapes and strides a layout can take.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op, Word};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Model, id};
use crate::{Error, Result};

impl Model {
    /// Refuses a module that uses an id nothing defines, naming the id and the
    /// instruction: the passes and naga's reader would index past their tables.
    pub(crate) fn check_ids(&self, name: &str) -> Result<()> {
        let module = &self.module;
        let all = || {
            module
                .all_inst_iter()
                .chain(
                    module
                        .functions
                        .iter()
                        .flat_map(|f| f.def.iter().chain(f.end.iter())),
                )
                .chain(
                    module
                        .functions
                        .iter()
                        .flat_map(|f| f.blocks.iter().filter_map(|b| b.label.as_ref())),
                )
        };
        let defined: FxHashSet<Word> = all().filter_map(|i| i.result_id).collect();
        let bound = module.header.as_ref().map_or(0, |h| h.bound);
        // Fresh ids start at the bound: one already taken would tie the
        // module in knots (a type made its own member, endless walks).
        if let Some(inst) = all().find(|i| i.result_id.is_some_and(|r| r >= bound)) {
            return Err(Error::shader(format!(
                "{name}: malformed SPIR-V: Op{:?} defines %{}, past the module's id bound {bound}",
                inst.class.opcode,
                inst.result_id.unwrap_or_default()
            )));
        }
        for inst in module.all_inst_iter() {
            let used = inst
                .operands
                .iter()
                .filter_map(id)
                .chain(inst.result_type)
                .find(|u| !defined.contains(u));
            if let Some(u) = used {
                let why = if u >= bound {
                    format!("past the module's id bound {bound}")
                } else {
                    "which nothing defines".into()
                };
                return Err(Error::shader(format!(
                    "{name}: malformed SPIR-V: Op{:?} uses %{u}, {why}",
                    inst.class.opcode
                )));
            }
        }
        // Types and constants may use only what comes before them (a pointer
        // declared by OpTypeForwardPointer aside): a cycle such as
        // `%a = OpTypeArray %a %n` would make every walk over types endless.
        let globals = &module.types_global_values;
        let position: FxHashMap<Word, usize> = globals
            .iter()
            .enumerate()
            .filter_map(|(p, i)| Some((i.result_id?, p)))
            .collect();
        let forward: FxHashSet<Word> = globals
            .iter()
            .filter(|i| i.class.opcode == Op::TypeForwardPointer)
            .filter_map(|i| i.operands.first().and_then(id))
            .collect();
        // Non-semantic instructions (debug info) may refer forward; no pass
        // walks through them.
        for (p, inst) in globals
            .iter()
            .enumerate()
            .filter(|(_, i)| i.class.opcode != Op::ExtInst)
        {
            let early = inst
                .operands
                .iter()
                .filter_map(id)
                .chain(inst.result_type)
                .find(|u| position.get(u).is_some_and(|&q| q >= p) && !forward.contains(u));
            if let Some(u) = early {
                return Err(Error::shader(format!(
                    "{name}: malformed SPIR-V: Op{:?} uses %{u} before it is declared",
                    inst.class.opcode
                )));
            }
        }
        self.check_shapes(name)
    }

    /// Refuses type shapes SPIR-V forbids and strides past any real layout,
    /// before a pass allocates one part per component, column or padding
    /// word: those counts are literals from the input.
    fn check_shapes(&self, name: &str) -> Result<()> {
        /// Wider than any std140/std430/scalar stride a real block has.
        const MAX_STRIDE: u32 = 1 << 16;
        let bad = |what: String| Err(Error::shader(format!("{name}: malformed SPIR-V: {what}")));
        for inst in &self.module.types_global_values {
            let count = match inst.operands.get(1) {
                Some(Operand::LiteralBit32(n)) => Some(*n),
                _ => None,
            };
            match inst.class.opcode {
                Op::TypeVector if !count.is_some_and(|n| (2..=4).contains(&n)) => {
                    return bad(format!(
                        "OpTypeVector %{} has {} components; a compute shader's vectors have 2 to 4",
                        inst.result_id.unwrap_or_default(),
                        count.unwrap_or(0)
                    ));
                }
                Op::TypeMatrix if !count.is_some_and(|n| (2..=4).contains(&n)) => {
                    return bad(format!(
                        "OpTypeMatrix %{} has {} columns; matrices have 2 to 4",
                        inst.result_id.unwrap_or_default(),
                        count.unwrap_or(0)
                    ));
                }
                _ => {}
            }
        }
        for inst in &self.module.annotations {
            let stride = match (inst.class.opcode, inst.operands.as_slice()) {
                (
                    Op::Decorate,
                    [
                        _,
                        Operand::Decoration(Decoration::ArrayStride | Decoration::MatrixStride),
                        Operand::LiteralBit32(s),
                    ],
                ) => Some(*s),
                (
                    Op::MemberDecorate,
                    [
                        _,
                        _,
                        Operand::Decoration(Decoration::MatrixStride),
                        Operand::LiteralBit32(s),
                    ],
                ) => Some(*s),
                _ => None,
            };
            if let Some(s) = stride.filter(|&s| s > MAX_STRIDE) {
                return bad(format!(
                    "a stride of {s} bytes (Op{:?} on %{}), over the {MAX_STRIDE} atomport lays out",
                    inst.class.opcode,
                    inst.operands.first().and_then(id).unwrap_or_default()
                ));
            }
        }
        Ok(())
    }
}
