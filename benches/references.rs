//! A radix sort's histogram pass reaching its key and histogram buffers by
//! buffer reference (through atomport's arena) against the same pass with
//! the buffers bound, both dispatched through atomport on one device: the
//! median of interleaved runs of each, reported as the ratio references /
//! bound.
//!
//! `cargo bench --bench references [-- --backend NAME] [-- --runs N]`

#[path = "common/mod.rs"]
mod common;

use atomport::{Arena, Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions};

const BY_REFERENCE: &str = "#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Keys { uint keys[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Histogram { uint bins[256]; };
layout(push_constant) uniform Pass { Keys keys; Histogram histogram; uint shift; uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) {
        return;
    }
    atomicAdd(pc.histogram.bins[(pc.keys.keys[i] >> pc.shift) & 0xFFu], 1u);
}
";

const BOUND: &str = "#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Histogram { uint bins[256]; };
layout(push_constant) uniform Pass { uint shift; uint count; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) {
        return;
    }
    atomicAdd(bins[(keys[i] >> pc.shift) & 0xFFu], 1u);
}
";

fn main() {
    let (backend, runs) = common::backend_and_runs(30);
    // References are 64-bit integers: an adapter without them has nothing
    // to measure.
    let ctx = match Context::new(
        &ContextOptions::default()
            .with_backend(backend)
            .with_features(wgpu::Features::SHADER_INT64),
    ) {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let n: u32 = 1 << 20;
    println!(
        "a histogram pass over {n} keys by reference and bound on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let by_ref = Kernel::from_glsl(BY_REFERENCE, &SourceOptions::named("refs.comp")).unwrap();
    let bound = Kernel::from_glsl(BOUND, &SourceOptions::named("bound.comp")).unwrap();
    let keys: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let key_bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    let arena = Arena::new(&ctx, &[("keys", &key_bytes), ("bins", &[0u8; 1024])]).unwrap();
    let mut push: Vec<u8> = Vec::new();
    for a in [
        arena.address("keys").unwrap(),
        arena.address("bins").unwrap(),
    ] {
        push.extend(a.to_le_bytes());
    }
    push.extend(8u32.to_le_bytes());
    push.extend(n.to_le_bytes());
    let push = Buffer::from_bytes(&ctx, &push).unwrap();
    let keys_b = Buffer::from_slice(&ctx, &keys).unwrap();
    let bins_b = Buffer::zeroed(&ctx, 1024).unwrap();
    let bound_push: Vec<u32> = vec![8, n];
    let bound_push = Buffer::from_slice(&ctx, &bound_push).unwrap();
    let groups = [n / 256, 1, 1];
    let refs_binds = [Bind::named("pc", &push), arena.bind()];
    let bound_binds = [
        Bind::named("pc", &bound_push),
        Bind::named("Keys", &keys_b),
        Bind::named("Histogram", &bins_b),
    ];
    ctx.prepare(&by_ref, &refs_binds).unwrap();
    ctx.prepare(&bound, &bound_binds).unwrap();
    let (t_ref, t_bound) = common::interleaved(
        runs,
        || common::time(|| ctx.dispatch(&by_ref, groups, &refs_binds).unwrap()),
        || common::time(|| ctx.dispatch(&bound, groups, &bound_binds).unwrap()),
    );
    // Both counted the same keys, as often.
    let a: Vec<u32> = arena
        .read(&ctx, "bins")
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let b: Vec<u32> = bins_b.read(&ctx).unwrap();
    assert_eq!(a, b, "the two passes counted differently");
    println!(
        "by reference {:.3} ms, bound {:.3} ms: ratio {:.3}",
        t_ref.as_secs_f64() * 1e3,
        t_bound.as_secs_f64() * 1e3,
        t_ref.as_secs_f64() / t_bound.as_secs_f64()
    );
}
