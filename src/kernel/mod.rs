//! [`Kernel`]: validated WGSL, one compute entry point, its workgroup size and
//! the binding map reflected from the module.

use std::sync::atomic::{AtomicU64, Ordering};

use naga::AddressSpace;
use serde::Serialize;

use crate::front::{self, Dialect, SourceOptions};
use crate::lower::spirv::opengl::OpenGlKind;
use crate::{Error, Result};

mod bindings;
mod bounded;
mod reflect;
pub(crate) mod web;

use bounded::bounded;

pub use bindings::*;

/// A shader language atomport reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// GLSL compute shader source.
    Glsl,
    /// SPIR-V binary.
    Spirv,
    /// WGSL source.
    Wgsl,
}

impl Lang {
    /// The language a file's extension names: `.wgsl`, `.spv`, else GLSL.
    pub fn from_path(path: &std::path::Path) -> Lang {
        match path.extension().and_then(|e| e.to_str()) {
            Some("wgsl") => Lang::Wgsl,
            Some("spv") | Some("spirv") => Lang::Spirv,
            _ => Lang::Glsl,
        }
    }

    /// Parses `glsl`, `spirv` (or `spv`) or `wgsl`.
    pub fn parse(s: &str) -> Option<Lang> {
        match s {
            "glsl" => Some(Lang::Glsl),
            "spirv" | "spv" => Some(Lang::Spirv),
            "wgsl" => Some(Lang::Wgsl),
            _ => None,
        }
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A compute kernel ready to dispatch: WGSL text, entry point, workgroup size, binding map.
#[derive(Debug)]
pub struct Kernel {
    /// Identifies it in the runtime's pipeline caches.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    id: u64,
    wgsl: String,
    entry: String,
    /// The shader's workgroup size, in which dispatches count.
    workgroup_size: [u32; 3],
    /// How many of the WGSL's workgroups make one of the shader's.
    workgroup_split: [u32; 3],
    bindings: Vec<BindingInfo>,
    features: wgt::Features,
    dialect: Option<Dialect>,
    module: std::sync::Arc<naga::Module>,
    workgroup_memory: u64,
    /// Dropped with the kernel: the runtime's caches see it gone.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    alive: std::sync::Arc<()>,
    /// Files `#include`d by GLSL input, as found.
    includes: Vec<std::path::PathBuf>,
    /// Guarantees the shader asks for that WGSL does not give in full.
    warnings: Vec<crate::Warning>,
    /// The SPIR-V it was translated from, for running it natively.
    original: Option<std::sync::Arc<Original>>,
    /// The adapter-dependent forms the translation took.
    forms: Vec<Form>,
}

/// The SPIR-V a kernel was translated from and how it was read, from which
/// its native module is made when first asked for.
#[derive(Debug)]
struct Original {
    words: Vec<u32>,
    opts: SourceOptions,
    unbound: Vec<String>,
    /// Loose uniforms' initializers (OpenGL GLSL), for a translation made
    /// again ([`Kernel::refitted`]).
    initializers: Vec<(String, String)>,
    /// The native module, or why there is none.
    native: std::sync::OnceLock<std::result::Result<Vec<u32>, String>>,
}

/// What the front end and the passes know of a module's bindings beyond
/// what naga reflects.
#[derive(Clone, Debug, Default)]
pub(crate) struct Provenance {
    /// Buffers made words, with the members they declared.
    pub words: Vec<crate::lower::memory::words::WordBlock>,
    /// The GLSL dialect, for GLSL input.
    pub dialect: Option<Dialect>,
    /// Images held in texel buffers.
    pub images: Vec<crate::lower::spirv::image::ImageBinding>,
    /// OpenGL kinds and numbers.
    pub opengl: Vec<crate::lower::spirv::opengl::OpenGlBinding>,
    /// Loose uniforms' initializers: (name, text).
    pub initializers: Vec<(String, String)>,
    /// Combined image samplers split into a texture and a sampler.
    pub samplers: Vec<crate::lower::spirv::sampler::SplitSampler>,
    /// Array textures whose layer count is an override.
    pub layer_counts: Vec<crate::lower::spirv::sampler::LayerCount>,
    /// Files `#include`d, as found.
    pub includes: Vec<std::path::PathBuf>,
    /// Guarantees the shader asks for that WGSL does not give in full.
    pub warnings: Vec<crate::Warning>,
    /// Buffer blocks that alias another block's binding.
    pub aliases: Vec<crate::lower::Alias>,
    /// Bindings WGSL numbers apart from the shader.
    pub renumbered: Vec<crate::lower::spirv::dense::Renumbered>,
    /// Buffers the shader declared `coherent` (or `volatile`).
    pub coherent: Vec<(u32, u32)>,
    /// Buffers the shader declared `volatile`.
    pub volatile: Vec<(u32, u32)>,
    /// Push-constant blocks made buffers.
    pub push: Vec<crate::lower::spirv::push::PushBlock>,
    /// Storage images whose format the bound texture chooses.
    pub formatless: Vec<crate::lower::spirv::formatless::FormatlessImage>,
    /// Samplers integer textures are sampled through.
    pub address_modes: Vec<crate::lower::spirv::integer_sampling::AddressModes>,
    /// The SPIR-V read (GLSL and SPIR-V input), and the declarations glslang
    /// found without a binding.
    pub original: Option<(Vec<u32>, Vec<String>)>,
    /// The adapter-dependent forms the translation took.
    pub forms: Vec<Form>,
    /// Storage-image arrays held in one buffer.
    pub packed: Vec<crate::lower::spirv::image::PackedArray>,
    /// How many of the WGSL's workgroups make one of the shader's, per
    /// axis (`[0; 3]`, the default, is none split).
    pub workgroup_split: [u32; 3],
}

/// What the GLSL front end knows of a kernel beside its SPIR-V.
#[cfg_attr(not(feature = "glsl"), allow(dead_code))]
struct GlslOrigin {
    /// The dialect the shader was read as.
    dialect: Dialect,
    /// Loose uniforms' initializers: (name, text).
    initializers: Vec<(String, String)>,
    /// Files `#include`d, as found.
    includes: Vec<std::path::PathBuf>,
}

/// A kernel's binding map, as `atomport translate --bindings` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct BindingMap<'k> {
    /// The GLSL dialect the shader was read as (GLSL input only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// Every binding the entry point uses.
    pub bindings: &'k [BindingInfo],
    /// The adapter-dependent forms the translation took, where the kernel
    /// has what they are for (`["int64_pairs"]`; see
    /// [`crate::SourceOptions::fitted_to`]).
    #[serde(skip_serializing_if = "<[Form]>::is_empty")]
    pub forms: &'k [Form],
}

impl Kernel {
    /// Parses and validates WGSL. Errors name `file:line:col` (from `opts.name`).
    pub fn from_wgsl(source: &str, opts: &SourceOptions) -> Result<Kernel> {
        let source = source.to_string();
        bounded(opts, move |opts| Kernel::wgsl_now(&source, opts))
    }

