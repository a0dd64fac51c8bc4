//! atomport inside a wgpu program, on every backend present: the caller's
//! device, the caller's buffers, batches, the caller's encoder, indirect
//! dispatch from counts a pass wrote with atomics, and async dispatch.

mod common;

use std::time::Duration;

use atomport::{BackendChoice, Bind, Buffer, Context, Kernel, SourceOptions, Workgroups};
use common::Rng;

/// A device the test opens itself, with wgpu's default limits.
fn callers_device(
    backend: BackendChoice,
) -> Option<(wgpu::AdapterInfo, wgpu::Device, wgpu::Queue)> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backend.backends();
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .ok()?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("the caller's device"),
        required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
        ..Default::default()
    }))
    .ok()?;
    Some((adapter.get_info(), device, queue))
}

const ADD_ONE: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; };
layout(set = 0, binding = 1) buffer Total { uint total; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    v[i] += 1u;
    atomicAdd(total, v[i]);
}";

#[test]
fn a_callers_device_and_buffers() {
    let k = common::glsl(ADD_ONE);
    let mut ran = 0;
    for b in common::backend_names() {
        let Some((info, device, queue)) = callers_device(b.parse().unwrap()) else {
            println!("skipping {b}: no device with default limits");
            continue;
        };
        ran += 1;
        let ctx = Context::from_wgpu(info, device.clone(), queue.clone(), Duration::from_secs(30))
            .unwrap();
        // The caller's buffer, with the caller's usages.
        let raw = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("caller's data"),
            size: 256 * 4,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::VERTEX,
            mapped_at_creation: false,
        });
        let data = Buffer::from_wgpu(raw).unwrap();
        data.write(&ctx, &(0..256u32).collect::<Vec<_>>()).unwrap();
        let total = Buffer::zeroed_with_usage(&ctx, 4, wgpu::BufferUsages::INDEX).unwrap();
        ctx.dispatch(
            &k,
            [4, 1, 1],
            &[Bind::named("Data", &data), Bind::named("Total", &total)],
        )
        .unwrap();
        assert_eq!(
            data.read::<u32>(&ctx).unwrap(),
            (1..257u32).collect::<Vec<_>>(),
            "{b}"
        );
        assert_eq!(
            total.read::<u32>(&ctx).unwrap(),
            [(1..257u32).sum::<u32>()],
            "{b}"
        );
        // A buffer that cannot be bound, or read, says why.
        let map_only = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let e = Buffer::from_wgpu(map_only).unwrap_err().to_string();
        assert!(e.contains("has neither STORAGE nor UNIFORM"), "{e}");
        let no_src = Buffer::from_wgpu(device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        }))
        .unwrap();
        let e = no_src.read::<u32>(&ctx).unwrap_err().to_string();
        assert!(e.contains("lacks COPY_SRC"), "{e}");
        // Usages a copy needs are named before anything is recorded: wgpu
        // would report them only when the encoder finishes, to the caller's
        // error handler.
        let e = no_src.write(&ctx, &[1u32]).unwrap_err().to_string();
        assert!(e.contains("lacks COPY_DST, which writing it needs"), "{e}");
        let e = ctx
            .batch()
            .copy(&no_src, &data)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lacks COPY_SRC, which copying from it needs"),
            "{e}"
        );
        let e = ctx
            .batch()
            .copy(&data, &no_src)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lacks COPY_DST, which copying into it needs"),
            "{e}"
        );
        let e = ctx
            .batch()
            .submit_and_read(&[&no_src])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lacks COPY_SRC, which reading it back needs"),
            "{e}"
        );
        let tex = device.create_texture(&common::sampled_only_descriptor());
        let tex = atomport::Texture::from_wgpu(tex, atomport::TextureDim::D2).unwrap();
        let e = tex.read(&ctx).unwrap_err().to_string();
        assert!(
            e.contains("lacks COPY_SRC, which reading it back needs"),
            "{e}"
        );
    }
    assert!(ran > 0, "no backend gave a device with default limits");
}

