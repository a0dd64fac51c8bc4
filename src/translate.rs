//! For programs that only want WGSL: translate a shader once (at build time,
//! with [`build`]) and ship the WGSL and its binding map, without linking
//! glslang or reading SPIR-V at run time; [`Kernel::from_translation`]
//! loads it back as the same kernel.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{BindingInfo, Dialect, Error, Kernel, Lang, Result, SourceOptions};

/// A translated shader: what a program needs to run it without atomport's
/// front end. Its JSON ([`Translation::to_json`], the `NAME.bindings.json`
/// that [`build::translate_dir`] writes) holds the WGSL too, and reads back
/// losslessly ([`Translation::from_json`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Translation {
    /// The WGSL.
    pub wgsl: String,
    /// The compute entry point.
    pub entry: String,
    /// The shader's workgroup size, in which dispatches count
    /// ([`Kernel::workgroup_size`]).
    pub workgroup_size: [u32; 3],
    /// How many of the WGSL's workgroups make one of the shader's, per
    /// axis ([`Kernel::workgroup_split`]); left out where none was split.
    /// The WGSL's `@workgroup_size` is `workgroup_size` divided by it, and
    /// a dispatch of `g` workgroups is one of `g[k] * workgroup_split[k]`.
    #[serde(default = "unsplit", skip_serializing_if = "is_unsplit")]
    pub workgroup_split: [u32; 3],
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::Warning>,
    /// The adapter-dependent forms the translation took
    /// ([`Kernel::forms`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<crate::Form>,
    /// The files read: the shader and what it `#include`d.
    #[serde(skip)]
    pub sources: Vec<PathBuf>,
}

/// No workgroup split: the serde default of [`Translation::workgroup_split`].
fn unsplit() -> [u32; 3] {
    [1; 3]
}

fn is_unsplit(split: &[u32; 3]) -> bool {
    *split == unsplit()
}

/// Loads a kernel that [`build::translate_dir`] translated into `OUT_DIR`
/// at build time: `include_kernel!("cull")` is the kernel of
/// `shaders/cull.comp`, its WGSL and binding map compiled into the program
/// (no file read at run time, no glslang, no SPIR-V reader). Evaluates to
/// `atomport::Result<Kernel>`.
#[macro_export]
macro_rules! include_kernel {
    ($name:literal) => {
        $crate::Translation::from_json(include_str!(concat!(
            env!("OUT_DIR"),
            "/",
            $name,
            ".bindings.json"
        )))
        .and_then(|t| {
            $crate::Kernel::from_translation(
                &t,
                &$crate::SourceOptions::named(concat!($name, ".wgsl")),
            )
        })
    };
}

impl Translation {
    /// The translation as JSON: the WGSL, the entry point and workgroup
    /// size, the binding map, the override ids and the warnings.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a translation serializes")
    }

    /// A translation from the JSON [`Translation::to_json`] wrote (or
    /// `atomport translate --translation` printed), refusing what is not one.
    pub fn from_json(json: &str) -> Result<Translation> {
        let mut t: Translation = serde_json::from_str(json)
            .map_err(|e| Error::shader(format!("not an atomport translation: {e}")))?;
        // What the JSON leaves out because its other fields say it.
        for b in &mut t.bindings {
            b.element_type = crate::kernel::element_type_of(b);
        }
        Ok(t)
    }

    /// The translation of a kernel made at run time, to ship or to cache:
    /// what [`Kernel::from_translation`] loads back as the same kernel.
    pub fn of_kernel(kernel: &Kernel) -> Translation {
        Translation::of(kernel, kernel.includes().to_vec())
    }

    fn of(kernel: &Kernel, sources: Vec<PathBuf>) -> Translation {
        Translation {
            wgsl: kernel.wgsl().to_string(),
            entry: kernel.entry().to_string(),
            workgroup_size: kernel.workgroup_size(),
            workgroup_split: kernel.workgroup_split(),
            dialect: kernel.dialect(),
            bindings: kernel.bindings().to_vec(),
            overrides: kernel.overrides(),
            warnings: kernel.warnings().to_vec(),
            forms: kernel.forms().to_vec(),
            sources,
        }
    }
}

