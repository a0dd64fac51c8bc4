//! Image atomics beyond the conformance matrix: texel addressing of every
//! image type, imageLoad/imageStore/imageSize agreeing with the atomics on
//! the same texels, texture interop round trips, and the checks on images.

mod common;

use atomport::validate::conformance::{Scale, image_size};
use atomport::{
    Bind, Error, Image, ImageDesc, ImageDim, ImageFormat, Kernel, SourceOptions, TexelAddress,
    Texture, TextureDesc, TextureDim,
};

fn desc(dim: ImageDim, format: ImageFormat) -> ImageDesc {
    let (size, samples) = image_size(dim, Scale::Small);
    ImageDesc::new(dim, format, &size, samples).unwrap()
}

/// GLSL that derives (x, y, layer, sample) of invocation i from imageSize and
/// builds P the way the GLSL type takes it.
fn coordinate_prelude(dim: ImageDim) -> String {
    let size = match dim.size_count() {
        1 => "uvec3(uint(imageSize(img)), 1u, 1u)".to_string(),
        2 if dim == ImageDim::D1Array => {
            "uvec3(uint(imageSize(img).x), 1u, uint(imageSize(img).y))".to_string()
        }
        2 => "uvec3(uvec2(imageSize(img)), 1u)".to_string(),
        _ => "uvec3(imageSize(img))".to_string(),
    };
    let layers = match dim {
        ImageDim::Cube => "6u".to_string(),
        ImageDim::CubeArray => "sz.z * 6u".to_string(),
        _ => "sz.z".to_string(),
    };
    let samples = if dim.is_multisampled() {
        "uint(imageSamples(img))"
    } else {
        "1u"
    };
    let p = match dim.coordinate_count() {
        1 => "int(x)",
        2 if dim == ImageDim::D1Array => "ivec2(x, layer)",
        2 => "ivec2(x, y)",
        _ => "ivec3(x, y, layer)",
    };
    let s = if dim.is_multisampled() {
        ", int(smp)"
    } else {
        ""
    };
    format!(
        "    uvec3 sz = {size};
    uint layers = {layers};
    uint total = sz.x * sz.y * layers * {samples};
    uint i = gl_GlobalInvocationID.x;
    if (i >= total) return;
    uint x = i % sz.x;
    uint y = (i / sz.x) % sz.y;
    uint layer = (i / (sz.x * sz.y)) % layers;
    uint smp = i / (sz.x * sz.y * layers);
#define P {p}{s}
"
    )
}

fn encode(a: TexelAddress) -> u32 {
    a.x | a.y << 8 | a.layer << 16 | a.sample << 24
}