    fn wgsl_now(source: &str, opts: &SourceOptions) -> Result<Kernel> {
        // The caller's specialization values become the overrides' defaults.
        let (source, module) = front::wgsl::read(source, opts)?;
        let validated = front::features::validate(&module, Some(&source), opts.display_name())?;
        Kernel::build(module, &validated, source, &Provenance::default(), opts)
    }

    /// Compiles GLSL (a compute shader) through glslang and atomport's passes.
    /// glslang's diagnostics come back as `file:line: error: …`.
    #[cfg(feature = "glsl")]
    pub fn from_glsl(source: &str, opts: &SourceOptions) -> Result<Kernel> {
        let source = source.to_string();
        bounded(opts, move |opts| Kernel::glsl_now(&source, opts))
    }

    #[cfg(feature = "glsl")]
    fn glsl_now(source: &str, opts: &SourceOptions) -> Result<Kernel> {
        let compiled = front::glsl::compile(source, opts)?;
        let mut opts = opts.clone();
        opts.dialect = Some(compiled.dialect);
        let mut lowered = crate::lower::lower_spirv(&compiled.words, &opts, &compiled.unbound)
            .map_err(|e| at_declaration(e, source, opts.display_name()))?;
        for w in &mut lowered.warnings {
            w.locate(source);
        }
        let kernel = Kernel::from_lowered(
            lowered,
            (compiled.words, compiled.unbound),
            Some(GlslOrigin {
                dialect: compiled.dialect,
                initializers: compiled.uniform_initializers,
                includes: compiled.includes,
            }),
            &opts,
        )?;
        kernel.for_target(Some(source), &opts)
    }

