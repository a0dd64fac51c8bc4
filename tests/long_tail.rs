//! Constructs real compute shaders use that have a WGSL form, each in a
//! kernel written as such code writes it, run translated on every backend
//! present and natively on Vulkan (`atomport diff --backends native,…`):
//! the translations' results must equal the original SPIR-V's.

mod common;

use common::{atomport, stderr, temp_file};

/// Every backend's context that has `needed` (and native runs where the
/// adapter has them); the others are printed as not run.
fn contexts_having(needed: wgpu::Features) -> Vec<atomport::Context> {
    common::contexts_with_available(needed | wgpu::Features::PASSTHROUGH_SHADERS)
        .into_iter()
        .filter(|ctx| {
            let has = ctx.device().features().contains(needed);
            if !has {
                println!("{}: lacks {needed:?}, not run", ctx.backend_name());
            }
            has
        })
        .collect()
}

/// `diff`s `source` (GLSL) with `args` natively and translated on Vulkan
/// and GL; asserts every run agrees and returns the JSON report.
fn agrees_natively(tag: &str, source: &str, args: &[&str]) -> serde_json::Value {
    let file = temp_file("long_tail", &format!("{tag}.comp"), source);
    let mut all = vec![
        "diff",
        file.as_str(),
        "--backends",
        "native,vulkan,gl",
        "--json",
    ];
    all.extend(args);
    let o = atomport(&all);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{tag}: no report ({e}): {}", stderr(&o)));
    assert!(
        o.status.success() && report["equal"] == true,
        "{tag}: {report:#}\n{}",
        stderr(&o)
    );
    let runs: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"].as_str().unwrap())
        .collect();
    assert_eq!(runs, ["native", "vulkan", "gl"], "{tag}");
    report
}

/// A deferred renderer's G-buffer pass: its targets declared without
/// `writeonly`, as often as not, and only stored to. naga reads them as
/// `read_write`, which no backend binds for rgba16f or rgba32f; from their
/// uses they are write-only.
const GBUFFER: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform image2D gAlbedo;
layout(set = 0, binding = 1, rgba32f) uniform image2D gNormalDepth;
layout(set = 0, binding = 2, r32f) uniform image2D gHistory;
layout(set = 0, binding = 3) uniform sampler2D srcColor;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(gAlbedo)))) {
        return;
    }
    vec4 c = texelFetch(srcColor, p, 0);
    imageStore(gAlbedo, p, vec4(c.rgb * 0.5, 1.0));
    // Exact arithmetic only, so that every backend's bits agree.
    vec3 n = vec3(c.rg * 2.0 - 1.0, 0.25);
    imageStore(gNormalDepth, p, vec4(n, float(p.x + p.y) / 16.0));
    // r32f may be read and written: the history blend keeps both.
    float h = imageLoad(gHistory, p).r;
    imageStore(gHistory, p, vec4(h + c.a));
}
";

#[test]
fn storage_images_only_stored_to_are_write_only() {
    let k = atomport::Kernel::from_glsl(GBUFFER, &atomport::SourceOptions::named("gbuffer.comp"))
        .unwrap();
    let wgsl = k.wgsl();
    for (name, decl) in [
        ("gAlbedo", "texture_storage_2d<rgba16float,write>"),
        ("gNormalDepth", "texture_storage_2d<rgba32float,write>"),
        ("gHistory", "texture_storage_2d<r32float,read_write>"),
    ] {
        assert!(
            wgsl.contains(&format!("var {name}: {decl};")),
            "{name}:\n{wgsl}"
        );
    }
    agrees_natively(
        "gbuffer",
        GBUFFER,
        &[
            "--groups",
            "2,1",
            "--texture",
            "srcColor=12x8:rgba8unorm:iota",
            "--image",
            "gAlbedo=12x8:rgba16float",
            "--image",
            "gNormalDepth=12x8:rgba32float",
            "--image",
            "gHistory=12x8:r32float:fill=0.5",
        ],
    );
}

/// An OpenGL 4.2 particle step that has compute shaders through
/// GL_ARB_compute_shader (and buffers through its storage-buffer
/// extension), with a loose uniform and a counter of particles that left.
const ARB_PARTICLES: &str = "#version 420
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 32) in;
struct Particle { vec4 pos; vec4 vel; };
layout(std430, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, binding = 1) buffer Stats { uint escaped; uint alive; };
uniform float dt;
void main() {
    uint i = gl_GlobalInvocationID.x;
    Particle p = particles[i];
    p.vel.y -= 2.0 * dt;
    p.pos += p.vel * dt;
    if (p.pos.y < 0.0) {
        atomicAdd(escaped, 1u);
        p.pos.y = 0.0;
    } else {
        atomicAdd(alive, 1u);
    }
    particles[i] = p;
}
";

#[test]
fn glsl_420_with_arb_compute_shader_translates_and_runs() {
    agrees_natively(
        "arb_particles",
        ARB_PARTICLES,
        &[
            "--groups",
            "2",
            "--buffer",
            "Particles=f32:512:iota",
            "--buffer",
            "Stats=u32:2",
            "--uniform",
            "dt=0.25",
        ],
    );
    // Without the extension, 4.20 has no compute shaders: named, with its line.
    let o = atomport(&[
        "translate",
        &temp_file(
            "long_tail",
            "no_arb.comp",
            &ARB_PARTICLES.replace("#extension GL_ARB_compute_shader : require\n", ""),
        ),
    ]);
    common::assert_fails_in_one_line(
        &o,
        1,
        "no_arb.comp:1: error: compute shaders need #version 430 or later (310 es for ES, 420 with GL_ARB_compute_shader); this is version 420",
    );
}

