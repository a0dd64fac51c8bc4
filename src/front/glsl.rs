//! GLSL input: compiled to SPIR-V by glslang, the Khronos reference compiler,
//! so that its version gates and its diagnostics are the specification's.

use std::path::{Path, PathBuf};

use glslang::include::{IncludeHandler, IncludeResult, IncludeType};
use glslang::limits::ResourceLimits;

use crate::front::glslang_c::link;
use crate::front::glslang_log::{diagnostics, sources};
use crate::front::{Dialect, SourceOptions, TargetEnv};
use crate::{Error, Result};

/// How deep `#include`s may nest: deeper is taken for a recursive include.
const MAX_INCLUDE_DEPTH: usize = 32;

/// Resolves `#include "x"` against the including file's folder, then the
/// include dirs (`-I`); `#include <x>` against the include dirs only, as
/// GCC and glslang's own includer do. glslang asks for `"x"` as a local
/// include and, when that finds nothing, as a system one; for `<x>` only as
/// a system one, whose answer when nothing is found is the message glslang
/// prints: where atomport looked.
struct Includer {
    dirs: Vec<PathBuf>,
    root: PathBuf,
    /// Files given with their text ([`SourceOptions::files`]).
    files: Vec<(PathBuf, String)>,
    /// Every file included, as found, with its text (the initializers of
    /// loose uniforms are read from it).
    included: Vec<(PathBuf, String)>,
    /// What the last `"x"` search could not answer: (header, includer,
    /// why). glslang asks again as a system include after any local answer
    /// it cannot use, and that answer gives the reason.
    local: Option<(String, String, Unanswered)>,
}

/// Why a `"x"` search gave glslang no answer it can use.
enum Unanswered {
    /// Not found: the folder searched before the include dirs.
    Missed(PathBuf),
    /// Found but refused, and why.
    Refused(String),
}

impl IncludeHandler for Includer {
    fn include(
        &mut self,
        ty: IncludeType,
        header: &str,
        includer: &str,
        depth: usize,
    ) -> Option<IncludeResult> {
        let missed = match self
            .local
            .take()
            .filter(|(h, i, _)| ty == IncludeType::System && h == header && i == includer)
        {
            Some((_, _, Unanswered::Refused(why))) => return Some(refusal(why)),
            Some((_, _, Unanswered::Missed(folder))) => Some(folder),
            None => None,
        };
        if depth > MAX_INCLUDE_DEPTH {
            return Some(refusal(format!(
                "`{header}` nests includes more than {MAX_INCLUDE_DEPTH} deep (is an include recursive?)"
            )));
        }
        let base = Path::new(includer)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.root.clone());
        let mut candidates = Vec::new();
        if ty == IncludeType::Local {
            candidates.push(base.join(header));
        }
        candidates.extend(self.dirs.iter().map(|d| d.join(header)));
        if let Some((found, data)) = candidates
            .iter()
            .find_map(|c| self.files.iter().find(|(p, _)| same_path(p, c)))
        {
            self.included.push((found.clone(), data.clone()));
            return Some(IncludeResult {
                name: found.display().to_string(),
                data: data.clone(),
            });
        }
        if cfg!(target_arch = "wasm32") {
            return Some(refusal(format!(
                "a browser has no files to read `{header}` from: pass its text in the options' files, or put it into the source"
            )));
        }
        let Some(found) = candidates.into_iter().find(|p| p.exists()) else {
            if ty == IncludeType::Local {
                let missed = Unanswered::Missed(base);
                self.local = Some((header.into(), includer.into(), missed));
                return None;
            }
            return Some(self.not_found(header, base, missed));
        };
        match super::read_text(&found, super::MAX_SOURCE_BYTES, "shader").and_then(|data| {
            if data.contains('\0') {
                Err(Error::shader(format!(
                    "{}: the source contains a NUL byte",
                    found.display()
                )))
            } else {
                Ok(data)
            }
        }) {
            Ok(data) => Some({
                self.included.push((found.clone(), data.clone()));
                IncludeResult {
                    name: found.display().to_string(),
                    data,
                }
            }),
            Err(e) => {
                // Naming the header keeps glslang's "for header name" off.
                let why = format!("`{header}`: {e}");
                if ty == IncludeType::System {
                    return Some(refusal(why));
                }
                self.local = Some((header.into(), includer.into(), Unanswered::Refused(why)));
                None
            }
        }
    }
}

/// An include refused for `why`: glslang prints an answer without a name
/// as the reason the include failed, at the `#include`'s line.
fn refusal(why: String) -> IncludeResult {
    IncludeResult {
        name: String::new(),
        data: why,
    }
}

/// Whether two paths name one file, `.` and `x/..` aside (no file system
/// is asked: in a browser there is none).
fn same_path(a: &Path, b: &Path) -> bool {
    fn parts(p: &Path) -> Vec<std::path::Component<'_>> {
        use std::path::Component;
        let mut out = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    }
    parts(a) == parts(b)
}

