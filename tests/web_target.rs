//! The WebGPU target (`--target webgpu`, `SourceOptions::target`), on the
//! native backends here: what it rewrites (descriptor sets past WebGPU's
//! four, moved or merged, subgroups, float literals, read-write images of formats core
//! WebGPU cannot store) runs and agrees with the CPU; what it cannot make
//! valid (a barrier WGSL cannot prove uniform, a native-only feature) is
//! refused with its line. The browser itself runs in tests/web.rs.

mod common;

use atomport::{
    Bind, BindingKind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Platform,
    SourceOptions,
};

fn for_webgpu(name: &str) -> SourceOptions {
    let mut o = SourceOptions::named(name);
    o.target = Platform::WebGpu;
    o
}

fn webgpu(name: &str, src: &str) -> Kernel {
    Kernel::from_glsl(src, &for_webgpu(name)).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// A material system's layout: per-frame data in set 0, the scene in set 4,
/// a library's counters in set 5 at binding 2000 (its own numbering).
const SETS: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Frame { uint kinds; uint scale; } frame;
layout(set = 4, binding = 1) readonly buffer Particles { uint kind[]; } particles;
layout(set = 5, binding = 2000) buffer Counters { uint per_kind[]; } counters;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = particles.kind[i] % frame.kinds;
    atomicAdd(counters.per_kind[k], frame.scale);
}
";

