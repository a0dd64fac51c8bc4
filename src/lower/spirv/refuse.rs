//! What WGSL cannot express and no pass maps, refused with the construct
//! named and what to write instead.

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Decoration, Op, StorageClass, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// Refuses ray queries (GL_EXT_ray_query), which atomport does not map:
/// naga's SPIR-V reader has none, and its WGSL form is an experimental
/// wgpu extension no browser has.
pub fn ray_queries(m: &Model) -> Result<()> {
    let has = m.module().capabilities.iter().any(|c| {
        matches!(
            c.operands.first(),
            Some(Operand::Capability(
                Capability::RayQueryKHR | Capability::RayQueryProvisionalKHR
            ))
        )
    });
    if has {
        return Err(Error::Unsupported(
            "ray queries (`GL_EXT_ray_query`) are not translated: atomport maps no ray tracing (naga's SPIR-V reader has none, and WGSL's form is an experimental wgpu extension)".into(),
        ));
    }
    Ok(())
}

/// Refuses a matrix with two rows laid out with a 16-byte column stride
/// (std140's `mat2`, `mat3x2`, `mat4x2`, a loose `uniform mat2` among
/// them), naming the member: naga's reader cannot take that stride.
pub fn two_row_matrices_with_wide_columns(m: &Model) -> Result<()> {
    for a in &m.module().annotations {
        let [
            Operand::IdRef(s),
            Operand::LiteralBit32(k),
            Operand::Decoration(Decoration::MatrixStride),
            Operand::LiteralBit32(stride),
        ] = a.operands.as_slice()
        else {
            continue;
        };
        let rows = m
            .global(*s)
            .and_then(|st| st.operands.get(*k as usize))
            .and_then(id)
            // Through arrays of matrices.
            .map(|t| m.strip_arrays(t))
            .and_then(|t| m.global(t))
            .filter(|t| t.class.opcode == Op::TypeMatrix)
            .and_then(|t| t.operands.first().and_then(id))
            .and_then(|col| m.global(col))
            .and_then(|col| match col.operands.get(1) {
                Some(Operand::LiteralBit32(n)) => Some(*n),
                _ => None,
            });
        if rows == Some(2) && *stride > 8 {
            return Err(Error::Unsupported(format!(
                "`{}` is a matrix with two rows laid out with a {stride}-byte column stride (std140's mat2, mat3x2, mat4x2), which naga cannot read: use vec4 columns or a std430 block",
                m.member_name(*s, *k).unwrap_or("?")
            )));
        }
    }
    Ok(())
}

/// Refuses sampling an integer texture with a sampler in the forms
/// [`super::integer_sampling`] leaves (WGSL has none); `texelFetch` reads one.
pub fn integer_sampling(m: &Model) -> Result<()> {
    for i in m.instructions() {
        // Gathers of integer textures are WGSL's too: only sampling is refused.
        if !i.class.opname.starts_with("ImageSample") {
            continue;
        }
        let Some(v) = i.operands.first().and_then(id) else {
            continue;
        };
        // OpTypeSampledImage -> OpTypeImage -> sampled type.
        let sampled = m
            .result_type(v)
            .and_then(|si| m.global(si))
            .and_then(|t| t.operands.first().and_then(id))
            .and_then(|image| m.global(image))
            .and_then(|t| t.operands.first().and_then(id));
        if sampled.is_some_and(|t| m.op_of(t) == Some(Op::TypeInt)) {
            let var = m.source_variable(v);
            let texture = var.and_then(|var| m.name(var)).unwrap_or("?");
            return Err(Error::Unsupported(format!(
                "the integer texture `{texture}` is sampled in a form atomport does not map (WGSL samples float textures only; texture() and textureLod() of 2D integer textures and arrays of them, with offsets, become the texel fetch of a nearest sampler; projective, comparison and gradient sampling and other shapes do not): read its texels with texelFetch"
            )));
        }
    }
    Ok(())
}

/// Refuses whole-aggregate copies of memory that atomics also use which
/// [`crate::lower::memory::copies`] left (an `OpCopyMemory`): naga gives the
/// atomically used parts atomic types, and a plain copy of a struct or
/// array holding them cannot be expressed in WGSL.
pub fn aggregate_copies_of_atomics(m: &Model) -> Result<()> {
    // Every aggregate type on the access path of an atomic.
    let (containers, _) = crate::lower::memory::copies::atomic_paths(m);
    for inst in m.instructions() {
        let ptrs: Vec<Word> = match inst.class.opcode {
            Op::Load | Op::Store => inst.operands.first().and_then(id).into_iter().collect(),
            Op::CopyMemory => inst.operands.iter().take(2).filter_map(id).collect(),
            _ => continue,
        };
        for p in ptrs {
            // A function's own variables keep plain types (naga upgrades
            // the shared ones), and whole loads and stores of shared
            // memory were made member-wise before this check.
            if let Some((class, pointee)) = m.pointee(p)
                && !matches!(class, StorageClass::Function | StorageClass::Private)
                && containers.contains(&pointee)
            {
                let what = m
                    .name(pointee)
                    .map(|n| format!("`{n}`"))
                    .unwrap_or_else(|| "a struct or array".into());
                return Err(Error::Unsupported(format!(
                    "a whole copy of {what}, which holds memory used atomically; WGSL cannot copy atomics as values: copy its members one by one"
                )));
            }
        }
    }
    Ok(())
}
