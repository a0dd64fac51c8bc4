//! atomport in a browser, on its WebGPU: the histogram demo drawn on a
//! canvas (`index.html`), and the entry points the browser test suite
//! (`scripts/test-web`, `suite.html`) drives — the conformance matrix, the
//! golden and demo kernels' jobs, and the dispatch-overhead benchmark.
//! The demo's kernels come translated at build time (`build.rs`); the
//! suite's GLSL kernels are translated again in the page (the `glsl`
//! feature: glslang compiled into this module) and must equal the native
//! side's translation. Every error comes back as a rejected promise or a
//! thrown string with atomport's message: nothing here panics.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use atomport::{Context, ContextOptions};
use wasm_bindgen::prelude::*;

mod bench;
mod demo;
#[path = "../../histogram/model.rs"]
mod model;
#[path = "../../common/rng.rs"]
#[allow(dead_code)]
mod rng;
mod suite;

thread_local! {
    /// The page's one context, opened on first use.
    static CONTEXT: RefCell<Option<Rc<Context>>> = const { RefCell::new(None) };
}

/// The page's context on the browser's WebGPU adapter, opened once.
async fn context() -> Result<Rc<Context>, JsValue> {
    if let Some(c) = CONTEXT.with(|c| c.borrow().clone()) {
        return Ok(c);
    }
    let ctx = Rc::new(
        Context::from_browser(&ContextOptions::default())
            .await
            .map_err(fail)?,
    );
    CONTEXT.with(|c| *c.borrow_mut() = Some(ctx.clone()));
    Ok(ctx)
}

/// An error as the rejection of a promise: atomport's one-line message.
fn fail(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The adapter the page runs on: `NAME (webgpu)`.
#[wasm_bindgen]
pub async fn adapter() -> Result<String, JsValue> {
    let ctx = context().await?;
    Ok(format!("{} ({})", ctx.adapter_name(), ctx.backend_name()))
}

/// Translates GLSL in the page for WebGPU, with glslang compiled into this
/// module and the options the shader's `// run:` lines give; returns the
/// translation as JSON (`Translation::to_json`) or throws atomport's
/// message (`NAME:LINE:COLUMN: error: …` for the shader's own errors).
#[cfg(feature = "glsl")]
#[wasm_bindgen]
pub fn translate_glsl(name: String, source: String) -> Result<String, JsValue> {
    let kernel = suite::translate_here(&name, &source, &[]).map_err(fail)?;
    Ok(atomport::Translation::of_kernel(&kernel).to_json())
}

/// The playground's Run: translates `source` in the page for WebGPU and
/// runs the job its `// run:` lines describe (as `atomport run` takes
/// them), or, where it has none, on the inputs `atomport check` makes for
/// its well-formed variant. Resolves to `{"bindings":
/// [{"group","binding","name","hex"}], "pictures": [{"group","binding",
/// "name","width","height","rgba"}], "generated": [flags] | null}`, a
/// picture for each image and texture (see [`picture`]).
#[cfg(feature = "glsl")]
#[wasm_bindgen]
pub async fn playground_run(name: String, source: String) -> Result<String, JsValue> {
    use atomport::runtime::job::{self, Annotations, Resources};
    use atomport::validate::check::inputs;
    let kernel = suite::translate_here(&name, &source, &[]).map_err(fail)?;
    let a = Annotations::parse(&source).map_err(|e| fail(format!("{name}: {e}")))?;
    let (resources, groups, generated) = if a.job.is_empty() {
        let groups = inputs::dispatch(kernel.workgroup_size());
        let extent = [0, 1, 2].map(|k| groups[k] * kernel.workgroup_size()[k]);
        // Words typed from the original's declarations, as `check` types them.
        let module = kernel.native_spirv().ok().and_then(inputs::declarations);
        let (res, made) = inputs::generate(
            &kernel,
            module.as_ref(),
            &Resources::default(),
            inputs::Variant::WellFormed,
            extent,
        )
        .map_err(|e| {
            fail(format!(
                "{name}: no `// run:` line, and no inputs can be made: {e}"
            ))
        })?;
        (res, groups, Some(made.flags))
    } else {
        let (res, groups) = Resources::from_flags(&a.job).map_err(fail)?;
        (res, groups, None)
    };
    let ctx = context().await?;
    let out = job::run_async(&ctx, &kernel, groups, &resources)
        .await
        .map_err(fail)?;
    let pictures: Vec<serde_json::Value> = out.bindings.iter().filter_map(picture).collect();
    serde_json::to_string(&serde_json::json!({
        "bindings": out.hex_bindings(),
        "pictures": pictures,
        "generated": generated,
        "groups": groups,
    }))
    .map_err(fail)
}

/// The largest picture the playground draws, in texels.
#[cfg(feature = "glsl")]
const MOST_TEXELS: u64 = 1 << 20;

/// An image's or texture's first layer (or slice, or face) as a picture:
/// RGBA8 in hex, one texel a pixel. One channel is grey, two are red and
/// green; the values are shown as they are where they lie in 0..=1 and
/// scaled from their least to their greatest otherwise (an `r32ui`
/// counter, an `rgba16f` depth), alpha opaque. `None` for buffers, and for
/// more than [`MOST_TEXELS`] texels.
#[cfg(feature = "glsl")]
fn picture(b: &atomport::runtime::run::BindingOutput) -> Option<serde_json::Value> {
    use atomport::runtime::run::Data;
    let size = b.size.as_ref()?;
    let width = *size.first()?;
    let height = if b
        .dim
        .as_deref()
        .is_some_and(|d| d.starts_with("1d") || d == "buffer")
    {
        1
    } else {
        size.get(1).copied().unwrap_or(1)
    };
    let values: Vec<f64> = match &b.data {
        Data::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Data::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Data::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Data::U64(v) => v.iter().map(|&x| x as f64).collect(),
        Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
    };
    let layer = u64::from(width) * u64::from(height);
    let texels = size.iter().map(|&s| u64::from(s)).product::<u64>()
        * u64::from(b.samples.unwrap_or(1))
        * if b.dim.as_deref().is_some_and(|d| d.starts_with("cube")) {
            6
        } else {
            1
        };
    // Nothing read back (a note says why) draws nothing either.
    if layer == 0
        || layer > MOST_TEXELS
        || texels == 0
        || values.is_empty()
        || !(values.len() as u64).is_multiple_of(texels)
    {
        return None;
    }
    let channels = (values.len() as u64 / texels) as usize;
    let shown = &values[..layer as usize * channels];
    let finite = shown.iter().copied().filter(|v| v.is_finite());
    let (least, most) = finite.fold((f64::MAX, f64::MIN), |(l, m), v| (l.min(v), m.max(v)));
    let (least, span) = if least >= 0.0 && most <= 1.0 {
        (0.0, 1.0)
    } else {
        (least, (most - least).max(f64::MIN_POSITIVE))
    };
    let byte = |v: f64| ((v - least) / span * 255.0).round().clamp(0.0, 255.0) as u8;
    let mut rgba = String::with_capacity(layer as usize * 8);
    for texel in shown.chunks(channels) {
        let c = |k: usize| texel.get(k).copied().map_or(0, byte);
        let px = match channels {
            1 => [c(0), c(0), c(0), 255],
            _ => [c(0), c(1), c(2), 255],
        };
        for x in px {
            rgba.push_str(&format!("{x:02x}"));
        }
    }
    Some(serde_json::json!({
        "group": b.group,
        "binding": b.binding,
        "name": b.name,
        "width": width,
        "height": height,
        "rgba": rgba,
    }))
}