impl Includer {
    /// glslang's answer for a header found nowhere: no name, and the message
    /// it prints as its data (`'#include' : MESSAGE for header name: x`);
    /// `missed`, the folder a `"x"` search looked in first.
    fn not_found(&self, header: &str, base: PathBuf, missed: Option<PathBuf>) -> IncludeResult {
        let shown = |p: &Path| {
            let s = p.display().to_string();
            if s.is_empty() { ".".to_string() } else { s }
        };
        let dirs: Vec<String> = self.dirs.iter().map(|d| shown(d)).collect();
        let data = match missed {
            Some(local) => {
                let mut folders = vec![shown(&local)];
                folders.extend(dirs.iter().map(|d| format!("{d} (-I)")));
                format!("`{header}` is not in {}", folders.join(", "))
            }
            None => {
                let mut text = if dirs.is_empty() {
                    format!(
                        "`{header}` is searched for on the -I folders only (#include <…>), and none was given"
                    )
                } else {
                    format!("`{header}` is not in the -I folders {}", dirs.join(", "))
                };
                if base.join(header).is_file() {
                    let at = shown(&base);
                    text.push_str(&format!(
                        "; it is in {at}: write #include \"{header}\" or add -I {at}"
                    ));
                }
                text
            }
        };
        refusal(data)
    }
}

/// What glslang made of a GLSL compute shader.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The SPIR-V words.
    pub words: Vec<u32>,
    /// The dialect it was compiled as (the one asked for, or the one detected).
    pub dialect: Dialect,
    /// Loose uniforms whose declaration has an initializer, as (name, the
    /// initializer's text): glslang drops initializers of uniforms it
    /// gathers into a block, so the host fills them in.
    pub uniform_initializers: Vec<(String, String)>,
    /// OpenGL dialect: the words of declarations that name no binding (the
    /// binding pass marks resources so named as bound automatically).
    pub unbound: Vec<String>,
    /// Every file read besides the shader: the units linked with it, then
    /// every file `#include`d, as found.
    pub includes: Vec<PathBuf>,
}

/// A compilation unit linked with the shader ([`SourceOptions::linked`]):
/// its name, as messages and its own `#include`s see it, and its text.
struct Unit {
    name: String,
    text: String,
}

/// The units linked with the shader, read (from [`SourceOptions::files`]
/// first) and checked as the shader is.
fn linked_units(opts: &SourceOptions) -> Result<Vec<Unit>> {
    opts.linked
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let text = match opts.files.iter().find(|(p, _)| p == path) {
                Some((_, text)) => text.clone(),
                None => super::read_text(path, super::MAX_SOURCE_BYTES, "linked shader")?,
            };
            let text = unit_text(&text, &name)?.to_string();
            Ok(Unit { name, text })
        })
        .collect()
}

/// A unit's text as glslang takes it, its byte-order mark dropped (as
/// editors on Windows write one), or why it cannot be: a NUL byte, a
/// version without compute shaders.
fn unit_text<'a>(text: &'a str, name: &str) -> Result<&'a str> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if text.contains('\0') {
        return Err(Error::shader(format!(
            "{name}: the source contains a NUL byte"
        )));
    }
    check_version(text, name)?;
    Ok(text)
}

/// Compiles a GLSL compute shader to SPIR-V words.
///
/// Desktop GLSL 4.30–4.60 and ES 3.10+ are accepted, written for Vulkan
/// (`layout(set = …, binding = …)`) or for OpenGL (loose uniforms, atomic
/// counters, `layout(binding = N)` in per-kind namespaces): see
/// [`SourceOptions::dialect`]. glslang's diagnostics come back as
/// `file:line: error: …`.
pub fn compile(source: &str, opts: &SourceOptions) -> Result<Compiled> {
    let source = unit_text(source, opts.display_name())?;
    let linked = linked_units(opts)?;
    #[cfg(target_arch = "wasm32")]
    super::wasm_c::construct();
    let sets = names_a_set(source) || linked.iter().any(|u| names_a_set(&u.text));
    // glslang's wrapper panics on some inputs (e.g. a log that is not UTF-8).
    crate::guard("glslang", || match opts.dialect {
        Some(d) => compile_as(source, &linked, opts, d),
        None if sets => compile_as(source, &linked, opts, Dialect::Vulkan),
        None => detect_dialect(source, &linked, opts),
    })
}

/// Compiles a shader that names no descriptor set under OpenGL's rules, a
/// superset of Vulkan's (so its diagnostics are the real ones), and decides
/// the dialect from what came out, compiling a second time only where that
/// cannot tell. A shader is Vulkan GLSL when it compiles under Vulkan's
/// rules with no two resources of different kinds at one binding (buffer
/// blocks of one kind there alias one buffer, as Vulkan allows). Loose
/// uniforms and atomic counters never compile under Vulkan's rules; a
/// shader with neither, whose every resource names its binding and no two
/// share one, compiles to the same SPIR-V under both (a test checks this
/// over the corpus), so one compile serves. Resources without a binding, or bindings shared, leave
/// it to a Vulkan compile.
fn detect_dialect(source: &str, linked: &[Unit], opts: &SourceOptions) -> Result<Compiled> {
    let opengl = compile_as(source, linked, opts, Dialect::OpenGl)?;
    if names_opengl_only_blocks(&opengl.words) {
        return Ok(opengl);
    }
    if opengl.unbound.is_empty() && !bindings_shared(&opengl.words) {
        return Ok(Compiled {
            dialect: Dialect::Vulkan,
            uniform_initializers: Vec::new(),
            ..opengl
        });
    }
    // Buffer blocks of one kind at one binding are Vulkan's aliases of
    // one buffer (a header naming its sets, included, declares them so);
    // a push-constant block is Vulkan's alone, whatever shares a binding
    // (a bindless header's arrays of every image type at one).
    match compile_as(source, linked, opts, Dialect::Vulkan) {
        Ok(c) if has_push_constants(&c.words) || !bindings_shared_across_kinds(&c.words) => Ok(c),
        _ => Ok(opengl),
    }
}

