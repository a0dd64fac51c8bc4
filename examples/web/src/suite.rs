//! The browser test suite's entry points (`scripts/test-web` drives them
//! from `suite.html`):
//!
//! - [`job`]: a golden or demo kernel's job, translated for WebGPU on the
//!   native side, run here and compared with what lavapipe's run of the same
//!   translation left in every binding it writes (by the kernel's own
//!   order-independent rules where it has them);
//! - [`conformance_load`], [`conformance_cases`], [`conformance_case`]: the
//!   conformance matrix, with the kernels the native side translated for
//!   WebGPU, each case checked here by atomport's CPU reference model.

use std::cell::RefCell;
use std::collections::HashMap;

use atomport::runtime::job::{self, Resources};
use atomport::validate::conformance::{self, RunOptions, Scale, Translations};
use atomport::validate::diff::{Rule, compare_with};
use atomport::{Kernel, Platform, SourceOptions, Translation};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::{context, fail};

/// A job to run, and what lavapipe's run left.
#[derive(Deserialize)]
struct JobCase {
    /// The kernel's path, for messages.
    name: String,
    translation: Translation,
    /// `atomport run`'s flags.
    job: Vec<String>,
    /// `NAME=RULE` comparisons for bindings whose values depend on order.
    #[serde(default)]
    rules: Vec<String>,
    /// Each binding's bytes after lavapipe's run, in hexadecimal.
    #[serde(default)]
    outputs: Vec<Written>,
    /// For a job that must fail here: what the error names.
    #[serde(default)]
    expect_error: Option<String>,
    /// The GLSL, for a kernel translated here too: the translation made
    /// in the page must equal `translation` (the native one), and the job
    /// runs the page's.
    #[serde(default)]
    glsl: Option<String>,
    /// The files it `#include`s, by path, with their text.
    #[serde(default)]
    files: Vec<(std::path::PathBuf, String)>,
}

#[derive(Deserialize)]
struct Written {
    group: u32,
    binding: u32,
    /// Tells apart the elements of an array at one binding.
    #[serde(default)]
    name: Option<String>,
    hex: String,
}

/// A check's verdict.
#[derive(Serialize)]
struct Verdict {
    name: String,
    passed: bool,
    /// Why it was skipped (neither passed nor failed), when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    detail: String,
}

/// Runs one job (a JSON `JobCase`); resolves to a JSON verdict.
#[wasm_bindgen]
pub async fn job(case: String) -> Result<String, JsValue> {
    let case: JobCase = serde_json::from_str(&case).map_err(fail)?;
    let (passed, detail) = match (run_job(&case).await, &case.expect_error) {
        (Err(e), Some(want)) if e.to_string().contains(want.as_str()) => (true, String::new()),
        (Err(e), Some(want)) => (false, format!("failed, but not naming `{want}`: {e}")),
        (Ok(_), Some(want)) => (false, format!("ran, where it should fail naming `{want}`")),
        (Ok(None), None) => (true, String::new()),
        (Ok(Some(why)), None) => (false, why),
        (Err(e), None) => (false, e.to_string()),
    };
    verdict(case.name, passed, None, detail)
}

fn verdict(
    name: String,
    passed: bool,
    skipped: Option<String>,
    detail: String,
) -> Result<String, JsValue> {
    serde_json::to_string(&Verdict {
        name,
        passed,
        skipped,
        detail,
    })
    .map_err(fail)
}

/// Runs one job (a JSON `JobCase`, `atomport check --browser`'s); resolves
/// to every binding's bytes after it, `[{"group","binding","hex"}]`.
#[wasm_bindgen]
pub async fn outputs(case: String) -> Result<String, JsValue> {
    let case: JobCase = serde_json::from_str(&case).map_err(fail)?;
    let (_, out) = run(&case).await.map_err(fail)?;
    serde_json::to_string(&out.hex_bindings()).map_err(fail)
}

/// The case's kernel, and what its job left here.
async fn run(case: &JobCase) -> atomport::Result<(Kernel, atomport::runtime::run::RunOutput)> {
    let ctx = context()
        .await
        .map_err(|e| atomport::Error::Dispatch(e.as_string().unwrap_or_default()))?;
    let kernel = match &case.glsl {
        #[cfg(feature = "glsl")]
        Some(source) => translate_here(&case.name, source, &case.files)?,
        #[cfg(not(feature = "glsl"))]
        Some(_) => {
            return Err(atomport::Error::Unsupported(format!(
                "{}: this page was built without GLSL (atomport-web's glsl feature)",
                case.name
            )));
        }
        None => Kernel::from_translation(&case.translation, &SourceOptions::named(&case.name))?,
    };
    let (resources, groups): (Resources, [u32; 3]) = Resources::from_flags(&case.job)?;
    let out = job::run_async(&ctx, &kernel, groups, &resources).await?;
    Ok((kernel, out))
}

/// A GLSL kernel translated in the page for WebGPU, with the options its
/// `// run:` lines give and the files it includes, as the native side
/// translated it.
#[cfg(feature = "glsl")]
pub(crate) fn translate_here(
    name: &str,
    source: &str,
    files: &[(std::path::PathBuf, String)],
) -> atomport::Result<Kernel> {
    let annotations = atomport::runtime::job::Annotations::parse(source)
        .map_err(|e| atomport::Error::Spec(format!("{name}: {e}")))?;
    let mut opts = annotations.apply(SourceOptions::named(name))?;
    opts.target = Platform::WebGpu;
    opts.files = files.to_vec();
    Kernel::from_glsl(source, &opts)
}

