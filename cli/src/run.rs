//! `atomport run` and `atomport diff`: one job on one adapter, printed;
//! the same job on several (backends, or the original natively), compared.

use atomport::wgpu;
use std::io::Write;

use atomport::runtime::run::RunOutput;
use atomport::validate::diff::{BindingDiff, Rule};
use atomport::{BackendChoice, Context, ContextOptions, Error};

use super::args::{AdapterArgs, DiffArgs, JobArgs, ShaderArgs, Side};
use super::{context_options, emit, leave};
use atomport::runtime::job;

/// Loads the shader once for every adapter of `opts`, in the forms all
/// of them run (native float atomics, binding arrays: see
/// `SourceOptions::fitted_to`).
fn load(
    shader: &ShaderArgs,
    job: &JobArgs,
    opts: &[ContextOptions],
) -> atomport::Result<atomport::Kernel> {
    let mut features: Option<wgpu::Features> = None;
    for o in opts {
        let has = o.adapter_features()?;
        features = Some(features.map_or(has, |f| f & has));
    }
    shader.load(features.unwrap_or_default(), job.timeout, false)
}

/// Writes the `--out-png` textures of one job's output.
fn write_pngs(job: &JobArgs, out: &RunOutput) -> atomport::Result<()> {
    for (name, path) in &job.out_png {
        write_png(out, name, path)?;
    }
    Ok(())
}