#[test]
fn each_texel_lands_at_its_coordinates() {
    for ctx in common::contexts(wgpu::Features::empty()) {
        for dim in ImageDim::ALL {
            for (how, write) in [
                // The never-taken atomic makes the image a texel buffer on every shape.
                (
                    "imageStore",
                    "imageStore(img, P, uvec4(code)); if (i == 0xFFFFFFFFu) imageAtomicAdd(img, P, 0u);",
                ),
                ("imageAtomicExchange", "imageAtomicExchange(img, P, code);"),
            ] {
                let src = format!(
                    "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform u{} img;
layout(set = 0, binding = 1) buffer Dummy {{ uint dummy; }};
void main() {{
{}    uint code = x | (y << 8) | (layer << 16) | (smp << 24);
    {write}
    if (i == 0u) atomicAdd(dummy, 1u);
}}
",
                    dim.glsl_name(),
                    coordinate_prelude(dim)
                );
                let what = format!("{how} {} on {}", dim.name(), ctx.backend_name());
                let k = Kernel::from_glsl(&src, &SourceOptions::named("addr.comp"))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let d = desc(dim, ImageFormat::R32Uint);
                let img = Image::filled(&ctx, d, 0xFFFF_FFFFu32).unwrap();
                let dummy = atomport::Buffer::zeroed(&ctx, 4).unwrap();
                let groups = (d.texel_count() as u32).div_ceil(64);
                ctx.dispatch(
                    &k,
                    [groups, 1, 1],
                    &[Bind::image(0, 0, &img), Bind::new(0, 1, &dummy)],
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = img.read::<u32>(&ctx).unwrap();
                for (t, &v) in got.iter().enumerate() {
                    let a = TexelAddress::from_index(t, d.width, d.height, d.layers());
                    assert_eq!(v, encode(a), "{what}: texel {t} = {a:?} holds {v:#x}");
                }
            }
        }
    }
}

#[test]
fn load_store_and_size_agree_with_atomics() {
    for ctx in common::contexts(wgpu::Features::empty()) {
        for dim in ImageDim::ALL {
            let src = format!(
                "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32i) uniform i{} img;
layout(set = 0, binding = 1) buffer Out {{ int seen[]; }};
void main() {{
{}    int a = imageLoad(img, P).x;
    int b = imageAtomicAdd(img, P, 5);
    ivec4 c = imageLoad(img, P);
    imageStore(img, P, ivec4(c.x * 2, 9, 9, 9));
    int d = imageAtomicExchange(img, P, -1);
    seen[5u * i] = a;
    seen[5u * i + 1u] = b;
    seen[5u * i + 2u] = c.x;
    seen[5u * i + 3u] = d;
    seen[5u * i + 4u] = c.w;
}}
",
                dim.glsl_name(),
                coordinate_prelude(dim)
            );
            let what = format!("{} on {}", dim.name(), ctx.backend_name());
            let k = Kernel::from_glsl(&src, &SourceOptions::named("agree.comp"))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let d = desc(dim, ImageFormat::R32Sint);
            let init: Vec<i32> = (0..d.texel_count() as i32).map(|t| t * 3 - 7).collect();
            let img = Image::from_texels(&ctx, d, &init).unwrap();
            let seen = atomport::Buffer::zeroed(&ctx, d.texel_count() as u64 * 20).unwrap();
            let groups = (d.texel_count() as u32).div_ceil(64);
            ctx.dispatch(
                &k,
                [groups, 1, 1],
                &[Bind::image(0, 0, &img), Bind::new(0, 1, &seen)],
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let seen = seen.read::<i32>(&ctx).unwrap();
            // Invocation i handles texel i (the prelude walks texel order).
            for (t, &v) in init.iter().enumerate() {
                let s = &seen[5 * t..5 * t + 5];
                assert_eq!(s, &[v, v, v + 5, 2 * (v + 5), 1], "{what}: texel {t}");
            }
            assert!(
                img.read::<i32>(&ctx).unwrap().iter().all(|&v| v == -1),
                "{what}"
            );
        }
    }
}

#[test]
fn texture_round_trip_keeps_every_texel() {
    for ctx in common::contexts(wgpu::Features::empty()) {
        for dim in ImageDim::ALL {
            // rgba8_snorm: wgpu's GL backend copies it out of a texture
            // clamped to 0..1, so there the texels are loaded in a shader.
            for format in [
                ImageFormat::R32Uint,
                ImageFormat::R32Sint,
                ImageFormat::R32Float,
                ImageFormat::Rgba8Snorm,
            ] {
                let d = desc(dim, format);
                let snorm = format == ImageFormat::Rgba8Snorm;
                let data: Vec<u32> = (0..d.texel_count() as u32)
                    .map(|t| t.wrapping_mul(2654435761))
                    .collect();
                let img = Image::from_texels(&ctx, d, &data).unwrap();
                let textures = img.to_textures(&ctx).unwrap();
                assert_eq!(textures.len(), d.samples as usize);
                // WebGPU has no 1D-array texture: its layers are the rows.
                if dim == ImageDim::D1Array {
                    let t = &textures[0];
                    assert_eq!(t.dimension(), wgpu::TextureDimension::D2);
                    assert_eq!(
                        (t.width(), t.height(), t.depth_or_array_layers()),
                        (d.width, d.depth_or_layers, 1)
                    );
                }
                let back = Image::zeroed(&ctx, d).unwrap();
                let gl = ctx.backend_name() == "gl";
                if let Err(e) = back.copy_from_textures(&ctx, &textures) {
                    // No cube map on GL; no 1D snorm texture loaded there.
                    let one_d = matches!(dim, ImageDim::D1 | ImageDim::Buffer);
                    assert!(
                        gl && (matches!(dim, ImageDim::Cube | ImageDim::CubeArray)
                            || snorm && one_d),
                        "{e}"
                    );
                    println!("skipping the {} read-back on gl: {e}", dim.name());
                    continue;
                }
                // Loaded in a shader (GL), -128 is -1 as -127 is.
                let want: Vec<u32> = if snorm && gl {
                    let mut bytes: Vec<u8> = bytemuck::cast_slice(&data).to_vec();
                    bytes
                        .iter_mut()
                        .filter(|b| **b == 0x80)
                        .for_each(|b| *b = 0x81);
                    bytemuck::cast_slice(&bytes).to_vec()
                } else {
                    data.clone()
                };
                assert_eq!(
                    back.read::<u32>(&ctx).unwrap(),
                    want,
                    "{} {:?} on {}",
                    dim.name(),
                    format,
                    ctx.backend_name()
                );
            }
        }
    }
}

#[test]
fn image_descriptions_are_checked() {
    let e = |r: atomport::Result<ImageDesc>| r.unwrap_err().to_string();
    assert_eq!(
        e(ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[4], 1)),
        "a 2d image's size has 2 numbers (WxH), not 1"
    );
    assert_eq!(
        e(ImageDesc::new(
            ImageDim::Cube,
            ImageFormat::R32Uint,
            &[4, 3],
            1
        )),
        "cube image: cube faces are square, not 4x3"
    );
    assert_eq!(
        e(ImageDesc::new(
            ImageDim::D2,
            ImageFormat::R32Uint,
            &[4, 3],
            2
        )),
        "2d image: only multisample images have samples, not 2"
    );
    assert_eq!(
        e(ImageDesc::new(
            ImageDim::D3,
            ImageFormat::R32Uint,
            &[4, 0, 2],
            1
        )),
        "3d image: every size and the sample count must be at least 1"
    );
    assert_eq!(
        e(ImageDesc::new(
            ImageDim::D3,
            ImageFormat::R32Uint,
            &[65536, 65536, 2],
            1
        )),
        "3d image: 65536x65536x2 is too many texels"
    );
    let d = ImageDesc::new(ImageDim::CubeArray, ImageFormat::R32Uint, &[4, 4, 3], 1).unwrap();
    assert_eq!(
        (d.layers(), d.texel_count(), d.size()),
        (18, 288, vec![4, 4, 3])
    );
}

#[test]
fn binding_an_image_of_another_type_is_refused() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DArray img;
void main() { imageAtomicAdd(img, ivec3(0), 1u); }
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("k.comp")).unwrap();
    let info = &k.bindings()[0];
    assert_eq!(info.kind, atomport::BindingKind::Image);
    for ctx in common::contexts(wgpu::Features::empty()) {
        let wrong_dim = Image::zeroed(&ctx, desc(ImageDim::D2, ImageFormat::R32Uint)).unwrap();
        let e = ctx
            .dispatch(&k, [1, 1, 1], &[Bind::image(0, 0, &wrong_dim)])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "binding 0.0 (`img`) is a r32ui 2darray image in the kernel but was given a r32ui 2d image"
        );
        let wrong_format =
            Image::zeroed(&ctx, desc(ImageDim::D2Array, ImageFormat::R32Sint)).unwrap();
        assert!(matches!(
            ctx.dispatch(&k, [1, 1, 1], &[Bind::image(0, 0, &wrong_format)]),
            Err(Error::WrongKind { .. })
        ));
        let buffer = atomport::Buffer::zeroed(&ctx, 64).unwrap();
        let e = ctx
            .dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &buffer)])
            .unwrap_err();
        assert!(e.to_string().ends_with("was given a buffer"), "{e}");
        let ok = Image::zeroed(&ctx, desc(ImageDim::D2Array, ImageFormat::R32Uint)).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::image(0, 0, &ok)])
            .unwrap();
        assert_eq!(ok.read::<u32>(&ctx).unwrap()[0], 1);
        let e = Image::from_texels(&ctx, ok.desc().to_owned(), &[1u32, 2]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("8 bytes of texels given, 96 needed"),
            "{e}"
        );
    }
}