    /// Translates SPIR-V words through atomport's passes.
    pub fn from_spirv(words: &[u32], opts: &SourceOptions) -> Result<Kernel> {
        let words = words.to_vec();
        bounded(opts, move |opts| Kernel::spirv_now(&words, opts))
    }

    fn spirv_now(words: &[u32], opts: &SourceOptions) -> Result<Kernel> {
        let lowered = crate::lower::lower_spirv(words, opts, &[])?;
        Kernel::from_lowered(lowered, (words.to_vec(), Vec::new()), None, opts)?
            .for_target(None, opts)
    }

    /// The kernel, checked against what `opts.target` allows (`source`:
    /// the GLSL, to name lines).
    fn for_target(mut self, source: Option<&str>, opts: &SourceOptions) -> Result<Kernel> {
        if opts.target == crate::Platform::WebGpu {
            let name = opts.display_name();
            web::refuse_native_only(self.features, source, name)?;
            web::refuse_non_uniform_barriers(&self.warnings, name)?;
            web::refuse_writable_aliases(&self.bindings, name)?;
            self.wgsl = web::for_browsers(&self.wgsl);
        }
        Ok(self)
    }

    /// The kernel of a lowered module, read from `original` (the SPIR-V and
    /// the declarations without a binding); `glsl` is what the GLSL front
    /// end adds: the dialect, loose uniforms' initializers, the files
    /// included.
    fn from_lowered(
        lowered: crate::lower::Lowered,
        original: (Vec<u32>, Vec<String>),
        glsl: Option<GlslOrigin>,
        opts: &SourceOptions,
    ) -> Result<Kernel> {
        let (dialect, initializers, includes) = match glsl {
            Some(g) => (Some(g.dialect), g.initializers, g.includes),
            None => (None, Vec::new(), Vec::new()),
        };
        Kernel::build(
            lowered.module,
            &lowered.validated,
            lowered.wgsl,
            &Provenance {
                dialect,
                images: lowered.images,
                opengl: lowered.opengl,
                initializers,
                samplers: lowered.samplers,
                layer_counts: lowered.layer_counts,
                includes,
                warnings: lowered.warnings,
                aliases: lowered.aliases,
                renumbered: lowered.renumbered,
                coherent: lowered.coherent,
                volatile: lowered.volatile,
                push: lowered.push,
                formatless: lowered.formatless,
                words: lowered.words,
                address_modes: lowered.address_modes,
                forms: lowered.forms,
                packed: lowered.packed,
                original: Some(original),
                workgroup_split: lowered.workgroup_split,
            },
            opts,
        )
    }

    /// Reads a kernel from a file, choosing the language by extension
    /// (`.wgsl`; `.spv`; `.comp`, `.glsl` and anything else as GLSL) unless
    /// `lang` says otherwise. `opts.name` is set to the path.
    pub fn from_path(
        path: &std::path::Path,
        lang: Option<Lang>,
        opts: &SourceOptions,
    ) -> Result<Kernel> {
        let mut opts = opts.clone();
        opts.name = path.display().to_string();
        let max = front::MAX_SOURCE_BYTES;
        match lang.unwrap_or_else(|| Lang::from_path(path)) {
            Lang::Wgsl => Kernel::from_wgsl(&front::read_text(path, max, "shader")?, &opts),
            Lang::Spirv => {
                let bytes = front::read_bounded(path, max, "shader")?;
                let words = front::spirv::words_from_bytes(&bytes, &opts.name)?;
                Kernel::from_spirv(&words, &opts)
            }
            Lang::Glsl => {
                #[cfg(feature = "glsl")]
                {
                    Kernel::from_glsl(&front::read_text(path, max, "shader")?, &opts)
                }
                #[cfg(not(feature = "glsl"))]
                Err(Error::Unsupported(format!(
                    "{}: GLSL input needs atomport's `glsl` feature",
                    opts.name
                )))
            }
        }
    }

