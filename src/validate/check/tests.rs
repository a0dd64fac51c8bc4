//! `check` on kernels written for it: a translation broken on purpose (a
//! fault injected through the test-only hook) must differ; order-dependent
//! output must not; a kernel that writes only under some inputs must be
//! made to write, and one that never writes is unchecked.

use super::*;
use crate::SourceOptions;
use crate::lower::fault::{Fault, inject};

fn glsl(src: &str) -> Kernel {
    Kernel::from_glsl(src, &SourceOptions::named("check-test.comp")).expect("translates")
}

/// Whether this machine can run a check at all (a Vulkan adapter with
/// passthrough shaders).
fn native_present() -> bool {
    ContextOptions::from_env_with(Some(BackendChoice::Vulkan))
        .and_then(ContextOptions::for_native)
        .and_then(|o| o.adapter_features())
        .is_ok_and(|f| f.contains(wgpu::Features::PASSTHROUGH_SHADERS))
}

/// Each invocation adds its own value at its own texel: a transposed
/// image holds the values at other texels.
const IMAGE_ADD: &str = r#"#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D tally;
layout(set = 0, binding = 1) readonly buffer Weights { uint weight[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageAtomicAdd(tally, p, weight[p.y * 32 + p.x] + uint(p.x) * 7u);
}
"#;

#[test]
fn swapped_image_axes_differ() {
    if !native_present() {
        eprintln!("skipped: no Vulkan adapter with passthrough shaders");
        return;
    }
    let opts = CheckOptions::default();
    let good = check(&glsl(IMAGE_ADD), &opts);
    assert_eq!(good.verdict, Verdict::Exact, "{good:#?}");
    let broken = inject(Some(Fault::SwappedImageAxes), || glsl(IMAGE_ADD));
    let r = check(&broken, &opts);
    assert_eq!(r.verdict, Verdict::Differs, "{r:#?}");
    let run = r
        .runs
        .iter()
        .find(|x| x.variant == Variant::WellFormed && x.verdict == Verdict::Differs)
        .expect("the well-formed run differs");
    assert_eq!(run.differences[0].binding, "tally");
    assert!(run.differences[0].count > 0);
    assert!(run.written > 0);
    // The differing run's inputs, as flags, run again: the same dispatch,
    // and the translation differs from the original under them.
    let (res, groups) = Resources::from_flags(&run.inputs).expect("the inputs parse as flags");
    assert_eq!(groups, run.groups);
    let contexts = Contexts::open(&broken, &opts).unwrap();
    let native = job::run(&contexts.native, &broken, groups, &res, true).unwrap();
    let translated = job::run(&contexts.native, &broken, groups, &res, false).unwrap();
    let layouts: Vec<((u32, u32), Layout)> = broken
        .bindings()
        .iter()
        .map(|b| ((b.group, b.binding), Layout::of(None, b)))
        .collect();
    let again = differing(&native, &translated, &layouts);
    assert_eq!(again.len(), 1, "{again:#?}");
    assert_eq!(again[0].binding, "tally");
    assert_eq!(again[0].count, run.differences[0].count);
    // Runs that agree carry no inputs.
    assert!(good.runs.iter().all(|x| x.inputs.is_empty()));
}

#[test]
fn an_append_buffer_is_not_a_difference() {
    if !native_present() {
        return;
    }
    // Keys above a threshold appended in whatever order invocations ran.
    let k = glsl(
        r#"#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Keys { float keys[]; };
layout(set = 0, binding = 1) buffer Kept { uint kept_count; uint kept[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (keys[i] > 1.25) {
        uint slot = atomicAdd(kept_count, 1u);
        kept[slot] = i;
    }
}
"#,
    );
    let opts = CheckOptions {
        job: vec!["--groups".into(), "16".into()],
        ..CheckOptions::default()
    };
    let r = check(&k, &opts);
    println!("append buffer: {:?} {:?}", r.verdict, r.reason);
    assert!(
        matches!(r.verdict, Verdict::Exact | Verdict::OrderIndependent),
        "{r:#?}"
    );
    for run in r
        .runs
        .iter()
        .filter(|x| x.verdict == Verdict::OrderIndependent)
    {
        assert!(run.rules.iter().any(|x| x.starts_with("Kept")), "{run:#?}");
    }
}

#[test]
fn zero_inputs_write_nothing_and_the_others_write() {
    if !native_present() {
        return;
    }
    // Nothing happens with a zero scale: only the other variants prove it.
    let k = glsl(
        r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { float scale; uint count; };
layout(set = 0, binding = 1) buffer Data { vec2 v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= count || scale == 0.0) return;
    v[i] = v[i] * scale + vec2(float(i));
}
"#,
    );
    let r = check(&k, &CheckOptions::default());
    assert_eq!(r.verdict, Verdict::Exact, "{r:#?}");
    let zero = r.runs.iter().find(|x| x.variant == Variant::Zero).unwrap();
    assert_eq!((zero.written, zero.verdict), (0, Verdict::Unchecked));
    let well = r
        .runs
        .iter()
        .find(|x| x.variant == Variant::WellFormed)
        .unwrap();
    // `count` reads as a count: every invocation of the dispatch works.
    let invocations = (well.groups[0] * 64) as usize;
    assert_eq!(well.written, 2 * invocations, "{well:#?}");
}

#[test]
fn a_kernel_that_never_writes_is_unchecked() {
    if !native_present() {
        return;
    }
    let k = glsl(
        r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
    if (gl_GlobalInvocationID.x > 1000000u) o[0] = 1u;
}
"#,
    );
    let r = check(&k, &CheckOptions::default());
    assert_eq!(r.verdict, Verdict::Unchecked, "{r:#?}");
    assert!(r.reason.unwrap().contains("write anything"));
}