#[test]
fn images_of_any_format_take_shapes_wgsl_lacks() {
    // An rgba8 cube: no WebGPU storage texture, so a texel buffer of
    // packed texels; the store lands in face 0's first texel.
    let src = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly imageCube img;
void main() { imageStore(img, ivec3(0), vec4(1.0, 0.0, 0.5, 1.0)); }
";
    let k = Kernel::from_glsl(src, &SourceOptions::named("cube.comp")).unwrap();
    for ctx in common::contexts(k.required_features()) {
        let desc = ImageDesc::new(ImageDim::Cube, ImageFormat::Rgba8Unorm, &[2, 2], 1).unwrap();
        let img = Image::zeroed(&ctx, desc).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::image(0, 0, &img)])
            .unwrap();
        let texels: Vec<[u8; 4]> = img.read(&ctx).unwrap();
        assert_eq!(texels.len(), 24);
        assert_eq!(texels[0], [255, 0, 128, 255], "{}", ctx.backend_name());
        assert!(texels[1..].iter().all(|t| *t == [0; 4]));
    }
    // The packed 10/10/10/2 format: one word a texel, 0.5 to nearest even.
    let src = src.replace("rgba8", "rgb10_a2");
    let k = Kernel::from_glsl(&src, &SourceOptions::named("cube.comp")).unwrap();
    for ctx in common::contexts(k.required_features()) {
        let desc = ImageDesc::new(ImageDim::Cube, ImageFormat::Rgb10A2Unorm, &[2, 2], 1).unwrap();
        let img = Image::zeroed(&ctx, desc).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::image(0, 0, &img)])
            .unwrap();
        let texels: Vec<u32> = img.read(&ctx).unwrap();
        assert_eq!(texels.len(), 24);
        assert_eq!(
            texels[0],
            1023 | 512 << 20 | 3 << 30,
            "{}",
            ctx.backend_name()
        );
        assert!(texels[1..].iter().all(|t| *t == 0));
    }
}

