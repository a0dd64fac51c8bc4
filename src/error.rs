//! The one error type of atomport.

use std::path::PathBuf;

/// Everything that can go wrong in atomport, each variant naming what and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No adapter matched the requested backend / name; says what was tried and how to get one.
    #[error(
        "no adapter found (tried backends: {tried}{filter}); on Linux, `apt-get install mesa-vulkan-drivers` provides the lavapipe software Vulkan adapter"
    )]
    NoAdapter {
        /// The backends that were searched, comma separated.
        tried: String,
        /// A description of the adapter-name filter, if one was given.
        filter: String,
    },
    /// The browser has no WebGPU (no `navigator.gpu`, or it gave no adapter).
    #[error(
        "this browser has no WebGPU: navigator.gpu is missing or gave no adapter (Chromium needs a secure context, and --enable-unsafe-webgpu where WebGPU is off)"
    )]
    NoWebGpu,
    /// A backend name that is not one of vulkan, metal, dx12, gl, all.
    #[error("unknown backend `{0}` (expected one of: vulkan, metal, dx12, gl, all)")]
    UnknownBackend(String),
    /// The chosen adapter lacks an optional wgpu feature the kernel needs.
    #[error("adapter `{adapter}` lacks {feature}, which this kernel needs")]
    MissingFeature {
        /// The adapter's name.
        adapter: String,
        /// The missing feature(s), as wgpu names them, with what in the shader needs each.
        feature: String,
    },
    /// The adapter has a feature the kernel needs, but the context was opened without it.
    #[error(
        "the context was opened without {feature}, which this kernel needs: open it with ContextOptions::with_features(kernel.required_features()), or open the caller's device with it"
    )]
    FeatureNotRequested {
        /// The feature(s), as wgpu names them, with what in the shader needs each.
        feature: String,
    },
    /// The device could not be created on the chosen adapter.
    #[error("could not open a device on adapter `{adapter}`: {message}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's message.
        message: String,
    },
    /// A shader failed to parse or validate, with where (see [`ShaderError`]).
    #[error("{0}")]
    Shader(ShaderError),
    /// The kernel has no compute entry point of the requested name, none at
    /// all, or several and none was chosen ([`crate::SourceOptions::entry`]).
    #[error("{}", entry_point_message(file, requested.as_deref(), available))]
    EntryPoint {
        /// The shader's name.
        file: String,
        /// The entry point asked for, if one was.
        requested: Option<String>,
        /// The compute entry points the shader has.
        available: Vec<String>,
    },
    /// A binding the kernel uses was not given.
    #[error("binding {group}.{binding} (`{name}`) is used by the kernel but was not given")]
    MissingBinding {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
        /// The shader's name of the binding.
        name: String,
    },
    /// A binding was given that the kernel does not use.
    #[error("binding {group}.{binding} was given but the kernel does not use it")]
    UnusedBinding {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
    },
    /// A binding was given a resource of the wrong kind.
    #[error(
        "binding {group}.{binding} (`{name}`) is a {expected} in the kernel but was given a {given}"
    )]
    WrongKind {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
        /// The shader's name of the binding.
        name: String,
        /// What the kernel declares.
        expected: String,
        /// What was given.
        given: String,
    },
    /// A buffer is smaller than the shader's static layout of the binding.
    #[error(
        "binding {group}.{binding} (`{name}`) needs at least {needed} bytes but the buffer has {size}"
    )]
    BufferTooSmall {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
        /// The shader's name of the binding.
        name: String,
        /// Minimum size the shader's layout needs, in bytes.
        needed: u64,
        /// The buffer's size, in bytes.
        size: u64,
    },
    /// A dispatch or resource exceeds one of the adapter's limits.
    #[error("{what} is {value}, over the adapter's limit {limit_name} = {limit}")]
    Limit {
        /// What exceeded the limit (e.g. "workgroup count in y").
        what: String,
        /// The requested value.
        value: u64,
        /// wgpu's name of the limit.
        limit_name: &'static str,
        /// The limit.
        limit: u64,
    },
    /// Translation, pipeline compilation or a dispatch did not finish in time.
    #[error(
        "{what} did not finish within {secs} s (timeout){}",
        timeout_hint(what)
    )]
    Timeout {
        /// What was given up on: `dispatch`, `compiling the pipeline`, `translating FILE`.
        what: String,
        /// The timeout, in seconds.
        secs: f64,
    },
    /// An earlier dispatch timed out and the device is still running it.
    #[error("the device is still running a dispatch that timed out; open a new context or wait")]
    Busy,
    /// wgpu reported an error, of the kind [`WgpuErrorKind`] says.
    #[error("wgpu: {message}")]
    Wgpu {
        /// Validation, out of memory, internal (a driver's compiler), the
        /// device's wait, or mapping a buffer.
        kind: WgpuErrorKind,
        /// wgpu's message, condensed to what names the problem.
        message: String,
    },
    /// A command-line SPEC (`--buffer`, `--image`, …) is malformed.
    #[error("{0}")]
    Spec(String),
    /// A GLSL name the kernel does not have; the message lists the names it has.
    #[error("{0}")]
    UnknownName(String),
    /// A value that does not parse as, or fit, its type.
    #[error("{0}")]
    InvalidValue(String),
    /// A file that cannot be input: not a regular file, or too large.
    #[error("{0}")]
    Input(String),
    /// A buffer, image, texture or sampler that cannot be made as described,
    /// or used as asked (its usage, its size).
    #[error("{0}")]
    Resource(String),
    /// A dispatch asked wrongly: a binding given twice, no workgroups,
    /// indirect arguments out of their buffer.
    #[error("{0}")]
    Dispatch(String),
    /// A uniform set with a value of the wrong type, count or range, or left unset.
    #[error("{0}")]
    Uniform(String),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A translation ([`crate::Kernel::from_translation`]) whose binding map
    /// does not fit its WGSL: a binding it has that the WGSL's entry point
    /// does not use, one the entry point uses that it lacks, another kind of
    /// resource, or another workgroup size.
    #[error("{file}: {problem}")]
    TranslationMismatch {
        /// The translation's name (from [`crate::SourceOptions`]).
        file: String,
        /// What does not fit, naming the binding.
        problem: String,
    },
    /// A construct atomport cannot map, named with its location.
    #[error("{0}")]
    Unsupported(String),
    /// The kernel's original cannot run natively ([`crate::Context::run_native`]):
    /// it was read from WGSL, or binds what WebGPU cannot bind as it declares it.
    #[error("no native run: {0}")]
    NoNative(String),
    /// A bug in atomport or one of its dependencies (e.g. a naga panic), with the construct named.
    #[error("internal error: {0}")]
    Internal(String),
}

