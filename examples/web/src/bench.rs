//! The dispatch-overhead benchmark's atomport side: `n` small dispatches,
//! each read back, through atomport on the browser's WebGPU. The page times
//! the same WGSL dispatched by hand through WebGPU's own API, interleaved
//! with this (`suite.html`), so that both see the same browser state.

use atomport::{Bind, Buffer, Kernel, SourceOptions};
use wasm_bindgen::prelude::*;

use super::{context, fail};

/// Dispatches `wgsl` (one read-write storage buffer of `words` u32s at
/// group 0, binding 0) `n` times as one workgroup, reading the buffer back
/// after each; resolves to the milliseconds it took and the last word,
/// as `[ms, word]`.
#[wasm_bindgen]
pub async fn dispatch_loop(wgsl: String, words: u32, n: u32) -> Result<Vec<f64>, JsValue> {
    let ctx = context().await?;
    let kernel = Kernel::from_wgsl(&wgsl, &SourceOptions::named("bench.wgsl")).map_err(fail)?;
    let buffer = Buffer::zeroed(&ctx, u64::from(words) * 4).map_err(fail)?;
    let perf = web_sys::window()
        .and_then(|w| w.performance())
        .ok_or_else(|| fail("no performance timer"))?;
    let binds = [Bind::new(0, 0, &buffer)];
    // The pipeline is compiled before the clock starts, as the hand-written side does.
    ctx.prepare(&kernel, &binds).map_err(fail)?;
    let start = perf.now();
    let mut last = 0u32;
    for _ in 0..n {
        let out = ctx
            .dispatch_and_read_async(&kernel, [1, 1, 1], &binds)
            .await
            .map_err(fail)?;
        last = out[0]
            .get(..4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    }
    Ok(vec![perf.now() - start, f64::from(last)])
}
