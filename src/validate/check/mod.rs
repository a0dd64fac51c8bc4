//! `check`: a shader proven against its own native run with no inputs
//! written. Every resource is made from the shader's declarations in
//! several [`Variant`]s ([`inputs`]); the original SPIR-V runs natively on
//! the Vulkan adapter (robust buffer access), the translation on every
//! backend present, on the same bytes; every word the kernel can write is
//! compared, floats as floats where the declared types say a word is one.
//!
//! The verdict rests on the well-formed variants, the inputs a real caller
//! passes. A raw variant (zeros, iota, random, extremes) that differs is
//! reported as a possible undefined behaviour of the original (a division
//! by zero, `int()` of an infinity, an index past an array), not as a
//! translation error. A binding whose native run differs from itself
//! depends on the order invocations ran in: it is compared by the rule
//! that fits (`multiset`), or reported as not compared. Floats that differ
//! by rounding alone (within 1e-4, relatively) are
//! [`Verdict::WithinRounding`]: GLSL and SPIR-V let each compiler round
//! arithmetic its own way, so a backend other than the native run's may;
//! the verdict names each such binding and how far apart, and passes. A
//! variant that writes nothing proves nothing: a shader no variant makes
//! write is unchecked, not passed.

mod foreign;
pub mod inputs;

pub use foreign::{Foreign, ForeignJob, ForeignOutput};

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use inputs::Variant;
use inputs::{Layout, Word};

use crate::runtime::job::{self, Resources};
use crate::runtime::run::{BindingOutput, Data, RunOutput};
use crate::validate::diff::{Comparison, Difference, FIRST, Rule};
use crate::{BackendChoice, Context, ContextOptions, Error, Kernel};

/// What to check and how.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The backends the translation runs on; empty: every one present.
    pub backends: Vec<BackendChoice>,
    /// Inputs the user gives, as `run`'s flags (a shader's `// run:`
    /// lines): they replace the generated ones for the bindings they name;
    /// `--groups` gives the dispatch (else one from the workgroup size).
    pub job: Vec<String>,
    /// Bindings the user says are order-dependent, with their rules.
    pub rules: Vec<Rule>,
    /// The variants to run, well-formed ones first.
    pub variants: Vec<Variant>,
    /// The timeout of each compilation and dispatch.
    pub timeout: Duration,
    /// A runner of WebGPU translations outside this process (a browser),
    /// which also runs each variant against the same native bytes.
    pub foreign: Option<Foreign>,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            backends: Vec::new(),
            job: Vec::new(),
            rules: Vec::new(),
            variants: Variant::ALL.to_vec(),
            timeout: Duration::from_secs(10),
            foreign: None,
        }
    }
}

/// A check's verdict, for one run or a whole shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every written word equal (floats as floats, any NaN equal to any).
    Exact,
    /// Equal under an order-independent rule, or order-dependent and not
    /// compared.
    OrderIndependent,
    /// Floats apart by rounding alone (within 1e-4 of each other,
    /// relatively), everything else equal: the backend's compiler rounded
    /// the translation's float arithmetic otherwise (GLSL and SPIR-V let a
    /// compiler fuse a multiply and an add, and give divisions and built-in
    /// functions error bounds, not exact results), as two drivers running
    /// the original would.
    WithinRounding,
    /// Nothing written: nothing proven.
    Unchecked,
    /// It could not run (a limit, a feature the adapter lacks, inputs that
    /// cannot be generated).
    NotRun,
    /// The translation's results differ from the original's.
    Differs,
}

impl Verdict {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::OrderIndependent => "order-independent",
            Verdict::WithinRounding => "within rounding",
            Verdict::Unchecked => "unchecked",
            Verdict::NotRun => "not run",
            Verdict::Differs => "differs",
        }
    }
}

/// One binding that differs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Found {
    /// The binding's name, or `GROUP.BINDING`.
    pub binding: String,
    /// Its group and binding.
    #[serde(skip)]
    slot: (u32, u32),
    /// How many elements differ.
    pub count: usize,
    /// The first differing elements (native first).
    pub first: Vec<Difference>,
    /// Every differing word lies in the last element of a runtime array,
    /// where WGSL's clamped indices put an access past the end that the
    /// native run drops: an out-of-range access could explain it.
    pub out_of_range: bool,
    /// Every differing element is a float within 1e-4 of the other,
    /// relatively (to the larger of the two, or to a hundredth of the
    /// binding's largest float, whichever is more).
    pub float_sums: bool,
    /// The largest relative distance of two differing floats (0 where no
    /// float differs).
    #[serde(default)]
    pub largest_relative: f64,
    /// Every differing element is a pair of finite floats.
    #[serde(skip)]
    floats: bool,
}

