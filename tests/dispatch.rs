//! The dispatch layer on real adapters: a histogram checked against a CPU
//! count, and every error the layer promises, checked before submission.

mod common;

use atomport::{Bind, Buffer, Error, Kernel, SourceOptions};
use common::{Rng, contexts, wgsl};

const HISTOGRAM: &str = include_str!("../wgsl/histogram.wgsl");

#[test]
fn histogram_of_a_million_inputs_matches_cpu_count() {
    let kernel = wgsl(HISTOGRAM);
    let mut rng = Rng(7);
    // Skewed inputs, so that some bins are heavily contended.
    let input: Vec<u32> = (0..1 << 20)
        .map(|_| {
            let r = rng.next_u32();
            if r.is_multiple_of(4) { 17 } else { r >> 3 }
        })
        .collect();
    let mut expected = [0u32; 256];
    for v in &input {
        expected[(v & 255) as usize] += 1;
    }
    for ctx in contexts(kernel.required_features()) {
        let inp = Buffer::from_slice(&ctx, &input).unwrap();
        let bins = Buffer::zeroed(&ctx, 256 * 4).unwrap();
        ctx.dispatch(
            &kernel,
            [(1 << 20) / 256, 1, 1],
            &[Bind::new(0, 0, &inp), Bind::new(0, 1, &bins)],
        )
        .unwrap();
        let got: Vec<u32> = bins.read(&ctx).unwrap();
        assert_eq!(got, expected, "histogram on {}", ctx.backend_name());
    }
}

#[test]
fn dispatch_and_read_returns_every_buffer_in_bind_order() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let inp = Buffer::from_slice(&ctx, &[1u32, 1, 2, 300]).unwrap();
        let bins = Buffer::filled(&ctx, 5u32, 256).unwrap();
        let out = ctx
            .dispatch_and_read(
                &kernel,
                [1, 1, 1],
                &[Bind::new(0, 1, &bins), Bind::new(0, 0, &inp)],
            )
            .unwrap();
        let bins: Vec<u32> = bytemuck::cast_slice(&out[0]).to_vec();
        assert_eq!(&bins[..4], &[5, 7, 6, 5]);
        assert_eq!(bins[300 & 255], 6);
        assert_eq!(bytemuck::cast_slice::<u8, u32>(&out[1]), &[1, 1, 2, 300]);
    }
}

#[test]
fn async_read_matches_blocking_read() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let data: Vec<u32> = (0..1000).collect();
        let buf = Buffer::from_slice(&ctx, &data).unwrap();
        let got: Vec<u32> = pollster::block_on(buf.read_async(&ctx)).unwrap();
        assert_eq!(got, data);
        buf.write(&ctx, &[9u32, 8]).unwrap();
        let e = buf.write(&ctx, &vec![0u32; 1001]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "write of 4004 bytes into a buffer of 4000 bytes"
        );
        assert_eq!(&buf.read::<u32>(&ctx).unwrap()[..3], &[9, 8, 2]);
    }
}

#[test]
fn missing_binding_is_named() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let inp = Buffer::zeroed(&ctx, 1024).unwrap();
        let e = ctx
            .dispatch(&kernel, [1, 1, 1], &[Bind::new(0, 0, &inp)])
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::MissingBinding {
                    group: 0,
                    binding: 1,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "binding 0.1 (`bins`) is used by the kernel but was not given"
        );
    }
}

#[test]
fn binding_the_kernel_does_not_use_is_refused() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let a = Buffer::zeroed(&ctx, 1024).unwrap();
        let b = Buffer::zeroed(&ctx, 1024).unwrap();
        let c = Buffer::zeroed(&ctx, 1024).unwrap();
        let e = ctx
            .dispatch(
                &kernel,
                [1, 1, 1],
                &[
                    Bind::new(0, 0, &a),
                    Bind::new(0, 1, &b),
                    Bind::new(1, 0, &c),
                ],
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "binding 1.0 was given but the kernel does not use it"
        );
    }
}

#[test]
fn buffer_smaller_than_layout_is_refused() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let inp = Buffer::zeroed(&ctx, 16).unwrap();
        let bins = Buffer::zeroed(&ctx, 255 * 4).unwrap();
        let e = ctx
            .dispatch(
                &kernel,
                [1, 1, 1],
                &[Bind::new(0, 0, &inp), Bind::new(0, 1, &bins)],
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "binding 0.1 (`bins`) needs at least 1024 bytes but the buffer has 1020"
        );
    }
}

#[test]
fn too_many_workgroups_is_refused() {
    let kernel = wgsl(HISTOGRAM);
    for ctx in contexts(kernel.required_features()) {
        let limit = ctx.limits().max_compute_workgroups_per_dimension;
        let inp = Buffer::zeroed(&ctx, 16).unwrap();
        let bins = Buffer::zeroed(&ctx, 1024).unwrap();
        let e = ctx
            .dispatch(
                &kernel,
                [1, limit + 1, 1],
                &[Bind::new(0, 0, &inp), Bind::new(0, 1, &bins)],
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "workgroup count in y is {}, over the adapter's limit max_compute_workgroups_per_dimension = {limit}",
                limit + 1
            )
        );
    }
}