#[test]
fn a_batch_of_dependent_dispatches_equals_separate_ones() {
    let k = common::glsl(ADD_ONE);
    for ctx in common::contexts(wgpu::Features::empty()) {
        let run = |batched: bool| {
            let data = Buffer::from_slice(&ctx, &(0..128u32).collect::<Vec<_>>()).unwrap();
            let total = Buffer::zeroed(&ctx, 4).unwrap();
            let binds = [Bind::named("Data", &data), Bind::named("Total", &total)];
            if batched {
                let mut batch = ctx.batch();
                for _ in 0..3 {
                    batch.dispatch(&k, [2, 1, 1], &binds).unwrap();
                }
                assert_eq!(batch.len(), 3);
                let out = batch.submit_and_read(&[&data, &total]).unwrap();
                (out[0].clone(), out[1].clone())
            } else {
                for _ in 0..3 {
                    ctx.dispatch(&k, [2, 1, 1], &binds).unwrap();
                }
                (
                    bytemuck::cast_slice(&data.read::<u32>(&ctx).unwrap()).to_vec(),
                    bytemuck::cast_slice(&total.read::<u32>(&ctx).unwrap()).to_vec(),
                )
            }
        };
        let (a, b) = (run(true), run(false));
        assert_eq!(a, b, "{}", ctx.backend_name());
        // Each pass adds one, and sums what it made: 3 passes of 128 values.
        let want: u32 = (1..=3u32)
            .map(|p| (0..128u32).map(|v| v + p).sum::<u32>())
            .sum();
        assert_eq!(bytemuck::pod_read_unaligned::<u32>(&a.1), want);
        // A bad dispatch is refused while recording.
        let mut batch = ctx.batch();
        let e = batch
            .dispatch(&k, [2, 1, 1], &[])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is used by the kernel but was not given"), "{e}");
    }
}

/// Pass 1 keeps the values above a threshold with atomicAdd and writes the
/// second pass's workgroup count; pass 2, dispatched indirectly, doubles
/// exactly the kept values.
const COMPACT: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { uint values[]; };
layout(set = 0, binding = 1) buffer Kept { uint count; uint kept[]; };
layout(set = 0, binding = 2) buffer Args { uint groups_x; uint groups_y; uint groups_z; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (values[i] >= 500u) {
        uint slot = atomicAdd(count, 1u);
        kept[slot] = values[i];
        atomicMax(groups_x, (slot + 64u) / 64u);
    }
    if (i == 0u) { groups_y = 1u; groups_z = 1u; }
}";

const DOUBLE: &str = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Kept { uint count; uint kept[]; };
layout(set = 0, binding = 1) buffer Seen { uint seen; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) { kept[i] *= 2u; atomicAdd(seen, 1u); }
}";

#[test]
fn indirect_counts_from_an_atomic_pass() {
    let (compact, double) = (common::glsl(COMPACT), common::glsl(DOUBLE));
    let mut rng = Rng(11);
    let values: Vec<u32> = (0..1024).map(|_| rng.next_u32() % 1000).collect();
    let mut want: Vec<u32> = values
        .iter()
        .filter(|&&v| v >= 500)
        .map(|v| v * 2)
        .collect();
    want.sort_unstable();
    for ctx in common::contexts(wgpu::Features::empty()) {
        for batched in [false, true] {
            let input = Buffer::from_slice(&ctx, &values).unwrap();
            let kept = Buffer::zeroed(&ctx, 4 + 1024 * 4).unwrap();
            let args = Buffer::zeroed(&ctx, 12).unwrap();
            let seen = Buffer::zeroed(&ctx, 4).unwrap();
            let first = [
                Bind::named("Input", &input),
                Bind::named("Kept", &kept),
                Bind::named("Args", &args),
            ];
            let second = [Bind::named("Kept", &kept), Bind::named("Seen", &seen)];
            if batched {
                let mut batch = ctx.batch();
                batch.dispatch(&compact, [16, 1, 1], &first).unwrap();
                batch.dispatch_indirect(&double, &args, 0, &second).unwrap();
                batch.submit().unwrap();
            } else {
                ctx.dispatch(&compact, [16, 1, 1], &first).unwrap();
                ctx.dispatch_indirect(&double, &args, 0, &second).unwrap();
            }
            let k = kept.read::<u32>(&ctx).unwrap();
            let count = k[0] as usize;
            let mut got = k[1..1 + count].to_vec();
            got.sort_unstable();
            assert_eq!(got, want, "{} batched {batched}", ctx.backend_name());
            assert_eq!(seen.read::<u32>(&ctx).unwrap(), [count as u32]);
            assert_eq!(
                args.read::<u32>(&ctx).unwrap(),
                [(count as u32).div_ceil(64), 1, 1]
            );
        }
        // Arguments past the buffer's end are refused before submission.
        let args = Buffer::zeroed(&ctx, 12).unwrap();
        let kept = Buffer::zeroed(&ctx, 8).unwrap();
        let seen = Buffer::zeroed(&ctx, 4).unwrap();
        let e = ctx
            .dispatch_indirect(
                &double,
                &args,
                4,
                &[Bind::named("Kept", &kept), Bind::named("Seen", &seen)],
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("need a 4-byte-aligned offset and 12 bytes in a buffer of 12"),
            "{e}"
        );
    }
}

