//! The conformance matrix, after the Khronos Vulkan CTS image atomic tests:
//! every GLSL atomic function × {int, uint} × every kind of memory (buffer
//! member, buffer array element, vector component, shared array element, and
//! the eleven image types), generated as GLSL, translated by atomport's own
//! pipeline, dispatched, and checked against [`super::reference`].
//!
//! Method, per case:
//! - several invocations ([`CALLS`]) hit each location with distinct
//!   arguments (x² + y² with alternating signs for min/max); initial values
//!   are chosen so that every call is visible;
//! - the final value must be the fold of the initial value with every
//!   argument (add/min/max/and/or/xor); for exchange, the returned values
//!   plus the final value are a permutation of the initial value plus the
//!   arguments; for compare-swap (all comparing the initial value) exactly
//!   one call wins;
//! - the returned values at a location must be produced by some serial
//!   order of the calls that hit it (searched with backtracking);
//! - words or texels that no call targets must not change;
//! - a compare-swap chain (every invocation sweeps the links: compare A_j,
//!   write A_j+1) must take every link exactly once;
//! - out of range (images): an atomic with any coordinate or sample out of
//!   range returns 0 and changes nothing; so do imageLoad (0) and imageStore.
//!
//! Two memory-model litmus tests run many times each (200 dispatches of 64
//! workgroups at full size): message passing through a flag with
//! release/acquire inside a workgroup, and coherence of one word under many
//! writers and readers; each outcome is checked against the outcomes the
//! shader's memory model allows.
//!
//! Every standard case runs twice: as Vulkan GLSL and as OpenGL GLSL (`gl/`
//! cases: `#version 430`, loose uniforms for the parameters, OpenGL binding
//! numbers with image unit 0 beside buffer binding 0, resources bound by
//! name). The OpenGL cases add the atomic-counter functions: three counters
//! in one binding at different offsets, 128 invocations on each, checked
//! by the reference model (increment returns a permutation of the
//! initial value onwards, decrement the values after, the rest by fold,
//! permutation and single winner), with the words between counters unchanged.

mod buffers;
mod cases;
mod check;
mod images;
mod litmus;
mod shaders;

pub use cases::{CALLS, Case, CounterFn, Memory, Scale, Variant, image_size, matrix};
pub use shaders::coord_expr;

use buffers::*;
use cases::*;
use check::*;
use images::*;
use litmus::*;
use shaders::*;

use crate::lower::memory::texel::{ImageDim, ImageFormat, TexelAddress};
use crate::validate::reference::{AtomicOp, explained_by_serial_order};
use crate::{
    Bind, Buffer, Context, Dialect, Image, ImageDesc, Kernel, Result, ScalarType, SourceOptions,
    Uniforms,
};

/// The result of one case on one adapter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    /// [`Case::name`].
    pub name: String,
    /// Backend name.
    pub backend: String,
    /// Whether every check held.
    pub passed: bool,
    /// For a failure: the location, the expected and the observed values.
    pub detail: String,
    /// Why the case did not run on this adapter (it lacks a feature the
    /// case needs); neither passed nor failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// Translations of the cases' kernels by GLSL source, shared by runs.
pub type Translations =
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, crate::Translation>>>;

/// Options for the mapping under test.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Translate float atomics natively (the adapter must have SHADER_FLOAT32_ATOMIC).
    pub native_float_atomics: bool,
    /// What the cases are translated for: a native backend, or the WebGPU
    /// a browser has ([`crate::Platform::WebGpu`]: images in texel buffers,
    /// float atomics on the bits, and so on).
    pub target: crate::Platform,
    /// Translations by GLSL source: each case's kernel is looked up here
    /// before it is compiled (but for a native run, which needs the
    /// original SPIR-V), and put here when it is (filled by a run on a
    /// native backend, it is what a browser, which has no glslang, runs the
    /// matrix with).
    pub translations: Option<Translations>,
    /// Run the original SPIR-V natively instead of the translation (the
    /// context must have [`Context::has_native`]): the reference model then
    /// checks the driver, and a failure is the driver's.
    pub native: bool,
}

/// Dispatches a case's kernel — its translation, or with `opts.native` its
/// original SPIR-V natively — and reads every binding back.
pub(super) async fn dispatch_and_read(
    ctx: &Context,
    opts: &RunOptions,
    kernel: &Kernel,
    groups: [u32; 3],
    binds: &[Bind<'_>],
) -> Result<Vec<Vec<u8>>> {
    #[cfg(not(target_arch = "wasm32"))]
    if opts.native {
        ctx.dispatch_and_read_native(kernel, groups, binds)
    } else {
        ctx.dispatch_and_read(kernel, groups, binds)
    }
    // A browser has no native run, and reads back only by awaiting.
    #[cfg(target_arch = "wasm32")]
    {
        let _ = opts;
        ctx.dispatch_and_read_async(kernel, groups, binds).await
    }
}

/// A buffer's words: read at once natively, awaited in a browser.
pub(super) async fn read_words(ctx: &Context, buffer: &Buffer) -> Result<Vec<u32>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        buffer.read(ctx)
    }
    #[cfg(target_arch = "wasm32")]
    {
        buffer.read_async(ctx).await
    }
}

