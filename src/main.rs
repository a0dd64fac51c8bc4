//! `atomport`: the command-line interface, thin over the library.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use atomport::job::{
    self, BufferArg, CounterArg, ImageArg, JobOutput, Resources, SamplerArg, TextureArg, UniformArg,
};
use atomport::{
    BackendChoice, Context, ContextOptions, Dialect, Error, Kernel, Lang, SourceOptions,
};
use clap::{Parser, Subcommand};

/// Run GLSL compute shaders that use atomics on any wgpu backend, with GLSL semantics.
#[derive(Parser)]
#[command(name = "atomport", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Adapter selection, shared by every command that runs something.
#[derive(clap::Args)]
struct AdapterArgs {
    /// Backend to use: vulkan, metal, dx12, gl or all [env: ATOMPORT_BACKEND] [default: all, best adapter wins]
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    backend: Option<BackendChoice>,
    /// Use the first adapter whose name contains TEXT (case-insensitive) [env: ATOMPORT_ADAPTER]
    #[arg(long, value_name = "TEXT")]
    adapter: Option<String>,
}

/// What to dispatch and with which resources, shared by `run` and `diff`.
#[derive(clap::Args)]
struct JobArgs {
    /// Workgroup counts: X[,Y[,Z]]
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_groups)]
    groups: [u32; 3],
    /// A buffer for binding B (BINDING, GROUP.BINDING or the GLSL name). SPEC: TYPE:LEN (zeroed),
    /// TYPE:LEN:fill=V, TYPE:LEN:iota, TYPE:[v1,v2,…] or @FILE (raw little-endian bytes);
    /// TYPE: u32, i32, f32
    #[arg(long = "buffer", value_name = "B=SPEC", value_parser = parse_buffer)]
    buffers: Vec<BufferArg>,
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
    images: Vec<ImageArg>,
    /// Set a uniform (a loose uniform of OpenGL GLSL, or a member of a uniform block; BLOCK.NAME
    /// when several blocks have one): scalars (5, -2, 0x1f, 2.5, true), vectors and matrices as
    /// lists (1,2,3; matrices column-major). Uniform blocks not given as --buffer are made from
    /// these and the shader's initializers; a member with neither is an error
    #[arg(long = "uniform", value_name = "NAME=VALUE", value_parser = parse_uniform)]
    uniforms: Vec<UniformArg>,
    /// A texture for binding B (a sampled texture, or the texture of a combined sampler by its
    /// name): SIZE[:FORMAT][:fill=V[,V…]][:iota][:mips=N] (SIZE as textureSize reports it;
    /// FORMAT defaults to rgba8unorm for float textures), or @FILE.png (8-bit RGBA, RGB, gray,
    /// gray+alpha, 16-bit gray)
    #[arg(long = "texture", value_name = "B=SPEC", value_parser = parse_texture)]
    textures: Vec<TextureArg>,
    /// A sampler for binding NAME (a sampler, or the sampler of a combined sampler by its name):
    /// linear|nearest[,clamp|repeat|mirror][,compare=less|lequal|greater|gequal|equal|notequal|always|never]
    #[arg(long = "sampler", value_name = "NAME=SPEC", value_parser = parse_sampler)]
    samplers: Vec<SamplerArg>,
    /// After the dispatch, write the 2D texture or storage texture NAME (8-bit unorm) as PNG
    /// (under `diff`, from the first backend's run)
    #[arg(long = "out-png", value_name = "NAME=FILE", value_parser = parse_out_png)]
    out_png: Vec<(String, PathBuf)>,
    /// Initial value of an atomic_uint counter (OpenGL GLSL); counters not set start at 0,
    /// and the output lists every counter by name
    #[arg(long = "counter", value_name = "NAME=VALUE", value_parser = parse_counter)]
    counters: Vec<CounterArg>,
    /// Give up after SECS seconds (exit 1): on the translation, on compiling the pipeline,
    /// and on the dispatch, each
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
    timeout: Duration,
}

