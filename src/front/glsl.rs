//! GLSL input: compiled to SPIR-V by glslang, the Khronos reference compiler,
//! so that its version gates and its diagnostics are the specification's.

use std::path::{Path, PathBuf};

use glslang::include::{IncludeHandler, IncludeResult, IncludeType};
use glslang::{
    CompilerOptions, GlslProfile, ShaderInput, ShaderMessage, ShaderSource, ShaderStage,
    SourceLanguage, SpirvVersion, Target, VulkanVersion,
};

use crate::front::SourceOptions;
use crate::{Error, Result};

/// Resolves `#include "x"` against the including file's folder, then the include dirs.
struct Includer {
    dirs: Vec<PathBuf>,
    root: PathBuf,
}

impl IncludeHandler for Includer {
    fn include(
        &mut self,
        ty: IncludeType,
        header: &str,
        includer: &str,
        _depth: usize,
    ) -> Option<IncludeResult> {
        let mut candidates = Vec::new();
        if ty == IncludeType::Local {
            let base = Path::new(includer)
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| self.root.clone());
            candidates.push(base.join(header));
        }
        candidates.extend(self.dirs.iter().map(|d| d.join(header)));
        candidates.into_iter().find_map(|p| {
            std::fs::read_to_string(&p).ok().map(|data| IncludeResult {
                name: p.display().to_string(),
                data,
            })
        })
    }
}

/// Compiles a GLSL compute shader to SPIR-V words.
///
/// Desktop GLSL 4.30–4.60 and ES 3.10+ are accepted, written for Vulkan
/// (`layout(set = …, binding = …)`) or for OpenGL (`layout(binding = N)`,
/// which is set 0). glslang's diagnostics come back as `file:line: error: …`.
pub fn compile(source: &str, opts: &SourceOptions) -> Result<Vec<u32>> {
    let name = opts.display_name().to_string();
    let compiler = glslang::Compiler::acquire()
        .ok_or_else(|| Error::Internal("glslang failed to initialise".into()))?;
    // #include works without the shader naming the extension, as with glslangValidator.
    let src = with_include_extension(source);
    if src.contains('\0') {
        return Err(Error::Shader(format!(
            "{name}: the source contains a NUL byte"
        )));
    }
    let shader_source = ShaderSource::from(src);
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target: Target::Vulkan {
            version: VulkanVersion::Vulkan1_1,
            spirv_version: SpirvVersion::SPIRV1_3,
        },
        version_profile: None,
        messages: ShaderMessage::DEFAULT,
    };
    let root = Path::new(&opts.name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut includer = Includer {
        dirs: opts.include_dirs.clone(),
        root,
    };
    let defines: Vec<(&str, Option<&str>)> = opts
        .defines
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();
    if let Some((version, profile)) = shader_source.parse_profile() {
        let ok = match profile {
            GlslProfile::ES => version >= 310,
            _ => version >= 430,
        };
        if !ok {
            return Err(Error::Shader(format!(
                "{name}:1: error: compute shaders need #version 430 or later (310 es for ES); this is version {version}"
            )));
        }
    }
    let input = ShaderInput::new(
        &shader_source,
        ShaderStage::Compute,
        &options,
        Some(&defines[..]),
        Some(&mut includer),
    )
    .map_err(|e| Error::Shader(format!("{name}: {e}")))?;
    let shader = compiler
        .create_shader(input)
        .map_err(|e| Error::Shader(diagnostics(&e, &name)))?;
    let mut program = compiler.create_program();
    program.add_shader(&shader);
    program
        .compile(ShaderStage::Compute)
        .map_err(|e| Error::Shader(diagnostics(&e, &name)))
}

/// Inserts `#extension GL_GOOGLE_include_directive : enable` after `#version`
/// when the shader uses `#include` without it.
fn with_include_extension(source: &str) -> String {
    let uses_include = source
        .lines()
        .any(|l| l.trim_start().starts_with("#include"));
    if !uses_include || source.contains("GL_GOOGLE_include_directive") {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut done = false;
    for (n, line) in source.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if !done && line.trim_start().starts_with("#version") {
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

/// glslang's log as `file:line: error: message` lines.
fn diagnostics(e: &glslang::error::GlslangError, name: &str) -> String {
    use glslang::error::GlslangError as G;
    let log = match e {
        G::PreprocessError(l) | G::ParseError(l) | G::LinkError(l) | G::MapIoError(l) => {
            l.log.clone()
        }
        other => other.to_string(),
    };
    let mut lines: Vec<String> = Vec::new();
    for line in log.lines() {
        let line = line.trim();
        if line.is_empty()
            || line.ends_with("compilation errors.  No code generated.")
            || line.ends_with("'' : compilation terminated")
        {
            continue;
        }
        let (severity, rest) = if let Some(r) = line.strip_prefix("ERROR: ") {
            ("error", r)
        } else if let Some(r) = line.strip_prefix("WARNING: ") {
            ("warning", r)
        } else {
            lines.push(format!("{name}: {line}"));
            continue;
        };
        // glslang writes `0:LINE: msg` for the main file and `FILE:LINE: msg` for includes.
        match rest.split_once(':').and_then(|(file, r)| {
            let (ln, msg) = r.split_once(':')?;
            ln.trim()
                .parse::<u32>()
                .ok()
                .map(|ln| (file, ln, msg.trim()))
        }) {
            Some((file, ln, msg)) => {
                let file = if file == "0" || file.is_empty() {
                    name
                } else {
                    file
                };
                let hint = if msg.contains("atomic counter") {
                    " (atomport maps buffer, shared and image atomics, not atomic counters: use atomicAdd on a uint in a buffer)"
                } else {
                    ""
                };
                lines.push(format!("{file}:{ln}: {severity}: {msg}{hint}"));
            }
            None => lines.push(format!("{name}: {severity}: {rest}")),
        }
    }
    // glslang repeats its log in some failure paths.
    let mut seen = std::collections::HashSet::new();
    lines.retain(|l| seen.insert(l.clone()));
    if lines.is_empty() {
        format!("{name}: glslang failed without a message")
    } else {
        lines.join("\n")
    }
}