/// One variant on one backend.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// The inputs.
    pub variant: Variant,
    /// The backend the translation ran on.
    pub backend: String,
    /// The workgroups dispatched.
    pub groups: [u32; 3],
    /// The verdict.
    pub verdict: Verdict,
    /// Words (texel channels for images) the native run changed.
    pub written: usize,
    /// For an order-independent verdict: the rule applied to each
    /// order-dependent binding (`NAME=multiset`), or `NAME not compared`;
    /// for one within rounding, the bindings whose floats differ by
    /// rounding and how far.
    pub rules: Vec<String>,
    /// What differs.
    pub differences: Vec<Found>,
    /// The bindings whose floats differ by rounding alone, as
    /// `differences` gives them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounded: Vec<Found>,
    /// Why it did not run, or what else is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where the translation differs: this run's inputs as `run`'s flags
    /// (every input, given or generated, and `--groups`), which `atomport
    /// diff SHADER --native` takes, with the shader's own options, to run
    /// it again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// A browser run that differs only in runtime arrays' last elements,
    /// where the native backends' runs of the same inputs agree: the
    /// original indexed past a buffer's end under these inputs, a write
    /// there that a driver drops and a browser clamps to the last element.
    /// Like a raw variant's difference, the original's undefined
    /// behaviour, not a translation error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub past_the_end: bool,
    /// The translation did not finish within the timeout.
    #[serde(skip)]
    timed_out: bool,
}

impl Run {
    /// A run of `variant` on `backend` with `groups`, of `verdict`, the
    /// native run having changed `written` words, with nothing found yet.
    pub fn new(
        variant: Variant,
        backend: &str,
        groups: [u32; 3],
        verdict: Verdict,
        written: usize,
        note: Option<String>,
    ) -> Run {
        Run {
            variant,
            backend: backend.to_string(),
            groups,
            verdict,
            written,
            rules: Vec::new(),
            differences: Vec::new(),
            rounded: Vec::new(),
            note,
            inputs: Vec::new(),
            past_the_end: false,
            timed_out: false,
        }
    }
}

/// A shader's check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The verdict: from the well-formed variants, or where they write
    /// nothing from the raw ones that write.
    pub verdict: Verdict,
    /// Why, for a verdict other than exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Raw variants that differ: possible undefined behaviour of the
    /// original under those inputs (`VARIANT on BACKEND: BINDING`).
    pub possible_undefined: Vec<String>,
    /// Every run.
    pub runs: Vec<Run>,
    /// Seconds the check took.
    pub seconds: f64,
}

impl Report {
    /// The report of `runs` (a shader's, perhaps gathered from several
    /// processes), its verdict decided as [`check`] decides it.
    pub fn of_runs(runs: Vec<Run>, seconds: f64) -> Report {
        let mut r = verdict_of(runs);
        r.seconds = seconds;
        r
    }