#[test]
fn dispatch_into_the_callers_encoder_and_async() {
    let k = common::glsl(ADD_ONE);
    for ctx in common::contexts(wgpu::Features::empty()) {
        let data = Buffer::from_slice(&ctx, &[5u32; 64]).unwrap();
        let total = Buffer::zeroed(&ctx, 4).unwrap();
        let binds = [Bind::named("Data", &data), Bind::named("Total", &total)];
        // The caller's encoder: atomport records a pass, the caller copies and submits.
        let copy = Buffer::zeroed(&ctx, 64 * 4).unwrap();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        ctx.encode_into(&mut encoder, &k, Workgroups::Count([1, 1, 1]), &binds)
            .unwrap();
        encoder.copy_buffer_to_buffer(data.raw(), 0, copy.raw(), 0, 64 * 4);
        ctx.queue().submit([encoder.finish()]);
        assert_eq!(copy.read::<u32>(&ctx).unwrap(), [6u32; 64]);
        // Async, driven by the simplest executor.
        pollster::block_on(ctx.dispatch_async(&k, [1, 1, 1], &binds)).unwrap();
        let read = pollster::block_on(data.read_async::<u32>(&ctx)).unwrap();
        assert_eq!(read, [7u32; 64], "{}", ctx.backend_name());
        assert_eq!(total.read::<u32>(&ctx).unwrap(), [6 * 64 + 7 * 64]);
    }
}

#[test]
fn pipelines_are_bounded_per_kernel_and_released_with_it() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() { imageAtomicAdd(img, ivec2(0), 1u); }";
    for ctx in common::contexts(wgpu::Features::empty()) {
        let k = common::glsl(src);
        let other = common::glsl(ADD_ONE);
        ctx.set_pipeline_limit(4);
        // One pipeline per image size (the sizes are override constants).
        for w in 1..=10u32 {
            let desc = atomport::ImageDesc::new(
                atomport::ImageDim::D2,
                atomport::ImageFormat::R32Uint,
                &[w, 2],
                1,
            )
            .unwrap();
            let img = atomport::Image::zeroed(&ctx, desc).unwrap();
            ctx.dispatch(&k, [1, 1, 1], &[Bind::named("img", &img)])
                .unwrap();
            assert!(ctx.cached_pipelines() <= 4, "{}", ctx.cached_pipelines());
            // The most recent size is still cached and right.
            assert_eq!(img.read::<u32>(&ctx).unwrap()[0], 1);
        }
        let data = Buffer::zeroed(&ctx, 256).unwrap();
        let total = Buffer::zeroed(&ctx, 4).unwrap();
        ctx.dispatch(
            &other,
            [1, 1, 1],
            &[Bind::named("Data", &data), Bind::named("Total", &total)],
        )
        .unwrap();
        assert_eq!(ctx.cached_pipelines(), 5);
        drop(k);
        assert_eq!(ctx.cached_pipelines(), 1, "{}", ctx.backend_name());
        drop(other);
        assert_eq!(ctx.cached_pipelines(), 0);
    }
}

