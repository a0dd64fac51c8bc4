//! An array of 12 storage images indexed per invocation (a mip chain bound
//! whole, each texel written to the level its position picks), translated
//! two ways and dispatched on one device: as a WGSL binding array (the
//! adapter binds the 12 elements into one binding; needs
//! `atomport::BINDING_ARRAY_FEATURES`) and as the portable `switch` over
//! one binding per element that GL, Debian 12's lavapipe and browsers
//! take. The median of interleaved runs of each, reported as the ratio
//! switch / binding array; where the adapter binds no arrays the switch
//! is timed alone. Both must leave the same texels.
//!
//! Then, for the WebGPU target (storage images in texel buffers), a
//! twelve-level rgba16f mip chain of a 1024×1024 image, every level
//! written (a downsampler's output): its texel buffers held in one buffer,
//! as the translation does where twelve bindings would pass WebGPU's eight
//! storage buffers per stage (the images copied in and out around each
//! dispatch), against one binding per level, which a device granting 16
//! storage buffers takes; the ratio packed / one by one. Both must leave
//! the same texels.
//!
//! `cargo bench --bench image_arrays [-- --backend NAME] [-- --runs N]`
//! (Mesa 25's lavapipe has binding arrays: `VK_DRIVER_FILES=KIT/mesa/lvp_icd.json`,
//! where `scripts/setup-dx12` unpacked it.)

#[path = "common/mod.rs"]
mod common;

use atomport::wgpu;
use atomport::{
    Bind, Context, ContextOptions, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Platform,
    SourceOptions, Texture, TextureDesc, TextureDim,
};

const LEVELS: u32 = 12;
const SIZE: u32 = 256;

const SCATTER: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform writeonly image2D levels[12];
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    for (uint k = 0u; k < 8u; ++k) {
        uint level = (uint(p.x) * 7u + uint(p.y) * 3u + k) % 12u;
        imageStore(levels[level], p, vec4(float(k) + float(p.x + p.y)));
    }
}";

/// Each image bound as the array element its index names.
fn binds<'a>(names: &'a [String], images: &'a [Texture]) -> Vec<Bind<'a>> {
    names
        .iter()
        .zip(images)
        .map(|(n, i)| Bind::named(n, i))
        .collect()
}

const CHAIN: &str = "#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform writeonly image2D levels[12];
layout(set = 0, binding = 1) readonly buffer Weights { float weight[12]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    for (int k = 0; k < 12; ++k) {
        if (all(lessThan(p, ivec2(max(1024 >> k, 1))))) {
            imageStore(levels[k], p, vec4(vec2(p) * weight[k], float(k), 1.0));
        }
    }
}";

/// Each level bound as the element its index names, and the weights.
fn chain_binds<'a>(
    names: &'a [String],
    images: &'a [Image],
    weights: &'a atomport::Buffer,
) -> Vec<Bind<'a>> {
    let mut v: Vec<Bind> = names
        .iter()
        .zip(images)
        .map(|(n, i)| Bind::named(n, i))
        .collect();
    v.push(Bind::named("Weights", weights));
    v
}