    fn not_run(reason: String, start: Instant) -> Report {
        Report {
            verdict: Verdict::NotRun,
            reason: Some(reason),
            possible_undefined: Vec::new(),
            runs: Vec::new(),
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// A backend's name and what the translation runs on there: its context
/// and the translation it runs, or why it cannot run.
type Where<'c> = (
    &'static str,
    std::result::Result<(&'c Context, &'c Kernel), &'c str>,
);

/// Another backend's context and the translation made for it, if one
/// was, or why it cannot run.
type Other = std::result::Result<(Context, Option<Kernel>), String>;

/// The contexts a check runs on: the native one (Vulkan with passthrough
/// shaders, which also runs the Vulkan translation) and one per other
/// backend, or why a backend cannot run the kernel.
struct Contexts {
    native: Context,
    /// Each other backend's context and, where its adapter lacks a feature
    /// the translation needs, the translation made again in the forms it
    /// runs ([`Kernel::refitted`]: 64-bit integers as pairs on llvmpipe's
    /// GL); or why it cannot run.
    others: Vec<(BackendChoice, Other)>,
}

impl Contexts {
    fn open(kernel: &Kernel, opts: &CheckOptions) -> crate::Result<Contexts> {
        let plain =
            ContextOptions::from_env_with(Some(BackendChoice::Vulkan))?.with_timeout(opts.timeout);
        let native = Context::new(
            &plain
                .clone()
                .with_features(kernel.required_features())
                .for_native()?,
        )?;
        let backends: Vec<BackendChoice> = if opts.backends.is_empty() {
            BackendChoice::SINGLE
                .into_iter()
                .filter(|b| !crate::adapters(*b).is_empty())
                .collect()
        } else {
            opts.backends.clone()
        };
        let need = kernel.required_features();
        let open = |b: BackendChoice| {
            let o = plain.clone().with_backend(b);
            // An adapter that lacks a feature the translation needs runs
            // the translation made for what it has, where one differs.
            let has = o.adapter_features().unwrap_or(need);
            // On GL, a 3D storage image held in a texel buffer.
            let backend = (b == BackendChoice::Gl).then_some(wgpu::Backend::Gl);
            let buffered = backend.is_some_and(|b| kernel.needs_texel_buffers_on(b));
            let refit = (!has.contains(need) || buffered)
                .then(|| kernel.refitted_for(backend, if has.contains(need) { need } else { has }))
                .flatten()
                .transpose()
                .map_err(|e| format!("translated for this adapter: {e}"))?;
            let features = refit.as_ref().map_or(need, Kernel::required_features);
            let ctx = Context::new(&o.with_features(features)).map_err(|e| e.to_string())?;
            Ok((ctx, refit))
        };
        let others = backends
            .into_iter()
            .filter(|b| *b != BackendChoice::Vulkan)
            .map(|b| (b, open(b)))
            .collect();
        Ok(Contexts { native, others })
    }

    /// Whether a dispatch that timed out still holds one of the devices.
    fn busy(&self) -> bool {
        self.native.ready().is_err()
            || self
                .others
                .iter()
                .any(|(_, o)| o.as_ref().is_ok_and(|(c, _)| c.ready().is_err()))
    }

    /// The translation's contexts, Vulkan's (the native one) first, each
    /// with the translation it runs (`kernel`, or the one made for it).
    fn translations<'c>(&'c self, kernel: &'c Kernel, opts: &CheckOptions) -> Vec<Where<'c>> {
        let mut out = Vec::new();
        if opts.backends.is_empty() || opts.backends.contains(&BackendChoice::Vulkan) {
            out.push(("vulkan", Ok((&self.native, kernel))));
        }
        for (b, run) in &self.others {
            let run = run
                .as_ref()
                .map(|(c, refit)| (c, refit.as_ref().unwrap_or(kernel)))
                .map_err(String::as_str);
            out.push((b.name(), run));
        }
        out
    }
}

/// Checks `kernel` (read from GLSL or SPIR-V) against its original run
/// natively. Never fails: what cannot run is a [`Verdict::NotRun`] with
/// its reason.
pub fn check(kernel: &Kernel, opts: &CheckOptions) -> Report {
    check_after(kernel, opts, Vec::new())
}

/// [`check`], with `hung` the backends where the translation already did
/// not finish, and in which variant (tests begin with some).
fn check_after(kernel: &Kernel, opts: &CheckOptions, mut hung: Vec<(String, Variant)>) -> Report {
    let start = Instant::now();
    if kernel.original_spirv().is_none() {
        return Report::not_run("WGSL has no original SPIR-V to run natively".into(), start);
    }
    if kernel
        .warnings()
        .iter()
        .any(|w| w.message == crate::lower::ONE_LANE_SUBGROUPS)
    {
        return Report::not_run(
            "the translation runs subgroups of one invocation, the native run wider ones: what depends on the subgroup's size is not comparable".into(),
            start,
        );
    }
    let mut contexts = match Contexts::open(kernel, opts) {
        Ok(c) => c,
        Err(e @ Error::NoNative(_)) => return Report::not_run(e.to_string(), start),
        Err(e) => return Report::not_run(format!("no native run: {e}"), start),
    };
    let native_words = match kernel.native_spirv() {
        Ok(w) => w.to_vec(),
        Err(e) => return Report::not_run(e.to_string(), start),
    };
    let module = inputs::declarations(&native_words);
    let layouts: Vec<((u32, u32), Layout)> = kernel
        .bindings()
        .iter()
        .map(|b| ((b.group, b.binding), Layout::of(module.as_ref(), b)))
        .collect();
    let traits = traits(&native_words);
    let (given, given_groups) = match Resources::from_flags(&opts.job) {
        Ok(g) => g,
        Err(e) => return Report::not_run(format!("the inputs given: {e}"), start),
    };
    let workgroup = kernel.workgroup_size();
    let groups = if opts
        .job
        .iter()
        .any(|f| f == "--groups" || f.starts_with("--groups="))
    {
        given_groups
    } else {
        inputs::dispatch(workgroup)
    };
    let mut runs = Vec::new();
    let mut seen: Vec<(Resources, [u32; 3])> = Vec::new();
    let mut pending = Vec::new();
    for &variant in &opts.variants {
        let g = if variant == Variant::OneGroup {
            [1, 1, 1]
        } else {
            groups
        };
        let extent = [0, 1, 2].map(|k| g[k] * workgroup[k]);
        let (res, made) = match inputs::generate(kernel, module.as_ref(), &given, variant, extent) {
            Ok(r) => r,
            Err(e) => return Report::not_run(e, start),
        };
        // Inputs the user gave whole run once.
        if seen.iter().any(|(r, s)| *r == res && *s == g) {
            continue;
        }
        seen.push((res.clone(), g));
        let v = Inputs {
            variant,
            groups: g,
            res: &res,
            made: &made,
        };
        let (native, ran) = run_variant(kernel, &contexts, opts, &v, &layouts, traits, &hung);
        for run in &ran {
            if run.timed_out && !hung.iter().any(|(b, _)| *b == run.backend) {
                hung.push((run.backend.clone(), variant));
            }
        }
        runs.extend(ran);
        // A dispatch that timed out holds its device: the next variant gets
        // fresh contexts rather than a refusal, since inputs that loop
        // forever in one variant often end in another.
        if contexts.busy()
            && let Ok(fresh) = Contexts::open(kernel, opts)
        {
            contexts = fresh;
        }
        if let (Some((native, written)), Some(_)) = (native, &opts.foreign) {
            pending.push(foreign::Pending::new(&v, &opts.job, native, written));
        }
    }
    if let Some(f) = &opts.foreign {
        let mut there = foreign::run(f, kernel, opts, pending, &layouts, traits);
        mark_past_the_end(&mut there, &runs);
        runs.extend(there);
    }
    Report::of_runs(runs, start.elapsed().as_secs_f64())
}

/// Marks each browser run in `there` that differs only in runtime arrays'
/// last elements while the native backends' runs of its variant (in
/// `native`) agree ([`Run::past_the_end`]).
fn mark_past_the_end(there: &mut [Run], native: &[Run]) {
    for run in there {
        let peers: Vec<&Run> = native
            .iter()
            .filter(|r| r.variant == run.variant && r.backend != "native")
            .collect();
        run.past_the_end = run.verdict == Verdict::Differs
            && !run.differences.is_empty()
            && run.differences.iter().all(|d| d.out_of_range)
            && !peers.is_empty()
            && peers
                .iter()
                .all(|r| matches!(r.verdict, Verdict::Exact | Verdict::WithinRounding));
    }
}

/// One variant's inputs.
struct Inputs<'a> {
    variant: Variant,
    groups: [u32; 3],
    res: &'a Resources,
    made: &'a inputs::Made,
}

impl Inputs<'_> {
    /// The variant as `run`'s flags: those given (`job`, but its
    /// `--groups`), those generated, and the dispatch.
    fn flags(&self, job: &[String]) -> Vec<String> {
        let mut flags = Vec::new();
        let mut given = job.iter();
        while let Some(f) = given.next() {
            if f == "--groups" {
                given.next();
            } else if !f.starts_with("--groups=") {
                flags.push(f.clone());
            }
        }
        flags.extend(self.made.flags.iter().cloned());
        let g = self.groups;
        flags.extend([
            "--groups".to_string(),
            format!("{},{},{}", g[0], g[1], g[2]),
        ]);
        flags
    }
}

