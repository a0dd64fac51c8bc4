//! GL_KHR_memory_scope_semantics: `atomicLoad`/`atomicStore` on every kind
//! of memory and `imageAtomicLoad`/`imageAtomicStore` on every image type
//! and 32-bit format, on every backend present, against a CPU model; the
//! acquire/release forms warn as the other atomics' do.

mod common;

use atomport::validate::conformance::{Scale, coord_expr, image_size};
use atomport::{Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Kernel, SourceOptions};

fn image_kernel(dim: ImageDim, format: ImageFormat) -> Kernel {
    let (p, s) = coord_expr(dim);
    let (prefix, ty, value) = match format {
        ImageFormat::R32Uint => ("u", "uint", "v * 2u + 1u"),
        ImageFormat::R32Sint => ("i", "int", "v * 2 + 1"),
        _ => ("", "float", "v * 2.0 + 1.0"),
    };
    let src = format!(
        "#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, {fmt}) uniform {prefix}{glsl} img;
layout(set = 0, binding = 1) readonly buffer Coords {{ int coords[]; }};
layout(set = 0, binding = 2) buffer Loaded {{ {ty} loaded[]; }};
layout(set = 0, binding = 3) uniform Count {{ uint texels; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= texels) {{
        return;
    }}
    {ty} v = imageAtomicLoad(img, {p}, {s}gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    loaded[i] = v;
    imageAtomicStore(img, {p}, {s}{value}, gl_ScopeDevice, gl_StorageSemanticsImage, gl_SemanticsRelease);
}}
",
        fmt = format.name(),
        glsl = dim.glsl_name(),
    );
    Kernel::from_glsl(
        &src,
        &SourceOptions::named(format!("{}_{}.comp", dim.name(), format.name())),
    )
    .unwrap_or_else(|e| panic!("{} {}: {e}\n{src}", dim.name(), format.name()))
}

#[test]
fn image_atomic_load_and_store_on_every_image_type() {
    for dim in ImageDim::ALL {
        for format in [
            ImageFormat::R32Uint,
            ImageFormat::R32Sint,
            ImageFormat::R32Float,
        ] {
            let k = image_kernel(dim, format);
            assert!(
                k.warnings().iter().any(|w| w.message.contains("release")),
                "{}: {:?}",
                dim.name(),
                k.warnings()
            );
            let (size, samples) = image_size(dim, Scale::Small);
            let desc = ImageDesc::new(dim, format, &size, samples).unwrap();
            let n = desc.texel_count();
            let mut coords = Vec::with_capacity(4 * n);
            for i in 0..n {
                let a =
                    atomport::TexelAddress::from_index(i, desc.width, desc.height, desc.layers());
                let mut c = vec![a.x as i32];
                if dim.has_height() {
                    c.push(a.y as i32);
                }
                if dim.layer_coordinate().is_some() {
                    c.push(a.layer as i32);
                }
                c.resize(3, 0);
                c.push(a.sample as i32);
                coords.extend(c);
            }
            // Texel i starts as i + 10 (as its format's bits).
            let init: Vec<u32> = (0..n)
                .map(|i| match format {
                    ImageFormat::R32Float => (i as f32 + 10.0).to_bits(),
                    _ => i as u32 + 10,
                })
                .collect();
            for ctx in common::contexts(k.required_features()) {
                let img = Image::from_texels(&ctx, desc, &init).unwrap();
                let c = Buffer::from_slice(&ctx, &coords).unwrap();
                let loaded = Buffer::zeroed(&ctx, 4 * n as u64).unwrap();
                let count = Buffer::from_slice(&ctx, &[n as u32, 0, 0, 0]).unwrap();
                ctx.dispatch(
                    &k,
                    [(n as u32).div_ceil(64), 1, 1],
                    &[
                        Bind::image(0, 0, &img),
                        Bind::named("Coords", &c),
                        Bind::named("Loaded", &loaded),
                        Bind::named("Count", &count),
                    ],
                )
                .unwrap_or_else(|e| panic!("{} {}: {e}", dim.name(), format.name()));
                let got_loaded: Vec<u32> = loaded.read(&ctx).unwrap();
                let got: Vec<u32> = img.read(&ctx).unwrap();
                let what = format!("{} {} on {}", dim.name(), format.name(), ctx.backend_name());
                assert_eq!(got_loaded, init, "{what}: loaded");
                let want: Vec<u32> = init
                    .iter()
                    .map(|&b| match format {
                        ImageFormat::R32Float => (f32::from_bits(b) * 2.0 + 1.0).to_bits(),
                        _ => b * 2 + 1,
                    })
                    .collect();
                assert_eq!(got, want, "{what}: stored");
            }
        }
    }
}

#[test]
fn atomic_load_and_store_on_every_kind_of_memory() {
    let src = "#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Mem { uint member; uvec4 v; int values[]; } mem;
shared int partial[64];
void main() {
    uint i = gl_LocalInvocationIndex;
    uint g = gl_WorkGroupID.x;
    atomicStore(partial[i], atomicLoad(mem.values[g * 64u + i], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) * 3, gl_ScopeWorkgroup, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    barrier();
    int mine = atomicLoad(partial[63u - i], gl_ScopeWorkgroup, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    atomicStore(mem.values[g * 64u + i], mine, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    if (g == 1u && i == 5u) {
        atomicStore(mem.member, atomicLoad(mem.v.z, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) + 1u, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
        atomicStore(mem.v.y, 77u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    }
}
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("scoped.comp")).unwrap();
    assert!(k.warnings().iter().any(|w| w.message.contains("acquire")));
    for ctx in common::contexts(k.required_features()) {
        // member, pad ×3, v (4 words), values[128]
        let mut words: Vec<i32> = vec![0, 0, 0, 0, 1, 2, 40, 4];
        words.extend((0..128).map(|i| i - 50));
        let b = Buffer::from_slice(&ctx, &words).unwrap();
        ctx.dispatch(&k, [2, 1, 1], &[Bind::named("Mem", &b)])
            .unwrap();
        let got: Vec<i32> = b.read(&ctx).unwrap();
        assert_eq!(
            &got[..8],
            &[41, 0, 0, 0, 1, 77, 40, 4],
            "{}",
            ctx.backend_name()
        );
        for g in 0..2 {
            for i in 0..64 {
                let from = g * 64 + 63 - i;
                assert_eq!(
                    got[8 + g * 64 + i],
                    (from as i32 - 50) * 3,
                    "{}",
                    ctx.backend_name()
                );
            }
        }
    }
}