#[test]
fn floats_compare_as_floats() {
    assert!(same_f64(0.0, -0.0));
    assert!(same_f64(f64::NAN, -f64::NAN));
    assert!(!same_f64(1.0, 1.0 + 1e-12));
    let near = |a, b| relative(a, b, 0.0).is_some_and(|r| r <= NEAR);
    assert!(near(1000.0, 1000.01));
    assert!(!near(1.0, 1.1));
    assert!(!near(f64::INFINITY, f64::INFINITY));
    assert_eq!(relative(-2.0, -1.5, 0.0), Some(0.25));
    // A value that cancels its terms is measured against the binding's
    // scale: 5e-4 and 5.00075e-4 are 1.5e-4 apart relatively, but 7.5e-8
    // apart is 1e-6 of a hundredth of 7.5.
    assert!(!near(5e-4, 5.00075e-4));
    let r = relative(5e-4, 5.00075e-4, 7.5).unwrap();
    assert!((r - 1e-6).abs() < 1e-12 && r <= NEAR, "{r}");
    let d = data_differences(
        &Data::F32(vec![0.0, f32::NAN, 1.0]),
        &Data::F32(vec![-0.0, -f32::NAN, 2.0]),
        Step::default(),
    );
    assert_eq!(d, vec![(2, Some(0.5))]);
    // One rounding step of the format apart: both conversions are allowed.
    let a = Data::F32(vec![1.0, 0.5]);
    let b = Data::F32(vec![1.015625, 0.5 + 1.0 / 255.0]);
    let step = |f| rounding_step(Some(f));
    assert_eq!(data_differences(&a, &b, step("r11f_g11f_b10f")), vec![]);
    assert_eq!(
        data_differences(&a, &b, step("rgba8")),
        vec![(0, Some(0.015625 / 1.015625))]
    );
    assert_eq!(data_differences(&a, &b, step("r32f")).len(), 2);
}

#[test]
fn atomic_results_used_are_found() {
    let used = glsl(
        r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint n; uint o[]; };
void main() { o[atomicAdd(n, 1u)] = 5u; }
"#,
    );
    let unused = glsl(
        r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint n; uint o[]; };
void main() { atomicAdd(n, 1u); o[0] = 5u; }
"#,
    );
    assert!(traits(used.original_spirv().unwrap()).atomic_results_used);
    assert!(!traits(unused.original_spirv().unwrap()).atomic_results_used);
}

