//! Golden files, as naga tests its back ends: every shader under tests/glsl/
//! is translated and compared with its `.wgsl` (and its binding map with its
//! `.bindings.json`); every shader under tests/glsl/errors/ must fail with
//! the text in its `.err`. Each golden WGSL is parsed and validated again by
//! naga here. Regenerate with `UPDATE_GOLDEN=1 cargo test --release --test golden`;
//! never edit the outputs by hand.
//!
//! A shader's `// defines: NAME=VALUE …` lines pass `-D`s, `// dialect:
//! vulkan|opengl` chooses the dialect and `// link: FILE …` links further
//! compute shaders with it (see `atomport::Annotations`).

use std::path::{Path, PathBuf};

use atomport::{Kernel, SourceOptions, Translation};

fn shaders(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "comp"))
        .collect();
    v.sort();
    v
}

fn options(path: &Path, source: &str) -> SourceOptions {
    // Names relative to the crate, so that golden error texts do not depend on the checkout.
    let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut a = atomport::Annotations::parse(source).expect("annotations");
    // The golden WGSL is the shader's own: unspecialized, for the default
    // target environment, whatever values its runs give.
    a.shader.clear();
    a.apply(SourceOptions::named(rel.display().to_string()))
        .expect("annotations that apply")
}

fn update() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

/// Compares `actual` with the golden file, or rewrites it under UPDATE_GOLDEN=1.
fn check(golden: &Path, actual: &str, failures: &mut Vec<String>) {
    if update() {
        std::fs::write(golden, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(golden) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| "length".to_string(), |l| format!("line {}", l + 1));
            failures.push(format!("{} differs at {line}", golden.display()));
        }
        Err(_) => failures.push(format!(
            "{} is missing (run with UPDATE_GOLDEN=1)",
            golden.display()
        )),
    }
}

#[test]
fn corpus_translates_to_golden_wgsl() {
    let corpus = shaders("tests/glsl");
    assert!(
        corpus.len() >= 20,
        "the corpus has {} shaders",
        corpus.len()
    );
    let mut failures = Vec::new();
    for path in &corpus {
        let source = std::fs::read_to_string(path).unwrap();
        let opts = options(path, &source);
        let cwd_relative = Path::new(&opts.name).to_path_buf();
        let kernel = match Kernel::from_path(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(&cwd_relative),
            None,
            &opts,
        ) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        // The golden WGSL must itself be valid WGSL.
        let module = naga::front::wgsl::parse_str(kernel.wgsl()).unwrap_or_else(|e| {
            panic!(
                "{}: golden WGSL does not parse: {}",
                path.display(),
                e.emit_to_string(kernel.wgsl())
            )
        });
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: golden WGSL does not validate: {e:?}", path.display()));
        check(&path.with_extension("wgsl"), kernel.wgsl(), &mut failures);
        let bindings = serde_json::to_string_pretty(&kernel.binding_map()).unwrap() + "\n";
        check(
            &path.with_extension("bindings.json"),
            &bindings,
            &mut failures,
        );
        if let Err(e) = loads_back_whole(&kernel, &opts) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A translation written as JSON (as a build script ships it) and loaded
/// back is the kernel translated at run time: the same WGSL, entry point,
/// workgroup size, features, warnings and binding map, field by field
/// (element types, member layouts and block names included).
fn loads_back_whole(kernel: &Kernel, opts: &SourceOptions) -> Result<(), String> {
    let written = Translation::of_kernel(kernel);
    let read = Translation::from_json(&written.to_json()).map_err(|e| e.to_string())?;
    if read
        != (Translation {
            sources: Vec::new(),
            ..written
        })
    {
        return Err("the translation's JSON does not read back equal".into());
    }
    let loaded = Kernel::from_translation(&read, opts).map_err(|e| e.to_string())?;
    for (what, same) in [
        ("wgsl", loaded.wgsl() == kernel.wgsl()),
        ("entry", loaded.entry() == kernel.entry()),
        (
            "workgroup size",
            loaded.workgroup_size() == kernel.workgroup_size(),
        ),
        (
            "features",
            loaded.required_features() == kernel.required_features(),
        ),
        ("warnings", loaded.warnings() == kernel.warnings()),
        ("dialect", loaded.dialect() == kernel.dialect()),
        ("overrides", loaded.overrides() == kernel.overrides()),
    ] {
        if !same {
            return Err(format!("loaded back, its {what} differs"));
        }
    }
    for (a, b) in kernel.bindings().iter().zip(loaded.bindings()) {
        if a != b {
            return Err(format!("loaded back, binding {a:?} became {b:?}"));
        }
    }
    if kernel.bindings().len() != loaded.bindings().len() {
        return Err("loaded back, it has another number of bindings".into());
    }
    Ok(())
}

#[test]
fn error_corpus_fails_with_golden_messages() {
    let corpus = shaders("tests/glsl/errors");
    assert!(!corpus.is_empty());
    let mut failures = Vec::new();
    for path in &corpus {
        let source = std::fs::read_to_string(path).unwrap();
        let opts = options(path, &source);
        match Kernel::from_path(path, None, &opts) {
            Ok(_) => failures.push(format!("{} translated but must fail", path.display())),
            Err(e) => {
                // Paths in the message relative to the crate, as in `opts.name`.
                let text = e
                    .to_string()
                    .replace(&format!("{}/", env!("CARGO_MANIFEST_DIR")), "")
                    + "\n";
                check(&path.with_extension("err"), &text, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
