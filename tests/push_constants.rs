//! Push constants (`layout(push_constant)`), as real compute code uses them:
//! a radix sort's counting pass configured per pass, a meshlet cull with a
//! view-projection matrix in its push block, and a block larger than the
//! 128 bytes Vulkan guarantees. Each runs on every backend present, set by
//! member name, against a CPU model; the CLI's `--push` and its errors.

mod common;

use atomport::{Bind, Buffer, Kernel, SourceOptions, Uniforms};

/// The counting pass of a 4-bit LSD radix sort: each workgroup counts the
/// digits of its block of keys in shared memory, then adds its counts to
/// the pass's histogram.
const RADIX_COUNT: &str = "#version 450
layout(local_size_x = 128) in;

layout(push_constant) uniform RadixPush {
    uint passIndex;
    uint shift;
    uint numKeys;
    uint keysPerThread;
} pc;

layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) buffer Histograms { uint histograms[]; };

shared uint localCounts[16];

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid < 16u) {
        localCounts[lid] = 0u;
    }
    barrier();
    uint base = (gl_WorkGroupID.x * gl_WorkGroupSize.x + lid) * pc.keysPerThread;
    for (uint k = 0u; k < pc.keysPerThread; ++k) {
        uint i = base + k;
        if (i < pc.numKeys) {
            uint digit = (keys[i] >> pc.shift) & 0xFu;
            atomicAdd(localCounts[digit], 1u);
        }
    }
    barrier();
    if (lid < 16u) {
        atomicAdd(histograms[pc.passIndex * 16u + lid], localCounts[lid]);
    }
}
";

fn keys(n: usize) -> Vec<u32> {
    let mut x = 0x9E37_79B9u32;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

#[test]
fn radix_sort_passes_set_by_push_constants() {
    let k = Kernel::from_glsl(RADIX_COUNT, &SourceOptions::named("radix_count.comp")).unwrap();
    let push = k.bindings().iter().find(|b| b.push_constant).unwrap();
    assert_eq!(push.kind, atomport::BindingKind::Uniform);
    let names: Vec<&str> = push.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["passIndex", "shift", "numKeys", "keysPerThread"]);
    let n = 5000;
    let data = keys(n);
    for ctx in common::contexts(k.required_features()) {
        let keys_buf = Buffer::from_slice(&ctx, &data).unwrap();
        let hist = Buffer::zeroed(&ctx, 8 * 16 * 4).unwrap();
        let mut pc = Uniforms::push(&k).unwrap();
        let pc_buf = Buffer::zeroed(&ctx, 16).unwrap();
        for pass in 0..8u32 {
            pc.set("passIndex", pass).unwrap();
            pc.set("shift", pass * 4).unwrap();
            pc.set("numKeys", n as u32).unwrap();
            pc.set("keysPerThread", 4u32).unwrap();
            pc.write_to(&ctx, &pc_buf).unwrap();
            ctx.dispatch(
                &k,
                [(n as u32).div_ceil(128 * 4), 1, 1],
                &[
                    Bind::named("Keys", &keys_buf),
                    Bind::named("Histograms", &hist),
                    Bind::named("pc", &pc_buf),
                ],
            )
            .unwrap();
        }
        let got: Vec<u32> = hist.read(&ctx).unwrap();
        let mut want = vec![0u32; 8 * 16];
        for pass in 0..8 {
            for &key in &data {
                want[pass * 16 + ((key >> (pass * 4)) & 15) as usize] += 1;
            }
        }
        assert_eq!(got, want, "{}", ctx.backend_name());
    }
}

/// A meshlet cull: bounding spheres tested against the view-projection's
/// clip volume, visible meshlets of the push block's range appended.
const MESHLET_CULL: &str = "#version 450
layout(local_size_x = 64) in;

struct Meshlet {
    vec4 sphere;      // xyz centre, w radius
    uint firstIndex;
    uint indexCount;
    uint pad0;
    uint pad1;
};

layout(push_constant) uniform CullConstants {
    mat4 viewProj;
    uvec2 meshletRange;   // first, count
    float radiusScale;
} cull;

layout(set = 0, binding = 0) readonly buffer Meshlets { Meshlet meshlets[]; };
layout(set = 0, binding = 1) buffer Visible { uint visibleCount; uint visibleIds[]; };

