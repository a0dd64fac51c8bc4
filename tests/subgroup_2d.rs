//! Subgroup ids in a workgroup of two dimensions (`local_size_x = 8,
//! local_size_y = 8`), where naga refuses WGSL's `subgroup_id` and
//! `subgroup_invocation_id`: atomport computes them from
//! `gl_LocalInvocationIndex` and `gl_SubgroupSize`. A tile reduction is
//! checked lane by lane against a CPU model on every backend with SUBGROUP,
//! and against the original run natively where the adapter can; elsewhere
//! the error names the feature.

mod common;

use atomport::{Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions, TargetEnv};
use common::Rng;

/// A terrain tile's height sum: each subgroup reduces its lanes, the elected
/// lane of each parks the partial in shared memory, and the first invocation
/// adds the partials; every lane reports what it saw.
const TILE_SUM: &str = r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) readonly buffer Heights { uint heights[]; };
layout(set = 0, binding = 1) buffer Tiles { uint subgroupSize; uint tileSum[]; };
// Per texel: subgroup id, lane, the subgroup's sum, elected | ridge count << 1.
layout(set = 0, binding = 2) buffer Lanes { uvec4 lanes[]; };

shared uint partialSums[64];

const uint RIDGE = 200u;

void main() {
    uvec2 texel = gl_GlobalInvocationID.xy;
    uint rowLength = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint at = texel.y * rowLength + texel.x;
    uint h = heights[at];

    uint groupSum = subgroupAdd(h);
    uint ridges = subgroupBallotBitCount(subgroupBallot(h >= RIDGE));
    bool leader = subgroupElect();
    if (leader) {
        partialSums[gl_SubgroupID] = groupSum;
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint total = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            total += partialSums[s];
        }
        tileSum[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = total;
        if (gl_WorkGroupID.xy == uvec2(0u)) {
            subgroupSize = gl_SubgroupSize;
        }
    }
    lanes[at] = uvec4(gl_SubgroupID, gl_SubgroupInvocationID, groupSum,
                      (leader ? 1u : 0u) | (ridges << 1));
}
"#;

const GROUPS: [u32; 2] = [3, 2];

fn kernel(env: TargetEnv) -> Kernel {
    let mut o = SourceOptions::named("tile_sum.comp");
    o.target_env = Some(env);
    Kernel::from_glsl(TILE_SUM, &o).unwrap_or_else(|e| panic!("{}: {e}", env.name()))
}

fn heights() -> Vec<u32> {
    let mut rng = Rng(0x5eed);
    let n = (GROUPS[0] * 8 * GROUPS[1] * 8) as usize;
    (0..n).map(|_| rng.below(256)).collect()
}

/// What every lane and tile must hold for subgroups of `size` made of
/// consecutive local invocation indices: (tile sums, lanes).
fn model(heights: &[u32], size: u32) -> (Vec<u32>, Vec<[u32; 4]>) {
    let row = GROUPS[0] * 8;
    let mut tiles = vec![0u32; (GROUPS[0] * GROUPS[1]) as usize];
    let mut lanes = vec![[0u32; 4]; heights.len()];
    let at = |wx: u32, wy: u32, li: u32| ((wy * 8 + li / 8) * row + wx * 8 + li % 8) as usize;
    for wy in 0..GROUPS[1] {
        for wx in 0..GROUPS[0] {
            for li in 0..64 {
                let (id, lane) = (li / size, li % size);
                let members = (0..64).filter(|m| m / size == id);
                let sum: u32 = members.clone().map(|m| heights[at(wx, wy, m)]).sum();
                let ridges = members.filter(|&m| heights[at(wx, wy, m)] >= 200).count() as u32;
                lanes[at(wx, wy, li)] = [id, lane, sum, u32::from(lane == 0) | ridges << 1];
                tiles[(wy * GROUPS[0] + wx) as usize] += heights[at(wx, wy, li)];
            }
        }
    }
    (tiles, lanes)
}

fn context_with(backend: atomport::BackendChoice, features: wgpu::Features) -> Option<Context> {
    let opts = ContextOptions::default().with_backend(backend);
    let have = opts.adapter_features().ok()?;
    if !have.contains(features) {
        return None;
    }
    Context::new(&opts.with_features(features)).ok()
}

