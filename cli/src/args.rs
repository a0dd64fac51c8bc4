//! The command line's arguments (clap) and the parsers of their values.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use atomport::{BackendChoice, Dialect, Error, GlslVersion, Kernel, Lang, SourceOptions};
use clap::{Parser, Subcommand};

use atomport::runtime::job::spec::{
    BufferArg, CounterArg, ImageArg, SamplerArg, TextureArg, UniformArg,
};

/// Run GLSL compute shaders that use atomics on any wgpu backend, with GLSL semantics.
#[derive(Parser)]
#[command(name = "atomport", version, about, long_about = None)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

/// Adapter selection, shared by every command that runs something.
#[derive(clap::Args)]
pub(super) struct AdapterArgs {
    /// Backend to use: vulkan, metal, dx12, gl or all [env: ATOMPORT_BACKEND] [default: all, best adapter wins]
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    pub(super) backend: Option<BackendChoice>,
    /// Use the first adapter whose name contains TEXT (case-insensitive) [env: ATOMPORT_ADAPTER]
    #[arg(long, value_name = "TEXT")]
    pub(super) adapter: Option<String>,
}

/// What to dispatch and with which resources, shared by `run` and `diff`.
#[derive(clap::Args)]
pub(super) struct JobArgs {
    /// Workgroup counts: X[,Y[,Z]]
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_groups)]
    pub(super) groups: [u32; 3],
    /// A buffer for binding B (BINDING, GROUP.BINDING or the GLSL name). SPEC: TYPE:LEN (zeroed),
    /// TYPE:LEN:fill=V, TYPE:LEN:iota, TYPE:[v1,v2,…] or @FILE (raw little-endian bytes);
    /// TYPE: u8, i8, u16, i16, f16, u32, i32, f32, u64, i64 (each element at its own width;
    /// output shows a buffer in the type its spec wrote, else in the one its block declares).
    /// `--buffer @NAME=SPEC` makes an addressable buffer (GL_EXT_buffer_reference) that no
    /// binding names; `@NAME` as a value (in --push, --uniform, or a u64 list u64:[@NAME,…]) is
    /// its address, and the output shows it under its name
    #[arg(long = "buffer", value_name = "B=SPEC", value_parser = parse_buffer)]
    pub(super) buffers: Vec<BufferArg>,
    /// An image for binding B (as for --buffer), whose shape and format the shader declares
    /// (FORMAT, if written, must be the declared one). SIZE is what imageSize returns: W (1D,
    /// buffer), WxH (2D, 2DRect, cube, 2DMS), WxL (1D array), WxHxL (2D array, 2DMS array, cube
    /// array with L cubes), WxHxD (3D). V is one value, or one per channel (1,0.5,0,1) for
    /// storage images of ordinary formats (rgba8, rgba16f, …)
    #[arg(
        long = "image",
        value_name = "B=SIZE[:FORMAT][:samples=N][:fill=V]",
        value_parser = parse_image
    )]
    pub(super) images: Vec<ImageArg>,
    /// Set a uniform (a loose uniform of OpenGL GLSL, or a member of a uniform block; BLOCK.NAME
    /// when several blocks have one): scalars (5, -2, 0x1f, 2.5, true), vectors and matrices as
    /// lists (1,2,3; matrices column-major). Uniform blocks not given as --buffer are made from
    /// these and the shader's initializers; a member with neither is an error
    #[arg(long = "uniform", value_name = "NAME=VALUE", value_parser = parse_uniform)]
    pub(super) uniforms: Vec<UniformArg>,
    /// Set a member of the push-constant block (`layout(push_constant)`), which atomport binds
    /// as a buffer: values as for --uniform; every member must be set
    #[arg(long = "push", value_name = "NAME=VALUE", value_parser = parse_uniform)]
    pub(super) push: Vec<UniformArg>,
    /// A texture for binding B (a sampled texture, or the texture of a combined sampler by its
    /// name): SIZE[:FORMAT][:fill=V[,V…]][:iota][:mips=N] (SIZE as textureSize reports it;
    /// iota: texel i's first channel is i, wrapping in the channel's range, i/255 in normalized
    /// ones, counting on through the mip levels, each filled alike;
    /// FORMAT defaults to rgba8unorm for float textures), or @FILE.png (8-bit RGBA, RGB, gray,
    /// gray+alpha, 16-bit gray)
    #[arg(long = "texture", value_name = "B=SPEC", value_parser = parse_texture)]
    pub(super) textures: Vec<TextureArg>,
    /// A sampler for binding NAME (a sampler, or the sampler of a combined sampler by its name):
    /// linear|nearest[,clamp|repeat|mirror][,compare=less|lequal|greater|gequal|equal|notequal|always|never].
    /// A combined sampler whose texture is given and whose sampler is not samples with
    /// nearest,clamp (a shadow sampler needs its compare= given)
    #[arg(long = "sampler", value_name = "NAME=SPEC", value_parser = parse_sampler)]
    pub(super) samplers: Vec<SamplerArg>,
    /// After the dispatch, write the 2D texture or storage texture NAME (8-bit unorm) as PNG
    /// (under `diff`, from the first backend's run)
    #[arg(long = "out-png", value_name = "NAME=FILE", value_parser = parse_out_png)]
    pub(super) out_png: Vec<(String, PathBuf)>,
    /// Initial value of an atomic_uint counter (OpenGL GLSL); counters not set start at 0,
    /// and the output lists every counter by name
    #[arg(long = "counter", value_name = "NAME=VALUE", value_parser = parse_counter)]
    pub(super) counters: Vec<CounterArg>,
    /// Give up after SECS seconds (exit 1): on the translation, on compiling the pipeline,
    /// and on the dispatch, each
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
    pub(super) timeout: Duration,
}