/// The runs of one variant: the native run, then the translation on each
/// backend (where it differs, two more native runs and one more of its
/// own show which bindings depend on the order invocations ran in). Returns the native output and
/// the words it wrote, where it ran, and the runs. A backend in `hung`,
/// where the translation did not finish in an earlier variant, is not run
/// again: each try costs the whole timeout (most often a software driver
/// compiling a large kernel at its first dispatch, which a fresh device
/// would start over), and the earlier run decides the verdict already.
fn run_variant(
    kernel: &Kernel,
    contexts: &Contexts,
    opts: &CheckOptions,
    v: &Inputs,
    layouts: &[((u32, u32), Layout)],
    traits: Traits,
    hung: &[(String, Variant)],
) -> (Option<(RunOutput, usize)>, Vec<Run>) {
    let blank = |backend: &str, verdict, written, note: Option<String>| {
        Run::new(v.variant, backend, v.groups, verdict, written, note)
    };
    let native = match job::run(&contexts.native, kernel, v.groups, v.res, true) {
        Ok(o) => o,
        Err(e) => {
            let note = format!("native run: {e}");
            return (None, vec![blank("native", Verdict::NotRun, 0, Some(note))]);
        }
    };
    let written = written_words(kernel, &native, v);
    // More native runs, made once a translation differs: the bindings
    // they leave different depend on the order invocations ran in.
    let mut again: Option<Vec<RunOutput>> = None;
    let mut out = Vec::new();
    for (backend, ctx) in contexts.translations(kernel, opts) {
        if let Some((_, earlier)) = hung.iter().find(|(b, _)| *b == backend) {
            let note = format!(
                "the translation did not finish in the {} variant here",
                earlier.name()
            );
            out.push(blank(backend, Verdict::NotRun, 0, Some(note)));
            continue;
        }
        let (ctx, translation) = match ctx {
            Ok(c) => c,
            Err(e) => {
                out.push(blank(backend, Verdict::NotRun, 0, Some(e.to_string())));
                continue;
            }
        };
        let mut run = blank(backend, Verdict::Exact, written, None);
        match job::run(ctx, translation, v.groups, v.res, false) {
            Ok(t) => {
                let found = differing(&native, &t, layouts);
                let mut varying = Vec::new();
                if !found.is_empty() {
                    // Invocations that race show it in some runs only:
                    // two more native runs, one more of the translation.
                    let again = again.get_or_insert_with(|| {
                        (0..2)
                            .filter_map(|_| {
                                job::run(&contexts.native, kernel, v.groups, v.res, true).ok()
                            })
                            .collect::<Vec<RunOutput>>()
                    });
                    let t2 = job::run(ctx, translation, v.groups, v.res, false).ok();
                    let pairs = again
                        .iter()
                        .map(|n| (&native, n))
                        .chain(t2.iter().map(|t2| (&t, t2)));
                    for (x, y) in pairs {
                        varying.extend(differing(x, y, layouts).into_iter().map(|f| f.binding));
                    }
                }
                judge(&mut run, (&native, &t), found, &varying, opts, traits);
            }
            Err(e @ Error::Timeout { .. }) => {
                run.timed_out = true;
                run.verdict = Verdict::Differs;
                run.note = Some(format!(
                    "the translation did not finish where the original did: {e}"
                ));
            }
            Err(e) => {
                run.verdict = Verdict::NotRun;
                run.note = Some(e.to_string());
            }
        }
        if run.verdict == Verdict::Differs {
            run.inputs = v.flags(&opts.job);
        }
        out.push(run);
    }
    (Some((native, written)), out)
}