/// Writes the 2D texture binding `name` of a job's output as a PNG file.
fn write_png(out: &RunOutput, name: &str, path: &std::path::Path) -> atomport::Result<()> {
    let b = out
        .bindings
        .iter()
        .find(|b| b.name.as_deref() == Some(name))
        .ok_or_else(|| {
            let names: Vec<&str> = out
                .bindings
                .iter()
                .filter(|b| b.kind.ends_with("texture"))
                .filter_map(|b| b.name.as_deref())
                .collect();
            Error::Spec(format!(
                "--out-png {name}: no texture of that name in the job (textures: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ))
        })?;
    let (Some(dim), Some(format), Some(size)) = (&b.dim, &b.format, &b.size) else {
        return Err(Error::Spec(format!(
            "--out-png {name}: `{name}` is a {}, not a texture",
            b.kind
        )));
    };
    let fmt = atomport::runtime::texture::parse_format(format)
        .filter(|_| dim == "2d" && b.kind.ends_with("texture"))
        .ok_or_else(|| {
            Error::Spec(format!(
                "--out-png {name}: PNG output takes a 2d texture of an 8-bit unorm format, not a {format} {dim} {}",
                b.kind.replace('_', " ")
            ))
        })?;
    let atomport::runtime::run::Data::F32(values) = &b.data else {
        return Err(Error::Spec(format!(
            "--out-png {name}: PNG output takes an 8-bit unorm format, not {format}"
        )));
    };
    // Decoded channels are in RGBA order whatever the format stores.
    let fmt = match fmt {
        wgpu::TextureFormat::Bgra8Unorm => wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureFormat::Bgra8UnormSrgb => wgpu::TextureFormat::Rgba8UnormSrgb,
        f => f,
    };
    let bytes: Vec<u8> = values.iter().map(|v| (v * 255.0).round() as u8).collect();
    atomport::runtime::texture::write_png(path, size[0], size[1], fmt, &bytes).map_err(
        |e| match e {
            Error::Resource(m) => Error::Spec(format!("--out-png {name}: {m}")),
            e => e,
        },
    )
}

/// `atomport run`.
pub fn run(
    shader: &ShaderArgs,
    job: &JobArgs,
    adapter: &AdapterArgs,
    json: bool,
) -> atomport::Result<()> {
    let opts = context_options(adapter, job.timeout)?;
    let kernel = load(shader, job, std::slice::from_ref(&opts))?;
    let ctx = Context::new(&opts.with_features(kernel.required_features()))?;
    let out = job::run(&ctx, &kernel, job.groups, &job.resources(), false)?;
    write_pngs(job, &out)?;
    if json {
        let mut text = serde_json::to_string(&out).expect("job output serializes");
        text.push('\n');
        emit(&text)
    } else {
        emit(&listing(&out))
    }
}

/// The runs `diff` compares, the reference first: `--backends` in its
/// order, or with `--native` alone every backend present; `--native` puts
/// the native run first.
fn sides(args: &DiffArgs) -> atomport::Result<Vec<Side>> {
    let mut sides = match &args.backends {
        Some(s) => s.0.clone(),
        None if args.native => BackendChoice::SINGLE
            .iter()
            .filter(|b| !atomport::adapters(**b).is_empty())
            .map(|b| Side::Translated(*b))
            .collect(),
        None => Vec::new(),
    };
    if args.native && !sides.contains(&Side::Native) {
        sides.insert(0, Side::Native);
    }
    if sides.len() < 2 {
        return Err(Error::Spec(
            "--backends: expected two backends or more to compare, e.g. vulkan,gl or native,vulkan (or --native)"
                .into(),
        ));
    }
    Ok(sides)
}

/// One run of a diff, done.
struct Ran {
    side: Side,
    out: RunOutput,
}

/// Opens one context per adapter the sides need (the native run shares the
/// Vulkan translation's, opened with PASSTHROUGH_SHADERS where the adapter
/// has it) and runs the job on each side. A native run that cannot be
/// made is dropped with a note under `--native-optional`. Returns the runs
/// and the `--compare` rules with their bindings as `GROUP.BINDING`.
fn run_sides(args: &DiffArgs, sides: &[Side]) -> atomport::Result<(Vec<Ran>, Vec<Rule>)> {
    let (shader, job) = (&args.shader, &args.job);
    let base = ContextOptions::from_env_with(None)?.with_timeout(job.timeout);
    let backend_of = |s: Side| match s {
        Side::Translated(b) => b,
        Side::Native => BackendChoice::Vulkan,
    };
    let translated: Vec<ContextOptions> = sides
        .iter()
        .filter(|s| **s != Side::Native)
        .map(|s| base.clone().with_backend(backend_of(*s)))
        .collect();
    let kernel = load(shader, job, &translated)?;
    let rules = args
        .compare
        .iter()
        .map(|r| r.for_kernel(&kernel))
        .collect::<atomport::Result<Vec<_>>>()?;
    let resources = job.resources();
    let mut contexts: Vec<(BackendChoice, Context)> = Vec::new();
    let mut ran = Vec::new();
    for &side in sides {
        let backend = backend_of(side);
        if !contexts.iter().any(|(b, _)| *b == backend) {
            match open(&base, backend, &kernel, sides) {
                Ok(ctx) => contexts.push((backend, ctx)),
                // Backends `--native` found by itself are compared where
                // they can run the kernel.
                Err(e @ Error::MissingFeature { .. })
                    if args.backends.is_none() && side != Side::Native =>
                {
                    let _ = writeln!(
                        std::io::stderr(),
                        "atomport: note: {} not compared: {e}",
                        side.name()
                    );
                    continue;
                }
                Err(e) => return Err(e),
            }
        }
        let ctx = &contexts
            .iter()
            .find(|(b, _)| *b == backend)
            .expect("opened")
            .1;
        match job::run(ctx, &kernel, job.groups, &resources, side == Side::Native) {
            Ok(out) => ran.push(Ran { side, out }),
            Err(e @ Error::NoNative(_)) if args.native_optional => {
                // A closed stderr leaves the report to say it.
                let _ = writeln!(
                    std::io::stderr(),
                    "atomport: note: {e}; comparing the translations alone"
                );
            }
            Err(e) => return Err(e),
        }
    }
    if ran.len() < 2 {
        return Err(Error::NoNative(
            "nothing is left to compare the translation with".into(),
        ));
    }
    Ok((ran, rules))
}

/// The context for `backend`: with the kernel's features, and on Vulkan
/// with PASSTHROUGH_SHADERS when a native run is among `sides`. No Vulkan
/// adapter for the native run is the feature missing.
fn open(
    base: &ContextOptions,
    backend: BackendChoice,
    kernel: &atomport::Kernel,
    sides: &[Side],
) -> atomport::Result<Context> {
    let o = base
        .clone()
        .with_backend(backend)
        .with_features(kernel.required_features());
    if backend != BackendChoice::Vulkan || !sides.contains(&Side::Native) {
        return Context::new(&o);
    }
    Context::new(&o.for_native()?)
}

/// `atomport diff`.
pub fn diff(args: &DiffArgs) -> atomport::Result<()> {
    let sides = sides(args)?;
    if sides.contains(&Side::Native) && args.shader.is_wgsl() && !args.native_optional {
        return Err(Error::Spec(format!(
            "--native: {} is WGSL, which has no original SPIR-V to run natively",
            args.shader.path.display()
        )));
    }
    let (ran, rules) = run_sides(args, &sides)?;
    let reference = &ran[0];
    // Once, from the reference: the diff says whether the others agree.
    write_pngs(&args.job, &reference.out)?;
    let mut comparisons = Vec::new();
    for other in &ran[1..] {
        let d = atomport::validate::diff::compare_with(&reference.out, &other.out, &rules)?;
        comparisons.push((other, d));
    }
    let differing = comparisons.iter().filter(|(_, d)| !d.is_empty()).count();
    emit(&if args.json {
        diff_json(&ran, &comparisons, &rules)
    } else {
        diff_text(&ran, &comparisons)
    })?;
    if differing > 0 {
        leave(1);
    }
    Ok(())
}

/// `diff --json`: the runs, and each comparison with the reference.
fn diff_json(ran: &[Ran], comparisons: &[(&Ran, Vec<BindingDiff>)], rules: &[Rule]) -> String {
    let total: usize = comparisons
        .iter()
        .flat_map(|(_, d)| d.iter().map(|b| b.count))
        .sum();
    let v = serde_json::json!({
        "runs": ran.iter().map(|r| serde_json::json!({
            "run": r.side.name(),
            "adapter": r.out.adapter,
        })).collect::<Vec<_>>(),
        "reference": ran[0].side.name(),
        "rules": rules.iter().map(|r| serde_json::json!({
            "binding": r.binding,
            "comparison": r.comparison,
        })).collect::<Vec<_>>(),
        "equal": total == 0,
        "differences": total,
        "comparisons": comparisons.iter().map(|(r, d)| serde_json::json!({
            "run": r.side.name(),
            "equal": d.is_empty(),
            "differences": d.iter().map(|b| b.count).sum::<usize>(),
            "bindings": d,
        })).collect::<Vec<_>>(),
    });
    format!("{v}\n")
}

/// `diff`'s report: the runs, then each one's differences from the reference.
fn diff_text(ran: &[Ran], comparisons: &[(&Ran, Vec<BindingDiff>)]) -> String {
    let mut o = String::new();
    for r in ran {
        let what = if r.side == Side::Native {
            "the original SPIR-V, natively"
        } else {
            "translated"
        };
        outln!(
            o,
            "{}: {} ({}), {what}",
            r.side.name(),
            r.out.adapter.name,
            r.out.adapter.backend
        );
    }
    let a = ran[0].side.name();
    let bindings = ran[0].out.bindings.iter().filter(|b| b.writable).count();
    for (r, diffs) in comparisons {
        let b = r.side.name();
        if diffs.is_empty() {
            outln!(o, "{b} against {a}: equal");
        }
        for d in diffs {
            let name = d
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            outln!(
                o,
                "{b} against {a}: binding {}.{}{name} ({}): {} element(s) differ",
                d.group,
                d.binding,
                d.comparison.name(),
                d.count
            );
            for e in &d.first {
                outln!(o, "  [{}] {a}={} {b}={}", e.index, e.a, e.b);
            }
        }
    }
    let differing = comparisons.iter().filter(|(_, d)| !d.is_empty()).count();
    if differing == 0 {
        outln!(
            o,
            "equal: every element of the {bindings} binding(s) the kernel writes, on {} runs",
            ran.len()
        );
    } else {
        outln!(
            o,
            "{differing} of {} run(s) differ from {a}",
            comparisons.len()
        );
    }
    o
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
                // One number per texel, or every channel of every texel.
                let channels = atomport::ImageFormat::parse(format).map_or(1, |f| f.layout().0);
                let texels = b.data.len() / channels as usize;
                format!(
                    "{format} {dim} image {}, {} sample(s): {texels} texels in texel order{}",
                    size_text(size),
                    b.samples.unwrap_or(1),
                    if channels > 1 {
                        format!(", {channels} channels each")
                    } else {
                        String::new()
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
        if let Some(note) = &b.note {
            outln!(s, "  ({note})");
        }
        for start in (0..b.data.len()).step_by(8) {
            let row: Vec<String> = (start..(start + 8).min(b.data.len()))
                .map(|i| b.data.show(i))
                .collect();
            outln!(s, "  [{start:>6}] {}", row.join(" "));
        }
    }
    for a in &out.addressable {
        outln!(
            s,
            "addressable buffer `{}` at {:#x}: {}[{}]",
            a.name,
            a.address,
            a.ty.name(),
            a.data.len()
        );
        for start in (0..a.data.len()).step_by(8) {
            let row: Vec<String> = (start..(start + 8).min(a.data.len()))
                .map(|i| a.data.show(i))
                .collect();
            outln!(s, "  [{start:>6}] {}", row.join(" "));
        }
    }
    for p in &out.push_constants {
        let values: Vec<String> = (0..p.value.len()).map(|i| p.value.show(i)).collect();
        outln!(
            s,
            "push constant `{}` ({}): {}",
            p.name,
            p.ty,
            values.join(" ")
        );
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
