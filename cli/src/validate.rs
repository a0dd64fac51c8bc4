//! `atomport validate`: the conformance matrix on the adapters chosen.

use atomport::wgpu;
use std::time::Duration;

use atomport::validate::conformance::{self, Case, Outcome, RunOptions, Scale};
use atomport::{AdapterSummary, BackendChoice, Context, ContextOptions, Error};

use super::args::ValidateArgs;

use super::{emit, leave};

pub fn validate(args: ValidateArgs) -> atomport::Result<()> {
    let ValidateArgs {
        backend,
        adapter,
        filter,
        list,
        small,
        native,
        json,
        timeout,
        target,
        save_translations,
    } = args;
    let cases: Vec<_> = conformance::matrix()
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.name().contains(f)))
        .collect();
    if list {
        let mut o = String::new();
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
    let contexts = contexts(base, backend.is_some(), native)?;
    if native && !contexts.iter().any(Context::has_native) {
        let names: Vec<String> = contexts
            .iter()
            .map(|c| format!("{} ({})", c.adapter_name(), c.backend_name()))
            .collect();
        return Err(Error::MissingFeature {
            adapter: names.join(", "),
            feature:
                "PASSTHROUGH_SHADERS (running the original SPIR-V natively, on Vulkan adapters)"
                    .into(),
        });
    }
    let scale = if small { Scale::Small } else { Scale::Full };
    let bar = if json {
        indicatif::ProgressBar::hidden()
    } else {
        let natives = contexts.iter().filter(|c| native && c.has_native()).count();
        indicatif::ProgressBar::new((cases.len() * (contexts.len() + natives)) as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .expect("the progress template is valid"),
    );
    let translations = conformance::Translations::default();
    let mut outcomes = Vec::new();
    let mut timings = Vec::new();
    for ctx in &contexts {
        let runs = if native && ctx.has_native() {
            vec![false, true]
        } else {
            vec![false]
        };
        for native_run in runs {
            let start = std::time::Instant::now();
            let opts = RunOptions {
                native: native_run,
                target: target.unwrap_or_default(),
                translations: Some(translations.clone()),
                ..RunOptions::default()
            };
            outcomes.extend(conformance::run_all(ctx, &cases, scale, &opts, |o| {
                bar.set_message(format!("{} {}", o.backend, o.name));
                bar.inc(1);
            }));
            let mut summary = ctx.summary();
            if native_run {
                summary.backend = "native";
            }
            timings.push((summary, start.elapsed()));
        }
    }
    bar.finish_and_clear();
    if let Some(path) = &save_translations {
        save(path, &translations)?;
    }
    // A case the native run fails is the driver's finding, not atomport's.
    let failed = outcomes
        .iter()
        .filter(|o| !o.passed && o.skipped.is_none() && o.backend != "native")
        .count();
    emit(&if json {
        json_report(&timings, &outcomes)
    } else {
        text_report(&cases, &timings, &outcomes)
    })?;
    if failed > 0 {
        leave(1);
    }
    Ok(())
}

/// The adapters to validate: with a backend named, one per backend `all`
/// finds (each with 64-bit atomics where it has them); otherwise the one
/// adapter chosen.
fn contexts(base: ContextOptions, named: bool, native: bool) -> atomport::Result<Vec<Context>> {
    // The 64-bit image cases run where the adapter has 64-bit atomics; the
    // native runs where it has passthrough shaders.
    let int64 = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    let passthrough = if native {
        wgpu::Features::PASSTHROUGH_SHADERS
            | wgpu::Features::IMMEDIATES
            | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
    } else {
        wgpu::Features::empty()
    };
    let with_int64 = |o: ContextOptions| {
        let have = o.adapter_features().unwrap_or_default();
        let want = (int64 | passthrough) & have;
        let want = if want.contains(int64) {
            want
        } else {
            want - int64
        };
        o.with_features(want)
    };
    if !(base.backend == BackendChoice::All && named) {
        return Ok(vec![Context::new(&with_int64(base))?]);
    }
    let found: Vec<Context> = BackendChoice::SINGLE
        .iter()
        .filter_map(|b| Context::new(&with_int64(base.clone().with_backend(*b))).ok())
        .collect();
    if found.is_empty() {
        // The one adapter `all` finds, or the no-adapter error naming what was tried.
        Ok(vec![Context::new(&base)?])
    } else {
        Ok(found)
    }
}

/// Counts of (passed, failed, skipped, native findings): a native run's
/// failure is counted apart, as the driver's.
fn counts(outcomes: &[Outcome]) -> (usize, usize, usize, usize) {
    let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
    let failing = |o: &&Outcome| !o.passed && o.skipped.is_none();
    let findings = outcomes
        .iter()
        .filter(failing)
        .filter(|o| o.backend == "native")
        .count();
    let failed = outcomes.iter().filter(failing).count() - findings;
    (
        outcomes.len() - failed - skipped - findings,
        failed,
        skipped,
        findings,
    )
}

/// `--json`: the adapters (with their time) and every case.
fn json_report(timings: &[(AdapterSummary, Duration)], outcomes: &[Outcome]) -> String {
    let (passed, failed, skipped, findings) = counts(outcomes);
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
        "driver_findings": findings,
    });
    format!("{v}\n")
}

/// The adapters, the summary table, every failure and every reason to skip.
fn text_report(
    cases: &[Case],
    timings: &[(AdapterSummary, Duration)],
    outcomes: &[Outcome],
) -> String {
    let (passed, failed, skipped, findings) = counts(outcomes);
    let mut o = String::new();
    for (a, t) in timings {
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
    o.push_str(&conformance::summary_table(cases, outcomes));
    let failures: Vec<_> = outcomes
        .iter()
        .filter(|o| !o.passed && o.skipped.is_none())
        .collect();
    if !failures.is_empty() {
        outln!(o);
        for f in failures {
            if f.backend == "native" {
                outln!(
                    o,
                    "DRIVER FINDING {} [native]: the original SPIR-V fails the reference model: {}",
                    f.name,
                    f.detail
                );
            } else {
                outln!(o, "FAIL {} [{}]: {}", f.name, f.backend, f.detail);
            }
        }
    }
    if skipped > 0 {
        // Which feature, once per backend.
        let mut why: Vec<String> = Vec::new();
        for w in outcomes
            .iter()
            .filter_map(|o| Some(format!("{}: {}", o.backend, o.skipped.as_ref()?)))
        {
            if !why.contains(&w) {
                why.push(w);
            }
        }
        for w in why {
            outln!(o, "skipped on {w}");
        }
        outln!(o, "{passed} passed, {failed} failed, {skipped} skipped");
    } else {
        outln!(o, "{passed} passed, {failed} failed");
    }
    if findings > 0 {
        outln!(
            o,
            "{findings} driver finding(s): native runs that fail the reference model"
        );
    }
    o
}

/// Writes the cases' translations as one JSON object, by GLSL source.
fn save(path: &std::path::Path, translations: &conformance::Translations) -> atomport::Result<()> {
    let map = translations.lock().unwrap_or_else(|p| p.into_inner());
    let json = serde_json::to_string(&*map)
        .map_err(|e| Error::Internal(format!("the translations do not serialize: {e}")))?;
    std::fs::write(path, json).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}
