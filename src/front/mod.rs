//! Front ends: shader inputs turned into a validated naga [`naga::Module`].

pub mod annotations;
pub(crate) mod features;
pub mod folder;
#[cfg(feature = "glsl")]
pub mod glsl;
#[cfg(feature = "glsl")]
mod glslang_c;
#[cfg(feature = "glsl")]
mod glslang_log;
#[cfg(feature = "glsl")]
mod lenient;
pub mod spirv;
#[cfg(all(feature = "glsl", target_arch = "wasm32"))]
pub(crate) mod wasm_c;
pub mod wgsl;

/// glslang's name for the block of loose uniforms.
pub const DEFAULT_UNIFORM_BLOCK: &str = "gl_DefaultUniformBlock";
/// glslang's name for the buffer of atomic counters at binding N, plus N.
pub const ATOMIC_COUNTER_BLOCK: &str = "gl_AtomicCounterBlock_";

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Which GLSL a shader is written in. They differ in what is legal outside
/// blocks and in how bindings are numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A GLSL version with compute shaders, for shaders written without a
/// `#version` line because their project's build gives one (glslang's
/// default version, shaderc's `-std`): see [`SourceOptions::glsl_version`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlslVersion {
    /// 420 to 460 (desktop GLSL, core profile), or 310 and 320 (GLSL ES).
    pub number: u16,
    /// GLSL ES rather than desktop GLSL.
    pub es: bool,
}

impl GlslVersion {
    /// Parses `460` (core profile), `450core` or `310es`: the versions
    /// with compute shaders (desktop 420 with its extension).
    pub fn parse(s: &str) -> std::result::Result<GlslVersion, String> {
        let lower = s.trim().to_ascii_lowercase();
        let (digits, es) = match lower.strip_suffix("es") {
            Some(d) => (d, true),
            None => (lower.strip_suffix("core").unwrap_or(&lower), false),
        };
        let number = digits.trim().parse::<u16>().ok();
        let known = |n: u16| {
            if es {
                matches!(n, 310 | 320)
            } else {
                matches!(n, 420 | 430 | 440 | 450 | 460)
            }
        };
        match number.filter(|&n| known(n)) {
            Some(number) => Ok(GlslVersion { number, es }),
            None => Err(format!(
                "`{s}` is not a GLSL version with compute shaders (420 to 460, or 310es and 320es)"
            )),
        }
    }

    /// The name [`GlslVersion::parse`] reads: `460`, `310es`.
    pub fn name(self) -> String {
        format!("{}{}", self.number, if self.es { "es" } else { "" })
    }

    /// Whether `source` has a `#version` line of its own (whose version
    /// then wins over a [`SourceOptions::glsl_version`]). A file without
    /// one is a header or a shader whose build gives its version.
    pub fn declared_in(source: &str) -> bool {
        source.lines().any(Self::is_version_line)
    }