#[test]
fn the_translation_computes_subgroup_ids_in_two_dimensional_workgroups() {
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let k = kernel(env);
        let wgsl = k.wgsl();
        assert!(
            !wgsl.contains("subgroup_id") && !wgsl.contains("subgroup_invocation_id"),
            "{}: {wgsl}",
            env.name()
        );
        assert!(wgsl.contains("local_invocation_index"), "{wgsl}");
        assert!(k.required_features().contains(wgpu::Features::SUBGROUP));
    }
}

#[test]
fn a_subgroup_tile_reduction_in_an_8x8_workgroup_matches_the_model_per_lane() {
    let heights = heights();
    let n = heights.len() as u64;
    let mut ran = 0;
    for backend in atomport::BackendChoice::SINGLE {
        if atomport::adapters(backend).is_empty() {
            continue;
        }
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            let k = kernel(env);
            let Some(ctx) = context_with(backend, wgpu::Features::SUBGROUP) else {
                // GL (llvmpipe) has no subgroups: the dispatch names the feature.
                let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
                let b = Buffer::zeroed(&ctx, 16 * n).unwrap();
                let e = ctx
                    .dispatch(
                        &k,
                        [GROUPS[0], GROUPS[1], 1],
                        &[
                            Bind::named("Heights", &b),
                            Bind::named("Tiles", &b),
                            Bind::named("Lanes", &b),
                        ],
                    )
                    .unwrap_err()
                    .to_string();
                assert!(e.contains("SUBGROUP (subgroup operations)"), "{e}");
                println!("{}: {e}", ctx.backend_name());
                continue;
            };
            ran += 1;
            let input = Buffer::from_slice(&ctx, &heights).unwrap();
            let tiles = Buffer::zeroed(&ctx, 4 * (1 + 6)).unwrap();
            let lanes = Buffer::zeroed(&ctx, 16 * n).unwrap();
            let binds = [
                Bind::named("Heights", &input),
                Bind::named("Tiles", &tiles),
                Bind::named("Lanes", &lanes),
            ];
            ctx.dispatch(&k, [GROUPS[0], GROUPS[1], 1], &binds).unwrap();
            let t: Vec<u32> = tiles.read(&ctx).unwrap();
            let l: Vec<u32> = lanes.read(&ctx).unwrap();
            let size = t[0];
            assert!(size.is_power_of_two() && size <= 64, "subgroup size {size}");
            let (want_tiles, want_lanes) = model(&heights, size);
            let what = format!("{} {}", ctx.backend_name(), env.name());
            assert_eq!(&t[1..], &want_tiles[..], "{what}: tile sums");
            for (i, want) in want_lanes.iter().enumerate() {
                assert_eq!(&l[4 * i..4 * i + 4], want, "{what}: texel {i}");
            }
            println!("{what}: subgroups of {size}, every lane as the model says");
        }
    }
    assert!(
        ran > 0 || cfg!(target_os = "macos"),
        "no backend with SUBGROUP ran"
    );
}

#[test]
fn the_original_run_natively_agrees_where_the_adapter_can() {
    let opts = ContextOptions::default().with_backend(atomport::BackendChoice::Vulkan);
    let want = wgpu::Features::SUBGROUP | wgpu::Features::PASSTHROUGH_SHADERS;
    let Some(ctx) = opts
        .adapter_features()
        .ok()
        .filter(|have| have.contains(want))
        .and_then(|_| Context::new(&opts.with_features(want)).ok())
    else {
        println!("skipping: no Vulkan adapter with SUBGROUP and PASSTHROUGH_SHADERS");
        return;
    };
    let heights = heights();
    let k = kernel(TargetEnv::Vulkan1_1);
    let input = Buffer::from_slice(&ctx, &heights).unwrap();
    let tiles = Buffer::zeroed(&ctx, 4 * 7).unwrap();
    let lanes = Buffer::zeroed(&ctx, 16 * heights.len() as u64).unwrap();
    let binds = [
        Bind::named("Heights", &input),
        Bind::named("Tiles", &tiles),
        Bind::named("Lanes", &lanes),
    ];
    let groups = [GROUPS[0], GROUPS[1], 1];
    let native = ctx.run_native(&k, groups, &binds).unwrap();
    let translated = ctx.run(&k, groups, &binds).unwrap();
    for (a, b) in native.bindings.iter().zip(&translated.bindings) {
        assert_eq!(a.bytes, b.bytes, "binding {:?}", a.name);
    }
    println!(
        "{}: the driver's own gl_SubgroupID and gl_SubgroupInvocationID equal the computed ones",
        ctx.adapter_name()
    );
}
