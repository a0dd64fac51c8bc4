//! SPIR-V pass: AMD extensions naga's reader refuses.
//! - SPV_AMD_shader_trinary_minmax (GL_AMD_shader_trinary_minmax: `min3`,
//!   `max3`, `mid3`): each becomes two or four GLSL.std.450 minimums and
//!   maximums, which the extension defines them as.
//! - SPV_AMD_texture_gather_bias_lod: dropped where unused.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// Both AMD passes.
pub fn lower_amd_extensions(m: &mut Model) -> Result<()> {
    drop_unused_gather_bias_lod(m)?;
    lower_trinary_min_max(m)?;
    Ok(())
}

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

/// SPV_AMD_texture_gather_bias_lod, which glslang declares wherever
/// GL_AMD_texture_gather_bias_lod is enabled and naga's reader refuses:
/// dropped where no gather takes a bias or a level (the usual case: a
/// shared header enables it). A gather that does is refused, since WGSL
/// gathers from level 0 only.
pub fn drop_unused_gather_bias_lod(m: &mut Model) -> Result<()> {
    use rspirv::spirv::ImageOperands as I;
    const EXTENSION: &str = "SPV_AMD_texture_gather_bias_lod";
    let declared =
        m.module().extensions.iter().any(
            |e| matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == EXTENSION),
        );
    if !declared {
        return Ok(());
    }
    let biased = m
        .module()
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::ImageGather | Op::ImageSparseGather | Op::ImageDrefGather
            )
        })
        .find_map(|i| {
            i.operands.iter().find_map(|o| match o {
                Operand::ImageOperands(f) if f.intersects(I::BIAS | I::LOD) => {
                    Some((i.class.opcode, *f))
                }
                _ => None,
            })
        });
    if let Some((op, f)) = biased {
        // The GLSL function, so that the error finds its line.
        let function = if f.contains(I::BIAS) {
            "textureGather".to_string()
        } else {
            let sparse = if op == Op::ImageSparseGather {
                "sparseTextureGatherLod"
            } else {
                "textureGatherLod"
            };
            let offset = if f.contains(I::CONST_OFFSETS) {
                "Offsets"
            } else if f.intersects(I::CONST_OFFSET | I::OFFSET) {
                "Offset"
            } else {
                ""
            };
            format!("{sparse}{offset}AMD")
        };
        return Err(Error::Unsupported(format!(
            "`{function}` gathers with a {} (GL_AMD_texture_gather_bias_lod), which has no WGSL \
             form: WGSL gathers from level 0 only",
            if f.contains(I::BIAS) {
                "bias"
            } else {
                "level of detail"
            }
        )));
    }
    m.drop_capabilities(&[Capability::ImageGatherBiasLodAMD], &[EXTENSION]);
    Ok(())
}