/// Which shader and how to read it, shared by `run`, `diff` and `translate`.
#[derive(clap::Args)]
struct ShaderArgs {
    /// The kernel: GLSL (.comp, .glsl, …), SPIR-V (.spv) or WGSL (.wgsl)
    #[arg(value_name = "SHADER")]
    path: PathBuf,
    /// Shader language, overriding the extension: glsl, spirv or wgsl
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    lang: Option<Lang>,
    /// Compute entry point (default: the only one)
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// GLSL preprocessor definition NAME or NAME=VALUE (repeatable)
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Further folder for GLSL #include (repeatable; the shader's own folder comes first)
    #[arg(short = 'I', value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// GLSL dialect: vulkan or opengl (loose uniforms, atomic counters, per-kind binding
    /// numbers) [default: detected; a shader without `set =` that needs OpenGL's rules is
    /// OpenGL GLSL]
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    dialect: Option<Dialect>,
    /// Value of a specialization constant, by constant_id or name (repeatable): 0=64, BINS=256,
    /// WIDE=true
    #[arg(long = "spec", value_name = "ID=VALUE", value_parser = parse_spec)]
    specs: Vec<atomport::Specialization>,
    /// Vulkan version GLSL is compiled for: vulkan1.0 (SPIR-V 1.0), vulkan1.1 (1.3), vulkan1.2
    /// (1.5) or vulkan1.3 (1.6) [default: vulkan1.1]
    #[arg(long, value_name = "ENV", value_parser = parse_target_env)]
    target_env: Option<atomport::TargetEnv>,
    /// Fail (exit 1) when the shader asks for a guarantee WGSL does not give in full (the
    /// warnings printed to stderr: acquire/release atomics, coherent, volatile, barriers in
    /// non-uniform control flow)
    #[arg(long)]
    deny_warnings: bool,
}

impl ShaderArgs {
    fn options(&self) -> SourceOptions {
        let mut o =
            SourceOptions::named(self.path.display().to_string()).with_entry(self.entry.clone());
        for d in &self.defines {
            o = o.define(d);
        }
        o.include_dirs = self.include_dirs.clone();
        o.dialect = self.dialect;
        o.specializations = self.specs.clone();
        o.target_env = self.target_env;
        o
    }

    /// Loads the kernel, printing its warnings to stderr once per process
    /// (`diff` loads it per backend); `--deny-warnings` makes them an error.
    fn load(&self, native_float_atomics: bool, timeout: Duration) -> atomport::Result<Kernel> {
        static PRINTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut opts = self.options();
        opts.native_float_atomics = native_float_atomics;
        opts.timeout = Some(timeout);
        let kernel = Kernel::from_path(&self.path, self.lang, &opts)?;
        let name = self.path.display().to_string();
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

#[derive(Subcommand)]
enum Command {
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
    Validate {
        /// Backend to validate: vulkan, metal, dx12, gl, or all (every backend present)
        /// [env: ATOMPORT_BACKEND] [default: the default adapter]
        #[arg(long, value_name = "NAME|all", value_parser = parse_backend)]
        backend: Option<BackendChoice>,
        /// Use the first adapter whose name contains TEXT [env: ATOMPORT_ADAPTER]
        #[arg(long, value_name = "TEXT")]
        adapter: Option<String>,
        /// Only the cases whose name contains TEXT (e.g. imageAtomicCompSwap, /cube, chain)
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// List the cases instead of running them
        #[arg(long)]
        list: bool,
        /// Small images instead of the CTS sizes (64x64 and so on), for a quick run
        #[arg(long)]
        small: bool,
        /// Print one JSON object on stdout: the adapters and every case
        #[arg(long)]
        json: bool,
        /// Give up on the GPU after SECS seconds per dispatch
        #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
        timeout: Duration,
    },
    /// Run the same job on two backends and compare every binding exactly; exit 1 on a difference
    Diff {
        #[command(flatten)]
        shader: ShaderArgs,
        #[command(flatten)]
        job: JobArgs,
        /// The two backends to compare, e.g. vulkan,gl
        #[arg(long, value_name = "A,B", value_parser = parse_backend_pair)]
        backends: (BackendChoice, BackendChoice),
        /// Print one JSON object on stdout
        #[arg(long)]
        json: bool,
    },
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
        /// Map float atomics onto atomic<f32> (needs SHADER_FLOAT32_ATOMIC) instead of
        /// portable compare-exchange loops
        #[arg(long)]
        native_float_atomics: bool,
        /// Give up on the translation after SECS seconds (exit 1)
        #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
        timeout: Duration,
    },
}

fn parse_spec(s: &str) -> Result<atomport::Specialization, String> {
    atomport::Specialization::parse(s).map_err(|e| e.to_string())
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

fn parse_backend_pair(s: &str) -> Result<(BackendChoice, BackendChoice), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| "expected two backends, e.g. vulkan,gl".to_string())?;
    let (a, b) = (parse_backend(a)?, parse_backend(b)?);
    if a == BackendChoice::All || b == BackendChoice::All {
        return Err("name two single backends, e.g. vulkan,gl".into());
    }
    Ok((a, b))
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
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err("expected X[,Y[,Z]]".into());
    }
    let mut g = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        g[i] = p.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
            format!("`{p}` is not a workgroup count (1 or more; expected X[,Y[,Z]])")
        })?;
    }
    Ok(g)
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// Exit status for usage errors, as clap uses.
const USAGE: u8 = 2;