#[test]
fn descriptor_sets_past_four_are_packed_and_bound_by_the_shaders_numbers() {
    let k = webgpu("sets.comp", SETS);
    let particles = k.binding_named("particles").unwrap();
    let counters = k.binding_named("counters").unwrap();
    // Sets 4 and 5 take 1 and 2, the lowest the shader leaves free; the
    // binding past 999 takes the lowest free number of its set.
    assert_eq!((particles.group, particles.declared_group), (1, Some(4)));
    assert_eq!((counters.group, counters.declared_group), (2, Some(5)));
    assert_eq!((counters.binding, counters.declared), (0, Some(2000)));
    assert!(k.wgsl().contains("@group(2) @binding(0)"), "{}", k.wgsl());
    // The native target keeps the shader's sets.
    let native = common::glsl(SETS);
    assert_eq!(native.binding_named("particles").unwrap().group, 4);
    let kinds: Vec<u32> = (0..256u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut want = vec![0u32; 5];
    for &x in &kinds {
        want[(x % 5) as usize] += 3;
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let frame = Buffer::from_slice(&ctx, &[5u32, 3, 0, 0]).unwrap();
        let parts = Buffer::from_slice(&ctx, &kinds).unwrap();
        let counts = Buffer::zeroed(&ctx, 5 * 4).unwrap();
        ctx.dispatch(
            &k,
            [4, 1, 1],
            &[
                Bind::new(0, 0, &frame),
                Bind::new(4, 1, &parts),
                Bind::new(5, 2000, &counts),
            ],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        assert_eq!(
            counts.read::<u32>(&ctx).unwrap(),
            want,
            "{}",
            ctx.backend_name()
        );
    }
}

/// A renderer's layout with a set per update rate (frame, view, pass,
/// material, object, and a debug set at 7): six sets, two past WebGPU's four
/// bind groups once the free numbers are taken. Those merge into the groups
/// with the fewest bindings, numbered after theirs; the host binds every
/// one by the set and binding the shader declared.
const SIX_SETS: &str = "#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform Frame { uint time; } frame;
layout(set = 1, binding = 0) readonly buffer View { uint offsets[]; } view;
layout(set = 1, binding = 1) readonly buffer ViewScale { uint scale; } viewScale;
layout(set = 2, binding = 0) readonly buffer Pass { uint weights[]; } pass_;
layout(set = 3, binding = 0) readonly buffer Material { uint ids[]; } material;
layout(set = 5, binding = 0) readonly buffer Object { uint masks[]; } object;
layout(set = 7, binding = 0) buffer Debug { uint histogram[8]; uint total; } debugOut;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = (view.offsets[i] * viewScale.scale + pass_.weights[i & 7u]) ^ material.ids[i];
    v = (v & object.masks[i % 4u]) + frame.time;
    atomicAdd(debugOut.histogram[v & 7u], 1u);
    atomicAdd(debugOut.total, v);
}
";

#[test]
fn descriptor_sets_past_webgpus_four_groups_merge_and_bind_as_declared() {
    let k = webgpu("six.comp", SIX_SETS);
    for b in k.bindings() {
        assert!(b.group < 4, "{:?} in group {}", b.name, b.group);
    }
    let object = k.binding_named("object").unwrap();
    let debug = k.binding_named("debugOut").unwrap();
    assert_eq!(object.declared_group, Some(5));
    assert_eq!(debug.declared_group, Some(7));
    // Two sets merged: no (group, binding) is taken twice.
    let mut slots: Vec<(u32, u32)> = k.bindings().iter().map(|b| (b.group, b.binding)).collect();
    slots.sort();
    slots.dedup();
    assert_eq!(slots.len(), k.bindings().len());
    let n = 64u32;
    let offsets: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 9).collect();
    let weights: Vec<u32> = (0..8).map(|i| i * 37 + 5).collect();
    let ids: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
    let masks = [0xffu32, 0x0f0f, 0x3f, 0xffff_ffff];
    let (time, scale) = (11u32, 3u32);
    let mut want = vec![0u32; 9];
    for i in 0..n as usize {
        let v = (offsets[i].wrapping_mul(scale).wrapping_add(weights[i & 7])) ^ ids[i];
        let v = (v & masks[i % 4]).wrapping_add(time);
        want[(v & 7) as usize] += 1;
        want[8] = want[8].wrapping_add(v);
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let frame = Buffer::from_slice(&ctx, &[time, 0, 0, 0]).unwrap();
        let view = Buffer::from_slice(&ctx, &offsets).unwrap();
        let view_scale = Buffer::from_slice(&ctx, &[scale]).unwrap();
        let pass = Buffer::from_slice(&ctx, &weights).unwrap();
        let material = Buffer::from_slice(&ctx, &ids).unwrap();
        let object = Buffer::from_slice(&ctx, &masks).unwrap();
        let debug = Buffer::zeroed(&ctx, 9 * 4).unwrap();
        ctx.dispatch(
            &k,
            [n / 32, 1, 1],
            &[
                Bind::new(0, 0, &frame),
                Bind::new(1, 0, &view),
                Bind::new(1, 1, &view_scale),
                Bind::new(2, 0, &pass),
                Bind::new(3, 0, &material),
                Bind::new(5, 0, &object),
                Bind::new(7, 0, &debug),
            ],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        assert_eq!(
            debug.read::<u32>(&ctx).unwrap(),
            want,
            "{}",
            ctx.backend_name()
        );
    }
}

/// A stream-compaction pass in the style of GPU culling code: a subgroup
/// reduction and scan reserve slots, one elected lane adds the total.
const SUBGROUPS: &str = "#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint total; uint biggest; uint slots[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = values[i];
    uint sum = subgroupAdd(v);
    uint before = subgroupExclusiveAdd(v);
    uint smallest_before = subgroupExclusiveMin(v);
    uint top = subgroupMax(v);
    uint wide = subgroupBallotBitCount(subgroupBallot(v > 10u));
    if (subgroupElect()) {
        atomicAdd(total, sum);
        atomicMax(biggest, top);
    }
    uint first = subgroupBroadcastFirst(v);
    slots[i] = before + (smallest_before == 0xFFFFFFFFu ? 1u : 0u) * 1000000u
        + gl_SubgroupSize * 10000u + wide * 1000u + (first == v ? 100u : 0u)
        + gl_SubgroupInvocationID;
}
";

