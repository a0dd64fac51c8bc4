//! The browser suite (`scripts/test-web`; `cargo test` runs it where
//! `scripts/setup-web` installed what it needs, and says why it skipped
//! where not): atomport built for wasm32 and run in headless Chromium's
//! WebGPU (Dawn and Tint on SwiftShader).
//!
//! Natively, on lavapipe, every golden and demo kernel is translated for
//! WebGPU (`--target webgpu`) and run with its own job (its `// run:`
//! annotations); the conformance matrix is run with its cases translated
//! for WebGPU, which must pass here first. In the browser, each kernel's
//! job must leave every binding it writes as lavapipe's run left it (by the
//! kernel's own order-independent rules where it has them), and every
//! conformance case must pass atomport's CPU reference model. Kernels the
//! WebGPU target refuses are listed with the reason. `examples/web/run.mjs`
//! drives the browser and ends with `N passed, M failed`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use atomport::runtime::job::{self, Resources};
use atomport::validate::conformance::{self, RunOptions, Scale, Translations};
use atomport::{
    BackendChoice, Context, ContextOptions, Kernel, Platform, SourceOptions, Translation,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What is missing for the suite, if anything.
fn missing_setup() -> Option<String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Some(format!("no Chromium at {chromium}"));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("no Node.js".into());
    }
    if !root()
        .join("examples/web/node_modules/playwright-core")
        .exists()
    {
        return Some("no playwright-core in examples/web".into());
    }
    let bindgen = Command::new(bindgen()).arg("--version").output();
    let have = bindgen
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap_or_default();
    let want = lock
        .split("name = \"wasm-bindgen\"\nversion = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or("?");
    if have.as_deref() != Some(&format!("wasm-bindgen {want}")) {
        return Some(format!(
            "wasm-bindgen-cli {want} is not installed (found: {})",
            have.unwrap_or_else(|| "none".into())
        ));
    }
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    if !targets.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
    {
        return Some("no wasm32-unknown-unknown target".into());
    }
    None
}

fn bindgen() -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let installed = home.join(".cargo/bin/wasm-bindgen");
    if installed.exists() {
        installed
    } else {
        PathBuf::from("wasm-bindgen")
    }
}

/// The target folder the tests were built in (target/<profile>/deps/<test>).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One kernel's job for the browser: its WebGPU translation, its flags, its
/// rules, and every binding's bytes after lavapipe's run.
fn job_case(ctx: &Context, path: &Path) -> Result<serde_json::Value, String> {
    let rel = path.strip_prefix(root()).unwrap().display().to_string();
    let a = common::corpus_annotations(path)?;
    if let Some((_, why)) = a.not_on.iter().find(|(b, _)| b == "webgpu") {
        return Err(format!("not run: {why}"));
    }
    let kernel = common::corpus_kernel(path, &rel, &a, Platform::WebGpu)
        .map_err(|e| format!("refused: {e}"))?;
    let (resources, groups) = Resources::from_flags(&a.job).map_err(|e| e.to_string())?;
    let out =
        job::run(ctx, &kernel, groups, &resources, false).map_err(|e| format!("lavapipe: {e}"))?;
    // GLSL is translated again in the page, where it must come out the
    // same, with the files it includes given by their text.
    let glsl = (path.extension().is_some_and(|e| e == "comp"))
        .then(|| std::fs::read_to_string(path).unwrap());
    let files = included_files(&kernel);
    Ok(serde_json::json!({
        "name": rel,
        "glsl": glsl,
        "files": files,
        "translation": Translation::of_kernel(&kernel),
        "job": a.job,
        "rules": a.rules.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>(),
        "outputs": out.hex_bindings(),
    }))
}

