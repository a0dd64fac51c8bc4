//! For programs that only want WGSL: translate a shader once (at build time,
//! with [`build`]) and ship the WGSL and its binding map, without linking
//! glslang at run time.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{BindingInfo, Dialect, Kernel, Lang, Result, SourceOptions};

/// A translated shader: what a program needs to run it without atomport's
/// front end.
#[derive(Clone, Debug, Serialize)]
pub struct Translation {
    /// The WGSL.
    pub wgsl: String,
    /// The compute entry point.
    pub entry: String,
    /// Its `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// The GLSL dialect it was read as (GLSL input only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// The binding map.
    pub bindings: Vec<BindingInfo>,
    /// The override ids (WGSL `@id`) to set from the bound resources: each
    /// image's width, height, layers and samples, each array texture's
    /// layer count (see the bindings' `size_overrides` and `layers_override`).
    pub overrides: Vec<u32>,
    /// Guarantees the shader asks for that WGSL does not give in full.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::Warning>,
    /// The files read: the shader and what it `#include`d.
    #[serde(skip)]
    pub sources: Vec<PathBuf>,
}

impl Translation {
    fn of(kernel: &Kernel, sources: Vec<PathBuf>) -> Translation {
        Translation {
            wgsl: kernel.wgsl().to_string(),
            entry: kernel.entry().to_string(),
            workgroup_size: kernel.workgroup_size(),
            dialect: kernel.dialect(),
            bindings: kernel.bindings().to_vec(),
            overrides: kernel.overrides(),
            warnings: kernel.warnings().to_vec(),
            sources,
        }
    }
}

/// Translates a shader's source in `lang` (GLSL needs the `glsl` feature).
pub fn translate(source: &[u8], lang: Lang, opts: &SourceOptions) -> Result<Translation> {
    let text = || {
        std::str::from_utf8(source).map_err(|e| {
            crate::Error::shader(format!(
                "{}: not UTF-8 text (byte {})",
                opts.display_name(),
                e.valid_up_to()
            ))
        })
    };
    let kernel = match lang {
        Lang::Wgsl => Kernel::from_wgsl(text()?, opts)?,
        Lang::Spirv => Kernel::from_spirv(
            &crate::front::spirv::words_from_bytes(source, opts.display_name())?,
            opts,
        )?,
        Lang::Glsl => {
            #[cfg(feature = "glsl")]
            {
                Kernel::from_glsl(text()?, opts)?
            }
            #[cfg(not(feature = "glsl"))]
            return Err(crate::Error::Unsupported(format!(
                "{}: GLSL input needs atomport's `glsl` feature",
                opts.display_name()
            )));
        }
    };
    let sources = kernel.includes().to_vec();
    Ok(Translation::of(&kernel, sources))
}

/// Compiles GLSL to SPIR-V as atomport reads it (needs the `glsl`
/// feature): glslang for Vulkan, or under OpenGL's relaxed rules (loose
/// uniforms gathered in a block, atomic counters in buffers) for the
/// OpenGL dialect, before any of atomport's passes. For running the
/// original module natively beside the translation.
pub fn compile_glsl(source: &str, opts: &SourceOptions) -> Result<Vec<u32>> {
    #[cfg(feature = "glsl")]
    {
        crate::front::glsl::compile(source, opts).map(|c| c.words)
    }
    #[cfg(not(feature = "glsl"))]
    {
        let _ = source;
        Err(crate::Error::Unsupported(format!(
            "{}: GLSL input needs atomport's `glsl` feature",
            opts.display_name()
        )))
    }
}

/// Reads a SPIR-V binary (either byte order) into words, refusing what is
/// not SPIR-V with an error naming `name`.
pub fn spirv_words(bytes: &[u8], name: &str) -> Result<Vec<u32>> {
    crate::front::spirv::words_from_bytes(bytes, name)
}

/// Translates a shader file, the language by its extension.
pub fn translate_file(path: &Path, opts: &SourceOptions) -> Result<Translation> {
    let kernel = Kernel::from_path(path, None, opts)?;
    let mut sources = vec![path.to_path_buf()];
    sources.extend(kernel.includes().iter().cloned());
    Ok(Translation::of(&kernel, sources))
}

/// Build-script helpers: translate a folder of shaders into `OUT_DIR`.
pub mod build {
    use super::*;

    /// Translates every shader in `dir` (`.comp`, `.spv`, `.wgsl`; `.glsl`
    /// files are taken for includes) into `OUT_DIR` as `NAME.wgsl` and
    /// `NAME.bindings.json`, and tells
    /// cargo to rerun when the folder, a shader or any file it includes
    /// changes. Returns the WGSL files written. Use from `build.rs`:
    ///
    /// ```no_run
    /// atomport::build::translate_dir("shaders", &atomport::SourceOptions::default())
    ///     .unwrap_or_else(|e| panic!("{e}"));
    /// // main.rs: include_str!(concat!(env!("OUT_DIR"), "/cull.wgsl"))
    /// ```
    pub fn translate_dir(dir: impl AsRef<Path>, opts: &SourceOptions) -> Result<Vec<PathBuf>> {
        let out = std::env::var_os("OUT_DIR").ok_or_else(|| {
            crate::Error::Input("OUT_DIR is not set: call translate_dir from a build script".into())
        })?;
        let (written, reruns) = translate_dir_into(dir.as_ref(), Path::new(&out), opts)?;
        for r in reruns {
            println!("cargo:rerun-if-changed={}", r.display());
        }
        Ok(written)
    }

    /// [`translate_dir`] into `out`; returns the WGSL files written and every
    /// path the translation read (the folder first).
    pub fn translate_dir_into(
        dir: &Path,
        out: &Path,
        opts: &SourceOptions,
    ) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| crate::Error::Io { path, source }
        };
        let mut shaders: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| matches!(e, "comp" | "spv" | "wgsl"))
            })
            .collect();
        shaders.sort();
        std::fs::create_dir_all(out).map_err(io(out))?;
        let mut written = Vec::new();
        let mut reruns = vec![dir.to_path_buf()];
        for path in shaders {
            let t = translate_file(&path, opts)?;
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("shader");
            let wgsl = out.join(format!("{stem}.wgsl"));
            std::fs::write(&wgsl, &t.wgsl).map_err(io(&wgsl))?;
            let map = out.join(format!("{stem}.bindings.json"));
            let json = serde_json::to_string_pretty(&t).unwrap_or_default();
            std::fs::write(&map, json).map_err(io(&map))?;
            for s in t.sources {
                if !reruns.contains(&s) {
                    reruns.push(s);
                }
            }
            written.push(wgsl);
        }
        Ok((written, reruns))
    }
}
