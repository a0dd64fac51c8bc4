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

/// The extensions a module declares (`OpExtension`).
pub fn declared_extensions(words: &[u32]) -> Vec<String> {
    instructions(words)
        .filter(|(_, inst)| inst[0] & 0xffff == rspirv::spirv::Op::Extension as u32)
        .map(|(_, inst)| {
            let bytes: Vec<u8> = inst[1..]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .collect()
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
        // Named only for an error: formatting it for every instruction
        // cost more than the walk.
        let op = || {
            rspirv::spirv::Op::from_u32(opcode)
                .map_or_else(|| format!("opcode {opcode}"), |o| format!("Op{o:?}"))
        };
        if count == 0 {
            return Err(Error::shader(format!(
                "{name}: malformed SPIR-V: the instruction at word {at} ({}) has a word count of 0",
                op()
            )));
        }
        if at + count > words.len() {
            return Err(Error::shader(format!(
                "{name}: truncated SPIR-V: the instruction at word {at} ({}) needs {count} words, {} remain",
                op(),
                words.len() - at
            )));
        }
        at += count;
    }
    Ok(())
}

/// The instructions of a module's words (after the header) with the
/// position of each, up to the first malformed one (a word count of 0 or
/// past the end): for glances at glslang's or atomport's own output, which
/// are well formed.
pub(crate) fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, &[u32])> {
    let mut i = 5;
    std::iter::from_fn(move || {
        let count = (*words.get(i)? >> 16) as usize;
        let inst = words.get(i..i + count).filter(|_| count > 0)?;
        let at = i;
        i += count;
        Some((at, inst))
    })
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