    /// Builds a kernel from a validated module and the WGSL text that the runtime will compile.
    pub(crate) fn build(
        owned: naga::Module,
        validated: &front::features::Validated,
        wgsl: String,
        provenance: &Provenance,
        opts: &SourceOptions,
    ) -> Result<Kernel> {
        let module = &owned;
        let index = choose_entry(module, opts)?;
        let ep = &module.entry_points[index];
        let ep_info = validated.info.get_entry_point(index);
        let (workgroup_memory, private_memory) = memory_use(module, ep_info, ep)?;
        if private_memory > MAX_PRIVATE_MEMORY {
            return Err(Error::Unsupported(format!(
                "{}: the private and local variables of one invocation take {private_memory} bytes, over atomport's limit of {MAX_PRIVATE_MEMORY} (WGSL guarantees 8192): keep large arrays in `shared` memory or a buffer",
                opts.display_name()
            )));
        }
        let mut bindings = Vec::new();
        for (handle, var) in module.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            if ep_info[handle].is_empty() {
                continue;
            }
            bindings.push(reflect::binding_info(module, var, rb, provenance));
        }
        bindings.sort_by_key(|b| (b.group, b.binding));
        let features = validated.features;
        if !validated.accepted {
            front::features::accepted_with(module, features, opts.display_name())?;
        }
        let workgroup_split = provenance.workgroup_split.map(|n| n.max(1));
        Ok(Kernel {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            wgsl,
            entry: ep.name.clone(),
            workgroup_size: [0, 1, 2].map(|k| ep.workgroup_size[k] * workgroup_split[k]),
            workgroup_split,
            bindings,
            features,
            dialect: provenance.dialect,
            module: std::sync::Arc::new(owned),
            workgroup_memory,
            alive: std::sync::Arc::new(()),
            includes: provenance.includes.clone(),
            warnings: provenance.warnings.clone(),
            original: provenance.original.clone().map(|(words, unbound)| {
                std::sync::Arc::new(Original {
                    words,
                    opts: opts.clone(),
                    unbound,
                    initializers: provenance.initializers.clone(),
                    native: std::sync::OnceLock::new(),
                })
            }),
            forms: provenance.forms.clone(),
        })
    }

    /// Puts back what a translation recorded beside its WGSL
    /// ([`Kernel::from_translation`]).
    pub(crate) fn restore(
        &mut self,
        bindings: Vec<BindingInfo>,
        dialect: Option<Dialect>,
        warnings: Vec<crate::Warning>,
        forms: Vec<Form>,
        workgroup_split: [u32; 3],
    ) {
        self.bindings = bindings;
        self.dialect = dialect;
        self.warnings = warnings;
        self.forms = forms;
        self.workgroup_size = [0, 1, 2].map(|k| self.workgroup_size[k] * workgroup_split[k]);
        self.workgroup_split = workgroup_split;
    }

    /// This kernel translated again from its original SPIR-V in the forms
    /// an adapter of `features` runs ([`SourceOptions::fitted_to`]: 64-bit
    /// integers as pairs of words where it lacks SHADER_INT64, binding
    /// arrays and native float atomics where it has them). `None` where
    /// the forms this translation took are those already, or where there
    /// is no original (WGSL input).
    pub fn refitted(&self, features: wgt::Features) -> Option<Result<Kernel>> {
        self.refitted_for(None, features)
    }

    /// As [`Kernel::refitted`], for an adapter of `backend` as well: on
    /// GL, where wgpu binds a 3D storage texture's first slice only, the
    /// storage images of a declared format are held in texel buffers
    /// ([`SourceOptions::images_as_texel_buffers`]), so that a kernel with
    /// a 3D one runs there.
    pub fn refitted_for(
        &self,
        backend: Option<wgt::Backend>,
        features: wgt::Features,
    ) -> Option<Result<Kernel>> {
        let o = self.original.as_deref()?;
        let mut fitted = o.opts.clone().fitted_to(features);
        if backend.is_some_and(|b| self.needs_texel_buffers_on(b)) {
            fitted.images_as_texel_buffers = true;
        }
        let forms = |s: &SourceOptions| {
            (
                s.native_float_atomics,
                s.binding_arrays,
                s.int64_pairs,
                s.images_as_texel_buffers,
            )
        };
        if forms(&fitted) == forms(&o.opts) {
            return None;
        }
        let glsl = self.dialect.map(|dialect| GlslOrigin {
            dialect,
            initializers: o.initializers.clone(),
            includes: self.includes.clone(),
        });
        let (words, unbound) = (o.words.clone(), o.unbound.clone());
        Some(
            crate::lower::lower_spirv(&words, &fitted, &unbound)
                .and_then(|lowered| Kernel::from_lowered(lowered, (words, unbound), glsl, &fitted))
                .and_then(|k| k.for_target(None, &fitted)),
        )
    }

