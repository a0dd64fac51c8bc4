//! Non-semantic instructions (debug information) taken out of a module's
//! words before the reader sees them.

/// `words` without their non-semantic instructions (the
/// `NonSemantic.Shader.DebugInfo.100` of `glslangValidator -gV`, DXC's and
/// Slang's debug information, any other `NonSemantic.*` set but
/// `NonSemantic.DebugPrintf`, which its own pass drops with a warning):
/// their imports, every `OpExtInst` and `OpExtInstWithForwardRefsKHR` of
/// them, wherever it stands, and `SPV_KHR_relaxed_extended_instruction`.
/// Such an instruction changes nothing the shader computes, and its results
/// feed only others of its kind, by the spec; rspirv's reader refuses the
/// ones at module scope. `None` where there are none (or the words do not
/// parse as instructions, for the reader to name).
pub(super) fn without_non_semantic(words: &[u32]) -> Option<Vec<u32>> {
    const EXTENSION: u32 = 10;
    const EXT_INST_IMPORT: u32 = 11;
    const EXT_INST: u32 = 12;
    const MEMORY_MODEL: u32 = 14;
    const EXT_INST_WITH_FORWARD_REFS: u32 = 4433;
    let string = |start: usize, count: usize| -> Vec<u8> {
        let bytes: Vec<u8> = words[start..start + count]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        bytes.into_iter().take_while(|&b| b != 0).collect()
    };
    // The imports come before the memory model: most modules end the
    // search there, with nothing to drop.
    let mut sets = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, op) = ((first >> 16) as usize, first & 0xffff);
        if count == 0 || at + count > words.len() || op == MEMORY_MODEL {
            break;
        }
        if op == EXT_INST_IMPORT && count > 2 {
            let name = string(at + 2, count - 2);
            if name.starts_with(b"NonSemantic.") && name != b"NonSemantic.DebugPrintf" {
                sets.push(words[at + 1]);
            }
        }
        at += count;
    }
    if sets.is_empty() {
        return None;
    }
    // Every instruction after the header, as (start, word count, opcode).
    let mut insts = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return None;
        }
        insts.push((at, count, words[at] & 0xffff));
        at += count;
    }
    let dropped = |&(start, count, op): &(usize, usize, u32)| match op {
        EXT_INST_IMPORT => sets.contains(&words[start + 1]),
        EXT_INST | EXT_INST_WITH_FORWARD_REFS => count > 3 && sets.contains(&words[start + 3]),
        EXTENSION => string(start + 1, count - 1) == b"SPV_KHR_relaxed_extended_instruction",
        _ => false,
    };
    let mut out = words[..5].to_vec();
    for inst in insts.iter().filter(|i| !dropped(i)) {
        out.extend_from_slice(&words[inst.0..inst.0 + inst.1]);
    }
    Some(out)
}
