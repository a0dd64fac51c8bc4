//! Doubles (`double`, `dvec2`) as WGSL `f64` where the adapter has
//! SHADER_F64 (lavapipe's Vulkan): checked against a CPU model and the
//! native run; where it lacks it (llvmpipe GL), the dispatch fails naming
//! the feature.

mod common;

use atomport::{Bind, Buffer, Error, Kernel, SourceOptions};

const KERNEL: &str = "#version 450
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Values { double d[]; };
layout(std430, binding = 1) buffer Narrowed { float f[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    double x = d[i] * 1.0000001LF + double(i) / 3.0LF;
    dvec2 v = dvec2(x, x * x);
    d[i] = v.x + v.y;
    f[i] = float(x);
}
";

#[test]
fn doubles_compute_in_f64_or_name_the_feature() {
    let k = Kernel::from_glsl(KERNEL, &SourceOptions::named("doubles.comp")).unwrap();
    assert!(k.required_features().contains(wgpu::Features::SHADER_F64));
    let input: Vec<f64> = (0..16).map(|i| f64::from(i) * 1.5 - 7.25).collect();
    let xs: Vec<f64> = input
        .iter()
        .enumerate()
        .map(|(i, d)| d * 1.0000001 + i as f64 / 3.0)
        .collect();
    let want_d: Vec<f64> = xs.iter().map(|x| x + x * x).collect();
    let want_f: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let mut ran = 0;
    for ctx in common::contexts_with_available(
        wgpu::Features::SHADER_F64 | wgpu::Features::PASSTHROUGH_SHADERS,
    ) {
        for native in [false, true] {
            if native && !ctx.has_native() {
                continue;
            }
            let db = Buffer::from_slice(&ctx, &input).unwrap();
            let fb = Buffer::zeroed(&ctx, 64).unwrap();
            let binds = [Bind::named("Values", &db), Bind::named("Narrowed", &fb)];
            let backend = format!("{} (native: {native})", ctx.backend_name());
            let result = if native {
                ctx.dispatch_and_read_native(&k, [1, 1, 1], &binds)
            } else {
                ctx.dispatch_and_read(&k, [1, 1, 1], &binds)
            };
            if !ctx.device().features().contains(wgpu::Features::SHADER_F64) {
                match result {
                    Err(e @ Error::MissingFeature { .. }) => {
                        assert!(e.to_string().contains("SHADER_F64"), "{backend}: {e}");
                    }
                    other => panic!("{backend}: expected the missing feature, got {other:?}"),
                }
                break;
            }
            result.unwrap_or_else(|e| panic!("{backend}: {e}"));
            let d: Vec<f64> = db.read(&ctx).unwrap();
            let f: Vec<f32> = fb.read(&ctx).unwrap();
            assert_eq!(d, want_d, "{backend}");
            assert_eq!(f, want_f, "{backend}");
            ran += 1;
        }
    }
    println!("doubles ran {ran} times");
}