#[test]
fn translator_api_and_build_script_helper() {
    let dir = common::scratch().join(format!("atomport-build-{}", std::process::id()));
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(
        shaders.join("common.glsl"),
        "uint bump(uint v) { return v + 1u; }\n",
    )
    .unwrap();
    std::fs::write(
        shaders.join("count.comp"),
        "#version 450\n#include \"common.glsl\"\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer C { uint c; };\nvoid main() { atomicAdd(c, bump(0u)); }\n",
    )
    .unwrap();
    std::fs::write(
        shaders.join("image.comp"),
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0, r32ui) uniform uimage2D img;\nvoid main() { imageAtomicAdd(img, ivec2(0), 1u); }\n",
    )
    .unwrap();
    std::fs::write(shaders.join("notes.txt"), "not a shader").unwrap();
    // A project naming its stages `.glsl`: the compute one is translated,
    // the fragment one left alone.
    std::fs::write(
        shaders.join("blur.comp.glsl"),
        "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 0) buffer V { float v[]; };\nvoid main() { uint i = gl_GlobalInvocationID.x; v[i] = 0.5 * v[i]; }\n",
    )
    .unwrap();
    std::fs::write(
        shaders.join("present.frag.glsl"),
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let (written, reruns) =
        atomport::build::translate_dir_into(&shaders, &out, &SourceOptions::default()).unwrap();
    assert_eq!(
        written,
        [
            out.join("blur.wgsl"),
            out.join("count.wgsl"),
            out.join("image.wgsl")
        ]
    );
    // Two files of one kernel name: refused, naming both.
    std::fs::copy(shaders.join("count.comp"), shaders.join("count.comp.glsl")).unwrap();
    let e = atomport::build::translate_dir_into(&shaders, &out, &SourceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("count.comp and ")
            && e.contains("count.comp.glsl give one kernel name, `count`"),
        "{e}"
    );
    std::fs::remove_file(shaders.join("count.comp.glsl")).unwrap();
    // The folder, both shaders and the include.
    assert!(reruns.contains(&shaders));
    assert!(reruns.contains(&shaders.join("common.glsl")), "{reruns:?}");
    assert!(reruns.contains(&shaders.join("image.comp")));
    for w in &written {
        let text = std::fs::read_to_string(w).unwrap();
        naga::front::wgsl::parse_str(&text).unwrap();
    }
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("image.bindings.json")).unwrap())
            .unwrap();
    assert_eq!(map["overrides"].as_array().unwrap().len(), 4);
    assert_eq!(map["bindings"][0]["kind"], "image");
    // The shipped WGSL runs as it is; the texel buffer is laid out without a context.
    let t = atomport::translate(
        std::fs::read(shaders.join("image.comp"))
            .unwrap()
            .as_slice(),
        atomport::Lang::Glsl,
        &SourceOptions::named("image.comp"),
    )
    .unwrap();
    let desc = atomport::ImageDesc::new(
        atomport::ImageDim::D2,
        atomport::ImageFormat::R32Uint,
        &[3, 2],
        1,
    )
    .unwrap();
    let words = desc.texel_buffer_words(|i| i as u32 * 10).unwrap();
    assert_eq!(words, [3, 2, 1, 1, 0, 10, 20, 30, 40, 50, 0]);
    for ctx in common::contexts(wgpu::Features::empty()) {
        let module = ctx
            .device()
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(t.wgsl.clone().into()),
            });
        let sizes: Vec<(String, f64)> = t
            .overrides
            .iter()
            .zip([3.0, 2.0, 1.0, 1.0])
            .map(|(id, v)| (id.to_string(), v))
            .collect();
        let constants: Vec<(&str, f64)> = sizes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let pipeline = ctx
            .device()
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some(&t.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            });
        let buf = Buffer::from_slice(&ctx, &words).unwrap();
        let group = ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buf.raw().as_entire_binding(),
            }],
        });
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        ctx.queue().submit([encoder.finish()]);
        // Texel (0, 0) is word 4 (after the 4-word header).
        assert_eq!(
            buf.read::<u32>(&ctx).unwrap()[4],
            1,
            "{}",
            ctx.backend_name()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_carry_where_and_say_how_to_fix() {
    // A shader error's file, line and column are fields.
    let e = Kernel::from_glsl(
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { int x = ; }\n",
        &SourceOptions::named("broken.comp"),
    )
    .unwrap_err();
    let atomport::Error::Shader(s) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (s.file.as_deref(), s.line),
        (Some("broken.comp"), Some(3)),
        "{s:?}"
    );
    let e = Kernel::from_wgsl(
        "@compute @workgroup_size(1)\nfn main() {\n  let x = 1u +;\n}\n",
        &SourceOptions::named("broken.wgsl"),
    )
    .unwrap_err();
    let atomport::Error::Shader(s) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (s.file.as_deref(), s.line),
        (Some("broken.wgsl"), Some(3)),
        "{s:?}"
    );
    assert!(s.column.is_some(), "{s:?}");
    // A kernel needing a feature the context was not opened with.
    let k = Kernel::from_wgsl(
        "@group(0) @binding(0) var<storage, read_write> v: array<u64>;
         @compute @workgroup_size(1) fn main() { v[0] = v[0] + 1lu; }",
        &SourceOptions::named("int64.wgsl"),
    )
    .unwrap();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let b = Buffer::zeroed(&ctx, 8).unwrap();
        let e = ctx
            .dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &b)])
            .unwrap_err();
        match e {
            atomport::Error::FeatureNotRequested { ref feature } => {
                assert!(feature.starts_with("SHADER_INT64"), "{e}");
                assert!(e.to_string().contains("kernel.required_features()"), "{e}");
            }
            atomport::Error::MissingFeature { .. } => {
                println!("{}: the adapter has no SHADER_INT64", ctx.backend_name())
            }
            other => panic!("{other}"),
        }
    }
}
