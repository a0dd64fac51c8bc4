//! SPV_AMD_shader_trinary_minmax (GL_AMD_shader_trinary_minmax: `min3`,
//! `max3`, `mid3`), an instruction set naga's reader refuses: each becomes
//! two or four GLSL.std.450 minimums and maximums, which the extension
//! defines them as.

use rspirv::dr::Operand;
use rspirv::spirv::Op;

use crate::Result;
use crate::lower::model::{Model, id};

/// The extension's instruction set and extension name.
const SET: &str = "SPV_AMD_shader_trinary_minmax";

/// GLSL.std.450's FMin, UMin, SMin, FMax, UMax, SMax.
const MIN: [u32; 3] = [37, 38, 39];
const MAX: [u32; 3] = [40, 41, 42];

/// Rewrites every trinary min/max/mid; returns how many.
pub fn lower_trinary_min_max(m: &mut Model) -> Result<usize> {
    let Some(set) = m
        .module()
        .ext_inst_imports
        .iter()
        .find_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) if s == SET => i.result_id,
            _ => None,
        })
    else {
        return Ok(0);
    };
    let std = m.glsl_std_450();
    let n = m.rewrite(|e, inst| {
        if inst.class.opcode != Op::ExtInst || inst.operands.first().and_then(id) != Some(set) {
            return Ok(false);
        }
        let Some(Operand::LiteralExtInstInteger(which)) = inst.operands.get(1) else {
            return Ok(false);
        };
        let args: Vec<u32> = inst.operands[2..].iter().filter_map(id).collect();
        let (Some(ty), Some(r), &[a, b, c]) = (inst.result_type, inst.result_id, &args[..]) else {
            return Ok(false);
        };
        // 1-3: FMin3, UMin3, SMin3; 4-6: Max3; 7-9: Mid3; the kind is
        // float, unsigned, signed in that order.
        let Some(kind) = which.checked_sub(1).map(|w| (w % 3) as usize) else {
            return Ok(false);
        };
        let (min, max) = (MIN[kind], MAX[kind]);
        let last = match which {
            1..=3 => {
                let ab = e.ext_inst(std, ty, min, &[a, b]);
                (min, ab, c)
            }
            4..=6 => {
                let ab = e.ext_inst(std, ty, max, &[a, b]);
                (max, ab, c)
            }
            // mid3(a, b, c) = max(min(a, b), min(max(a, b), c))
            7..=9 => {
                let lo = e.ext_inst(std, ty, min, &[a, b]);
                let hi = e.ext_inst(std, ty, max, &[a, b]);
                let hi_c = e.ext_inst(std, ty, min, &[hi, c]);
                (max, lo, hi_c)
            }
            _ => return Ok(false),
        };
        let mut operands = vec![Operand::IdRef(std), Operand::LiteralExtInstInteger(last.0)];
        operands.extend([Operand::IdRef(last.1), Operand::IdRef(last.2)]);
        e.push(rspirv::dr::Instruction::new(
            Op::ExtInst,
            Some(ty),
            Some(r),
            operands,
        ));
        Ok(true)
    })?;
    let module = m.module_mut();
    module.ext_inst_imports.retain(|i| i.result_id != Some(set));
    m.drop_capabilities(&[], &[SET]);
    Ok(n)
}