/// What kind of error wgpu reported ([`Error::Wgpu`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WgpuErrorKind {
    /// A call wgpu refused: a pipeline, bind group or submission that breaks
    /// its rules or the device's.
    Validation,
    /// The device ran out of memory.
    OutOfMemory,
    /// The driver failed inside (GL's shader compiler rejecting a module).
    Internal,
    /// Waiting for the device failed: it was lost, or the wait gave up.
    Wait,
    /// A buffer could not be mapped for reading back.
    Map,
}

fn entry_point_message(file: &str, requested: Option<&str>, available: &[String]) -> String {
    let names = available.join(", ");
    match requested {
        Some(want) => format!(
            "{file}: no compute entry point named `{want}` (found: {})",
            if names.is_empty() { "none" } else { &names }
        ),
        None if available.is_empty() => {
            format!("{file}: no compute entry point (`@compute fn …`)")
        }
        None => format!(
            "{file}: several compute entry points ({names}); name the one to use (SourceOptions::entry)"
        ),
    }
}

fn timeout_hint(what: &str) -> &'static str {
    if what == "dispatch" {
        // llvmpipe and lavapipe compile a kernel when it is first
        // dispatched: Themaister's parallel-rdp rasterizer takes 25 s there.
        "; the kernel may loop forever or be too large for this adapter (a software driver such as llvmpipe compiles a kernel at its first dispatch: give a large one more time, --timeout)"
    } else {
        "; the shader may be too large"
    }
}