/// Appends a formatted line to a command's output text.
macro_rules! outln {
    ($o:expr) => {
        $o.push('\n')
    };
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($t)*);
    }};
}

/// Writes a command's output to stdout and flushes it. A reader that closed
/// the pipe early (`| head`) has what it wanted: the process ends quietly
/// with status 0. Any other failure (a full disk) is an error, status 1.
fn emit(text: &str) -> atomport::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => leave(0),
        Err(source) => Err(Error::Io {
            path: "standard output".into(),
            source,
        }),
    }
}

fn main() -> ExitCode {
    // SAFETY: first thing in main, before any other thread exists.
    unsafe { atomport::quiet_headless_probing() };
    // naga logs every SPIR-V capability it does not know (which the passes
    // make moot), and naga and wgpu log each error that atomport reports
    // itself in one line: silent unless RUST_LOG says otherwise.
    env_logger::Builder::from_env(
        env_logger::Env::default()
            .default_filter_or("warn,naga=off,wgpu=off,wgpu_core=off,wgpu_hal=off"),
    )
    .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { backend, json } => info(backend, json),
        Command::Run {
            shader,
            job,
            adapter,
            json,
        } => run(&shader, &job, &adapter, json),
        Command::Validate {
            backend,
            adapter,
            filter,
            list,
            small,
            json,
            timeout,
        } => validate(backend, adapter, filter, list, small, json, timeout),
        Command::Diff {
            shader,
            job,
            backends,
            json,
        } => diff(&shader, &job, backends, json),
        Command::Translate {
            shader,
            out,
            bindings,
            native_float_atomics,
            timeout,
        } => translate(
            &shader,
            out.as_deref(),
            bindings,
            native_float_atomics,
            timeout,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed stderr leaves the status to say it.
            let _ = writeln!(std::io::stderr(), "atomport: {e}");
            // What the command line got wrong — a flag's value, or a binding,
            // uniform or counter the shader lacks or needs — is a usage error.
            let code = match e {
                Error::UnknownBackend(_)
                | Error::Spec(_)
                | Error::UnknownName(_)
                | Error::InvalidValue(_)
                | Error::Input(_)
                | Error::Resource(_)
                | Error::Dispatch(_)
                | Error::Uniform(_)
                | Error::MissingBinding { .. }
                | Error::UnusedBinding { .. }
                | Error::WrongKind { .. }
                | Error::BufferTooSmall { .. } => USAGE,
                _ => 1,
            };
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            leave(code)
        }
    }
}