#[test]
fn subgroups_run_as_subgroups_of_one_invocation_with_a_warning() {
    let k = webgpu("compact.comp", SUBGROUPS);
    assert!(!k.required_features().contains(wgpu::Features::SUBGROUP));
    assert!(!k.wgsl().contains("subgroup"), "{}", k.wgsl());
    let w = k
        .warnings()
        .iter()
        .find(|w| w.message.contains("subgroups of one invocation"))
        .expect("a warning");
    assert_eq!(w.line, Some(10), "the first subgroup operation's line");
    let values: Vec<u32> = (0..128u32).map(|i| (i * 37) % 23).collect();
    // One invocation per subgroup: every reduction is the value itself, an
    // exclusive scan its identity (0 for add, the largest uint for min).
    let slots: Vec<u32> = values
        .iter()
        .map(|&v| 1_000_000 + 10_000 + u32::from(v > 10) * 1000 + 100)
        .collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let input = Buffer::from_slice(&ctx, &values).unwrap();
        let out = Buffer::zeroed(&ctx, (2 + 128) * 4).unwrap();
        ctx.dispatch(
            &k,
            [2, 1, 1],
            &[Bind::new(0, 0, &input), Bind::new(0, 1, &out)],
        )
        .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        let got = out.read::<u32>(&ctx).unwrap();
        assert_eq!(got[0], values.iter().sum::<u32>(), "{}", ctx.backend_name());
        assert_eq!(got[1], *values.iter().max().unwrap());
        assert_eq!(&got[2..], &slots[..], "{}", ctx.backend_name());
    }
}

/// Physics code's sentinels: the largest float as "no hit yet", and an
/// infinity computed from a division.
const FLOATS: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint bits[4]; };
const float NO_HIT = 3.4028235e38;
void main() {
    float far = NO_HIT;
    float tiny = 1.0e-45;
    float zero = float(bits[3]);
    bits[0] = floatBitsToUint(far);
    bits[1] = floatBitsToUint(-far);
    bits[2] = floatBitsToUint(tiny * 2.0);
    bits[3] = floatBitsToUint(-1.0 / zero);
}
";

#[test]
fn float_literals_are_written_so_that_every_compiler_reads_them_back() {
    let k = webgpu("floats.comp", FLOATS);
    assert!(k.wgsl().contains("0x1.fffffep+127f"), "{}", k.wgsl());
    assert!(
        !k.wgsl()
            .contains("340282350000000000000000000000000000000f")
    );
    // The text reads back, and to the same values.
    let back = Kernel::from_wgsl(k.wgsl(), &SourceOptions::named("floats.wgsl")).unwrap();
    let want = [
        f32::MAX.to_bits(),
        (-f32::MAX).to_bits(),
        (2.0 * f32::from_bits(1)).to_bits(),
        f32::NEG_INFINITY.to_bits(),
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        for kernel in [&k, &back] {
            let out = Buffer::zeroed(&ctx, 16).unwrap();
            ctx.dispatch(kernel, [1, 1, 1], &[Bind::new(0, 0, &out)])
                .unwrap();
            assert_eq!(
                out.read::<u32>(&ctx).unwrap(),
                want,
                "{}",
                ctx.backend_name()
            );
        }
    }
}

#[test]
fn a_barrier_wgsl_cannot_prove_uniform_is_refused_with_its_line() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
shared uint tile[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    for (uint r = 0u; r < 4u; r++) {
        if (v[l] == r) {
            return;
        }
        tile[l] = v[l] + r;
        barrier();
        v[l] = tile[63u - l];
    }
}
";
    // A return inside a loop with a barrier: neither predication nor the
    // workgroup's value applies (the invocations that returned would leave
    // the others waiting on later rounds).
    let e = Kernel::from_glsl(src, &for_webgpu("divergent.comp"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("divergent.comp:12: barrier()"), "{e}");
    assert!(e.contains("uniformity analysis"), "{e}");
    // The native target keeps it, with a warning.
    let native = common::glsl(src);
    assert!(
        native
            .warnings()
            .iter()
            .any(|w| w.message.contains("cannot prove uniform"))
    );
}

/// A flag one invocation sets in shared memory, read by all after a
/// barrier: uniform only at run time, which `workgroupUniformLoad` proves.
#[test]
fn a_barrier_under_a_shared_flag_is_kept_through_a_uniform_load() {
    let src = "#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint rounds; uint v[]; };
shared uint s_more;
shared uint s_sum;
void main() {
    uint l = gl_LocalInvocationID.x;
    if (l == 0u) { s_more = rounds; s_sum = 0u; }
    barrier();
    if (s_more != 0u) {
        atomicAdd(s_sum, v[l]);
        barrier();
        v[l] = s_sum;
    }
}
";
    let k = webgpu("flag.comp", src);
    assert!(k.wgsl().contains("workgroupUniformLoad"), "{}", k.wgsl());
    for ctx in common::contexts(wgpu::Features::empty()) {
        let mut data = vec![1u32];
        data.extend(1..=32u32);
        let b = Buffer::from_slice(&ctx, &data).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &b)]).unwrap();
        let got = b.read::<u32>(&ctx).unwrap();
        assert!(got[1..].iter().all(|&x| x == 528), "{got:?}");
    }
}

