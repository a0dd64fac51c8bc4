//! Spin locks over `volatile` memory (the critical-section helpers engines
//! write, lock taken and released in one loop iteration): the translation
//! runs every critical section the original runs, on every backend, and
//! their effect matches a CPU model of the sections run one after another.
//!
//! The kernel is tests/vulkan/volatile_ring_lock.comp, the corpus kernel
//! tests/native.rs also runs against its native run.

mod common;

use atomport::{Kernel, SourceOptions};

fn ring_lock() -> Kernel {
    let src = std::fs::read_to_string("tests/vulkan/volatile_ring_lock.comp").unwrap();
    Kernel::from_glsl(&src, &SourceOptions::named("volatile_ring_lock.comp"))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The ring after `sections` critical sections over `n` slots from zero:
/// each section passes the ring once.
fn ring_model(n: usize, sections: u32) -> Vec<u32> {
    let mut ring = vec![0u32; n];
    for _ in 0..sections {
        for i in 0..n {
            ring[i] = ring[(i + n - 1) % n].wrapping_add(1);
        }
    }
    ring
}

#[test]
fn the_binding_map_says_volatile_and_coherent() {
    let k = ring_lock();
    let ring = k
        .bindings()
        .iter()
        .find(|b| b.name.as_deref() == Some("ring"))
        .unwrap();
    assert!(ring.volatile && ring.coherent, "{ring:?}");
    let mutex = k
        .bindings()
        .iter()
        .find(|b| b.name.as_deref() == Some("mtx"))
        .unwrap();
    assert!(!mutex.volatile && !mutex.coherent, "{mutex:?}");
    assert!(
        k.warnings().iter().any(|w| w.message.contains("@volatile")),
        "{:?}",
        k.warnings()
    );
}

#[test]
fn every_critical_section_runs_once_on_every_backend() {
    let k = ring_lock();
    let n = 48;
    let groups = 4;
    let sections = groups * 32;
    let want = ring_model(n, sections);
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let inputs = [("Ring", vec![0u8; 4 * n]), ("Mutex", vec![0u8; 8])];
        for (backend, out) in common::translated_and_native(&ctx, &k, [groups, 1, 1], &inputs) {
            assert_eq!(words(&out[0]), want, "{backend}: the ring");
            assert_eq!(
                words(&out[1]),
                vec![0, sections],
                "{backend}: the lock and count"
            );
        }
    }
}

/// One workgroup passing a ring of 16 384 slots: llvmpipe stops a shader
/// after 65 535 loop iterations in all, so natively only four sections
/// run there. The translation must run as many as the original: a
/// compare-exchange retry loop the shader did not write would use up the
/// budget sooner (on Vulkan, GL and DX12 the compare-exchange is strong
/// and the runtime compiles it as one call). On a GPU without such a cap
/// every section runs, natively and translated alike.
#[test]
fn as_many_sections_run_translated_as_natively_under_a_loop_budget() {
    let k = ring_lock();
    let n = 16384;
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        if !ctx.has_native() {
            continue;
        }
        let inputs = [("Ring", vec![0u8; 4 * n]), ("Mutex", vec![0u8; 8])];
        let runs = common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs);
        let [(_, translated), (_, native)] = runs.as_slice() else {
            panic!("{}: {} runs", ctx.backend_name(), runs.len());
        };
        let sections = |out: &[Vec<u8>]| words(&out[1])[1];
        assert_eq!(
            sections(translated),
            sections(native),
            "{}: critical sections run",
            ctx.backend_name()
        );
        assert_eq!(
            translated,
            native,
            "{}: translated against native",
            ctx.backend_name()
        );
    }
}
