//! SPIR-V pass: buffer textures (`samplerBuffer`, `isamplerBuffer`,
//! `usamplerBuffer` and Vulkan GLSL's `textureBuffer`s), which WGSL has no
//! type for and naga's reader refuses (`unsupported image dimension`),
//! become read-only storage images of buffer shape, which the image pass
//! ([`super::image`]) holds in texel buffers as it does `imageBuffer`s:
//! `texelFetch(t, i)` is `imageLoad`, `textureSize(t)` is `imageSize`.
//!
//! A buffer texture has no format in the shader: in Vulkan it is the
//! buffer view's, in OpenGL `glTexBuffer`'s, both chosen by the host. The
//! caller names it per texture ([`crate::SourceOptions::buffer_texture_formats`],
//! `--buffer-format` on the command line) so that the host keeps writing
//! the bytes it wrote for Vulkan; a texture not named holds texels of four
//! 32-bit channels of its type (`rgba32f`, `rgba32i`, `rgba32ui`), which
//! hold every value any view format can give `texelFetch`.

use rustc_hash::FxHashMap as HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Dim, Op, StorageClass, Word};

use crate::lower::memory::texel::{ChannelKind, ImageFormat};
use crate::lower::model::{Model, id};
use crate::{Error, Result};

/// A buffer texture made a storage image: (variable, its new image type).
type Retyped = HashMap<Word, Word>;

/// Whether `ty` is a sampled image type of buffer shape (a
/// `textureBuffer`), or a combined sampler of one (a `samplerBuffer`);
/// gives the image type.
fn buffer_texture(m: &Model, ty: Word) -> Option<Word> {
    let t = m.global(ty)?;
    let image = match t.class.opcode {
        Op::TypeSampledImage => t.operands.first().and_then(id)?,
        Op::TypeImage => ty,
        _ => return None,
    };
    let i = m.global(image)?;
    let buffer = i.operands.get(1) == Some(&Operand::Dim(Dim::DimBuffer));
    let sampled = i.operands.get(5) == Some(&Operand::LiteralBit32(1));
    (i.class.opcode == Op::TypeImage && buffer && sampled).then_some(image)
}

/// The format of the buffer texture `name` of channel type `kind`: the
/// caller's, checked against the type, or four 32-bit channels of it.
fn format_of(
    name: &str,
    kind: ChannelKind,
    given: &[(String, ImageFormat)],
) -> Result<ImageFormat> {
    let Some((_, f)) = given.iter().find(|(n, _)| n == name) else {
        return Ok(match kind {
            ChannelKind::Sint => ImageFormat::Rgba32Sint,
            ChannelKind::Uint => ImageFormat::Rgba32Uint,
            _ => ImageFormat::Rgba32Float,
        });
    };
    let (_, bits, fk) = f.layout();
    let fits = match kind {
        ChannelKind::Sint | ChannelKind::Uint => fk == kind && bits <= 32,
        _ => !matches!(fk, ChannelKind::Sint | ChannelKind::Uint),
    };
    if !fits {
        return Err(Error::Unsupported(format!(
            "buffer texture `{name}` holds {} texels: format {} does not give them",
            match kind {
                ChannelKind::Sint => "int",
                ChannelKind::Uint => "uint",
                _ => "float",
            },
            f.name()
        )));
    }
    Ok(*f)
}

