//! `atomport check`: every golden and demo kernel checked with no inputs
//! written (their `// run:` lines ignored), each given a verdict; the
//! command's errors, exit codes, `--json` and `--junit` shapes.

mod common;

use common::{assert_fails, atomport, stderr, temp_file};

/// The shaders `check` leaves unchecked with every input generated, and
/// why: what they need is geometry a generator does not guess.
const UNCHECKED: [(&str, &str); 2] = [
    (
        "raster.comp",
        "writes only for triangles that cover a pixel centre",
    ),
    (
        "gl_point_raster_min_depth.comp",
        "writes only for points a projection matrix puts on screen",
    ),
];

#[test]
fn every_golden_and_demo_kernel_gets_a_verdict_with_no_inputs_written() {
    let corpus: Vec<String> = common::corpus()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let junit = temp_file("check", "corpus.xml", "");
    let mut args = vec!["check", "--no-run-lines", "--json", "--junit", &junit];
    args.extend(corpus.iter().map(String::as_str));
    let start = std::time::Instant::now();
    let o = atomport(&args);
    let seconds = start.elapsed().as_secs_f64();
    let reports: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    let reports = reports.as_array().expect("an array");
    assert_eq!(reports.len(), corpus.len());
    let mut by = std::collections::BTreeMap::<String, Vec<String>>::new();
    for r in reports {
        let name = r["shader"].as_str().unwrap().rsplit('/').next().unwrap();
        let verdict = r["verdict"].as_str().unwrap().to_string();
        if verdict != "exact" {
            println!("{name}: {verdict}: {}", r["reason"]);
            assert!(r["reason"].is_string(), "{name}: a verdict says why");
        }
        by.entry(verdict).or_default().push(name.to_string());
    }
    println!(
        "{} shaders in {seconds:.1} s ({:.2} s each): {:?}",
        corpus.len(),
        seconds / corpus.len() as f64,
        by.iter().map(|(v, n)| (v, n.len())).collect::<Vec<_>>()
    );
    assert!(!by.contains_key("differs"), "{:?}", by.get("differs"));
    assert!(!by.contains_key("not-translated"), "{by:?}");
    let unchecked = by.get("unchecked").cloned().unwrap_or_default();
    for name in &unchecked {
        assert!(
            UNCHECKED.iter().any(|(n, _)| n == name),
            "{name} is unchecked: nothing made it write"
        );
    }
    assert!(
        by.get("exact")
            .is_some_and(|e| e.len() * 10 >= corpus.len() * 8)
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The JUnit report: one test case per shader.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert_eq!(xml.matches("<testcase ").count(), corpus.len());
    assert!(xml.contains(&format!("tests=\"{}\" failures=\"0\"", corpus.len())));
}

#[test]
fn run_lines_give_the_inputs_and_the_dispatch() {
    let o = atomport(&[
        "check",
        "--json",
        "--backends",
        "vulkan",
        "tests/glsl/gl_std140_next_to_loose.comp",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "exact", "{v}");
    // The run line's --groups 4, and its inputs in every variant (but the
    // one-group one): a single run of each.
    let runs = v[0]["runs"].as_array().unwrap();
    assert!(runs.iter().all(|r| r["backend"] == "vulkan"));
    assert_eq!(runs[0]["groups"], serde_json::json!([4, 1, 1]));
    assert!(runs.iter().any(|r| r["variant"] == "one-group"));
}

#[test]
fn run_lines_give_an_image_arrays_elements_one_by_one() {
    // Twelve levels, each given by its own `--image levels[k]=…`; for the
    // WebGPU target they share one buffer.
    let o = atomport(&[
        "check",
        "--json",
        "--target",
        "webgpu",
        "--variants",
        "well-formed",
        "tests/vulkan/mip_chain_twelve_levels.comp",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "exact", "{v}");
}

#[test]
fn images_declared_without_a_format_get_one_of_their_type() {
    // A wavelet pass's output written without a format, beside a counter
    // image read and written: the generated inputs give each a format.
    let shader = temp_file(
        "check",
        "formatless.comp",
        "#version 450\n#extension GL_EXT_shader_image_load_formatted : require\nlayout(local_size_x = 8, local_size_y = 8) in;\nlayout(set = 0, binding = 0) writeonly uniform image2D outImg;\nlayout(set = 0, binding = 1) uniform uimage2D counts;\nvoid main() { ivec2 p = ivec2(gl_GlobalInvocationID.xy); uint c = imageLoad(counts, p).x; imageStore(counts, p, uvec4(c + 1u)); imageStore(outImg, p, vec4(float(c) * 0.25, 0.5, 1.0, 1.0)); }\n",
    );
    let o = atomport(&["check", "--json", "--variants", "well-formed", &shader]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "exact", "{v}");
}

#[test]
fn an_adapter_lacking_a_feature_runs_the_translation_made_for_it() {
    // 64-bit arithmetic: llvmpipe's GL has no SHADER_INT64, so it runs the
    // translation with pairs of words, checked like any other.
    let o = atomport(&[
        "check",
        "--json",
        "--variants",
        "well-formed",
        "tests/vulkan/int64_arithmetic.comp",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "exact", "{v}");
    let runs = v[0]["runs"].as_array().unwrap();
    for r in runs {
        assert_eq!(r["verdict"], "exact", "{r}");
    }
    if common::backend_names().contains(&"gl") {
        assert!(runs.iter().any(|r| r["backend"] == "gl"), "{v}");
    }
}

#[test]
fn text_output_ends_with_the_summary() {
    let shader = temp_file(
        "check",
        "copy.comp",
        "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) readonly buffer In { float a[]; };\nlayout(set = 0, binding = 1) buffer Out { float b[]; };\nvoid main() { uint i = gl_GlobalInvocationID.x; b[i] = a[i] * 2.0 + 1.0; }\n",
    );
    let o = atomport(&["check", &shader]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("copy.comp: exact"), "{out}");
    assert_eq!(
        out.lines().last(),
        Some("1 exact, 0 order-independent, 0 within rounding, 0 differ, 0 unchecked, 0 not run")
    );
}

/// A froxel pass writing a 3D image slice by slice. wgpu's GL backend binds
/// a 3D storage texture's first slice only: there the check runs the
/// translation that holds the image in a texel buffer. Declared without a
/// format, the image stays a texture whatever the translation, so its GL
/// runs are refused, and the text names the backend and why under the
/// verdict, which holds for the other backends only.
#[test]
fn a_backend_left_out_is_named_under_the_verdict() {
    let froxels = |format: &str| {
        format!(
            "#version 450\nlayout(local_size_x = 4, local_size_y = 4) in;\nlayout(set = 0, binding = 0{format}) uniform writeonly image3D froxels;\nlayout(set = 0, binding = 1) readonly buffer Fog {{ float density[]; }};\nvoid main() {{\n    ivec3 size = imageSize(froxels);\n    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n    if (any(greaterThanEqual(p, size.xy))) return;\n    float t = 1.0;\n    for (int z = 0; z < size.z; z++) {{\n        t *= 1.0 - clamp(density[z % density.length()], 0.0, 1.0) * 0.25;\n        imageStore(froxels, ivec3(p, z), vec4(t, float(z), 0.0, 1.0));\n    }}\n}}\n"
        )
    };
    let gl = common::backend_names().contains(&"gl");
    let declared = temp_file("check", "froxels.comp", &froxels(", rgba16f"));
    let o = atomport(&["check", "--json", "--variants", "well-formed", &declared]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = v[0]["runs"].as_array().unwrap();
    assert!(runs.iter().all(|r| r["verdict"] == "exact"), "{v}");
    assert_eq!(runs.iter().any(|r| r["backend"] == "gl"), gl, "{v}");
    let formatless = temp_file("check", "froxels_formatless.comp", &froxels(""));
    let o = atomport(&["check", "--variants", "well-formed", &formatless]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("froxels_formatless.comp: exact"), "{out}");
    assert_eq!(
        lines[1]
            == "  not run on gl: the 3D storage image `froxels` cannot be used on wgpu's GL backend: wgpu binds only its first slice (stores to the others are lost, loads read slice 0); run it on Vulkan",
        gl,
        "{out}"
    );
}

#[test]
fn a_folder_stands_for_its_shaders_not_its_headers() {
    // A project's layout: shaders of two stages and the header they
    // include, all `.glsl`.
    let dir = common::scratch().join(format!("atomport-check-project-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::write(
        dir.join("include/scale.glsl"),
        "float scaled(float x) { return x * 2.0 + 1.0; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("scale.comp.glsl"),
        "// A shader named .glsl, with comments before its version.\n#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"include/scale.glsl\"\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) readonly buffer In { float a[]; };\nlayout(set = 0, binding = 1) buffer Out { float b[]; };\nvoid main() { uint i = gl_GlobalInvocationID.x; b[i] = scaled(a[i]); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("present.frag.glsl"),
        "#version 450\nlayout(location = 0) out vec4 colour;\nvoid main() { colour = vec4(1.0); }\n",
    )
    .unwrap();
    // SPIR-V shipped beside the sources: a compute module whose name gives
    // no stage, another stage by its name, and one by its entry point
    // (a header, `OpEntryPoint Fragment %1 "main"`: nothing else is read).
    let doubled = "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer Io { float v[]; };\nvoid main() { v[gl_GlobalInvocationID.x] *= 2.0; }\n";
    let words =
        atomport::compile_glsl(doubled, &atomport::SourceOptions::named("doubled.comp")).unwrap();
    std::fs::write(dir.join("doubled.spv"), bytemuck::cast_slice(&words)).unwrap();
    std::fs::write(dir.join("present.frag.spv"), b"not read").unwrap();
    let fragment: [u32; 9] = [
        0x0723_0203,
        0x0001_0000,
        0,
        2,
        0,
        4 << 16 | 15,
        4,
        1,
        u32::from_le_bytes(*b"main"),
    ];
    std::fs::write(dir.join("blit.spv"), bytemuck::cast_slice(&fragment)).unwrap();
    let o = atomport(&["check", "--json", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let shaders: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["shader"].as_str().unwrap())
        .collect();
    assert_eq!(shaders.len(), 2, "{v}");
    assert!(shaders[0].ends_with("doubled.spv"), "{v}");
    assert!(shaders[1].ends_with("scale.comp.glsl"), "{v}");
    assert_eq!(v[0]["verdict"], "exact", "{v}");
    assert_eq!(v[1]["verdict"], "exact", "{v}");
    // A folder of headers alone holds no compute shader.
    assert_fails(
        &atomport(&["check", dir.join("include").to_str().unwrap()]),
        2,
        "the folder holds no compute shader (.comp, .comp.glsl, .glsl with a #version, or .spv with a compute entry point)",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_shader_without_a_version_is_checked_at_the_version_given() {
    // A pass whose renderer gives glslang its version: none in the file.
    let shader = temp_file(
        "check",
        "Scale.comp.glsl",
        "layout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) readonly buffer In { float a[]; };\nlayout(set = 0, binding = 1) buffer Out { float b[]; };\nvoid main() { uint i = gl_GlobalInvocationID.x; b[i] = fma(a[i], 2.0, 1.0); }\n",
    );
    let o = atomport(&["check", "--json", &shader]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "not-translated", "{v}");
    assert!(
        v[0]["reason"].as_str().unwrap().contains("--glsl-version"),
        "{v}"
    );
    // Each variant runs in a child process, which gets the version too.
    let o = atomport(&["check", "--json", "--glsl-version", "460", &shader]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "exact", "{v}");
    assert_fails(
        &atomport(&["check", "--glsl-version", "330", &shader]),
        2,
        "`330` is not a GLSL version with compute shaders",
    );
}

#[test]
fn a_shader_that_does_not_translate_fails_the_check() {
    let bad = temp_file(
        "check",
        "bad.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing(); }\n",
    );
    let good = temp_file(
        "check",
        "fine.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint b[]; };\nvoid main() { b[0] = 1u; }\n",
    );
    let o = atomport(&["check", "--json", &bad, &good]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["verdict"], "not-translated");
    assert!(
        v[0]["reason"].as_str().unwrap().contains("bad.comp:3"),
        "{v}"
    );
    // The others are checked all the same.
    assert_eq!(v[1]["verdict"], "exact");
}

#[test]
fn usage_errors_exit_2() {
    assert_fails(
        &atomport(&["check", "--variants", "warm", "x.comp"]),
        2,
        "`warm` is not a variant",
    );
    assert_fails(
        &atomport(&["check", "--backends", "all", "x.comp"]),
        2,
        "`all` is the default",
    );
    let shader = temp_file(
        "check",
        "u.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
    );
    assert_fails(
        &atomport(&["check", "--run", "--buffer", &shader]),
        2,
        "--run",
    );
    assert_fails(
        &atomport(&["check", "--run", "--frobnicate 3", &shader]),
        2,
        "--run: `--frobnicate` is not a job flag",
    );
    let empty = common::scratch().join(format!("atomport-check-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    assert_fails(
        &atomport(&["check", empty.to_str().unwrap()]),
        2,
        "the folder holds no compute shader",
    );
    assert_fails(
        &atomport(&["check", "no/such/shader.comp"]),
        1,
        "no/such/shader.comp",
    );
    assert_fails(&atomport(&["check"]), 2, "SHADER");
}

#[test]
fn browser_without_its_set_up_says_what_is_missing() {
    let shader = temp_file(
        "check",
        "b.comp",
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
    );
    let o = common::atomport_command(&["check", "--browser", &shader])
        .env("ATOMPORT_ROOT", "/nonexistent-atomport")
        .output()
        .unwrap();
    common::assert_fails_in_one_line(
        &o,
        1,
        "--browser: no /nonexistent-atomport/examples/web/run.mjs",
    );
}
