//! Shared test helpers: one context per backend present, skipping a missing
//! one with a printed reason, as the conformance suites of the field do.
#![allow(dead_code)]

use std::process::{Command, Output};
use std::time::Duration;

use atomport::{BackendChoice, Context, ContextOptions, Kernel, SourceOptions};

/// Opens a context on every backend present (Vulkan and GL here; Metal and
/// DX12 where they exist), printing which adapters the test runs on.
/// Fails when there is no adapter at all, so that a machine without one
/// cannot pass by skipping everything.
pub fn contexts(features: wgpu::Features) -> Vec<Context> {
    contexts_with_timeout(features, Duration::from_secs(60))
}

/// [`contexts`] with a given timeout.
pub fn contexts_with_timeout(features: wgpu::Features, timeout: Duration) -> Vec<Context> {
    let mut out = Vec::new();
    let mut reasons = Vec::new();
    for b in BackendChoice::SINGLE {
        let opts = ContextOptions::default()
            .with_backend(b)
            .with_features(features)
            .with_timeout(timeout);
        match Context::new(&opts) {
            Ok(ctx) => {
                println!("running on {} ({})", ctx.adapter_name(), ctx.backend_name());
                out.push(ctx);
            }
            Err(e) => {
                println!("skipping {}: {e}", b.name());
                reasons.push(format!("{}: {e}", b.name()));
            }
        }
    }
    assert!(
        !out.is_empty(),
        "no adapter on any backend ({}); install one with `apt-get install mesa-vulkan-drivers`",
        reasons.join("; ")
    );
    out
}

/// How many workgroups a spin-lock test dispatches on `ctx`: `groups`, or
/// one on GL. llvmpipe's GL stops a waiter after 65 535 loop iterations,
/// which a waiter in another workgroup uses up whenever the machine
/// deschedules the holder's thread; one workgroup's lanes take turns within
/// one thread, which no scheduling changes.
pub fn spin_lock_groups(ctx: &Context, groups: u32) -> u32 {
    if ctx.backend_name() == "gl" {
        1
    } else {
        groups
    }
}

/// [`contexts`] asking each adapter for those of `wanted` it has (so that
/// cases needing a feature run where it exists and are skipped elsewhere).
pub fn contexts_with_available(wanted: wgpu::Features) -> Vec<Context> {
    let mut out = Vec::new();
    for b in BackendChoice::SINGLE {
        let opts = ContextOptions::default()
            .with_backend(b)
            .with_timeout(Duration::from_secs(60));
        let Ok(have) = opts.adapter_features() else {
            println!("skipping {}: no adapter", b.name());
            continue;
        };
        match Context::new(&opts.with_features(wanted & have)) {
            Ok(ctx) => {
                println!("running on {} ({})", ctx.adapter_name(), ctx.backend_name());
                out.push(ctx);
            }
            Err(e) => println!("skipping {}: {e}", b.name()),
        }
    }
    assert!(!out.is_empty(), "no adapter on any backend");
    out
}

/// A 4×4 rgba8 texture that can only be sampled, for tests of wrapped
/// caller textures.
pub fn sampled_only_descriptor() -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    }
}

/// The names of the backends present, for CLI tests.
pub fn backend_names() -> Vec<&'static str> {
    let names: Vec<&'static str> = BackendChoice::SINGLE
        .iter()
        .filter(|b| !atomport::adapters(**b).is_empty())
        .map(|b| b.name())
        .collect();
    assert!(!names.is_empty(), "no adapter on any backend");
    names
}

/// A kernel from WGSL text, panicking with the error text on failure.
pub fn wgsl(src: &str) -> Kernel {
    Kernel::from_wgsl(src, &SourceOptions::named("test.wgsl")).unwrap_or_else(|e| panic!("{e}"))
}

/// Compiles GLSL test source, panicking with the error and the source.
pub fn glsl(src: &str) -> Kernel {
    Kernel::from_glsl(src, &SourceOptions::named("test.comp"))
        .unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

/// The `atomport` binary of the CLI package (cli/), built in this test's
/// profile by cargo once per test process: a no-op when `cargo test` at the
/// workspace root built it already, and never a stale binary when only the
/// library's tests were asked for. `ATOMPORT_EXE` names a prebuilt one
/// instead, for a machine without cargo (`scripts/device-check` run from
/// a bundle).
pub fn atomport_exe() -> &'static std::path::Path {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        if let Some(exe) = std::env::var_os("ATOMPORT_EXE") {
            return exe.into();
        }
        // target/<profile>/deps/<test binary>
        let deps = std::env::current_exe().unwrap();
        let profile_dir = deps.parent().unwrap().parent().unwrap();
        let target_dir = profile_dir.parent().unwrap();
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build
            .args([
                "build",
                "--quiet",
                "-p",
                "atomport-cli",
                "--bin",
                "atomport",
            ])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile_dir.file_name().is_some_and(|p| p == "release") {
            build.arg("--release");
        }
        let o = build.output().expect("cargo runs");
        assert!(
            o.status.success(),
            "building the atomport CLI: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        profile_dir.join(format!("atomport{}", std::env::consts::EXE_SUFFIX))
    })
}