/// A compaction pass with debug prints left in, as shaders under
/// development have them: the prints are dropped with a warning naming
/// their line, and the results are the original's.
const PRINTS: &str = "#version 450
#extension GL_EXT_debug_printf : enable
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { int values[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint count; int kept[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int v = values[i];
    if (v % 3 == 0) {
        uint slot = atomicAdd(count, 1u);
        kept[slot] = v;
        debugPrintfEXT(\"kept %d in slot %u\", v, slot);
    }
    if (i == 0u) {
        debugPrintfEXT(\"first pass done\");
    }
}
";

#[test]
fn debug_prints_are_dropped_with_a_warning() {
    let file = temp_file("long_tail", "prints.comp", PRINTS);
    let o = atomport(&["translate", &file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim(),
        format!(
            "{file}:12: warning: 2 debugPrintfEXT calls dropped: WGSL has no printf, and the shader's results do not depend on its prints"
        )
    );
    agrees_natively(
        "prints",
        PRINTS,
        &[
            "--groups",
            "2",
            "--buffer",
            "In=i32:128:iota",
            "--buffer",
            "Out=u32:129",
            "--compare",
            "Out=multiset",
        ],
    );
}

/// A shadow pass with ray queries, which atomport does not map: refused by
/// name, at the line that enables them, with exit status 1.
#[test]
fn ray_queries_are_refused_by_name_with_their_line() {
    let file = temp_file(
        "long_tail",
        "shadow_rays.comp",
        "#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D shadow;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    rayQueryEXT rq;
    rayQueryInitializeEXT(rq, tlas, gl_RayFlagsTerminateOnFirstHitEXT, 0xFF,
                          vec3(p, 1.0), 0.01, vec3(0.0, 1.0, 0.0), 100.0);
    while (rayQueryProceedEXT(rq)) {}
    bool hit = rayQueryGetIntersectionTypeEXT(rq, true) != gl_RayQueryCommittedIntersectionNoneEXT;
    imageStore(shadow, p, vec4(hit ? 0.0 : 1.0));
}
",
    );
    let o = atomport(&["translate", &file]);
    common::assert_fails(
        &o,
        1,
        &format!("{file}:2:12: ray queries (`GL_EXT_ray_query`) are not translated"),
    );
}

/// A bindless material pass reading its textures through a descriptor heap
/// (GL_EXT_descriptor_heap), which WebGPU has no form for: refused by name
/// at the line that enables it, exit status 1, never as malformed SPIR-V
/// (the reader atomport uses cannot load the heap's untyped variables).
#[test]
fn descriptor_heaps_are_refused_by_name_with_their_line() {
    let file = temp_file(
        "long_tail",
        "heap_materials.comp",
        "#version 460
#extension GL_EXT_descriptor_heap : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(descriptor_heap) uniform texture2D Albedo[];
layout(set = 0, binding = 0) uniform sampler Linear;
layout(set = 0, binding = 1) readonly buffer Materials { uint albedo_index[]; };
layout(set = 0, binding = 2) writeonly buffer Colors { vec4 color[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    color[i] = textureLod(sampler2D(Albedo[albedo_index[i]], Linear), vec2(0.25, 0.75), 0.0);
}
",
    );
    let o = atomport(&["translate", &file]);
    common::assert_fails(
        &o,
        1,
        &format!(
            "{file}:2:12: descriptor heaps (`GL_EXT_descriptor_heap`, SPV_EXT_descriptor_heap) are not translated"
        ),
    );
}

/// A post-processing library's exposure pass, numbering its bindings from
/// 2000 to stay clear of its host's: WebGPU allows numbers below 1000, so
/// those past it take numbers the shader declares for nothing, and the host
/// binds by the shader's own numbers (or by name) all the same.
const HIGH_BINDINGS: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 3, std140) uniform Params { float exposure; uint width; };
layout(set = 0, binding = 2000) uniform sampler2D inputTex;
layout(set = 0, binding = 2001, rgba8) uniform writeonly image2D outputImg;
layout(set = 0, binding = 2002, std430) buffer Luma { uint histogram[16]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.x % width, gl_GlobalInvocationID.x / width);
    vec4 c = texelFetch(inputTex, p, 0) * exposure;
    imageStore(outputImg, p, c);
    uint bin = uint(clamp(dot(c.rgb, vec3(0.25, 0.5, 0.25)), 0.0, 1.0) * 15.0);
    atomicAdd(histogram[bin], 1u);
}
";

#[test]
fn binding_numbers_past_webgpus_limit_are_packed_and_bound_by_the_shaders_own() {
    let k = atomport::Kernel::from_glsl(
        HIGH_BINDINGS,
        &atomport::SourceOptions::named("exposure.comp"),
    )
    .unwrap();
    let mut numbers: Vec<(u32, Option<u32>)> = k
        .bindings()
        .iter()
        .map(|b| (b.binding, b.declared))
        .collect();
    numbers.sort();
    // 3 stays; 2000..2002 take 0, 1 and 2 (texelFetch needs no sampler).
    assert_eq!(
        numbers,
        [(0, Some(2000)), (1, Some(2001)), (2, Some(2002)), (3, None)],
        "{:#?}",
        k.bindings()
    );
    assert!(k.bindings().iter().all(|b| b.binding < 1000));
    // Either number names the binding.
    assert_eq!(k.wgsl_binding(0, 2002), 2);
    assert_eq!(
        k.binding_declared(0, 2002).unwrap().name.as_deref(),
        Some("Luma")
    );
    assert_eq!(
        k.binding_declared(0, 2).unwrap().name.as_deref(),
        Some("Luma")
    );
    // The map round-trips through JSON with the declared numbers.
    let back = atomport::Kernel::from_translation(
        &atomport::Translation::of_kernel(&k),
        &atomport::SourceOptions::named("exposure.json"),
    )
    .unwrap();
    assert_eq!(back.bindings(), k.bindings());
    // Bound by the shader's numbers, natively and translated alike.
    agrees_natively(
        "high_bindings",
        HIGH_BINDINGS,
        &[
            "--groups",
            "1",
            "--texture",
            "0.2000=8x8:rgba8unorm:iota",
            "--image",
            "0.2001=8x8:rgba8unorm",
            "--buffer",
            "0.2002=u32:16",
            "--uniform",
            "exposure=1.5",
            "--uniform",
            "width=8",
        ],
    );
}

/// A critical section behind an `atomicCompSwap` spin lock, written as
/// GPU code writes one (the lock taken inside the loop, so that lanes of one
/// subgroup never wait on each other): plain increments inside, an
/// `atomicExchange` unlock, the buffer declared `coherent`. The runtime
/// compiles it `@coherent` where the device has it.
const SPIN_LOCK: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) coherent buffer Guarded { uint lock; uint counter; uint total; };
layout(std430, set = 0, binding = 1) readonly buffer Amounts { uint amounts[]; };
void main() {
    uint amount = amounts[gl_GlobalInvocationID.x];
    for (;;) {
        if (atomicCompSwap(lock, 0u, 1u) == 0u) {
            counter += 1u;
            total += amount;
            memoryBarrier();
            atomicExchange(lock, 0u);
            break;
        }
    }
}
";

#[test]
fn a_spin_lock_loses_no_update() {
    let k = atomport::Kernel::from_glsl(SPIN_LOCK, &atomport::SourceOptions::named("spin.comp"))
        .unwrap();
    let guarded = k
        .bindings()
        .iter()
        .find(|b| b.name.as_deref() == Some("Guarded"));
    assert!(guarded.is_some_and(|b| b.coherent), "{:#?}", k.bindings());
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let groups = common::spin_lock_groups(&ctx, 16);
        let n = groups * 64;
        let mut rng = common::Rng(0x10c4);
        let amounts: Vec<u32> = (0..n).map(|_| rng.below(1000)).collect();
        let want = [0, n, amounts.iter().sum::<u32>()];
        for (backend, out) in common::translated_and_native(
            &ctx,
            &k,
            [groups, 1, 1],
            &[
                ("Guarded", vec![0u8; 12]),
                ("Amounts", bytemuck::cast_slice(&amounts).to_vec()),
            ],
        ) {
            let got: Vec<u32> = bytemuck::cast_slice(&out[0]).to_vec();
            if backend.ends_with("(native: true)") {
                // lavapipe runs the original's lock wrong (measured on Mesa
                // 22.3: the lock left taken, most increments missing): a
                // driver finding, printed, not the translation's to prove.
                if got != want {
                    println!("driver finding: {backend}: {got:?}, the CPU says {want:?}");
                }
                continue;
            }
            assert_eq!(got, want, "{backend}: lock, count and total");
        }
    }
}

/// Clustered subgroup reductions as a reduction tree writes them: sums,
/// maxima, ors and signed minima over aligned clusters of 2, 4 and 8 lanes.
const CLUSTERED: &str = "#version 450
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uvec4 r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    uint s4 = subgroupClusteredAdd(x, 4u);
    uint m8 = subgroupClusteredMax(x, 8u);
    uint o2 = subgroupClusteredOr(x, 2u);
    int n4 = subgroupClusteredMin(int(x) - 500, 4u);
    r[i] = uvec4(s4, m8, o2, uint(n4));
}
";

