//! Translation time of 200-line GLSL compute shaders, one written for
//! Vulkan and one for OpenGL, through the whole pipeline (dialect
//! detection, glslang, SPIR-V passes, naga, IR passes, WGSL out), median of
//! many runs, as ratios to one glslang compile of the same shader in its
//! dialect, both as atomport runs glslang (one parse) and as the glslang
//! crate does (preprocessing apart first, which builds glslang's symbol
//! table twice): as a kernel made at run time, and as text to ship (the
//! WGSL parsed and validated back, as `atomport translate` does). Then the same
//! cold, as a command-line tool pays it: a fresh process that translates
//! once against a fresh process that compiles once with the same glslang
//! (CPU time and peak memory), where glslang's built-in tables, built once
//! per process, weigh most.
//!
//! `cargo bench --bench translate`
//!
//! `cargo bench --bench translate -- --web FILE…` measures instead what the
//! browser figures (`node examples/web/run.mjs figures`) set against the
//! page: each shader translated for WebGPU as the page translates it (its
//! `// defines:` and `// run:` lines applied), the first translation of a
//! fresh process and the median after it, wall time as the page measures
//! it; one JSON line per shader.
//!
//! Beside each, what naga's steps alone cost (its SPIR-V reader, its
//! validator and its WGSL writer on the translation's module, nothing of
//! atomport's): what any route from GLSL to WGSL through naga adds to a
//! glslang compile in a warm process.

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

/// One compile of `src` as a user of the glslang crate writes it: the
/// crate preprocesses the shader and then parses the preprocessed text
/// (glslang builds the shader's symbol table for each), then writes
/// SPIR-V. OpenGL GLSL under glslang's OpenGL-on-Vulkan rules with
/// OpenGL's atomic-counter limits, as atomport compiles it.
fn glslang_crate_compile(src: &str, dialect: Dialect) -> Vec<u32> {
    use glslang::{
        CompilerOptions, ShaderInput, ShaderMessage, ShaderOptions, ShaderSource, ShaderStage,
        SourceLanguage, SpirvVersion, Target, VulkanVersion,
    };
    let compiler = glslang::Compiler::acquire().expect("glslang initialises");
    let source = ShaderSource::from(src);
    let mut limits = glslang::limits::ResourceLimits::default();
    limits.set_max_atomic_counter_bindings(8);
    limits.set_max_compute_atomic_counter_buffers(8);
    limits.set_max_combined_atomic_counter_buffers(8);
    limits.set_max_compute_atomic_counters(1024);
    limits.set_max_combined_atomic_counters(1024);
    limits.set_max_atomic_counter_buffer_size(1 << 16);
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target: Target::Vulkan {
            version: VulkanVersion::Vulkan1_1,
            spirv_version: SpirvVersion::SPIRV1_3,
        },
        version_profile: None,
        messages: ShaderMessage::DEFAULT,
    };
    let input = ShaderInput::new_with_limits(
        &source,
        &limits,
        ShaderStage::Compute,
        &options,
        None::<&[(&str, Option<&str>)]>,
        None,
    )
    .unwrap();
    let mut builder = glslang::Shader::new(compiler, input);
    if dialect == Dialect::OpenGl {
        builder.options(ShaderOptions::VULKAN_RULES_RELAXED | ShaderOptions::AUTO_MAP_BINDINGS);
        builder.default_uniform_block_set_and_binding(0, 0);
    }
    builder.parse().unwrap().compile().unwrap()
}

/// What [`measure`] found: medians of the translation, of one glslang
/// compile as atomport runs it (one parse) and of one as the glslang crate
/// runs it (preprocessing apart first), and the medians of the rounds'
/// ratios of the translation to each.
struct Measured {
    translate: Duration,
    glslang: Duration,
    crate_compile: Duration,
    ratio: f64,
    crate_ratio: f64,
    /// naga's SPIR-V reader, validator and WGSL writer on the
    /// translation's module.
    naga: Duration,
}