    /// Whether `line` is a `#version` directive (`# version` too, as the
    /// preprocessor allows).
    pub(crate) fn is_version_line(line: &str) -> bool {
        line.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"))
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

impl Specialization {
    /// How messages name the constant and the flag that set it:
    /// ``specialization constant 3 (--spec 3=64)``, ``specialization
    /// constant `BINS` (--spec BINS=256)``.
    pub(crate) fn label(&self) -> String {
        match &self.key {
            SpecKey::Id(n) => format!("specialization constant {n} (--spec {n}={})", self.value),
            SpecKey::Name(name) => format!(
                "specialization constant `{name}` (--spec {name}={})",
                self.value
            ),
        }
    }

    /// Whether the key names a constant with this id and name.
    pub(crate) fn names(&self, id: Option<u32>, name: Option<&str>) -> bool {
        match &self.key {
            SpecKey::Id(n) => id == Some(*n),
            SpecKey::Name(k) => name == Some(k.as_str()),
        }
    }

    /// The value checked against the constant's type `ty`: its bits
    /// (booleans 1 and 0, floats their IEEE bits of the type's width).
    pub(crate) fn bits(&self, ty: SpecScalar) -> crate::Result<u64> {
        let (label, value) = (self.label(), self.value.as_str());
        let bad = |what: &str| {
            crate::Error::InvalidValue(format!(
                "{label} is {what}: `{value}` is not one ({})",
                match what {
                    "a bool" => "true, false, 1 or 0",
                    "a float" => "e.g. 1.5",
                    _ => "an integer in the type's range",
                }
            ))
        };
        match ty {
            SpecScalar::Bool => match value {
                "true" | "1" => Ok(1),
                "false" | "0" => Ok(0),
                _ => Err(bad("a bool")),
            },
            SpecScalar::Int { width, signed } => crate::scalar::parse_int(value, width, signed)
                .ok_or_else(|| {
                    bad(&format!(
                        "{} {width}-bit integer",
                        if signed { "a signed" } else { "an unsigned" }
                    ))
                }),
            SpecScalar::Float { width } => {
                let f: f64 = value.parse().map_err(|_| bad("a float"))?;
                match width {
                    64 => Ok(f.to_bits()),
                    32 if (f as f32).is_infinite() && f.is_finite() => Err(bad("a float")),
                    32 => Ok((f as f32).to_bits() as u64),
                    _ => Err(crate::Error::Unsupported(format!(
                        "{label} is a {width}-bit float, which atomport cannot set"
                    ))),
                }
            }
        }
    }
}

/// The scalar type of a specialization constant, which a value given for it
/// is checked against ([`Specialization::bits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpecScalar {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// The error for a specialization naming no constant of the shader, listing
/// those it has as (id, name): `it has: 0 (BINS), 1, SCALE`.
pub(crate) fn no_such_constant(
    spec: &Specialization,
    has: &[(Option<u32>, Option<&str>)],
) -> crate::Error {
    let mut by_id: std::collections::BTreeMap<u32, Option<&str>> = Default::default();
    let mut unnumbered: Vec<&str> = Vec::new();
    for &(id, name) in has {
        match id {
            Some(n) => {
                let slot = by_id.entry(n).or_default();
                *slot = slot.or(name);
            }
            None => unnumbered.extend(name),
        }
    }
    let list: Vec<String> = by_id
        .iter()
        .map(|(n, name)| match name {
            Some(name) => format!("{n} ({name})"),
            None => n.to_string(),
        })
        .chain(unnumbered.iter().map(|n| n.to_string()))
        .collect();
    let available = if list.is_empty() {
        "the shader has no specialization constants".to_string()
    } else {
        format!("it has: {}", list.join(", "))
    };
    crate::Error::UnknownName(format!("the shader has no {}; {available}", spec.label()))
}

/// What a translation is made for: the features and limits its WGSL may
/// use. The default is the platform atomport runs on: `WebGpu` in a
/// browser (wasm32), `Native` elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// wgpu's native backends (Vulkan, Metal, DX12, GL): whatever the
    /// kernel needs, named by [`crate::Kernel::required_features`].
    Native,
    /// WebGPU as browsers ship it: core WGSL and the features a browser
    /// grants through wgpu. Every storage image is held in a texel buffer
    /// (core WebGPU reads and writes only r32 formats in one binding);
    /// subgroups run as subgroups of one invocation (wgpu's WebGPU backend
    /// grants none), with a warning; float literals are written so that
    /// every WGSL compiler reads them back; a barrier WGSL's uniformity
    /// analysis cannot prove uniform is refused. What needs a native-only
    /// feature (64-bit integers, binding arrays, doubles) is refused,
    /// naming each feature and its line.
    WebGpu,
}

impl Default for Platform {
    fn default() -> Self {
        if cfg!(target_arch = "wasm32") {
            Platform::WebGpu
        } else {
            Platform::Native
        }
    }
}

impl Platform {
    /// Parses `native` or `webgpu` (`web` too).
    pub fn parse(s: &str) -> Option<Platform> {
        match s.to_ascii_lowercase().as_str() {
            "native" => Some(Platform::Native),
            "webgpu" | "web" => Some(Platform::WebGpu),
            _ => None,
        }
    }