/// Whether the module has a push-constant block, which only Vulkan GLSL
/// declares.
fn has_push_constants(words: &[u32]) -> bool {
    const OP_VARIABLE: u32 = 59;
    const PUSH_CONSTANT: u32 = 9;
    super::spirv::instructions(words).any(|(_, inst)| {
        inst[0] & 0xffff == OP_VARIABLE && inst.len() >= 4 && inst[3] == PUSH_CONSTANT
    })
}

/// Whether glslang gathered loose uniforms (`gl_DefaultUniformBlock`) or
/// atomic counters (`gl_AtomicCounterBlock_N`) into blocks: only OpenGL's
/// rules allow either.
fn names_opengl_only_blocks(words: &[u32]) -> bool {
    const OP_NAME: u32 = 5;
    super::spirv::instructions(words).any(|(_, inst)| {
        inst[0] & 0xffff == OP_NAME && inst.len() > 2 && {
            let bytes: Vec<u8> = inst[2..]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            bytes.starts_with(super::DEFAULT_UNIFORM_BLOCK.as_bytes())
                || bytes.starts_with(super::ATOMIC_COUNTER_BLOCK.as_bytes())
        }
    })
}

/// Whether the source names a descriptor set (`set = N`) anywhere, which
/// only Vulkan GLSL can.
fn names_a_set(source: &str) -> bool {
    let b = source.as_bytes();
    source.match_indices("set").any(|(i, _)| {
        let before_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let rest = source[i + 3..].trim_start();
        before_ok && rest.starts_with('=') && !rest.starts_with("==")
    })
}

/// Whether `source` has `#extension NAME : enable` (or `require`).
fn enables(source: &str, extension: &str) -> bool {
    source.lines().any(|l| {
        let mut w = l
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|w| !w.is_empty());
        w.next() == Some("#extension")
            && w.next() == Some(extension)
            && matches!(w.next(), Some("enable" | "require"))
    })
}

/// Refuses versions without compute shaders, naming the line.
fn check_version(source: &str, name: &str) -> Result<()> {
    // The first line of code, and its 1-based number (comments and blank
    // lines may come first).
    let Some((n, line)) = source
        .lines()
        .map(str::trim)
        .enumerate()
        .find(|(_, l)| !l.is_empty() && !l.starts_with("//"))
    else {
        return Ok(());
    };
    let n = n + 1;
    let Some(rest) = line.strip_prefix("#version") else {
        return Ok(());
    };
    let mut words = rest.split_whitespace();
    let Some(token) = words.next() else {
        return Ok(()); // glslang names the problem
    };
    let Some(version) = token
        .bytes()
        .all(|c| c.is_ascii_digit())
        .then(|| token.parse::<u32>().ok())
        .flatten()
    else {
        return Err(Error::shader(format!(
            "{name}:{n}: error: `{token}` after #version is not a version number"
        )));
    };
    let es = words.next() == Some("es");
    // OpenGL 4.2 has compute shaders through GL_ARB_compute_shader.
    let by_extension = !es && version >= 420 && enables(source, "GL_ARB_compute_shader");
    if (es && version < 310) || (!es && version < 430 && !by_extension) {
        return Err(Error::shader(format!(
            "{name}:{n}: error: compute shaders need #version 430 or later (310 es for ES, 420 with GL_ARB_compute_shader); this is version {version}{}",
            if es { " es" } else { "" }
        )));
    }
    Ok(())
}

/// glslang's limits, with OpenGL 4.6's minimums for atomic counters (the
/// defaults allow one counter binding only).
fn limits() -> ResourceLimits {
    let mut l = ResourceLimits::default();
    l.set_max_atomic_counter_bindings(8);
    l.set_max_compute_atomic_counter_buffers(8);
    l.set_max_combined_atomic_counter_buffers(8);
    l.set_max_compute_atomic_counters(1024);
    l.set_max_combined_atomic_counters(1024);
    l.set_max_atomic_counter_buffer_size(1 << 16);
    l
}

/// Compiles for the target the caller chose; without one for Vulkan 1.1
/// (SPIR-V 1.3), and when glslang refuses the shader only because that
/// SPIR-V is too old for it (a `subgroupBroadcast` from a non-constant lane
/// needs SPIR-V 1.5, a `shared` block 1.4), for Vulkan 1.2, then 1.3.
fn compile_as(
    source: &str,
    linked: &[Unit],
    opts: &SourceOptions,
    dialect: Dialect,
) -> Result<Compiled> {
    if let Some(target) = opts.target_env {
        return compile_for(source, linked, opts, dialect, target);
    }
    let mut compiled = compile_for(source, linked, opts, dialect, TargetEnv::Vulkan1_1);
    for newer in [TargetEnv::Vulkan1_2, TargetEnv::Vulkan1_3] {
        match &compiled {
            Err(Error::Shader(e)) if needs_newer_spirv(&e.message) => {
                compiled = compile_for(source, linked, opts, dialect, newer);
            }
            _ => break,
        }
    }
    compiled
}