/// The last workgroup to finish carries on (tests/uniformity's
/// keep_last_workgroup_call.comp, which the browser suite gives Chromium):
/// a helper's result read from shared memory in uniform control flow is
/// uniform, so the return on it keeps the barriers after. Run translated
/// for WebGPU on every backend: the last workgroup sums every value.
#[test]
fn a_helper_s_uniform_result_keeps_the_barriers_after_a_return_on_it() {
    let path = "tests/uniformity/keep_last_workgroup_call.comp";
    let k = webgpu(path, &std::fs::read_to_string(path).unwrap());
    assert!(k.wgsl().contains("workgroupUniformLoad"), "{}", k.wgsl());
    let values: Vec<u32> = (0..256).collect();
    let want: u32 = values.iter().map(|v| v + 1).sum();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let counter = Buffer::from_slice(&ctx, &[0u32]).unwrap();
        let data = Buffer::from_slice(&ctx, &values).unwrap();
        ctx.dispatch(
            &k,
            [4, 1, 1],
            &[Bind::named("Counter", &counter), Bind::named("Data", &data)],
        )
        .unwrap();
        assert_eq!(
            counter.read::<u32>(&ctx).unwrap(),
            [want],
            "{}",
            ctx.backend_name()
        );
    }
}

/// A getter of a uniform block's value, which a helper also calls from
/// divergent code, returns a uniform value to a call in uniform control
/// flow (tests/uniformity's keep_getter_called_in_divergent_code.comp, as
/// FidelityFX FSR2's luminance pyramid has it): the loop of barriers on it
/// is kept. Run translated for WebGPU on every backend against the CPU.
#[test]
fn a_getter_called_in_divergent_code_still_keeps_barriers_on_its_result() {
    let path = "tests/uniformity/keep_getter_called_in_divergent_code.comp";
    let k = webgpu(path, &std::fs::read_to_string(path).unwrap());
    let values: Vec<u32> = (0..256).collect();
    let mut want = values.clone();
    for g in 0..4 {
        want[g * 64] = 3 * values[g * 64..g * 64 + 64].iter().sum::<u32>();
    }
    params_and_data_on_every_backend(&k, &[7, 3], &values, [4, 1, 1], &want);
}

/// A bounds check's early return before a barrier becomes predication,
/// and a call of a getter without effects after it stays unguarded, its
/// result in scope (tests/uniformity's keep_getter_after_bounds_return.comp):
/// it had been refused. Run translated for WebGPU on every backend against
/// the CPU, with the last workgroup partly past the end.
#[test]
fn a_getter_called_after_a_bounds_return_is_not_guarded() {
    let path = "tests/uniformity/keep_getter_after_bounds_return.comp";
    let k = webgpu(path, &std::fs::read_to_string(path).unwrap());
    assert!(k.wgsl().contains("atomport_alive"), "{}", k.wgsl());
    let (width, bias) = (100u32, 5u32);
    let values: Vec<u32> = (0..128).map(|v| v * 3).collect();
    let want: Vec<u32> = values
        .iter()
        .enumerate()
        .map(|(g, &v)| {
            let (g, i) = (g as u32, g as u32 % 64);
            if g >= width {
                v
            } else {
                (v + bias) * 2 + if 63 - i < i { bias } else { 0 }
            }
        })
        .collect();
    params_and_data_on_every_backend(&k, &[width, bias], &values, [2, 1, 1], &want);
}

/// Dispatches `k` (a shader of tests/uniformity with a uniform block
/// `Params` and a buffer `Data`) on every backend, and checks `Data` after.
fn params_and_data_on_every_backend(
    k: &Kernel,
    params: &[u32],
    values: &[u32],
    groups: [u32; 3],
    want: &[u32],
) {
    for ctx in common::contexts(wgpu::Features::empty()) {
        let params = Buffer::from_slice(&ctx, params).unwrap();
        let data = Buffer::from_slice(&ctx, values).unwrap();
        ctx.dispatch(
            k,
            groups,
            &[Bind::named("Params", &params), Bind::named("Data", &data)],
        )
        .unwrap();
        assert_eq!(
            data.read::<u32>(&ctx).unwrap(),
            want,
            "{}",
            ctx.backend_name()
        );
    }
}

