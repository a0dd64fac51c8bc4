//! One shader's check in a child process (`atomport check --in-process
//! --json`), so that a driver that crashes or hangs under generated inputs
//! ends the child, not the check. A child that dies is retried one
//! variant at a time, and the variants that kill it are reported as not
//! run, naming how it died.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use atomport::validate::check::{Report, Run, Variant, Verdict};

use super::super::args::CheckArgs;

/// How a child ended.
enum Ended {
    /// It printed its report.
    Report(Result<Report, String>),
    /// It died, or printed nothing readable: how, for a report.
    Died(String),
}

/// Checks `path` in a child process; on a crash, each variant alone.
pub(super) fn check(args: &CheckArgs, path: &Path) -> Result<Report, String> {
    let start = Instant::now();
    let variants: Vec<Variant> = args
        .variants
        .as_ref()
        .map_or_else(|| Variant::ALL.to_vec(), |v| v.0.clone());
    if let Ended::Report(r) = child(args, path, &variants) {
        return r;
    }
    let mut runs: Vec<Run> = Vec::new();
    for v in variants {
        match child(args, path, &[v]) {
            Ended::Report(Ok(r)) => runs.extend(r.runs),
            Ended::Report(Err(e)) => return Err(e),
            Ended::Died(how) => runs.push(Run::new(
                v,
                "native",
                [0, 0, 0],
                Verdict::NotRun,
                0,
                Some(format!(
                    "the check's process {how} under these inputs (a driver fault, or the original's undefined behaviour, such as an index past a shared array)"
                )),
            )),
        }
    }
    Ok(Report::of_runs(runs, start.elapsed().as_secs_f64()))
}

/// The flags that make a child check as `args` say, for `variants`.
fn flags(args: &CheckArgs, variants: &[Variant]) -> Vec<String> {
    let mut f: Vec<String> = vec!["check".into(), "--in-process".into(), "--json".into()];
    for d in &args.glsl.defines {
        f.extend(["-D".into(), d.clone()]);
    }
    for i in &args.glsl.include_dirs {
        f.extend(["-I".into(), i.display().to_string()]);
    }
    for l in &args.glsl.linked {
        f.extend(["--link".into(), l.display().to_string()]);
    }
    if let Some(d) = args.glsl.dialect {
        f.extend(["--dialect".into(), d.name().into()]);
    }
    if let Some(v) = args.glsl.glsl_version {
        f.extend(["--glsl-version".into(), v.name()]);
    }
    if let Some(t) = args.target {
        f.extend(["--target".into(), t.name().into()]);
    }
    if args.texel_buffers {
        f.push("--texel-buffers".into());
    }
    if let Some(b) = &args.backends {
        let names: Vec<&str> = b.0.iter().map(|b| b.name()).collect();
        f.extend(["--backends".into(), names.join(",")]);
    }
    for r in &args.run {
        f.push(format!("--run={r}"));
    }
    if args.no_run_lines {
        f.push("--no-run-lines".into());
    }
    for r in &args.compare {
        f.extend([
            "--compare".into(),
            format!("{}={}", r.binding, r.comparison.name()),
        ]);
    }
    let names: Vec<&str> = variants.iter().map(|v| v.name()).collect();
    f.extend(["--variants".into(), names.join(",")]);
    f.extend(["--timeout".into(), args.timeout.as_secs_f64().to_string()]);
    if args.browser {
        f.push("--browser".into());
    }
    f
}

/// Runs one child to its end, or kills it past a deadline that every
/// compilation and dispatch running to its own timeout would not reach.
fn child(args: &CheckArgs, path: &Path, variants: &[Variant]) -> Ended {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return Ended::Report(Err(format!("the check's own program: {e}"))),
    };
    let spawned = Command::new(exe)
        .args(flags(args, variants))
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let child = match spawned {
        Ok(c) => c,
        Err(e) => return Ended::Report(Err(format!("starting a check process: {e}"))),
    };
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let runs = variants.len() as u32 * 8 + 8;
    let deadline = args.timeout * runs + Duration::from_secs(60);
    let out = match rx.recv_timeout(deadline) {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Ended::Died(format!("could not be waited for ({e})")),
        Err(_) => {
            kill(pid);
            return Ended::Died(format!("hung past {} s and was killed", deadline.as_secs()));
        }
    };
    let parsed: Option<serde_json::Value> =
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v.get(0).cloned());
    match parsed {
        Some(v) if v["verdict"] == "not-translated" => Ended::Report(Err(v["reason"]
            .as_str()
            .unwrap_or("not translated")
            .to_string())),
        Some(v) => match serde_json::from_value::<Report>(v) {
            Ok(r) => Ended::Report(Ok(r)),
            Err(e) => Ended::Died(format!("printed a report it could not read back ({e})")),
        },
        None => {
            let said = String::from_utf8_lossy(&out.stderr);
            let last = said.lines().last().unwrap_or("").trim().to_string();
            let how = match exit_signal(&out.status) {
                Some(sig) => format!("was killed by signal {sig}"),
                None => format!("ended with {}", out.status),
            };
            Ended::Died(if last.is_empty() {
                how
            } else {
                format!("{how} ({last})")
            })
        }
    }
}

/// The signal that ended a process, where one did.
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        std::os::unix::process::ExitStatusExt::signal(status)
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Kills process `pid`.
fn kill(pid: u32) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) on a child this process started and has not reaped.
        unsafe {
            libc::kill(pid as i32, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
    }
}