/// Whether a glslang error says the targeted SPIR-V version is too old.
fn needs_newer_spirv(message: &str) -> bool {
    [
        // subgroupBroadcast/subgroupQuadBroadcast below SPIR-V 1.5.
        "'id' : argument must be compile-time constant",
        "requires SPIR-V 1.",
        "requires at least SPIR-V 1.",
        "not supported for current targeted SPIR-V version",
    ]
    .iter()
    .any(|m| message.contains(m))
}

fn compile_for(
    source: &str,
    linked: &[Unit],
    opts: &SourceOptions,
    dialect: Dialect,
    target: TargetEnv,
) -> Result<Compiled> {
    let name = opts.display_name().to_string();
    #[cfg(test)]
    tests::COMPILES.with(|c| c.set(c.get() + 1));
    // Initialises glslang's process once.
    glslang::Compiler::acquire()
        .ok_or_else(|| Error::Internal("glslang failed to initialise".into()))?;
    let main = parse_unit(source, opts, dialect, target)?;
    let mut units = Vec::with_capacity(linked.len());
    for u in linked {
        let unit_opts = SourceOptions {
            name: u.name.clone(),
            linked: Vec::new(),
            ..opts.clone()
        };
        units.push(parse_unit(&u.text, &unit_opts, dialect, target)?);
    }
    let parsed: Vec<&super::glslang_c::Parsed> = std::iter::once(&main.shader)
        .chain(units.iter().map(|u| &u.shader))
        .collect();
    let words = link(&parsed).map_err(|log| {
        Error::shader(diagnostics(
            &log,
            &name,
            dialect,
            &sources(source, &name, &main.included),
        ))
    })?;
    let mut includes: Vec<PathBuf> = opts.linked.clone();
    let (mut unbound, mut uniform_initializers) = (Vec::new(), Vec::new());
    for unit in std::iter::once(main).chain(units) {
        unbound.extend(unit.unbound);
        uniform_initializers.extend(unit.initializers);
        includes.extend(unit.included.into_iter().map(|(path, _)| path));
    }
    Ok(Compiled {
        words,
        dialect,
        uniform_initializers,
        unbound,
        includes,
    })
}

/// One compilation unit parsed, with what the OpenGL dialect reads from
/// its text.
struct ParsedUnit {
    shader: super::glslang_c::Parsed,
    /// Every file it included, as found, with its text.
    included: Vec<(PathBuf, String)>,
    /// Its declarations that name no binding (OpenGL).
    unbound: Vec<String>,
    /// Its loose uniforms' initializers (OpenGL).
    initializers: Vec<(String, String)>,
}

/// Parses one unit (`opts.name` names it) and reads from its text what
/// the OpenGL dialect needs.
fn parse_unit(
    source: &str,
    opts: &SourceOptions,
    dialect: Dialect,
    target: TargetEnv,
) -> Result<ParsedUnit> {
    // OpenGL gives a resource that names no binding binding 0 of its kind,
    // and glslang (told to accept them) decorates them with 0 too: the
    // declarations themselves say which named none, read from the text as
    // preprocessed (glslang's, where the text needs a preprocessor).
    let plain = (dialect == Dialect::OpenGl)
        .then(|| without_comments(source, opts))
        .flatten();
    let needs_text = dialect == Dialect::OpenGl && plain.is_none();
    let (shader, included) = parse(source, opts, dialect, target, needs_text)?;
    let unbound = match dialect {
        Dialect::OpenGl => plain
            .or_else(|| shader.preprocessed())
            .map_or_else(Vec::new, |text| unbound_resources(&text)),
        Dialect::Vulkan => Vec::new(),
    };
    let initializers = if dialect == Dialect::OpenGl {
        uniform_initializers(&shader.log(), source, opts.display_name(), &included)
    } else {
        Vec::new()
    };
    Ok(ParsedUnit {
        shader,
        included,
        unbound,
        initializers,
    })
}