#[test]
fn read_write_images_of_formats_core_webgpu_cannot_store_are_texel_buffers() {
    // A tone-mapping pass that reads and writes its HDR target in place.
    let src = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform image2D hdr;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb / (c.rgb + 1.0), c.a));
}
";
    let k = webgpu("tonemap.comp", src);
    assert_eq!(k.binding(0, 0).unwrap().kind, BindingKind::Image);
    assert!(!k.wgsl().contains("texture_storage"), "{}", k.wgsl());
    let texels: Vec<f32> = (0..16 * 8 * 4).map(|i| (i % 9) as f32 * 0.5).collect();
    let halves: Vec<u16> = texels.iter().map(|&f| atomport::f32_to_half(f)).collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc = ImageDesc::new(ImageDim::D2, ImageFormat::Rgba16Float, &[16, 8], 1).unwrap();
        let img = Image::from_texels(&ctx, desc, &halves).unwrap();
        ctx.dispatch(&k, [2, 1, 1], &[Bind::image(0, 0, &img)])
            .unwrap();
        let out: Vec<u16> = img.read(&ctx).unwrap();
        for (i, (&h, &f)) in out.iter().zip(&texels).enumerate() {
            let want = if i % 4 == 3 { f } else { f / (f + 1.0) };
            let got = atomport::half_to_f32(h);
            assert!(
                (got - want).abs() <= 1e-3,
                "{}: texel channel {i}: {got} vs {want}",
                ctx.backend_name()
            );
        }
    }
}

#[test]
fn translate_for_webgpu_names_each_native_only_feature_and_its_line() {
    let file = common::temp_file(
        "web-target",
        "keys.comp",
        "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Keys { uint64_t best; };
void main() { atomicMax(best, uint64_t(gl_GlobalInvocationID.x) << 32); }
",
    );
    let o = common::atomport(&["translate", &file, "--target", "webgpu"]);
    common::assert_fails_in_one_line(&o, 1, "keys.comp:5: needs SHADER_INT64 (64-bit integers)");
    assert!(common::stderr(&o).contains("keys.comp:5: needs SHADER_INT64_ATOMIC_ALL_OPS"));
    // The native target translates it.
    assert!(common::atomport(&["translate", &file]).status.success());
    let o = common::atomport(&["translate", &file, "--target", "browser"]);
    common::assert_fails(
        &o,
        2,
        "`browser` is not a translation target (native, webgpu)",
    );
}

/// A device with WebGPU's default limits (what a browser grants unless
/// asked for more), as a caller's wgpu program opens it.
fn default_limits_context() -> Option<atomport::Context> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::GL;
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .ok()?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits::default(),
        ..Default::default()
    }))
    .ok()?;
    atomport::Context::from_wgpu(
        adapter.get_info(),
        device,
        queue,
        std::time::Duration::from_secs(30),
    )
    .ok()
}

#[test]
fn a_kernel_past_a_per_stage_limit_is_refused_before_submission_naming_it() {
    // A deferred-shading pass that reads nine G-buffer channels.
    let mut src = String::from("#version 450\nlayout(local_size_x = 64) in;\n");
    for i in 0..9 {
        src.push_str(&format!(
            "layout(set = 0, binding = {i}) buffer G{i} {{ uint g{i}[]; }};\n"
        ));
    }
    src.push_str("void main() { uint i = gl_GlobalInvocationID.x; g0[i] = ");
    src.push_str(
        &(1..9)
            .map(|i| format!("g{i}[i]"))
            .collect::<Vec<_>>()
            .join(" + "),
    );
    src.push_str("; }\n");
    let k = webgpu("gbuffer.comp", &src);
    let ctx = default_limits_context().expect("an adapter");
    let buffers: Vec<Buffer> = (0..9).map(|_| Buffer::zeroed(&ctx, 256).unwrap()).collect();
    let binds: Vec<Bind> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| Bind::new(0, i as u32, b))
        .collect();
    let e = ctx.dispatch(&k, [1, 1, 1], &binds).unwrap_err().to_string();
    assert_eq!(
        e,
        "the storage buffers the kernel binds is 9, over the adapter's limit max_storage_buffers_per_shader_stage = 8"
    );
}

