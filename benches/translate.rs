//! Translation time of a 200-line GLSL compute shader through the whole
//! pipeline (glslang, SPIR-V passes, naga, IR passes, WGSL out and
//! re-validation), median of many runs, with glslang's share alone.
//!
//! `cargo bench --bench translate`

use std::time::Instant;

#[path = "common/mod.rs"]
mod common;

use common::median;

use atomport::{Kernel, SourceOptions};

/// A 200-line shader: helpers using every atomic function on buffer members,
/// array elements, vector components and shared memory, and a main calling them.
fn shader() -> String {
    let mut s = String::from(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Stats { uint count; int low; int high; uvec4 flags; uint bins[256]; } stats;
layout(set = 0, binding = 1) buffer Items { uint items[]; };
layout(set = 0, binding = 2) buffer Out { int values[]; } outv;
shared uint local_bins[64];
shared int local_min;
",
    );
    for k in 0..18 {
        s += &format!(
            "uint step{k}(uint x) {{
    uint h = x * {m}u + {k}u;
    h ^= h >> 13;
    uint old = atomicAdd(stats.bins[h % 256u], 1u);
    atomicMin(stats.low, int(h % 1000u) - {k});
    atomicMax(stats.high, int(h % 977u) + {k});
    atomicOr(stats.flags[{c}], 1u << (h % 32u));
    return old + atomicCompSwap(local_bins[h % 64u], h, x);
}}
",
            m = 2654435761u32.wrapping_add(k * 2),
            c = k % 4
        );
    }
    s += "void main() {
    uint i = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationIndex < 64u) local_bins[gl_LocalInvocationIndex] = 0u;
    if (gl_LocalInvocationIndex == 0u) local_min = 0;
    barrier();
    uint x = items[i];
";
    for k in 0..18 {
        s += &format!("    x = step{k}(x);\n");
    }
    s += "    atomicExchange(outv.values[i], int(x));
    atomicXor(stats.count, x);
    atomicAnd(stats.flags.w, ~x);
    barrier();
    atomicMin(local_min, int(x));
}
";
    s
}

fn main() {
    let src = shader();
    let lines = src.lines().count();
    let opts = SourceOptions::named("bench.comp");
    // Warm up (glslang's process init, allocations) and check it works.
    let kernel = Kernel::from_glsl(&src, &opts).unwrap();
    assert!(kernel.wgsl().contains("loop {"));
    let runs = 50;
    let mut total = Vec::with_capacity(runs);
    let mut front = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let words = atomport::compile_glsl(&src, &opts).unwrap();
        front.push(t.elapsed());
        std::hint::black_box(words);
        let t = Instant::now();
        std::hint::black_box(Kernel::from_glsl(&src, &opts).unwrap());
        total.push(t.elapsed());
    }
    let (t, g) = (median(total), median(front));
    println!(
        "translate {lines}-line GLSL: median {:.2} ms (glslang alone {:.2} ms, atomport's passes + naga {:.2} ms), {runs} runs",
        t.as_secs_f64() * 1e3,
        g.as_secs_f64() * 1e3,
        (t.saturating_sub(g)).as_secs_f64() * 1e3
    );
}
