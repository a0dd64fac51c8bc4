//! `atomport translate`: WGSL, the binding map as JSON, or the whole
//! translation as JSON.

use std::path::Path;
use std::time::Duration;

use atomport::Error;

use super::args::ShaderArgs;
use super::emit;

/// What `translate` prints.
pub enum Output {
    /// The WGSL.
    Wgsl,
    /// The binding map (`--bindings`).
    Bindings,
    /// The translation, WGSL and map in one (`--translation`).
    Translation,
}

impl Output {
    /// The output the flags ask for (clap keeps them apart).
    pub fn of(bindings: bool, translation: bool) -> Output {
        match (bindings, translation) {
            (true, _) => Output::Bindings,
            (_, true) => Output::Translation,
            _ => Output::Wgsl,
        }
    }
}

pub fn translate(
    shader: &ShaderArgs,
    out: Option<&Path>,
    what: Output,
    native_float_atomics: bool,
    timeout: Duration,
) -> atomport::Result<()> {
    // The text leaves atomport: read back before it is printed.
    let kernel = shader.load(native_float_atomics, timeout, true)?;
    let text = match what {
        Output::Bindings => {
            serde_json::to_string_pretty(&kernel.binding_map()).expect("bindings serialize") + "\n"
        }
        Output::Translation => atomport::Translation::of_kernel(&kernel).to_json() + "\n",
        Output::Wgsl => kernel.wgsl().to_string(),
    };
    match out {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        }),
        None => emit(&text),
    }
}