#[test]
fn a_64_bit_integer_is_shown_whole_from_its_low_word() {
    let v: u64 = 21_851_315_733_790_720;
    let bytes = [v.to_le_bytes().as_slice(), &7u32.to_le_bytes()].concat();
    let whole = word_text(Some(Word::Int), Some(Word::IntHigh), &bytes, 0);
    assert_eq!(whole, format!("{v:#018x} ({v})"));
    // A 32-bit integer, and the last word, stay one word.
    assert_eq!(
        word_text(Some(Word::Int), Some(Word::Int), &bytes, 0),
        format!("{:#010x}", v as u32)
    );
    assert_eq!(word_text(Some(Word::Int), None, &bytes, 2), "0x00000007");
    assert_eq!(word_text(Some(Word::Int), None, &bytes, 3), "(missing)");
}

/// A translation whose float arithmetic rounds otherwise (every literal
/// one float up, as a driver fusing a multiply and an add would move the
/// result) is within rounding, on every backend, naming the binding and
/// how far; one whose literals are 100 000 floats off (about 1 %) differs.
#[test]
fn floats_apart_by_rounding_alone_are_within_rounding() {
    if !native_present() {
        eprintln!("skipping: no Vulkan adapter with passthrough shaders");
        return;
    }
    const SCALE: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) buffer Out { vec2 y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    y[i] = vec2(x[i] * 1.3 + 0.7, x[i] - x[i] * 0.999);
}
"#;
    let opts = CheckOptions::default();
    assert_eq!(check(&glsl(SCALE), &opts).verdict, Verdict::Exact);
    let nudged = |steps| inject(Some(Fault::NudgedFloatLiterals { steps }), || glsl(SCALE));
    let r = check(&nudged(1), &opts);
    assert_eq!(r.verdict, Verdict::WithinRounding, "{r:#?}");
    let written: Vec<&Run> = r.runs.iter().filter(|x| x.written > 0).collect();
    assert!(!written.is_empty());
    for run in written {
        assert_eq!(run.verdict, Verdict::WithinRounding, "{run:#?}");
        assert!(run.differences.is_empty());
        assert_eq!(run.rounded[0].binding, "Out");
        assert!(run.rules[0].starts_with("Out: "), "{:?}", run.rules);
        // x - x * 0.999 cancels: measured against the binding's scale.
        assert!(run.rounded[0].largest_relative <= NEAR);
    }
    assert!(r.reason.unwrap().contains("floats, at most"));
    let r = check(&nudged(100_000), &opts);
    assert_eq!(r.verdict, Verdict::Differs, "{r:#?}");
    // Floats all: the reason says how far apart.
    let reason = r.reason.unwrap();
    assert!(reason.contains("floats at most"), "{reason}");
}

/// A well-formed run that differs where the native run wrote nothing (the
/// translation did not finish, or wrote) decides the verdict; equal empty
/// runs leave it unchecked, as do differing raw ones.
#[test]
fn a_difference_counts_even_where_the_original_wrote_nothing() {
    let hung = "the translation did not finish where the original did: dispatch did not finish within 2 s (timeout)";
    let run = |variant, verdict, note: Option<&str>| {
        Run::new(
            variant,
            "vulkan",
            [1, 1, 1],
            verdict,
            0,
            note.map(String::from),
        )
    };
    let r = verdict_of(vec![
        run(Variant::WellFormed, Verdict::Differs, Some(hung)),
        run(Variant::OneGroup, Verdict::Unchecked, None),
    ]);
    assert_eq!(r.verdict, Verdict::Differs, "{r:#?}");
    assert!(r.reason.unwrap().contains("did not finish"));
    let r = verdict_of(vec![
        run(Variant::WellFormed, Verdict::Unchecked, None),
        run(Variant::Random, Verdict::Differs, Some(hung)),
    ]);
    assert_eq!(r.verdict, Verdict::Unchecked, "{r:#?}");
    assert_eq!(r.possible_undefined.len(), 1);
}