/// The files a kernel included, by path, with their text.
fn included_files(kernel: &Kernel) -> Vec<(String, String)> {
    kernel
        .includes()
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// Writes target/web/uniformity.json: each shader of tests/uniformity with
/// atomport's verdict on its barriers, and the WGSL Tint is to judge: the
/// WebGPU translation where atomport keeps them (Tint must accept it), the
/// native one, barriers kept, where atomport refuses the shader for
/// WebGPU (Tint must refuse it).
fn write_uniformity(out: &Path) {
    let mut cases = Vec::new();
    for path in common::files_ending(&root().join("tests/uniformity"), "comp") {
        let rel = path.strip_prefix(root()).unwrap().display().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let web = SourceOptions {
            target: Platform::WebGpu,
            ..SourceOptions::named(&rel)
        };
        let (verdict, wgsl) = match Kernel::from_glsl(&src, &web) {
            Ok(k) => ("keep", k.wgsl().to_string()),
            Err(e) => {
                assert!(
                    e.to_string().contains("uniformity analysis"),
                    "{rel}: refused for another reason: {e}"
                );
                let native = Kernel::from_glsl(&src, &SourceOptions::named(&rel))
                    .unwrap_or_else(|e| panic!("{rel}: {e}"));
                ("refuse", native.wgsl().to_string())
            }
        };
        println!("{rel}: atomport's verdict: {verdict}");
        cases.push(serde_json::json!({ "name": rel, "atomport": verdict, "wgsl": wgsl }));
    }
    std::fs::write(out, serde_json::to_string(&cases).unwrap()).unwrap();
}

/// Writes target/web/jobs.json; returns how many kernels the WebGPU target
/// refused, each printed with the reason.
fn write_jobs(ctx: &Context, out: &Path) -> usize {
    let mut cases = Vec::new();
    let mut refused = 0;
    for path in common::corpus() {
        match job_case(ctx, &path) {
            Ok(c) => cases.push(c),
            Err(e) if e.starts_with("refused: ") || e.starts_with("not run: ") => {
                refused += 1;
                println!("{}: {e}", path.strip_prefix(root()).unwrap().display());
            }
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    println!(
        "{} golden and demo kernels translated for WebGPU and run on lavapipe; {refused} refused or not run",
        cases.len()
    );
    cases.push(past_the_invocation_limit());
    cases.push(needing_what_the_browser_lacks());
    std::fs::write(out, serde_json::to_string(&cases).unwrap()).unwrap();
    refused
}

/// A job that must fail in the browser before submission, naming the
/// limit: a 32x32 tile reduction through shared memory (1024 invocations,
/// which share the tile, so the workgroup stays whole) where the adapter
/// allows 256.
fn past_the_invocation_limit() -> serde_json::Value {
    let src = "#version 450
layout(local_size_x = 32, local_size_y = 32) in;
layout(set = 0, binding = 0) buffer Sum { uint total; uint values[]; };
shared uint tile[1024];
void main() {
    tile[gl_LocalInvocationIndex] = values[gl_LocalInvocationIndex];
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint s = 0u;
        for (uint i = 0u; i < 1024u; i++) s += tile[i];
        total = s;
    }
}
";
    let mut opts = SourceOptions::named("limits/tile_32x32.comp");
    opts.target = Platform::WebGpu;
    let kernel = Kernel::from_glsl(src, &opts).unwrap();
    serde_json::json!({
        "name": "limits/tile_32x32.comp",
        "translation": Translation::of_kernel(&kernel),
        "job": ["--groups", "1", "--buffer", "Sum=u32:1025:iota"],
        "rules": [],
        "expect_error": "the invocations per workgroup (32x32x1) is 1024, over the adapter's limit max_compute_invocations_per_workgroup = 256",
    })
}

/// A job that must fail in the browser before submission, naming the
/// feature: 16-bit floats, which SwiftShader's WebGPU does not offer.
fn needing_what_the_browser_lacks() -> serde_json::Value {
    let wgsl = "enable f16;
@group(0) @binding(0) var<storage, read_write> v: array<f16>;
@compute @workgroup_size(1) fn main() { v[0] = v[0] * 2.0h; }
";
    let kernel = Kernel::from_wgsl(wgsl, &SourceOptions::named("features/halves.wgsl")).unwrap();
    serde_json::json!({
        "name": "features/halves.wgsl",
        "translation": Translation::of_kernel(&kernel),
        "job": ["--groups", "1", "--buffer", "v=u32:1"],
        "rules": [],
        "expect_error": "lacks SHADER_F16 (16-bit floats), which this kernel needs",
    })
}

/// Writes target/web/glsl.json: shaders the page's glslang must refuse
/// cleanly, each followed there by a translation that must still work.
/// A syntax error must read as it does natively; a deep expression (which
/// natively translates on a deep stack) and a macro that expands past
/// glslang's memory in a browser must be errors, not a dead page.
fn write_glsl_cases(out: &Path) {
    let syntax = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { int x = ; }\n";
    let native = Kernel::from_glsl(
        syntax,
        &SourceOptions {
            target: Platform::WebGpu,
            ..SourceOptions::named("syntax.comp")
        },
    )
    .unwrap_err()
    .to_string();
    let include =
        "#version 450\n#include \"common.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    let deep =
        std::fs::read_to_string(root().join("tests/fuzz/deep_sum_15000_terms.comp")).unwrap();
    // 2^20 terms from 20 macros, each twice the one before.
    let mut doubling = String::from(
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { float v[]; };\n#define A0 v[0]\n",
    );
    for i in 1..=20 {
        doubling.push_str(&format!("#define A{i} (A{j} + A{j})\n", j = i - 1));
    }
    doubling.push_str("void main() { v[1] = A20; }\n");
    let cases = serde_json::json!([
        { "name": "syntax.comp", "source": syntax, "error": native },
        { "name": "include.comp", "source": include,
          "error_starts": "include.comp:2:1: error: '#include' : a browser has no files to read `common.glsl` from: pass its text in the options' files" },
        { "name": "deep_sum_15000_terms.comp", "source": deep, "error_has": "ran out of stack", "or_translates": true },
        { "name": "doubling_macros.comp", "source": doubling, "error_has": "ran out of memory" },
    ]);
    std::fs::write(out, serde_json::to_string(&cases).unwrap()).unwrap();
}

/// Runs the conformance matrix translated for WebGPU on lavapipe (every
/// case must pass there) and writes its translations.
fn write_conformance(ctx: &Context, out: &Path) {
    let translations = Translations::default();
    let opts = RunOptions {
        target: Platform::WebGpu,
        translations: Some(translations.clone()),
        ..RunOptions::default()
    };
    let cases = conformance::matrix();
    let outcomes = conformance::run_all(ctx, &cases, Scale::Small, &opts, |_| {});
    let failed = common::failures(&outcomes);
    assert!(
        failed.is_empty(),
        "translated for WebGPU, on lavapipe:\n{}",
        failed.join("\n")
    );
    let map = translations.lock().unwrap();
    println!(
        "conformance: {} cases pass on lavapipe translated for WebGPU ({} skipped); {} kernels",
        outcomes.iter().filter(|o| o.passed).count(),
        outcomes.iter().filter(|o| o.skipped.is_some()).count(),
        map.len()
    );
    std::fs::write(out, serde_json::to_string(&*map).unwrap()).unwrap();
}

#[test]
fn golden_demo_and_conformance_kernels_run_in_headless_chromium() {
    if let Some(why) = missing_setup() {
        assert!(
            std::env::var_os("ATOMPORT_WEB_REQUIRED").is_none(),
            "the browser suite cannot run: {why} (scripts/setup-web installs it)"
        );
        println!("skipped: {why} (scripts/setup-web installs what the browser suite needs)");
        return;
    }
    let build = Command::new(root().join("scripts/build-web"))
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .expect("scripts/build-web runs");
    assert!(
        build.status.success(),
        "scripts/build-web: {}",
        common::stderr(&build)
    );
    print!("{}", String::from_utf8_lossy(&build.stdout));
    let web = target_dir().join("web");
    let opts = ContextOptions::default().with_backend(BackendChoice::Vulkan);
    let webgpu =
        opts.adapter_features().expect("a Vulkan adapter") & wgpu::Features::all_webgpu_mask();
    let ctx = Context::new(&opts.with_features(webgpu)).expect("lavapipe opens");
    write_jobs(&ctx, &web.join("jobs.json"));
    write_conformance(&ctx, &web.join("conformance.json"));
    write_uniformity(&web.join("uniformity.json"));
    write_glsl_cases(&web.join("glsl.json"));
    drop(ctx);
    let run = Command::new("node")
        .arg(root().join("examples/web/run.mjs"))
        .args(["suite"])
        .arg(root())
        .env("ATOMPORT_WEB_DIR", &web)
        .output()
        .expect("node runs");
    let out = String::from_utf8_lossy(&run.stdout);
    print!("{out}");
    eprint!("{}", common::stderr(&run));
    let summary = out.lines().last().unwrap_or_default();
    assert!(
        run.status.success() && summary.ends_with(" passed, 0 failed"),
        "the browser suite: {summary}"
    );
    check_in_the_browser(&web);
    check_the_package(&web);
}

/// The package's options for a corpus kernel, where its annotations need
/// only what the package takes (defines, dialect, linked and included
/// files).
fn package_options(opts: &SourceOptions, kernel: &Kernel) -> Option<serde_json::Value> {
    let plain = opts.target_env.is_none()
        && opts.specializations.is_empty()
        && opts.buffer_texture_formats.is_empty()
        && opts.entry.is_none()
        && !opts.native_float_atomics
        && !opts.binding_arrays
        && !opts.images_as_texel_buffers;
    plain.then(|| {
        let files: serde_json::Map<String, serde_json::Value> = included_files(kernel)
            .into_iter()
            .map(|(p, text)| (p, text.into()))
            .collect();
        serde_json::json!({
            "target": "webgpu",
            "dialect": opts.dialect.map(|d| d.name()),
            "defines": opts.defines.iter().map(|(k, v)| match v {
                Some(v) => format!("{k}={v}"),
                None => k.clone(),
            }).collect::<Vec<_>>(),
            "files": files,
            "link": opts.linked,
        })
    })
}

/// A shader whose one `#if` the preprocessor evaluates doubled `levels`
/// times: glslang works at it for far longer than any timeout here, in
/// constant memory (an expression doubled into the code itself runs out
/// of a browser's memory for glslang first).
fn macro_bomb(levels: usize) -> String {
    let mut s = String::from(
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { float v[]; };\n#define A0 1\n",
    );
    for i in 1..=levels {
        s += &format!("#define A{i} (A{j} + A{j})\n", j = i - 1);
    }
    s + &format!("#if A{levels} > 0\nvoid main() {{ v[1] = 1.0; }}\n#endif\n")
}

/// The JavaScript package in Node: every GLSL golden and demo kernel whose
/// options it can express translates as natively for WebGPU (the same
/// translation JSON); `translate` past its timeout rejects (kind `timeout`)
/// and the next translation works; a syntax error comes back with its line
/// and column;
/// `examples/web/translate.mjs` prints what `atomport translate` prints.
fn check_the_package(web: &Path) {
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    let mut skipped = 0;
    for path in common::corpus() {
        if path.extension().is_none_or(|e| e != "comp") {
            continue;
        }
        let rel = path.strip_prefix(root()).unwrap().display().to_string();
        let a = common::corpus_annotations(&path).unwrap();
        let Ok(kernel) = common::corpus_kernel(&path, &rel, &a, Platform::WebGpu) else {
            continue;
        };
        let opts = a.apply(SourceOptions::named(&rel)).unwrap();
        let Some(options) = package_options(&opts, &kernel) else {
            skipped += 1;
            continue;
        };
        cases.push(serde_json::json!({
            "name": rel,
            "source": std::fs::read_to_string(&path).unwrap(),
            "options": options,
        }));
        expected.push(serde_json::to_value(Translation::of_kernel(&kernel)).unwrap());
    }
    // translate() on its worker: a macro bomb (2^26 terms) past its
    // timeout, then a kernel on the fresh worker that replaces it.
    let timed_out = cases.len();
    cases.push(serde_json::json!({
        "name": "bomb.comp",
        "source": macro_bomb(26),
        "options": { "timeout": 2 },
        "async": true,
    }));
    let mut after = cases[0].clone();
    after["async"] = true.into();
    cases.push(after);
    // A pass written without #version, as a build that gives glslang its
    // version writes it: the package takes the version as the CLI does.
    let versionless = "layout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer B { uint b[]; };\nvoid main() { atomicAdd(b[gl_GlobalInvocationID.x % 4u], 1u); }\n";
    let v460 = Kernel::from_glsl(
        versionless,
        &SourceOptions {
            glsl_version: Some(atomport::GlslVersion::parse("460").unwrap()),
            ..SourceOptions::named("versionless.comp")
        },
    )
    .unwrap();
    let at_version = cases.len();
    cases.push(serde_json::json!({
        "name": "versionless.comp",
        "source": versionless,
        "options": { "glslVersion": "460" },
    }));
    cases.push(serde_json::json!({
        "name": "versionless.comp",
        "source": versionless,
        "options": { "glslVersion": "330" },
    }));
    cases.push(serde_json::json!({
        "name": "syntax.comp",
        "source": "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { int x = ; }\n",
        "options": { "target": "webgpu" },
    }));
    cases.push(serde_json::json!({
        "name": "usage.comp",
        "source": "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
        "options": { "target": "gpu" },
    }));
    let input = web.join("package-in.json");
    let output = web.join("package-out.json");
    std::fs::write(&input, serde_json::to_string(&cases).unwrap()).unwrap();
    let start = std::time::Instant::now();
    let run = Command::new("node")
        .arg(root().join("examples/web/run.mjs"))
        .arg("package")
        .arg(root())
        .args([&input, &output])
        .env("ATOMPORT_WEB_DIR", web)
        .output()
        .expect("node runs");
    assert!(run.status.success(), "{}", common::stderr(&run));
    let got: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    assert_eq!(got.len(), cases.len());
    for ((c, want), g) in cases.iter().zip(&expected).zip(&got) {
        assert_eq!(
            &g["translation"], want,
            "{}: the package's translation in Node differs: {g}",
            c["name"]
        );
    }
    // Case `i` was refused with an error of `kind` whose message starts so.
    let refused = |i: usize, kind: &str, starts: &str| {
        let e = &got[i]["error"];
        assert_eq!(e["kind"], kind, "{e}");
        assert!(e["message"].as_str().unwrap().starts_with(starts), "{e}");
    };
    refused(
        timed_out,
        "timeout",
        "translating bomb.comp did not finish within 2 s",
    );
    assert_eq!(
        got[timed_out + 1]["translation"],
        expected[0],
        "the translation after a timeout, on a fresh worker"
    );
    assert_eq!(
        got[at_version]["translation"],
        serde_json::to_value(Translation::of_kernel(&v460)).unwrap(),
        "a versionless shader at the version given"
    );
    refused(
        at_version + 1,
        "usage",
        "glslVersion: `330` is not a GLSL version with compute shaders",
    );
    refused(got.len() - 1, "usage", "target: `gpu`");
    let e = &got[got.len() - 2]["error"];
    assert_eq!(
        (&e["kind"], &e["file"], &e["line"], &e["column"]),
        (
            &serde_json::json!("shader"),
            &serde_json::json!("syntax.comp"),
            &serde_json::json!(3),
            &serde_json::json!(23)
        ),
        "{e}"
    );
    println!(
        "the JavaScript package in Node: {} kernels translate as natively, {skipped} with options it does not take, in {:.1} s",
        expected.len(),
        start.elapsed().as_secs_f64()
    );
    // The command-line example against `atomport translate`.
    let shader = "tests/glsl/include_common_hash_buckets.comp";
    let node = |args: &[&str]| {
        Command::new("node")
            .arg(root().join("examples/web/translate.mjs"))
            .args(args)
            .current_dir(root())
            .env("ATOMPORT_WEB_DIR", web)
            .output()
            .expect("node runs")
    };
    let by_node = node(&[shader, "--target", "webgpu", "-D", "UNUSED=1"]);
    let by_cli =
        common::atomport_command(&["translate", shader, "--target", "webgpu", "-D", "UNUSED=1"])
            .output()
            .unwrap();
    assert!(by_node.status.success(), "{}", common::stderr(&by_node));
    assert_eq!(
        String::from_utf8_lossy(&by_node.stdout),
        String::from_utf8_lossy(&by_cli.stdout)
    );
    // Warnings are worded as the CLI words them, at their line.
    let warned = "tests/vulkan/memory_model_flag.comp";
    let by_node = node(&[warned, "--target", "webgpu"]);
    let by_cli = common::atomport_command(&["translate", warned, "--target", "webgpu"])
        .output()
        .unwrap();
    assert!(by_node.status.success(), "{}", common::stderr(&by_node));
    assert!(
        common::stderr(&by_cli).contains(&format!("{warned}:18: warning: ")),
        "{}",
        common::stderr(&by_cli)
    );
    assert_eq!(common::stderr(&by_node), common::stderr(&by_cli));
    std::fs::write(
        web.join("bad.comp"),
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { int x = ; }\n",
    )
    .unwrap();
    let bad = node(&[&web.join("bad.comp").display().to_string()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        common::stderr(&bad).contains("bad.comp:3:23: error:"),
        "{}",
        common::stderr(&bad)
    );
    assert_eq!(node(&[]).status.code(), Some(2));
    assert_eq!(node(&[shader, "--bogus"]).status.code(), Some(2));
}

/// `atomport check --browser`: kernels checked with generated inputs in
/// Chromium against the same native bytes, each variant a `browser` run
/// judged as the native backends' are.
fn check_in_the_browser(web: &Path) {
    let shaders = [
        "examples/histogram/equalize.comp",
        "examples/histogram/luma.comp",
        "examples/embed/shaders/compact.comp",
        "tests/glsl/atomic_min_max_int.comp",
        "tests/vulkan/partition_histogram_return.comp",
    ];
    let mut args = vec![
        "check",
        "--browser",
        "--json",
        "--no-run-lines",
        "--variants",
        "well-formed,one-group,iota",
    ];
    args.extend(shaders);
    let o = common::atomport_command(&args)
        .env("ATOMPORT_WEB_DIR", web)
        .output()
        .expect("atomport runs");
    assert!(o.status.success(), "{}", common::stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in reports.as_array().unwrap() {
        let name = r["shader"].as_str().unwrap();
        let browser: Vec<&serde_json::Value> = r["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["backend"] == "browser")
            .collect();
        println!("check --browser {name}: {}", r["verdict"]);
        assert_eq!(browser.len(), 3, "{name}: a browser run per variant: {r}");
        for b in browser {
            assert!(
                matches!(
                    b["verdict"].as_str(),
                    Some("exact" | "order-independent" | "unchecked")
                ),
                "{name}: {b}"
            );
        }
        assert!(
            matches!(r["verdict"].as_str(), Some("exact" | "order-independent")),
            "{name}: {r}"
        );
    }
}