    /// The name [`Platform::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Native => "native",
            Platform::WebGpu => "webgpu",
        }
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
    /// Files GLSL `#include` may read without a file system, by path, as
    /// the search above names them (`shaders/common.glsl` for `#include
    /// "common.glsl"` in `shaders/x.comp`). They are looked up before the
    /// disk, and they are the only files a browser has.
    pub files: Vec<(PathBuf, String)>,
    /// Further GLSL compute shaders linked with the shader into one
    /// program, as OpenGL links every compute shader attached to a program
    /// (`glAttachShader`; glslangValidator's `-l`): each is a compilation
    /// unit of its own, with its own `#version` and `#include`s (resolved
    /// against its own folder), and the functions one declares another may
    /// define. Only the shader itself (or one unit) defines `main`; GLSL ES
    /// links one unit per stage. Read from [`SourceOptions::files`] first,
    /// then from the disk.
    pub linked: Vec<PathBuf>,
    /// Map float atomics onto WGSL `atomic<f32>` (needs the adapter's
    /// SHADER_FLOAT32_ATOMIC) instead of compare-exchange loops on the bits
    /// that run everywhere. Off by default: the output is portable. The
    /// WebGPU target ([`Platform::WebGpu`]) ignores it: browsers have none.
    pub native_float_atomics: bool,
    /// Keep arrays of textures, samplers and storage images indexed at run
    /// time as WGSL binding arrays (needs the adapter's
    /// TEXTURE_BINDING_ARRAY, and STORAGE_RESOURCE_BINDING_ARRAY for
    /// images), instead of a `switch` over one binding per element that
    /// runs everywhere (arrays of up to 16 elements; longer ones stay
    /// binding arrays). Off by default: the output is portable (GL, Debian
    /// 12's lavapipe and browsers have no binding arrays). The WebGPU
    /// target ([`Platform::WebGpu`]) ignores it.
    pub binding_arrays: bool,
    /// Hold 64-bit integers (`uint64_t`, `int64_t`) and buffer references
    /// as pairs of 32-bit words with GLSL's arithmetic, the layout kept, so
    /// that the kernel runs without SHADER_INT64 (llvmpipe's GL has none).
    /// Off by default: natively they are WGSL's `u64`/`i64`. What has no
    /// pair form (64-bit atomics, division by other than a power of two)
    /// keeps `u64` and needs SHADER_INT64 still. The WebGPU target
    /// ([`Platform::WebGpu`]) always uses pairs.
    pub int64_pairs: bool,
    /// For the WebGPU target: the storage buffers a shader stage may bind
    /// (`maxStorageBuffersPerShaderStage`). Where the texel buffers of
    /// storage-image arrays would pass it, such arrays are held in one
    /// buffer each, largest first, one region per element (see
    /// [`crate::BindingInfo::packed`]). `None`: WebGPU's default, 8, what
    /// a device has unless it asks for more.
    pub max_storage_buffers: Option<u32>,
    /// Hold every storage image of a declared format in a texel buffer,
    /// atomics or not, so that one [`crate::Image`] binds to every kernel
    /// of a multi-pass pipeline (e.g. one pass writes it with atomics, the
    /// next only reads it), and so that a kernel runs where the adapter
    /// gives the format no storage binding (DX12 through vkd3d 1.6 has
    /// typed storage only for r32 formats). Off by default: images without
    /// atomics on 1D, 2D, 2D-array and 3D in formats WebGPU can store stay
    /// WGSL storage textures.
    pub images_as_texel_buffers: bool,
    /// The GLSL version of a shader that has no `#version` line, as its
    /// project's build gives it (a default version passed to glslang, or
    /// shaderc's `-std=460`); a `#version` in the shader wins. `None`: such a shader
    /// is GLSL ES 1.00, as glslang reads it, which has no compute shaders.
    pub glsl_version: Option<GlslVersion>,
    /// The GLSL dialect; `None` detects it: a shader that names no `set =`
    /// and compiles only under OpenGL's rules (loose uniforms, atomic
    /// counters, blocks without a binding) or whose bindings of different
    /// kinds share a number is OpenGL GLSL; everything else is Vulkan GLSL.
    pub dialect: Option<Dialect>,
    /// The longest a translation may take; `None` waits for it however long.
    /// Translation runs on a worker thread (with a deep stack: glslang
    /// and naga recurse once per level of nesting; one per calling thread,
    /// reused), which is abandoned when the time is up: it cannot be
    /// interrupted, and keeps its memory until the compiler returns (a
    /// process that gives up usually exits); the next translation starts a
    /// fresh worker.
    pub timeout: Option<std::time::Duration>,
    /// Values for specialization constants (`layout(constant_id = N)`),
    /// set before translation; a constant that stays a WGSL `override`
    /// gets the value as its default.
    pub specializations: Vec<Specialization>,
    /// The Vulkan (and so SPIR-V) version GLSL is compiled for; `None` is
    /// Vulkan 1.1 (SPIR-V 1.3), or the oldest newer one that glslang accepts
    /// the shader for when it refuses it for SPIR-V 1.3 alone (a
    /// `subgroupBroadcast` from a non-constant lane needs SPIR-V 1.5).
    /// SPIR-V input is read as it is, whatever this says.
    pub target_env: Option<TargetEnv>,
    /// The texel format of each buffer texture (`samplerBuffer`,
    /// `usamplerBuffer`, `isamplerBuffer`, `textureBuffer`), by GLSL name:
    /// the format of the buffer view (Vulkan) or of `glTexBuffer` (OpenGL)
    /// the host reads it through, which the shader does not say. A buffer
    /// texture not named here holds `rgba32f`, `rgba32i` or `rgba32ui`
    /// texels, as its type is float, int or uint.
    pub buffer_texture_formats: Vec<(String, crate::ImageFormat)>,
    /// What the translation is for: a native backend (the default) or a
    /// browser's WebGPU ([`Platform`]).
    pub target: Platform,
    /// Parse and validate the written WGSL back before the translation is
    /// returned, as a host that ships the text wants: [`crate::translate()`],
    /// [`crate::translate_file`], [`crate::build::translate_dir`] and
    /// `atomport translate` set it, and the WebGPU target always reads back.
    /// Off by default: atomport's runtime compiles the translated module,
    /// never the text, and the read-back would take about a third of a
    /// translation.
    pub verify_wgsl: bool,
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

/// [`read_bounded`] for a shader's text, as compilers take it: a UTF-8
/// byte-order mark at the start is dropped, and bytes that are not UTF-8
/// inside `//` and `/* */` comments (a Latin-1 `©` or `é` in a licence
/// header) become U+FFFD; elsewhere they are an error naming `file:line`.
pub fn read_text(path: &Path, limit: u64, what: &str) -> crate::Result<String> {
    source_text(
        &read_bounded(path, limit, what)?,
        &path.display().to_string(),
    )
}

/// A shader's bytes as text, as glslang takes them: a UTF-8 byte-order mark
/// at the start is dropped, and bytes that are not UTF-8 inside a `//` or
/// `/* */` comment become U+FFFD (glslang skips comments byte by byte).
/// Elsewhere such bytes are an error naming `name:line`.
pub(crate) fn source_text(bytes: &[u8], name: &str) -> crate::Result<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    let mut comment = Comment::None;
    for chunk in bytes.utf8_chunks() {
        comment = comment.after(chunk.valid());
        out.push_str(chunk.valid());
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        if comment == Comment::None {
            // The line as a lossy decoding shows it, the caret on the byte.
            let line = out.matches('\n').count() as u32 + 1;
            let column = out.len() - out.rfind('\n').map_or(0, |n| n + 1) + 1;
            let mark = crate::error::Mark {
                line,
                column: column as u32,
                len: 1,
                label: String::new(),
            };
            return Err(crate::Error::shader(crate::error::with_excerpt(
                name,
                &format!(
                    "error: byte {:#04x} is not UTF-8 text, and not inside a comment (save the file as UTF-8)",
                    invalid[0]
                ),
                &String::from_utf8_lossy(bytes),
                &[mark],
            )));
        }
        out.push(char::REPLACEMENT_CHARACTER);
    }
    Ok(out)
}