/// CPU time of one translation (dialect detected; the text read back where
/// `verify`) and of one glslang compile of the same shader in its dialect,
/// as atomport runs glslang and as the glslang crate does: the medians
/// over `rounds` rounds, each of `block` compiles of each kind then
/// `block` translations, after a warm-up, and the medians of the rounds'
/// ratios (each round's numbers share the machine's state of the moment,
/// so the ratio drifts less than the times). CPU time, not wall time: on a
/// machine shared with other work, wall time stretches by whatever else
/// runs.
fn measure(src: &str, dialect: Dialect, verify: bool, rounds: usize) -> Measured {
    let block = 10;
    let opts = SourceOptions {
        verify_wgsl: verify,
        ..SourceOptions::named("bench.comp")
    };
    let mut alone = opts.clone();
    alone.dialect = Some(dialect);
    // Warm up (glslang's process init and symbol tables) and check it
    // works, and that both compiles write the same SPIR-V.
    let kernel = Kernel::from_glsl(src, &opts).unwrap();
    assert!(kernel.wgsl().contains("atomicAdd"));
    assert_eq!(kernel.dialect(), Some(dialect));
    assert!(atomport::compile_glsl(src, &alone).unwrap() == glslang_crate_compile(src, dialect));
    let module = kernel.module().clone();
    let spirv = naga_spirv(&module);
    assert!(naga_alone(&module, &spirv).contains("atomic"));
    let (mut total, mut front, mut by_crate, mut naga) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(atomport::compile_glsl(src, &alone).unwrap());
        }
        front.push((process_cpu_time() - t) / block);
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(glslang_crate_compile(src, dialect));
        }
        by_crate.push((process_cpu_time() - t) / block);
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(naga_alone(&module, &spirv));
        }
        naga.push((process_cpu_time() - t) / block);
        let t = process_cpu_time();
        for _ in 0..block {
            std::hint::black_box(Kernel::from_glsl(src, &opts).unwrap());
        }
        total.push((process_cpu_time() - t) / block);
    }
    let ratio = |of: &[Duration]| {
        let mut r: Vec<f64> = total
            .iter()
            .zip(of)
            .map(|(t, g)| t.as_secs_f64() / g.as_secs_f64())
            .collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    Measured {
        ratio: ratio(&front),
        crate_ratio: ratio(&by_crate),
        translate: median(total),
        glslang: median(front),
        crate_compile: median(by_crate),
        naga: median(naga),
    }
}

/// naga's three steps in a translation, timed on the translation's own
/// module: its SPIR-V reader (on naga's SPIR-V of the module, the same
/// content as atomport's passes give it), its validator (which gives the
/// writer its type information) and its WGSL writer. Any translation
/// from GLSL to WGSL through naga takes all three.
fn naga_alone(module: &naga::Module, spirv: &[u32]) -> String {
    let read = naga::front::spv::Frontend::new(
        spirv.iter().copied(),
        &naga::front::spv::Options::default(),
    )
    .parse()
    .expect("naga reads its SPIR-V of the translation");
    std::hint::black_box(read);
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(module)
    .expect("the translation validates");
    naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
        .expect("naga writes the translation")
}

/// naga's SPIR-V of `module` (its overrides at their defaults, which
/// naga's SPIR-V writer needs), for [`naga_alone`]'s reader.
fn naga_spirv(module: &naga::Module) -> Vec<u32> {
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(module)
    .expect("the translation validates");
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(module, &info, None, &Default::default())
            .expect("the overrides take their defaults");
    naga::back::spv::write_vec(&module, &info, &naga::back::spv::Options::default(), None)
        .expect("naga writes the translation as SPIR-V")
}

/// The cold measurement's child: one glslang compile (`glslang`) or one
/// translation (`translate`) of the `vulkan` or `opengl` shader in this
/// fresh process; prints its CPU time in µs and its peak memory in KiB.
fn cold_child(what: &str) {
    let (op, which) = what.split_once(':').expect("op:shader");
    if op == "web" {
        let opts = web_options(which);
        let src = std::fs::read_to_string(which).unwrap();
        let t = std::time::Instant::now();
        std::hint::black_box(Kernel::from_glsl(&src, &opts).unwrap());
        println!("{} {}", t.elapsed().as_micros(), common::peak_memory_kib());
        return;
    }
    let (src, dialect) = match which {
        "vulkan" => (shader(), Dialect::Vulkan),
        _ => (opengl_shader(), Dialect::OpenGl),
    };
    let t = process_cpu_time();
    if op == "glslang" {
        let opts = SourceOptions {
            dialect: Some(dialect),
            ..SourceOptions::named("bench.comp")
        };
        std::hint::black_box(atomport::compile_glsl(&src, &opts).unwrap());
    } else {
        let k = Kernel::from_glsl(&src, &SourceOptions::named("bench.comp")).unwrap();
        assert_eq!(k.dialect(), Some(dialect));
    }
    let cpu = process_cpu_time() - t;
    println!("{} {}", cpu.as_micros(), common::peak_memory_kib());
}

/// Medians of `runs` fresh processes each of a glslang compile and a
/// translation of `which`, interleaved: (translation CPU, compile CPU,
/// translation peak KiB, compile peak KiB).
fn cold(which: &str, runs: usize) -> (Duration, Duration, u64, u64) {
    let child = |op: &str| -> (Duration, u64) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env("ATOMPORT_BENCH_COLD", format!("{op}:{which}"))
            .output()
            .expect("the bench runs itself");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut w = text.split_whitespace().map(|w| w.parse::<u64>().unwrap());
        (Duration::from_micros(w.next().unwrap()), w.next().unwrap())
    };
    let (mut t, mut g, mut tm, mut gm) = (vec![], vec![], vec![], vec![]);
    for i in 0..runs {
        let order = if i % 2 == 0 {
            ["translate", "glslang"]
        } else {
            ["glslang", "translate"]
        };
        for op in order {
            let (cpu, kib) = child(op);
            if op == "translate" {
                t.push(cpu);
                tm.push(kib);
            } else {
                g.push(cpu);
                gm.push(kib);
            }
        }
    }
    tm.sort();
    gm.sort();
    (median(t), median(g), tm[runs / 2], gm[runs / 2])
}