#[test]
fn clustered_subgroup_reductions_equal_the_cpus() {
    let k = common::glsl(CLUSTERED);
    let mut rng = common::Rng(0xc105);
    let v: Vec<u32> = (0..128).map(|_| rng.below(1000)).collect();
    let cluster = |i: usize, c: usize| &v[i & !(c - 1)..(i & !(c - 1)) + c];
    let want: Vec<u32> = (0..128)
        .flat_map(|i| {
            [
                cluster(i, 4).iter().sum::<u32>(),
                *cluster(i, 8).iter().max().unwrap(),
                cluster(i, 2).iter().fold(0, |a, b| a | b),
                cluster(i, 4).iter().map(|&x| x as i32 - 500).min().unwrap() as u32,
            ]
        })
        .collect();
    let mut ran = 0;
    for ctx in contexts_having(wgpu::Features::SUBGROUP) {
        let inputs = [
            ("In", bytemuck::cast_slice(&v).to_vec()),
            ("Out", vec![0u8; 128 * 16]),
        ];
        for (backend, out) in common::translated_and_native(&ctx, &k, [2, 1, 1], &inputs) {
            let got: Vec<u32> = bytemuck::cast_slice(&out[1]).to_vec();
            if backend.ends_with("(native: true)") {
                // lavapipe 22.3 reduces over more than the cluster natively
                // (measured: subgroupClusteredAdd(x, 4u) summed 16 lanes).
                if got != want {
                    println!("driver finding: {backend} differs from the CPU");
                }
                continue;
            }
            assert_eq!(got, want, "{backend}");
            ran += 1;
        }
    }
    assert!(ran > 0, "no adapter with subgroups ran the kernel");
}

/// Stream compaction as OpenGL code wrote it before GL_KHR_shader_subgroup:
/// GL_ARB_shader_ballot's 64-bit ballot, its rank among the lanes below
/// (`gl_SubGroupLtMaskARB`), one `atomicAdd` per subgroup by its first lane,
/// broadcast with `readFirstInvocationARB`; GL_ARB_shader_group_vote's votes
/// beside it.
const ARB_COMPACTION: &str = "#version 450
#extension GL_ARB_shader_ballot : require
#extension GL_ARB_shader_group_vote : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Counter { uint count; };
layout(std430, binding = 2) writeonly buffer Kept { uint kept[]; };
layout(std430, binding = 3) writeonly buffer Lanes { uvec4 lanes[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint key = keys[i];
    bool keep = (key & 3u) != 0u;
    uint64_t votes = ballotARB(keep);
    uvec2 all = unpackUint2x32(votes);
    uvec2 below = unpackUint2x32(votes & gl_SubGroupLtMaskARB);
    uint total = uint(bitCount(all.x) + bitCount(all.y));
    uint rank = uint(bitCount(below.x) + bitCount(below.y));
    uint base = 0u;
    if (gl_SubGroupInvocationARB == 0u) {
        base = atomicAdd(count, total);
    }
    base = readFirstInvocationARB(base);
    if (keep) {
        kept[base + rank] = key;
    }
    uint last = readInvocationARB(key, gl_SubGroupSizeARB - 1u);
    uint flags = uint(anyInvocationARB(key > 900u))
        | uint(allInvocationsARB(key < 1000u)) << 1
        | uint(allInvocationsEqualARB(key >= 500u)) << 2;
    lanes[i] = uvec4(total, rank, last, flags | gl_SubGroupSizeARB << 8);
}
";

#[test]
fn arb_ballot_and_votes_equal_the_cpu_translated_and_natively() {
    let k = common::glsl(ARB_COMPACTION);
    let n = 256usize;
    let mut rng = common::Rng(0xba11);
    let keys: Vec<u32> = (0..n as u32).map(|_| rng.below(1000)).collect();
    let mut want_kept: Vec<u32> = keys.iter().copied().filter(|k| k & 3 != 0).collect();
    want_kept.sort_unstable();
    let mut ran = 0;
    for ctx in contexts_having(wgpu::Features::SUBGROUP | wgpu::Features::SHADER_INT64) {
        let inputs = [
            ("Keys", bytemuck::cast_slice(&keys).to_vec()),
            ("Counter", vec![0u8; 4]),
            ("Kept", vec![0u8; n * 4]),
            ("Lanes", vec![0u8; n * 16]),
        ];
        let mut runs = Vec::new();
        for (backend, out) in common::translated_and_native(&ctx, &k, [4, 1, 1], &inputs) {
            let count = u32::from_le_bytes(out[1][..4].try_into().unwrap()) as usize;
            let mut kept: Vec<u32> = bytemuck::cast_slice(&out[2]).to_vec();
            kept.truncate(count);
            kept.sort_unstable();
            assert_eq!(kept, want_kept, "{backend}: the kept keys, in any order");
            let lanes: Vec<[u32; 4]> = bytemuck::cast_slice(&out[3]).to_vec();
            let size = (lanes[0][3] >> 8) as usize;
            assert!(
                size.is_power_of_two() && size <= 64,
                "{backend}: size {size}"
            );
            // Subgroups of consecutive invocations (a one-dimensional workgroup).
            for (i, lane) in lanes.iter().enumerate() {
                let group = &keys[i / size * size..][..size];
                let kept = |k: &&u32| *k & 3 != 0;
                let flags = u32::from(group.iter().any(|&k| k > 900))
                    | u32::from(group.iter().all(|&k| k < 1000)) << 1
                    | u32::from(group.iter().all(|&k| (k >= 500) == (group[0] >= 500))) << 2;
                let want = [
                    group.iter().filter(kept).count() as u32,
                    group[..i % size].iter().filter(kept).count() as u32,
                    group[size - 1],
                    flags | (size as u32) << 8,
                ];
                assert_eq!(*lane, want, "{backend}: invocation {i}");
            }
            runs.push(backend);
            ran += 1;
        }
        println!("{}: equal to the CPU: {runs:?}", ctx.backend_name());
    }
    assert!(
        ran > 0,
        "no adapter with subgroups and 64-bit integers ran the kernel"
    );
}

/// A skinning kernel as OpenGL and Vulkan code feeds one: bone matrices
/// in an `rgba32f` buffer texture (four texels a bone), weights in an
/// `rgba8` one, bone indices in an `r32ui` one, sizes from `textureSize`.
/// The same kernel with the data in storage buffers is the ground truth,
/// natively and translated: WebGPU binds no texel buffer to run the
/// original's textures natively.
const SKINNING_TEXTURES: &str = "#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform samplerBuffer bones;
layout(set = 0, binding = 1) uniform samplerBuffer weights;
layout(set = 0, binding = 2) uniform usamplerBuffer boneIds;
layout(std430, set = 0, binding = 3) writeonly buffer Skinned { vec4 skinned[]; };
mat4 bone(int b) {
    return mat4(texelFetch(bones, 4 * b), texelFetch(bones, 4 * b + 1),
                texelFetch(bones, 4 * b + 2), texelFetch(bones, 4 * b + 3));
}
void main() {
    int v = int(gl_GlobalInvocationID.x);
    if (v >= textureSize(weights)) {
        return;
    }
    vec4 w = texelFetch(weights, v);
    uvec4 ids = uvec4(texelFetch(boneIds, 4 * v).x, texelFetch(boneIds, 4 * v + 1).x,
                      texelFetch(boneIds, 4 * v + 2).x, texelFetch(boneIds, 4 * v + 3).x);
    vec4 p = vec4(float(v), 1.0, -2.0, 1.0);
    vec4 s = vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        s += w[k] * (bone(int(ids[k]) % (textureSize(bones) / 4)) * p);
    }
    skinned[v] = s;
}
";

