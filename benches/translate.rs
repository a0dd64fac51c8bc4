//! Translation time of 200-line GLSL compute shaders, one written for
//! Vulkan and one for OpenGL, through the whole pipeline (dialect
//! detection, glslang, SPIR-V passes, naga, IR passes, WGSL out), median of
//! many runs, as a ratio to one glslang compile of the same shader in its
//! dialect: as a kernel made at run time, and as text to ship (the WGSL
//! parsed and validated back, as `atomport translate` does).
//!
//! `cargo bench --bench translate`

use std::time::Duration;

#[path = "common/mod.rs"]
mod common;

use common::{median, process_cpu_time};

use atomport::{Dialect, Kernel, SourceOptions};

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

/// The OpenGL form of a shader of the same work: loose uniforms, an atomic
/// counter, and bindings numbered per kind (a buffer and an image both at
/// binding 0), which only OpenGL's rules allow.
fn opengl_shader() -> String {
    let mut s = String::from(
        "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer Items { uint items[]; };
layout(binding = 0, r32ui) uniform uimage2D marks;
layout(binding = 0, offset = 0) uniform atomic_uint seen;
uniform uint seed;
uniform int bias;
",
    );
    for k in 0..18 {
        s += &format!(
            "uint step{k}(uint x) {{
    uint h = x * {m}u + seed;
    h ^= h >> 13;
    imageAtomicAdd(marks, ivec2(h % 64u, {k}), 1u);
    imageAtomicMax(marks, ivec2(h % 32u, 20 + {k}), h);
    return h + uint(bias) + atomicCounterIncrement(seen);
}}
",
            m = 2654435761u32.wrapping_add(k * 2)
        );
    }
    s += "void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = items[i];
";
    for k in 0..18 {
        s += &format!("    x = step{k}(x);\n");
    }
    s += "    items[i] = x;
}
";
    s
}

/// CPU time of one translation (dialect detected; the text read back where
/// `verify`) and of one glslang compile of the same shader in its dialect:
/// the medians over `rounds` rounds, each of `block` compiles then `block`
/// translations, after a warm-up. CPU time, not wall time: on a machine
/// shared with other work, wall time stretches by whatever else runs.
fn measure(src: &str, dialect: Dialect, verify: bool, rounds: usize) -> (Duration, Duration) {
    let block = 10;
    let opts = SourceOptions {
        verify_wgsl: verify,
        ..SourceOptions::named("bench.comp")
    };
    let mut alone = opts.clone();
    alone.dialect = Some(dialect);
    // Warm up (glslang's process init and symbol tables) and check it works.
    let kernel = Kernel::from_glsl(src, &opts).unwrap();
    assert!(kernel.wgsl().contains("atomicAdd"));
    assert_eq!(kernel.dialect(), Some(dialect));
    let mut total = Vec::with_capacity(rounds);
    let mut front = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(atomport::compile_glsl(src, &alone).unwrap());
        }
        front.push((process_cpu_time() - t) / block);
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(Kernel::from_glsl(src, &opts).unwrap());
        }
        total.push((process_cpu_time() - t) / block);
    }
    (median(total), median(front))
}

fn main() {
    let rounds = 15;
    for (what, src, dialect, verify) in [
        ("Vulkan", shader(), Dialect::Vulkan, false),
        ("OpenGL", opengl_shader(), Dialect::OpenGl, false),
        ("Vulkan", shader(), Dialect::Vulkan, true),
        ("OpenGL", opengl_shader(), Dialect::OpenGl, true),
    ] {
        let lines = src.lines().count();
        let (t, g) = measure(&src, dialect, verify, rounds);
        let how = if verify {
            "to ship (text read back)"
        } else {
            "at run time"
        };
        println!(
            "translate a {lines}-line {what} GLSL shader {how}: {:.2} ms of CPU, {:.2}x one glslang compile ({:.2} ms; atomport's passes + naga {:.2} ms), medians of {rounds} rounds of 10",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / g.as_secs_f64(),
            g.as_secs_f64() * 1e3,
            (t.saturating_sub(g)).as_secs_f64() * 1e3
        );
    }
}
