//! Hostile and careless input through the real binary, one test per way it
//! once broke: every path ends in a clear message and exit 0/1/2, never a
//! panic, abort, hang or silent loss; limits are named before submission.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_fails, assert_fails_in_one_line, atomport, stderr};

fn shader(name: &str, body: &str) -> String {
    common::temp_file("hardening", name, body)
}

#[test]
fn multibyte_version_line_is_an_error_naming_it() {
    let o = atomport(&["translate", "tests/fuzz/version_multibyte.comp"]);
    assert_fails_in_one_line(
        &o,
        1,
        "version_multibyte.comp:1: error: `45\u{e9}` after #version is not a version number",
    );
    // After a licence header, the error names the #version line itself.
    let e = atomport::Kernel::from_glsl(
        "// SPDX-License-Identifier: MIT\n\n#version 330\nvoid main() {}",
        &atomport::SourceOptions::named("old.comp"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("old.comp:3: error: compute shaders need #version 430"),
        "{e}"
    );
}

#[test]
fn deep_expressions_and_nesting_translate_and_run() {
    // 15 000 terms: glslang and naga recurse once per term.
    let o = atomport(&["translate", "tests/fuzz/deep_sum_15000_terms.comp"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 300 terms and 130 nested ifs, beyond the WGSL parser's nesting
    // limits: run from the validated module, on every backend.
    for b in common::backend_names() {
        let v = common::run_json(&[
            "run",
            "tests/fuzz/sum_300_terms_130_nested_ifs.comp",
            "--groups",
            "1",
            "--buffer",
            "0=f32:[200,0,0]",
            "--backend",
            b,
            "--json",
        ]);
        assert_eq!(
            v["bindings"][0]["data"],
            serde_json::json!([200.0, 60000.0, 1.0])
        );
    }
}

/// 140 nested `if`s: past the 127 levels of statements WGSL's compilers
/// accept (Chromium's at 63 braces, counting an `if` and its block). The
/// deep blocks move into functions of their own, so that the text stays
/// within the limit: it runs on every backend with no warning, and the
/// WebGPU target, whose browsers compile the text, accepts it.
/// tests/vulkan/decision_tree_nest.comp runs the `break`, `continue` and
/// `return` that leave such blocks against the original.
#[test]
fn blocks_nested_past_wgsls_brace_limit_move_into_functions() {
    let mut src = String::from(
        "#version 450\nlayout(local_size_x = 1) in;\n\
         layout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() {\n    uint x = v[0];\n",
    );
    for i in 0..140 {
        src += &format!("if (x > {i}u) {{ atomicAdd(v[1], 1u);\n");
    }
    src += &"}".repeat(140);
    src += "\n}\n";
    let file = common::temp_file("hardening-braces", "nested.comp", &src);
    for b in common::backend_names() {
        let o = atomport(&[
            "run",
            &file,
            "--groups",
            "1",
            "--buffer",
            "0=u32:[60,0]",
            "--backend",
            b,
            "--json",
        ]);
        let err = stderr(&o);
        assert!(o.status.success(), "{b}: {err}");
        assert!(!err.contains("63 braces"), "{b}: {err}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        // x = 60 passes the first 60 tests. (llvmpipe mistakes conditions
        // nested past a depth of about 80, natively too, so no test here
        // is taken that deep.)
        assert_eq!(v["bindings"][0]["data"], serde_json::json!([60, 60]), "{b}");
    }
    let o = atomport(&["translate", &file, "--target", "webgpu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let wgsl = String::from_utf8(o.stdout).unwrap();
    let mut depth = 0i32;
    let mut deepest = 0;
    for c in wgsl.chars() {
        match c {
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    assert!(deepest <= 63, "{deepest} braces deep:\n{wgsl}");
    assert!(wgsl.contains("_nested("), "{wgsl}");
}

/// Runs the binary with stdout into `head -c N`-like reader that closes early.
fn closed_early(args: &[&str]) -> (Option<i32>, String) {
    let mut child = common::atomport_command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 5];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn output_closed_early_ends_quietly_and_a_full_disk_is_an_error() {
    for args in [
        &["translate", "tests/fuzz/deep_sum_15000_terms.comp"][..],
        &["validate", "--small", "--json", "--filter", "member"][..],
        &["info"][..],
    ] {
        let (code, err) = closed_early(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        // The 15 000-term sum nests past naga's WGSL parser: said once, as
        // a warning, and nothing else.
        let err = err
            .lines()
            .filter(|l| !l.contains("warning: the WGSL nests deeper than naga's WGSL parser reads"))
            .collect::<String>();
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    if std::path::Path::new("/dev/full").exists() {
        for args in [
            &["info"][..],
            &["translate", "tests/glsl/atomic_add_uint_member.comp"][..],
            &[
                "run",
                "wgsl/histogram.wgsl",
                "--groups",
                "1",
                "--buffer",
                "0=u32:4",
                "--buffer",
                "0.1=u32:256",
            ][..],
        ] {
            let o = common::atomport_command(args)
                .stdout(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open("/dev/full")
                        .unwrap(),
                )
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                "atomport: standard output: No space left on device (os error 28)\n"
            );
        }
    }
}

#[test]
fn timeout_bounds_pipeline_compilation() {
    let start = Instant::now();
    let o = atomport(&[
        "run",
        "tests/fuzz/const_array_20000.comp",
        "--groups",
        "1",
        "--buffer",
        "0=u32:[0,5]",
        "--timeout",
        "2",
        "--json",
    ]);
    let took = start.elapsed();
    if o.status.success() {
        // A fast machine compiled it in time: then the result is right.
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["bindings"][0]["data"], serde_json::json!([35, 5]));
    } else {
        assert_fails_in_one_line(
            &o,
            1,
            "compiling the pipeline did not finish within 2 s (timeout)",
        );
        assert!(took < Duration::from_secs(20), "took {took:?}");
    }
}

#[test]
fn unbounded_inputs_are_refused_before_reading() {
    // Refused at the #include that goes too deep, shown with its line.
    let o = atomport(&["translate", "tests/fuzz/recursive_include.comp"]);
    assert_fails(
        &o,
        1,
        "include/rec_b.glsl:1:1: error: '#include' : `rec_a.glsl` nests includes more than 32 deep",
    );
    let o = atomport(&["translate", "/dev/zero"]);
    assert_fails_in_one_line(&o, 2, "/dev/zero: not a regular file");
    let o = atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=@/dev/zero",
        "--buffer",
        "0.1=u32:256",
    ]);
    assert_fails_in_one_line(&o, 2, "/dev/zero: not a regular file");
    // A FIFO nobody writes to would block forever.
    let fifo = common::scratch().join(format!("atomport-fifo-{}", std::process::id()));
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let o = atomport(&["translate", fifo.to_str().unwrap()]);
        assert_fails_in_one_line(&o, 2, "not a regular file");
        let _ = std::fs::remove_file(&fifo);
    }
    // A buffer over the adapter's binding size is refused before allocating.
    let o = atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=u32:268435456",
        "--buffer",
        "0.1=u32:256",
    ]);
    assert_fails_in_one_line(
        &o,
        1,
        "the buffer for binding 0.0, in bytes, is 1073741824, over the adapter's limit",
    );
}

#[test]
fn workgroup_counts_that_would_wrap_or_run_nothing_are_refused() {
    let base = [
        "run",
        "wgsl/histogram.wgsl",
        "--buffer",
        "0=u32:4",
        "--buffer",
        "0.1=u32:256",
        "--groups",
    ];
    let mut args = base.to_vec();
    args.push("65535,65535,65535");
    assert_fails_in_one_line(
        &atomport(&args),
        1,
        "the total workgroup count (65535x65535x65535) is 281462092005375",
    );
    let mut args = base.to_vec();
    args.push("0");
    assert_fails(&atomport(&args), 2, "`0` is not a workgroup count");
}

#[test]
fn adapter_limits_are_named_in_one_line_before_submission() {
    let cases = [
        (
            "wg.comp",
            "#version 450\nlayout(local_size_x = 1024, local_size_y = 1024) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n",
            "the invocations per workgroup (1024x1024x1) is 1048576, over the adapter's limit max_compute_invocations_per_workgroup",
        ),
        (
            "shared.comp",
            "#version 450\nlayout(local_size_x = 64) in;\nshared uint big[1000000];\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() { big[gl_LocalInvocationIndex] = 1u; barrier(); v[0] = big[3]; }\n",
            "the shared (workgroup) memory in bytes is 4000000, over the adapter's limit max_compute_workgroup_storage_size",
        ),
        (
            "set31.comp",
            "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 31, binding = 1) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n",
            "the bind group (set) of `B` is 31, over the adapter's limit max_bind_groups",
        ),
        // GLSL's numbers past 1000 are moved below it (tests/long_tail.rs);
        // WGSL's own are the host's, checked against the limit.
        (
            "binding1024.wgsl",
            "struct Words { v: array<u32> }\n@group(0) @binding(1024) var<storage, read_write> B: Words;\n@compute @workgroup_size(1) fn main() { B.v[0] = 1u; }\n",
            "the binding number of `B` is 1024, over the adapter's limit max_bindings_per_bind_group",
        ),
    ];
    for b in common::backend_names() {
        let bindings_limit = atomport::Context::new(
            &atomport::ContextOptions::default().with_backend(b.parse().unwrap()),
        )
        .unwrap()
        .limits()
        .max_bindings_per_bind_group;
        for (name, src, needle) in cases {
            if name == "binding1024.wgsl" && bindings_limit > 1024 {
                println!(
                    "{b}: binding 1024 is within max_bindings_per_bind_group = {bindings_limit}"
                );
                continue;
            }
            let path = shader(name, src);
            let o = atomport(&[
                "run",
                &path,
                "--groups",
                "1",
                "--buffer",
                "B=u32:4",
                "--backend",
                b,
            ]);
            assert_fails_in_one_line(&o, 1, needle);
        }
        // A texture size is checked before any texel is made on the host
        // (a million squared would take terabytes).
        let o = atomport(&[
            "run",
            "tests/glsl/tex_combined_fetch_histogram.comp",
            "--groups",
            "1",
            "--texture",
            "photo=1000000x1000000",
            "--buffer",
            "Bins=u32:64",
            "--backend",
            b,
        ]);
        assert_fails_in_one_line(
            &o,
            1,
            "the 2d texture's size is 1000000, over the adapter's limit max_texture_dimension_2d",
        );
        let o = atomport(&[
            "run",
            "tests/glsl/tex_sampler2darray_layers.comp",
            "--groups",
            "1",
            "--texture",
            "frames=4x4x100000",
            "--buffer",
            "Sum=f32:64",
            "--backend",
            b,
        ]);
        assert_fails(&o, 1, "over the adapter's limit max_texture_array_layers");
    }
    // Push constants, once refused, are a buffer of their own.
    let o = atomport(&["translate", "tests/fuzz/push_constant.comp", "--bindings"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"push_constant\": true"));
    let o = atomport(&["translate", "tests/fuzz/private_array_40mb.comp"]);
    assert_fails_in_one_line(
        &o,
        1,
        "the private and local variables of one invocation take 40000000 bytes",
    );
}

#[test]
fn valid_shaders_are_not_internal_errors() {
    // Float atomicAdd on shared memory with native float atomics chosen:
    // shared memory stays emulated (atomic<f32> exists in storage only).
    let path = shader(
        "shared_float.comp",
        "#version 450\n#extension GL_EXT_shader_atomic_float : require\nlayout(local_size_x = 64) in;\nshared float acc;\nlayout(set = 0, binding = 0) buffer B { float v[]; };\nvoid main() {\n  if (gl_LocalInvocationIndex == 0u) acc = 0.0;\n  barrier();\n  atomicAdd(acc, v[gl_LocalInvocationIndex]);\n  barrier();\n  if (gl_LocalInvocationIndex == 0u) v[64] = acc;\n}\n",
    );
    let o = atomport(&["translate", &path, "--native-float-atomics"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for b in common::backend_names() {
        let v = common::run_json(&[
            "run",
            &path,
            "--groups",
            "1",
            "--buffer",
            "0=f32:65:iota",
            "--backend",
            b,
            "--json",
        ]);
        assert_eq!(
            v["bindings"][0]["data"][64],
            (0..64).sum::<i32>() as f64,
            "{b}"
        );
    }
    // glslangValidator -g output: debug line instructions are dropped.
    let o = atomport(&["translate", "tests/fuzz/debug_lines.spv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Two blocks at one binding alias one buffer, given once.
    for b in common::backend_names() {
        let v = common::run_json(&[
            "run",
            "tests/fuzz/two_blocks_one_binding.comp",
            "--groups",
            "1",
            "--buffer",
            "0=f32:[0,2.5]",
            "--backend",
            b,
            "--json",
        ]);
        // `a[0] = floatBitsToUint(b[1])`, shown as the f32 it was given as.
        assert_eq!(v["bindings"][0]["data"][0], 2.5, "{b}: {v}");
    }
    // Aliases at the largest binding leave no number for the copy: named.
    let o = atomport(&[
        "translate",
        "tests/fuzz/two_blocks_at_the_largest_binding.spv",
    ]);
    assert_fails_in_one_line(
        &o,
        1,
        "descriptor set 0 has no binding number left for the resources atomport adds",
    );
    // A block and an image at one binding cannot alias: named.
    let src = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() { a[0] = imageLoad(img, ivec2(0)).x; }";
    let e = atomport::Kernel::from_glsl(src, &atomport::SourceOptions::named("t.comp"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`A` and `img` are both at set 0 binding 0"),
        "{e}"
    );
}

#[test]
fn malformed_spirv_names_its_problem() {
    let o = atomport(&["translate", "tests/fuzz/truncated.spv"]);
    assert_fails_in_one_line(
        &o,
        1,
        "truncated SPIR-V: the instruction at word 45 (OpMemberName) needs 6 words, 5 remain",
    );
    let o = atomport(&["translate", "tests/fuzz/undefined_id.spv"]);
    assert_fails_in_one_line(
        &o,
        1,
        "malformed SPIR-V: OpAtomicIAdd uses %99999, past the module's id bound 33",
    );
    // A type made of itself: every walk over types would never end.
    let o = atomport(&["translate", "tests/fuzz/cyclic_type.spv"]);
    assert_fails_in_one_line(
        &o,
        1,
        "malformed SPIR-V: OpTypeArray uses %17 before it is declared",
    );
    // A count from the input is bounded before any pass allocates for it
    // (one part per component was a 43 GB allocation, an abort).
    let o = atomport(&["translate", "tests/fuzz/vector_of_2_billion_components.spv"]);
    assert_fails_in_one_line(
        &o,
        1,
        "malformed SPIR-V: OpTypeVector %9 has 2728567458 components; a compute shader's vectors have 2 to 4",
    );
    let o = atomport(&[
        "translate",
        "tests/fuzz/access_chain_through_empty_struct.spv",
    ]);
    // Translated or refused, never a panic (status 101) or an internal error.
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    if o.status.code() == Some(1) {
        assert!(stderr(&o).starts_with("atomport: "), "{}", stderr(&o));
    }
    assert!(!stderr(&o).contains("internal error"), "{}", stderr(&o));
}

#[test]
fn quiet_and_consistent() {
    // No naga or wgpu log lines before the message.
    let o = atomport(&["translate", "tests/fuzz/two_blocks_one_binding.comp"]);
    assert!(!stderr(&o).contains("ERROR"), "{}", stderr(&o));
    // -D problems say so.
    let o = atomport(&[
        "translate",
        "tests/glsl/atomic_add_uint_member.comp",
        "-D",
        "1BAD",
    ]);
    assert_fails(&o, 1, "in a preprocessor definition: error:");
    // Samples blamed on the samples.
    let path = shader(
        "ms.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0, r32ui) uniform uimage2DMS img;\nvoid main() { imageAtomicAdd(img, ivec2(0), 0, 1u); }\n",
    );
    for samples in ["4294967295", "3"] {
        let o = atomport(&[
            "run",
            &path,
            "--groups",
            "1",
            "--image",
            &format!("0=4x4:samples={samples}"),
        ]);
        assert_fails_in_one_line(
            &o,
            2,
            &format!("{samples} samples: a sample count is a power of two from 1 to 64"),
        );
    }
    // A binding given twice and a binding the kernel lacks: both usage errors.
    let base = [
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=u32:4",
        "--buffer",
        "0.1=u32:256",
    ];
    let mut twice = base.to_vec();
    twice.extend(["--buffer", "0=u32:4"]);
    assert_fails_in_one_line(&atomport(&twice), 2, "binding 0.0 is given twice");
    let mut unused = base.to_vec();
    unused.extend(["--buffer", "0.7=u32:4"]);
    assert_fails_in_one_line(
        &atomport(&unused),
        2,
        "binding 0.7 was given but the kernel does not use it",
    );
    // An explicit --backend wins over a junk ATOMPORT_BACKEND.
    let b = common::backend_names()[0];
    let mut args = base.to_vec();
    args.extend(["--backend", b]);
    let o = common::atomport_command(&args)
        .env("ATOMPORT_BACKEND", "junk")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Specs that used to pass.
    let mut args = base[..4].to_vec();
    args.extend(["--backend", ""]);
    assert_fails(&atomport(&args), 2, "unknown backend ``");
    for (spec, needle) in [
        ("0=u32:[1,,2]", "value 2 of the list is empty"),
        ("0=f32:1:fill=1e39", "`1e39` is out of the range of f32"),
    ] {
        let o = atomport(&[
            "run",
            "wgsl/histogram.wgsl",
            "--groups",
            "1",
            "--buffer",
            spec,
        ]);
        assert_fails(&o, 2, needle);
    }
}