/// A shader's problem and where it is: the file, line and column when the
/// compiler named them (`file:line[:column]: message`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderError {
    /// The whole message, as shown.
    pub message: String,
    /// The file (the name in [`crate::SourceOptions`], or an included file).
    pub file: Option<String>,
    /// The 1-based line.
    pub line: Option<u32>,
    /// The 1-based column.
    pub column: Option<u32>,
}

impl ShaderError {
    /// A shader error from its message, reading `file:line[:column]:` from its start.
    pub fn new(message: impl Into<String>) -> ShaderError {
        let message: String = message.into();
        let (mut file, mut line, mut column) = (None, None, None);
        let mut parts = message.splitn(4, ':');
        if let (Some(f), Some(l)) = (parts.next(), parts.next())
            && let Ok(l) = l.trim().parse::<u32>()
        {
            file = Some(f.to_string());
            line = Some(l);
            column = parts.next().and_then(|c| c.trim().parse::<u32>().ok());
        }
        // codespan's form (naga): `┌─ file:line:column`.
        if line.is_none()
            && let Some(at) = message.split("┌─ ").nth(1)
        {
            let loc = at.lines().next().unwrap_or_default().trim();
            let mut p = loc.rsplitn(3, ':');
            let (c, l, f) = (p.next(), p.next(), p.next());
            if let (Some(f), Some(Ok(l))) = (f, l.map(str::parse::<u32>)) {
                file = Some(f.to_string());
                line = Some(l);
                column = c.and_then(|c| c.parse().ok());
            }
        }
        ShaderError {
            message,
            file,
            line,
            column,
        }
    }
}

impl std::fmt::Display for ShaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error {
    /// A [`Error::Shader`] from its message.
    pub fn shader(message: impl Into<String>) -> Error {
        Error::Shader(ShaderError::new(message))
    }
}

/// atomport's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The optional wgpu features kernels may need: the feature, wgpu's name
/// for it and what in a shader needs it. Errors name a missing feature by
/// it; `atomport info` lists those an adapter has.
pub const FEATURES: [(wgt::Features, &str, &str); 13] = [
    (
        wgt::Features::SHADER_INT64,
        "SHADER_INT64",
        "64-bit integers",
    ),
    (
        wgt::Features::SHADER_INT64_ATOMIC_MIN_MAX,
        "SHADER_INT64_ATOMIC_MIN_MAX",
        "64-bit integer atomicMin/atomicMax",
    ),
    (
        wgt::Features::SHADER_INT64_ATOMIC_ALL_OPS,
        "SHADER_INT64_ATOMIC_ALL_OPS",
        "64-bit integer atomics",
    ),
    (
        wgt::Features::SHADER_FLOAT32_ATOMIC,
        "SHADER_FLOAT32_ATOMIC",
        "native float atomics",
    ),
    (
        wgt::Features::TEXTURE_ATOMIC,
        "TEXTURE_ATOMIC",
        "texture atomics",
    ),
    (wgt::Features::SHADER_F16, "SHADER_F16", "16-bit floats"),
    (wgt::Features::SHADER_F64, "SHADER_F64", "64-bit floats"),
    (wgt::Features::SUBGROUP, "SUBGROUP", "subgroup operations"),
    (
        wgt::Features::TEXTURE_BINDING_ARRAY,
        "TEXTURE_BINDING_ARRAY",
        "arrays of textures and samplers indexed at run time",
    ),
    (
        wgt::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING,
        "SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING",
        "texture and buffer array indices that differ within a workgroup",
    ),
    (
        wgt::Features::STORAGE_RESOURCE_BINDING_ARRAY,
        "STORAGE_RESOURCE_BINDING_ARRAY",
        "arrays of storage textures and of storage buffers",
    ),
    (
        wgt::Features::BUFFER_BINDING_ARRAY,
        "BUFFER_BINDING_ARRAY",
        "arrays of buffer blocks indexed at run time",
    ),
    (
        wgt::Features::STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING,
        "STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING",
        "storage texture array indices that differ within a workgroup",
    ),
];

