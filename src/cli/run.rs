//! `atomport run` and `atomport diff`: one job on one adapter, printed;
//! the same job on two, compared.

use atomport::{BackendChoice, Context, ContextOptions, RunOutput};

use super::args::{AdapterArgs, JobArgs, ShaderArgs};
use super::job;
use super::{context_options, emit, leave};

/// Loads the shader once for every adapter of `opts` (native float
/// atomics only where all of them have SHADER_FLOAT32_ATOMIC), opens each
/// and runs the job there.
fn run_job(
    shader: &ShaderArgs,
    job: &JobArgs,
    opts: &[ContextOptions],
) -> atomport::Result<Vec<RunOutput>> {
    let mut native = true;
    for o in opts {
        native &= o
            .adapter_features()?
            .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC);
    }
    let kernel = shader.load(native, job.timeout)?;
    let resources = job.resources();
    opts.iter()
        .map(|o| {
            let ctx = Context::new(&o.clone().with_features(kernel.required_features()))?;
            job::run(&ctx, &kernel, job.groups, &resources)
        })
        .collect()
}

/// Writes the `--out-png` textures of one job's output.
fn write_pngs(job: &JobArgs, out: &RunOutput) -> atomport::Result<()> {
    for (name, path) in &job.out_png {
        job::write_png(out, name, path)?;
    }
    Ok(())
}

/// `atomport run`.
pub fn run(
    shader: &ShaderArgs,
    job: &JobArgs,
    adapter: &AdapterArgs,
    json: bool,
) -> atomport::Result<()> {
    let out = run_job(shader, job, &[context_options(adapter, job.timeout)?])?;
    let out = &out[0];
    write_pngs(job, out)?;
    if json {
        let mut text = serde_json::to_string(out).expect("job output serializes");
        text.push('\n');
        emit(&text)
    } else {
        emit(&listing(out))
    }
}

/// `atomport diff`.
pub fn diff(
    shader: &ShaderArgs,
    job: &JobArgs,
    (a, b): (BackendChoice, BackendChoice),
    json: bool,
) -> atomport::Result<()> {
    let base = ContextOptions::from_env_with(Some(a))?.with_timeout(job.timeout);
    let outs = run_job(
        shader,
        job,
        &[base.clone().with_backend(a), base.with_backend(b)],
    )?;
    let (out_a, out_b) = (&outs[0], &outs[1]);
    // Once, from the first backend: the diff says whether the second agrees.
    write_pngs(job, out_a)?;
    let diffs = atomport::validate::diff::compare(out_a, out_b);
    let total: usize = diffs.iter().map(|d| d.count).sum();
    let mut o = String::new();
    if json {
        let v = serde_json::json!({
            "adapters": [out_a.adapter, out_b.adapter],
            "equal": diffs.is_empty(),
            "differences": total,
            "bindings": diffs,
        });
        outln!(o, "{v}");
    } else {
        outln!(
            o,
            "a: {} ({})\nb: {} ({})",
            out_a.adapter.name,
            out_a.adapter.backend,
            out_b.adapter.name,
            out_b.adapter.backend
        );
        for d in &diffs {
            let name = d
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            outln!(
                o,
                "binding {}.{}{name}: {} element(s) differ",
                d.group,
                d.binding,
                d.count
            );
            for e in &d.first {
                outln!(o, "  [{}] a={} b={}", e.index, e.a, e.b);
            }
        }
        let bindings = out_a.bindings.len();
        if diffs.is_empty() {
            outln!(o, "equal: every element of {bindings} binding(s)");
        } else {
            outln!(
                o,
                "{total} element(s) differ in {} of {bindings} binding(s)",
                diffs.len()
            );
        }
    }
    emit(&o)?;
    if !diffs.is_empty() {
        leave(1);
    }
    Ok(())
}

/// The human-readable form of a run's output.
fn listing(out: &RunOutput) -> String {
    let mut s = String::new();
    outln!(s, "adapter: {} ({})", out.adapter.name, out.adapter.backend);
    for b in &out.bindings {
        let name = b
            .name
            .as_deref()
            .map(|n| format!(" `{n}`"))
            .unwrap_or_default();
        let size_text = |size: &[u32]| {
            size.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        let what = match (b.ty, &b.dim, &b.format, &b.size) {
            (Some(ty), ..) => format!("{}[{}]", ty.name(), b.data.len()),
            (None, Some(dim), Some(format), Some(size)) if b.kind == "image" => {
                // 64-bit texels are shown as their two words, low first.
                let words = atomport::ImageFormat::parse(format).map_or(1, |f| f.words());
                format!(
                    "{format} {dim} image {}, {} sample(s): {} texels in texel order{}",
                    size_text(size),
                    b.samples.unwrap_or(1),
                    b.data.len() / words,
                    if words == 2 {
                        ", each as two words, low first"
                    } else {
                        ""
                    }
                )
            }
            (None, Some(dim), Some(format), Some(size)) => format!(
                "{format} {dim} {} {}: level 0, {} channel values in texel order",
                b.kind.replace('_', " "),
                size_text(size),
                b.data.len()
            ),
            _ => b.kind.to_string(),
        };
        outln!(s, "binding {}.{}{name}: {what}", b.group, b.binding);
        for start in (0..b.data.len()).step_by(8) {
            let row: Vec<String> = (start..(start + 8).min(b.data.len()))
                .map(|i| b.data.show(i))
                .collect();
            outln!(s, "  [{start:>6}] {}", row.join(" "));
        }
    }
    for c in &out.counters {
        outln!(
            s,
            "counter `{}` (binding {}.{} offset {}): {}",
            c.name,
            c.group,
            c.binding,
            c.offset,
            c.value
        );
    }
    s
}