    /// Whether `backend` runs this kernel only with its storage images in
    /// texel buffers: GL, where wgpu binds a 3D storage texture's first
    /// slice only, for a 3D image of a declared format.
    pub fn needs_texel_buffers_on(&self, backend: wgt::Backend) -> bool {
        backend == wgt::Backend::Gl
            && self
                .storage_3d_images()
                .iter()
                .any(|(_, formatless)| !formatless)
    }

    /// The 3D storage images that are storage textures in this
    /// translation, by name, and whether each was declared without a
    /// format (such a one stays a texture whatever the options).
    pub fn storage_3d_images(&self) -> Vec<(String, bool)> {
        let m = self.module();
        m.global_variables
            .iter()
            .filter_map(|(_, g)| {
                let ty = match m.types[g.ty].inner {
                    naga::TypeInner::BindingArray { base, .. } => base,
                    _ => g.ty,
                };
                let naga::TypeInner::Image {
                    dim: naga::ImageDimension::D3,
                    class: naga::ImageClass::Storage { .. },
                    ..
                } = m.types[ty].inner
                else {
                    return None;
                };
                let formatless = g.binding.as_ref().is_some_and(|rb| {
                    self.binding(rb.group, rb.binding)
                        .and_then(|b| b.texture.as_ref())
                        .is_some_and(|t| t.format_from_host)
                });
                Some((g.name.clone().unwrap_or_default(), formatless))
            })
            .collect()
    }

    /// The SPIR-V the kernel was translated from (glslang's output for
    /// GLSL, the input for SPIR-V); `None` for WGSL input.
    pub fn original_spirv(&self) -> Option<&[u32]> {
        self.original.as_deref().map(|o| o.words.as_slice())
    }

    /// The original SPIR-V made bindable through wgpu for a native run
    /// ([`crate::Context::run_native`]): the caller's specialization values
    /// as the defaults, OpenGL's binding numbers or shared bindings moved
    /// apart, combined samplers split — its bindings are this kernel's.
    pub fn native_spirv(&self) -> Result<&[u32]> {
        let o = self.original.as_deref().ok_or_else(|| {
            Error::NoNative("the kernel was read from WGSL: there is no original SPIR-V".into())
        })?;
        o.native
            .get_or_init(|| {
                crate::lower::native_spirv(&o.words, &o.opts, &o.unbound).map_err(|e| match e {
                    Error::NoNative(why) => why,
                    e => e.to_string(),
                })
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(|e| Error::NoNative(e.clone()))
    }

    /// Guarantees the shader asks for that WGSL does not give in full
    /// (acquire/release atomics, `coherent`, `volatile`, memory barriers in
    /// non-uniform control flow), each once, with its GLSL line when known.
    pub fn warnings(&self) -> &[crate::Warning] {
        &self.warnings
    }

    /// The files GLSL input `#include`d, as found (a build script reruns on them).
    pub fn includes(&self) -> &[std::path::PathBuf] {
        &self.includes
    }

    /// Every override id (WGSL `@id`) the runtime sets from bound resources:
    /// images' sizes and array textures' layer counts.
    pub fn overrides(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .bindings
            .iter()
            .flat_map(|b| {
                b.image
                    .iter()
                    .filter(|_| !b.is_binding_array())
                    .flat_map(|i| i.size_overrides)
                    .chain(b.layers_override)
                    .chain(b.address_override)
                    .chain(b.address_overrides.iter().copied())
            })
            .collect();
        ids.sort_unstable();
        ids
    }

    /// A handle that dies with the kernel, for caches keyed by it.
    #[cfg(feature = "runtime")]
    pub(crate) fn liveness(&self) -> std::sync::Weak<()> {
        std::sync::Arc::downgrade(&self.alive)
    }

    /// Bytes of `shared` (workgroup) memory the entry point uses.
    pub fn workgroup_memory(&self) -> u64 {
        self.workgroup_memory
    }

    /// The validated naga module the runtime compiles (its WGSL is [`Kernel::wgsl`]).
    pub fn module(&self) -> &std::sync::Arc<naga::Module> {
        &self.module
    }

    /// The GLSL dialect the shader was read as; `None` for SPIR-V and WGSL input.
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect
    }

    /// Whether the shader was written in GLSL or SPIR-V (read in this
    /// process, or a translation of GLSL), whose `shared` variables start
    /// undefined, as the GLSL and SPIR-V specifications say: the runtime
    /// then leaves workgroup memory as the driver gives it, as the original
    /// would find it, rather than have wgpu zero it as WGSL's own variables
    /// are. Zeroing it costs some backends far more than the kernel: naga's
    /// GLSL writes one constant the size of every shared array, which
    /// llvmpipe's GL compiles for minutes.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn shared_memory_starts_undefined(&self) -> bool {
        self.dialect.is_some() || self.original.is_some()
    }

