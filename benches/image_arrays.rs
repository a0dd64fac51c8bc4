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
//! `cargo bench --bench image_arrays [-- --backend NAME] [-- --runs N]`
//! (Mesa 25's lavapipe has binding arrays: `VK_DRIVER_FILES=KIT/mesa/lvp_icd.json`,
//! where `scripts/setup-dx12` unpacked it.)

#[path = "common/mod.rs"]
mod common;

use atomport::wgpu;
use atomport::{
    Bind, Context, ContextOptions, Kernel, SourceOptions, Texture, TextureDesc, TextureDim,
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
