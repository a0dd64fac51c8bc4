//! Every golden shader (tests/glsl, tests/vulkan, tests/spirv) and every
//! demo kernel, run as its author wrote it (the original SPIR-V, natively,
//! through wgpu's passthrough shaders on the Vulkan adapter) and translated
//! on every backend present, with inputs that exercise it: `atomport diff
//! --native` must find every binding equal.
//!
//! Each shader says how it is run, in comments anywhere in it (`;` for the
//! `.spvasm` beside a `.spv`):
//! - `// run: ARGS…` — `diff`'s job arguments (`--groups`, `--buffer`, …),
//!   values without spaces; several lines are joined.
//! - `// compare: NAME=RULE: why` — a binding whose values depend on the
//!   order invocations ran in, compared by an order-independent rule
//!   (`multiset`, `forest`, `labels`), with the reason.
//! - `// no native: why` — the original cannot run through wgpu (an image
//!   shape WebGPU cannot bind, SPIR-V the driver cannot run): the
//!   translations are compared alone.
//! - `// not on BACKEND: why` — a known driver bug on that backend (named,
//!   with its reproduction, in README.md): the others are compared. `not on
//!   webgpu` leaves a kernel out of the browser suite (tests/web.rs): its
//!   results depend on the order invocations ran in past every rule.
//!
//! `// defines:`, `// dialect:` and `// link:` lines are passed on as the
//! golden test reads them.

mod common;

use std::path::{Path, PathBuf};

/// One kernel and how it is run: its annotations, with its defines and
/// dialect as `diff` flags among the job's.
struct Case {
    args: Vec<String>,
    rules: Vec<(String, String)>,
    no_native: Option<String>,
    not_on: Vec<(String, String)>,
}

/// Reads a kernel's annotations; `Err` names what is missing.
fn case(path: &Path) -> Result<Case, String> {
    let a = common::corpus_annotations(path)?;
    let linked = a.linked_from(path);
    let mut c = Case {
        args: [a.job, a.shader].concat(),
        rules: a.rules,
        no_native: a.no_native,
        not_on: a.not_on,
    };
    for d in a.defines {
        c.args.extend(["-D".into(), d]);
    }
    if let Some(d) = a.dialect {
        c.args.extend(["--dialect".into(), d]);
    }
    for file in linked {
        c.args.extend(["--link".into(), file.display().to_string()]);
    }
    if !c.args.iter().any(|a| a == "--groups") {
        return Err("no `// run:` line with --groups".into());
    }
    // Inputs that exercise the kernel: at least one resource or uniform
    // that is not all zeros.
    let given = |flag: &str| {
        c.args
            .windows(2)
            .any(|w| w[0] == flag && !is_zero_spec(flag, &w[1]))
    };
    if !["--buffer", "--image", "--texture", "--uniform", "--counter"]
        .iter()
        .any(|f| given(f))
    {
        return Err("every input is zero".into());
    }
    Ok(c)
}

/// Whether the value a `--buffer`, `--image`, `--texture`, `--uniform`
/// or `--counter` gives is zeros only (`u32:64`, `32x32:r32ui`, `fill=0`).
fn is_zero_spec(flag: &str, spec: &str) -> bool {
    let value = spec.split_once('=').map_or(spec, |(_, v)| v);
    let zeros = |v: &str| {
        v.split([',', '(', ')', '[', ']'])
            .filter(|x| !x.trim().is_empty())
            .all(|x| x.trim().parse::<f64>().is_ok_and(|f| f == 0.0))
    };
    if flag == "--uniform" || flag == "--counter" {
        return zeros(value);
    }
    if value.contains("iota") || value.contains('[') || value.starts_with('@') {
        return false;
    }
    match value.split(':').find_map(|p| p.strip_prefix("fill=")) {
        Some(v) => zeros(v),
        None => true,
    }
}

fn native_available() -> bool {
    atomport::ContextOptions::default()
        .with_backend(atomport::BackendChoice::Vulkan)
        .adapter_features()
        .is_ok_and(|f| f.contains(wgpu::Features::PASSTHROUGH_SHADERS))
}

