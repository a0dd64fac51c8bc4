//! Front ends: shader inputs turned into a validated naga [`naga::Module`].

#[cfg(feature = "glsl")]
pub mod glsl;
pub mod spirv;
pub mod wgsl;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Which GLSL a shader is written in. They differ in what is legal outside
/// blocks and in how bindings are numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// GLSL for Vulkan (`layout(set = S, binding = B)`, every resource in one
    /// namespace per set, no uniforms outside blocks, no atomic counters).
    Vulkan,
    /// GLSL for OpenGL 4.3+ / OpenGL ES 3.1+: loose uniforms (gathered into
    /// one uniform block), `atomic_uint` counters (held in storage buffers),
    /// and separate binding namespaces for buffers, uniform buffers, image
    /// units, texture units and atomic-counter bindings, each resource
    /// getting a WGSL binding of its own.
    #[serde(rename = "opengl")]
    OpenGl,
}

impl Dialect {
    /// `vulkan` or `opengl`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Vulkan => "vulkan",
            Dialect::OpenGl => "opengl",
        }
    }

    /// Parses `vulkan` or `opengl` (also `gl`).
    pub fn parse(s: &str) -> Option<Dialect> {
        match s {
            "vulkan" | "vk" => Some(Dialect::Vulkan),
            "opengl" | "gl" => Some(Dialect::OpenGl),
            _ => None,
        }
    }
}

/// The Vulkan version GLSL is compiled for (`--target-env`), which sets the
/// SPIR-V version glslang emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetEnv {
    /// Vulkan 1.0, SPIR-V 1.0.
    Vulkan1_0,
    /// Vulkan 1.1, SPIR-V 1.3 (the default).
    Vulkan1_1,
    /// Vulkan 1.2, SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    Vulkan1_3,
}

impl TargetEnv {
    /// Every target, in order.
    pub const ALL: [TargetEnv; 4] = [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ];

    /// The name `--target-env` takes: `vulkan1.0` … `vulkan1.3`.
    pub fn name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_0 => "vulkan1.0",
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// The target a name names.
    pub fn parse(s: &str) -> Option<TargetEnv> {
        TargetEnv::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// Which specialization constant a [`Specialization`] sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecKey {
    /// By its `constant_id` (SPIR-V `SpecId`).
    Id(u32),
    /// By its GLSL name (the SPIR-V debug name).
    Name(String),
}

/// A value for a specialization constant, set before translation
/// (`--spec ID=VALUE` or `--spec NAME=VALUE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Specialization {
    /// The constant.
    pub key: SpecKey,
    /// Its value as text: an integer (decimal or `0x` hex), a float, or
    /// `true`/`false`, checked against the constant's type.
    pub value: String,
}

impl Specialization {
    /// Parses `ID=VALUE` or `NAME=VALUE`.
    pub fn parse(s: &str) -> crate::Result<Specialization> {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            crate::Error::Spec(format!(
                "`{s}`: a specialization is ID=VALUE or NAME=VALUE (e.g. 0=64 or BINS=256)"
            ))
        })?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(crate::Error::Spec(format!(
                "`{s}`: a specialization is ID=VALUE or NAME=VALUE (e.g. 0=64 or BINS=256)"
            )));
        }
        let key = match k.parse::<u32>() {
            Ok(n) => SpecKey::Id(n),
            Err(_) => SpecKey::Name(k.to_string()),
        };
        Ok(Specialization {
            key,
            value: v.to_string(),
        })
    }
}

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
    /// The GLSL dialect; `None` detects it: a shader that names no `set =`
    /// and compiles only under OpenGL's rules (loose uniforms, atomic
    /// counters, blocks without a binding) or whose bindings of different
    /// kinds share a number is OpenGL GLSL; everything else is Vulkan GLSL.
    pub dialect: Option<Dialect>,
    /// The longest a translation may take; `None` waits for it however long.
    /// Translation runs on a thread of its own (with a deep stack: glslang
    /// and naga recurse once per level of nesting), which is abandoned when
    /// the time is up: it cannot be interrupted, and keeps its memory until
    /// the compiler returns (a process that gives up usually exits).
    pub timeout: Option<std::time::Duration>,
    /// Values for specialization constants (`layout(constant_id = N)`),
    /// set before translation; a constant that stays a WGSL `override`
    /// gets the value as its default.
    pub specializations: Vec<Specialization>,
    /// The Vulkan (and so SPIR-V) version GLSL is compiled for; `None` is
    /// Vulkan 1.1 (SPIR-V 1.3). Shaders that use newer SPIR-V (e.g. the
    /// Vulkan memory model's device scope needs 1.2+) choose a newer one.
    pub target_env: Option<TargetEnv>,
}

/// The largest shader source (or included file) atomport reads.
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Reads a file the user named, refusing — before reading anything — what
/// is not a regular file (a FIFO would block, `/dev/zero` never ends) and
/// what is longer than `limit` bytes; `what` names the file in messages.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> crate::Result<Vec<u8>> {
    use std::io::Read;
    let io = |source| crate::Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(crate::Error::Input(format!(
            "{}: not a regular file (a {what} must be a file, not a directory, FIFO or device)",
            path.display()
        )));
    }
    let too_long = |len: u64| {
        crate::Error::Input(format!(
            "{}: the {what} is {len} bytes, over atomport's limit of {limit}",
            path.display()
        ))
    };
    if meta.len() > limit {
        return Err(too_long(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never past the limit.
    std::fs::File::open(path)
        .map_err(io)?
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_long(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_bounded`] for text: not UTF-8 is an error naming the file.
pub fn read_text(path: &Path, limit: u64, what: &str) -> crate::Result<String> {
    String::from_utf8(read_bounded(path, limit, what)?).map_err(|e| {
        crate::Error::shader(format!(
            "{}: the {what} is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
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

/// Validates a module with every capability on; the device's features are
/// checked separately against [`Kernel::required_features`], so the message
/// names the missing feature rather than a naga capability.
pub(crate) fn validate(
    module: &naga::Module,
    source: Option<&str>,
    name: &str,
) -> crate::Result<naga::valid::ModuleInfo> {
    crate::guard("naga's validator", || {
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(module)
        .map_err(|e| {
            // The whole cause chain.
            let mut cause_text = e.as_inner().to_string();
            let mut cause = std::error::Error::source(e.as_inner());
            while let Some(c) = cause {
                cause_text.push_str(&format!(": {c}"));
                cause = c.source();
            }
            let text = match source {
                Some(src) => {
                    let spans: Vec<(naga::Span, String)> = e.spans().cloned().collect();
                    wgsl::render(name, &format!("error: {cause_text}"), src, &spans)
                }
                None => format!("{name}: {cause_text}"),
            };
            crate::Error::shader(text.trim_end().to_string())
        })
    })
}