bool visible(vec4 s) {
    vec4 c = cull.viewProj * vec4(s.xyz, 1.0);
    float r = s.w * cull.radiusScale;
    return c.x >= -c.w - r && c.x <= c.w + r && c.y >= -c.w - r && c.y <= c.w + r
        && c.z >= -r && c.z <= c.w + r;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= cull.meshletRange.y) {
        return;
    }
    uint id = cull.meshletRange.x + i;
    if (visible(meshlets[id].sphere)) {
        visibleIds[atomicAdd(visibleCount, 1u)] = id;
    }
}
";

#[test]
fn meshlet_cull_with_a_matrix_in_its_push_block() {
    let k = Kernel::from_glsl(MESHLET_CULL, &SourceOptions::named("meshlet_cull.comp")).unwrap();
    let n = 300usize;
    // Spheres on a grid, far enough from every plane that float rounding
    // cannot move one across: x, y in -3..3, z in 0.5..3.5, radius 0.1.
    let mut meshlets = Vec::new();
    let mut spheres = Vec::new();
    for i in 0..n {
        let s = [
            (i % 7) as f32 - 3.0,
            ((i / 7) % 7) as f32 - 3.0,
            0.5 + (i % 4) as f32,
            0.1,
        ];
        spheres.push(s);
        meshlets.extend(s.map(f32::to_bits));
        meshlets.extend([i as u32 * 3, 3, 0, 0]);
    }
    // An orthographic projection with w = 1: the box |x|,|y| <= 2.05, z in 0..2.
    let half = 2.05f32;
    let view_proj = [
        1.0 / half,
        0.0,
        0.0,
        0.0, //
        0.0,
        1.0 / half,
        0.0,
        0.0, //
        0.0,
        0.0,
        0.5,
        0.0, //
        0.0,
        0.0,
        0.0,
        1.0,
    ];
    let (first, count) = (20u32, 250u32);
    let want: Vec<u32> = (first..first + count)
        .filter(|&id| {
            let [x, y, z, r] = spheres[id as usize];
            let (cx, cy, cz) = (x / half, y / half, z * 0.5);
            cx.abs() <= 1.0 + r && cy.abs() <= 1.0 + r && cz >= -r && cz <= 1.0 + r
        })
        .collect();
    assert!(
        want.len() > 20 && want.len() < count as usize,
        "{}",
        want.len()
    );
    for ctx in common::contexts(k.required_features()) {
        let mut pc = Uniforms::push(&k).unwrap();
        pc.set("viewProj", view_proj).unwrap();
        pc.set("meshletRange", [first, count]).unwrap();
        pc.set("radiusScale", 1.0f32).unwrap();
        let m = Buffer::from_slice(&ctx, &meshlets).unwrap();
        let v = Buffer::zeroed(&ctx, (1 + n as u64) * 4).unwrap();
        ctx.dispatch(
            &k,
            [count.div_ceil(64), 1, 1],
            &[
                Bind::named("Meshlets", &m),
                Bind::named("Visible", &v),
                Bind::named("cull", &pc.to_buffer(&ctx).unwrap()),
            ],
        )
        .unwrap();
        let out: Vec<u32> = v.read(&ctx).unwrap();
        let mut got = out[1..1 + out[0] as usize].to_vec();
        got.sort_unstable();
        assert_eq!(got, want, "{}", ctx.backend_name());
    }
}

