//! SPIR-V pass: storage images declared without a format (`uniform
//! image2D img;`, the bindless pattern's `image2D Images[]`) get a
//! placeholder format naga can read; the runtime compiles the kernel with
//! the format of the texture bound.

use rspirv::dr::Operand;
use rspirv::spirv::{ImageFormat as SpvFormat, Op, StorageClass, Word};

use crate::lower::memory::texel::ImageDim;
use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// A storage image declared without a format (`uniform image2D img;`,
/// shaderStorageImageReadWithoutFormat / WriteWithoutFormat): a storage
/// texture whose format the texture bound at dispatch chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatlessImage {
    /// Descriptor set.
    pub group: u32,
    /// Binding.
    pub binding: u32,
}

/// Gives every storage image declared without a format an r32 format of
/// its sampled type in place of none (naga needs one; the runtime compiles
/// the kernel with the bound texture's), and returns them. Such an image
/// must be a storage texture: of a shape WGSL has one of, without image
/// atomics. An array of them is a binding array (arrays the resource-array
/// pass split are single images by now), compiled for the one format its
/// bound elements share: WGSL gives a binding array one element type.
pub fn formatless_storage_images(m: &mut Model) -> Result<Vec<FormatlessImage>> {
    let atomic: Vec<Word> = m
        .instructions()
        .filter(|i| i.class.opcode == Op::ImageTexelPointer)
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    let mut found = Vec::new();
    let mut types = Vec::new();
    for (var, class, pointee) in m.variables() {
        let ty = m.strip_arrays(pointee);
        let Some(t) = m.global(ty) else { continue };
        let storage = t.operands.get(5) == Some(&Operand::LiteralBit32(2));
        let unknown = matches!(
            t.operands.get(6),
            Some(Operand::ImageFormat(SpvFormat::Unknown))
        );
        if class != StorageClass::UniformConstant
            || t.class.opcode != Op::TypeImage
            || !storage
            || !unknown
        {
            continue;
        }
        let lit = |k: usize| match t.operands.get(k) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => 0,
        };
        let shape = match t.operands.get(1) {
            Some(Operand::Dim(d)) => ImageDim::from_spirv(*d, lit(3) == 1, lit(4) == 1),
            _ => None,
        };
        let name = format!("`{}`", m.name(var).unwrap_or("?"));
        let why = if atomic.contains(&var) {
            Some("image atomics need r32ui, r32i, r32f, r64ui or r64i")
        } else if !matches!(
            shape,
            Some(ImageDim::D1 | ImageDim::D2 | ImageDim::D2Array | ImageDim::D3)
        ) {
            Some(
                "WebGPU has no storage texture of its shape, and atomport maps it onto a buffer only with a known format",
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::Unsupported(format!(
                "the storage image {name} has no format qualifier: {why}; give it one (e.g. layout(rgba8))"
            )));
        }
        let sampled = t.operands.first().and_then(id).unwrap_or(0);
        let placeholder = match (m.op_of(sampled), m.int_type_of(sampled)) {
            (Some(Op::TypeFloat), _) => SpvFormat::R32f,
            (_, Some((_, true))) => SpvFormat::R32i,
            _ => SpvFormat::R32ui,
        };
        types.push((ty, placeholder));
        let (group, binding) = m.slot(var);
        found.push(FormatlessImage { group, binding });
    }
    for (ty, format) in types {
        if let Some(t) = m.global(ty) {
            let mut t = t.clone();
            t.operands[6] = Operand::ImageFormat(format);
            m.replace_global(ty, t);
        }
    }
    Ok(found)
}