/// [`SKINNING_TEXTURES`] with its data in storage buffers, laid out as the
/// buffer textures' texels are (the `rgba8` weights as packed words).
const SKINNING_BUFFERS: &str = "#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Bones { vec4 bones[]; };
layout(std430, set = 0, binding = 1) readonly buffer Weights { uint weights[]; };
layout(std430, set = 0, binding = 2) readonly buffer BoneIds { uint boneIds[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Skinned { vec4 skinned[]; };
mat4 bone(int b) {
    return mat4(bones[4 * b], bones[4 * b + 1], bones[4 * b + 2], bones[4 * b + 3]);
}
void main() {
    int v = int(gl_GlobalInvocationID.x);
    if (v >= weights.length()) {
        return;
    }
    vec4 w = unpackUnorm4x8(weights[v]);
    uvec4 ids = uvec4(boneIds[4 * v], boneIds[4 * v + 1], boneIds[4 * v + 2], boneIds[4 * v + 3]);
    vec4 p = vec4(float(v), 1.0, -2.0, 1.0);
    vec4 s = vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        s += w[k] * (bone(int(ids[k]) % (bones.length() / 4)) * p);
    }
    skinned[v] = s;
}
";

#[test]
fn buffer_textures_read_as_storage_buffers_of_their_texels() {
    let k = common::glsl(SKINNING_TEXTURES);
    let opts = atomport::SourceOptions {
        buffer_texture_formats: vec![
            ("weights".into(), atomport::ImageFormat::Rgba8Unorm),
            ("boneIds".into(), atomport::ImageFormat::R32Uint),
        ],
        ..atomport::SourceOptions::named("skinning.comp")
    };
    let k_formats = atomport::Kernel::from_glsl(SKINNING_TEXTURES, &opts).unwrap();
    // Without formats, every texture holds four 32-bit channels.
    let shapes: Vec<String> = k
        .bindings()
        .iter()
        .filter_map(|b| b.image.map(|i| format!("{:?} {}", i.dim, i.format.name())))
        .collect();
    assert_eq!(
        shapes,
        ["Buffer rgba32f", "Buffer rgba32f", "Buffer rgba32ui"]
    );
    let wgsl = k_formats.wgsl();
    assert!(!wgsl.contains("texture"), "{wgsl}");
    let vertices = 40u32;
    let bones = 6u32;
    let mut rng = common::Rng(0x5c1a);
    // Small integers and eighths: every product and sum is exact.
    let bone_data: Vec<f32> = (0..bones * 16)
        .map(|_| rng.below(17) as f32 / 8.0 - 1.0)
        .collect();
    let weights: Vec<u32> = (0..vertices)
        .map(|_| rng.next_u32() & 0x8080_8080)
        .collect();
    let ids: Vec<u32> = (0..vertices * 4).map(|_| rng.below(100)).collect();
    // The twin on every backend, natively where the adapter can: every run
    // agrees, and the first (native where there is one) is the truth.
    let twin = common::glsl(SKINNING_BUFFERS);
    let mut runs = Vec::new();
    for ctx in contexts_having(wgpu::Features::empty()) {
        runs.extend(common::translated_and_native(
            &ctx,
            &twin,
            [2, 1, 1],
            &[
                ("Bones", bytemuck::cast_slice(&bone_data).to_vec()),
                ("Weights", bytemuck::cast_slice(&weights).to_vec()),
                ("BoneIds", bytemuck::cast_slice(&ids).to_vec()),
                ("Skinned", vec![0u8; vertices as usize * 16]),
            ],
        ));
    }
    runs.sort_by_key(|(backend, _)| !backend.ends_with("(native: true)"));
    let want = &runs[0].1[3];
    for (backend, out) in &runs {
        assert_eq!(&out[3], want, "the storage-buffer twin on {backend}");
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let image = |format, n: u32, bytes: &[u8]| {
            let desc =
                atomport::ImageDesc::new(atomport::ImageDim::Buffer, format, &[n], 1).unwrap();
            atomport::Image::from_texels(&ctx, desc, bytes).unwrap()
        };
        let bones_img = image(
            atomport::ImageFormat::Rgba32Float,
            bones * 4,
            bytemuck::cast_slice(&bone_data),
        );
        let weights_img = image(
            atomport::ImageFormat::Rgba8Unorm,
            vertices,
            bytemuck::cast_slice(&weights),
        );
        let ids_img = image(
            atomport::ImageFormat::R32Uint,
            vertices * 4,
            bytemuck::cast_slice(&ids),
        );
        let out = atomport::Buffer::zeroed(&ctx, u64::from(vertices) * 16).unwrap();
        ctx.dispatch(
            &k_formats,
            [2, 1, 1],
            &[
                atomport::Bind::named("bones", &bones_img),
                atomport::Bind::named("weights", &weights_img),
                atomport::Bind::named("boneIds", &ids_img),
                atomport::Bind::named("Skinned", &out),
            ],
        )
        .unwrap();
        assert_eq!(
            &out.read::<u8>(&ctx).unwrap(),
            want,
            "{}",
            ctx.backend_name()
        );
    }
}

#[test]
fn buffer_texture_formats_that_do_not_fit_are_refused_naming_them() {
    let file = temp_file("long_tail", "skinning.comp", SKINNING_TEXTURES);
    // A float format for a uint texture: the declaration's line, exit 1.
    let o = atomport(&["translate", &file, "--buffer-format", "boneIds=r32f"]);
    common::assert_fails(
        &o,
        1,
        "buffer texture `boneIds` holds uint texels: format r32f does not give them",
    );
    assert!(stderr(&o).contains("skinning.comp:5:"), "{}", stderr(&o));
    // A name the shader has no buffer texture of.
    let o = atomport(&["translate", &file, "--buffer-format", "bone=rgba32f"]);
    common::assert_fails(&o, 1, "no buffer texture of that name");
    // Malformed flags are usage errors, naming the flag.
    for (spec, needle) in [
        ("weights", "is not NAME=FORMAT"),
        ("weights=rgb9", "`rgb9` is not an image format"),
        ("=rgba8", "names no buffer texture"),
    ] {
        let o = atomport(&["translate", &file, "--buffer-format", spec]);
        common::assert_fails(&o, 2, needle);
        assert!(stderr(&o).contains("--buffer-format"), "{}", stderr(&o));
    }
}

/// A light-list kernel that copies std140 arrays whole, as shading code
/// does (`float w[8] = ubo.weights;`, a struct with an array inside loaded
/// at once): std140 gives `float[N]` a stride of 16, which WGSL keeps only
/// in wrapped elements.
const STD140_COPIES: &str = "#version 450
layout(local_size_x = 16) in;
struct Light { vec4 color; float radius[4]; };
layout(std140, set = 0, binding = 0) uniform Lights { float weights[8]; Light lights[2]; } ubo;
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float w[8] = ubo.weights;
    Light l = ubo.lights[i & 1u];
    float r[4] = l.radius;
    result[i] = w[i & 7u] * r[i & 3u] + l.color.x;
}
";