/// Parses the shader: preprocessed apart first where it includes files or
/// `preprocessed` asks for the preprocessed text, else read once
/// ([`super::glslang_c`]).
fn parse(
    source: &str,
    opts: &SourceOptions,
    dialect: Dialect,
    target: TargetEnv,
    preprocessed: bool,
) -> Result<(super::glslang_c::Parsed, Vec<(PathBuf, String)>)> {
    use glslang_sys::glslang_target_language_version_t as Spirv;
    use glslang_sys::{glslang_profile_t as Profile, glslang_target_client_version_t as Client};
    let name = opts.display_name();
    // A version given for shaders without one (glslang then takes it as if
    // the shader began with it).
    let declared = crate::GlslVersion::declared_in(source);
    let version = opts.glsl_version.filter(|_| !declared);
    // #include works without the shader naming the extension, as with glslangValidator.
    let text = with_include_extension(source, version.is_some());
    let (client, spirv) = match target {
        TargetEnv::Vulkan1_0 => (Client::Vulkan1_0, Spirv::SPIRV1_0),
        TargetEnv::Vulkan1_1 => (Client::Vulkan1_1, Spirv::SPIRV1_3),
        TargetEnv::Vulkan1_2 => (Client::Vulkan1_2, Spirv::SPIRV1_5),
        TargetEnv::Vulkan1_3 => (Client::Vulkan1_3, Spirv::SPIRV1_6),
    };
    let root = Path::new(&opts.name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut includer = Includer {
        dirs: opts.include_dirs.clone(),
        root,
        files: opts.files.clone(),
        included: Vec::new(),
        local: None,
    };
    // A name defined twice takes its last value, as on a compiler's command
    // line (glslang would refuse the redefinition).
    let defines = &opts.defines;
    let preamble: String = defines
        .iter()
        .enumerate()
        .filter(|(i, (k, _))| !defines[i + 1..].iter().any(|(later, _)| later == k))
        .map(|(_, (k, v))| format!("#define {k} {}\n", v.as_deref().unwrap_or_default()))
        .collect();
    let limits = limits();
    // Only glslang's preprocessing pass calls the includer: a shader that
    // may include a file takes it. (`include` anywhere: a directive may
    // put spaces after its `#`, and a false alarm costs a pass.)
    let preprocess = preprocessed || text.contains("include");
    let run = |text: &str, includer: &mut Includer| {
        super::glslang_c::parse(super::glslang_c::Options {
            source: text,
            client,
            spirv,
            default_version: version.map(|v| {
                let profile = if v.es { Profile::ES } else { Profile::Core };
                (i32::from(v.number), profile)
            }),
            preamble: &preamble,
            opengl: dialect == Dialect::OpenGl,
            limits: &limits,
            includer,
            preprocess,
        })
    };
    let mut parsed = run(&text, &mut includer);
    // What glslang refuses and desktop drivers take (see
    // [`super::lenient`]): the shader runs there, so it is read
    // as they read it, the refused text blanked (lines keep their
    // numbers). glslang names one at a time; a bounded number of passes.
    let (mut main, mut patched) = (source.to_string(), Vec::new());
    for _ in 0..super::lenient::MAX_LENIENT_PASSES {
        let Err(log) = &parsed else { break };
        let Some(()) = super::lenient::without_what_drivers_take(
            log,
            &mut main,
            &mut patched,
            &includer.included,
        ) else {
            break;
        };
        let mut again = Includer {
            files: patched.iter().cloned().chain(opts.files.clone()).collect(),
            dirs: opts.include_dirs.clone(),
            root: includer.root.clone(),
            included: Vec::new(),
            local: None,
        };
        parsed = run(
            &with_include_extension(&main, version.is_some()),
            &mut again,
        );
        // What was included, and where errors point: the texts as written.
        if parsed.is_ok() {
            again.included = std::mem::take(&mut includer.included);
            includer = again;
        }
    }
    match parsed {
        Ok(shader) => Ok((shader, includer.included)),
        Err(log) => {
            let mut text = diagnostics(
                &log,
                name,
                dialect,
                &sources(source, name, &includer.included),
            );
            if opts.glsl_version.is_none() && !declared {
                text.push_str(&format!(
                    "\n{name}: the shader has no #version line: give the version its project compiles it with (--glsl-version 460, SourceOptions::glsl_version)"
                ));
            }
            Err(Error::shader(text))
        }
    }
}

/// The shader's text as glslang's preprocessor gives it where that is the
/// text less its comments: no `-D` definitions, no line continued, and no
/// directive but `#version`, `#extension`, `#pragma` and `#line` (no macro,
/// conditional or include). Comments become a space each (newlines kept).
fn without_comments(source: &str, opts: &SourceOptions) -> Option<String> {
    if !opts.defines.is_empty() || source.contains("\\\n") || source.contains("\\\r\n") {
        return None;
    }
    let bytes = source.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.push(b' ');
            }
            (b'/', Some(b'*')) => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        out.push(b'\n');
                    }
                    i += 1;
                }
                i += 2;
                out.push(b' ');
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Comments removed at ASCII bytes only: still UTF-8.
    let text = String::from_utf8(out).ok()?;
    let plain = text.lines().all(|l| {
        let Some(directive) = l.trim_start().strip_prefix('#') else {
            return true;
        };
        let word = directive.trim_start();
        ["version", "extension", "pragma", "line"]
            .iter()
            .any(|d| word.starts_with(d))
            || word.is_empty()
    });
    plain.then_some(text)
}