/// `NAME (what needs it), …` for a set of features.
/// An error's text with every cause below it that the text does not
/// already say, joined by `: ` (wgpu's and naga's errors keep the real
/// reason, "Division by zero", a few sources down).
pub(crate) fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

pub(crate) fn describe_features(features: wgt::Features) -> String {
    let mut parts: Vec<String> = FEATURES
        .iter()
        .filter(|(f, _, _)| features.contains(*f))
        .map(|(_, name, why)| format!("{name} ({why})"))
        .collect();
    let known = FEATURES
        .iter()
        .fold(wgt::Features::empty(), |acc, (f, _, _)| acc | *f);
    let rest = features - known;
    if !rest.is_empty() {
        parts.push(format!("{rest:?}"));
    }
    parts.join(", ")
}

/// A place in a source line an error points at.
#[derive(Clone, Debug)]
pub(crate) struct Mark {
    /// 1-based line.
    pub(crate) line: u32,
    /// 1-based column (in bytes).
    pub(crate) column: u32,
    /// Characters to underline (at least one caret is drawn).
    pub(crate) len: u32,
    /// What the mark says, if anything.
    pub(crate) label: String,
}

/// An error as compilers print one: `file:line:column: message` at the
/// first mark (`file:line:` when its column is unknown, 0), then each
/// marked line of `source` with carets under its marks:
///
/// ```text
/// k.comp:5:10: error: 'atomicAdd' : Only l-values …
///     5 |   atomicAdd(x, 1u);
///       |   ^^^^^^^^^
/// ```
pub(crate) fn with_excerpt(file: &str, message: &str, source: &str, marks: &[Mark]) -> String {
    let Some(first) = marks.first() else {
        return format!("{file}: {message}");
    };
    let mut out = if first.column > 0 {
        format!("{file}:{}:{}: {message}", first.line, first.column)
    } else {
        format!("{file}:{}: {message}", first.line)
    };
    let mut lines: Vec<u32> = marks.iter().map(|m| m.line).collect();
    lines.dedup();
    for n in lines {
        let Some(text) = source.lines().nth(n.saturating_sub(1) as usize) else {
            continue;
        };
        // Tabs kept so that the carets line up under them.
        let text = text.trim_end();
        out.push_str(&format!("\n{n:>5} | {text}"));
        for m in marks.iter().filter(|m| m.line == n && m.column > 0) {
            let start = (m.column as usize - 1).min(text.len());
            let pad: String = text[..start]
                .chars()
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let carets = "^".repeat(m.len.max(1) as usize);
            let label = if m.label.is_empty() {
                String::new()
            } else {
                format!(" {}", m.label)
            };
            out.push_str(&format!("\n      | {pad}{carets}{label}"));
        }
    }
    out
}

/// The column (1-based) of `word` as a whole identifier in `line`, or of
/// `word` anywhere in it.
#[cfg(feature = "glsl")]
pub(crate) fn column_of(line: &str, word: &str) -> Option<u32> {
    if word.is_empty() {
        return None;
    }
    let b = line.as_bytes();
    let ok = |c: u8| !(c.is_ascii_alphanumeric() || c == b'_');
    line.match_indices(word)
        .find(|(i, _)| (*i == 0 || ok(b[i - 1])) && b.get(i + word.len()).is_none_or(|&c| ok(c)))
        .or_else(|| line.match_indices(word).next())
        .map(|(i, _)| i as u32 + 1)
}