/// Which shader and how to read it, shared by `run`, `diff` and `translate`.
#[derive(clap::Args)]
pub(super) struct ShaderArgs {
    /// The kernel: GLSL (.comp, .glsl, …), SPIR-V (.spv), WGSL (.wgsl) or a translation
    /// `translate --translation` wrote (.json)
    #[arg(value_name = "SHADER")]
    pub(super) path: PathBuf,
    /// Shader language, overriding the extension: glsl, spirv or wgsl
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    pub(super) lang: Option<Lang>,
    /// Compute entry point (default: the only one)
    #[arg(long, value_name = "NAME")]
    pub(super) entry: Option<String>,
    #[command(flatten)]
    pub(super) glsl: GlslArgs,
    /// Value of a specialization constant, by constant_id or name (repeatable): 0=64, BINS=256,
    /// WIDE=true
    #[arg(long = "spec", value_name = "ID=VALUE", value_parser = parse_spec)]
    pub(super) specs: Vec<atomport::Specialization>,
    /// Vulkan version GLSL is compiled for: vulkan1.0 (SPIR-V 1.0), vulkan1.1 (1.3), vulkan1.2
    /// (1.5) or vulkan1.3 (1.6) [default: vulkan1.1, or vulkan1.2/1.3 when the shader needs
    /// SPIR-V 1.5/1.6, e.g. a non-constant subgroupBroadcast id]
    #[arg(long, value_name = "ENV", value_parser = parse_target_env)]
    pub(super) target_env: Option<atomport::TargetEnv>,
    /// Hold every storage image in a texel buffer (as atomic ones are), not only those WebGPU
    /// cannot store: for adapters that give a format no storage binding (DX12 through vkd3d),
    /// and for 3D images on GL (wgpu binds their first slice only)
    #[arg(long)]
    pub(super) texel_buffers: bool,
    /// What the translation is for: native (wgpu's native backends) or webgpu (a browser's
    /// WebGPU: core WGSL, storage images in texel buffers, subgroups of one invocation,
    /// exact float literals; a shader needing a native-only feature or a barrier WGSL
    /// cannot prove uniform exits 1, naming each and its line) [default: native]
    #[arg(long, value_name = "TARGET", value_parser = parse_platform)]
    pub(super) target: Option<atomport::Platform>,
    /// Texel format of a buffer texture (samplerBuffer, usamplerBuffer, …), the format of the
    /// buffer view its host reads it through (repeatable): positions=rgba32f, indices=r32ui
    /// [default: rgba32f, rgba32i or rgba32ui, by the texture's type]
    #[arg(long = "buffer-format", value_name = "NAME=FORMAT", value_parser = parse_buffer_format)]
    pub(super) buffer_formats: Vec<(String, atomport::ImageFormat)>,
    /// Fail (exit 1) when the shader asks for a guarantee WGSL does not give in full (the
    /// warnings printed to stderr: acquire/release atomics, coherent, volatile, barriers in
    /// non-uniform control flow)
    #[arg(long)]
    pub(super) deny_warnings: bool,
}

