//! The real `atomport` binary: JSON output parsed, exit codes and stderr checked.

mod common;

use std::time::{Duration, Instant};

use common::{assert_fails, assert_fails_in_one_line, atomport, run_json, stderr};

#[test]
fn info_json_lists_every_backend_present() {
    let v = run_json(&["info", "--json"]);
    let list = v.as_array().unwrap();
    for b in common::backend_names() {
        let a = list
            .iter()
            .find(|a| a["backend"] == b)
            .unwrap_or_else(|| panic!("{b} missing from {v}"));
        for key in ["name", "device_type", "driver", "driver_info", "features"] {
            assert!(a.get(key).is_some(), "{key} missing in {a}");
        }
        assert!(
            a["limits"]["max_compute_workgroups_per_dimension"]
                .as_u64()
                .unwrap()
                >= 65535
        );
        assert!(
            a["limits"]["max_storage_buffer_binding_size"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}

#[test]
fn run_histogram_json_on_each_backend() {
    for b in common::backend_names() {
        let o = atomport(&[
            "run",
            "wgsl/histogram.wgsl",
            "--groups",
            "4",
            "--buffer",
            "0=u32:1024:iota",
            "--buffer",
            "0.1=u32:256:fill=1",
            "--backend",
            b,
            "--json",
        ]);
        assert!(o.status.success(), "{b}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).expect("exactly one JSON object");
        assert_eq!(v["adapter"]["backend"], b);
        let bindings = v["bindings"].as_array().unwrap();
        assert_eq!(bindings.len(), 2);
        assert_eq!(bindings[0]["kind"], "buffer");
        assert_eq!(bindings[0]["type"], "u32");
        let input: Vec<u64> = bindings[0]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(input, (0..1024).collect::<Vec<u64>>());
        assert_eq!(
            (
                bindings[1]["group"].as_u64(),
                bindings[1]["binding"].as_u64()
            ),
            (Some(0), Some(1))
        );
        // 1024 inputs 0..1023 put 4 in each of the 256 bins, on top of the fill of 1.
        assert!(
            bindings[1]["data"]
                .as_array()
                .unwrap()
                .iter()
                .all(|x| x == 5),
            "{}",
            bindings[1]
        );
    }
}

#[test]
fn run_listing_and_value_specs() {
    let dir = common::scratch().join(format!("atomport-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input.bin");
    let words: Vec<u32> = (0..256).collect();
    std::fs::write(&file, bytemuck::cast_slice(&words)).unwrap();
    let arg = format!("1=@{}", file.display());
    let o = atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=u32:[3,3,3,0x10f]",
        "--buffer",
        &arg,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("adapter: "), "{text}");
    assert!(
        text.contains("binding 0.0 `input`: u32[4]\n  [     0] 3 3 3 271\n"),
        "{text}"
    );
    assert!(text.contains("binding 0.1 `bins`: u32[256]\n  [     0] 0 1 2 6 4 5 6 7\n  [     8] 8 9 10 11 12 13 14 16\n"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_buffer_spec_is_a_usage_error_naming_the_flag() {
    for spec in [
        "0=u128:4",
        "0=u8:[256]",
        "0=u32",
        "0=u32:abc",
        "0=u32:4:fill=x",
        "0=i32:[1,2",
        "x-y=u32:4",
        "0=u32:4:zeros",
    ] {
        let o = atomport(&[
            "run",
            "wgsl/histogram.wgsl",
            "--groups",
            "1",
            "--buffer",
            spec,
        ]);
        assert_fails(&o, 2, "--buffer <B=SPEC>");
    }
}

#[test]
fn unknown_backend_is_a_usage_error() {
    let o = atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--backend",
        "glide",
    ]);
    assert_fails(&o, 2, "unknown backend `glide`");
    let o = atomport(&["info", "--backend", "glide"]);
    assert_fails(&o, 2, "unknown backend `glide`");
}

#[test]
fn bad_groups_is_a_usage_error() {
    let o = atomport(&["run", "wgsl/histogram.wgsl", "--groups", "1,2,3,4"]);
    assert_fails(&o, 2, "--groups");
}

#[test]
fn missing_binding_is_a_usage_error() {
    let o = atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=u32:4",
    ]);
    assert_fails(
        &o,
        2,
        "atomport: binding 0.1 (`bins`) is used by the kernel but was not given",
    );
}

#[test]
fn wgsl_error_names_the_line_and_exits_1() {
    let dir = common::scratch().join(format!("atomport-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.wgsl");
    std::fs::write(
        &file,
        "@compute @workgroup_size(1)\nfn main() {\n  let x = ;\n}\n",
    )
    .unwrap();
    let o = atomport(&["run", file.to_str().unwrap(), "--groups", "1"]);
    assert_fails(&o, 1, "bad.wgsl:3:");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Specialization values that make a kernel invalid (an override divisor
/// left at its default 0) are named, with naga's reason, before the
/// pipeline is made; a value that makes it valid runs.
#[test]
fn specialization_values_that_invalidate_a_kernel_are_named() {
    let file = common::temp_file(
        "cli-override",
        "divide.wgsl",
        "override D: u32 = 0u;\n\
         @group(0) @binding(0) var<storage, read_write> v: array<u32>;\n\
         fn f(i: u32) -> u32 { return (v[i] + 8u) / D; }\n\
         @compute @workgroup_size(4)\n\
         fn main(@builtin(global_invocation_id) g: vec3<u32>) { v[g.x] = f(g.x); }\n",
    );
    let o = atomport(&["run", &file, "--groups", "1", "--buffer", "0=u32:4"]);
    assert_fails_in_one_line(&o, 2, "the specialization values make the kernel invalid");
    assert!(stderr(&o).contains("Division by zero"), "{}", stderr(&o));
    let v = run_json(&[
        "run", &file, "--groups", "1", "--buffer", "0=u32:4", "--spec", "D=2", "--json",
    ]);
    assert_eq!(v["bindings"][0]["data"], serde_json::json!([4, 4, 4, 4]));
}

#[test]
fn missing_kernel_file_exits_1() {
    let o = atomport(&["run", "no/such/kernel.wgsl", "--groups", "1"]);
    assert_fails(&o, 1, "no/such/kernel.wgsl: No such file or directory");
}

#[test]
fn timeout_exits_1_without_hanging() {
    for b in common::backend_names() {
        let start = Instant::now();
        let o = atomport(&[
            "run",
            "tests/spin.wgsl",
            "--groups",
            "4096",
            "--buffer",
            "0=u32:[65535,65535]",
            "--buffer",
            "1=u32:1",
            "--timeout",
            "2",
            "--backend",
            b,
        ]);
        let took = start.elapsed();
        assert_fails(&o, 1, "dispatch did not finish within 2 s (timeout)");
        assert!(
            took < Duration::from_secs(15),
            "{b}: the process took {took:?}"
        );
    }
}

#[test]
fn help_lists_the_commands() {
    let o = atomport(&["--help"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    for cmd in ["info", "run", "translate", "validate", "diff"] {
        assert!(text.contains(cmd), "{text}");
    }
}

#[test]
fn translate_prints_wgsl_and_bindings() {
    let o = atomport(&["translate", "tests/glsl/atomic_add_uint_member.comp"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = std::fs::read_to_string("tests/glsl/atomic_add_uint_member.wgsl").unwrap();
    assert_eq!(String::from_utf8(o.stdout).unwrap(), expected);
    let v = run_json(&[
        "translate",
        "tests/glsl/atomic_add_uint_member.comp",
        "--bindings",
    ]);
    assert_eq!(v["dialect"], "vulkan");
    assert_eq!(v["bindings"][0]["group"], 1);
    assert_eq!(v["bindings"][0]["binding"], 2);
    assert_eq!(v["bindings"][0]["kind"], "storage_read_write");
    let dir = common::scratch().join(format!("atomport-cli-tr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.wgsl");
    let o = atomport(&[
        "translate",
        "tests/glsl/define_bins_histogram.comp",
        "-D",
        "BINS=64",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string("tests/glsl/define_bins_histogram.wgsl").unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn translate_errors_exit_1_with_file_and_line() {
    let o = atomport(&["translate", "tests/glsl/errors/atomic_on_local.comp"]);
    // file:line:column first, then the line with a caret under the column.
    assert_fails(
        &o,
        1,
        "tests/glsl/errors/atomic_on_local.comp:7:5: error: 'atomicAdd' : Only l-values",
    );
    assert_fails(
        &o,
        1,
        "\n    7 |     atomicAdd(local, 1u);\n      |     ^^^^^^^^^\n",
    );
    let o = atomport(&["translate", "tests/glsl/define_bins_histogram.comp"]);
    assert_fails(&o, 1, "tests/glsl/define_bins_histogram.comp:");
    let o = atomport(&["translate", "Cargo.toml", "--lang", "spirv"]);
    assert_fails(&o, 1, "Cargo.toml: not a SPIR-V module");
    let o = atomport(&["translate", "Cargo.toml", "--lang", "hlsl"]);
    assert_fails(&o, 2, "`hlsl` is not a shader language");
}

#[test]
fn run_glsl_and_spirv_on_each_backend() {
    let dir = common::scratch().join(format!("atomport-cli-spv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint hits; uvec4 v; int lo; } b;
void main() {
    atomicAdd(b.hits, 1u);
    atomicAdd(b.v.z, 2u);
    atomicMin(b.lo, -int(gl_GlobalInvocationID.x));
    atomicCompSwap(b.v.w, 0u, 9u);
}
";
    let comp = dir.join("k.comp");
    std::fs::write(&comp, src).unwrap();
    let words = atomport::compile_glsl(src, &atomport::SourceOptions::named("k.comp")).unwrap();
    let spv = dir.join("k.bin");
    std::fs::write(&spv, bytemuck::cast_slice(&words)).unwrap();
    for b in common::backend_names() {
        for (path, lang) in [(&comp, None), (&spv, Some("spirv"))] {
            let mut args = vec![
                "run",
                path.to_str().unwrap(),
                "--groups",
                "2",
                "--buffer",
                "0=u32:9",
                "--backend",
                b,
                "--json",
            ];
            if let Some(l) = lang {
                args.extend(["--lang", l]);
            }
            let v = run_json(&args);
            let data: Vec<u64> = v["bindings"][0]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            // hits, pad ×3, v.x..v.w, lo (as u32 bits of -127).
            assert_eq!(
                data,
                vec![128, 0, 0, 0, 0, 0, 256, 9, (-127i32) as u32 as u64],
                "{b} {path:?}"
            );
            assert_eq!(v["bindings"][0]["name"], "b");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_with_images_prints_them_in_texel_order() {
    let dir = common::scratch().join(format!("atomport-cli-img-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let comp = dir.join("img.comp");
    std::fs::write(
        &comp,
        "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimageCube faces;
layout(set = 0, binding = 1, r32i) uniform iimage2DMSArray ms;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageAtomicAdd(faces, ivec3(p, 5), uint(p.x + 10 * p.y));
    imageAtomicMin(ms, ivec3(p, 1), 3, -p.x);
}
",
    )
    .unwrap();
    for b in common::backend_names() {
        let v = run_json(&[
            "run",
            comp.to_str().unwrap(),
            "--groups",
            "1",
            "--image",
            "0=2x2:fill=1",
            "--image",
            "1=2x2x2:samples=4",
            "--backend",
            b,
            "--json",
        ]);
        let faces = &v["bindings"][0];
        assert_eq!(
            (
                faces["kind"].as_str(),
                faces["dim"].as_str(),
                faces["format"].as_str()
            ),
            (Some("image"), Some("cube"), Some("r32ui"))
        );
        assert_eq!(faces["size"], serde_json::json!([2, 2]));
        assert_eq!(faces["samples"], 1);
        let data: Vec<i64> = faces["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        // 6 faces of 2x2; face 5 (-Z) got x + 10y on top of the fill.
        let mut want = vec![1i64; 24];
        for (k, add) in [0, 1, 10, 11].into_iter().enumerate() {
            want[20 + k] += add;
        }
        assert_eq!(data, want, "{b}");
        let ms = &v["bindings"][1];
        assert_eq!(
            (
                ms["dim"].as_str(),
                ms["size"].clone(),
                ms["samples"].as_u64()
            ),
            (Some("2dmsarray"), serde_json::json!([2, 2, 2]), Some(4))
        );
        let data: Vec<i64> = ms["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        // Sample 3, layer 1: texels 3*8 + 4.. hold -x.
        let mut want = vec![0i64; 32];
        want[28 + 1] = -1;
        want[28 + 3] = -1;
        assert_eq!(data, want, "{b}");
    }
    let o = atomport(&[
        "run",
        comp.to_str().unwrap(),
        "--groups",
        "1",
        "--image",
        "0=2x3",
        "--image",
        "1=2x2x2:samples=4",
    ]);
    assert_fails(
        &o,
        2,
        "--image 0.0: cube image: cube faces are square, not 2x3",
    );
    let o = atomport(&[
        "run",
        comp.to_str().unwrap(),
        "--groups",
        "1",
        "--image",
        "0=2x2x6",
        "--image",
        "1=2x2x2",
    ]);
    assert_fails(&o, 2, "a cube image's size has 2 numbers (WxH), not 3");
    let o = atomport(&[
        "run",
        comp.to_str().unwrap(),
        "--groups",
        "1",
        "--image",
        "0=2x2:depth=3",
    ]);
    assert_fails(&o, 2, "is neither a format, samples=N nor fill=V");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validate_passes_on_every_backend_present() {
    let o = atomport(&["validate", "--backend", "all", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let failures: Vec<String> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false && c["skipped"].is_null())
        .map(|c| format!("{} [{}]: {}", c["name"], c["backend"], c["detail"]))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    let backends: Vec<&str> = v["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["backend"].as_str().unwrap())
        .collect();
    assert_eq!(backends, common::backend_names());
    for a in v["adapters"].as_array().unwrap() {
        println!(
            "full matrix on {}: {:.1} s",
            a["backend"],
            a["seconds"].as_f64().unwrap()
        );
    }
    assert_eq!(v["failed"], 0);
    // Skipped: only 64-bit image cases, where the adapter lacks 64-bit atomics.
    let skipped: Vec<&serde_json::Value> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["skipped"].is_null())
        .collect();
    assert!(
        skipped
            .iter()
            .all(|c| c["name"].as_str().unwrap().contains("64/"))
    );
    assert_eq!(
        v["passed"].as_u64().unwrap() as usize,
        v["cases"].as_array().unwrap().len() - skipped.len()
    );
    assert_eq!(v["skipped"].as_u64().unwrap() as usize, skipped.len());
}

#[test]
fn validate_table_list_and_filter() {
    let o = atomport(&[
        "validate",
        "--small",
        "--filter",
        "imageAtomicCompSwap/uint/cubearray",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let last = text.lines().last().unwrap();
    // Standard, chain and out-of-range, and the standard case as OpenGL GLSL.
    assert_eq!(last, "4 passed, 0 failed");
    assert!(text.contains("atomicCompSwap chain"), "{text}");
    assert!(text.contains("atomicCompSwap (GL)"), "{text}");
    let o = atomport(&["validate", "--list", "--filter", "/2dmsarray/out-of-range"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap().lines().count(), 16);
    let o = atomport(&["validate", "--filter", "no such case"]);
    assert_fails(&o, 2, "--filter no such case: no case matches");
}

#[test]
fn diff_of_a_deterministic_kernel_is_equal() {
    let names = common::backend_names();
    if names.len() < 2 {
        println!("skipping: diff needs two backends, found {names:?}");
        return;
    }
    let pair = format!("{},{}", names[0], names[1]);
    let v = run_json(&[
        "diff",
        "wgsl/histogram.wgsl",
        "--backends",
        &pair,
        "--groups",
        "16",
        "--buffer",
        "0=u32:4096:iota",
        "--buffer",
        "1=u32:256",
        "--json",
    ]);
    assert_eq!(v["equal"], true);
    assert_eq!(v["differences"], 0);
    let o = atomport(&[
        "diff",
        "wgsl/histogram.wgsl",
        "--backends",
        "vulkan",
        "--groups",
        "1",
    ]);
    assert_fails(&o, 2, "expected two backends");
}

/// The README's OpenGL example: four instances, two inside the box.
const CULL_ARGS: [&str; 14] = [
    "run",
    "tests/glsl/gl_frustum_cull_counter.comp",
    "--groups",
    "1",
    "--buffer",
    "Instances=f32:[0,0,-5,1,0,0,0,0, 20,0,-5,1,0,0,0,0, 4.5,0,-5,1,0,0,0,0, 0,0,5,1,0,0,0,0]",
    "--buffer",
    "VisibleIds=u32:4",
    "--uniform",
    "u_viewProj=mat4(1.0)",
    "--uniform",
    "u_planes=1,0,0,4, -1,0,0,4, 0,1,0,3, 0,-1,0,3, 0,0,-1,-1, 0,0,1,15",
    "--uniform",
    "u_instanceCount=4",
];

#[test]
fn run_opengl_shader_with_loose_uniforms_and_a_counter() {
    for b in common::backend_names() {
        let mut args = CULL_ARGS.to_vec();
        args.extend(["--backend", b, "--json"]);
        let v = run_json(&args);
        let counters = v["counters"].as_array().unwrap();
        assert_eq!(counters.len(), 1);
        assert_eq!(counters[0]["name"], "visibleCount");
        assert_eq!(counters[0]["value"], 2);
        let ids = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "VisibleIds")
            .unwrap();
        let mut got: Vec<u64> = ids["data"].as_array().unwrap()[..2]
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, [0, 2], "{b}");
        // A counter's initial value is where the compaction starts.
        let mut args = CULL_ARGS.to_vec();
        args.extend(["--counter", "visibleCount=1", "--backend", b, "--json"]);
        let v = run_json(&args);
        assert_eq!(v["counters"][0]["value"], 3);
    }
}

#[test]
fn opengl_input_errors_are_usage_errors_listing_what_the_shader_has() {
    let with = |extra: &[&str]| {
        let mut args = CULL_ARGS.to_vec();
        args.extend(extra);
        atomport(&args)
    };
    let o = with(&["--uniform", "u_instanceCount=-1"]);
    assert_fails(
        &o,
        2,
        "uniform `u_instanceCount` is uint: `-1` is not a valid u32 value",
    );
    let o = with(&["--uniform", "u_planes=1,2"]);
    assert_fails(&o, 2, "it takes 24 value(s), 2 given");
    let o = with(&["--uniform", "u_nope=1"]);
    assert_fails(
        &o,
        2,
        "--uniform u_nope: the kernel has no uniform of that name (uniforms: mat4 u_viewProj, vec4[6] u_planes, uint u_instanceCount, float u_boundsScale)",
    );
    let o = with(&["--counter", "visible=1"]);
    assert_fails(
        &o,
        2,
        "--counter visible: the kernel has no atomic counter of that name (counters: visibleCount)",
    );
    let o = with(&["--counter", "visibleCount=-1"]);
    assert_fails(&o, 2, "not a value of an atomic_uint");
    let o = with(&["--buffer", "Nope=u32:4"]);
    assert_fails(
        &o,
        2,
        "the kernel has no binding named `Nope` (its bindings: ",
    );
    // Without the required uniforms: the first unset one, named.
    let o = atomport(&CULL_ARGS[..8]);
    assert_fails(
        &o,
        2,
        "uniform `u_viewProj` (mat4) of `gl_DefaultUniformBlock` is not set",
    );
}

#[test]
fn dialect_flag() {
    let o = atomport(&[
        "translate",
        "tests/glsl/gl_counters_one_binding.comp",
        "--dialect",
        "vulkan",
    ]);
    assert_fails(&o, 1, "compile it as the `opengl` dialect");
    let o = atomport(&[
        "translate",
        "tests/glsl/gl_counters_one_binding.comp",
        "--dialect",
        "gles",
    ]);
    assert_fails(&o, 2, "`gles` is not a GLSL dialect (vulkan, opengl)");
    let v = run_json(&[
        "translate",
        "tests/glsl/gl_counters_one_binding.comp",
        "--bindings",
    ]);
    assert_eq!(v["dialect"], "opengl");
    assert_eq!(
        v["bindings"][1]["opengl"],
        serde_json::json!({"kind": "atomic_counter", "binding": 0})
    );
}

#[test]
fn run_with_textures_samplers_storage_images_and_png_output() {
    let dir = common::scratch().join(format!("atomport-cli-tex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("out.png");
    for b in common::backend_names() {
        // The tone mapper: an rgba16f input image, an rgba8 output image.
        let v = run_json(&[
            "run",
            "tests/glsl/img_storage_rgba8_tonemap.comp",
            "--groups",
            "1,1",
            "--image",
            "hdr=4x2:fill=0.25,3,0,1",
            "--image",
            "ldr=4x2:rgba8unorm",
            "--out-png",
            &format!("ldr={}", png.display()),
            "--backend",
            b,
            "--json",
        ]);
        let ldr = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "ldr")
            .unwrap();
        assert_eq!(ldr["kind"], "storage_texture");
        assert_eq!(ldr["format"], "rgba8unorm");
        // c / (1 + c): 0.25 -> 0.2, 3 -> 0.75, 0 -> 0, alpha 1; 8-bit
        // rounding (no value falls halfway between two steps).
        let data: Vec<f64> = ldr["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        for t in data.chunks(4) {
            let want = [51.0 / 255.0, 191.0 / 255.0, 0.0, 1.0];
            for (g, w) in t.iter().zip(want) {
                assert!((g - w).abs() < 1e-6, "{b}: {t:?}");
            }
        }
        let (w, h, f, pixels) = atomport::runtime::texture::read_png(&png).unwrap();
        assert_eq!((w, h, f), (4, 2, wgpu::TextureFormat::Rgba8Unorm));
        assert!(
            pixels.chunks(4).all(|p| p == [51, 191, 0, 255]),
            "{pixels:?}"
        );
        // A combined sampler from the command line: a histogram of an iota texture.
        let v = run_json(&[
            "run",
            "tests/glsl/tex_combined_fetch_histogram.comp",
            "--groups",
            "2,2",
            "--texture",
            "photo=16x16:r8unorm:iota",
            "--sampler",
            "photo=nearest",
            "--buffer",
            "Bins=u32:64",
            "--backend",
            b,
            "--json",
        ]);
        let bins = v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == "Bins")
            .unwrap();
        // r8 texel t = t/255 in red; luma = 0.2126 * t/255: bin = floor(64 * that).
        let mut want = vec![0u64; 64];
        for t in 0..256u32 {
            let y = 0.2126f64 * t as f64 / 255.0;
            want[((y * 64.0) as usize).min(63)] += 1;
        }
        let got: Vec<u64> = bins["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(got, want, "{b}");
    }
    // Errors: usage errors naming the flag and what the shader declares.
    let base = [
        "run",
        "tests/glsl/img_storage_rgba8_tonemap.comp",
        "--groups",
        "1,1",
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra);
        atomport(&a)
    };
    assert_fails(
        &with(&["--image", "hdr=4x2", "--image", "ldr=4x2:rgba16float"]),
        2,
        "--image `ldr`: the shader declares `ldr` as rgba8unorm, not rgba16float",
    );
    assert_fails(
        &with(&[
            "--image",
            "hdr=4x2",
            "--image",
            "ldr=4x2",
            "--out-png",
            "hdr=x.png",
        ]),
        2,
        "--out-png hdr: x.png: PNG output takes 8-bit unorm textures (rgba8unorm, bgra8unorm, rg8unorm, r8unorm), not rgba16float",
    );
    let o = atomport(&[
        "run",
        "tests/glsl/tex_sampler_cube_env.comp",
        "--groups",
        "1",
        "--texture",
        "env=@Cargo.toml",
        "--buffer",
        "Out=f32:28",
    ]);
    assert_fails(
        &o,
        2,
        "--texture `env`: a PNG makes a 2d texture; the shader declares cube",
    );
    let o = atomport(&[
        "run",
        "tests/glsl/tex_combined_fetch_histogram.comp",
        "--groups",
        "1",
        "--texture",
        "photo=@Cargo.toml",
        "--buffer",
        "Bins=u32:64",
    ]);
    assert_fails(&o, 2, "Cargo.toml: not a PNG file atomport can read");
    let o = atomport(&[
        "run",
        "tests/glsl/tex_combined_fetch_histogram.comp",
        "--groups",
        "1",
        "--texture",
        "photo=16x16:mips=9",
        "--buffer",
        "Bins=u32:64",
    ]);
    assert_fails(&o, 2, "9 mip levels: a 16x16 texture has 1 to 5");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn spec_target_env_and_warnings_on_the_command_line() {
    let shader = "tests/vulkan/spec_constant_ops.comp";
    for b in common::backend_names() {
        let v = run_json(&[
            "run",
            shader,
            "--groups",
            "1",
            "--buffer",
            "0=u32:16",
            "--spec",
            "TILE=32",
            "--spec",
            "0=4",
            "--target-env",
            "vulkan1.3",
            "--backend",
            b,
            "--json",
        ]);
        let data = &v["bindings"][0]["data"];
        assert_eq!(data[0], 31, "{b}: MASK = TILE - 1");
        assert_eq!(data[13], 4, "{b}: gl_WorkGroupSize.x");
    }
    // Usage errors name the flag and exit 2.
    let o = atomport(&["translate", shader, "--spec", "NOPE=1"]);
    assert_fails(
        &o,
        2,
        "no specialization constant `NOPE` (--spec NOPE=1); it has: 0, 1 (TILE)",
    );
    let o = atomport(&["translate", shader, "--spec", "WIDE=maybe"]);
    assert_fails(&o, 2, "`WIDE` (--spec WIDE=maybe) is a bool");
    let o = atomport(&["translate", shader, "--spec", "TILE"]);
    assert_fails(&o, 2, "a specialization is ID=VALUE or NAME=VALUE");
    let o = atomport(&["translate", shader, "--target-env", "vulkan2"]);
    assert_fails(&o, 2, "`vulkan2` is not a target environment");
    // Warnings: on stderr with their line, once each; an error when denied.
    let mm = "tests/vulkan/memory_model_flag.comp";
    let o = atomport(&["translate", mm]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.starts_with(&format!("{mm}:18: warning: atomics with acquire, release")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{mm}:8: warning: `coherent` memory")),
        "{err}"
    );
    // Denied: the warnings, then the error line.
    let o = atomport(&["translate", mm, "--deny-warnings"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    let last = err.lines().last().unwrap();
    assert_eq!(
        last,
        format!("atomport: {mm}: 2 warning(s), and --deny-warnings makes them errors")
    );
    assert_eq!(err.lines().count(), 3, "{err}");
    // `diff` loads the shader once per backend but warns once.
    let names = common::backend_names();
    if names.len() == 2 {
        let o = atomport(&[
            "diff",
            mm,
            "--backends",
            "vulkan,gl",
            "--groups",
            "1",
            "--buffer",
            "0=u32:65",
            "--buffer",
            "1=u32:64",
        ]);
        let err = stderr(&o);
        // Ran and compared (which invocation wins the compare-swap may
        // differ between backends, so a difference is allowed).
        assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
        assert!(!o.stdout.is_empty(), "{err}");
        assert_eq!(err.matches("warning:").count(), 2, "{err}");
    }
}

#[test]
fn texture_and_image_formats_take_glsl_and_wgpu_names_alike() {
    let run = |flag: &str, spec: &str, shader: &str, out: &str| {
        common::run_json(&[
            "run",
            shader,
            "--groups",
            "1,1",
            flag,
            spec,
            "--buffer",
            out,
            "--backend",
            "vulkan",
            "--json",
        ])["bindings"]
            .clone()
    };
    let h = "tests/glsl/tex_combined_fetch_histogram.comp";
    assert_eq!(
        run("--texture", "photo=4x4:rgba16f:fill=0.5", h, "Bins=u32:64"),
        run(
            "--texture",
            "photo=4x4:rgba16float:fill=0.5",
            h,
            "Bins=u32:64"
        ),
    );
    let f = "tests/glsl/img_storage_r32f_no_atomics.comp";
    let o = common::atomport(&[
        "run",
        f,
        "--groups",
        "1,1",
        "--image",
        "field=8x8:r32float:fill=2",
        "--backend",
        "vulkan",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let o = common::atomport(&[
        "run",
        h,
        "--groups",
        "1",
        "--texture",
        "photo=4x4:rgba17f",
        "--backend",
        "vulkan",
    ]);
    common::assert_fails(&o, 2, "or GLSL's name");
}

/// `translate --translation` writes the WGSL and its binding map in one
/// JSON file; `run FILE.json` loads it back without glslang and runs it
/// with the same flags, by the same names (the image, the combined
/// sampler, the push constants), to the same output as the GLSL.
#[test]
fn a_translation_written_by_translate_runs_as_its_glsl() {
    let shader = "examples/embed/shaders/tile_max.comp";
    let dir = common::scratch().join(format!("atomport-translation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("tile_max.json");
    let o = common::atomport(&[
        "translate",
        shader,
        "--translation",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let flags = [
        "--groups",
        "3,2",
        "--texture",
        "heights=19x13:r8unorm:iota",
        "--sampler",
        "heights=nearest",
        "--image",
        "tileMax=5x3",
        "--buffer",
        "stats=u32:2",
        "--push",
        "tileSize=4",
        "--push",
        "scale=1000",
        "--json",
    ];
    for b in common::backend_names() {
        let run = |path: &str| {
            let mut args = vec!["run", path, "--backend", b];
            args.extend(flags);
            run_tile_max(args)
        };
        let from_glsl = run(shader);
        let from_json = run(json.to_str().unwrap());
        assert_eq!(from_glsl, from_json, "{b}");
        // Without --sampler, the combined sampler's sampler is nearest, clamping.
        let mut args = vec!["run", shader, "--backend", b];
        args.extend(
            flags
                .iter()
                .filter(|f| !f.starts_with("--sampler") && !f.starts_with("heights=nearest")),
        );
        assert_eq!(run_tile_max(args), from_glsl, "{b}: the default sampler");
        // Every texel of the 19×13 height field is inside a tile of the 5×3 image
        // but those of the last row (y = 12): 19 texels clipped.
        let text = from_json.to_string();
        assert!(text.contains("[228,19]"), "{b}: {text}");
    }
    // Both flags at once is a usage error; a file that is not a
    // translation is refused by name.
    let both = common::atomport(&["translate", shader, "--translation", "--bindings"]);
    assert_eq!(both.status.code(), Some(2));
    let bad = dir.join("not.json");
    std::fs::write(&bad, "{\"kernel\": true}").unwrap();
    let o = common::atomport(&["run", bad.to_str().unwrap(), "--groups", "1"]);
    common::assert_fails_in_one_line(&o, 1, "not.json: not an atomport translation");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run … --json` without the shader's name (it names the file run).
fn run_tile_max(args: Vec<&str>) -> serde_json::Value {
    let mut v = common::run_json(&args);
    v.as_object_mut().unwrap().remove("shader");
    v
}

#[test]
fn translate_fits_the_named_backends_adapter_and_says_which_forms() {
    let shader = "tests/vulkan/int64_arithmetic.comp";
    let plain = atomport(&["translate", shader, "--bindings"]);
    assert!(plain.status.success(), "{}", common::stderr(&plain));
    let map: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(map.get("forms").is_none(), "{map}");
    for b in common::backend_names() {
        let choice: atomport::BackendChoice = b.parse().unwrap();
        let caps = atomport::ContextOptions::from_env_with(Some(choice))
            .unwrap()
            .adapter_features()
            .unwrap();
        let o = atomport(&["translate", shader, "--backend", b, "--bindings"]);
        assert!(o.status.success(), "{b}: {}", common::stderr(&o));
        let map: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let pairs = map["forms"]
            .as_array()
            .is_some_and(|f| f.iter().any(|x| x == "int64_pairs"));
        assert_eq!(
            pairs,
            !caps.contains(wgpu::Features::SHADER_INT64),
            "{b}: {map}"
        );
    }
    // The adapter decides what the flags would have said.
    let o = atomport(&["translate", shader, "--backend", "gl", "--binding-arrays"]);
    assert_fails(&o, 2, "--binding-arrays");
}

/// An OpenGL program of two compute shaders: translated with the unit that
/// defines its functions linked; without it, each function is named as
/// GLSL writes it at the line that declares it, with the flag that links
/// it; a unit that cannot be read is named.
#[test]
fn linked_units_translate_and_a_missing_one_is_named() {
    let main = "tests/glsl/linked_units_jitter_histogram.comp";
    let o = atomport(&["translate", main, "--link", "tests/glsl/link/jitter.glsl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let wgsl = String::from_utf8(o.stdout).unwrap();
    assert!(
        wgsl.contains("fn jitter(") && wgsl.contains("atomicMax"),
        "{wgsl}"
    );

    let o = atomport(&["translate", main]);
    assert_fails(&o, 1, "is declared but defined in no compilation unit");
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{main}:25: error: `jitter(uvec2, uint)`"))
            && err.contains(&format!("{main}:26: error: `bucket(float)`"))
            && err.contains("--link FILE"),
        "{err}"
    );

    let o = atomport(&["translate", main, "--link", "tests/glsl/link/absent.glsl"]);
    assert_fails(&o, 1, "tests/glsl/link/absent.glsl");
}