#[test]
fn every_golden_and_demo_kernel_agrees_with_its_native_run() {
    agree_with_native_runs(false);
}

/// The same, translated for WebGPU (`--target webgpu`) and run on the
/// native backends: the browser's translation, proven on the adapters here.
/// A kernel the target refuses (a native-only feature) is listed; one whose
/// subgroups run as subgroups of one invocation is compared across the
/// backends only (the original runs real subgroups).
#[test]
fn every_golden_and_demo_kernel_translated_for_webgpu_agrees_with_its_native_run() {
    agree_with_native_runs(true);
}

/// The kernel of `path` translated for `target`, read as its annotations
/// say; `Err` with why the target refuses it.
fn translated(
    path: &Path,
    rel: &str,
    target: atomport::Platform,
) -> Result<atomport::Kernel, String> {
    let a = common::corpus_annotations(path)?;
    common::corpus_kernel(path, rel, &a, target).map_err(|e| e.to_string())
}

/// Whether the adapter of `backend` has every feature `kernel` needs.
fn runs_on(backend: &str, kernel: &atomport::Kernel) -> bool {
    backend
        .parse::<atomport::BackendChoice>()
        .ok()
        .and_then(|b| {
            atomport::ContextOptions::default()
                .with_backend(b)
                .adapter_features()
                .ok()
        })
        .is_some_and(|f| f.contains(kernel.required_features()))
}

