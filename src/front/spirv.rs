//! SPIR-V input: checked, lowered by the SPIR-V passes, then read by naga.

use crate::{Error, Result};

/// SPIR-V's magic number, first word of every module.
pub const MAGIC: u32 = 0x0723_0203;

/// Reads a SPIR-V binary into words, refusing what is not SPIR-V.
pub fn words_from_bytes(bytes: &[u8], name: &str) -> Result<Vec<u32>> {
    if bytes.len() < 20 {
        return Err(Error::shader(format!(
            "{name}: not a SPIR-V module: {} bytes is shorter than the 20-byte header",
            bytes.len()
        )));
    }
    let first = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if first != MAGIC && first.swap_bytes() != MAGIC {
        return Err(Error::shader(format!(
            "{name}: not a SPIR-V module (the first word is {first:#010x}, not the magic number {MAGIC:#010x})"
        )));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::shader(format!(
            "{name}: truncated SPIR-V: {} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] == MAGIC {
        Ok(words)
    } else {
        // Big-endian module.
        Ok(words.into_iter().map(u32::swap_bytes).collect())
    }
}

/// Checks the header and that the instructions tile the words exactly:
/// every instruction's word count is at least 1 and ends within the module.
/// A module cut short ends inside an instruction, which this names.
pub fn check_instruction_stream(words: &[u32], name: &str) -> Result<()> {
    if words.len() < 5 || words[0] != MAGIC {
        return Err(Error::shader(format!(
            "{name}: not a SPIR-V module (no header with the magic number {MAGIC:#010x})"
        )));
    }
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        let op = rspirv::spirv::Op::from_u32(opcode)
            .map_or_else(|| format!("opcode {opcode}"), |o| format!("Op{o:?}"));
        if count == 0 {
            return Err(Error::shader(format!(
                "{name}: malformed SPIR-V: the instruction at word {at} ({op}) has a word count of 0"
            )));
        }
        if at + count > words.len() {
            return Err(Error::shader(format!(
                "{name}: truncated SPIR-V: the instruction at word {at} ({op}) needs {count} words, {} remain",
                words.len() - at
            )));
        }
        at += count;
    }
    Ok(())
}

/// Parses SPIR-V words into a naga module, a naga panic becoming [`Error::Internal`].
pub fn to_naga(words: &[u32], name: &str) -> Result<naga::Module> {
    let options = naga::front::spv::Options {
        adjust_coordinate_space: false,
        strict_capabilities: false,
        block_ctx_dump_prefix: None,
    };
    crate::guard_with(
        || {
            naga::front::spv::parse_u8_slice(bytemuck::cast_slice(words), &options).map_err(|e| {
                Error::Unsupported(format!("{name}: naga cannot read the SPIR-V: {e}"))
            })
        },
        |msg| {
            Error::Unsupported(format!(
                "{name}: naga's SPIR-V reader failed on the module ({msg})"
            ))
        },
    )
}

/// Whether two variables of a SPIR-V module are decorated with the same
/// (descriptor set, binding): legal in OpenGL GLSL, where buffers, image
/// units and the other kinds number their bindings separately. Scans the
/// words without building a module; malformed words just end the scan.
#[cfg(feature = "glsl")]
pub fn bindings_shared(words: &[u32]) -> bool {
    const OP_DECORATE: u32 = 71;
    const BINDING: u32 = 33;
    const DESCRIPTOR_SET: u32 = 34;
    let mut slots: std::collections::HashMap<u32, (u32, Option<u32>)> = Default::default();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            break;
        }
        if words[at] & 0xffff == OP_DECORATE && count == 4 {
            let (target, decoration, value) = (words[at + 1], words[at + 2], words[at + 3]);
            let slot = slots.entry(target).or_insert((0, None));
            match decoration {
                DESCRIPTOR_SET => slot.0 = value,
                BINDING => slot.1 = Some(value),
                _ => {}
            }
        }
        at += count;
    }
    let mut seen = std::collections::HashSet::new();
    slots
        .values()
        .filter_map(|&(set, binding)| binding.map(|b| (set, b)))
        .any(|slot| !seen.insert(slot))
}

#[cfg(all(test, feature = "glsl"))]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_naga_is_reported_not_raised() {
        // A construct naga 30 panics on before atomport's passes: the vector
        // component atomic, fed to naga's SPIR-V reader directly.
        let src = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counters { uint hits; uvec2 pair; } c;
void main() { atomicAdd(c.hits, 1u); atomicMax(c.pair.y, gl_LocalInvocationIndex); }
";
        let words = crate::front::glsl::compile(src, &crate::SourceOptions::named("c.comp"))
            .unwrap()
            .words;
        let e = to_naga(&words, "c.spv").unwrap_err();
        // naga's gap, not malformed input and not atomport's bug: said so.
        assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("c.spv: naga's SPIR-V reader failed on the module"),
            "{e}"
        );
    }
}