#[test]
fn buffer_bound_to_a_texture_is_the_wrong_kind() {
    let kernel = wgsl(
        "@group(0) @binding(0) var img: texture_storage_2d<r32uint, write>;
         @compute @workgroup_size(1) fn main() { textureStore(img, vec2(0, 0), vec4(1u)); }",
    );
    for ctx in contexts(kernel.required_features()) {
        let b = Buffer::zeroed(&ctx, 64).unwrap();
        let e = ctx
            .dispatch(&kernel, [1, 1, 1], &[Bind::new(0, 0, &b)])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "binding 0.0 (`img`) is a r32uint 2d storage texture in the kernel but was given a buffer"
        );
    }
}

#[test]
fn wgsl_syntax_error_names_file_line_and_column() {
    let src = "@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n\
               @compute @workgroup_size(1) fn main() {\n    b[0] = 1u +;\n}\n";
    let e = Kernel::from_wgsl(src, &SourceOptions::named("bad.wgsl")).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::Shader(_)));
    assert!(text.contains("bad.wgsl:3:"), "{text}");
    assert!(text.contains("expected expression"), "{text}");
}

#[test]
fn wgsl_validation_error_names_the_line() {
    let src = "@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n\
               @compute @workgroup_size(1) fn main() {\n    let x: f32 = b[0];\n}\n";
    let text = Kernel::from_wgsl(src, &SourceOptions::named("types.wgsl"))
        .unwrap_err()
        .to_string();
    assert!(text.contains("types.wgsl:3:"), "{text}");
}

#[test]
fn entry_point_choice() {
    let src = "@compute @workgroup_size(8, 2) fn a() {}\n@compute @workgroup_size(4) fn b() {}\n";
    let e = Kernel::from_wgsl(src, &SourceOptions::named("two.wgsl")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "two.wgsl: several compute entry points (a, b); name the one to use (SourceOptions::entry)"
    );
    let k = Kernel::from_wgsl(
        src,
        &SourceOptions::named("two.wgsl").with_entry(Some("a".into())),
    )
    .unwrap();
    assert_eq!((k.entry(), k.workgroup_size()), ("a", [8, 2, 1]));
    let e = Kernel::from_wgsl(
        src,
        &SourceOptions::named("two.wgsl").with_entry(Some("c".into())),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "two.wgsl: no compute entry point named `c` (found: a, b)"
    );
}

#[test]
fn binding_map_is_reflected() {
    let k = wgsl(
        "struct P { n: u32, scale: f32 }
         @group(0) @binding(0) var<storage, read> input: array<i32>;
         @group(1) @binding(3) var<storage, read_write> out: array<atomic<u32>, 16>;
         @group(0) @binding(2) var<uniform> p: P;
         @group(2) @binding(0) var<storage, read_write> unused: array<f32>;
         @compute @workgroup_size(64) fn main() { atomicAdd(&out[p.n], u32(input[0])); }",
    );
    let b = k.bindings();
    assert_eq!(b.len(), 3, "only the bindings the entry point uses: {b:?}");
    let summary: Vec<_> = b
        .iter()
        .map(|b| {
            (
                b.group,
                b.binding,
                b.name.as_deref().unwrap(),
                b.kind,
                b.element,
                b.min_size,
            )
        })
        .collect();
    use atomport::{BindingKind as K, ScalarType as T};
    assert_eq!(
        summary,
        vec![
            (0, 0, "input", K::StorageRead, Some(T::I32), 4),
            (0, 2, "p", K::Uniform, None, 8),
            (1, 3, "out", K::StorageReadWrite, Some(T::U32), 64),
        ]
    );
}

#[test]
fn unknown_backend_is_an_error() {
    let e = "directx9".parse::<atomport::BackendChoice>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown backend `directx9` (expected one of: vulkan, metal, dx12, gl, all)"
    );
}

#[test]
fn adapter_filter_that_matches_nothing_says_what_was_tried() {
    let opts = atomport::ContextOptions {
        adapter: Some("no such adapter 42".into()),
        ..Default::default()
    };
    let e = atomport::Context::new(&opts).unwrap_err().to_string();
    assert!(e.starts_with("no adapter found (tried backends: vulkan, metal, dx12, gl; adapter name containing `no such adapter 42`)"), "{e}");
    assert!(e.contains("apt-get install mesa-vulkan-drivers"), "{e}");
}

#[test]
fn int64_atomic_features_follow_the_functions_used() {
    let needs = |body: &str| {
        wgsl(&format!(
            "@group(0) @binding(0) var<storage, read_write> x: atomic<u64>;
             @compute @workgroup_size(1) fn main() {{ {body} }}"
        ))
        .required_features()
    };
    use wgpu::Features as F;
    // An add whose result is unused still needs every 64-bit atomic op.
    let add = needs("atomicAdd(&x, 1lu);");
    assert!(
        add.contains(F::SHADER_INT64 | F::SHADER_INT64_ATOMIC_ALL_OPS),
        "{add:?}"
    );
    // min/max with unused results need only the min/max feature.
    let max = needs("atomicMax(&x, 1lu); atomicMin(&x, 2lu);");
    assert!(max.contains(F::SHADER_INT64_ATOMIC_MIN_MAX), "{max:?}");
    assert!(!max.contains(F::SHADER_INT64_ATOMIC_ALL_OPS), "{max:?}");
}
