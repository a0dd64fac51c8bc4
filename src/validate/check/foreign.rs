//! Runs outside this process: the WebGPU translation in a browser, given
//! the same bytes the native run had (as `run`'s flags), its outputs
//! judged here as a backend's are.

use std::sync::Arc;

use serde::Serialize;

use super::{CheckOptions, Inputs, Run, Traits, Variant, Verdict, differing, judge};
use crate::runtime::run::RunOutput;
use crate::validate::check::inputs::Layout;
use crate::{Kernel, Translation};

/// One job for a foreign runner.
#[derive(Clone, Debug, Serialize)]
pub struct ForeignJob {
    /// What to call it in messages.
    pub name: String,
    /// The translation to run.
    pub translation: Translation,
    /// `run`'s flags: every input, and `--groups`.
    pub job: Vec<String>,
}

/// What a foreign run left: each binding's bytes, by (group, binding,
/// name), the name telling apart the elements of an array at one binding.
pub type ForeignOutput = Vec<((u32, u32, Option<String>), Vec<u8>)>;

/// The runner's signature: every job's output, or why it did not run.
pub type RunForeign = dyn Fn(&[ForeignJob]) -> Vec<Result<ForeignOutput, String>> + Send + Sync;

/// A runner of translations outside this process, named as its runs are
/// reported (`browser`). It gets all of a shader's jobs at once, so that
/// it starts once per shader.
#[derive(Clone)]
pub struct Foreign {
    /// The name its runs are reported under.
    pub name: String,
    /// Runs the jobs.
    pub run: Arc<RunForeign>,
}

impl std::fmt::Debug for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Foreign").field("name", &self.name).finish()
    }
}

/// A variant run natively, waiting for the foreign run.
pub(super) struct Pending {
    variant: Variant,
    groups: [u32; 3],
    flags: Vec<String>,
    native: RunOutput,
    written: usize,
}

impl Pending {
    /// The variant `v`, with the flags given (`job`, but its `--groups`) and
    /// those generated, and what its native run left and wrote.
    pub(super) fn new(v: &Inputs, job: &[String], native: RunOutput, written: usize) -> Pending {
        let flags = v.flags(job);
        Pending {
            variant: v.variant,
            groups: v.groups,
            flags,
            native,
            written,
        }
    }
}

/// Runs `pending` through `f` and judges each output against its native
/// run.
pub(super) fn run(
    f: &Foreign,
    kernel: &Kernel,
    opts: &CheckOptions,
    pending: Vec<Pending>,
    layouts: &[((u32, u32), Layout)],
    traits: Traits,
) -> Vec<Run> {
    let translation = Translation::of_kernel(kernel);
    let jobs: Vec<ForeignJob> = pending
        .iter()
        .map(|p| ForeignJob {
            name: format!("{} ({})", kernel.entry(), p.variant.name()),
            translation: translation.clone(),
            job: p.flags.clone(),
        })
        .collect();
    let mut outputs = (f.run)(&jobs).into_iter();
    let mut runs = Vec::new();
    for p in pending {
        let mut run = Run::new(
            p.variant,
            &f.name,
            p.groups,
            Verdict::Exact,
            p.written,
            None,
        );
        match outputs.next() {
            Some(Ok(out)) => {
                let mut there = p.native.clone();
                for b in &mut there.bindings {
                    let key = (b.group, b.binding, b.name.clone());
                    if let Some((_, bytes)) = out.iter().find(|(s, _)| *s == key) {
                        *b = b.with_bytes(bytes.clone());
                    }
                }
                let found = differing(&p.native, &there, layouts);
                judge(&mut run, (&p.native, &there), found, &[], opts, traits);
                if run.verdict == Verdict::Differs {
                    run.inputs = p.flags.clone();
                }
            }
            Some(Err(e)) => {
                run.verdict = Verdict::NotRun;
                run.note = Some(e);
            }
            None => {
                run.verdict = Verdict::NotRun;
                run.note = Some(format!("{} returned no output for it", f.name));
            }
        }
        runs.push(run);
    }
    runs
}
