//! `atomport translate`: WGSL, or the binding map as JSON.

use std::path::Path;
use std::time::Duration;

use atomport::Error;

use super::args::ShaderArgs;
use super::emit;

pub fn translate(
    shader: &ShaderArgs,
    out: Option<&Path>,
    bindings: bool,
    native_float_atomics: bool,
    timeout: Duration,
) -> atomport::Result<()> {
    let kernel = shader.load(native_float_atomics, timeout)?;
    let text = if bindings {
        let mut t =
            serde_json::to_string_pretty(&kernel.binding_map()).expect("bindings serialize");
        t.push('\n');
        t
    } else {
        kernel.wgsl().to_string()
    };
    match out {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        }),
        None => emit(&text),
    }
}
