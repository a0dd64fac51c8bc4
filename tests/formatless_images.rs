//! Formatless storage images (`uniform writeonly image2D img;`, Vulkan's
//! shaderStorageImageWriteWithoutFormat): the format is the bound
//! texture's, one pipeline per format. One kernel is bound to textures of
//! three formats in turn, on every backend present, checked against a CPU
//! model and (on Vulkan) against the original SPIR-V run natively; a
//! texture of the wrong kind is refused naming what the binding takes.

mod common;

use atomport::runtime::texture::{channels, decode_texels};
use atomport::{Bind, Texture, TextureDesc, TextureDim};

const SOURCE: &str = "#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0) uniform writeonly image2D target;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageStore(target, p, vec4(float(p.x) / 8.0, float(p.y) / 4.0, 0.25, 1.0));
}
";

/// GLSL's value for texel (x, y), per channel.
fn model(x: u32, y: u32) -> [f64; 4] {
    [f64::from(x) / 8.0, f64::from(y) / 4.0, 0.25, 1.0]
}

#[test]
fn one_kernel_writes_textures_of_every_bound_format() {
    let k = common::glsl(SOURCE);
    let info = &k.bindings()[0];
    assert!(
        info.texture.as_ref().is_some_and(|t| t.format_from_host),
        "the binding map says the host chooses the format"
    );
    let (w, h) = (8, 4);
    for ctx in common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS) {
        for format in [
            wgpu::TextureFormat::Rgba8Unorm,
            wgpu::TextureFormat::Rgba16Float,
            wgpu::TextureFormat::R32Float,
        ] {
            let desc = TextureDesc::new(TextureDim::D2, format, &[w, h], 1).unwrap();
            let tex = Texture::zeroed(&ctx, desc).unwrap();
            let got = ctx
                .dispatch_and_read(&k, [2, 2, 1], &[Bind::named("target", &tex)])
                .unwrap_or_else(|e| panic!("{} {format:?}: {e}", ctx.backend_name()));
            let values = decode_texels(format, &got[0]).unwrap();
            let n = channels(format).unwrap();
            let tol = if format == wgpu::TextureFormat::Rgba8Unorm {
                0.5 / 255.0
            } else {
                1e-3
            };
            for y in 0..h {
                for x in 0..w {
                    for c in 0..n {
                        let g = values[(y * w + x) as usize * n + c];
                        let want = model(x, y)[c];
                        assert!(
                            (g - want).abs() <= tol,
                            "{} {format:?}: ({x}, {y}) channel {c}: {g} != {want}",
                            ctx.backend_name()
                        );
                    }
                }
            }
            if ctx.info().backend == wgpu::Backend::Vulkan {
                let native = Texture::zeroed(&ctx, desc).unwrap();
                let n = ctx
                    .dispatch_and_read_native(&k, [2, 2, 1], &[Bind::named("target", &native)])
                    .unwrap();
                assert_eq!(n[0], got[0], "{format:?}: native and translated agree");
            }
        }
        // A uint texture is not what a float image takes.
        let desc =
            TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Uint, &[w, h], 1).unwrap();
        let tex = Texture::zeroed(&ctx, desc).unwrap();
        let e = ctx
            .dispatch(&k, [1, 1, 1], &[Bind::named("target", &tex)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("float 2d storage texture of any float format"),
            "{}: {e}",
            ctx.backend_name()
        );
    }
}

#[test]
fn the_cli_takes_the_format_from_the_image_spec_and_needs_one() {
    let path = common::temp_file("formatless", "formatless.comp", SOURCE);
    for b in common::backend_names() {
        let o = common::atomport(&[
            "run",
            &path,
            "--groups",
            "2,2",
            "--image",
            "target=8x4:rgba16f",
            "--backend",
            b,
            "--json",
        ]);
        assert!(o.status.success(), "{b}: {}", common::stderr(&o));
        let o = common::atomport(&["run", &path, "--groups", "1", "--backend", b]);
        common::assert_fails(&o, 2, "target");
        let o = common::atomport(&[
            "run",
            &path,
            "--groups",
            "1",
            "--image",
            "target=8x4:rgba8ui",
            "--backend",
            b,
        ]);
        common::assert_fails(&o, 2, "float");
    }
}
