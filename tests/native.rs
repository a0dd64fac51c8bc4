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
//!   shape WebGPU cannot bind): the translations are compared alone.
//!
//! `// defines:` and `// dialect:` lines are passed on as the golden test
//! reads them.

mod common;

use std::path::{Path, PathBuf};

/// One kernel and how it is run.
struct Case {
    path: PathBuf,
    args: Vec<String>,
    rules: Vec<(String, String)>,
    no_native: Option<String>,
}

/// The corpus: golden shaders and demo kernels.
fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

/// Reads a kernel's annotations; `Err` names what is missing.
fn case(path: &Path) -> Result<Case, String> {
    let text_path = if path.extension().is_some_and(|e| e == "spv") {
        path.with_extension("spvasm")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&text_path).map_err(|e| e.to_string())?;
    let mut c = Case {
        path: path.to_path_buf(),
        args: Vec::new(),
        rules: Vec::new(),
        no_native: None,
    };
    for line in text.lines() {
        let line = line.trim();
        let Some(comment) = line.strip_prefix("//").or_else(|| line.strip_prefix(';')) else {
            continue;
        };
        let comment = comment.trim();
        if let Some(args) = comment.strip_prefix("run:") {
            c.args.extend(args.split_whitespace().map(String::from));
        } else if let Some(rule) = comment.strip_prefix("compare:") {
            let (rule, why) = rule
                .split_once(": ")
                .ok_or_else(|| format!("`{line}`: a compare line says why after `: `"))?;
            c.rules
                .push((rule.trim().to_string(), why.trim().to_string()));
        } else if let Some(why) = comment.strip_prefix("no native:") {
            c.no_native = Some(why.trim().to_string());
        } else if let Some(defs) = comment.strip_prefix("defines:") {
            for d in defs.split_whitespace() {
                c.args.extend(["-D".into(), d.into()]);
            }
        } else if let Some(d) = comment.strip_prefix("dialect:") {
            c.args.extend(["--dialect".into(), d.trim().into()]);
        }
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
    let native = native_available();
    if !native {
        println!("no Vulkan adapter with PASSTHROUGH_SHADERS: the translations are compared alone");
    }
    let backends: Vec<&str> = common::backend_names();
    let corpus = corpus();
    assert!(
        corpus.len() >= 80,
        "the corpus has {} kernels",
        corpus.len()
    );
    let mut failures = Vec::new();
    let (mut exact, mut by_rule, mut translated_only) = (0, 0, 0);
    for path in &corpus {
        let rel = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        let c = match case(path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let mut args: Vec<String> = vec!["diff".into(), rel.clone(), "--json".into()];
        let runs_native = native && c.no_native.is_none();
        if runs_native {
            args.push("--native".into());
        } else if backends.len() >= 2 {
            args.extend(["--backends".into(), backends.join(",")]);
        } else {
            println!("{rel}: one backend and no native run: nothing to compare");
            continue;
        }
        for (rule, _) in &c.rules {
            args.extend(["--compare".into(), rule.clone()]);
        }
        args.extend(c.args.iter().cloned());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = common::atomport(&argv);
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
        let runs = v["runs"].as_array().unwrap().len();
        assert_eq!(
            runs,
            backends.len() + usize::from(runs_native),
            "{rel}: {v}"
        );
        match (&c.no_native, c.rules.is_empty()) {
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
        "{} kernels: {exact} agree with the native run exactly, {by_rule} by an order-independent rule, {translated_only} without a native run (translations compared)",
        corpus.len()
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
