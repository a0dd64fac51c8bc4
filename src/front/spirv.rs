//! SPIR-V input: checked, lowered by the SPIR-V passes, then read by naga.

use crate::{Error, Result, guard};

/// SPIR-V's magic number, first word of every module.
pub const MAGIC: u32 = 0x0723_0203;

/// Reads a SPIR-V binary into words, refusing what is not SPIR-V.
pub fn words_from_bytes(bytes: &[u8], name: &str) -> Result<Vec<u32>> {
    if bytes.len() < 20 {
        return Err(Error::Shader(format!(
            "{name}: not a SPIR-V module: {} bytes is shorter than the 20-byte header",
            bytes.len()
        )));
    }
    let first = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if first != MAGIC && first.swap_bytes() != MAGIC {
        return Err(Error::Shader(format!(
            "{name}: not a SPIR-V module (the first word is {first:#010x}, not the magic number {MAGIC:#010x})"
        )));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::Shader(format!(
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

/// Parses SPIR-V words into a naga module, a naga panic becoming [`Error::Internal`].
pub fn to_naga(words: &[u32], name: &str) -> Result<naga::Module> {
    let options = naga::front::spv::Options {
        adjust_coordinate_space: false,
        strict_capabilities: false,
        block_ctx_dump_prefix: None,
    };
    guard("naga's SPIR-V reader", || {
        naga::front::spv::parse_u8_slice(bytemuck::cast_slice(words), &options)
            .map_err(|e| Error::Unsupported(format!("{name}: naga cannot read the SPIR-V: {e}")))
    })
}