/// The names (block and instance names, opaque uniforms' names) of the
/// top-level resource declarations of preprocessed GLSL whose layout
/// names no binding: blocks (`buffer B { … }`, `uniform B { … }`) and
/// images, textures and samplers. Loose uniforms and atomic counters are
/// not resources of their own.
fn unbound_resources(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                if depth == 0 {
                    let head = &code[start..i];
                    if let Some(names) = block_declaration(head) {
                        // The instance name follows the closing brace.
                        let close = matching_brace(bytes, i);
                        let tail_end = code[close..].find(';').map_or(code.len(), |e| close + e);
                        let instance = identifiers(&code[close + 1..tail_end]).next();
                        out.extend(names);
                        out.extend(instance.map(str::to_string));
                        i = tail_end + 1;
                        start = i;
                        continue;
                    }
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                let decl = &code[start..i];
                if let Some(name) = opaque_declaration(decl) {
                    out.push(name);
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The index of the `}` that closes the `{` at `open`.
fn matching_brace(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in bytes.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    bytes.len().saturating_sub(1)
}

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// `(layout qualifier, the rest)` of a declaration.
fn split_layout(decl: &str) -> (&str, &str) {
    let decl = decl.trim();
    match decl.find("layout") {
        Some(a) => match decl[a..].find(')') {
            Some(b) => (&decl[a..a + b], &decl[a + b + 1..]),
            None => ("", decl),
        },
        None => ("", decl),
    }
}

/// For a block head without a binding (`layout(std430) buffer Name`): its
/// name. Push-constant blocks, buffer-reference types and shader-record
/// blocks are bound by no binding in either dialect, so they leave the
/// dialect to the one compile.
fn block_declaration(head: &str) -> Option<Vec<String>> {
    let (layout, rest) = split_layout(head);
    let words: Vec<&str> = identifiers(rest).collect();
    let kw = words
        .iter()
        .position(|w| *w == "buffer" || *w == "uniform")?;
    let unbindable = [
        "binding",
        "push_constant",
        "buffer_reference",
        "shaderRecordEXT",
        "shaderRecordNV",
    ];
    if identifiers(layout).any(|w| unbindable.contains(&w)) {
        return None;
    }
    Some(
        words
            .get(kw + 1)
            .map(|n| n.to_string())
            .into_iter()
            .collect(),
    )
}

/// For an image, texture or sampler uniform without a binding: its name.
fn opaque_declaration(decl: &str) -> Option<String> {
    let (layout, rest) = split_layout(decl);
    let rest = rest.split(['[', '=']).next().unwrap_or(rest);
    let words: Vec<&str> = identifiers(rest).collect();
    if !words.contains(&"uniform") || identifiers(layout).any(|w| w == "binding") {
        return None;
    }
    let opaque = words.iter().any(|w| {
        let w = w.trim_start_matches(['i', 'u']);
        w.starts_with("image") || w.starts_with("sampler") || w.starts_with("texture")
    });
    opaque
        .then(|| words.last().map(|n| n.to_string()))
        .flatten()
}

/// The text of the file glslang calls `file` (`0`: the main source), as
/// already read: the source or one of the files it included.
fn source_of<'a>(
    file: &str,
    source: &'a str,
    name: &str,
    included: &'a [(PathBuf, String)],
) -> &'a str {
    if file == "0" || file == name {
        return source;
    }
    included
        .iter()
        .find(|(path, _)| path.display().to_string() == file)
        .map_or("", |(_, text)| text)
}

/// The initializers glslang reports ignoring (`'NAME' : Ignoring
/// initializer for uniform`), read from the declaration's line: the text
/// after `NAME … =` up to the `;`.
fn uniform_initializers(
    log: &str,
    source: &str,
    name: &str,
    included: &[(PathBuf, String)],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in log.lines() {
        let Some(rest) = line.trim().strip_prefix("WARNING: ") else {
            continue;
        };
        if !rest.ends_with("Ignoring initializer for uniform") {
            continue;
        }
        // `FILE:LINE: 'NAME' : Ignoring …`
        let mut parts = rest.splitn(3, ':');
        let (Some(file), Some(ln), Some(msg)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(uniform) = msg.split('\'').nth(1) else {
            continue;
        };
        let Ok(ln) = ln.trim().parse::<usize>() else {
            continue;
        };
        let text = source_of(file, source, name, included);
        // The declaration may continue over a few lines.
        let decl: String = text
            .lines()
            .skip(ln.saturating_sub(1))
            .take(8)
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(init) = initializer_of(&decl, uniform) {
            out.push((uniform.to_string(), init));
        }
    }
    out
}

/// In `… NAME[…] = INIT; …`, the text INIT.
fn initializer_of(decl: &str, name: &str) -> Option<String> {
    let b = decl.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for (i, _) in decl.match_indices(name) {
        let end = i + name.len();
        if (i > 0 && ident(b[i - 1])) || (end < b.len() && ident(b[end])) {
            continue;
        }
        let mut rest = decl[end..].trim_start();
        if rest.starts_with('[') {
            rest = rest[rest.find(']')? + 1..].trim_start();
        }
        if let Some(init) = rest.strip_prefix('=') {
            return Some(init[..init.find(';')?].trim().to_string());
        }
    }
    None
}

/// Inserts `#extension GL_GOOGLE_include_directive : enable` after `#version`
/// (or first, where `versionless`: the version is given apart) when the
/// shader uses `#include` without it.
fn with_include_extension(source: &str, versionless: bool) -> String {
    let uses_include = source
        .lines()
        .any(|l| l.trim_start().starts_with("#include"));
    // A commented-out `#extension` line (a project whose compiler adds it)
    // enables nothing.
    let enabled = source.lines().any(|l| {
        l.trim_start().starts_with("#extension") && l.contains("GL_GOOGLE_include_directive")
    });
    if !uses_include || enabled {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len() + 64);
    if versionless {
        // The given version (330 or later) makes `#line 1` the next line's.
        out.push_str("#extension GL_GOOGLE_include_directive : enable\n#line 1\n");
        out.push_str(source);
        return out;
    }
    let mut done = false;
    for (n, line) in source.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if !done && crate::GlslVersion::is_version_line(line) {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            // #line keeps glslang's line numbers those of the file: the line
            // after #version (line n + 1) is line n + 2.
            out.push_str(&format!(
                "#extension GL_GOOGLE_include_directive : enable\n#line {}\n",
                n + 2
            ));
            done = true;
        }
    }
    out
}

/// Whether two variables of a SPIR-V module are decorated with the same
/// (descriptor set, binding): legal in OpenGL GLSL, where buffers, image
/// units and the other kinds number their bindings separately. Scans the
/// words without building a module; malformed words just end the scan.
fn bindings_shared(words: &[u32]) -> bool {
    shared_slots(words).next().is_some()
}

/// Whether two variables at one (descriptor set, binding) are of different
/// storage classes, or not buffer blocks: what only OpenGL's per-kind
/// numbering allows. Buffer blocks of one class sharing a binding alias
/// one buffer, which Vulkan allows.
fn bindings_shared_across_kinds(words: &[u32]) -> bool {
    const STORAGE_BUFFER: u32 = 12;
    const UNIFORM: u32 = 2;
    shared_slots(words).any(|classes| {
        classes.iter().any(|&c| c != classes[0])
            || !matches!(classes[0], Some(STORAGE_BUFFER | UNIFORM))
    })
}

/// The storage classes of the variables at each (descriptor set, binding)
/// that more than one variable has (`None` for a variable not found).
fn shared_slots(words: &[u32]) -> impl Iterator<Item = Vec<Option<u32>>> {
    const OP_DECORATE: u32 = 71;
    const OP_VARIABLE: u32 = 59;
    const BINDING: u32 = 33;
    const DESCRIPTOR_SET: u32 = 34;
    let mut slots: std::collections::HashMap<u32, (u32, Option<u32>)> = Default::default();
    // Variable -> its storage class.
    let mut classes: std::collections::HashMap<u32, u32> = Default::default();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            break;
        }
        if words[at] & 0xffff == OP_VARIABLE && count >= 4 {
            classes.insert(words[at + 2], words[at + 3]);
        }
        if words[at] & 0xffff == OP_DECORATE && count == 4 {
            let (target, decoration, value) = (words[at + 1], words[at + 2], words[at + 3]);
            let slot = slots.entry(target).or_insert((0, None));
            match decoration {
                DESCRIPTOR_SET => slot.0 = value,
                BINDING => slot.1 = Some(value),
                _ => {}
            }
        }
        at += count;
    }
    let mut by_slot: std::collections::HashMap<(u32, u32), Vec<Option<u32>>> = Default::default();
    for (&target, &(set, binding)) in &slots {
        if let Some(b) = binding {
            by_slot
                .entry((set, b))
                .or_default()
                .push(classes.get(&target).copied());
        }
    }
    by_slot.into_values().filter(|c| c.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many times glslang compiled on this thread.
        pub(super) static COMPILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A Vulkan shader that names no set, with a push-constant block and a
    /// buffer-reference type (neither is bound by a binding), as ggml and
    /// meshlet culling write them: one compile decides its dialect.
    #[test]
    fn push_constants_and_buffer_references_take_one_compile() {
        let src = "#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { uint n; float scale; } p;
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(binding = 0) buffer Out { float out_v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) out_v[i] *= p.scale;
}
";
        COMPILES.with(|c| c.set(0));
        let c = compile(src, &SourceOptions::named("pc.comp")).unwrap();
        assert_eq!(c.dialect, Dialect::Vulkan);
        assert_eq!(COMPILES.with(|c| c.get()), 1);
    }

    /// Every GLSL shader of the corpus that names no descriptor set gets
    /// the dialect and SPIR-V that compiling under Vulkan's rules first,
    /// and OpenGL's where that fails or shares a binding, gave: one compile
    /// under OpenGL's rules decides it where it can.
    /// The `.comp` shaders of the repository's test and example folders.
    fn corpus() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut shaders = Vec::new();
        for dir in [
            "tests/glsl",
            "tests/glsl/errors",
            "tests/vulkan",
            "tests/regressions",
            "tests/fuzz",
            "tests/dx12",
            "examples/components",
            "examples/embed/shaders",
            "examples/histogram",
            "examples/oit",
            "examples/raster",
        ] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|e| e == "comp") {
                    shaders.push(p);
                }
            }
        }
        shaders
    }

    /// A shader parsed once from its own text gives the SPIR-V that
    /// preprocessing it first gave, in either dialect, over the corpus;
    /// and OpenGL's unbound resources read from the text less its
    /// comments are those read from glslang's preprocessed text.
    #[test]
    fn one_parse_gives_what_preprocessing_first_gave() {
        // glslang recurses as deep as the fuzz corpus nests: the stack
        // translations run on.
        std::thread::Builder::new()
            .stack_size(crate::DEEP_STACK)
            .spawn(compare_one_parse_with_two)
            .unwrap()
            .join()
            .unwrap();
    }

    fn compare_one_parse_with_two() {
        let mut compared = [0usize; 2];
        let mut shaders = corpus();
        shaders.push("comments.comp".into());
        for path in shaders {
            let src = if path.as_os_str() == "comments.comp" {
                // Comments that hold what the declarations scan looks for.
                "#version 450
layout(local_size_x = 1) in;
// layout(binding = 3) buffer Fake { uint x; };
/* uniform image2D notDeclared; { ; } */
layout(std430) buffer Data { uint v[]; } /* ; */ data;
uniform uimage2D img; // }
void main() { data.v[0] = imageLoad(img, ivec2(0)).x; }
"
                .to_string()
            } else {
                std::fs::read_to_string(&path).unwrap()
            };
            if check_version(&src, "").is_err() {
                continue;
            }
            let opts = SourceOptions::named(path.to_str().unwrap());
            for (k, dialect) in [Dialect::Vulkan, Dialect::OpenGl].into_iter().enumerate() {
                let target = TargetEnv::Vulkan1_3;
                let (Ok((once, _)), Ok((twice, _))) = (
                    parse(&src, &opts, dialect, target, false),
                    parse(&src, &opts, dialect, target, true),
                ) else {
                    continue;
                };
                let name = path.display();
                assert!(
                    link(&[&once]) == link(&[&twice]),
                    "{name}: the SPIR-V differs"
                );
                if dialect == Dialect::OpenGl
                    && let Some(plain) = without_comments(&src, &opts)
                {
                    let text = twice.preprocessed().unwrap();
                    assert_eq!(
                        unbound_resources(&plain),
                        unbound_resources(&text),
                        "{name}"
                    );
                    if path.as_os_str() == "comments.comp" {
                        assert_eq!(unbound_resources(&plain), ["Data", "data", "img"]);
                    }
                }
                compared[k] += 1;
            }
        }
        assert!(compared[0] >= 40 && compared[1] >= 40, "{compared:?}");
    }

    /// A definition glslang cannot be handed (a NUL byte in it) is a
    /// shader error naming the definitions, not a panic.
    #[test]
    fn a_nul_byte_in_a_definition_is_named() {
        let src = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
        let opts = SourceOptions::named("nul.comp").define("X=1\u{0}2");
        let e = compile(src, &opts).unwrap_err().to_string();
        assert!(
            e.contains("nul.comp: in a preprocessor definition: error:") && e.contains("NUL byte"),
            "{e}"
        );
    }

    /// `-D X=1 -D X=2` defines X as 2, as a compiler's command line does.
    #[test]
    fn a_name_defined_twice_takes_its_last_value() {
        let src = "#version 450
layout(local_size_x = 1) in;
#if X != 2
#error X is not 2
#endif
void main() {}
";
        let opts = SourceOptions::named("twice.comp")
            .define("X=1")
            .define("X=2");
        compile(src, &opts).unwrap();
        let opts = SourceOptions::named("twice.comp")
            .define("X=2")
            .define("X=1");
        let e = compile(src, &opts).unwrap_err().to_string();
        assert!(
            e.contains("twice.comp:4:1: error: '#error' : X is not 2"),
            "{e}"
        );
    }

    #[test]
    fn one_compile_detects_the_dialect_as_two_did() {
        let shaders = corpus();
        let (mut vulkan, mut opengl) = (0, 0);
        for path in shaders {
            let src = std::fs::read_to_string(&path).unwrap();
            // glslang's wrapper panics on some version lines `compile`
            // refuses first.
            if names_a_set(&src) || check_version(&src, "").is_err() {
                continue;
            }
            let opts = SourceOptions::named(path.to_str().unwrap());
            let two = match compile_as(&src, &[], &opts, Dialect::Vulkan) {
                Ok(c) if !bindings_shared(&c.words) => Ok(c),
                _ => compile_as(&src, &[], &opts, Dialect::OpenGl),
            };
            let one = compile(&src, &opts);
            let name = path.display();
            match (one, two) {
                (Ok(one), Ok(two)) => {
                    assert_eq!(one.dialect, two.dialect, "{name}");
                    assert!(one.words == two.words, "{name}: the SPIR-V differs");
                    assert_eq!(one.unbound, two.unbound, "{name}");
                    assert_eq!(one.uniform_initializers, two.uniform_initializers, "{name}");
                    match one.dialect {
                        Dialect::Vulkan => vulkan += 1,
                        Dialect::OpenGl => opengl += 1,
                    }
                }
                // Refused either way (`compile` checks the version first).
                (Err(_), Err(_)) => {}
                (one, two) => panic!("{name}: {:?} against {:?}", one.err(), two.err()),
            }
        }
        assert!(
            vulkan >= 5 && opengl >= 10,
            "{vulkan} Vulkan, {opengl} OpenGL"
        );
    }

    #[test]
    fn a_panic_inside_naga_is_reported_not_raised() {
        // A construct naga 30 panics on before atomport's passes: the vector
        // component atomic, fed to naga's SPIR-V reader directly.
        let src = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counters { uint hits; uvec2 pair; } c;
void main() { atomicAdd(c.hits, 1u); atomicMax(c.pair.y, gl_LocalInvocationIndex); }
";
        let words = super::compile(src, &crate::SourceOptions::named("c.comp"))
            .unwrap()
            .words;
        let e = crate::front::spirv::to_naga(&words, "c.spv").unwrap_err();
        // naga's gap, not malformed input and not atomport's bug: said so.
        assert!(matches!(e, crate::Error::Unsupported(_)), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("c.spv: naga's SPIR-V reader failed on the module"),
            "{e}"
        );
    }
}