impl JobArgs {
    /// The resources the job's specs describe.
    pub(super) fn resources(&self) -> atomport::runtime::job::Resources {
        atomport::runtime::job::Resources {
            buffers: self.buffers.clone(),
            images: self.images.clone(),
            uniforms: self.uniforms.clone(),
            push: self.push.clone(),
            counters: self.counters.clone(),
            textures: self.textures.clone(),
            samplers: self.samplers.clone(),
        }
    }
}

/// How GLSL is read, shared by the commands that read shaders.
#[derive(clap::Args)]
pub(super) struct GlslArgs {
    /// GLSL preprocessor definition NAME or NAME=VALUE (repeatable)
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub(super) defines: Vec<String>,
    /// Further folder for GLSL #include (repeatable; the shader's own folder comes first)
    #[arg(short = 'I', value_name = "DIR")]
    pub(super) include_dirs: Vec<PathBuf>,
    /// Further GLSL compute shader linked with the shader into one program, as OpenGL links
    /// every compute shader attached to a program: one unit defines the functions another
    /// declares (repeatable; each with its own #version and #includes)
    #[arg(long = "link", value_name = "FILE")]
    pub(super) linked: Vec<PathBuf>,
    /// GLSL dialect: vulkan or opengl (loose uniforms, atomic counters, per-kind binding
    /// numbers) [default: detected; a shader without `set =` that needs OpenGL's rules is
    /// OpenGL GLSL]
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    pub(super) dialect: Option<Dialect>,
    /// GLSL version of a shader without a #version line, as its project's build gives it
    /// (460, 450core, 310es: glslang's default version, shaderc's -std); a #version in the
    /// shader wins
    #[arg(long, value_name = "VERSION", value_parser = GlslVersion::parse)]
    pub(super) glsl_version: Option<GlslVersion>,
}

impl GlslArgs {
    /// `o` with these defines, include folders, linked units, dialect and
    /// version.
    pub(super) fn apply(&self, mut o: SourceOptions) -> SourceOptions {
        for d in &self.defines {
            o = o.define(d);
        }
        o.include_dirs = self.include_dirs.clone();
        o.linked = self.linked.clone();
        o.dialect = self.dialect;
        o.glsl_version = self.glsl_version;
        o
    }
}

impl ShaderArgs {
    pub(super) fn options(&self) -> SourceOptions {
        let mut o = self.glsl.apply(
            SourceOptions::named(self.path.display().to_string()).with_entry(self.entry.clone()),
        );
        o.specializations = self.specs.clone();
        o.target_env = self.target_env;
        o.images_as_texel_buffers = self.texel_buffers;
        o.buffer_texture_formats = self.buffer_formats.clone();
        o.target = self.target.unwrap_or_default();
        o
    }

    /// Whether the shader is a translation's JSON (`translate
    /// --translation`), by its `.json` extension unless `--lang` is given.
    fn is_translation(&self) -> bool {
        self.lang.is_none() && self.path.extension().is_some_and(|e| e == "json")
    }

    /// Whether the shader is WGSL (by `--lang` or its extension), or a
    /// translation: either way there is no original to run natively.
    pub(super) fn is_wgsl(&self) -> bool {
        self.is_translation()
            || self.lang.unwrap_or_else(|| Lang::from_path(&self.path)) == Lang::Wgsl
    }