/// A volumetric pass in the style of froxel renderers: each invocation
/// marches one column along z, reading one 3D image and writing the running
/// sums into another, slice by slice. Every slice must hold its sums (CPU
/// model). wgpu's GL backend binds a 3D storage texture's first slice only,
/// so there the storage-texture translation is refused, naming the image
/// and what runs instead; held in texel buffers it runs on every backend.
#[test]
fn a_3d_storage_image_keeps_every_slice() {
    let src = "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32f) uniform readonly image3D density;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image3D marched;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec3 size = imageSize(marched);
    if (any(greaterThanEqual(p, size.xy))) return;
    float sum = 0.0;
    for (int z = 0; z < size.z; z++) {
        sum += imageLoad(density, ivec3(p, z)).x;
        imageStore(marched, ivec3(p, z), vec4(sum, float(z), float(p.x), float(p.y)));
    }
}
";
    let (w, h, d) = (5u32, 3u32, 4u32);
    let density: Vec<f32> = (0..w * h * d).map(|t| (t % 7) as f32 + 0.5).collect();
    // Texel order: x fastest, then y, then slice.
    let mut model = Vec::new();
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                let sum: f32 = (0..=z)
                    .map(|k| density[((k * h + y) * w + x) as usize])
                    .sum();
                model.push([sum, z as f32, x as f32, y as f32]);
            }
        }
    }
    let storage = Kernel::from_glsl(src, &SourceOptions::named("march.comp")).unwrap();
    let mut names: Vec<(String, bool)> = storage.storage_3d_images();
    names.sort();
    assert_eq!(
        names,
        [
            ("density".to_string(), false),
            ("marched".to_string(), false)
        ]
    );
    // The translation for GL holds them in texel buffers, as the option does.
    let needs = storage.required_features();
    let buffered = storage
        .refitted_for(Some(wgpu::Backend::Gl), needs)
        .expect("GL needs another translation")
        .unwrap();
    assert!(buffered.storage_3d_images().is_empty());
    let mut opts = SourceOptions::named("march.comp");
    opts.images_as_texel_buffers = true;
    let optioned = Kernel::from_glsl(src, &opts).unwrap();
    assert_eq!(buffered.wgsl(), optioned.wgsl());
    for ctx in common::contexts(wgpu::Features::empty()) {
        let gl = ctx.backend_name() == "gl";
        // Storage textures, as the kernel made by default binds them.
        let input = TextureDesc::new(TextureDim::D3, wgpu::TextureFormat::R32Float, &[w, h, d], 1);
        let input = Texture::from_data(&ctx, input.unwrap(), bytemuck::cast_slice(&density));
        let out = TextureDesc::new(
            TextureDim::D3,
            wgpu::TextureFormat::Rgba32Float,
            &[w, h, d],
            1,
        );
        let out = Texture::zeroed(&ctx, out.unwrap()).unwrap();
        let ran = ctx.dispatch_and_read(
            &storage,
            [2, 1, 1],
            &[
                Bind::named("density", &input.unwrap()),
                Bind::named("marched", &out),
            ],
        );
        if gl {
            let e = ran.unwrap_err();
            assert!(matches!(e, Error::Unsupported(_)), "gl: {e}");
            let e = e.to_string();
            assert!(
                e.starts_with("the 3D storage image `") && e.contains("--texel-buffers"),
                "gl: {e}"
            );
        } else {
            let got = ran.unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
            let got: Vec<[f32; 4]> = bytemuck::cast_slice(&got[1]).to_vec();
            assert_eq!(got, model, "storage textures on {}", ctx.backend_name());
        }
        // Texel buffers, on every backend.
        let input = ImageDesc::new(ImageDim::D3, ImageFormat::R32Float, &[w, h, d], 1).unwrap();
        let input = Image::from_texels(&ctx, input, &density).unwrap();
        let out = ImageDesc::new(ImageDim::D3, ImageFormat::Rgba32Float, &[w, h, d], 1).unwrap();
        let out = Image::zeroed(&ctx, out).unwrap();
        ctx.dispatch(
            &buffered,
            [2, 1, 1],
            &[Bind::image(0, 0, &input), Bind::image(0, 1, &out)],
        )
        .unwrap_or_else(|e| panic!("texel buffers on {}: {e}", ctx.backend_name()));
        let got: Vec<[f32; 4]> = out.read(&ctx).unwrap();
        assert_eq!(got, model, "texel buffers on {}", ctx.backend_name());
    }
}
