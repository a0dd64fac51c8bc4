//! Every demo at a small size on every backend present: it must end with
//! `check: passed` (each demo checks its own output against a CPU model) and
//! write a PNG.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// The example binaries cargo builds next to the test binaries.
fn example(name: &str) -> PathBuf {
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let path = deps.parent().unwrap().join("examples").join(name);
    assert!(
        path.exists(),
        "{} is not built (cargo test builds the examples)",
        path.display()
    );
    path
}

fn run_demo(name: &str) {
    let dir = common::scratch().join(format!("atomport-demo-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for b in common::backend_names() {
        let out = dir.join(format!("{b}.png"));
        let o = Command::new(example(name))
            .args([
                "--backend",
                b,
                "--size",
                "96x64",
                "--out",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{name} on {b}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            stdout.lines().last(),
            Some("check: passed"),
            "{name} on {b}"
        );
        assert!(
            stdout.contains(&format!("({b})")),
            "{name} names its adapter: {stdout}"
        );
        let png = std::fs::read(&out).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{name} on {b} wrote a PNG");
        println!(
            "{name} on {b}: {}",
            stdout
                .lines()
                .filter(|l| l.contains(" ms"))
                .collect::<Vec<_>>()
                .join(";")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn raster() {
    run_demo("raster");
}

#[test]
fn oit() {
    run_demo("oit");
}

#[test]
fn components() {
    run_demo("components");
}

#[test]
fn histogram() {
    run_demo("histogram");
}

#[test]
fn histogram_of_a_png_input() {
    // The demo's own picture as its input: gray, read through a sampled texture.
    let dir = common::scratch().join(format!("atomport-demo-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("first.png");
    let o = Command::new(example("histogram"))
        .args(["--size", "40x24", "--out", first.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for b in common::backend_names() {
        let o = Command::new(example("histogram"))
            .args([
                "--backend",
                b,
                "--input",
                first.to_str().unwrap(),
                "--out",
                dir.join("second.png").to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{b}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(stdout.contains("(80x24, 1920 pixels)"), "{stdout}");
        assert_eq!(stdout.lines().last(), Some("check: passed"), "{b}");
    }
    // Not a PNG: a clear error, exit 1.
    let bad = dir.join("bad.png");
    std::fs::write(&bad, "not a png").unwrap();
    let o = Command::new(example("histogram"))
        .args(["--input", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a PNG file"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// examples/embed is a package of its own (a wgpu program with a build
/// script that translates its shaders with `atomport::build`), a member of
/// this workspace: built once with cargo (reusing what `cargo test` built)
/// and run on every backend.
#[test]
fn embed_example_translates_at_build_time_and_runs_in_its_own_encoder() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(&cargo)
        .args(["build", "--quiet", "--release", "--package", "embed"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "building embed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The package's binary, beside the test binaries' folder.
    let release = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let exe = release.join(format!("embed{}", std::env::consts::EXE_SUFFIX));
    for b in common::backend_names() {
        let o = Command::new(&exe).args(["--backend", b]).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "embed on {b}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            stdout.lines().last(),
            Some("check: passed"),
            "{b}: {stdout}"
        );
        assert!(stdout.contains("indirect workgroups"), "{stdout}");
    }
}

#[test]
fn bad_arguments_exit_2() {
    let o = Command::new(example("raster"))
        .args(["--size", "12"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--size 12: expected WxH"));
}

#[test]
fn oit_reports_a_full_node_buffer_instead_of_writing_past_it() {
    for b in common::backend_names() {
        let out = common::scratch().join(format!(
            "atomport-oit-overflow-{}-{b}.png",
            std::process::id()
        ));
        let o = Command::new(example("oit"))
            .args([
                "--backend",
                b,
                "--size",
                "96x64",
                "--capacity",
                "1000",
                "--out",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{b}: {stdout}");
        // Every fragment past the capacity is counted as dropped, none lost from the count.
        let total: u32 = stdout
            .split(" fragments,")
            .next()
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no fragment count in {stdout}"));
        assert!(
            stdout.contains(&format!("dropped when full: {}", total - 1000)),
            "{b}: {stdout}"
        );
        assert!(
            stdout.lines().last().unwrap().starts_with(&format!(
                "check: FAILED: {} fragments dropped: the node buffer holds 1000 of {total}",
                total - 1000
            )),
            "{b}: {stdout}"
        );
        let _ = std::fs::remove_file(&out);
    }
}