/// Whether text so far ends inside a comment, for [`source_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comment {
    None,
    /// `// …` up to the end of the line (a `\` just before it continues it).
    Line,
    /// `/* … */`.
    Block,
}

impl Comment {
    /// The state after `text`, starting from `self`.
    fn after(mut self, text: &str) -> Comment {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let next = b.get(i + 1).copied();
            match (self, b[i]) {
                (Comment::None, b'/') if next == Some(b'/') => {
                    self = Comment::Line;
                    i += 1;
                }
                (Comment::None, b'/') if next == Some(b'*') => {
                    self = Comment::Block;
                    i += 1;
                }
                (Comment::Line, b'\\') if next == Some(b'\n') => i += 1,
                (Comment::Line, b'\\') if next == Some(b'\r') && b.get(i + 2) == Some(&b'\n') => {
                    i += 2
                }
                (Comment::Line, b'\n') => self = Comment::None,
                (Comment::Block, b'*') if next == Some(b'/') => {
                    self = Comment::None;
                    i += 1;
                }
                _ => {}
            }
            i += 1;
        }
        self
    }
}

/// The features binding arrays of textures, samplers and storage images
/// need, indexed by any value ([`SourceOptions::binding_arrays`]).
pub const BINDING_ARRAY_FEATURES: wgt::Features = wgt::Features::TEXTURE_BINDING_ARRAY
    .union(wgt::Features::STORAGE_RESOURCE_BINDING_ARRAY)
    .union(wgt::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING)
    .union(wgt::Features::STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING);