/// Why a case has no native run, if it has none: WebGPU binds no
/// multisample storage texture (cube, buffer and 1D-array images run as
/// shapes it binds: `lower::spirv::native_shapes`), nor 64-bit ones
/// without more features.
fn no_native_run(case: &Case) -> Option<String> {
    match case.memory {
        Memory::Image(dim @ (ImageDim::D2Ms | ImageDim::D2MsArray)) => Some(format!(
            "no native run: WebGPU binds no {} storage texture",
            dim.glsl_name()
        )),
        _ if case.variant == Variant::Int64 => {
            Some("no native run: 64-bit storage textures are not bound natively".into())
        }
        // GLSL defines out-of-range image accesses; Vulkan leaves them
        // undefined unless the device enables robust image access.
        _ if case.variant == Variant::OutOfRange => Some(
            "no native run: out-of-range image accesses are undefined in Vulkan without robustImageAccess"
                .into(),
        ),
        _ => None,
    }
}

/// Runs one case on `ctx`.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_case(ctx: &Context, case: &Case, scale: Scale, opts: &RunOptions) -> Outcome {
    // Natively every wait inside is a blocking call: the future is ready
    // each time it is polled.
    pollster::block_on(run_case_async(ctx, case, scale, opts))
}

/// [`run_case`] as a future: the form a browser runs, where every
/// read-back is awaited.
pub async fn run_case_async(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Outcome {
    let backend = if opts.native {
        "native".to_string()
    } else {
        ctx.backend_name().to_string()
    };
    if let Some(why) = opts.native.then(|| no_native_run(case)).flatten() {
        return Outcome {
            name: case.name(),
            backend,
            passed: false,
            skipped: Some(why),
            detail: String::new(),
        };
    }
    let result = match case.variant {
        Variant::Counter(f) => run_counter(ctx, case, f, opts).await,
        Variant::Chain => run_chain(ctx, case, scale, opts).await,
        Variant::OutOfRange => run_out_of_range(ctx, case, scale, opts).await,
        Variant::MessagePassing => run_message_passing(ctx, case, scale, opts).await,
        Variant::Int64 if opts.target == crate::Platform::WebGpu => {
            return Outcome {
                name: case.name(),
                backend,
                passed: false,
                skipped: Some("WebGPU has no 64-bit atomics (SHADER_INT64_ATOMIC_ALL_OPS)".into()),
                detail: String::new(),
            };
        }
        Variant::Int64 => {
            let need = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
            if !ctx.device().features().contains(need) {
                return Outcome {
                    name: case.name(),
                    backend: backend.clone(),
                    passed: false,
                    skipped: Some(
                        "the device has no SHADER_INT64_ATOMIC_ALL_OPS (64-bit atomics)".into(),
                    ),
                    detail: String::new(),
                };
            }
            run_int64_image(ctx, case, scale, opts).await
        }
        Variant::Coherence => run_coherence(ctx, case, scale, opts).await,
        _ => run_standard(ctx, case, scale, opts).await,
    };
    let (passed, detail) = match result {
        Ok(None) => (true, String::new()),
        Ok(Some(why)) => (false, why),
        Err(e) => (false, e.to_string()),
    };
    Outcome {
        name: case.name(),
        backend: backend.clone(),
        passed,
        detail,
        skipped: None,
    }
}

/// For OpenGL GLSL: the loose uniforms' buffer, with each of `values` the
/// kernel has.
pub(super) fn uniforms(
    ctx: &Context,
    kernel: &Kernel,
    values: &[(&str, u32)],
) -> Result<Option<Buffer>> {
    if kernel.dialect() != Some(Dialect::OpenGl) {
        return Ok(None);
    }
    let Ok(mut u) = Uniforms::new(kernel) else {
        return Ok(None);
    };
    let present: Vec<String> = u.members().iter().map(|m| m.name.clone()).collect();
    for (name, v) in values.iter().chain(&[("u_compare", COMPARE)]) {
        if present.iter().any(|p| p == name) {
            u.set(name, *v)?;
        }
    }
    u.to_buffer(ctx).map(Some)
}

/// Binds `uniforms` (if any) after `binds`.
pub(super) fn with_uniforms<'a>(
    mut binds: Vec<Bind<'a>>,
    uniforms: &'a Option<Buffer>,
) -> Vec<Bind<'a>> {
    if let Some(u) = uniforms {
        binds.push(Bind::named(
            crate::lower::spirv::opengl::DEFAULT_UNIFORM_BLOCK,
            u,
        ));
    }
    binds
}