#[test]
fn sixty_four_bit_integers_become_pairs_of_words_with_the_same_layout() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vulkan/int64_arithmetic.comp"
    );
    let src = std::fs::read_to_string(path).unwrap();
    let k = webgpu("int64_arithmetic.comp", &src);
    assert!(
        k.required_features().is_empty(),
        "{:?}",
        k.required_features()
    );
    assert!(!k.wgsl().contains("u64") && !k.wgsl().contains("i64"));
    // A uint64_t array keeps its 8-byte stride.
    assert!(k.wgsl().contains("array<vec2<u32>>"), "{}", k.wgsl());
    // Every operation agrees with the original run natively: tests/native.rs
    // runs this kernel's WebGPU translation against it, and the browser
    // suite against lavapipe.
}

#[test]
fn blocks_declared_at_one_binding_are_one_binding_for_webgpu() {
    // A particle system's two views of one buffer, as real code declares
    // them: WebGPU refuses a dispatch that binds a buffer twice and writes
    // it, so both views address one binding's words, each at its own
    // layout, and the host binds it once, by either name.
    let src = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Positions { vec4 pos[]; };
layout(set = 0, binding = 0) buffer Raw { uint words[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    pos[i].w = pos[i].y * 2.0;
    words[4u * i] ^= 1u;
}
";
    let k = webgpu("views.comp", src);
    assert_eq!(k.bindings().len(), 1, "{:?}", k.bindings());
    let b = &k.bindings()[0];
    assert_eq!((b.group, b.binding), (0, 0));
    assert_eq!(b.also, ["Raw"]);
    assert_eq!(
        k.binding_named("Raw").unwrap(),
        k.binding_named("Positions").unwrap()
    );
    let n = 128usize;
    let pos: Vec<f32> = (0..4 * n).map(|k| k as f32 * 0.25 - 7.0).collect();
    let mut want = pos.clone();
    for i in 0..n {
        want[4 * i + 3] = want[4 * i + 1] * 2.0;
        want[4 * i] = f32::from_bits(want[4 * i].to_bits() ^ 1);
    }
    for (name, ctx) in ["Positions", "Raw"]
        .into_iter()
        .cycle()
        .zip(common::contexts(wgpu::Features::empty()))
    {
        let buf = Buffer::from_slice(&ctx, &pos).unwrap();
        ctx.dispatch(&k, [2, 1, 1], &[Bind::named(name, &buf)])
            .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
        let got = buf.read::<f32>(&ctx).unwrap();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&got), bits(&want), "{}", ctx.backend_name());
    }
    // tests/vulkan/aliased_bitstream_views.comp runs three such views
    // against the original, natively and in the browser.
}

/// A mip chain bound whole, as FidelityFX SPD binds its twelve levels:
/// each level's texels count up what the host wrote, at a value naming
/// the level and the texel.
const MIPS: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D mips[12];
layout(set = 0, binding = 1) buffer Sizes { ivec2 size[12]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    for (int k = 0; k < 12; ++k) {
        ivec2 s = imageSize(mips[k]);
        if (p == ivec2(0)) {
            size[k] = s;
        }
        if (all(lessThan(p, s))) {
            uint before = imageLoad(mips[k], p).x;
            imageStore(mips[k], p, uvec4(before + uint(k) * 100000u + uint(p.y) * 100u + uint(p.x)));
        }
    }
}
";