    /// The adapter-dependent forms the translation took, where the kernel
    /// has what they are for: 64-bit integers as pairs of words, resource
    /// arrays as switches, float atomics as loops
    /// ([`crate::SourceOptions::fitted_to`] chooses them from an
    /// adapter's features).
    pub fn forms(&self) -> &[Form] {
        &self.forms
    }

    /// The binding map: dialect and bindings, as `translate --bindings` prints it.
    pub fn binding_map(&self) -> BindingMap<'_> {
        BindingMap {
            dialect: self.dialect,
            bindings: &self.bindings,
            forms: &self.forms,
        }
    }

    /// The binding a GLSL name refers to: a block's instance or type name
    /// (or that of a block the binding serves, [`BindingInfo::also`]),
    /// an opaque uniform's name (image, texture, sampler), `gl_DefaultUniformBlock`
    /// for the loose uniforms, or an `atomic_uint` counter's name (its
    /// buffer). An unknown name is an error listing the names there are.
    pub fn binding_named(&self, name: &str) -> Result<&BindingInfo> {
        self.bindings
            .iter()
            .find(|b| b.name.as_deref() == Some(name))
            .or_else(|| {
                self.bindings.iter().find(|b| {
                    b.block_name.as_deref() == Some(name) || b.also.iter().any(|a| a == name)
                })
            })
            .or_else(|| {
                self.bindings.iter().find(|b| {
                    b.opengl.map(|o| o.kind) == Some(OpenGlKind::AtomicCounter)
                        && b.members.iter().any(|m| m.name == name)
                })
            })
            .ok_or_else(|| {
                Error::UnknownName(format!(
                    "the kernel has no binding named `{name}` (its bindings: {})",
                    self.binding_names()
                ))
            })
    }

    /// How a host names element k of a binding array: `NAME[k]` is
    /// (`NAME`, k), the name [`Kernel::element_named`] and binding by name
    /// take; `None` for a name without an index.
    pub fn split_element(name: &str) -> Option<(&str, u32)> {
        split_element(name)
    }

    /// The binding and element a name refers to: `NAME[k]` is element `k`
    /// of the binding array `NAME` (or of the arrays a combined sampler
    /// array `NAME` was split into: the texture's); any other name is
    /// [`Kernel::binding_named`]'s, element 0. An element past a fixed
    /// length is an error naming the length.
    pub fn element_named(&self, name: &str) -> Result<(&BindingInfo, u32)> {
        let whole = self.binding_named(name);
        let Some((base, k)) = split_element(name).filter(|_| whole.is_err()) else {
            return whole.map(|b| (b, 0));
        };
        let found = self.bindings.iter().find(|b| {
            b.array.is_some()
                && (b.name.as_deref() == Some(base)
                    || (b.combined.as_deref() == Some(base) && b.kind != BindingKind::Sampler))
        });
        let Some(info) = found else {
            return whole.map(|b| (b, 0));
        };
        if let Some(ArrayLength::Fixed(n)) = info.array
            && k >= n
        {
            return Err(Error::UnknownName(format!(
                "`{name}`: the array `{base}` has {n} elements (`{base}[0]` to `{base}[{}]`)",
                n - 1
            )));
        }
        Ok((info, k))
    }

    /// Every binding's name for messages, as `a, b (or B), c`: an
    /// instance name with its block's name, a counter buffer with its counters.
    pub fn binding_names(&self) -> String {
        let names: Vec<String> = self
            .bindings
            .iter()
            .map(|b| {
                let mut n = b.display_name();
                if let Some(block) = b.block_name.as_ref().filter(|k| **k != n) {
                    n = format!("{n} (or {block})");
                }
                if !b.also.is_empty() {
                    n = format!("{n} (or {})", b.also.join(", or "));
                }
                if b.opengl.map(|o| o.kind) == Some(OpenGlKind::AtomicCounter) {
                    let counters: Vec<&str> = b.members.iter().map(|m| m.name.as_str()).collect();
                    n = format!("{n} (counters {})", counters.join(", "));
                }
                n
            })
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// The WGSL text of the translation: what a browser compiles (natively
    /// the runtime compiles the module it was written from). Parsed and
    /// validated back where [`SourceOptions::verify_wgsl`] or the WebGPU
    /// target asked for it.
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }

    /// The entry point's name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The workgroup size the shader declares (`local_size_*`), in which
    /// a dispatch counts workgroups: the entry point's `@workgroup_size`,
    /// unless the translation split each workgroup into several
    /// ([`Kernel::workgroup_split`]).
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.workgroup_size
    }

    /// How many of the WGSL's workgroups make one of the shader's, per
    /// axis: `[1, 1, 1]`, except where a WebGPU translation split a
    /// workgroup past WebGPU's default limits (more than 256 invocations)
    /// that uses no shared memory, barriers or subgroup operations, so that
    /// a browser granting only the defaults runs it. A dispatch of `g`
    /// workgroups of the shader is one of `g[k] * split[k]` of the WGSL's;
    /// [`Context::dispatch`](crate::Context::dispatch) multiplies, and a
    /// caller dispatching the WGSL itself must too.
    pub fn workgroup_split(&self) -> [u32; 3] {
        self.workgroup_split
    }

    /// The entry point's `@workgroup_size`: [`Kernel::workgroup_size`]
    /// divided by [`Kernel::workgroup_split`].
    pub fn wgsl_workgroup_size(&self) -> [u32; 3] {
        [0, 1, 2].map(|k| self.workgroup_size[k] / self.workgroup_split[k])
    }

    /// The bindings the entry point uses, sorted by (group, binding).
    pub fn bindings(&self) -> &[BindingInfo] {
        &self.bindings
    }

    /// The binding at (group, binding), if the kernel uses it.
    pub fn binding(&self, group: u32, binding: u32) -> Option<&BindingInfo> {
        self.bindings
            .iter()
            .find(|b| b.group == group && b.binding == binding)
    }

    /// The WGSL binding of the shader's own `binding` in `group`: the same
    /// number, but for a binding WGSL numbers apart
    /// ([`BindingInfo::declared`]; the number it has instead is one the
    /// shader declares for nothing, so either names it).
    pub fn wgsl_binding(&self, group: u32, binding: u32) -> u32 {
        self.wgsl_slot(group, binding).1
    }

    /// The WGSL group and binding of the shader's own `group` (descriptor
    /// set) and `binding`: the same numbers, but for a binding WGSL numbers
    /// apart ([`BindingInfo::declared`], [`BindingInfo::declared_group`]).
    pub fn wgsl_slot(&self, group: u32, binding: u32) -> (u32, u32) {
        self.bindings
            .iter()
            .find(|b| {
                (b.declared.is_some() || b.declared_group.is_some())
                    && b.declared_group.unwrap_or(b.group) == group
                    && b.declared.unwrap_or(b.binding) == binding
            })
            .map_or((group, binding), |b| (b.group, b.binding))
    }

    /// The binding the host names by the shader's own `group` and `binding`
    /// (see [`Kernel::wgsl_slot`]).
    pub fn binding_declared(&self, group: u32, binding: u32) -> Option<&BindingInfo> {
        let (group, binding) = self.wgsl_slot(group, binding);
        self.binding(group, binding)
    }

    /// The optional wgpu features the kernel needs from the device.
    pub fn required_features(&self) -> wgt::Features {
        self.features
    }

    /// A process-unique id, used by the runtime to cache the compiled pipeline.
    #[cfg(feature = "runtime")]
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