/// Whether every difference `found` holds is a float rounded otherwise:
/// within [`NEAR`], or [`HALF_NEAR`] where the kernel computes in halfs.
fn rounded_otherwise(found: &Found, traits: Traits) -> bool {
    found.float_sums || (traits.halfs && found.floats && found.largest_relative <= HALF_NEAR)
}

/// `run`'s verdict from the differences `found` between the native output
/// and the translation's (`outs`); `varying` names the bindings that a
/// run of either side, repeated, left different. Equal outputs of a run
/// that wrote nothing are unchecked.
fn judge(
    run: &mut Run,
    outs: (&RunOutput, &RunOutput),
    found: Vec<Found>,
    varying: &[String],
    opts: &CheckOptions,
    traits: Traits,
) {
    let (native, translated) = outs;
    for mut found in found {
        found.float_sums = rounded_otherwise(&found, traits);
        let (x, y) = (
            binding_at(native, found.slot),
            binding_at(translated, found.slot),
        );
        let varies = varying.contains(&found.binding);
        let ruled = opts
            .rules
            .iter()
            .find(|r| x.is_some_and(|b| r.names(b)))
            .map(|r| r.comparison);
        let rule = ruled.unwrap_or(Comparison::Multiset);
        let equal = match (x, y) {
            (Some(x), Some(y)) => {
                crate::validate::diff::differences(rule, &x.data, &y.data).is_empty()
            }
            _ => false,
        };
        let applied = if (varies || traits.atomic_results_used || ruled.is_some()) && equal {
            Some(format!("{}={}", found.binding, rule.name()))
        } else if traits.float_atomics && found.float_sums {
            Some(format!(
                "{}=float sums (within 1e-4 relative: float atomics add in the order invocations ran)",
                found.binding
            ))
        } else if varies {
            Some(format!(
                "{} not compared (another run differs from the first)",
                found.binding
            ))
        } else {
            None
        };
        let rounding = || {
            format!(
                "{}: {} floats, at most {:.1e} apart relatively",
                found.binding, found.count, found.largest_relative
            )
        };
        match applied {
            Some(rule) => {
                run.rules.push(rule);
                run.verdict = run.verdict.max(Verdict::OrderIndependent);
            }
            None if found.float_sums => {
                run.rules.push(rounding());
                run.rounded.push(found);
                run.verdict = run.verdict.max(Verdict::WithinRounding);
            }
            None => {
                run.verdict = Verdict::Differs;
                run.differences.push(found);
            }
        }
    }
    if run.verdict == Verdict::Exact && run.written == 0 {
        run.verdict = Verdict::Unchecked;
        run.note = Some("the native run wrote nothing".into());
    }
}

/// What the original's code says about which results may depend on the
/// order invocations ran in.
#[derive(Clone, Copy, Debug, Default)]
struct Traits {
    /// It stores or branches on the value an atomic returns (an append
    /// buffer's slot, a ticket): a binding holding the same values in
    /// another order is not a difference.
    atomic_results_used: bool,
    /// It adds floats atomically: sums round by the order of their terms.
    float_atomics: bool,
    /// It computes in 16-bit floats (`float16_t`; the Float16
    /// capability), which round to 11 significant bits: a backend's
    /// division or built-in within its half-precision error bound is a
    /// step of a half apart.
    halfs: bool,
}

/// The binding of `out` at `slot` (group, binding).
fn binding_at(out: &RunOutput, slot: (u32, u32)) -> Option<&BindingOutput> {
    out.bindings.iter().find(|b| (b.group, b.binding) == slot)
}

/// The name a report gives binding `b`.
fn name_of(b: &BindingOutput) -> String {
    b.name
        .clone()
        .unwrap_or_else(|| format!("{}.{}", b.group, b.binding))
}