    /// Loads the kernel, printing its warnings to stderr once per process
    /// (`diff` loads it per backend); `--deny-warnings` makes them an error.
    pub(super) fn load(
        &self,
        features: atomport::wgpu::Features,
        timeout: Duration,
        verify_wgsl: bool,
    ) -> atomport::Result<Kernel> {
        static PRINTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut opts = self.options().fitted_to(features);
        opts.timeout = Some(timeout);
        opts.verify_wgsl = verify_wgsl;
        let name = self.path.display().to_string();
        let kernel = if self.is_translation() {
            let limit = atomport::files::MAX_SOURCE_BYTES;
            let text = atomport::files::read_text(&self.path, limit, "translation")?;
            let t = atomport::Translation::from_json(&text).map_err(|e| match e {
                Error::Shader(m) => Error::shader(format!("{name}: {}", m.message)),
                e => e,
            })?;
            Kernel::from_translation(&t, &opts)?
        } else {
            Kernel::from_path(&self.path, self.lang, &opts)?
        };
        for w in kernel.warnings() {
            let text = match w.line {
                Some(line) => format!("{name}:{line}: warning: {}", w.message),
                None => format!("{name}: warning: {}", w.message),
            };
            let mut printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner());
            if !printed.contains(&text) {
                // A closed stderr leaves the output to say it.
                let _ = writeln!(std::io::stderr(), "{text}");
                printed.push(text);
            }
        }
        if self.deny_warnings && !kernel.warnings().is_empty() {
            return Err(Error::Unsupported(format!(
                "{name}: {} warning(s), and --deny-warnings makes them errors",
                kernel.warnings().len()
            )));
        }
        Ok(kernel)
    }
}

/// What `validate` runs, where, and how it reports.
#[derive(clap::Args)]
pub(super) struct ValidateArgs {
    /// Backend to validate: vulkan, metal, dx12, gl, or all (every backend present)
    /// [env: ATOMPORT_BACKEND] [default: the default adapter]
    #[arg(long, value_name = "NAME|all", value_parser = parse_backend)]
    pub(super) backend: Option<BackendChoice>,
    /// Use the first adapter whose name contains TEXT [env: ATOMPORT_ADAPTER]
    #[arg(long, value_name = "TEXT")]
    pub(super) adapter: Option<String>,
    /// Only the cases whose name contains TEXT (e.g. imageAtomicCompSwap, /cube, chain)
    #[arg(long, value_name = "TEXT")]
    pub(super) filter: Option<String>,
    /// List the cases instead of running them
    #[arg(long)]
    pub(super) list: bool,
    /// Small images instead of the CTS sizes (64x64 and so on), for a quick run
    #[arg(long)]
    pub(super) small: bool,
    /// Also run every case's original SPIR-V natively (Vulkan adapters with
    /// PASSTHROUGH_SHADERS), beside the translation: a case the native run
    /// fails is a finding about the driver, reported apart
    #[arg(long)]
    pub(super) native: bool,
    /// Print one JSON object on stdout: the adapters and every case
    #[arg(long)]
    pub(super) json: bool,
    /// Give up on the GPU after SECS seconds per dispatch
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
    pub(super) timeout: Duration,
    /// Translate the cases for TARGET: native, or webgpu (as a browser runs them: images in
    /// texel buffers, float atomics on the bits, …) [default: native]
    #[arg(long, value_name = "TARGET", value_parser = parse_platform)]
    pub(super) target: Option<atomport::Platform>,
    /// Write every case's translation to FILE (JSON, by GLSL source): what a browser, which
    /// has no glslang, runs the matrix with (scripts/test-web)
    #[arg(long, value_name = "FILE")]
    pub(super) save_translations: Option<PathBuf>,
}

