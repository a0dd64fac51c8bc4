//! Resident memory while one kernel is dispatched with 300 image sizes (one
//! pipeline each), with the default bound of 16 pipelines per kernel: it
//! must stay flat once the bound is reached.
//!
//! `cargo bench --bench pipeline_cache [-- --backend NAME]`

#[path = "common/mod.rs"]
mod common;

use atomport::{
    Bind, Context, ContextOptions, Image, ImageDesc, ImageDim, ImageFormat, Kernel, SourceOptions,
};

fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let (backend, _) = common::backend_and_runs(0);
    let ctx = Context::new(&ContextOptions::default().with_backend(backend)).unwrap();
    let k = Kernel::from_glsl(
        "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() { imageAtomicAdd(img, ivec2(0), 1u); }",
        &SourceOptions::named("sizes.comp"),
    )
    .unwrap();
    println!(
        "resident memory over 300 image sizes on {} ({}), {} pipelines per kernel",
        ctx.adapter_name(),
        ctx.backend_name(),
        ctx.pipeline_limit()
    );
    for w in 1..=300u32 {
        let desc = ImageDesc::new(ImageDim::D2, ImageFormat::R32Uint, &[w, 3], 1).unwrap();
        let img = Image::zeroed(&ctx, desc).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::named("img", &img)])
            .unwrap();
        if w % 50 == 0 || w == 16 {
            println!(
                "  after {w:>3} sizes: {:>7} KiB resident, {} pipelines cached",
                resident_kib(),
                ctx.cached_pipelines()
            );
        }
    }
}
