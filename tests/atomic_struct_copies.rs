//! Whole copies of structs whose members atomics also use (`Bucket b =
//! buckets[i]; … buckets[i] = b;` beside `atomicAdd(buckets[k].count, 1u)`):
//! loaded and stored member by member, with `atomicLoad`/`atomicStore` for
//! the atomic members. Checked against a CPU model on every backend and,
//! on Vulkan, beside the original SPIR-V run natively.

mod common;

use atomport::{Kernel, SourceOptions};

const BUCKETS: &str = "#version 450
layout(local_size_x = 64) in;
struct Bucket {
    uint count;
    uint maxKey;
    float mean;
    uint slots[2];
};
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Buckets { Bucket buckets[8]; };
layout(std430, binding = 2) buffer Snapshot { Bucket snapshot[8]; };
shared Bucket staged[8];
void main() {
    uint i = gl_LocalInvocationID.x;
    uint b = i % 8u;
    atomicAdd(buckets[b].count, 1u);
    atomicMax(buckets[b].maxKey, keys[i]);
    atomicOr(buckets[b].slots[keys[i] % 2u], 1u << (i / 8u));
    memoryBarrierBuffer();
    barrier();
    if (i < 8u) {
        Bucket copy = buckets[i];
        copy.mean = float(copy.maxKey) / float(copy.count);
        staged[i] = copy;
        snapshot[i] = copy;
    }
    barrier();
    if (i < 8u) {
        buckets[i] = staged[7u - i];
    }
}
";

#[test]
fn structs_holding_atomics_copy_member_by_member() {
    let k = Kernel::from_glsl(BUCKETS, &SourceOptions::named("buckets.comp")).unwrap();
    let mut rng = common::Rng(0xb0c4);
    let keys: Vec<u32> = (0..64).map(|_| rng.below(1000)).collect();
    // Each bucket: count, maxKey, mean (f32 bits), slots[2].
    let start: Vec<[u32; 5]> = (0..8).map(|b| [0, 0, 0, b, 100 + b]).collect();
    let mut after: Vec<[u32; 5]> = start.clone();
    for (i, &key) in keys.iter().enumerate() {
        let b = &mut after[i % 8];
        b[0] += 1;
        b[1] = b[1].max(key);
        b[3 + (key % 2) as usize] |= 1 << (i / 8);
    }
    for b in &mut after {
        b[2] = (b[1] as f32 / b[0] as f32).to_bits();
    }
    let snapshot: Vec<u32> = after.iter().flatten().copied().collect();
    let buckets: Vec<u32> = (0..8).flat_map(|i| after[7 - i]).collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let flat: Vec<u32> = start.iter().flatten().copied().collect();
    let inputs = [
        ("Keys", bytes(&keys)),
        ("Buckets", bytes(&flat)),
        ("Snapshot", vec![0; 160]),
    ];
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for (backend, out) in common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs) {
            assert_eq!(words(&out[2]), snapshot, "{backend}: snapshot");
            assert_eq!(words(&out[1]), buckets, "{backend}: buckets");
        }
    }
}
