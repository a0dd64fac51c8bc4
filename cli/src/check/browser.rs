//! `check --browser`: the WebGPU translation run in headless Chromium by
//! the browser suite's driver (`examples/web/run.mjs outputs`).

use std::path::{Path, PathBuf};

use atomport::Error;
use atomport::validate::check::{Foreign, ForeignJob, ForeignOutput};

/// The browser runner of `--browser`: `examples/web/run.mjs outputs` in the
/// source tree (ATOMPORT_ROOT, else the one this program was built from),
/// with the wasm scripts/build-web made. What is missing is an error
/// naming it.
pub(super) fn browser() -> atomport::Result<Foreign> {
    let root = std::env::var_os("ATOMPORT_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let web = std::env::var_os("ATOMPORT_WEB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/web"));
    let script = root.join("examples/web/run.mjs");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let missing = |what: String| {
        Err(Error::Unsupported(format!(
            "--browser: {what} (scripts/setup-web installs the browser set-up, scripts/build-web builds the wasm)"
        )))
    };
    if !script.exists() {
        return missing(format!(
            "no {} (set ATOMPORT_ROOT to atomport's source tree)",
            script.display()
        ));
    }
    if !web.join("pkg/atomport_web_bg.wasm").exists() {
        return missing(format!("no wasm build in {}", web.join("pkg").display()));
    }
    if !Path::new(&chromium).exists() {
        return missing(format!("no Chromium at {chromium}"));
    }
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        return missing("no Node.js".into());
    }
    let run = move |jobs: &[ForeignJob]| -> Vec<Result<ForeignOutput, String>> {
        match run_in_browser(&root, &web, &script, jobs) {
            Ok(out) => out,
            Err(e) => jobs.iter().map(|_| Err(e.clone())).collect(),
        }
    };
    Ok(Foreign {
        name: "browser".into(),
        run: std::sync::Arc::new(run),
    })
}

/// Runs `jobs` through `run.mjs outputs`; each job's bindings, or why not.
fn run_in_browser(
    root: &Path,
    web: &Path,
    script: &Path,
    jobs: &[ForeignJob],
) -> Result<Vec<Result<ForeignOutput, String>>, String> {
    let dir = std::env::temp_dir();
    let tag = format!("atomport-check-{}", std::process::id());
    let (input, output) = (
        dir.join(format!("{tag}-in.json")),
        dir.join(format!("{tag}-out.json")),
    );
    let text = serde_json::to_string(jobs).map_err(|e| e.to_string())?;
    std::fs::write(&input, text).map_err(|e| format!("{}: {e}", input.display()))?;
    let ran = std::process::Command::new("node")
        .arg(script)
        .arg("outputs")
        .arg(root)
        .arg(&input)
        .arg(&output)
        .env("ATOMPORT_WEB_DIR", web)
        .output();
    let _ = std::fs::remove_file(&input);
    let ran = ran.map_err(|e| format!("node: {e}"))?;
    if !ran.status.success() {
        let _ = std::fs::remove_file(&output);
        return Err(format!(
            "the browser did not run: {}",
            String::from_utf8_lossy(&ran.stderr)
                .lines()
                .last()
                .unwrap_or("no message")
        ));
    }
    let text =
        std::fs::read_to_string(&output).map_err(|e| format!("{}: {e}", output.display()))?;
    let _ = std::fs::remove_file(&output);
    let v: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    Ok(v.iter().map(browser_output).collect())
}

/// One job's answer from the browser: its bindings' bytes, or its error.
fn browser_output(v: &serde_json::Value) -> Result<ForeignOutput, String> {
    if let Some(e) = v["error"].as_str() {
        return Err(format!("in the browser: {e}"));
    }
    let bindings = v["bindings"]
        .as_array()
        .ok_or("no bindings in the browser's answer")?;
    bindings
        .iter()
        .map(|b| {
            let slot = (
                b["group"].as_u64().unwrap_or(0) as u32,
                b["binding"].as_u64().unwrap_or(0) as u32,
                b["name"].as_str().map(str::to_string),
            );
            let hex = b["hex"].as_str().unwrap_or_default();
            let bytes = atomport::runtime::run::from_hex(hex)
                .map_err(|e| format!("the browser's bytes: {e}"))?;
            Ok((slot, bytes))
        })
        .collect()
}
