//! SPIR-V pass for the native reference run only: cube storage images
//! (`imageCube`, `imageCubeArray` and their integer forms) become the 2D
//! arrays of their faces, which WebGPU can bind as storage textures and
//! wgpu's Vulkan backend hands to the original.
//!
//! Nothing a kernel computes changes. Vulkan addresses a cube storage
//! image's texels as a 2D array's: `imageLoad`, `imageStore` and the image
//! atomics take `ivec3(x, y, face)`, and for a cube array `z` is
//! `6 * cube + face`, the layer of the same texel in a 2D-array view of the
//! texture. Only `imageSize` differs: a cube's is `ivec2` (a 2D array's has
//! the layers too), and a cube array's `z` counts cubes (a 2D array's
//! counts layers, six times as many). Each query is made on the array and
//! given the cube's answer.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Dim, Op, Word};

use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// Makes every cube storage image type a 2D array image type (see the
/// module docs) and fixes its size queries; returns how many types.
pub fn cube_images_as_face_arrays(m: &mut Model) -> Result<usize> {
    let cubes: Vec<(Word, bool)> = m
        .module()
        .types_global_values
        .iter()
        .filter(|t| {
            t.class.opcode == Op::TypeImage
                && t.operands.get(1) == Some(&Operand::Dim(Dim::DimCube))
                && t.operands.get(5) == Some(&Operand::LiteralBit32(2))
        })
        .filter_map(|t| {
            Some((
                t.result_id?,
                t.operands.get(3) == Some(&Operand::LiteralBit32(1)),
            ))
        })
        .collect();
    if cubes.is_empty() {
        return Ok(0);
    }
    for &(cube, _) in &cubes {
        let mut array = m.global(cube).expect("listed above").clone();
        array.operands[1] = Operand::Dim(Dim::Dim2D);
        array.operands[3] = Operand::LiteralBit32(1);
        // SPIR-V declares no two image types alike: where the shader has
        // the 2D-array type already, this one says "depth unknown" (2),
        // which a storage image's operations never read.
        let twin = |a: &Instruction| {
            m.module().types_global_values.iter().any(|t| {
                t.result_id != Some(cube)
                    && t.class.opcode == Op::TypeImage
                    && t.operands == a.operands
            })
        };
        if twin(&array) {
            array.operands[2] = Operand::LiteralBit32(2);
            if twin(&array) {
                return Err(Error::NoNative(format!(
                    "cube storage image type %{cube}: its 2D-array form is declared twice already"
                )));
            }
        }
        m.replace_global(cube, array);
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