/// Exits at once with `code`. A timed-out kernel may still be running, and
/// the drivers' exit handlers (lavapipe's among them) wait for it; `_exit`
/// skips them, so a timeout ends the process when it is reported.
fn leave(code: u8) -> ! {
    #[cfg(unix)]
    {
        // SAFETY: _exit ends the process; stdout and stderr were flushed above.
        unsafe { libc::_exit(code.into()) }
    }
    #[cfg(not(unix))]
    {
        std::process::exit(code.into())
    }
}

fn context_options(args: &AdapterArgs, timeout: Duration) -> atomport::Result<ContextOptions> {
    let mut o = ContextOptions::from_env_with(args.backend)?.with_timeout(timeout);
    if args.adapter.is_some() {
        o.adapter = args.adapter.clone();
    }
    Ok(o)
}

fn info(backend: Option<BackendChoice>, json: bool) -> atomport::Result<()> {
    let backend = match backend {
        Some(b) => b,
        None => ContextOptions::from_env()?.backend,
    };
    let list = atomport::adapters(backend);
    let mut o = String::new();
    if json {
        outln!(
            o,
            "{}",
            serde_json::to_string_pretty(&list).expect("adapter list serializes")
        );
        return emit(&o);
    }
    if list.is_empty() {
        return Err(Error::NoAdapter {
            tried: backend.name().into(),
            filter: String::new(),
        });
    }
    for (i, a) in list.iter().enumerate() {
        if i > 0 {
            outln!(o);
        }
        outln!(o, "{} ({})", a.name, a.backend);
        outln!(o, "  device type: {}", a.device_type);
        outln!(o, "  driver:      {} {}", a.driver, a.driver_info);
        outln!(
            o,
            "  features:    {}",
            if a.features.is_empty() {
                "none of the atomics features".to_string()
            } else {
                a.features.join(", ")
            }
        );
        outln!(
            o,
            "  max_storage_buffer_binding_size:       {}",
            a.limits.max_storage_buffer_binding_size
        );
        outln!(
            o,
            "  max_compute_invocations_per_workgroup: {}",
            a.limits.max_compute_invocations_per_workgroup
        );
        outln!(
            o,
            "  max_compute_workgroups_per_dimension:  {}",
            a.limits.max_compute_workgroups_per_dimension
        );
    }
    emit(&o)
}

/// Opens the adapter `opts` chooses and runs the job there, with native
/// float atomics where the adapter has them.
fn run_job(
    shader: &ShaderArgs,
    job: &JobArgs,
    opts: ContextOptions,
) -> atomport::Result<JobOutput> {
    let native = opts
        .adapter_features()?
        .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC);
    let kernel = shader.load(native, job.timeout)?;
    let ctx = Context::new(&opts.with_features(kernel.required_features()))?;
    let resources = Resources {
        buffers: job.buffers.clone(),
        images: job.images.clone(),
        uniforms: job.uniforms.clone(),
        counters: job.counters.clone(),
        textures: job.textures.clone(),
        samplers: job.samplers.clone(),
    };
    job::run(&ctx, &kernel, job.groups, &resources)
}

/// Writes the `--out-png` textures of one job's output.
fn write_pngs(job: &JobArgs, out: &JobOutput) -> atomport::Result<()> {
    for (name, path) in &job.out_png {
        job::write_png(out, name, path)?;
    }
    Ok(())
}

fn run(
    shader: &ShaderArgs,
    job: &JobArgs,
    adapter: &AdapterArgs,
    json: bool,
) -> atomport::Result<()> {
    let out = run_job(shader, job, context_options(adapter, job.timeout)?)?;
    write_pngs(job, &out)?;
    if json {
        let mut text = serde_json::to_string(&out).expect("job output serializes");
        text.push('\n');
        emit(&text)
    } else {
        emit(&listing(&out))
    }
}

