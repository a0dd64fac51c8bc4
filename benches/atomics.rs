//! Throughput of atomport's mappings against the nearest native WGSL, on one
//! adapter, as ratios of medians taken in one interleaved run:
//!
//! - strong compare-swap (atomport's retry loop) against a single
//!   `atomicCompareExchangeWeak`, uncontended;
//!
//! `cargo bench --bench atomics [-- --backend NAME] [-- --runs N]`

use std::time::{Duration, Instant};

use atomport::{BackendChoice, Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions};

const ROUNDS: u32 = 1000;

fn strong_kernel() -> Kernel {
    let src = format!(
        "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer B {{ uint cells[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint v = 0u;
    for (uint k = 0u; k < {ROUNDS}u; k++) {{
        v = atomicCompSwap(cells[i], v, v + 1u) + 1u;
    }}
}}
"
    );
    Kernel::from_glsl(&src, &SourceOptions::named("strong.comp")).unwrap()
}

fn weak_kernel() -> Kernel {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    var v = 0u;
    for (var k = 0u; k < {ROUNDS}u; k++) {{
        v = atomicCompareExchangeWeak(&cells[i], v, v + 1u).old_value + 1u;
    }}
}}
"
    );
    Kernel::from_wgsl(&src, &SourceOptions::named("weak.wgsl")).unwrap()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Interleaved medians of two dispatches; each run starts from zeroed cells
/// and is checked.
fn compare(
    ctx: &Context,
    a: &Kernel,
    b: &Kernel,
    groups: u32,
    runs: usize,
) -> (Duration, Duration) {
    let n = groups as usize * 64;
    let cells = Buffer::zeroed(ctx, n as u64 * 4).unwrap();
    let zeros = vec![0u32; n];
    let mut ta = Vec::new();
    let mut tb = Vec::new();
    for i in 0..runs + 1 {
        let order = if i % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for first in order {
            let k = if first { a } else { b };
            cells.write(ctx, &zeros).unwrap();
            let t = Instant::now();
            ctx.dispatch(k, [groups, 1, 1], &[Bind::new(0, 0, &cells)])
                .unwrap();
            let d = t.elapsed();
            let got = cells.read::<u32>(ctx).unwrap();
            assert!(
                got.iter().all(|&c| c == ROUNDS),
                "every compare-swap succeeds uncontended"
            );
            if i > 0 {
                if first { ta.push(d) } else { tb.push(d) }
            }
        }
    }
    (median(ta), median(tb))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let backend: BackendChoice = flag("--backend")
        .map(|b| b.parse().unwrap())
        .unwrap_or_default();
    let runs: usize = flag("--runs").map(|r| r.parse().unwrap()).unwrap_or(15);
    let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
    println!(
        "atomics throughput on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let (strong, weak) = compare(&ctx, &strong_kernel(), &weak_kernel(), 1024, runs);
    let ops = 1024.0 * 64.0 * ROUNDS as f64;
    println!(
        "compare-swap uncontended: strong loop {:.1} ms ({:.0} M/s), single weak {:.1} ms ({:.0} M/s), time ratio strong/weak {:.3}",
        strong.as_secs_f64() * 1e3,
        ops / strong.as_secs_f64() / 1e6,
        weak.as_secs_f64() * 1e3,
        ops / weak.as_secs_f64() / 1e6,
        strong.as_secs_f64() / weak.as_secs_f64()
    );
}
