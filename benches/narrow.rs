//! A gather reading `uint16_t` indices (word-addressed: each index is the
//! bits at its offset in a 32-bit word) against the same gather reading
//! `uint` indices, both dispatched through atomport on one device: the
//! median of interleaved runs of each, reported as the ratio u16 / u32.
//!
//! `cargo bench --bench narrow [-- --backend NAME] [-- --runs N]`

#[path = "common/mod.rs"]
mod common;

use atomport::{Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions};

fn gather(index_type: &str, extensions: &str) -> String {
    format!(
        "#version 450
{extensions}
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Indices {{ {index_type} indices[]; }};
layout(std430, binding = 1) readonly buffer Values {{ vec4 values[]; }};
layout(std430, binding = 2) buffer Out {{ vec4 gathered[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < 4u; ++k) {{
        sum += values[uint(indices[i * 4u + k])];
    }}
    gathered[i] = sum;
}}
"
    )
}

fn main() {
    let (backend, runs) = common::backend_and_runs(30);
    let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
    let n: u32 = 1 << 18; // invocations, 4 indices each
    println!(
        "gathering {} vec4s through uint16_t and uint indices on {} ({}), median of {runs} interleaved runs",
        n * 4,
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let narrow = Kernel::from_glsl(
        &gather(
            "uint16_t",
            "#extension GL_EXT_shader_16bit_storage : require\n#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require",
        ),
        &SourceOptions::named("gather16.comp"),
    )
    .unwrap();
    let wide =
        Kernel::from_glsl(&gather("uint", ""), &SourceOptions::named("gather32.comp")).unwrap();
    let values: Vec<f32> = (0..65536 * 4).map(|i| i as f32).collect();
    let idx32: Vec<u32> = (0..n * 4)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 16)
        .collect();
    let idx16: Vec<u16> = idx32.iter().map(|&i| i as u16).collect();
    let values = Buffer::from_slice(&ctx, &values).unwrap();
    let i16b = Buffer::from_slice(&ctx, &idx16).unwrap();
    let i32b = Buffer::from_slice(&ctx, &idx32).unwrap();
    let out16 = Buffer::zeroed(&ctx, u64::from(n) * 16).unwrap();
    let out32 = Buffer::zeroed(&ctx, u64::from(n) * 16).unwrap();
    let groups = [n / 256, 1, 1];
    let b16 = [
        Bind::named("Indices", &i16b),
        Bind::named("Values", &values),
        Bind::named("Out", &out16),
    ];
    let b32 = [
        Bind::named("Indices", &i32b),
        Bind::named("Values", &values),
        Bind::named("Out", &out32),
    ];
    ctx.prepare(&narrow, &b16).unwrap();
    ctx.prepare(&wide, &b32).unwrap();
    let (t16, t32) = common::interleaved(
        runs,
        || common::time(|| ctx.dispatch(&narrow, groups, &b16).unwrap()),
        || common::time(|| ctx.dispatch(&wide, groups, &b32).unwrap()),
    );
    // Both gathers computed the same sums.
    let (a, b): (Vec<f32>, Vec<f32>) = (out16.read(&ctx).unwrap(), out32.read(&ctx).unwrap());
    assert_eq!(a, b, "the uint16_t and uint gathers differ");
    println!(
        "uint16_t indices {:.3} ms, uint indices {:.3} ms: ratio {:.3}",
        t16.as_secs_f64() * 1e3,
        t32.as_secs_f64() * 1e3,
        t16.as_secs_f64() / t32.as_secs_f64()
    );
}