/// Adds the line to a `FILE: … `name` …` message about a GLSL declaration:
/// the first line of the source that names it.
#[cfg(feature = "glsl")]
fn at_declaration(e: Error, source: &str, name: &str) -> Error {
    let locate =
        |m: String| {
            let Some(rest) = m.strip_prefix(&format!("{name}: ")) else {
                return m;
            };
            let Some(ident) = rest.split('`').nth(1).filter(|i| {
                !i.is_empty() && i.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }) else {
                return m;
            };
            let found = source.lines().enumerate().find_map(|(n, l)| {
                let code = l.split("//").next().unwrap_or_default();
                crate::lower::spirv::compat::has_word(code, ident).then(|| {
                    (
                        n as u32 + 1,
                        crate::error::column_of(code, ident).unwrap_or(0),
                    )
                })
            });
            match found {
                Some((line, column)) => {
                    let mark = crate::error::Mark {
                        line,
                        column,
                        len: ident.len() as u32,
                        label: String::new(),
                    };
                    crate::error::with_excerpt(name, rest, source, &[mark])
                }
                None => m,
            }
        };
    match e {
        Error::Unsupported(m) => Error::Unsupported(locate(m)),
        Error::Shader(m) => Error::shader(locate(m.message)),
        e => e,
    }
}