#[test]
fn std140_arrays_copied_whole_keep_their_values() {
    let k = common::glsl(STD140_COPIES);
    // The block's bytes as std140 lays them out: every float on 16 bytes.
    let mut ubo: Vec<f32> = (0..8)
        .flat_map(|i| [i as f32 + 1.0, 0.0, 0.0, 0.0])
        .collect();
    for light in 0..2 {
        ubo.extend([10.0 * (light as f32 + 1.0), 0.0, 0.0, 0.0]);
        for r in 0..4 {
            ubo.extend([0.5 * (r as f32 + 1.0) + light as f32, 0.0, 0.0, 0.0]);
        }
    }
    let want: Vec<f32> = (0..16usize)
        .map(|i| {
            let (light, w) = (i & 1, ubo[4 * (i & 7)]);
            let base = 32 + 20 * light;
            w * ubo[base + 4 + 4 * (i & 3)] + ubo[base]
        })
        .collect();
    let mut runs = 0;
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let inputs = [
            ("Lights", bytemuck::cast_slice(&ubo).to_vec()),
            ("Out", vec![0u8; 64]),
        ];
        for (backend, out) in common::translated_and_native(&ctx, &k, [1, 1, 1], &inputs) {
            let got: Vec<f32> = bytemuck::cast_slice(&out[1]).to_vec();
            assert_eq!(got, want, "{backend}");
            runs += 1;
        }
    }
    assert!(runs >= 2, "ran {runs} times");
}

