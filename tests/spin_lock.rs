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
    kernel(&ring_lock_source())
}

fn ring_lock_source() -> String {
    std::fs::read_to_string("tests/vulkan/volatile_ring_lock.comp").unwrap()
}

fn kernel(src: &str) -> Kernel {
    Kernel::from_glsl(src, &SourceOptions::named("volatile_ring_lock.comp"))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Every load of the ring is an `atomicAdd` of 0 and every store an
/// `atomicExchange`: no plain access to it is left in the WGSL.
fn ring_accesses_are_read_modify_writes(k: &Kernel) {
    let wgsl = k.wgsl();
    assert!(wgsl.contains("atomicAdd((&ring.words["), "{wgsl}");
    assert!(wgsl.contains("atomicExchange((&ring.words["), "{wgsl}");
    let plain = wgsl
        .lines()
        .filter(|l| l.contains("ring.words[") && !l.contains("atomic"))
        .count();
    assert_eq!(plain, 0, "{wgsl}");
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
        k.warnings()
            .iter()
            .any(|w| w.message.contains("atomicExchange")),
        "{:?}",
        k.warnings()
    );
}

/// The same lock under the Vulkan memory model, where glslang marks each
/// access volatile rather than the buffer: the ring is accessed the same
/// way, and every section still runs once.
#[test]
fn volatile_accesses_of_the_vulkan_memory_model_are_read_modify_writes_too() {
    let src = ring_lock_source().replace(
        "#version 450\n",
        "#version 450\n#pragma use_vulkan_memory_model\n#extension GL_KHR_memory_scope_semantics : require\n",
    );
    let k = kernel(&src);
    ring_accesses_are_read_modify_writes(&k);
    every_section_runs_once(&k);
}

/// A read-only volatile buffer (a flag another dispatch sets) is read
/// plainly: WGSL has no atomics on read-only storage.
#[test]
fn a_read_only_volatile_buffer_keeps_plain_loads() {
    let src = "#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer volatile Flags { uint go[]; } flags;
layout(set = 0, binding = 1) buffer Out { uint seen[]; } outs;
void main() { outs.seen[gl_GlobalInvocationID.x] = flags.go[gl_GlobalInvocationID.x] * 3u; }
";
    let k = kernel(src);
    assert!(!k.wgsl().contains("atomic"), "{}", k.wgsl());
    let flags = k
        .bindings()
        .iter()
        .find(|b| b.name.as_deref() == Some("flags"))
        .unwrap();
    assert!(flags.volatile, "{flags:?}");
    let go: Vec<u32> = (0..16u32).map(|i| i * 7 + 1).collect();
    let want: Vec<u32> = go.iter().map(|g| g * 3).collect();
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let inputs = [
            ("Flags", bytemuck::cast_slice(&go).to_vec()),
            ("Out", vec![0u8; 64]),
        ];
        for (backend, out) in common::translated_and_native(&ctx, &k, [2, 1, 1], &inputs) {
            assert_eq!(words(&out[1]), want, "{backend}");
        }
    }
}

#[test]
fn every_critical_section_runs_once_on_every_backend() {
    let k = ring_lock();
    ring_accesses_are_read_modify_writes(&k);
    every_section_runs_once(&k);
}

fn every_section_runs_once(k: &Kernel) {
    let n = 48;
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let groups = common::spin_lock_groups(&ctx, 4);
        let sections = groups * 32;
        let want = ring_model(n, sections);
        let inputs = [("Ring", vec![0u8; 4 * n]), ("Mutex", vec![0u8; 8])];
        for (backend, out) in common::translated_and_native(&ctx, k, [groups, 1, 1], &inputs) {
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