/// The real `atomport` binary with `args`, in the crate's folder, for a
/// test that sets its own streams or environment.
pub fn atomport_command(args: &[&str]) -> Command {
    let mut c = Command::new(atomport_exe());
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs the real `atomport` binary in the crate's folder.
pub fn atomport(args: &[&str]) -> Output {
    atomport_command(args)
        .output()
        .expect("the atomport binary runs")
}

/// Runs the binary with `args` (which make it print JSON), asserts that it
/// succeeded and parses its stdout.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let o = atomport(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// The binding named `name` of a run's JSON (`run --json`).
pub fn binding<'v>(v: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
    v["bindings"]
        .as_array()
        .and_then(|b| b.iter().find(|x| x["name"] == name))
        .unwrap_or_else(|| panic!("no binding `{name}` in {v}"))
}

/// A command's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit status, stdout empty, and stderr containing `needle`: starting
/// `atomport:` (a shader's diagnostics may take several lines), or clap's
/// usage message for a flag it refused.
pub fn assert_fails(o: &Output, code: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(
        o.stdout.is_empty(),
        "nothing on stdout on failure: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(err.contains(needle), "stderr `{err}` lacks `{needle}`");
    if !err.starts_with("error: ") {
        assert!(err.starts_with("atomport: "), "{err}");
    }
}

/// [`assert_fails`], and the message is exactly one line.
pub fn assert_fails_in_one_line(o: &Output, code: i32, needle: &str) {
    assert_fails(o, code, needle);
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "one line on stderr, not `{err}`");
}

