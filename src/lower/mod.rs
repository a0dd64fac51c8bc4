//! The mapping of GLSL atomics onto WGSL, as passes in a fixed order:
//!
//! 1. SPIR-V passes (rspirv), for what naga cannot read or core WGSL cannot
//!    express: atomics on vector components ([`vector`]); float atomics as
//!    compare-exchange loops on the bits, unless the adapter has
//!    SHADER_FLOAT32_ATOMIC and the caller asks for native ones ([`float`]).
//! 2. naga's SPIR-V reader.
//! 3. IR passes (naga IR): every compare-exchange made strong ([`compswap`]);
//!    structs padded so WGSL's natural layout keeps every offset ([`layout`]).
//! 4. naga validation, then WGSL output, which is parsed and validated again
//!    so that what the runtime compiles is known to be valid.

pub mod compswap;
pub mod float;
pub mod layout;
mod spirv;
pub mod vector;

use crate::front::{self, SourceOptions};
use crate::{Error, Result, guard};

/// What the passes changed, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerReport {
    /// Vector sites retyped to arrays for component atomics.
    pub vector_sites: usize,
    /// Float memory sites retyped to `u32` for emulated float atomics.
    pub float_sites: usize,
    /// Compare-exchanges turned into strong retry loops.
    pub strong_compare_exchanges: usize,
    /// Structs given padding members to keep their declared offsets in WGSL.
    pub padded_structs: usize,
}

/// The result of lowering: the naga module, its validation info and its WGSL.
pub struct Lowered {
    /// The final module.
    pub module: naga::Module,
    /// Its validation info.
    pub info: naga::valid::ModuleInfo,
    /// The WGSL text.
    pub wgsl: String,
    /// What the passes did.
    pub report: LowerReport,
}

/// Runs every pass over SPIR-V words.
pub fn lower_spirv(words: &[u32], opts: &SourceOptions) -> Result<Lowered> {
    let name = opts.display_name();
    let mut report = LowerReport::default();
    let mut spv = rspirv::dr::load_words(words)
        .map_err(|e| Error::Shader(format!("{name}: malformed SPIR-V: {e}")))?;
    report.vector_sites = vector::scalarize_vector_atomics(&mut spv)
        .map_err(|e| Error::Unsupported(format!("{name}: {e}")))?;
    if !opts.native_float_atomics {
        report.float_sites = float::emulate_float_atomics(&mut spv)
            .map_err(|e| Error::Unsupported(format!("{name}: {e}")))?;
    }
    if log::log_enabled!(log::Level::Trace) {
        use rspirv::binary::Disassemble;
        log::trace!("SPIR-V after the SPIR-V passes:\n{}", spv.disassemble());
    }
    let words = {
        use rspirv::binary::Assemble;
        spv.assemble()
    };
    let mut module = front::spirv::to_naga(&words, name)?;
    writeonly_storage_readable(&mut module);
    report.strong_compare_exchanges = compswap::strong_compare_exchange(&mut module)
        .map_err(|e| Error::Unsupported(format!("{name}: {e}")))?;
    // Drop what the reader left unused (the pre-upgrade copies of atomic structs).
    guard("naga's compaction", || {
        naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
        Ok(())
    })?;
    let mut info = crate::kernel::validate(&module, None, name)
        .map_err(|e| Error::Internal(format!("the lowered module does not validate: {e}")))?;
    report.padded_structs = layout::match_natural_layout(&mut module, &info)
        .map_err(|e| Error::Unsupported(format!("{name}: {e}")))?;
    if report.padded_structs > 0 {
        info = crate::kernel::validate(&module, None, name)
            .map_err(|e| Error::Internal(format!("the padded module does not validate: {e}")))?;
    }
    let wgsl = guard("naga's WGSL writer", || {
        naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| Error::Internal(format!("{name}: writing WGSL failed: {e}")))
    })?;
    // What the runtime compiles is the text: check it reads back as valid.
    let reparsed = front::wgsl::parse(&wgsl, "<generated WGSL>")
        .map_err(|e| Error::Internal(format!("the generated WGSL does not parse: {e}")))?;
    crate::kernel::validate(&reparsed, Some(&wgsl), "<generated WGSL>")
        .map_err(|e| Error::Internal(format!("the generated WGSL does not validate: {e}")))?;
    Ok(Lowered {
        module,
        info,
        wgsl,
        report,
    })
}

/// WGSL has no write-only storage buffers: a GLSL `writeonly buffer` becomes
/// `read_write` (reading it is still never done by the shader).
fn writeonly_storage_readable(module: &mut naga::Module) {
    for (_, var) in module.global_variables.iter_mut() {
        if let naga::AddressSpace::Storage { access } = &mut var.space
            && !access.contains(naga::StorageAccess::LOAD)
        {
            *access |= naga::StorageAccess::LOAD;
        }
    }
}