/// Votes and broadcasts of booleans, as a culling kernel takes them
/// (`subgroupBroadcastFirst(visible)`, `subgroupAnd`, a shuffle of a
/// flag): WGSL's subgroup built-ins take numbers.
const BOOLEAN_SUBGROUPS: &str = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Radii { float radii[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Flags { uint flags[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    bool visible = radii[i] > 0.5;
    bvec2 sides = bvec2(radii[i] > 0.25, radii[i] < 0.75);
    bool first = subgroupBroadcastFirst(visible);
    bool all = subgroupAnd(visible);
    bool any = subgroupOr(visible);
    bool odd = subgroupXor(visible);
    bool next = subgroupShuffleXor(visible, 1u);
    bvec2 s = subgroupBroadcastFirst(sides);
    bool same = subgroupAllEqual(visible);
    flags[i] = uint(first) | uint(all) << 1 | uint(any) << 2 | uint(odd) << 3
        | uint(next) << 4 | uint(s.x) << 5 | uint(s.y) << 6 | uint(same) << 7
        | gl_SubgroupSize << 8;
}
";

#[test]
fn subgroup_operations_on_booleans_equal_the_cpu() {
    let k = common::glsl(BOOLEAN_SUBGROUPS);
    let mut rng = common::Rng(0xb001);
    let radii: Vec<f32> = (0..128).map(|_| rng.below(100) as f32 / 100.0).collect();
    let mut ran = 0;
    for ctx in contexts_having(wgpu::Features::SUBGROUP) {
        let inputs = [
            ("Radii", bytemuck::cast_slice(&radii).to_vec()),
            ("Flags", vec![0u8; 128 * 4]),
        ];
        for (backend, out) in common::translated_and_native(&ctx, &k, [2, 1, 1], &inputs) {
            let got: Vec<u32> = bytemuck::cast_slice(&out[1]).to_vec();
            let size = (got[0] >> 8) as usize;
            let want: Vec<u32> = (0..128)
                .map(|i| {
                    let g = &radii[i / size * size..][..size];
                    let vis = |r: &f32| *r > 0.5;
                    let bits = [
                        vis(&g[0]),
                        g.iter().all(vis),
                        g.iter().any(vis),
                        g.iter().filter(|r| vis(r)).count() % 2 == 1,
                        vis(&radii[i ^ 1]),
                        g[0] > 0.25,
                        g[0] < 0.75,
                        g.iter().all(|r| vis(r) == vis(&g[0])),
                    ];
                    let flags = bits.iter().enumerate().map(|(k, b)| u32::from(*b) << k);
                    flags.sum::<u32>() | (size as u32) << 8
                })
                .collect();
            assert_eq!(got, want, "{backend}");
            ran += 1;
        }
    }
    assert!(ran > 0, "no adapter with subgroups ran the kernel");
}

/// Bucketing keys into an array of buffer blocks selected per invocation
/// (`buckets[nonuniformEXT(b)]`), with an atomic slot counter in each and
/// `.length()` of the element: WGSL has no binding array of buffers wgpu
/// binds, so each use is a switch over the four elements.
const BUCKETS: &str = "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Bucket { uint count; uint items[]; } buckets[4];
layout(std430, set = 0, binding = 1) readonly buffer Keys { uint keys[]; };
void main() {
    uint key = keys[gl_GlobalInvocationID.x];
    uint b = key % 4u;
    uint slot = atomicAdd(buckets[nonuniformEXT(b)].count, 1u);
    if (slot < uint(buckets[nonuniformEXT(b)].items.length())) {
        buckets[nonuniformEXT(b)].items[slot] = key;
    }
}
";

#[test]
fn buffer_block_arrays_indexed_per_invocation_lose_no_key() {
    let k = common::glsl(BUCKETS);
    assert!(k.wgsl().contains("switch"), "{}", k.wgsl());
    let n = 256usize;
    let mut rng = common::Rng(0xb0c7);
    let keys: Vec<u32> = (0..n).map(|_| rng.below(1 << 20)).collect();
    // Room for every key in each bucket but the last, which overflows.
    let room = [n, n, n, 8];
    let mut runs = 0;
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        let mut inputs = vec![("Keys", bytemuck::cast_slice(&keys).to_vec())];
        let names = ["buckets[0]", "buckets[1]", "buckets[2]", "buckets[3]"];
        for (name, room) in names.iter().zip(room) {
            inputs.push((name, vec![0u8; 4 + 4 * room]));
        }
        for (backend, out) in common::translated_and_native(&ctx, &k, [4, 1, 1], &inputs) {
            for b in 0..4 {
                let words: Vec<u32> = bytemuck::cast_slice(&out[1 + b]).to_vec();
                let mut want: Vec<u32> =
                    keys.iter().copied().filter(|k| k % 4 == b as u32).collect();
                assert_eq!(
                    words[0] as usize,
                    want.len(),
                    "{backend}: bucket {b}'s count"
                );
                let mut got = words[1..].to_vec();
                got.truncate(want.len().min(room[b]));
                got.sort_unstable();
                want.sort_unstable();
                if want.len() <= room[b] {
                    assert_eq!(got, want, "{backend}: bucket {b}'s keys, in any order");
                } else {
                    assert!(
                        got.iter().all(|k| want.binary_search(k).is_ok()),
                        "{backend}"
                    );
                }
            }
            runs += 1;
        }
    }
    assert!(runs >= 2, "ran {runs} times");
}

/// Cascaded shadow maps chosen by a push constant (`texture(cascades[pc.cascade],
/// …)` on a `sampler2DShadow` array): naga's reader cannot give a binding
/// array a comparison (it panicked), so the element is switched over.
const SHADOW_CASCADES: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2DShadow cascades[3];
layout(set = 0, binding = 1, r32f) uniform writeonly image2D visibility;
layout(push_constant) uniform Push { int cascade; float bias; } pc;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 uv = (vec2(p) + 0.5) / 16.0;
    float lit = texture(cascades[pc.cascade], vec3(uv, uv.x * 0.5 + pc.bias));
    imageStore(visibility, p, vec4(lit));
}
";

#[test]
fn shadow_samplers_chosen_at_run_time_compare_as_natively() {
    let mut args = vec![
        "--groups",
        "2,2",
        "--image",
        "visibility=16x16:r32f",
        "--push",
        "bias=0.25",
    ];
    let specs: Vec<String> = (0..3)
        .flat_map(|k| {
            [
                "--texture".to_string(),
                format!(
                    "cascades[{k}]=16x16:depth32float:fill={}",
                    0.2 + 0.2 * k as f32
                ),
                "--sampler".to_string(),
                format!("cascades[{k}]=nearest,clamp,compare=less"),
            ]
        })
        .collect();
    args.extend(specs.iter().map(String::as_str));
    let file = temp_file("long_tail", "cascades.comp", SHADOW_CASCADES);
    for cascade in [0, 1, 2] {
        let push = format!("cascade={cascade}");
        let mut all = args.clone();
        all.extend(["--push", push.as_str()]);
        agrees_natively("cascades", SHADOW_CASCADES, &all);
        // And against the CPU: lit where the reference is less than the
        // cascade's depth (compare=less), by column.
        let mut run = vec!["run", file.as_str(), "--json"];
        run.extend(&all);
        let out = common::run_json(&run);
        let vis = out["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "visibility")
            .unwrap()["data"]
            .clone();
        let depth = 0.2 + 0.2 * cascade as f32;
        let want: Vec<f64> = (0..256)
            .map(|i| {
                let reference = ((i % 16) as f32 + 0.5) / 16.0 * 0.5 + 0.25;
                f64::from(u8::from(reference < depth))
            })
            .collect();
        assert_eq!(vis, serde_json::json!(want), "cascade {cascade}");
    }
}

/// A mip-chain pass as engines bind one: every level in one array sized by
/// a specialization constant, the level chosen by a push constant. naga
/// reads an array sized so as having no size; the length is the
/// constant's value at translation, and the level is switched over.
const MIP_CHAIN: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int MIPS = 4;
layout(set = 0, binding = 0, r32f) uniform readonly image2D srcMip;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dstMips[MIPS];
layout(push_constant) uniform Push { int level; } pc;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(dstMips[pc.level])))) {
        return;
    }
    vec4 q = vec4(imageLoad(srcMip, 2 * p).x, imageLoad(srcMip, 2 * p + ivec2(1, 0)).x,
                  imageLoad(srcMip, 2 * p + ivec2(0, 1)).x, imageLoad(srcMip, 2 * p + ivec2(1)).x);
    imageStore(dstMips[pc.level], p, vec4(max(max(q.x, q.y), max(q.z, q.w))));
}
";