/// The mip chain packed into one buffer against one binding per level.
fn packed_against_one_by_one(ctx: &Context, runs: usize) {
    let web = |limit: Option<u32>| {
        let mut o = SourceOptions::named("chain.comp");
        o.target = Platform::WebGpu;
        o.max_storage_buffers = limit;
        Kernel::from_glsl(CHAIN, &o).unwrap()
    };
    let (packed, apart) = (web(None), web(Some(16)));
    assert!(!packed.binding_named("levels").unwrap().packed.is_empty());
    assert!(apart.binding_named("levels[11]").is_ok());
    let chain = |ctx: &Context| -> Vec<Image> {
        (0..LEVELS)
            .map(|k| {
                let desc = ImageDesc::new(
                    ImageDim::D2,
                    ImageFormat::Rgba16Float,
                    &[(1024 >> k).max(1), (1024 >> k).max(1)],
                    1,
                );
                Image::zeroed(ctx, desc.unwrap()).unwrap()
            })
            .collect()
    };
    let weights = atomport::Buffer::from_slice(ctx, &[0.5f32; 12]).unwrap();
    let (a, b) = (chain(ctx), chain(ctx));
    let names: Vec<String> = (0..LEVELS).map(|k| format!("levels[{k}]")).collect();
    let (ba, bb) = (
        chain_binds(&names, &a, &weights),
        chain_binds(&names, &b, &weights),
    );
    let groups = [1024 / 8, 1024 / 8, 1];
    ctx.prepare(&packed, &ba).unwrap();
    ctx.prepare(&apart, &bb).unwrap();
    let (tp, ta) = common::interleaved(
        runs,
        || common::time(|| ctx.dispatch(&packed, groups, &ba).unwrap()),
        || common::time(|| ctx.dispatch(&apart, groups, &bb).unwrap()),
    );
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (x.read::<u16>(ctx).unwrap(), y.read::<u16>(ctx).unwrap());
        assert_eq!(x, y, "packed and one by one wrote different texels");
    }
    println!(
        "WebGPU target, a 12-level rgba16f mip chain of 1024x1024: packed in one buffer {:.3} ms, one binding per level {:.3} ms: ratio {:.3}",
        tp.as_secs_f64() * 1e3,
        ta.as_secs_f64() * 1e3,
        tp.as_secs_f64() / ta.as_secs_f64()
    );
}

fn main() {
    let (backend, runs) = common::backend_and_runs(30);
    let opts = ContextOptions::default().with_backend(backend);
    let features = opts.adapter_features().unwrap();
    let switched = Kernel::from_glsl(SCATTER, &SourceOptions::named("scatter.comp")).unwrap();
    let fitted = SourceOptions::named("scatter.comp").fitted_to(features);
    let arrayed = fitted
        .binding_arrays
        .then(|| Kernel::from_glsl(SCATTER, &fitted).unwrap());
    let needed = arrayed
        .as_ref()
        .map_or(switched.required_features(), |k| k.required_features());
    let ctx = Context::new(&opts.with_features(needed)).unwrap();
    println!(
        "12 r32f storage images of {SIZE}x{SIZE}, 8 stores per invocation at a level each picks, on {} ({}), median of {runs} interleaved runs",
        ctx.adapter_name(),
        ctx.backend_name()
    );
    let desc = TextureDesc::new(
        TextureDim::D2,
        wgpu::TextureFormat::R32Float,
        &[SIZE, SIZE],
        1,
    )
    .unwrap();
    let images = |ctx: &Context| -> Vec<Texture> {
        (0..LEVELS)
            .map(|_| Texture::zeroed(ctx, desc).unwrap())
            .collect()
    };
    let (a, b) = (images(&ctx), images(&ctx));
    let names: Vec<String> = (0..LEVELS).map(|k| format!("levels[{k}]")).collect();
    let (ba, bb) = (binds(&names, &a), binds(&names, &b));
    let groups = [SIZE / 8, SIZE / 8, 1];
    ctx.prepare(&switched, &ba).unwrap();
    packed_against_one_by_one(&ctx, runs);
    let Some(arrayed) = arrayed else {
        let t = common::median(
            (0..runs)
                .map(|_| common::time(|| ctx.dispatch(&switched, groups, &ba).unwrap()))
                .collect(),
        );
        println!(
            "the adapter binds no arrays: switch alone {:.3} ms",
            t.as_secs_f64() * 1e3
        );
        return;
    };
    ctx.prepare(&arrayed, &bb).unwrap();
    let (ts, ta) = common::interleaved(
        runs,
        || common::time(|| ctx.dispatch(&switched, groups, &ba).unwrap()),
        || common::time(|| ctx.dispatch(&arrayed, groups, &bb).unwrap()),
    );
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (x.read(&ctx).unwrap(), y.read(&ctx).unwrap());
        assert_eq!(
            x, y,
            "the switch and the binding array wrote different texels"
        );
    }
    println!(
        "switch {:.3} ms, binding array {:.3} ms: ratio {:.3}",
        ts.as_secs_f64() * 1e3,
        ta.as_secs_f64() * 1e3,
        ts.as_secs_f64() / ta.as_secs_f64()
    );
}