fn diff(
    shader: &ShaderArgs,
    job: &JobArgs,
    (a, b): (BackendChoice, BackendChoice),
    json: bool,
) -> atomport::Result<()> {
    let base = ContextOptions::from_env_with(Some(a))?.with_timeout(job.timeout);
    let out_a = run_job(shader, job, base.clone().with_backend(a))?;
    let out_b = run_job(shader, job, base.with_backend(b))?;
    // Once, from the first backend: the diff says whether the second agrees.
    write_pngs(job, &out_a)?;
    let diffs = atomport::validate::diff::compare(&out_a, &out_b);
    let total: usize = diffs.iter().map(|d| d.count).sum();
    let mut o = String::new();
    if json {
        let v = serde_json::json!({
            "adapters": [out_a.adapter, out_b.adapter],
            "equal": diffs.is_empty(),
            "differences": total,
            "bindings": diffs,
        });
        outln!(o, "{v}");
    } else {
        outln!(
            o,
            "a: {} ({})\nb: {} ({})",
            out_a.adapter.name,
            out_a.adapter.backend,
            out_b.adapter.name,
            out_b.adapter.backend
        );
        for d in &diffs {
            let name = d
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            outln!(
                o,
                "binding {}.{}{name}: {} element(s) differ",
                d.group,
                d.binding,
                d.count
            );
            for e in &d.first {
                outln!(o, "  [{}] a={} b={}", e.index, e.a, e.b);
            }
        }
        let bindings = out_a.bindings.len();
        if diffs.is_empty() {
            outln!(o, "equal: every element of {bindings} binding(s)");
        } else {
            outln!(
                o,
                "{total} element(s) differ in {} of {bindings} binding(s)",
                diffs.len()
            );
        }
    }
    emit(&o)?;
    if !diffs.is_empty() {
        leave(1);
    }
    Ok(())
}

fn validate(
    backend: Option<BackendChoice>,
    adapter: Option<String>,
    filter: Option<String>,
    list: bool,
    small: bool,
    json: bool,
    timeout: Duration,
) -> atomport::Result<()> {
    use atomport::validate::conformance::{self, RunOptions, Scale};
    let cases: Vec<_> = conformance::matrix()
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.name().contains(f)))
        .collect();
    let mut o = String::new();
    if list {
        for c in &cases {
            outln!(o, "{}", c.name());
        }
        return emit(&o);
    }
    if cases.is_empty() {
        return Err(Error::Spec(format!(
            "--filter {}: no case matches (see --list)",
            filter.unwrap_or_default()
        )));
    }
    let mut base = ContextOptions::from_env_with(backend)?.with_timeout(timeout);
    if adapter.is_some() {
        base.adapter = adapter;
    }
    // The 64-bit image cases run where the adapter has 64-bit atomics.
    let int64 = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    let with_int64 = |o: ContextOptions| {
        let have = o.adapter_features().unwrap_or_default();
        if have.contains(int64) {
            o.with_features(int64)
        } else {
            o
        }
    };
    // `all` validates one adapter per backend present; otherwise the one adapter chosen.
    let contexts: Vec<Context> = if base.backend == BackendChoice::All && backend.is_some() {
        let found: Vec<Context> = BackendChoice::SINGLE
            .iter()
            .filter_map(|b| Context::new(&with_int64(base.clone().with_backend(*b))).ok())
            .collect();
        if found.is_empty() {
            // The one adapter `all` finds, or the no-adapter error naming what was tried.
            vec![Context::new(&base)?]
        } else {
            found
        }
    } else {
        vec![Context::new(&with_int64(base.clone()))?]
    };
    let scale = if small { Scale::Small } else { Scale::Full };
    let bar = if json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new((cases.len() * contexts.len()) as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .expect("the progress template is valid"),
    );
    let mut outcomes = Vec::new();
    let mut timings = Vec::new();
    for ctx in &contexts {
        let start = std::time::Instant::now();
        outcomes.extend(conformance::run_all(
            ctx,
            &cases,
            scale,
            &RunOptions::default(),
            |o| {
                bar.set_message(format!("{} {}", o.backend, o.name));
                bar.inc(1);
            },
        ));
        timings.push((ctx.summary(), start.elapsed()));
    }
    bar.finish_and_clear();
    let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
    let failed = outcomes
        .iter()
        .filter(|o| !o.passed && o.skipped.is_none())
        .count();
    let passed = outcomes.len() - failed - skipped;
    if json {
        let v = serde_json::json!({
            "adapters": timings.iter().map(|(a, t)| {
                let mut v = serde_json::to_value(a).expect("summaries serialize");
                v["seconds"] = serde_json::json!(t.as_secs_f64());
                v
            }).collect::<Vec<_>>(),
            "cases": outcomes,
            "passed": passed,
            "failed": failed,
            "skipped": skipped,
        });
        outln!(o, "{v}");
    } else {
        for (a, t) in &timings {
            outln!(
                o,
                "{} ({}): {} cases in {:.1} s",
                a.name,
                a.backend,
                cases.len(),
                t.as_secs_f64()
            );
        }
        outln!(o);
        o.push_str(&conformance::summary_table(&cases, &outcomes));
        let failures: Vec<_> = outcomes
            .iter()
            .filter(|o| !o.passed && o.skipped.is_none())
            .collect();
        if !failures.is_empty() {
            outln!(o);
            for f in failures {
                outln!(o, "FAIL {} [{}]: {}", f.name, f.backend, f.detail);
            }
        }
        if skipped > 0 {
            // Which feature, once per backend.
            let mut why: Vec<String> = outcomes
                .iter()
                .filter_map(|o| Some(format!("{}: {}", o.backend, o.skipped.as_ref()?)))
                .collect();
            why.dedup();
            for w in why {
                outln!(o, "skipped on {w}");
            }
            outln!(o, "{passed} passed, {failed} failed, {skipped} skipped");
        } else {
            outln!(o, "{passed} passed, {failed} failed");
        }
    }
    emit(&o)?;
    if failed > 0 {
        leave(1);
    }
    Ok(())
}