#[derive(Subcommand)]
pub(super) enum Command {
    /// List every adapter: name, backend, device type, driver, atomics features and compute limits
    Info {
        /// Only adapters of this backend (vulkan, metal, dx12, gl, all)
        #[arg(long, value_name = "NAME", value_parser = parse_backend)]
        backend: Option<BackendChoice>,
        /// Print one JSON array on stdout
        #[arg(long)]
        json: bool,
    },
    /// Dispatch a compute kernel once and print the contents of every buffer and image
    Run {
        #[command(flatten)]
        shader: ShaderArgs,
        #[command(flatten)]
        job: JobArgs,
        #[command(flatten)]
        adapter: AdapterArgs,
        /// Print exactly one JSON object on stdout
        #[arg(long)]
        json: bool,
    },
    /// Run the conformance matrix (every atomic function × int/uint × every memory kind and
    /// image type) on each selected adapter; exit 1 if any case fails
    Validate(ValidateArgs),
    /// Run the same job on several backends, or natively and translated, and compare every
    /// binding with the first run's (exactly unless --compare says otherwise); exit 1 on a
    /// difference
    Diff(DiffArgs),
    /// Check shaders against their original SPIR-V run natively, with inputs made from the
    /// shaders' declarations (no inputs written): every output word compared, on every backend
    /// present; exit 1 on a difference or a shader that does not translate
    Check(CheckArgs),
    /// Translate a shader to WGSL (or, with --bindings, print its binding map as JSON)
    Translate {
        #[command(flatten)]
        shader: ShaderArgs,
        /// Write to FILE instead of stdout
        #[arg(short = 'o', value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the binding map as JSON instead of the WGSL
        #[arg(long)]
        bindings: bool,
        /// Print the whole translation as JSON instead: the WGSL, its entry point and
        /// workgroup size (and its split, where the WebGPU target split it), the binding map and
        /// the warnings, which `atomport run FILE.json`
        /// and the library's Translation::from_json read back as the same kernel
        #[arg(long, conflicts_with = "bindings")]
        translation: bool,
        /// Map float atomics onto atomic<f32> (needs SHADER_FLOAT32_ATOMIC) instead of
        /// portable compare-exchange loops
        #[arg(long)]
        native_float_atomics: bool,
        /// Keep arrays of textures, samplers and storage images indexed at run time as
        /// binding arrays (needs TEXTURE_BINDING_ARRAY, STORAGE_RESOURCE_BINDING_ARRAY and
        /// their non-uniform indexing) instead of portable switches over one binding per
        /// element (arrays of up to 16)
        #[arg(long)]
        binding_arrays: bool,
        /// Fit the translation to this backend's adapter (vulkan, metal, dx12, gl), as `run`
        /// does: 64-bit integers and buffer references as pairs of 32-bit words where it lacks
        /// SHADER_INT64, binding arrays and native float atomics where it has them (the
        /// binding map's "forms" say which were taken) [default: 64-bit integers kept, the
        /// portable forms otherwise]
        #[arg(long, value_name = "NAME", value_parser = parse_backend,
              conflicts_with_all = ["native_float_atomics", "binding_arrays"])]
        backend: Option<BackendChoice>,
        /// Give up on the translation after SECS seconds (exit 1)
        #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
        timeout: Duration,
    },
}

/// `atomport diff`'s arguments.
#[derive(clap::Args)]
pub(super) struct DiffArgs {
    #[command(flatten)]
    pub(super) shader: ShaderArgs,
    #[command(flatten)]
    pub(super) job: JobArgs,
    /// What to run, the first the reference the others are compared with: backends (vulkan,
    /// metal, dx12, gl) run the translation; `native` runs the original SPIR-V untranslated on
    /// the Vulkan adapter (PASSTHROUGH_SHADERS). E.g. vulkan,gl or native,vulkan,gl
    #[arg(long, value_name = "A,B[,…]", value_parser = parse_sides)]
    pub(super) backends: Option<Sides>,
    /// Compare the original SPIR-V run natively (the reference) with the translation on every
    /// backend present that has the features the kernel needs (the others are named on
    /// stderr), or on those --backends names
    #[arg(long)]
    pub(super) native: bool,
    /// Compare binding NAME (its GLSL name, or GROUP.BINDING) by RULE: exact (the default),
    /// multiset (the same values in any order: atomicAdd results stored per invocation, append
    /// buffers), forest (a union-find parent array: the same connected components) or labels
    /// (the same classes of equal values) (repeatable)
    #[arg(long = "compare", value_name = "NAME=RULE", value_parser = parse_rule)]
    pub(super) compare: Vec<atomport::validate::diff::Rule>,
    /// When the original cannot run natively (read from WGSL, or an image of a shape WebGPU
    /// cannot bind), say why on stderr and compare the translations alone instead of failing
    #[arg(long)]
    pub(super) native_optional: bool,
    /// Print one JSON object on stdout
    #[arg(long)]
    pub(super) json: bool,
}