/// Runs `cases` on `ctx`, calling `progress` after each.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_all(
    ctx: &Context,
    cases: &[Case],
    scale: Scale,
    opts: &RunOptions,
    mut progress: impl FnMut(&Outcome),
) -> Vec<Outcome> {
    cases
        .iter()
        .map(|c| {
            let o = run_case(ctx, c, scale, opts);
            progress(&o);
            o
        })
        .collect()
}

/// The function × memory table: one row per function (int and uint
/// together), one column per memory kind; a cell is `ok` when every case in
/// it passed on every backend, `FAIL gl` (the failing backends) otherwise,
/// `-` where the matrix has no case, and `.` where its cases did not run
/// (skipped: the adapter lacks a feature they need).
pub fn summary_table(cases: &[Case], outcomes: &[Outcome]) -> String {
    let memories = Memory::all();
    let mut rows: Vec<String> = Vec::new();
    for c in cases {
        let label = c.function_label();
        if !rows.contains(&label) {
            rows.push(label);
        }
    }
    let width = rows.iter().map(|r| r.len()).max().unwrap_or(8).max(8);
    let cell_width = 9;
    let mut out = format!("{:width$}", "");
    for m in &memories {
        out.push_str(&format!(" {:>cell_width$}", m.name()));
    }
    out.push('\n');
    for row in &rows {
        out.push_str(&format!("{row:width$}"));
        for m in &memories {
            let names: Vec<String> = cases
                .iter()
                .filter(|c| c.memory == *m && &c.function_label() == row)
                .map(|c| c.name())
                .collect();
            let cell = if names.is_empty() {
                "-".to_string()
            } else {
                let mut failing: Vec<&str> = outcomes
                    .iter()
                    .filter(|o| !o.passed && o.skipped.is_none() && names.contains(&o.name))
                    .map(|o| o.backend.as_str())
                    .collect();
                failing.dedup();
                let ran = outcomes
                    .iter()
                    .any(|o| o.skipped.is_none() && names.contains(&o.name));
                match (ran, failing.is_empty()) {
                    (false, _) => ".".to_string(),
                    (true, true) => "ok".to_string(),
                    (true, false) => format!("FAIL {}", failing.join(",")),
                }
            };
            out.push_str(&format!(" {cell:>cell_width$}"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    //! The matrix fails when the mapping is broken on purpose (faults
    //! injected through the test-only hook), on every backend present.
    use super::*;
    use crate::lower::fault::{Fault, inject};
    use crate::validate::reference::AtomicOp;
    use crate::{BackendChoice, ContextOptions};

    fn contexts() -> Vec<Context> {
        let found: Vec<Context> = BackendChoice::SINGLE
            .into_iter()
            .filter_map(|b| Context::new(&ContextOptions::default().with_backend(b)).ok())
            .collect();
        assert!(!found.is_empty(), "no adapter on any backend");
        found
    }

    fn fails_with(fault: Fault, cases: &[Case]) {
        for ctx in contexts() {
            for c in cases {
                let o = inject(Some(fault), || {
                    run_case(&ctx, c, Scale::Small, &RunOptions::default())
                });
                assert!(
                    !o.passed,
                    "{} passed on {} with {fault:?}",
                    o.name,
                    ctx.backend_name()
                );
                assert!(!o.detail.is_empty());
                println!("{fault:?} caught by {}: {}", o.name, o.detail);
                // Without the fault the same case passes: the fault is what failed it.
                assert!(run_case(&ctx, c, Scale::Small, &RunOptions::default()).passed);
            }
        }
    }

    #[test]
    fn a_spurious_weak_compare_exchange_is_caught() {
        let case = |memory, variant| Case {
            op: AtomicOp::CompSwap,
            ty: ScalarType::U32,
            memory,
            variant,
            dialect: Dialect::Vulkan,
        };
        fails_with(
            Fault::SpuriousCompareExchange,
            &[
                case(Memory::Member, Variant::Standard),
                case(Memory::ArrayElement, Variant::Chain),
                case(Memory::Image(ImageDim::D2), Variant::Standard),
                case(Memory::Image(ImageDim::Cube), Variant::Chain),
            ],
        );
    }

    #[test]
    fn swapped_image_axes_are_caught() {
        let cases: Vec<Case> = [
            ImageDim::D2,
            ImageDim::Rect,
            ImageDim::D2Array,
            ImageDim::D2MsArray,
        ]
        .into_iter()
        .map(|d| Case {
            op: AtomicOp::Add,
            ty: ScalarType::I32,
            memory: Memory::Image(d),
            variant: Variant::Standard,
            dialect: Dialect::Vulkan,
        })
        .collect();
        fails_with(Fault::SwappedImageAxes, &cases);
    }
}