#[test]
fn twelve_image_levels_share_one_buffer_where_they_would_pass_eight_storage_buffers() {
    let k = webgpu("mips.comp", MIPS);
    let mips = k.binding_named("mips").unwrap();
    assert_eq!(mips.packed.len(), 12);
    assert_eq!(mips.array, Some(atomport::ArrayLength::Fixed(12)));
    assert_eq!(k.bindings().len(), 2, "{:?}", k.bindings());
    // A device that grants 16 storage buffers takes one binding per level.
    let mut o = for_webgpu("mips.comp");
    o.max_storage_buffers = Some(16);
    let apart = Kernel::from_glsl(MIPS, &o).unwrap();
    assert!(apart.binding_named("mips[11]").unwrap().packed.is_empty());
    let size = |l: u32| ((40u32 >> l).max(1), (24u32 >> l).max(1));
    let want: Vec<Vec<u32>> = (0..12)
        .map(|l| {
            let (w, h) = size(l);
            (0..w * h)
                .map(|i| 7 * l + i + l * 100_000 + (i / w) * 100 + i % w)
                .collect()
        })
        .collect();
    for ctx in common::contexts(wgpu::Features::empty()) {
        for kernel in [&k, &apart] {
            let images: Vec<Image> = (0..12)
                .map(|l| {
                    let (w, h) = size(l);
                    let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[w, h], 1);
                    let texels: Vec<u32> = (0..w * h).map(|i| 7 * l + i).collect();
                    Image::from_texels(&ctx, desc.unwrap(), &texels).unwrap()
                })
                .collect();
            let sizes = Buffer::zeroed(&ctx, 96).unwrap();
            let names: Vec<String> = (0..12).map(|l| format!("mips[{l}]")).collect();
            let mut binds: Vec<Bind> = names
                .iter()
                .zip(&images)
                .map(|(n, i)| Bind::named(n, i))
                .collect();
            binds.push(Bind::named("Sizes", &sizes));
            ctx.dispatch(kernel, [5, 3, 1], &binds)
                .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
            for (l, img) in images.iter().enumerate() {
                let got: Vec<u32> = img.read(&ctx).unwrap();
                assert_eq!(got, want[l], "{} level {l}", ctx.backend_name());
            }
            let got: Vec<i32> = sizes.read(&ctx).unwrap();
            let sizes: Vec<i32> = (0..12)
                .flat_map(|l| [size(l).0 as i32, size(l).1 as i32])
                .collect();
            assert_eq!(got, sizes, "{}", ctx.backend_name());
        }
    }
    // One image at two elements of the packed array would not alias: the
    // dispatch says so before submission.
    for ctx in common::contexts(wgpu::Features::empty()) {
        let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[4, 4], 1).unwrap();
        let images: Vec<Image> = (0..11)
            .map(|_| Image::zeroed(&ctx, desc).unwrap())
            .collect();
        let sizes = Buffer::zeroed(&ctx, 96).unwrap();
        let names: Vec<String> = (0..12).map(|l| format!("mips[{l}]")).collect();
        let mut binds: Vec<Bind> = names[..11]
            .iter()
            .zip(&images)
            .map(|(n, i)| Bind::named(n, i))
            .collect();
        binds.push(Bind::named(&names[11], &images[3]));
        binds.push(Bind::named("Sizes", &sizes));
        let e = ctx.dispatch(&k, [1, 1, 1], &binds).unwrap_err().to_string();
        assert!(
            e.contains("`mips[3]` and `mips[11]` are one image"),
            "{}: {e}",
            ctx.backend_name()
        );
    }
    // tests/vulkan/mip_chain_twelve_levels.comp runs such a chain against
    // the original, natively and in the browser.
}

/// A post-processing pass in 32x32 tiles, as image kernels are often
/// written: 1024 invocations, past WebGPU's default 256, and no shared
/// memory, barriers or subgroups. Each invocation records the built-ins it
/// sees.
const TILES: &str = "#version 450
layout(local_size_x = 32, local_size_y = 32) in;
layout(set = 0, binding = 0) buffer Seen { uvec4 seen[]; };
layout(set = 0, binding = 1) buffer Rows { uint per_row[96]; };
void main() {
    uvec3 g = gl_GlobalInvocationID;
    uint at = g.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + g.x;
    seen[at] = uvec4(gl_WorkGroupID.x * 1000u + gl_WorkGroupID.y,
                     gl_LocalInvocationID.x * 100u + gl_LocalInvocationID.y,
                     gl_LocalInvocationIndex,
                     gl_NumWorkGroups.x * 10u + gl_NumWorkGroups.y);
    atomicAdd(per_row[g.y], gl_LocalInvocationIndex + 1u);
}
";

