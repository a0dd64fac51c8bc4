//! What the benchmarks share: flags, medians and interleaved runs.
#![allow(dead_code)]

use std::time::Duration;

use atomport::BackendChoice;

/// The value after `--name`, if given.
pub fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// `--backend NAME` (default: the best adapter) and `--runs N`.
pub fn backend_and_runs(default_runs: usize) -> (BackendChoice, usize) {
    let backend = flag("--backend")
        .map(|b| b.parse().expect("--backend names a backend"))
        .unwrap_or_default();
    let runs = flag("--runs")
        .map(|r| r.parse().expect("--runs is a count"))
        .unwrap_or(default_runs);
    (backend, runs)
}

/// How long `f` takes.
pub fn time(f: impl FnOnce()) -> Duration {
    let t = std::time::Instant::now();
    f();
    t.elapsed()
}

/// The CPU time this process has used so far, all its threads (ended ones
/// too) together: user and system.
pub fn process_cpu_time() -> Duration {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// This process's peak resident memory so far, in KiB: `VmHWM`, which
/// an exec starts afresh (getrusage's `ru_maxrss` keeps the parent's).
pub fn peak_memory_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The median.
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `a` and `b` `runs` times each, alternating which goes first so that
/// drift hits both alike, after one untimed warm-up round; each closure
/// times its own measured part. Returns the two medians.
pub fn interleaved(
    runs: usize,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    a();
    b();
    let (mut ta, mut tb) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in 0..runs {
        if i % 2 == 0 {
            ta.push(a());
            tb.push(b());
        } else {
            tb.push(b());
            ta.push(a());
        }
    }
    (median(ta), median(tb))
}

/// A compute pipeline for `wgsl`'s `main`, in plain wgpu (the benchmarks'
/// hand-written side).
pub fn raw_pipeline(device: &wgpu::Device, wgsl: &str) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}
