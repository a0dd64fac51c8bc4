//! SPIR-V passes for the native reference run only: storage images of
//! shapes WebGPU binds no storage texture of become images of a shape it
//! does, addressed texel for texel as the original addresses them, so that
//! wgpu's Vulkan backend can hand them to the original. Nothing a kernel
//! computes changes; only the image types (and, for cubes, the answers of
//! `imageSize`) do.
//!
//! - **Cubes.** `imageCube`, `imageCubeArray` and their integer forms
//!   become the 2D arrays of their faces. Vulkan addresses a cube storage
//!   image's texels as a 2D array's: `imageLoad`, `imageStore` and the
//!   image atomics take `ivec3(x, y, face)`, and for a cube array `z` is
//!   `6 * cube + face`, the layer of the same texel in a 2D-array view of
//!   the texture. Only `imageSize` differs: a cube's is `ivec2` (a 2D
//!   array's has the layers too), and a cube array's `z` counts cubes (a 2D
//!   array's counts layers, six times as many). Each query is made on the
//!   array and given the cube's answer.
//! - **Buffer images.** `imageBuffer` (and a buffer texture, which
//!   [`super::buffer_textures`] made a read-only `imageBuffer`) becomes
//!   `image1D`: both take one `int` coordinate and report one `int` size.
//!   The run's texture is 1D, so a buffer image is bound natively only up
//!   to the device's `max_texture_dimension_1d` texels.
//! - **1D arrays.** `image1DArray` becomes `image2D`, its layers the rows:
//!   `ivec2(x, layer)` addresses the same texel, and `imageSize`'s
//!   `ivec2(width, layers)` is the 2D image's `ivec2(width, height)`.
//!
//! Multisample storage images stay: WebGPU has none, so a kernel with one
//! has no native run.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Dim, Op, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// The storage image types of `dim`, arrayed or not as `arrayed` says.
fn storage_images(m: &Model, dim: Dim, arrayed: Option<bool>) -> Vec<Word> {
    m.module()
        .types_global_values
        .iter()
        .filter(|t| {
            t.class.opcode == Op::TypeImage
                && t.operands.get(1) == Some(&Operand::Dim(dim))
                && t.operands.get(5) == Some(&Operand::LiteralBit32(2))
                && arrayed
                    .is_none_or(|a| t.operands.get(3) == Some(&Operand::LiteralBit32(u32::from(a))))
        })
        .filter_map(|t| t.result_id)
        .collect()
}

/// Gives the image type `ty` shape `dim`, arrayed or not. SPIR-V declares
/// no two image types alike: where the shader has that type already, this
/// one says "depth unknown" (2), which a storage image's operations never
/// read.
fn retype(m: &mut Model, ty: Word, dim: Dim, arrayed: bool) -> Result<()> {
    let mut image = m
        .global(ty)
        .ok_or_else(|| Error::Internal(format!("image type %{ty} is not declared")))?
        .clone();
    image.operands[1] = Operand::Dim(dim);
    image.operands[3] = Operand::LiteralBit32(u32::from(arrayed));
    let twin = |a: &Instruction| {
        m.module().types_global_values.iter().any(|t| {
            t.result_id != Some(ty) && t.class.opcode == Op::TypeImage && t.operands == a.operands
        })
    };
    if twin(&image) {
        image.operands[2] = Operand::LiteralBit32(2);
        if twin(&image) {
            return Err(Error::NoNative(format!(
                "storage image type %{ty}: its {dim:?} form is declared twice already"
            )));
        }
    }
    m.replace_global(ty, image);
    Ok(())
}

/// Makes every buffer storage image type a 1D one and every 1D-array one a
/// 2D one (see the module docs); returns how many types.
pub fn buffer_and_1d_array_images(m: &mut Model) -> Result<usize> {
    let buffers = storage_images(m, Dim::DimBuffer, None);
    let rows = storage_images(m, Dim::Dim1D, Some(true));
    for &ty in &buffers {
        retype(m, ty, Dim::Dim1D, false)?;
    }
    for &ty in &rows {
        retype(m, ty, Dim::Dim2D, false)?;
    }
    if !buffers.is_empty() {
        m.add_capability(rspirv::spirv::Capability::Image1D);
    }
    Ok(buffers.len() + rows.len())
}

/// Makes every cube storage image type a 2D array image type (see the
/// module docs) and fixes its size queries; returns how many types.
pub fn cube_images_as_face_arrays(m: &mut Model) -> Result<usize> {
    let cubes: Vec<(Word, bool)> = storage_images(m, Dim::DimCube, None)
        .into_iter()
        .map(|t| {
            let arrayed =
                m.global(t).and_then(|i| i.operands.get(3)) == Some(&Operand::LiteralBit32(1));
            (t, arrayed)
        })
        .collect();
    if cubes.is_empty() {
        return Ok(0);
    }
    for &(cube, _) in &cubes {
        retype(m, cube, Dim::Dim2D, true)?;
    }
    // The queries' types: the array's size has three components.
    let mut triples = Vec::new();
    for inst in m.instructions() {
        if inst.class.opcode != Op::ImageQuerySize {
            continue;
        }
        let image = inst.operands.first().and_then(id).unwrap_or(0);
        if !cubes.iter().any(|c| Some(c.0) == m.result_type(image)) {
            continue;
        }
        let ty = inst.result_type.unwrap_or(0);
        triples.push(m.scalar_of(ty));
    }
    let triples: Vec<(Word, Word)> = triples
        .into_iter()
        .map(|scalar| (scalar, m.vector_type(scalar, 3)))
        .collect();
    m.rewrite(|e, inst| {
        if inst.class.opcode != Op::ImageQuerySize {
            return Ok(false);
        }
        let image = inst.operands.first().and_then(id).unwrap_or(0);
        let Some(&(_, arrayed)) = cubes.iter().find(|c| Some(c.0) == e.m.result_type(image)) else {
            return Ok(false);
        };
        let (ty, result) = (inst.result_type.unwrap_or(0), inst.result_id.unwrap_or(0));
        let scalar = e.m.scalar_of(ty);
        let triple = triples
            .iter()
            .find(|t| t.0 == scalar)
            .map(|t| t.1)
            .ok_or_else(|| Error::Internal("a cube's size query lost its type".into()))?;
        let size = e.op(Op::ImageQuerySize, triple, &[image]);
        if arrayed {
            // (width, height, layers) to (width, height, cubes).
            let layers = e.extract(scalar, size, 2);
            let six = e.constant(scalar, 6);
            let signed = e.m.int_type_of(scalar).is_some_and(|(_, s)| s);
            let div = if signed { Op::SDiv } else { Op::UDiv };
            let cubes = e.op(div, scalar, &[layers, six]);
            e.push(Instruction::new(
                Op::CompositeInsert,
                Some(ty),
                Some(result),
                vec![
                    Operand::IdRef(cubes),
                    Operand::IdRef(size),
                    Operand::LiteralBit32(2),
                ],
            ));
        } else {
            e.push(Instruction::new(
                Op::VectorShuffle,
                Some(ty),
                Some(result),
                vec![
                    Operand::IdRef(size),
                    Operand::IdRef(size),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(1),
                ],
            ));
        }
        Ok(true)
    })?;
    Ok(cubes.len())
}
