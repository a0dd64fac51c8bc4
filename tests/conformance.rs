//! The conformance matrix (validate::conformance) at small image sizes on
//! every backend present: every function × {int, uint} × every memory kind
//! and image type, chains, out-of-range accesses and the float cases; and
//! proof that it fails when the mapping is broken on purpose.

mod common;

use atomport::lower::Fault;
use atomport::validate::conformance::{Case, Memory, RunOptions, Scale, Variant, matrix, run_case};
use atomport::validate::reference::AtomicOp;
use atomport::{Dialect, ImageDim, ScalarType};

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
        let failed: Vec<String> = outcomes
            .iter()
            .filter(|o| !o.passed && o.skipped.is_none())
            .map(|o| format!("{}: {}", o.name, o.detail))
            .collect();
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

fn fails_with(fault: Fault, cases: &[Case]) {
    let opts = RunOptions {
        fault: Some(fault),
        ..Default::default()
    };
    for ctx in common::contexts(wgpu::Features::empty()) {
        for c in cases {
            let o = run_case(&ctx, c, Scale::Small, &opts);
            assert!(
                !o.passed,
                "{} passed on {} with {fault:?}",
                o.name,
                ctx.backend_name()
            );
            assert!(!o.detail.is_empty());
            println!("{fault:?} caught by {}: {}", o.name, o.detail);
        }
    }
}

#[test]
fn a_spurious_weak_compare_exchange_is_caught() {
    let case = |memory, variant| Case {
        op: AtomicOp::CompSwap,
        ty: ScalarType::U32,
        memory,
        variant,
        dialect: Dialect::Vulkan,
    };
    fails_with(
        Fault::SpuriousCompareExchange,
        &[
            case(Memory::Member, Variant::Standard),
            case(Memory::ArrayElement, Variant::Chain),
            case(Memory::Image(ImageDim::D2), Variant::Standard),
            case(Memory::Image(ImageDim::Cube), Variant::Chain),
        ],
    );
}

#[test]
fn swapped_image_axes_are_caught() {
    let cases: Vec<Case> = [
        ImageDim::D2,
        ImageDim::Rect,
        ImageDim::D2Array,
        ImageDim::D2MsArray,
    ]
    .into_iter()
    .map(|d| Case {
        op: AtomicOp::Add,
        ty: ScalarType::I32,
        memory: Memory::Image(d),
        variant: Variant::Standard,
        dialect: Dialect::Vulkan,
    })
    .collect();
    fails_with(Fault::SwappedImageAxes, &cases);
}