impl SourceOptions {
    /// These options with the forms an adapter of `features` runs:
    /// [`SourceOptions::native_float_atomics`] where it has
    /// SHADER_FLOAT32_ATOMIC, [`SourceOptions::binding_arrays`] where it
    /// has every one of [`BINDING_ARRAY_FEATURES`], and
    /// [`SourceOptions::int64_pairs`] where it lacks SHADER_INT64; the
    /// portable forms elsewhere. The kernel's
    /// [`crate::Kernel::forms`] say which it took. The features are an adapter's
    /// (`ContextOptions::adapter_features`) or a device's the caller
    /// opened (`device.features()`).
    pub fn fitted_to(mut self, features: wgt::Features) -> Self {
        self.native_float_atomics = features.contains(wgt::Features::SHADER_FLOAT32_ATOMIC);
        self.binding_arrays = features.contains(BINDING_ARRAY_FEATURES);
        self.int64_pairs = !features.contains(wgt::Features::SHADER_INT64);
        self
    }

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
            let cause_text = crate::error::with_causes(e.as_inner());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_not_utf8_are_replaced_in_comments_only() {
        let text = |b: &[u8]| source_text(b, "s.comp");
        assert_eq!(
            text(b"\xef\xbb\xbf#version 450\n").unwrap(),
            "#version 450\n"
        );
        assert_eq!(
            text(b"// caf\xe9\nx /* \xa9\n \xe9 */ y\n").unwrap(),
            "// caf\u{fffd}\nx /* \u{fffd}\n \u{fffd} */ y\n"
        );
        // A `\` at the end of a `//` comment continues it, as in C.
        assert_eq!(
            text(b"// a \\\r\n b\xe9\n").unwrap(),
            "// a \\\r\n b\u{fffd}\n"
        );
        // After the comment ends, the byte is code.
        let e = text(b"/* ok */ \xe9\n").unwrap_err().to_string();
        assert!(e.starts_with("s.comp:1:10: error: byte 0xe9"), "{e}");
        let e = text(b"// \xe9\nuint \xe9;\n").unwrap_err().to_string();
        assert!(e.starts_with("s.comp:2:6: error: byte 0xe9"), "{e}");
        // A `/` before the byte starts no comment.
        assert!(text(b"a /\xe9\n").is_err());
    }
}