/// A backend where the translation did not finish is not dispatched on
/// again in later variants (each try costs the whole timeout): its runs
/// say in which variant it hung, and the other backends run as before.
#[test]
fn a_backend_whose_translation_hung_is_not_tried_again() {
    if !native_present() {
        eprintln!("skipped: no Vulkan adapter with passthrough shaders");
        return;
    }
    let opts = CheckOptions {
        variants: vec![Variant::OneGroup, Variant::Iota],
        ..CheckOptions::default()
    };
    let hung = vec![("vulkan".to_string(), Variant::WellFormed)];
    let r = check_after(&glsl(IMAGE_ADD), &opts, hung);
    let vulkan: Vec<&Run> = r.runs.iter().filter(|x| x.backend == "vulkan").collect();
    assert_eq!(vulkan.len(), 2, "{r:#?}");
    for run in vulkan {
        assert_eq!(run.verdict, Verdict::NotRun, "{run:#?}");
        assert_eq!(
            run.note.as_deref(),
            Some("the translation did not finish in the well-formed variant here")
        );
    }
    // Elsewhere the runs go on (where another backend is present).
    assert!(
        r.runs
            .iter()
            .filter(|x| x.backend != "vulkan")
            .all(|x| x.verdict == Verdict::Exact),
        "{r:#?}"
    );
}

/// A browser run that differs only in a runtime array's last element,
/// where the native backends agree, is the original's access past the
/// end (a driver drops the write, a browser clamps it there): listed as
/// possibly undefined, not the verdict. Elsewhere in the array, or with a
/// native backend that differs too, it stays a difference.
#[test]
fn a_browser_difference_only_past_the_end_is_the_originals() {
    let found = |out_of_range| Found {
        binding: "Out".into(),
        slot: (0, 0),
        count: 1,
        first: Vec::new(),
        out_of_range,
        float_sums: false,
        largest_relative: 0.0,
        floats: false,
    };
    let run = |backend: &str, verdict, differences: Vec<Found>| {
        let mut r = Run::new(Variant::WellFormed, backend, [1, 1, 1], verdict, 8, None);
        r.differences = differences;
        r
    };
    let judged = |browser: Run, native: Vec<Run>| {
        let mut there = vec![browser];
        mark_past_the_end(&mut there, &native);
        let past = there[0].past_the_end;
        (past, verdict_of([native, there].concat()))
    };
    let (past, r) = judged(
        run("browser", Verdict::Differs, vec![found(true)]),
        vec![
            run("vulkan", Verdict::Exact, vec![]),
            run("gl", Verdict::Exact, vec![]),
        ],
    );
    assert!(past);
    assert_eq!(r.verdict, Verdict::Exact, "{r:#?}");
    assert_eq!(r.possible_undefined.len(), 1, "{r:#?}");
    assert!(r.possible_undefined[0].contains("only past the end"));
    // Not only the last element.
    let (past, r) = judged(
        run("browser", Verdict::Differs, vec![found(true), found(false)]),
        vec![run("vulkan", Verdict::Exact, vec![])],
    );
    assert!(!past);
    assert_eq!(r.verdict, Verdict::Differs);
    // A native backend differs as well.
    let (past, r) = judged(
        run("browser", Verdict::Differs, vec![found(true)]),
        vec![run("vulkan", Verdict::Differs, vec![found(true)])],
    );
    assert!(!past);
    assert_eq!(r.verdict, Verdict::Differs);
}

/// A kernel that computes in 16-bit floats rounds to 11 significant bits:
/// floats two half steps apart are rounding there, and nowhere else.
#[test]
fn half_precision_kernels_round_by_half_steps() {
    let found = |largest_relative, floats| Found {
        binding: "Out".into(),
        slot: (0, 0),
        count: 1,
        first: Vec::new(),
        out_of_range: false,
        float_sums: false,
        largest_relative,
        floats,
    };
    let halfs = Traits {
        halfs: true,
        ..Traits::default()
    };
    // FSR2's composition mask with FFX_HALF=1: one half step at 0.035.
    assert!(rounded_otherwise(&found(8.6e-4, true), halfs));
    assert!(!rounded_otherwise(&found(8.6e-4, true), Traits::default()));
    assert!(!rounded_otherwise(&found(5e-3, true), halfs));
    assert!(!rounded_otherwise(&found(8.6e-4, false), halfs));
    let k = glsl(
        "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { float v[]; };
void main() { float16_t h = float16_t(v[0]) / float16_t(3.0); v[1] = float(h); }
",
    );
    assert!(traits(k.original_spirv().unwrap()).halfs);
    assert!(!traits(glsl(IMAGE_ADD).original_spirv().unwrap()).halfs);
}