/// The options the browser suite's page translates `path` with.
fn web_options(path: &str) -> SourceOptions {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let annotations = atomport::runtime::job::Annotations::parse(&src).unwrap();
    let mut opts = annotations.apply(SourceOptions::named(path)).unwrap();
    opts.target = atomport::Platform::WebGpu;
    opts
}

/// `--web FILE…`: per shader, the first translation's wall time in fresh
/// processes (median of 7), the median wall time of 20 translations after
/// it in this one, and the fresh process's peak memory.
fn web_figures(files: &[String]) {
    for path in files {
        let opts = web_options(path);
        let src = std::fs::read_to_string(path).unwrap();
        let mut first = Vec::new();
        let mut peak = Vec::new();
        for _ in 0..7 {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .env("ATOMPORT_BENCH_COLD", format!("web:{path}"))
                .output()
                .expect("the bench runs itself");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            let mut w = text.split_whitespace().map(|w| w.parse::<u64>().unwrap());
            first.push(Duration::from_micros(w.next().unwrap()));
            peak.push(w.next().unwrap());
        }
        peak.sort();
        Kernel::from_glsl(&src, &opts).unwrap();
        let after: Vec<Duration> = (0..20)
            .map(|_| {
                let t = std::time::Instant::now();
                std::hint::black_box(Kernel::from_glsl(&src, &opts).unwrap());
                t.elapsed()
            })
            .collect();
        println!(
            "{{\"file\":{:?},\"lines\":{},\"first_ms\":{:.3},\"after_ms\":{:.3},\"peak_mib\":{:.1}}}",
            path,
            src.lines().count(),
            median(first).as_secs_f64() * 1e3,
            median(after).as_secs_f64() * 1e3,
            peak[peak.len() / 2] as f64 / 1024.0
        );
    }
}

fn main() {
    if let Ok(what) = std::env::var("ATOMPORT_BENCH_COLD") {
        cold_child(&what);
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--web") {
        let files: Vec<String> = args[at + 1..]
            .iter()
            .take_while(|a| !a.starts_with("--"))
            .cloned()
            .collect();
        web_figures(&files);
        return;
    }
    let rounds = 15;
    for (what, src, dialect, verify) in [
        ("Vulkan", shader(), Dialect::Vulkan, false),
        ("OpenGL", opengl_shader(), Dialect::OpenGl, false),
        ("Vulkan", shader(), Dialect::Vulkan, true),
        ("OpenGL", opengl_shader(), Dialect::OpenGl, true),
    ] {
        let lines = src.lines().count();
        let m = measure(&src, dialect, verify, rounds);
        let how = if verify {
            "to ship (text read back)"
        } else {
            "at run time"
        };
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "translate a {lines}-line {what} GLSL shader {how}: {:.2} ms of CPU; {:.2}x one glslang compile as atomport runs it ({:.2} ms, one parse; atomport's passes + naga {:.2} ms), {:.2}x one as the glslang crate runs it ({:.2} ms, preprocessed apart first); naga's reader, validator and WGSL writer alone on the translation's module {:.2} ms, {:.2}x that compile: no route through naga costs less than {:.2}x; medians of {rounds} rounds of 10 (the ratios: of the rounds' ratios)",
            ms(m.translate),
            m.ratio,
            ms(m.glslang),
            ms(m.translate.saturating_sub(m.glslang)),
            m.crate_ratio,
            ms(m.crate_compile),
            ms(m.naga),
            m.naga.as_secs_f64() / m.glslang.as_secs_f64(),
            1.0 + m.naga.as_secs_f64() / m.glslang.as_secs_f64(),
        );
    }
    let runs = 15;
    for (what, which) in [("Vulkan", "vulkan"), ("OpenGL", "opengl")] {
        let (t, g, tm, gm) = cold(which, runs);
        println!(
            "cold, a fresh process: translate the {what} shader {:.1} ms of CPU, {:.2}x a fresh process's one glslang compile ({:.1} ms); peak memory {:.0} MiB against {:.0} MiB ({:.2}x), medians of {runs} processes each",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / g.as_secs_f64(),
            g.as_secs_f64() * 1e3,
            tm as f64 / 1024.0,
            gm as f64 / 1024.0,
            tm as f64 / gm as f64
        );
    }
}