#[test]
fn image_arrays_sized_by_a_specialization_constant_run_as_natively() {
    let k = atomport::Kernel::from_glsl(
        MIP_CHAIN,
        &atomport::SourceOptions {
            specializations: vec![atomport::Specialization::parse("MIPS=3").unwrap()],
            ..atomport::SourceOptions::named("mips.comp")
        },
    )
    .unwrap();
    let levels: Vec<&str> = k
        .bindings()
        .iter()
        .filter_map(|b| b.name.as_deref())
        .collect();
    assert!(
        levels.contains(&"dstMips[2]") && !levels.contains(&"dstMips[3]"),
        "{levels:?}"
    );
    for level in ["level=0", "level=1", "level=3"] {
        agrees_natively(
            "mips",
            MIP_CHAIN,
            &[
                "--groups",
                "1,1",
                "--image",
                "srcMip=16x16:r32f:fill=0.5",
                "--image",
                "dstMips[0]=8x8:r32f",
                "--image",
                "dstMips[1]=4x4:r32f",
                "--image",
                "dstMips[2]=2x2:r32f",
                "--image",
                "dstMips[3]=1x1:r32f",
                "--push",
                level,
            ],
        );
    }
}

/// A label map read with `texture()` on an integer texture, as a
/// segmentation or tile-lookup pass does: WGSL samples float textures
/// only, so it is the texel fetch a nearest sampler makes, wrapped by the
/// bound sampler's address mode (an override the runtime sets).
const LABELS: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform usampler2D labels;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 uv = (vec2(p) - 5.5) / 6.0;
    o[p.y * 16 + p.x] = texture(labels, uv).x;
}
";

#[test]
fn integer_textures_sample_as_a_nearest_sampler_picks_their_texels() {
    use atomport::{Bind, Buffer, Sampler, SamplerDesc, Texture, TextureDesc, TextureDim};
    let k = common::glsl(LABELS);
    let labels: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    // The texel a nearest sampler picks along one axis of 8, by mode.
    let pick = |i: i32, mode: wgpu::AddressMode| -> usize {
        (match mode {
            wgpu::AddressMode::Repeat => i.rem_euclid(8),
            wgpu::AddressMode::MirrorRepeat => {
                let t = i.rem_euclid(16) - 8;
                7 - if t >= 0 { t } else { -1 - t }
            }
            _ => i.clamp(0, 7),
        }) as usize
    };
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::R32Uint, &[8, 8], 1).unwrap();
        let tex = Texture::from_data(&ctx, desc, bytemuck::cast_slice(&labels)).unwrap();
        let modes = [
            wgpu::AddressMode::ClampToEdge,
            wgpu::AddressMode::Repeat,
            wgpu::AddressMode::MirrorRepeat,
        ];
        for mode in modes {
            let sampler = Sampler::new(
                &ctx,
                SamplerDesc {
                    address: mode,
                    ..SamplerDesc::default()
                },
            )
            .unwrap();
            let out = Buffer::zeroed(&ctx, 256 * 4).unwrap();
            ctx.dispatch(
                &k,
                [2, 2, 1],
                &[
                    Bind::named("labels", (&tex, &sampler)),
                    Bind::named("Out", &out),
                ],
            )
            .unwrap();
            let want: Vec<u32> = (0..256)
                .map(|n| {
                    let axis = |p: i32| ((p as f32 - 5.5) / 6.0 * 8.0).floor() as i32;
                    let (x, y) = (pick(axis(n % 16), mode), pick(axis(n / 16), mode));
                    labels[y * 8 + x]
                })
                .collect();
            assert_eq!(
                out.read::<u32>(&ctx).unwrap(),
                want,
                "{} {mode:?}",
                ctx.backend_name()
            );
        }
        // A linear sampler, and a sampler of the caller's that says nothing
        // of itself, are refused before submission, naming the sampler.
        let linear = Sampler::new(
            &ctx,
            SamplerDesc {
                filter: wgpu::FilterMode::Linear,
                ..SamplerDesc::default()
            },
        )
        .unwrap();
        let raw = ctx
            .device()
            .create_sampler(&wgpu::SamplerDescriptor::default());
        let unknown = Sampler::from_wgpu(raw, false);
        let out = Buffer::zeroed(&ctx, 256 * 4).unwrap();
        for (sampler, needle) in [
            (&linear, "filters linearly"),
            (&unknown, "from_wgpu_described"),
        ] {
            let e = ctx
                .dispatch(
                    &k,
                    [2, 2, 1],
                    &[
                        Bind::named("labels", (&tex, sampler)),
                        Bind::named("Out", &out),
                    ],
                )
                .unwrap_err()
                .to_string();
            assert!(e.contains("`labels`") && e.contains(needle), "{e}");
        }
    }
}

#[test]
fn integer_sampling_the_mapping_leaves_is_refused_with_its_line() {
    let src = "#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform usampler2D labels;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() {
    vec2 uv = vec2(gl_GlobalInvocationID.xy) / 8.0;
    o[gl_GlobalInvocationID.x] = textureGrad(labels, uv, vec2(0.1), vec2(0.1)).x;
}
";
    let file = temp_file("long_tail", "grad.comp", src);
    let o = atomport(&["translate", &file]);
    common::assert_fails(
        &o,
        1,
        "the integer texture `labels` is sampled with gradients",
    );
    assert!(stderr(&o).contains("grad.comp:3:"), "{}", stderr(&o));
}

/// A depth-range kernel with float specialization constants as renderers
/// write them: a far plane at infinity (`1e39` rounds to it) and a scale
/// whose product overflows. WGSL forbids an override expression that is
/// not finite when the pipeline is created ("Pipeline constant error:
/// Float literal is infinite"); the original computes it when it runs.
const INFINITE_FAR: &str = "#version 450
layout(local_size_x = 4) in;
layout(constant_id = 0) const float FAR = 1e39;
layout(constant_id = 1) const float BIG = 3.0e38;
layout(std430, binding = 0) readonly buffer In { float v[]; };
layout(std430, binding = 1) writeonly buffer Out { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = i == 3u ? BIG * 4.0 : min(v[i], FAR);
}
";