/// Every writable binding of `a` that differs in `b`: buffers word by word
/// in their declared types, images and textures channel by channel.
fn differing(a: &RunOutput, b: &RunOutput, layouts: &[((u32, u32), Layout)]) -> Vec<Found> {
    let mut out = Vec::new();
    for (x, y) in a.bindings.iter().zip(&b.bindings) {
        if !x.writable {
            continue;
        }
        let layout = layouts
            .iter()
            .find(|(s, _)| *s == (x.group, x.binding))
            .map(|(_, l)| l);
        let buffer = layout.filter(|_| x.kind == "buffer");
        let (idx, apart): (Vec<usize>, Vec<Option<f64>>) = match buffer {
            Some(l) => buffer_differences(l, &x.bytes, &y.bytes)
                .into_iter()
                .unzip(),
            None => data_differences(&x.data, &y.data, rounding_step(x.format.as_deref()))
                .into_iter()
                .unzip(),
        };
        let kinds = buffer.map(|l| l.words(x.bytes.len().max(y.bytes.len())));
        let shown = |o: &BindingOutput, i: usize| match &kinds {
            Some(k) => word_text(
                k.get(i).map(|w| w.0),
                k.get(i + 1).map(|w| w.0),
                &o.bytes,
                i,
            ),
            None if i < o.data.len() => o.data.show(i),
            None => "(missing)".into(),
        };
        if idx.is_empty() {
            continue;
        }
        let out_of_range =
            buffer.is_some_and(|l| idx.iter().all(|&i| l.in_last_element(i * 4, x.bytes.len())));
        out.push(Found {
            binding: name_of(x),
            slot: (x.group, x.binding),
            count: idx.len(),
            first: idx
                .iter()
                .take(FIRST)
                .map(|&i| Difference {
                    index: i,
                    a: shown(x, i),
                    b: shown(y, i),
                })
                .collect(),
            out_of_range,
            float_sums: apart.iter().all(|a| a.is_some_and(|r| r <= NEAR)),
            largest_relative: apart.iter().flatten().fold(0.0, |m, &r| r.max(m)),
            floats: apart.iter().all(Option::is_some),
        });
    }
    out
}

/// Word `i` of a buffer's `bytes`, of type `kind` (the next word's type
/// `next`), as that type reads it: a 64-bit value whole from its low word,
/// since a sum that differs in its last bits shows as a large difference of
/// its low words.
fn word_text(kind: Option<Word>, next: Option<Word>, bytes: &[u8], i: usize) -> String {
    let w = word(bytes, i);
    let wide = || u64::from(w) | u64::from(word(bytes, i + 1)) << 32;
    match kind {
        _ if i * 4 >= bytes.len() => "(missing)".into(),
        Some(Word::F32) => f32::from_bits(w).to_string(),
        Some(Word::F64) => f64::from_bits(wide()).to_string(),
        Some(Word::Int) if next == Some(Word::IntHigh) => format!("{:#018x} ({})", wide(), wide()),
        _ => format!("{w:#010x}"),
    }
}