/// Where the page's translation differs from the native one, if it does.
fn translation_differs(kernel: &Kernel, native: &Translation) -> Option<String> {
    let here = Translation::of_kernel(kernel);
    // As serialized: what the JSON leaves out (the files read, each
    // binding's element type) is not compared.
    if serde_json::to_value(&here).ok() == serde_json::to_value(native).ok() {
        return None;
    }
    if here.wgsl != native.wgsl {
        let line = here
            .wgsl
            .lines()
            .zip(native.wgsl.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(here.wgsl.lines().count().min(native.wgsl.lines().count()));
        return Some(format!(
            "the page's WGSL differs from the native translation's at line {}",
            line + 1
        ));
    }
    Some(format!(
        "the page's translation differs from the native one beside its WGSL: {}",
        serde_json::to_string(&here).unwrap_or_default()
    ))
}

/// `None` when every binding the kernel writes holds what lavapipe's run
/// left (and a kernel translated here equals the native translation);
/// otherwise the first difference.
async fn run_job(case: &JobCase) -> atomport::Result<Option<String>> {
    let (kernel, here) = run(case).await?;
    if let Some(why) = case
        .glsl
        .as_ref()
        .and_then(|_| translation_differs(&kernel, &case.translation))
    {
        return Ok(Some(why));
    }
    let mut there = here.clone();
    for b in &mut there.bindings {
        let Some(w) = case
            .outputs
            .iter()
            .find(|w| (w.group, w.binding, &w.name) == (b.group, b.binding, &b.name))
        else {
            continue;
        };
        *b = b.with_bytes(atomport::runtime::run::from_hex(&w.hex)?);
    }
    let rules = case
        .rules
        .iter()
        .map(|r| Rule::parse(r)?.for_kernel(&kernel))
        .collect::<atomport::Result<Vec<_>>>()?;
    let diffs = compare_with(&there, &here, &rules)?;
    Ok(diffs.first().map(|d| {
        let first = d
            .first
            .first()
            .map(|x| format!(" (first at {}: lavapipe {}, here {})", x.index, x.a, x.b))
            .unwrap_or_default();
        format!(
            "{} of {} ({}.{}) differ from lavapipe's run{first}",
            d.count,
            d.name.as_deref().unwrap_or("a binding"),
            d.group,
            d.binding
        )
    }))
}

thread_local! {
    /// The matrix's kernels, by GLSL source, as the native side translated them.
    static TRANSLATIONS: RefCell<Option<Translations>> = const { RefCell::new(None) };
}

/// Loads the matrix's translations (the JSON `atomport validate
/// --target webgpu --save-translations` writes); resolves to how many.
#[wasm_bindgen]
pub fn conformance_load(json: String) -> Result<usize, JsValue> {
    let map: HashMap<String, Translation> = serde_json::from_str(&json).map_err(fail)?;
    let n = map.len();
    TRANSLATIONS.with(|t| *t.borrow_mut() = Some(Translations::new(map.into())));
    Ok(n)
}

/// The matrix's case names, as a JSON list.
#[wasm_bindgen]
pub fn conformance_cases() -> Result<String, JsValue> {
    let names: Vec<String> = conformance::matrix().iter().map(|c| c.name()).collect();
    serde_json::to_string(&names).map_err(fail)
}

/// Runs the case `name` (at the small scale `--small` runs natively) with
/// the loaded translations; resolves to a JSON verdict.
#[wasm_bindgen]
pub async fn conformance_case(name: String) -> Result<String, JsValue> {
    let translations = TRANSLATIONS
        .with(|t| t.borrow().clone())
        .ok_or_else(|| fail("no translations loaded (conformance_load)"))?;
    let Some(case) = conformance::matrix().into_iter().find(|c| c.name() == name) else {
        return Err(fail(format!("no conformance case is named `{name}`")));
    };
    let ctx = context().await?;
    let opts = RunOptions {
        target: Platform::WebGpu,
        translations: Some(translations),
        ..RunOptions::default()
    };
    let o = conformance::run_case_async(&ctx, &case, Scale::Small, &opts).await;
    verdict(o.name, o.passed, o.skipped, o.detail)
}

/// A batch in the browser: three dispatches of an atomic counter and a copy
/// of the counters, submitted once and read back together. Resolves to a
/// JSON verdict: the counters must be 3·64 each, in both buffers.
#[wasm_bindgen]
pub async fn batch() -> Result<String, JsValue> {
    let ctx = context().await?;
    let run = async {
        let kernel = Kernel::from_wgsl(
            "@group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>, 4>;
             @compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32) {
                 atomicAdd(&c[i % 4u], 4u);
             }",
            &SourceOptions::named("batch.wgsl"),
        )?;
        let counters = atomport::Buffer::zeroed(&ctx, 16)?;
        let copy = atomport::Buffer::zeroed(&ctx, 16)?;
        let mut b = ctx.batch();
        for _ in 0..3 {
            b.dispatch(&kernel, [1, 1, 1], &[atomport::Bind::new(0, 0, &counters)])?;
        }
        b.copy(&counters, &copy)?;
        let out = b.submit_and_read_async(&[&counters, &copy]).await?;
        let want: Vec<u8> = [192u32; 4].iter().flat_map(|w| w.to_le_bytes()).collect();
        Ok::<_, atomport::Error>(
            (out[0] != want || out[1] != want)
                .then(|| format!("counters {:?} and copy {:?}, not 192 each", out[0], out[1])),
        )
    };
    let (passed, detail) = match run.await {
        Ok(None) => (true, String::new()),
        Ok(Some(why)) => (false, why),
        Err(e) => (false, e.to_string()),
    };
    verdict(
        "a batch of dispatches and a copy, read back at once".into(),
        passed,
        None,
        detail,
    )
}