#[test]
fn a_workgroup_past_webgpus_default_limits_is_split_where_nothing_can_tell() {
    let k = webgpu("tiles.comp", TILES);
    assert_eq!(k.workgroup_size(), [32, 32, 1]);
    assert_eq!(k.workgroup_split(), [2, 2, 1]);
    assert_eq!(k.wgsl_workgroup_size(), [16, 16, 1]);
    assert!(
        k.wgsl().contains("@workgroup_size(16, 16, 1)"),
        "{}",
        k.wgsl()
    );
    // What the shader's own workgroups see, on the CPU.
    let groups = [2u32, 3, 1];
    let (w, h) = (64u32, 96u32);
    let mut want_seen = vec![0u32; (w * h * 4) as usize];
    let mut want_rows = vec![0u32; 96];
    for y in 0..h {
        for x in 0..w {
            let (gx, gy, lx, ly) = (x / 32, y / 32, x % 32, y % 32);
            let index = lx + ly * 32;
            let at = ((y * w + x) * 4) as usize;
            want_seen[at..at + 4].copy_from_slice(&[gx * 1000 + gy, lx * 100 + ly, index, 23]);
            want_rows[y as usize] += index + 1;
        }
    }
    let ctx = default_limits_context().expect("an adapter");
    let run = |k: &Kernel| -> atomport::Result<(Vec<u32>, Vec<u32>)> {
        let seen = Buffer::zeroed(&ctx, u64::from(w * h * 16))?;
        let rows = Buffer::zeroed(&ctx, 96 * 4)?;
        ctx.dispatch(k, groups, &[Bind::new(0, 0, &seen), Bind::new(0, 1, &rows)])?;
        Ok((seen.read::<u32>(&ctx)?, rows.read::<u32>(&ctx)?))
    };
    assert_eq!(run(&k).unwrap(), (want_seen.clone(), want_rows.clone()));
    // Loaded back from its translation, it is split the same.
    let t = atomport::Translation::of_kernel(&k);
    let json = t.to_json();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["workgroup_split"], serde_json::json!([2, 2, 1]), "{json}");
    let back = Kernel::from_translation(
        &atomport::Translation::from_json(&json).unwrap(),
        &for_webgpu("tiles.comp"),
    )
    .unwrap();
    assert_eq!(back.workgroup_split(), [2, 2, 1]);
    assert_eq!(run(&back).unwrap(), (want_seen, want_rows));
    // The native target keeps the shader's workgroup, past this device's limit.
    let native = common::glsl(TILES);
    assert_eq!(native.workgroup_split(), [1, 1, 1]);
    let e = run(&native).unwrap_err().to_string();
    assert!(
        e.contains("max_compute_invocations_per_workgroup = 256"),
        "{e}"
    );
    // Counts read on the GPU cannot be multiplied: refused by name.
    let args = Buffer::from_slice(&ctx, &groups).unwrap();
    let seen = Buffer::zeroed(&ctx, u64::from(w * h * 16)).unwrap();
    let rows = Buffer::zeroed(&ctx, 96 * 4).unwrap();
    let e = ctx
        .dispatch_indirect(
            &k,
            &args,
            0,
            &[Bind::new(0, 0, &seen), Bind::new(0, 1, &rows)],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("split each 32x32x1 workgroup into workgroups of 16x16x1"),
        "{e}"
    );
}

#[test]
fn a_wide_workgroup_that_shares_memory_stays_whole_with_a_warning() {
    let src = "#version 450
layout(local_size_x = 512) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
shared uint partial[512];
void main() {
    uint i = gl_LocalInvocationIndex;
    partial[i] = data[gl_GlobalInvocationID.x];
    barrier();
    if (i == 0u) {
        uint s = 0u;
        for (uint k = 0u; k < 512u; k++) s += partial[k];
        data[gl_WorkGroupID.x * 512u] = s;
    }
}
";
    let k = webgpu("reduce.comp", src);
    assert_eq!(k.workgroup_split(), [1, 1, 1]);
    assert_eq!(k.wgsl_workgroup_size(), [512, 1, 1]);
    let w = k
        .warnings()
        .iter()
        .find(|w| w.message.contains("stays whole"))
        .expect("a warning");
    assert_eq!(
        w.message,
        "its workgroup of 512x1x1 invocations is past WebGPU's default limits and stays whole: it has shared memory"
    );
    assert_eq!(w.line, Some(2));
}
