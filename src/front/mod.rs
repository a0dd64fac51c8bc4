//! Front ends: shader inputs turned into a validated naga [`naga::Module`].

#[cfg(feature = "glsl")]
pub mod glsl;
pub mod spirv;
pub mod wgsl;

use std::path::PathBuf;

/// Options shared by every front end.
#[derive(Clone, Debug, Default)]
pub struct SourceOptions {
    /// The name used for the source in error messages (usually its path); `<input>` when empty.
    /// GLSL `#include "x"` is resolved against its folder.
    pub name: String,
    /// The compute entry point to use; `None` picks the only one.
    pub entry: Option<String>,
    /// GLSL preprocessor definitions (`-D NAME[=VALUE]`).
    pub defines: Vec<(String, Option<String>)>,
    /// Further folders searched by GLSL `#include` (`-I DIR`).
    pub include_dirs: Vec<PathBuf>,
    /// Map float atomics onto WGSL `atomic<f32>` (needs the adapter's
    /// SHADER_FLOAT32_ATOMIC) instead of compare-exchange loops on the bits
    /// that run everywhere. Off by default: the output is portable.
    pub native_float_atomics: bool,
    /// Hold every r32ui/r32i/r32f storage image in a texel buffer, atomics or
    /// not, so that one [`crate::Image`] binds to every kernel of a
    /// multi-pass pipeline (e.g. one pass writes it with atomics, the next
    /// only reads it). Off by default: images without atomics on 1D, 2D,
    /// 2D-array and 3D stay WGSL storage textures.
    pub images_as_texel_buffers: bool,
    /// A deliberate fault in the mapping (tests of the validator only).
    #[doc(hidden)]
    pub fault: Option<crate::lower::Fault>,
}

impl SourceOptions {
    /// Options naming the source `name` (its path), with the default entry point.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets the entry point.
    pub fn with_entry(mut self, entry: Option<String>) -> Self {
        self.entry = entry;
        self
    }

    /// Adds a preprocessor definition: `NAME` or `NAME=VALUE`.
    pub fn define(mut self, def: &str) -> Self {
        self.defines.push(match def.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (def.to_string(), None),
        });
        self
    }

    /// The name to show in error messages.
    pub(crate) fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "<input>"
        } else {
            &self.name
        }
    }
}
