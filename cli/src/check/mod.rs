//! `atomport check`: shaders proven against their original SPIR-V run
//! natively, with inputs generated from their declarations
//! ([`atomport::validate::check`]); a text, JSON or JUnit report.

use std::path::{Path, PathBuf};

use atomport::runtime::job::{Annotations, Resources};
use atomport::validate::check::{self, CheckOptions, Foreign, Report, Verdict};
use atomport::validate::diff::Rule;
use atomport::{BackendChoice, Error, Kernel, SourceOptions};

use super::args::CheckArgs;
use super::{emit, leave};

mod browser;
mod isolate;

/// A shader's report, or why it did not translate.
struct Checked {
    path: PathBuf,
    report: Result<Report, String>,
}

pub fn check(args: &CheckArgs) -> atomport::Result<()> {
    // The flags --run gives every shader, refused here if they do not parse.
    let run_flags: Vec<String> = args
        .run
        .iter()
        .flat_map(|r| r.split_whitespace().map(String::from))
        .collect();
    Resources::from_flags(&run_flags).map_err(|e| Error::Spec(format!("--run: {e}")))?;
    let shaders = expand(&args.shaders)?;
    let present: Vec<BackendChoice> = match &args.backends {
        Some(b) => b.0.clone(),
        None => BackendChoice::SINGLE
            .into_iter()
            .filter(|b| !atomport::adapters(*b).is_empty())
            .collect(),
    };
    let foreign = if args.browser {
        Some(browser::browser()?)
    } else {
        None
    };
    let bar = if args.json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(shaders.len() as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .expect("the progress template is valid"),
    );
    let mut checked = Vec::new();
    for path in shaders {
        bar.set_message(path.display().to_string());
        // Each shader in a process of its own: inputs a shader was never
        // meant to see can crash a driver (lavapipe does not bound shared
        // memory), and that ends only that process.
        let report = if args.in_process {
            one(args, &path, &run_flags, &present, foreign.as_ref())
        } else {
            isolate::check(args, &path)
        };
        checked.push(Checked { path, report });
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(file) = &args.junit {
        std::fs::write(file, junit(&checked)).map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
    }
    emit(&if args.json {
        json(&checked)
    } else {
        text(&checked)
    })?;
    let failed = checked.iter().any(|c| match &c.report {
        Ok(r) => r.verdict == Verdict::Differs,
        Err(_) => true,
    });
    // A dispatch that timed out may still hold the driver: exit at once.
    leave(u8::from(failed))
}

/// The shaders `paths` name: files as given, folders by every `.comp`,
/// `.spv` and compute `.glsl` in them and below (see [`compute_glsl`]),
/// sorted. A path that does not exist is a usage error.
fn expand(paths: &[PathBuf]) -> atomport::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|source| Error::Io {
            path: p.clone(),
            source,
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, 0)?;
            if found.is_empty() {
                return Err(Error::Spec(format!(
                    "{}: the folder holds no compute shader (.comp, .comp.glsl, .glsl with a #version, or .spv with a compute entry point)",
                    p.display()
                )));
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Every compute shader file under `dir` ([`atomport::files::is_compute_shader`];
/// links to folders are not followed, so that a link cycle ends).
fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> atomport::Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    if depth > 32 {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let kind = entry.file_type().map_err(io)?;
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, out, depth + 1)?;
        } else {
            if atomport::files::is_compute_shader(&path) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// Checks one shader: its annotations read, its translation made, the
/// check run. `Err` is a shader that does not translate.
fn one(
    args: &CheckArgs,
    path: &Path,
    run_flags: &[String],
    present: &[BackendChoice],
    foreign: Option<&Foreign>,
) -> Result<Report, String> {
    let name = path.display().to_string();
    let annotations = annotations(path).map_err(|e| format!("{name}: {e}"))?;
    let mut opts = args.glsl.apply(SourceOptions::named(&name));
    opts.target = if args.browser {
        atomport::Platform::WebGpu
    } else {
        args.target.unwrap_or_default()
    };
    opts.timeout = Some(args.timeout);
    opts.images_as_texel_buffers = args.texel_buffers;
    let opts = annotations.apply(opts).map_err(|e| e.to_string())?;
    let kernel = Kernel::from_path(path, None, &opts).map_err(|e| e.to_string())?;
    let not_run = |reason: String| Report {
        verdict: Verdict::NotRun,
        reason: Some(reason),
        possible_undefined: Vec::new(),
        runs: Vec::new(),
        seconds: 0.0,
    };
    if let Some(why) = &annotations.no_native {
        return Ok(not_run(format!("the original cannot run natively: {why}")));
    }
    let mut flags: Vec<String> = if args.no_run_lines {
        Vec::new()
    } else {
        annotations.job.clone()
    };
    flags.extend(run_flags.iter().cloned());
    if let Err(e) = Resources::from_flags(&flags) {
        return Ok(not_run(format!("its `// run:` line: {e}")));
    }
    let mut rules = args.compare.clone();
    for (rule, _) in &annotations.rules {
        rules.push(Rule::parse(rule).map_err(|e| format!("{name}: {e}"))?);
    }
    let backends: Vec<BackendChoice> = present
        .iter()
        .copied()
        .filter(|b| !annotations.not_on.iter().any(|(n, _)| n == b.name()))
        .collect();
    let o = CheckOptions {
        backends,
        job: flags,
        rules,
        variants: args
            .variants
            .as_ref()
            .map_or_else(|| check::Variant::ALL.to_vec(), |v| v.0.clone()),
        timeout: args.timeout,
        foreign: foreign.cloned(),
    };
    Ok(check::check(&kernel, &o))
}

/// A shader's annotations: its own text's, or for a `.spv` its
/// `.spvasm`'s where there is one.
fn annotations(path: &Path) -> Result<Annotations, String> {
    let text_path = if path.extension().is_some_and(|e| e == "spv") {
        path.with_extension("spvasm")
    } else {
        path.to_path_buf()
    };
    if !text_path.exists() {
        return Ok(Annotations::default());
    }
    let text = atomport::files::read_text(&text_path, atomport::files::MAX_SOURCE_BYTES, "shader")
        .map_err(|e| e.to_string())?;
    Annotations::parse(&text)
}

/// The summary line: how many shaders got each verdict.
fn summary(checked: &[Checked]) -> String {
    let count = |v: Verdict| {
        checked
            .iter()
            .filter(|c| c.report.as_ref().is_ok_and(|r| r.verdict == v))
            .count()
    };
    let errors = checked.iter().filter(|c| c.report.is_err()).count();
    let mut s = format!(
        "{} exact, {} order-independent, {} within rounding, {} differ, {} unchecked, {} not run",
        count(Verdict::Exact),
        count(Verdict::OrderIndependent),
        count(Verdict::WithinRounding),
        count(Verdict::Differs),
        count(Verdict::Unchecked),
        count(Verdict::NotRun)
    );
    if errors > 0 {
        s.push_str(&format!(", {errors} not translated"));
    }
    s
}

/// One line per shader, what differs under it, and the summary.
fn text(checked: &[Checked]) -> String {
    let mut o = String::new();
    for c in checked {
        match &c.report {
            Err(e) => outln!(o, "{}: not translated: {e}", c.path.display()),
            Ok(r) => {
                let reason = r
                    .reason
                    .as_ref()
                    .map_or(String::new(), |w| format!(": {w}"));
                outln!(
                    o,
                    "{}: {}{reason} ({:.1} s)",
                    c.path.display(),
                    r.verdict.name(),
                    r.seconds
                );
                if r.verdict != Verdict::NotRun {
                    for line in not_run_lines(&r.runs) {
                        outln!(o, "  {line}");
                    }
                }
                for run in r.runs.iter().filter(|x| x.verdict == Verdict::Differs) {
                    let well = if run.past_the_end {
                        " (only past the end of a buffer, where the native backends agree: possibly undefined behaviour of the original)"
                    } else if run.variant.well_formed() {
                        ""
                    } else {
                        " (raw inputs: possibly undefined behaviour of the original)"
                    };
                    outln!(o, "  {} on {}{well}:", run.variant.name(), run.backend);
                    if let Some(n) = &run.note {
                        outln!(o, "    {n}");
                    }
                    for d in &run.differences {
                        let oob = if d.out_of_range {
                            " (all in the last element: an access past the end could explain it)"
                        } else {
                            ""
                        };
                        outln!(o, "    {}: {} elements differ{oob}", d.binding, d.count);
                        for x in d.first.iter().take(3) {
                            outln!(o, "      [{}] native {} translated {}", x.index, x.a, x.b);
                        }
                    }
                }
            }
        }
    }
    outln!(o, "{}", summary(checked));
    o
}

/// The runs of a checked shader that did not run, once per backend and
/// reason, so that a verdict is never read as covering a backend it
/// skipped: "not run on gl: …", or with the variants where the backend's
/// other runs ran.
fn not_run_lines(runs: &[check::Run]) -> Vec<String> {
    let mut groups: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for run in runs.iter().filter(|r| r.verdict == Verdict::NotRun) {
        let note = run.note.as_deref().unwrap_or("no reason given");
        match groups
            .iter_mut()
            .find(|(b, n, _)| *b == run.backend && *n == note)
        {
            Some(g) => g.2.push(run.variant.name()),
            None => groups.push((&run.backend, note, vec![run.variant.name()])),
        }
    }
    groups
        .into_iter()
        .map(|(backend, note, variants)| {
            let all = runs.iter().filter(|r| r.backend == backend).count() == variants.len();
            if all {
                format!("not run on {backend}: {note}")
            } else {
                format!("not run on {backend} ({}): {note}", variants.join(", "))
            }
        })
        .collect()
}

/// `--json`: one array, one object per shader.
fn json(checked: &[Checked]) -> String {
    let v: Vec<serde_json::Value> = checked
        .iter()
        .map(|c| {
            let mut v = match &c.report {
                Ok(r) => serde_json::to_value(r).expect("a report serializes"),
                Err(e) => serde_json::json!({"verdict": "not-translated", "reason": e}),
            };
            v["shader"] = c.path.display().to_string().into();
            v
        })
        .collect();
    let mut s = serde_json::to_string(&v).expect("reports serialize");
    s.push('\n');
    s
}

/// `--junit`: one test case per shader; a difference or a refused
/// translation a failure, unchecked and not run skipped.
fn junit(checked: &[Checked]) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let failures = checked
        .iter()
        .filter(|c| {
            c.report
                .as_ref()
                .map_or(true, |r| r.verdict == Verdict::Differs)
        })
        .count();
    let skipped = checked
        .iter()
        .filter(|c| {
            c.report
                .as_ref()
                .is_ok_and(|r| matches!(r.verdict, Verdict::Unchecked | Verdict::NotRun))
        })
        .count();
    let time: f64 = checked
        .iter()
        .filter_map(|c| c.report.as_ref().ok().map(|r| r.seconds))
        .sum();
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    outln!(
        o,
        "<testsuites><testsuite name=\"atomport check\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{time:.3}\">",
        checked.len()
    );
    for c in checked {
        let name = esc(&c.path.display().to_string());
        let (seconds, body) = match &c.report {
            Err(e) => (
                0.0,
                format!("<failure message=\"not translated\">{}</failure>", esc(e)),
            ),
            Ok(r) => {
                let why = esc(r.reason.as_deref().unwrap_or(""));
                let body = match r.verdict {
                    Verdict::Differs => format!("<failure message=\"differs\">{why}</failure>"),
                    Verdict::Unchecked | Verdict::NotRun => {
                        format!("<skipped message=\"{}: {why}\"/>", r.verdict.name())
                    }
                    _ => format!("<system-out>{}: {why}</system-out>", r.verdict.name()),
                };
                (r.seconds, body)
            }
        };
        outln!(
            o,
            "<testcase classname=\"atomport.check\" name=\"{name}\" time=\"{seconds:.3}\">{body}</testcase>"
        );
    }
    outln!(o, "</testsuite></testsuites>");
    o
}