/// `atomport check`'s arguments.
#[derive(clap::Args)]
pub(super) struct CheckArgs {
    /// Shaders (GLSL or SPIR-V), or folders checked for every compute shader in them and
    /// below: .comp, .comp.glsl, .glsl with a #version line and a main (not a header, nor a
    /// unit other shaders link), and .spv with a compute entry point, whose names give no
    /// other stage (.frag.glsl, .vs.glsl, .vert.spv, …)
    #[arg(value_name = "SHADER", required = true)]
    pub(super) shaders: Vec<PathBuf>,
    #[command(flatten)]
    pub(super) glsl: GlslArgs,
    /// The translation checked: native, or webgpu (the browser's, run natively) [default: native]
    #[arg(long, value_name = "TARGET", value_parser = parse_platform)]
    pub(super) target: Option<atomport::Platform>,
    /// Hold every storage image of a declared format in a texel buffer in the translation
    /// checked, on every backend (as `run --texel-buffers`): for adapters that give a format
    /// no storage binding (DX12 through vkd3d). GL runs that translation anyway for a kernel
    /// with a 3D image (wgpu binds a 3D storage texture's first slice only there)
    #[arg(long)]
    pub(super) texel_buffers: bool,
    /// Backends the translation runs on (vulkan, metal, dx12, gl), comma-separated [default:
    /// every backend present]
    #[arg(long, value_name = "A,B", value_parser = parse_backends)]
    pub(super) backends: Option<List<BackendChoice>>,
    /// Inputs given rather than generated, written as `run`'s job flags (as a `// run:` line
    /// does): '--buffer Params=u32:[64] --groups 8' (repeatable; for every shader)
    #[arg(long = "run", value_name = "FLAGS", allow_hyphen_values = true)]
    pub(super) run: Vec<String>,
    /// Ignore the shaders' own `// run:` lines: every input generated
    #[arg(long)]
    pub(super) no_run_lines: bool,
    /// Compare binding NAME by RULE (multiset, forest, labels; as `diff --compare`): a binding
    /// that holds order-dependent results (repeatable)
    #[arg(long = "compare", value_name = "NAME=RULE", value_parser = parse_rule)]
    pub(super) compare: Vec<atomport::validate::diff::Rule>,
    /// Input variants to run, comma-separated: well-formed, one-group, zero, iota, random,
    /// extremes [default: all]
    #[arg(long, value_name = "A,B", value_parser = parse_variants)]
    pub(super) variants: Option<List<atomport::validate::check::Variant>>,
    /// Give up after SECS seconds on each translation, compilation and dispatch
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_timeout)]
    pub(super) timeout: Duration,
    /// Print one JSON array on stdout: each shader's report
    #[arg(long)]
    pub(super) json: bool,
    /// Also write a JUnit XML report to FILE (one test case per shader)
    #[arg(long, value_name = "FILE")]
    pub(super) junit: Option<PathBuf>,
    /// Also run the WebGPU translation in headless Chromium (implies --target webgpu), on the
    /// same bytes as the native run: needs atomport's browser set-up (scripts/setup-web,
    /// scripts/build-web) in this source tree, or where ATOMPORT_ROOT says
    #[arg(long)]
    pub(super) browser: bool,
    /// Check in this process (each shader is otherwise checked in a child process, so that a
    /// driver crash under generated inputs ends only it)
    #[arg(long, hide = true)]
    pub(super) in_process: bool,
}

/// A comma-separated list of values (one flag's value, as clap sees it).
#[derive(Clone, Debug)]
pub(super) struct List<T>(pub(super) Vec<T>);

fn parse_backends(s: &str) -> Result<List<BackendChoice>, String> {
    let mut out = Vec::new();
    for name in s.split(',').map(str::trim) {
        match parse_backend(name)? {
            BackendChoice::All => {
                return Err("`all` is the default: name backends, or omit --backends".into());
            }
            b if out.contains(&b) => return Err(format!("`{name}` is named twice")),
            b => out.push(b),
        }
    }
    Ok(List(out))
}

