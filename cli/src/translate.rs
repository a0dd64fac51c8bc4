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

/// The adapter features the translation may use: those of `--backend`'s
/// adapter, or SHADER_INT64 (64-bit integers kept) and what
/// `--native-float-atomics` and `--binding-arrays` say.
pub fn features(
    native_float_atomics: bool,
    binding_arrays: bool,
    backend: Option<atomport::BackendChoice>,
) -> atomport::Result<atomport::wgpu::Features> {
    if let Some(b) = backend {
        return atomport::ContextOptions::from_env_with(Some(b))?.adapter_features();
    }
    let mut f = atomport::wgpu::Features::SHADER_INT64;
    if native_float_atomics {
        f |= atomport::wgpu::Features::SHADER_FLOAT32_ATOMIC;
    }
    if binding_arrays {
        f |= atomport::BINDING_ARRAY_FEATURES;
    }
    Ok(f)
}

pub fn translate(
    shader: &ShaderArgs,
    out: Option<&Path>,
    what: Output,
    features: atomport::wgpu::Features,
    timeout: Duration,
) -> atomport::Result<()> {
    // The text leaves atomport: read back before it is printed.
    let kernel = shader.load(features, timeout, true)?;
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
