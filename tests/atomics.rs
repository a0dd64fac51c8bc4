//! Heavy contention on buffer memory (thousands of calls on one location,
//! hundreds on each array and shared element) for every function × {int,
//! uint} × {member, array element, vector component, shared}, through the
//! conformance machinery, written as Vulkan and as OpenGL GLSL; and float
//! atomics both emulated and native.

mod common;

use atomport::validate::conformance::{Memory, RunOptions, Scale, Variant, matrix, run_case};
use atomport::{Bind, Buffer, Context, Kernel, SourceOptions};

#[test]
fn heavy_contention_on_every_buffer_memory_kind() {
    let cases: Vec<_> = matrix()
        .into_iter()
        .filter(|c| {
            !matches!(c.memory, Memory::Image(_))
                && matches!(c.variant, Variant::Standard | Variant::FloatAdd)
        })
        .collect();
    // Vulkan and OpenGL GLSL; float add, min and max on member, array and
    // shared memory.
    assert_eq!(cases.len(), 8 * 2 * 4 * 2 + 3 * 3);
    for ctx in common::contexts(wgpu::Features::empty()) {
        let failed: Vec<String> = cases
            .iter()
            .map(|c| run_case(&ctx, c, Scale::Heavy, &RunOptions::default()))
            .filter(|o| !o.passed)
            .map(|o| format!("{}: {}", o.name, o.detail))
            .collect();
        assert!(
            failed.is_empty(),
            "on {}:\n{}",
            ctx.backend_name(),
            failed.join("\n")
        );
    }
}
/// GL_EXT_shader_atomic_float atomicAdd and atomicExchange: emulated by a
/// compare-exchange loop on the bits everywhere, and native where the
/// adapter has SHADER_FLOAT32_ATOMIC. Arguments are small integers, so every
/// partial sum is exact whatever the order.
#[test]
fn float_add_and_exchange() {
    let src = "#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Mem { float sum; float last; float arr[4]; } mem;
layout(set = 0, binding = 1) readonly buffer Args { float args[]; };
layout(set = 0, binding = 2) writeonly buffer Rets { float added[]; } rets;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = gl_NumWorkGroups.x * 64u;
    rets.added[i] = atomicAdd(mem.sum, args[i]);
    rets.added[n + i] = atomicAdd(mem.arr[i % 4u], args[i]);
    rets.added[2u * n + i] = atomicExchange(mem.last, args[i]);
}
";
    let n = 1024usize;
    let args: Vec<f32> = (0..n).map(|i| (1 + i % 13) as f32).collect();
    let initial = [0.5f32, -1.0, 10.0, 20.0, 30.0, 40.0];
    for ctx in common::contexts(wgpu::Features::empty()) {
        let natives: &[bool] = if ctx
            .device()
            .features()
            .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC)
        {
            &[false, true]
        } else {
            &[false]
        };
        // Contexts are opened without optional features; open one with it for the native case.
        for &native in natives {
            let mut opts = SourceOptions::named("float.comp");
            opts.native_float_atomics = native;
            let kernel = Kernel::from_glsl(src, &opts).unwrap();
            assert_eq!(
                kernel.wgsl().contains("atomic<f32>"),
                native,
                "{}",
                kernel.wgsl()
            );
            let native_ctx;
            let ctx = if native {
                native_ctx = Context::new(
                    &atomport::ContextOptions::default()
                        .with_backend(ctx.backend_name().parse().unwrap())
                        .with_features(kernel.required_features()),
                )
                .unwrap();
                &native_ctx
            } else {
                &ctx
            };
            let what = format!("{} native={native}", ctx.backend_name());
            let mem = Buffer::from_slice(ctx, &initial).unwrap();
            let a = Buffer::from_slice(ctx, &args).unwrap();
            let rets = Buffer::zeroed(ctx, (3 * n * 4) as u64).unwrap();
            let out = ctx
                .dispatch_and_read(
                    &kernel,
                    [(n / 64) as u32, 1, 1],
                    &[
                        Bind::new(0, 0, &mem),
                        Bind::new(0, 1, &a),
                        Bind::new(0, 2, &rets),
                    ],
                )
                .unwrap();
            let mem: &[f32] = bytemuck::cast_slice(&out[0]);
            let rets: &[f32] = bytemuck::cast_slice(&out[2]);
            let total: f32 = args.iter().sum();
            assert_eq!(mem[0], initial[0] + total, "{what}: sum");
            for l in 0..4 {
                let part: f32 = args.iter().skip(l).step_by(4).sum();
                assert_eq!(mem[2 + l], initial[2 + l] + part, "{what}: arr[{l}]");
            }
            // Every add returned a distinct partial sum, the smallest being the initial value.
            let mut added: Vec<f32> = rets[..n].to_vec();
            added.sort_by(f32::total_cmp);
            assert_eq!(added[0], initial[0], "{what}");
            assert!(
                added.windows(2).all(|w| w[0] < w[1]),
                "{what}: returned partial sums repeat"
            );
            let mut lhs: Vec<u32> = rets[2 * n..].iter().map(|f| f.to_bits()).collect();
            lhs.push(mem[1].to_bits());
            let mut rhs: Vec<u32> = args.iter().map(|f| f.to_bits()).collect();
            rhs.push(initial[1].to_bits());
            lhs.sort_unstable();
            rhs.sort_unstable();
            assert_eq!(lhs, rhs, "{what}: exchange permutation");
        }
    }
}