fn translate(
    shader: &ShaderArgs,
    out: Option<&Path>,
    bindings: bool,
    native_float_atomics: bool,
    timeout: Duration,
) -> atomport::Result<()> {
    let kernel = shader.load(native_float_atomics, timeout)?;
    let text = if bindings {
        let mut t =
            serde_json::to_string_pretty(&kernel.binding_map()).expect("bindings serialize");
        t.push('\n');
        t
    } else {
        kernel.wgsl().to_string()
    };
    match out {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        }),
        None => emit(&text),
    }
}

fn listing(out: &JobOutput) -> String {
    let mut s = String::new();
    outln!(s, "adapter: {} ({})", out.adapter.name, out.adapter.backend);
    for b in &out.bindings {
        let name = b
            .name
            .as_deref()
            .map(|n| format!(" `{n}`"))
            .unwrap_or_default();
        let size_text = |size: &[u32]| {
            size.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        let what = match (b.ty, &b.dim, &b.format, &b.size) {
            (Some(ty), ..) => format!("{}[{}]", ty.name(), b.data.len()),
            (None, Some(dim), Some(format), Some(size)) if b.kind == "image" => {
                // 64-bit texels are shown as their two words, low first.
                let words = atomport::ImageFormat::parse(format).map_or(1, |f| f.words());
                format!(
                    "{format} {dim} image {}, {} sample(s): {} texels in texel order{}",
                    size_text(size),
                    b.samples.unwrap_or(1),
                    b.data.len() / words,
                    if words == 2 {
                        ", each as two words, low first"
                    } else {
                        ""
                    }
                )
            }
            (None, Some(dim), Some(format), Some(size)) => format!(
                "{format} {dim} {} {}: level 0, {} channel values in texel order",
                b.kind.replace('_', " "),
                size_text(size),
                b.data.len()
            ),
            _ => b.kind.to_string(),
        };
        outln!(s, "binding {}.{}{name}: {what}", b.group, b.binding);
        for start in (0..b.data.len()).step_by(8) {
            let row: Vec<String> = (start..(start + 8).min(b.data.len()))
                .map(|i| b.data.show(i))
                .collect();
            outln!(s, "  [{start:>6}] {}", row.join(" "));
        }
    }
    for c in &out.counters {
        outln!(
            s,
            "counter `{}` (binding {}.{} offset {}): {}",
            c.name,
            c.group,
            c.binding,
            c.offset,
            c.value
        );
    }
    s
}