/// Where tests write their files: cargo's scratch folder for integration
/// tests (`target/tmp`), which `cargo clean` empties, never the system's
/// temporary folder.
pub fn scratch() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Writes `text` to `name` in a folder of this test process's own (named
/// by `tag`), returning the path as a string for the CLI.
pub fn temp_file(tag: &str, name: &str, text: &str) -> String {
    let dir = scratch().join(format!("atomport-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The DX12 kit's folder (`scripts/setup-dx12`), if it is installed.
pub fn dx12_kit() -> Result<std::path::PathBuf, String> {
    let kit = kit_folder()?;
    if kit.join("ready").is_file() && kit.join("env.sh").is_file() {
        Ok(kit)
    } else {
        Err(format!(
            "no DX12 kit at {} (install it with scripts/setup-dx12)",
            kit.display()
        ))
    }
}

/// Where scripts/setup-dx12 puts its kit (and, with `--mesa`, Mesa 25's
/// lavapipe alone).
fn kit_folder() -> Result<std::path::PathBuf, String> {
    Ok(match std::env::var_os("ATOMPORT_DX12_KIT") {
        Some(k) => std::path::PathBuf::from(k),
        None => std::path::PathBuf::from(std::env::var_os("HOME").ok_or("no HOME")?)
            .join(".cache/atomport-dx12"),
    })
}

/// The Vulkan driver file of Mesa 25's lavapipe, which has the descriptor
/// indexing that Debian 12's Mesa 22.3 lacks: a Vulkan adapter with
/// binding arrays, chosen with `VK_DRIVER_FILES`. scripts/setup-dx12 puts
/// it in the DX12 kit (`--mesa` alone, as the README's test command does).
/// One that needs the backports' libraries beside it (`with-deps`) runs
/// only under the kit's env.sh, so is not used here.
pub fn descriptor_indexing_icd() -> Result<String, String> {
    let mesa = kit_folder()?.join("mesa");
    let icd = mesa.join("lvp_icd.json");
    if mesa.join("with-deps").exists() {
        Err(format!(
            "{} needs the libraries unpacked beside it (LD_LIBRARY_PATH)",
            icd.display()
        ))
    } else if icd.is_file() {
        Ok(icd.display().to_string())
    } else {
        Err(format!(
            "no {} (scripts/setup-dx12 --mesa unpacks it)",
            icd.display()
        ))
    }
}

/// Mesa 25's lavapipe driver file ([`descriptor_indexing_icd`]), or `None`
/// after printing why the test skips it.
pub fn lavapipe_25_or_skip() -> Option<String> {
    descriptor_indexing_icd()
        .map_err(|why| println!("skipping Mesa 25's lavapipe: {why}"))
        .ok()
}

/// `atomport` with Mesa 25's lavapipe (driver file `icd`) as its Vulkan
/// adapter.
pub fn on_lavapipe_25(icd: &str, args: &[&str]) -> Output {
    atomport_command(args)
        .env("VK_DRIVER_FILES", icd)
        .output()
        .unwrap()
}

/// [`on_lavapipe_25`] of a `--json` command: its report, or a panic with
/// stderr.
pub fn json_on_lavapipe_25(icd: &str, args: &[&str]) -> serde_json::Value {
    let o = on_lavapipe_25(icd, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `k` dispatched over buffers made from `inputs` (bound by name) on
/// `ctx`: translated, and where the adapter can, its original SPIR-V run
/// natively. Each run's name and every binding's bytes after it.
pub fn translated_and_native(
    ctx: &Context,
    k: &Kernel,
    groups: [u32; 3],
    inputs: &[(&str, Vec<u8>)],
) -> Vec<(String, Vec<Vec<u8>>)> {
    translated_and_native_where(ctx, k, groups, inputs, true)
}

/// [`translated_and_native`], with the native run only where `native` (a
/// driver known to abort compiling the original is spared it).
pub fn translated_and_native_where(
    ctx: &Context,
    k: &Kernel,
    groups: [u32; 3],
    inputs: &[(&str, Vec<u8>)],
    native: bool,
) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut out = Vec::new();
    let wanted = native;
    for native in [false, true] {
        if native && (!wanted || !ctx.has_native()) {
            continue;
        }
        let buffers: Vec<atomport::Buffer> = inputs
            .iter()
            .map(|(_, b)| atomport::Buffer::from_bytes(ctx, b).unwrap())
            .collect();
        let binds: Vec<atomport::Bind> = inputs
            .iter()
            .zip(&buffers)
            .map(|((n, _), b)| atomport::Bind::named(n, b))
            .collect();
        let backend = format!("{} (native: {native})", ctx.backend_name());
        let read = if native {
            ctx.dispatch_and_read_native(k, groups, &binds)
        } else {
            ctx.dispatch_and_read(k, groups, &binds)
        }
        .unwrap_or_else(|e| panic!("{backend}: {e}"));
        out.push((backend, read));
    }
    out
}

/// Whether the Vulkan driver compiles the original SPIR-V of `source` (GLSL)
/// without aborting the process, tried in a child (`atomport diff --backends
/// native,vulkan` with `args`): lavapipe's LLVM 15 aborts on some 64-bit
/// float shaders on CPUs without AVX-512 ("LLVM ERROR: Cannot select"), which
/// no error handling can catch. Prints the finding when it does.
pub fn native_compiles_apart(tag: &str, source: &str, args: &[&str]) -> bool {
    let file = temp_file(tag, &format!("{tag}.comp"), source);
    let mut all = vec!["diff", file.as_str(), "--backends", "native,vulkan"];
    all.extend(args);
    let o = atomport(&all);
    let err = stderr(&o);
    if o.status.code().is_none() && err.contains("LLVM ERROR") {
        let first = err
            .lines()
            .find(|l| l.contains("LLVM ERROR"))
            .unwrap_or_default();
        println!(
            "driver finding: the Vulkan driver aborts compiling the original of {tag} ({first}); its native run is left out"
        );
        return false;
    }
    true
}

/// The corpus every runner runs: golden shaders (tests/glsl, tests/vulkan,
/// tests/spirv) and demo kernels, each with its annotations.
pub fn corpus() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for (dir, ext) in [
        ("tests/glsl", "comp"),
        ("tests/vulkan", "comp"),
        ("tests/spirv", "spv"),
        ("examples/components", "comp"),
        ("examples/histogram", "comp"),
        ("examples/oit", "comp"),
        ("examples/raster", "comp"),
        ("examples/embed/shaders", "comp"),
    ] {
        out.extend(files_ending(&root.join(dir), ext));
    }
    out
}

/// A corpus kernel's annotations: its own text's, or for a `.spv` its
/// `.spvasm`'s.
pub fn corpus_annotations(
    path: &std::path::Path,
) -> Result<atomport::runtime::job::Annotations, String> {
    let text_path = if path.extension().is_some_and(|e| e == "spv") {
        path.with_extension("spvasm")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&text_path).map_err(|e| e.to_string())?;
    atomport::runtime::job::Annotations::parse(&text)
}

/// A corpus kernel (`rel` its name in messages) translated for `target`,
/// read as its annotations `a` say.
pub fn corpus_kernel(
    path: &std::path::Path,
    rel: &str,
    a: &atomport::runtime::job::Annotations,
    target: atomport::Platform,
) -> atomport::Result<Kernel> {
    let mut opts = a.apply(SourceOptions::named(rel))?;
    opts.target = target;
    if path.extension().is_some_and(|e| e == "spv") {
        let bytes = std::fs::read(path).map_err(|e| atomport::Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Kernel::from_spirv(&atomport::spirv_words(&bytes, rel)?, &opts)
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| atomport::Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Kernel::from_glsl(&text, &opts)
    }
}

/// The conformance cases that failed, each as `NAME: DETAIL`.
pub fn failures(outcomes: &[atomport::validate::conformance::Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| !o.passed && o.skipped.is_none())
        .map(|o| format!("{}: {}", o.name, o.detail))
        .collect()
}

/// The files in `dir` with extension `ext`, sorted.
pub fn files_ending(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}