/// The most private and function-local memory one invocation may use: a
/// compiler keeps such arrays in registers or spills them per invocation
/// (`uint a[10000000]` compiled for minutes); WGSL guarantees 8192 bytes.
const MAX_PRIVATE_MEMORY: u64 = 1 << 20;

/// Bytes of workgroup and of private (+ the entry point's local) memory the
/// entry point uses; push constants refused.
fn memory_use(
    module: &naga::Module,
    ep_info: &naga::valid::FunctionInfo,
    ep: &naga::EntryPoint,
) -> Result<(u64, u64)> {
    let size =
        |ty: naga::Handle<naga::Type>| u64::from(module.types[ty].inner.size(module.to_ctx()));
    let (mut workgroup, mut private) = (0u64, 0u64);
    for (handle, var) in module.global_variables.iter() {
        if ep_info[handle].is_empty() {
            continue;
        }
        match var.space {
            AddressSpace::WorkGroup => workgroup += size(var.ty),
            AddressSpace::Private => private += size(var.ty),
            AddressSpace::Immediate => {
                return Err(Error::Unsupported(format!(
                    "push constants (`{}`) are not in WebGPU: declare a uniform block instead",
                    var.name.as_deref().unwrap_or("layout(push_constant)")
                )));
            }
            _ => {}
        }
    }
    let locals: u64 = ep
        .function
        .local_variables
        .iter()
        .chain(
            module
                .functions
                .iter()
                .flat_map(|(_, f)| f.local_variables.iter()),
        )
        .map(|(_, v)| size(v.ty))
        .sum();
    Ok((workgroup, private + locals))
}

fn choose_entry(module: &naga::Module, opts: &SourceOptions) -> Result<usize> {
    let computes: Vec<(usize, &str)> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, ep)| ep.stage == naga::ShaderStage::Compute)
        .map(|(i, ep)| (i, ep.name.as_str()))
        .collect();
    let found = computes
        .iter()
        .find(|c| opts.entry.as_deref().is_none_or(|e| c.1 == e));
    match found {
        Some(&(i, _)) if opts.entry.is_some() || computes.len() == 1 => Ok(i),
        _ => Err(Error::EntryPoint {
            file: opts.display_name().to_string(),
            requested: opts.entry.clone(),
            available: computes.iter().map(|c| c.1.to_string()).collect(),
        }),
    }
}