/// Translates a shader's source in `lang` (GLSL needs the `glsl` feature),
/// its WGSL read back as [`SourceOptions::verify_wgsl`] says.
pub fn translate(source: &[u8], lang: Lang, opts: &SourceOptions) -> Result<Translation> {
    let opts = &shipped(opts);
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

/// `opts` for a translation whose text leaves atomport: read back.
fn shipped(opts: &SourceOptions) -> SourceOptions {
    SourceOptions {
        verify_wgsl: true,
        ..opts.clone()
    }
}

/// Translates a shader file, the language by its extension (the WGSL read
/// back, as by [`translate()`]).
pub fn translate_file(path: &Path, opts: &SourceOptions) -> Result<Translation> {
    let opts = &shipped(opts);
    let kernel = Kernel::from_path(path, None, opts)?;
    let mut sources = vec![path.to_path_buf()];
    sources.extend(kernel.includes().iter().cloned());
    Ok(Translation::of(&kernel, sources))
}

/// Build-script helpers: translate a folder of shaders into `OUT_DIR`.
pub mod build {
    use super::*;

    /// Translates every compute shader in `dir` (by the rule of
    /// [`crate::files::is_compute_shader`]: `.comp`, `.comp.glsl`, a
    /// `.glsl` with a `#version` line and a `main`, a `.spv` with a compute
    /// entry point; and `.wgsl`; headers, units of functions other shaders
    /// link and other stages are left for what uses them) into `OUT_DIR` as `NAME.wgsl` and `NAME.bindings.json`, `NAME`
    /// the file's [`crate::files::kernel_name`] (two files of one name are
    /// an error naming both), and tells
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
                    && (p.extension().is_some_and(|e| e == "wgsl")
                        || crate::files::is_compute_shader(p))
            })
            .collect();
        shaders.sort();
        let mut names: std::collections::HashMap<String, &Path> = Default::default();
        for path in &shaders {
            if let Some(other) = names.insert(crate::files::kernel_name(path), path) {
                return Err(crate::Error::Input(format!(
                    "{} and {} give one kernel name, `{}`: rename one",
                    other.display(),
                    path.display(),
                    crate::files::kernel_name(path)
                )));
            }
        }
        std::fs::create_dir_all(out).map_err(io(out))?;
        let mut written = Vec::new();
        let mut reruns = vec![dir.to_path_buf()];
        for path in shaders {
            let t = translate_file(&path, opts)?;
            let stem = crate::files::kernel_name(&path);
            let wgsl = out.join(format!("{stem}.wgsl"));
            std::fs::write(&wgsl, &t.wgsl).map_err(io(&wgsl))?;
            let map = out.join(format!("{stem}.bindings.json"));
            let json = t.to_json();
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

impl Kernel {
    /// The kernel a [`Translation`] describes, as it was when translated:
    /// its WGSL is parsed and validated again, and its binding map (images
    /// in texel buffers and their size overrides, combined samplers, GLSL
    /// and block names, OpenGL origins, push constants, the members of
    /// buffers made words) is taken as written, after checking that it
    /// names exactly the bindings the WGSL declares, of the kinds it
    /// declares. Binding by name, `imageSize` and uniforms then work as for
    /// the kernel translated at run time.
    pub fn from_translation(t: &Translation, opts: &SourceOptions) -> Result<Kernel> {
        let mut opts = opts.clone();
        if opts.entry.is_none() {
            opts.entry = Some(t.entry.clone());
        }
        let mut kernel = Kernel::from_wgsl(&t.wgsl, &opts)?;
        let name = opts.display_name();
        let mismatch = |problem: String| Error::TranslationMismatch {
            file: name.to_string(),
            problem,
        };
        let wgsl_size = kernel.wgsl_workgroup_size();
        let split = t.workgroup_split;
        if (0..3).any(|k| {
            split[k] == 0 || wgsl_size[k].checked_mul(split[k]) != Some(t.workgroup_size[k])
        }) {
            return Err(mismatch(format!(
                "the translation says workgroup size {:?} split {:?}, its WGSL declares {:?}",
                t.workgroup_size, split, wgsl_size
            )));
        }
        let mut bindings = t.bindings.clone();
        bindings.sort_by_key(|b| (b.group, b.binding));
        for b in &bindings {
            let Some(wgsl) = kernel.binding(b.group, b.binding) else {
                return Err(mismatch(format!(
                    "the binding map has binding {}.{} ({}), which the WGSL's entry point does not use",
                    b.group,
                    b.binding,
                    b.display_name()
                )));
            };
            if !same_resource(wgsl.kind, b.kind) {
                return Err(mismatch(format!(
                    "binding {}.{} ({}) is a {} in the binding map but a {} in the WGSL",
                    b.group,
                    b.binding,
                    b.display_name(),
                    b.kind.describe(),
                    wgsl.kind.describe()
                )));
            }
        }
        if let Some(missing) = kernel.bindings().iter().find(|w| {
            !bindings
                .iter()
                .any(|b| (b.group, b.binding) == (w.group, w.binding))
        }) {
            return Err(mismatch(format!(
                "the WGSL uses binding {}.{} ({}), which the binding map lacks",
                missing.group,
                missing.binding,
                missing.display_name()
            )));
        }
        for b in &mut bindings {
            b.element_type = crate::kernel::element_type_of(b);
        }
        kernel.restore(
            bindings,
            t.dialect,
            t.warnings.clone(),
            t.forms.clone(),
            split,
        );
        Ok(kernel)
    }
}

/// Whether a binding the map describes as `map` can be what the WGSL
/// declares as `wgsl`: the same kind, or an image in its texel buffer.
fn same_resource(wgsl: crate::BindingKind, map: crate::BindingKind) -> bool {
    use crate::BindingKind as K;
    wgsl == map || (map == K::Image && matches!(wgsl, K::StorageRead | K::StorageReadWrite))
}