fn agree_with_native_runs(web: bool) {
    let native = native_available();
    if !native {
        println!("no Vulkan adapter with PASSTHROUGH_SHADERS: the translations are compared alone");
    }
    let backends: Vec<&str> = common::backend_names();
    let corpus = common::corpus();
    assert!(
        corpus.len() >= 80,
        "the corpus has {} kernels",
        corpus.len()
    );
    let mut failures = Vec::new();
    let (mut exact, mut by_rule, mut translated_only) = (0, 0, 0);
    let (mut driver_findings, mut refused) = (0, 0);
    for path in &corpus {
        let rel = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        let mut c = match case(path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let target = if web {
            atomport::Platform::WebGpu
        } else {
            atomport::Platform::Native
        };
        let kernel = match translated(path, &rel, target) {
            Ok(k) => k,
            Err(e) if web => {
                refused += 1;
                println!("{rel}: refused for WebGPU: {e}");
                continue;
            }
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let one_lane = kernel
            .warnings()
            .iter()
            .any(|w| w.message.contains("subgroups of one invocation"));
        if web {
            c.args.extend(["--target".into(), "webgpu".into()]);
        }
        let mut runs_native = native && c.no_native.is_none() && !one_lane;
        // Without the native run, `diff` is given the backends: those whose
        // adapter lacks what the kernel needs are left out here.
        let here: Vec<&str> = backends
            .iter()
            .copied()
            .filter(|b| !c.not_on.iter().any(|(n, _)| n == b))
            .filter(|b| {
                let ok = c.no_native.is_none() || runs_on(b, &kernel);
                if !ok {
                    println!("{rel}: not compared on {b}: its adapter lacks what the kernel needs");
                }
                ok
            })
            .collect();
        for (b, why) in &c.not_on {
            println!("{rel}: not compared on {b}: {why}");
        }
        let diff = |runs_native: bool| {
            let mut args: Vec<String> = vec!["diff".into(), rel.clone(), "--json".into()];
            if runs_native && here.len() == backends.len() {
                args.push("--native".into());
            } else if usize::from(runs_native) + here.len() >= 2 {
                let mut sides: Vec<&str> = if runs_native { vec!["native"] } else { vec![] };
                sides.extend(&here);
                args.extend(["--backends".into(), sides.join(",")]);
            } else {
                return None;
            }
            for (rule, _) in &c.rules {
                args.extend(["--compare".into(), rule.clone()]);
            }
            args.extend(c.args.iter().cloned());
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            Some(common::atomport(&argv))
        };
        let Some(mut o) = diff(runs_native) else {
            println!("{rel}: fewer than two runs here: nothing to compare");
            continue;
        };
        // lavapipe's LLVM aborts the process compiling some originals with
        // doubles on CPUs without AVX-512: a driver finding; the
        // translations are still compared with each other.
        if runs_native && o.status.code().is_none() && common::stderr(&o).contains("LLVM ERROR") {
            println!(
                "{rel}: driver finding: the Vulkan driver aborts compiling the original; translations compared"
            );
            driver_findings += 1;
            runs_native = false;
            match diff(false) {
                // Without the native run, the other backends may lack what
                // it needs (GL has no doubles): the translation still runs.
                Some(again) if common::stderr(&again).contains(" lacks ") => {
                    let mut args = vec!["run", rel.as_str(), "--backend", "vulkan"];
                    args.extend(c.args.iter().map(String::as_str));
                    let run = common::atomport(&args);
                    if !run.status.success() {
                        failures.push(format!("{rel}: translated: {}", common::stderr(&run)));
                    }
                    continue;
                }
                Some(again) => o = again,
                None => continue,
            }
        }
        let out = String::from_utf8_lossy(&o.stdout);
        if !o.status.success() {
            failures.push(format!(
                "{rel}: exit {:?}\n{}{}",
                o.status.code(),
                common::stderr(&o),
                out
            ));
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["equal"], true, "{rel}: {v}");
        // Every backend present ran it, but those that lack a feature it
        // needs (64-bit atomics, subgroups on GL), which `diff` names.
        let runs = v["runs"].as_array().unwrap().len();
        let skipped = common::stderr(&o).matches("not compared: ").count();
        assert_eq!(
            runs + skipped,
            here.len() + usize::from(runs_native),
            "{rel}: {v}"
        );
        assert!(runs >= 2, "{rel}: {v}");
        match (&c.no_native, c.rules.is_empty()) {
            _ if one_lane => {
                translated_only += 1;
                println!(
                    "{rel}: translations agree; subgroups of one invocation, not the original's"
                );
            }
            _ if native && !runs_native && c.no_native.is_none() => {}
            (Some(why), _) => {
                translated_only += 1;
                println!("{rel}: translations agree; no native run: {why}");
            }
            (None, true) => exact += 1,
            (None, false) => {
                by_rule += 1;
                for (rule, why) in &c.rules {
                    println!("{rel}: {rule}: {why}");
                }
            }
        }
    }
    println!(
        "{} kernels{}: {exact} agree with the native run exactly, {by_rule} by an order-independent rule, {translated_only} without a native run (translations compared), {driver_findings} whose original the driver aborts compiling (translations compared), {refused} refused",
        corpus.len(),
        if web { " translated for WebGPU" } else { "" }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn zero_specs_are_told_apart() {
    for (flag, zero) in [
        ("--buffer", "Out=u32:64"),
        ("--buffer", "0=f32:16:fill=0"),
        ("--image", "img=8x8"),
        ("--image", "img=8x8:r32ui"),
        ("--texture", "t=4x4:fill=0,0,0,0"),
        ("--uniform", "u_count=0"),
    ] {
        assert!(is_zero_spec(flag, zero), "{zero}");
    }
    for (flag, not) in [
        ("--buffer", "In=u32:64:iota"),
        ("--buffer", "0=u32:[1,2]"),
        ("--buffer", "b=@data.bin"),
        ("--image", "img=8x8:r32ui:fill=3"),
        ("--uniform", "u=5"),
        ("--uniform", "m=mat4(1.0)"),
    ] {
        assert!(!is_zero_spec(flag, not), "{not}");
    }
}

/// Writes `text` as `name` in a fresh folder of this test process.
fn shader_file(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch().join(format!("atomport-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// An append buffer: which slot each invocation gets depends on the order
/// they ran in, so the items compare as a multiset; the count exactly.
const APPEND: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) buffer Kept { uint count; uint items[]; } kept;
void main() {
    uint v = values[gl_GlobalInvocationID.x];
    if (v % 3u == 0u) {
        kept.items[atomicAdd(kept.count, 1u)] = v * 7u;
    }
}
";

#[test]
fn diff_native_compares_by_the_rule_named() {
    if !native_available() {
        println!("skipping: no Vulkan adapter with PASSTHROUGH_SHADERS");
        return;
    }
    let p = shader_file("append.comp", APPEND);
    let path = p.to_str().unwrap();
    let job = [
        "--groups",
        "8",
        "--buffer",
        "Values=u32:512:iota",
        "--buffer",
        "Kept=u32:200",
    ];
    let mut args = vec![
        "diff",
        path,
        "--native",
        "--compare",
        "kept=multiset",
        "--json",
    ];
    args.extend(job);
    let v = common::run_json(&args);
    assert_eq!(v["equal"], true, "{v}");
    assert_eq!(v["reference"], "native");
    assert_eq!(v["rules"][0]["binding"], "0.1");
    assert_eq!(v["rules"][0]["comparison"], "multiset");
    assert_eq!(
        v["comparisons"].as_array().unwrap().len(),
        common::backend_names().len()
    );
    // A rule must name a binding the kernel has.
    let mut args = vec!["diff", path, "--native", "--compare", "nope=multiset"];
    args.extend(job);
    let o = common::atomport(&args);
    common::assert_fails(
        &o,
        2,
        "--compare nope: the kernel has no binding named `nope`",
    );
    let mut args = vec!["diff", path, "--native", "--compare", "kept=sorted"];
    args.extend(job);
    let o = common::atomport(&args);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("expected BINDING=RULE"));
}

#[test]
fn native_runs_that_cannot_be_say_why() {
    // WGSL has no original to run.
    let o = common::atomport(&[
        "diff",
        "wgsl/histogram.wgsl",
        "--native",
        "--groups",
        "1",
        "--buffer",
        "0=u32:64:iota",
        "--buffer",
        "1=u32:256",
    ]);
    common::assert_fails(&o, 2, "--native: wgsl/histogram.wgsl is WGSL");
    // Native alone is nothing to compare with.
    let o = common::atomport(&[
        "diff",
        "wgsl/histogram.wgsl",
        "--backends",
        "native",
        "--groups",
        "1",
    ]);
    common::assert_fails(&o, 2, "expected two backends");
    // `validate --native` on GL: the feature is named, status 1.
    if common::backend_names().contains(&"gl") {
        let o = common::atomport(&[
            "validate",
            "--native",
            "--backend",
            "gl",
            "--filter",
            "atomicAdd/uint/member",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
        let err = common::stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("lacks PASSTHROUGH_SHADERS"), "{err}");
    }
    if !native_available() {
        return;
    }
    // Storage images of shapes WebGPU binds no storage texture of run
    // natively as shapes it does, addressed alike: a cube as the 2D array
    // of its faces, a 1D array as the 2D image of its layers as rows, a
    // buffer image (and a buffer texture) as a 1D image. Each texel gets a
    // value of its own address, so texels moved would differ.
    for (name, text, images) in [
        (
            "cube.comp",
            "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimageCube faces;
void main() {
    for (int f = 0; f < 6; f++) {
        imageAtomicAdd(faces, ivec3(gl_GlobalInvocationID.xy, f), uint(f + 1) * uint(imageSize(faces).x));
    }
}
",
            &["faces=4x4:fill=10"][..],
        ),
        (
            "rows.comp",
            "#version 450
layout(local_size_x = 4, local_size_y = 6) in;
layout(set = 0, binding = 0, r32ui) uniform uimage1DArray rows;
layout(set = 0, binding = 1, rgba8) uniform writeonly image1DArray tint;
void main() {
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(rows);
    uint old = imageAtomicMax(rows, ivec2(size.x - 1 - at.x, at.y), uint(at.x + 16 * at.y));
    imageStore(tint, at, vec4(float(old) / 255.0, float(size.x) / 255.0, float(size.y) / 255.0, 1.0));
}
",
            &["rows=4x6:fill=3", "tint=4x6"][..],
        ),
        (
            "texels.comp",
            "#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform usamplerBuffer ids;
layout(set = 0, binding = 1, rgba32f) uniform writeonly imageBuffer moved;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer counts;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    uint id = texelFetch(ids, i).x + uint(i);
    imageStore(moved, i, vec4(id, textureSize(ids), imageSize(moved), imageSize(counts)));
    imageAtomicAdd(counts, (i * 5) % imageSize(counts), id);
}
",
            &["ids=16:fill=2", "moved=16", "counts=8:fill=1"][..],
        ),
    ] {
        let p = shader_file(name, text);
        let mut args = vec![
            "diff",
            p.to_str().unwrap(),
            "--native",
            "--json",
            "--groups",
            "1",
        ];
        for i in images {
            args.extend(["--image", i]);
        }
        let o = common::atomport(&args);
        assert!(o.status.success(), "{name}: {}", common::stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["equal"], true, "{name}: {v}");
        assert_eq!(v["reference"], "native", "{name}");
    }
    // A multisample storage image: WebGPU binds none. Refused by
    // name, or with --native-optional the translations are compared alone.
    let p = shader_file(
        "samples.comp",
        "#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS faces;
void main() {
    for (int s = 0; s < 4; s++) {
        imageAtomicAdd(faces, ivec2(gl_GlobalInvocationID.x, 0), s, uint(s + 1));
    }
}
",
    );
    let path = p.to_str().unwrap();
    let job = ["--groups", "1", "--image", "faces=4x1:samples=4:fill=10"];
    let mut args = vec!["diff", path, "--native"];
    args.extend(job);
    let o = common::atomport(&args);
    common::assert_fails(&o, 1, "no native run: image `faces`");
    let mut args = vec!["diff", path, "--native", "--native-optional", "--json"];
    args.extend(job);
    let o = common::atomport(&args);
    let err = common::stderr(&o);
    if common::backend_names().len() >= 2 {
        assert!(o.status.success(), "{err}");
        assert!(err.contains("note: no native run: image `faces`"), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["equal"], true);
        assert!(
            v["runs"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["run"] != "native")
        );
    } else {
        assert_eq!(o.status.code(), Some(1), "{err}");
    }
}

/// `validate --native` runs each case's original SPIR-V (not a translation
/// kept from the translated run, which has none) against the reference
/// model, image shapes WebGPU binds no storage texture of included.
#[test]
fn validate_native_runs_every_original() {
    if !native_available() {
        return;
    }
    let o = common::atomport(&[
        "validate",
        "--native",
        "--backend",
        "vulkan",
        "--small",
        "--json",
        "--filter",
        "imageAtomicCompSwap/uint/",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["driver_findings"], 0, "{v}");
    for shape in ["cube", "cubearray", "buffer", "1darray", "2d"] {
        let native = v["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["backend"] == "native"
                    && c["passed"] == true
                    && c["name"] == format!("imageAtomicCompSwap/uint/{shape}").as_str()
            })
            .count();
        assert_eq!(native, 1, "{shape}: {v}");
    }
}

#[test]
fn a_difference_names_the_binding_and_its_first_words() {
    if !native_available() {
        println!("skipping: no Vulkan adapter with PASSTHROUGH_SHADERS");
        return;
    }
    // Which of +0 and -0 float atomicMax keeps is left open by SPIR-V:
    // atomport's translation orders -0 below +0 and keeps +0, lavapipe
    // natively keeps -0. A real difference, to see how one is reported.
    let p = shader_file(
        "signed_zero.comp",
        "#version 450
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Peaks { float peaks[]; };
void main() {
    atomicMax(peaks[gl_GlobalInvocationID.x], -0.0);
}
",
    );
    let o = common::atomport(&[
        "diff",
        p.to_str().unwrap(),
        "--backends",
        "native,vulkan",
        "--groups",
        "4",
        "--buffer",
        "Peaks=f32:[0,1,-1,0]",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let lavapipe = out.lines().next().is_some_and(|l| l.contains("llvmpipe"));
    if !lavapipe && o.status.code() == Some(0) {
        println!("this adapter keeps +0 natively too: {out}");
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{}{out}", common::stderr(&o));
    let expected = "vulkan against native: binding 0.0 `Peaks` (exact): 2 element(s) differ
  [0] native=-0 vulkan=0
  [3] native=-0 vulkan=0
1 of 1 run(s) differ from native";
    assert!(out.ends_with(&format!("{expected}\n")), "{out}");
}
