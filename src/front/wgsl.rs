//! WGSL input: parsed by naga, errors rendered with file:line:col.

use crate::{Error, Result, guard};

/// Parses WGSL source into a naga module. Errors carry `name:line:col` as naga renders them.
pub fn parse(source: &str, name: &str) -> Result<naga::Module> {
    guard("naga's WGSL parser", || {
        naga::front::wgsl::parse_str(source).map_err(|e| {
            Error::shader(
                e.emit_to_string_with_path(source, name)
                    .trim_end()
                    .to_string(),
            )
        })
    })
}
