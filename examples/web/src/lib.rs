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
/// [{"group","binding","hex"}], "generated": [flags] | null}`.
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
    serde_json::to_string(&serde_json::json!({
        "bindings": out.hex_bindings(),
        "generated": generated,
        "groups": groups,
    }))
    .map_err(fail)
}