fn parse_variants(s: &str) -> Result<List<atomport::validate::check::Variant>, String> {
    use atomport::validate::check::Variant;
    s.split(',')
        .map(str::trim)
        .map(|n| {
            Variant::ALL
                .into_iter()
                .find(|v| v.name() == n)
                .ok_or_else(|| {
                    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                    format!("`{n}` is not a variant ({})", names.join(", "))
                })
        })
        .collect::<Result<Vec<_>, String>>()
        .map(List)
}

/// One run of `diff`: a backend's translation, or the original natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// The translation on this backend.
    Translated(BackendChoice),
    /// The original SPIR-V, untranslated, on the Vulkan adapter.
    Native,
}

impl Side {
    /// The name `--backends` takes and reports print.
    pub(super) fn name(self) -> &'static str {
        match self {
            Side::Translated(b) => b.name(),
            Side::Native => "native",
        }
    }
}

/// The runs `--backends` names, in its order.
#[derive(Clone, Debug)]
pub(super) struct Sides(pub(super) Vec<Side>);

fn parse_sides(s: &str) -> Result<Sides, String> {
    let mut sides = Vec::new();
    for name in s.split(',').map(str::trim) {
        let side = if name == "native" {
            Side::Native
        } else {
            match parse_backend(name)? {
                BackendChoice::All => {
                    return Err("name single backends, e.g. vulkan,gl or native,vulkan".into());
                }
                b => Side::Translated(b),
            }
        };
        if sides.contains(&side) {
            return Err(format!("`{name}` is named twice"));
        }
        sides.push(side);
    }
    Ok(Sides(sides))
}

fn parse_rule(s: &str) -> Result<atomport::validate::diff::Rule, String> {
    atomport::validate::diff::Rule::parse(s).map_err(|e| e.to_string())
}

fn parse_spec(s: &str) -> Result<atomport::Specialization, String> {
    atomport::Specialization::parse(s).map_err(|e| e.to_string())
}

fn parse_buffer_format(s: &str) -> Result<(String, atomport::ImageFormat), String> {
    let (name, format) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=FORMAT (e.g. positions=rgba32f)"))?;
    let f = atomport::ImageFormat::parse(format)
        .ok_or_else(|| format!("`{format}` is not an image format (r32f, rgba8, rgba32ui, …)"))?;
    if name.is_empty() {
        return Err(format!("`{s}` names no buffer texture"));
    }
    Ok((name.to_string(), f))
}

fn parse_platform(s: &str) -> Result<atomport::Platform, String> {
    atomport::Platform::parse(s)
        .ok_or_else(|| format!("`{s}` is not a translation target (native, webgpu)"))
}

fn parse_target_env(s: &str) -> Result<atomport::TargetEnv, String> {
    atomport::TargetEnv::parse(s).ok_or_else(|| {
        format!("`{s}` is not a target environment (vulkan1.0, vulkan1.1, vulkan1.2, vulkan1.3)")
    })
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    Dialect::parse(s).ok_or_else(|| format!("`{s}` is not a GLSL dialect (vulkan, opengl)"))
}

fn parse_lang(s: &str) -> Result<Lang, String> {
    Lang::parse(s).ok_or_else(|| format!("`{s}` is not a shader language (glsl, spirv, wgsl)"))
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_image(s: &str) -> Result<ImageArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_uniform(s: &str) -> Result<UniformArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_texture(s: &str) -> Result<TextureArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_sampler(s: &str) -> Result<SamplerArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_out_png(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((n, f)) if !n.is_empty() && !f.is_empty() => Ok((n.to_string(), f.into())),
        _ => Err(format!("`{s}`: expected NAME=FILE.png")),
    }
}

fn parse_counter(s: &str) -> Result<CounterArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_buffer(s: &str) -> Result<BufferArg, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

fn parse_groups(s: &str) -> Result<[u32; 3], String> {
    atomport::runtime::job::spec::parse_groups(s)
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}
