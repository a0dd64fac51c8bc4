//! Kernels translated ahead of time (a build script's `atomport::build`, the
//! JSON it writes) load back as the kernel translated at run time: bound by
//! the same names, run with the same results on every backend present. And
//! a translation that does not fit its WGSL is refused, naming the binding.

mod common;

use std::path::Path;

use atomport::{
    Bind, Buffer, Context, Error, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Sampler,
    SamplerDesc, SourceOptions, Texture, TextureDesc, TextureDim, Translation, Uniforms,
};

const TILE_MAX: &str = "examples/embed/shaders/tile_max.comp";

/// The embed example's shaders translated as its build script translates
/// them, into a folder of this test's, and read back from the JSON written.
fn built(name: &str) -> Kernel {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::scratch().join(format!("atomport-built-{}", std::process::id()));
    let (written, reruns) = atomport::build::translate_dir_into(
        &root.join("examples/embed/shaders"),
        &out,
        &SourceOptions::default(),
    )
    .unwrap();
    assert!(written.iter().any(|w| w.ends_with(format!("{name}.wgsl"))));
    assert!(reruns.iter().any(|r| r.ends_with(format!("{name}.comp"))));
    let json = std::fs::read_to_string(out.join(format!("{name}.bindings.json"))).unwrap();
    let t = Translation::from_json(&json).unwrap();
    Kernel::from_translation(&t, &SourceOptions::named(format!("{name}.wgsl"))).unwrap()
}

/// Runs the tile-maximum kernel over a height field on `ctx`: the image's
/// texels and the two counters.
fn tile_max(ctx: &Context, k: &Kernel, heights: &[f32], size: [u32; 2]) -> (Vec<u32>, Vec<u32>) {
    let desc = TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::R32Float, &size, 1).unwrap();
    let texture = Texture::from_data(ctx, desc, bytemuck::cast_slice(heights)).unwrap();
    let nearest = Sampler::new(ctx, SamplerDesc::default()).unwrap();
    let image = Image::zeroed(
        ctx,
        ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[5, 3], 1).unwrap(),
    )
    .unwrap();
    let stats = Buffer::zeroed(ctx, 8).unwrap();
    let mut params = Uniforms::push(k).unwrap();
    params
        .set("tileSize", 4u32)
        .unwrap()
        .set("scale", 4096.0f32)
        .unwrap();
    let params = params.to_buffer(ctx).unwrap();
    ctx.dispatch(
        k,
        [size[0].div_ceil(8), size[1].div_ceil(8), 1],
        &[
            Bind::named("heights", (&texture, &nearest)),
            Bind::named("tileMax", &image),
            Bind::named("stats", &stats),
            Bind::named("params", &params),
        ],
    )
    .unwrap_or_else(|e| panic!("{}: {e}", ctx.backend_name()));
    (image.read(ctx).unwrap(), stats.read(ctx).unwrap())
}

#[test]
fn a_kernel_translated_at_build_time_runs_as_the_run_time_translation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run_time =
        Kernel::from_path(&root.join(TILE_MAX), None, &SourceOptions::default()).unwrap();
    let loaded = built("tile_max");
    // The same map: the image in its texel buffer with its size overrides,
    // the combined sampler's two halves, the push block by its members.
    assert_eq!(loaded.bindings(), run_time.bindings());
    assert_eq!(loaded.overrides(), run_time.overrides());
    assert!(!loaded.overrides().is_empty(), "imageSize reads overrides");
    let mut rng = common::Rng(29);
    let size = [23u32, 13u32];
    let heights: Vec<f32> = (0..size[0] * size[1])
        .map(|_| rng.below(1 << 20) as f32 / (1 << 20) as f32)
        .collect();
    // The CPU's tiles: 4×4 texels each, a 5×3 image (the sixth column of
    // tiles and the fourth row lie outside it).
    let mut want = vec![0u32; 15];
    let (mut samples, mut clipped) = (0, 0);
    for (i, h) in heights.iter().enumerate() {
        let (x, y) = (i as u32 % size[0] / 4, i as u32 / size[0] / 4);
        if x >= 5 || y >= 3 {
            clipped += 1;
            continue;
        }
        samples += 1;
        let t = &mut want[(y * 5 + x) as usize];
        *t = (*t).max((h * 4096.0) as u32);
    }
    for ctx in common::contexts(run_time.required_features()) {
        let a = tile_max(&ctx, &run_time, &heights, size);
        let b = tile_max(&ctx, &loaded, &heights, size);
        assert_eq!(a, b, "{}: loaded against run-time", ctx.backend_name());
        assert_eq!(
            a,
            (want.clone(), vec![samples, clipped]),
            "{}",
            ctx.backend_name()
        );
    }
}

#[test]
fn a_translation_that_does_not_fit_its_wgsl_is_refused_by_binding() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = atomport::translate_file(&root.join(TILE_MAX), &SourceOptions::default()).unwrap();
    let opts = SourceOptions::named("tile_max.wgsl");
    let refused = |t: &Translation| match Kernel::from_translation(t, &opts) {
        Err(Error::TranslationMismatch { file, problem }) => {
            assert_eq!(file, "tile_max.wgsl");
            problem
        }
        other => panic!("not refused: {other:?}"),
    };
    // A binding the WGSL does not declare.
    let mut extra = t.clone();
    let mut b = extra.bindings[0].clone();
    b.binding = 40;
    extra.bindings.push(b);
    let m = refused(&extra);
    assert!(
        m.contains("binding 0.40") && m.contains("does not use"),
        "{m}"
    );
    // A binding the map lacks.
    let mut fewer = t.clone();
    let gone = fewer.bindings.pop().unwrap();
    let m = refused(&fewer);
    assert!(
        m.contains(&format!("binding {}.{}", gone.group, gone.binding)) && m.contains("lacks"),
        "{m}"
    );
    // A kind the WGSL does not declare there.
    let mut kind = t.clone();
    let sampler = kind
        .bindings
        .iter_mut()
        .find(|b| b.kind == atomport::BindingKind::Sampler)
        .unwrap();
    sampler.kind = atomport::BindingKind::Uniform;
    let m = refused(&kind);
    assert!(
        m.contains("in the binding map but a sampler in the WGSL"),
        "{m}"
    );
    // Another workgroup size.
    let mut size = t.clone();
    size.workgroup_size = [64, 1, 1];
    assert!(refused(&size).contains("workgroup size"));
    // Not JSON of a translation at all.
    match Translation::from_json("{\"wgsl\": 3}") {
        Err(Error::Shader(m)) => {
            assert!(m.message.starts_with("not an atomport translation"), "{m}")
        }
        other => panic!("{other:?}"),
    }
}