#[test]
fn infinite_specialization_constants_compute_as_natively() {
    let file = temp_file("long_tail", "far.comp", INFINITE_FAR);
    for extra in [&[][..], &["--spec", "FAR=5", "--spec", "BIG=2"][..]] {
        let mut args = vec![
            "--groups",
            "1",
            "--buffer",
            "In=f32:[1,9,1e30,0]",
            "--buffer",
            "Out=f32:4",
        ];
        args.extend(extra);
        agrees_natively("far", INFINITE_FAR, &args);
        let mut run = vec!["run", file.as_str(), "--json"];
        run.extend(&args);
        let out = common::run_json(&run);
        let o = out["bindings"].as_array().unwrap()[1]["data"].clone();
        // JSON has no infinity: `run --json` writes null for one.
        let want = if extra.is_empty() {
            serde_json::json!([1.0, 9.0, 1e30, null])
        } else {
            serde_json::json!([1.0, 5.0, 5.0, 8.0])
        };
        assert_eq!(o, want, "{extra:?}");
    }
}

/// AMD's `min3`, `max3` and `mid3` (GL_AMD_shader_trinary_minmax), and
/// misses recorded with NaN and infinite sentinels folded into constant
/// vectors, in tests/vulkan/bvh_slab_extremes.comp. lavapipe does not run
/// the extension's SPIR-V, so the reference is the same kernel with each
/// call spelled as the extension defines it (`max(max(a, b), c)`;
/// `mid3` as `max(min(a, b), min(max(a, b), c))`), run natively: every
/// word of every binding, the NaN's bits included, must equal it on every
/// backend.
#[test]
fn trinary_min_max_and_non_finite_sentinels_equal_their_definition_run_natively() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("tests/vulkan/bvh_slab_extremes.comp")).unwrap();
    let three = |name: &str, text: &str| -> Option<(usize, usize)> {
        let at = text.find(&format!("{name}("))?;
        let open = at + name.len();
        let close = open + text[open..].find(')')?;
        Some((at, close + 1))
    };
    let mut plain = source.replace("#extension GL_AMD_shader_trinary_minmax : enable\n", "");
    for (name, form) in [
        ("min3", "min(min(A, B), C)"),
        ("max3", "max(max(A, B), C)"),
        ("mid3", "max(min(A, B), min(max(A, B), C))"),
    ] {
        while let Some((at, end)) = three(name, &plain) {
            let args: Vec<&str> = plain[at + name.len() + 1..end - 1].split(", ").collect();
            assert_eq!(args.len(), 3, "{}", &plain[at..end]);
            let spelled = form
                .replace('A', args[0])
                .replace('B', args[1])
                .replace('C', args[2]);
            plain.replace_range(at..end, &spelled);
        }
    }
    assert!(!plain.contains("min3(") && !plain.contains("mid3("));
    let k = common::glsl(&source);
    let reference = common::glsl(&plain);
    let boxes: Vec<f32> = source
        .lines()
        .find_map(|l| l.strip_prefix("// run: --buffer Boxes=f32:["))
        .unwrap()
        .trim_end_matches(']')
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let inputs = [
        ("Boxes", bytemuck::cast_slice(&boxes).to_vec()),
        ("Hits", vec![0u8; 256 * 4]),
        ("counts", vec![0u8; 264 * 4]),
    ];
    let mut native = None;
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        if ctx.has_native() && native.is_none() {
            let runs = common::translated_and_native(&ctx, &reference, [2, 1, 1], &inputs);
            native = runs
                .into_iter()
                .find(|(name, _)| name.contains("native: true"));
        }
    }
    let Some((_, native)) = native else {
        println!("no adapter runs SPIR-V natively: not compared");
        return;
    };
    let hits: &[u32] = bytemuck::cast_slice(&native[1]);
    assert!(hits.chunks(4).any(|h| h[3] == u32::MAX), "a miss");
    assert!(hits.chunks(4).any(|h| h[3] != u32::MAX), "a hit");
    for ctx in common::contexts_with_available(wgpu::Features::empty()) {
        let runs = common::translated_and_native_where(&ctx, &k, [2, 1, 1], &inputs, false);
        for (backend, read) in runs {
            assert_eq!(read, native, "{backend}");
            println!("{backend}: equal to the definition run natively");
        }
    }
}

/// A gather at a level of detail (GL_AMD_texture_gather_bias_lod) has no
/// WGSL form: refused in one line at the call, exit 1. Enabled and unused,
/// the extension is dropped (tests/vulkan/bvh_slab_extremes.comp).
#[test]
fn gathers_at_a_level_of_detail_are_refused_at_their_line() {
    let file = temp_file(
        "long_tail",
        "gather_lod.comp",
        "#version 450
#extension GL_AMD_texture_gather_bias_lod : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D heights;
layout(set = 0, binding = 1) buffer Out { vec4 quads[]; };
void main() {
    vec2 uv = vec2(gl_GlobalInvocationID.xy) / 8.0;
    quads[gl_GlobalInvocationID.x] = textureGatherLodAMD(heights, uv, 2.0);
}
",
    );
    let o = atomport(&["translate", &file]);
    common::assert_fails(
        &o,
        1,
        "gather_lod.comp:8:38: `textureGatherLodAMD` gathers with a level of detail",
    );
}

/// An integer texture sampled through a bindless array (Frogfood's culling
/// style: `usampler2DArray(textures[nonuniformEXT(i)], samplers[j])`)
/// translates: the sampler array's elements' address modes reach the
/// fetch through the overrides the binding map names (the runs:
/// `tests/binding_arrays.rs`).
#[test]
fn integer_sampling_through_a_texture_array_translates() {
    let file = temp_file(
        "long_tail",
        "bindless_int.comp",
        "#version 460
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform utexture2DArray bitmasks[];
layout(set = 0, binding = 1) uniform sampler samplers[];
layout(set = 0, binding = 2) buffer Out { uint visible[]; };
layout(push_constant) uniform Ids { uint hzb; uint nearest; } ids;
void main() {
    vec2 uv = vec2(gl_GlobalInvocationID.xy) / 8.0;
    visible[gl_GlobalInvocationID.x] = textureLod(
        usampler2DArray(bitmasks[nonuniformEXT(ids.hzb)], samplers[ids.nearest]),
        vec3(uv, 0.0), 0.0).x;
}
",
    );
    let o = atomport(&["translate", &file, "--bindings"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let map: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let samplers = map["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "samplers")
        .unwrap();
    assert_eq!(samplers["address_overrides"].as_array().unwrap().len(), 4);
}
