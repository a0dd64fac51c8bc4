//! The conformance matrix (validate::conformance) at small image sizes on
//! every backend present: every function × {int, uint} × every memory kind
//! and image type, chains, out-of-range accesses and the float cases. (The
//! proof that it fails when the mapping is broken on purpose is a unit test
//! of `validate::conformance`: the faults are a test-only hook.)

mod common;

use atomport::validate::conformance::{RunOptions, Scale, matrix, run_case};

#[test]
fn full_matrix_passes_at_small_sizes() {
    let cases = matrix();
    assert!(cases.len() > 400, "{} cases", cases.len());
    let int64 = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    for ctx in common::contexts_with_available(int64) {
        let start = std::time::Instant::now();
        let outcomes: Vec<_> = cases
            .iter()
            .map(|c| run_case(&ctx, c, Scale::Small, &RunOptions::default()))
            .collect();
        let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
        let failed = common::failures(&outcomes);
        println!(
            "{} cases on {} in {:?}, {skipped} skipped",
            cases.len(),
            ctx.backend_name(),
            start.elapsed()
        );
        // Only the 64-bit image cases may be skipped, and only where the
        // device has no 64-bit atomics.
        let has_int64 = ctx.device().features().contains(int64);
        assert_eq!(skipped, if has_int64 { 0 } else { 176 });
        assert!(
            failed.is_empty(),
            "{} failed on {}:\n{}",
            failed.len(),
            ctx.backend_name(),
            failed.join("\n")
        );
    }
}

/// The matrix translated for WebGPU (`--target webgpu`: images in texel
/// buffers, float atomics on the bits) on every backend present: what a
/// browser runs, proven on the adapters here. Only the 64-bit cases are
/// skipped (WebGPU has no 64-bit atomics); everything else passes.
#[test]
fn full_matrix_translated_for_webgpu_passes_at_small_sizes() {
    let cases = matrix();
    let opts = RunOptions {
        target: atomport::Platform::WebGpu,
        ..RunOptions::default()
    };
    for ctx in common::contexts(wgpu::Features::empty()) {
        let outcomes: Vec<_> = cases
            .iter()
            .map(|c| run_case(&ctx, c, Scale::Small, &opts))
            .collect();
        let skipped: Vec<&str> = outcomes
            .iter()
            .filter_map(|o| o.skipped.as_deref())
            .collect();
        assert_eq!(skipped.len(), 176, "{}", ctx.backend_name());
        assert!(skipped.iter().all(|s| s.contains("64-bit atomics")));
        let failed = common::failures(&outcomes);
        println!(
            "{} cases translated for WebGPU on {}: {} passed",
            cases.len(),
            ctx.backend_name(),
            cases.len() - skipped.len() - failed.len()
        );
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