/// Makes every buffer texture a read-only storage image of its format
/// (see the module docs); returns how many.
pub fn buffer_textures_to_images(
    m: &mut Model,
    formats: &[(String, ImageFormat)],
) -> Result<usize> {
    let mut chosen = Vec::new();
    for (var, class, pointee) in m.variables() {
        if class != StorageClass::UniformConstant {
            continue;
        }
        let Some(image) = buffer_texture(m, pointee) else {
            if m.strip_arrays(pointee) != pointee
                && buffer_texture(m, m.strip_arrays(pointee)).is_some()
            {
                return Err(Error::Unsupported(format!(
                    "the buffer texture array `{}`: atomport maps buffer textures one binding at a time",
                    m.label(var)
                )));
            }
            continue;
        };
        let sampled = m
            .global(image)
            .and_then(|i| i.operands.first())
            .and_then(id)
            .unwrap_or(0);
        let kind = match (m.op_of(sampled), m.int_type_of(sampled)) {
            (Some(Op::TypeFloat), _) => ChannelKind::Float,
            (_, Some((32, true))) => ChannelKind::Sint,
            (_, Some((32, false))) => ChannelKind::Uint,
            _ => {
                return Err(Error::Unsupported(format!(
                    "buffer texture `{}` has a texel type atomport cannot map",
                    m.label(var)
                )));
            }
        };
        let name = m.name(var).unwrap_or_default().to_string();
        chosen.push((var, sampled, format_of(&name, kind, formats)?));
    }
    if let Some((name, _)) = formats.iter().find(|(n, _)| {
        !chosen
            .iter()
            .any(|(v, _, _)| m.name(*v) == Some(n.as_str()))
    }) {
        return Err(Error::UnknownName(format!(
            "a format was given for buffer texture `{name}`, and the shader uses no buffer texture of that name"
        )));
    }
    if chosen.is_empty() {
        return Ok(0);
    }
    let mut types: HashMap<(Word, ImageFormat), Word> = HashMap::default();
    let mut retyped = Retyped::default();
    for &(var, sampled, format) in &chosen {
        let image = *types.entry((sampled, format)).or_insert_with(|| {
            m.add_global(
                Op::TypeImage,
                None,
                vec![
                    Operand::IdRef(sampled),
                    Operand::Dim(Dim::DimBuffer),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(2),
                    Operand::ImageFormat(format.spirv()),
                ],
            )
        });
        let ptr = m.pointer_to(StorageClass::UniformConstant, image);
        m.set_result_type(var, ptr);
        m.decorate(var, Decoration::NonWritable, &[]);
        retyped.insert(var, image);
    }
    rewrite_accesses(m, &retyped)?;
    m.remove_unused_types(&[Op::TypePointer, Op::TypeSampledImage, Op::TypeImage]);
    Ok(chosen.len())
}

/// Loads give the storage image; `OpImage` of a loaded combined sampler
/// is the loaded image; `texelFetch` is `imageLoad`. Anything else a
/// buffer texture is used by is refused by name.
fn rewrite_accesses(m: &mut Model, retyped: &Retyped) -> Result<()> {
    // Loaded (or unwrapped) texture id -> its new image type.
    let mut loaded: HashMap<Word, Word> = HashMap::default();
    // `OpImage` results -> the load they unwrap.
    let mut same: HashMap<Word, Word> = HashMap::default();
    m.rewrite(|e, inst| {
        let op = inst.class.opcode;
        let first = inst.operands.first().and_then(id);
        if op == Op::Load
            && let Some(&image) = first.and_then(|p| retyped.get(&p))
        {
            let mut l = inst.clone();
            l.result_type = Some(image);
            loaded.insert(inst.result_id.unwrap_or(0), image);
            e.push(l);
            return Ok(true);
        }
        let uses = inst
            .operands
            .iter()
            .filter_map(id)
            .any(|w| loaded.contains_key(&w) || same.contains_key(&w));
        if !uses {
            return Ok(false);
        }
        let mut new = inst.clone();
        for o in &mut new.operands {
            if let Operand::IdRef(w) = o
                && let Some(&l) = same.get(w)
            {
                *w = l;
            }
        }
        match op {
            Op::Image => {
                same.insert(inst.result_id.unwrap_or(0), first.unwrap_or(0));
            }
            Op::ImageFetch => {
                // A buffer texture's fetch takes no level or sample.
                new.operands.truncate(2);
                e.push(Instruction::new(
                    Op::ImageRead,
                    new.result_type,
                    new.result_id,
                    new.operands,
                ));
            }
            Op::ImageQuerySize => e.push(new),
            _ => {
                return Err(Error::Unsupported(format!(
                    "a buffer texture is used by {op:?}; atomport maps texelFetch and textureSize of one"
                )));
            }
        }
        Ok(true)
    })?;
    Ok(())
}