/// A push block of 208 bytes (Vulkan guarantees 128): an array of weights,
/// so it lives in a read-only storage buffer.
const WIDE_PUSH: &str = "#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Filter {
    vec4 weights[12];
    uint taps;
    float bias;
    uint pad0;
    uint pad1;
} f;
layout(set = 0, binding = 0) buffer Samples { float samples[]; };
layout(set = 0, binding = 1) buffer Filtered { float filtered[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float sum = f.bias;
    for (uint t = 0u; t < f.taps; ++t) {
        sum += samples[i + t] * f.weights[t / 4u][t % 4u];
    }
    filtered[i] = sum;
}
";

#[test]
fn push_blocks_past_128_bytes_work() {
    let k = Kernel::from_glsl(WIDE_PUSH, &SourceOptions::named("wide_push.comp")).unwrap();
    let push = k.bindings().iter().find(|b| b.push_constant).unwrap();
    assert_eq!(push.kind, atomport::BindingKind::StorageRead);
    assert_eq!(push.min_size, 208);
    // Powers of two: every sum is exact whatever the order.
    let weights: Vec<f32> = (0..48).map(|t| 1.0 / (1u32 << (t % 6)) as f32).collect();
    let samples: Vec<f32> = (0..64 + 48).map(|i| (i % 9) as f32).collect();
    for ctx in common::contexts(k.required_features()) {
        let mut pc = Uniforms::push(&k).unwrap();
        pc.set("weights", weights.as_slice()).unwrap();
        pc.set("taps", 45u32).unwrap();
        pc.set("bias", 0.5f32).unwrap();
        pc.set("pad0", 0u32).unwrap();
        pc.set("pad1", 0u32).unwrap();
        let s = Buffer::from_slice(&ctx, &samples).unwrap();
        let out = Buffer::zeroed(&ctx, 64 * 4).unwrap();
        ctx.dispatch(
            &k,
            [1, 1, 1],
            &[
                Bind::named("Samples", &s),
                Bind::named("Filtered", &out),
                Bind::named("f", &pc.to_buffer(&ctx).unwrap()),
            ],
        )
        .unwrap();
        let got: Vec<f32> = out.read(&ctx).unwrap();
        for (i, g) in got.iter().enumerate() {
            let want = 0.5 + (0..45).map(|t| samples[i + t] * weights[t]).sum::<f32>();
            assert_eq!(*g, want, "{} [{i}]", ctx.backend_name());
        }
    }
}

#[test]
fn push_constants_on_the_command_line() {
    let dir = common::scratch().join(format!("atomport-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("radix_count.comp");
    std::fs::write(&path, RADIX_COUNT).unwrap();
    let p = path.to_str().unwrap();
    let job = [
        "--groups",
        "2",
        "--buffer",
        "Keys=u32:1000:iota",
        "--buffer",
        "Histograms=u32:32",
    ];
    let mut args = vec![
        "run",
        p,
        "--json",
        "--push",
        "passIndex=1",
        "--push",
        "shift=4",
        "--push",
        "numKeys=1000",
        "--push",
        "keysPerThread=4",
    ];
    args.extend(job);
    let v = common::run_json(&args);
    let hist = &v["bindings"][1]["data"];
    // Keys 0..999: digit 1 of k is (k >> 4) & 15, 62 or 63 of each.
    let counts: Vec<u64> = (16..32).map(|i| hist[i].as_u64().unwrap()).collect();
    let want: Vec<u64> = (0..16u64)
        .map(|d| (0..1000u64).filter(|k| (k >> 4) & 15 == d).count() as u64)
        .collect();
    assert_eq!(counts, want);
    assert_eq!(v["push_constants"][1]["name"], "shift");
    assert_eq!(v["push_constants"][1]["value"][0], 4);
    // The binding map marks the block.
    let map = common::run_json(&["translate", p, "--bindings"]);
    let b = map["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["push_constant"] == true)
        .unwrap()
        .clone();
    assert_eq!(b["members"][2]["name"], "numKeys");
    // A member left unset, one the block lacks, a kernel without a block.
    let mut args = vec!["run", p, "--push", "passIndex=1"];
    args.extend(job);
    let o = common::atomport(&args);
    common::assert_fails(&o, 2, "push constant `shift` (uint) of `pc` is not set");
    let mut args = vec!["run", p, "--push", "digits=4"];
    args.extend(job);
    let o = common::atomport(&args);
    common::assert_fails(
        &o,
        2,
        "--push digits: `pc` has no push constant named `digits` (members: uint passIndex, uint shift, uint numKeys, uint keysPerThread)",
    );
    let o = common::atomport(&[
        "run",
        "wgsl/histogram.wgsl",
        "--groups",
        "1",
        "--buffer",
        "0=u32:64",
        "--buffer",
        "1=u32:256",
        "--push",
        "n=1",
    ]);
    common::assert_fails(&o, 2, "--push n: the kernel has no push constants");
    // Natively, the push constants are push constants.
    if common::backend_names().contains(&"vulkan") {
        let mut args = vec![
            "diff",
            p,
            "--native",
            "--json",
            "--push",
            "passIndex=0",
            "--push",
            "shift=8",
            "--push",
            "numKeys=1000",
            "--push",
            "keysPerThread=4",
        ];
        args.extend(job);
        let v = common::run_json(&args);
        assert_eq!(v["equal"], true, "{v}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