/// Word `i` of `bytes` (0 past the end).
fn word(bytes: &[u8], i: usize) -> u32 {
    bytes
        .get(i * 4..i * 4 + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The words of two buffers that differ, floats compared as floats; with
/// each, for finite floats, how far apart they are ([`relative`], against
/// the largest float of `x`, the native run's).
fn buffer_differences(l: &Layout, x: &[u8], y: &[u8]) -> Vec<(usize, Option<f64>)> {
    let n = x.len().max(y.len()).div_ceil(4);
    let words = l.words(n * 4);
    let double = |bytes: &[u8], i: usize| {
        f64::from_bits(u64::from(word(bytes, i)) | u64::from(word(bytes, i + 1)) << 32)
    };
    // Word i as a float, where the layout says it is one.
    let float = |bytes: &[u8], i: usize| match words[i].0 {
        Word::F32 => Some(f64::from(f32::from_bits(word(bytes, i)))),
        Word::F64 => Some(double(bytes, i)),
        _ => None,
    };
    let largest = largest_finite((0..n).filter_map(|i| float(x, i)));
    (0..n)
        .filter_map(|i| {
            if words[i].0 == Word::F64High {
                // Compared with its low word.
                return None;
            }
            let (Some(p), Some(q)) = (float(x, i), float(y, i)) else {
                let (a, b) = (word(x, i), word(y, i));
                let missing = (i * 4 >= x.len()) != (i * 4 >= y.len());
                return (a != b || missing).then_some((i, None));
            };
            (!same_f64(p, q)).then_some((i, relative(p, q, largest)))
        })
        .collect()
}

/// The largest magnitude among finite `values` (0 for none).
fn largest_finite(values: impl Iterator<Item = f64>) -> f64 {
    values
        .filter(|v| v.is_finite())
        .fold(0.0, |m, v| v.abs().max(m))
}

/// Elements of two images' data that differ, floats as floats and no
/// closer than one rounding `step` of the format ([`rounding_step`]); with
/// each, for finite floats, how far apart they are ([`relative`]).
fn data_differences(x: &Data, y: &Data, step: Step) -> Vec<(usize, Option<f64>)> {
    let n = x.len().max(y.len());
    let (xb, yb) = (x.bits(), y.bits());
    let largest = match x {
        Data::F32(v) => largest_finite(v.iter().map(|&f| f64::from(f))),
        _ => 0.0,
    };
    (0..n)
        .filter_map(|i| match (x, y) {
            (Data::F32(a), Data::F32(b)) => match (a.get(i), b.get(i)) {
                (Some(p), Some(q)) => {
                    let (p, q) = (f64::from(*p), f64::from(*q));
                    let within =
                        (p - q).abs() <= step.absolute.max(step.relative * p.abs().max(q.abs()));
                    (!same_f64(p, q) && !within).then_some((i, relative(p, q, largest)))
                }
                _ => Some((i, None)),
            },
            _ => (xb.get(i) != yb.get(i)).then_some((i, None)),
        })
        .collect()
}

/// How far apart two conversions of one value to a texel format may be.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Step {
    absolute: f64,
    relative: f64,
}

/// One representable step of a storage format whose conversion from a
/// 32-bit float the Vulkan and WebGPU specs leave to the implementation
/// (round to nearest, or toward zero): normalized 8-, 10- and 16-bit
/// channels, 16-bit floats, and the 11- and 10-bit floats of
/// `r11f_g11f_b10f`. None for 32-bit channels, which hold the float itself.
fn rounding_step(format: Option<&str>) -> Step {
    let f = format.unwrap_or_default().to_ascii_lowercase();
    let integer =
        f.ends_with("ui") || f.ends_with('i') || f.ends_with("uint") || f.ends_with("sint");
    let step = |absolute, relative| Step { absolute, relative };
    if integer || f.contains("32") || f.is_empty() {
        step(0.0, 0.0)
    } else if f.contains("11") {
        step(0.0, 1.0 / 32.0)
    } else if f.contains("16f") || f.contains("16float") {
        step(0.0, 1.0 / 1024.0)
    } else if f.contains("10") {
        step(1.0 / 1023.0 + 1e-9, 0.0)
    } else if f.contains("16") {
        step(1.0 / 65535.0 + 1e-12, 0.0)
    } else {
        step(1.0 / 255.0 + 1e-9, 0.0)
    }
}

/// How far apart two floats may be, relatively, and still be the same
/// arithmetic rounded otherwise: sums of the same terms added in another
/// order, a multiply and an add fused or not, a division or built-in within
/// its error bound.
const NEAR: f64 = 1e-4;

/// [`NEAR`] for a kernel that computes in 16-bit floats: two steps of a
/// half's 11 significant bits.
const HALF_NEAR: f64 = 1.0 / 512.0;

/// How far apart two finite floats are, relative to the larger of them or,
/// for values under a hundredth of the binding's `largest` (the native
/// run's largest finite float there), to that hundredth: a result that
/// cancels its terms (`v * damping + f * dt` near 0) keeps their rounding
/// error, which is small against the terms, not against itself. `None`
/// where either is not finite.
fn relative(a: f64, b: f64, largest: f64) -> Option<f64> {
    (a.is_finite() && b.is_finite())
        .then(|| (a - b).abs() / a.abs().max(b.abs()).max(largest / 100.0))
}

/// Floats equal as floats (so -0 equals 0), and any NaN equal to any: no
/// spec fixes a NaN's sign or payload.
fn same_f64(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Words (texel channels for images) the native run changed from its inputs.
fn written_words(kernel: &Kernel, native: &RunOutput, v: &Inputs) -> usize {
    let mut n = 0;
    for b in native.bindings.iter().filter(|b| b.writable) {
        if b.kind == "buffer" {
            // An element of a binding array is reported as `NAME[k]`.
            let element = b
                .name
                .as_deref()
                .and_then(Kernel::split_element)
                .map_or(0, |(_, k)| k);
            let input = v
                .made
                .buffers
                .iter()
                .find(|(s, _)| *s == (b.group, b.binding, element))
                .map(|(_, bytes)| bytes);
            n += match input {
                Some(i) => (0..b.bytes.len().div_ceil(4))
                    .filter(|&k| word(i, k) != word(&b.bytes, k))
                    .count(),
                // Bytes the check cannot know: every non-zero word.
                None => (0..b.bytes.len().div_ceil(4))
                    .filter(|&k| word(&b.bytes, k) != 0)
                    .count(),
            };
        } else {
            // Generated images start at one value ([`inputs::image_fill`]).
            let fill: f64 = kernel
                .bindings()
                .iter()
                .find(|i| (i.group, i.binding) == (b.group, b.binding))
                .map_or(0.0, |i| {
                    inputs::image_fill(i, v.variant).parse().unwrap_or(0.0)
                });
            let value = |i: usize| match &b.data {
                Data::U32(d) => f64::from(d[i]),
                Data::I32(d) => f64::from(d[i]),
                Data::F32(d) => f64::from(d[i]),
                Data::U64(d) => d[i] as f64,
                Data::I64(d) => d[i] as f64,
            };
            n += (0..b.data.len()).filter(|&i| value(i) != fill).count();
        }
    }
    n
}

/// The [`Traits`] of a SPIR-V module (none known where rspirv cannot read it).
fn traits(words: &[u32]) -> Traits {
    use rspirv::spirv::Op;
    let Ok(module) = rspirv::dr::load_words(words) else {
        return Traits::default();
    };
    // An atomic's value: every atomic but a load or a store (whose value
    // is read or written whatever the order).
    let atomic = |op: Op| {
        crate::lower::model::is_atomic(op) && !matches!(op, Op::AtomicLoad | Op::AtomicStore)
    };
    let body = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions);
    let results: Vec<u32> = body
        .clone()
        .filter(|i| atomic(i.class.opcode))
        .filter_map(|i| i.result_id)
        .collect();
    let used = body.clone().any(|i| {
        i.operands
            .iter()
            .any(|o| matches!(o, rspirv::dr::Operand::IdRef(id) if results.contains(id)))
    });
    Traits {
        atomic_results_used: used,
        float_atomics: body.clone().any(|i| i.class.opcode == Op::AtomicFAddEXT),
        halfs: module.capabilities.iter().any(|c| {
            c.operands.first()
                == Some(&rspirv::dr::Operand::Capability(
                    rspirv::spirv::Capability::Float16,
                ))
        }),
    }
}

/// The largest relative distance of the floats a run found apart.
fn largest(r: &Run) -> f64 {
    r.rounded.iter().fold(0.0, |m, f| f.largest_relative.max(m))
}

/// The shader's verdict from its runs: the worst of the well-formed runs
/// that wrote, or that differ though the native run wrote nothing (the
/// translation wrote, or did not finish where the original did: equal
/// empty outputs prove nothing, but a difference is one); where none
/// did, of the raw runs that wrote.
fn verdict_of(runs: Vec<Run>) -> Report {
    let wrote = |r: &&Run| r.written > 0 && r.verdict != Verdict::NotRun;
    let well: Vec<&Run> = runs
        .iter()
        .filter(|r| r.variant.well_formed() && !r.past_the_end)
        .filter(|r| wrote(r) || r.verdict == Verdict::Differs)
        .collect();
    let raw: Vec<&Run> = runs
        .iter()
        .filter(|r| !r.variant.well_formed())
        .filter(wrote)
        .collect();
    let possible_undefined: Vec<String> = runs
        .iter()
        .filter(|r| (!r.variant.well_formed() || r.past_the_end) && r.verdict == Verdict::Differs)
        .map(|r| {
            let b: Vec<&str> = r.differences.iter().map(|d| d.binding.as_str()).collect();
            let past = if r.past_the_end {
                " (only past the end: the native backends agree)"
            } else {
                ""
            };
            format!(
                "{} on {}: {}{past}",
                r.variant.name(),
                r.backend,
                b.join(", ")
            )
        })
        .collect();
    // Where only raw inputs made it write, their differences are the
    // original's possible undefined behaviour: the verdict rests on the
    // raw runs that agree.
    let basis: Vec<&Run> = if well.is_empty() {
        raw.iter()
            .copied()
            .filter(|r| r.verdict != Verdict::Differs)
            .collect()
    } else {
        well.clone()
    };
    let (verdict, reason) = if runs.iter().all(|r| r.verdict == Verdict::NotRun) {
        (Verdict::NotRun, runs.iter().find_map(|r| r.note.clone()))
    } else if basis.is_empty() && !raw.is_empty() {
        (
            Verdict::Unchecked,
            Some("only raw inputs made the native run write, and the translation differs under them: possibly the original's undefined behaviour".to_string()),
        )
    } else if basis.is_empty() {
        (
            Verdict::Unchecked,
            Some("no variant made the native run write anything".to_string()),
        )
    } else {
        let worst = basis
            .iter()
            .map(|r| r.verdict)
            .max()
            .unwrap_or(Verdict::Exact);
        let why = match worst {
            Verdict::Differs => basis
                .iter()
                .find(|r| r.verdict == Verdict::Differs)
                .map(|r| {
                    let b: Vec<String> = r
                        .differences
                        .iter()
                        .map(|d| {
                            // Floats all: how far apart, for telling a
                            // precision the target allows (a browser's
                            // sin and cos) from a wrong value.
                            if d.floats && d.largest_relative > 0.0 {
                                format!(
                                    "{} ({} elements, floats at most {:.1e} apart relatively)",
                                    d.binding, d.count, d.largest_relative
                                )
                            } else {
                                format!("{} ({} elements)", d.binding, d.count)
                            }
                        })
                        .collect();
                    format!(
                        "{} on {}: {}",
                        r.variant.name(),
                        r.backend,
                        r.note.clone().unwrap_or_else(|| b.join(", "))
                    )
                }),
            Verdict::OrderIndependent => basis
                .iter()
                .find(|r| r.verdict == Verdict::OrderIndependent)
                .map(|r| r.rules.join("; ")),
            Verdict::WithinRounding => basis
                .iter()
                .filter(|r| r.verdict == Verdict::WithinRounding)
                .max_by(|a, b| largest(a).total_cmp(&largest(b)))
                .map(|r| {
                    format!(
                        "{} on {}: {}",
                        r.variant.name(),
                        r.backend,
                        r.rules.join("; ")
                    )
                }),
            _ if well.is_empty() => Some("only raw inputs made the native run write".to_string()),
            _ => None,
        };
        (worst, why)
    };
    Report {
        verdict,
        reason,
        possible_undefined,
        runs,
        seconds: 0.0,
    }
}
#[cfg(test)]
mod tests;
