//! atomport runs GLSL compute shaders that use atomics on any wgpu backend
//! (Vulkan, Metal, DX12, GL) with the semantics the GLSL reference pages
//! promise: it translates GLSL or SPIR-V to WGSL plus a binding map, checks
//! every binding and limit before anything is submitted, and dispatches on
//! its own device or on yours, never waiting longer than a timeout.
//!
//! ```no_run
//! use atomport::{Bind, Buffer, Context, ContextOptions, Kernel, SourceOptions};
//!
//! let kernel = Kernel::from_wgsl(
//!     "@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
//!      @compute @workgroup_size(64) fn main() { atomicAdd(&counter, 1u); }",
//!     &SourceOptions::default(),
//! )?;
//! let ctx = Context::new(&ContextOptions::from_env()?.with_features(kernel.required_features()))?;
//! let counter = Buffer::zeroed(&ctx, 4)?;
//! ctx.dispatch(&kernel, [16, 1, 1], &[Bind::new(0, 0, &counter)])?;
//! assert_eq!(counter.read::<u32>(&ctx)?, vec![1024]);
//! # Ok::<(), atomport::Error>(())
//! ```
//!
//! # What to call
//!
//! **Translating** (always built):
//! - [`Kernel`]: a shader made runnable — [`Kernel::from_glsl`],
//!   [`Kernel::from_spirv`], [`Kernel::from_wgsl`], [`Kernel::from_path`],
//!   or [`Kernel::from_translation`] for one translated ahead of time. Its
//!   WGSL, entry point, workgroup size, [`Kernel::required_features`] (to
//!   open a device with) and binding map.
//! - [`SourceOptions`] says how to read a shader: its name in messages, the
//!   entry point, `-D` defines and include folders, the GLSL [`Dialect`],
//!   the Vulkan version ([`TargetEnv`]), specialization values
//!   ([`Specialization`], [`SpecKey`]) and the translation's timeout.
//! - The binding map, the contract with the host: [`BindingInfo`] per
//!   binding ([`BindingKind`], [`Member`], [`TextureInfo`], [`TextureDim`],
//!   [`ImageShape`], [`ArrayLength`], [`Counter`], [`OpenGlOrigin`],
//!   [`OpenGlKind`]), and [`BindingMap`] as `atomport translate --bindings`
//!   prints it.
//! - [`Warning`]: a guarantee the shader asks for that WGSL gives only in
//!   part (acquire/release, `coherent`), said once per kernel.
//! - Ahead of time: [`Translation`] (WGSL and binding map, to and from
//!   JSON), [`translate`] and [`translate_file`], [`build::translate_dir`]
//!   in a build script, [`include_kernel!`] to load its output, and
//!   [`compile_glsl`] / [`spirv_words`] for the SPIR-V itself.
//!
//! **Running** (feature `runtime`; `native` adds wgpu's native backends):
//! - [`Context`]: an adapter and device, atomport's own
//!   ([`Context::new`] with [`ContextOptions`], [`BackendChoice`]; what is
//!   there: [`adapters`], [`AdapterSummary`]) or yours
//!   ([`Context::from_wgpu`]).
//! - Resources: [`Buffer`], [`Image`] ([`ImageDesc`], [`ImageDim`],
//!   [`ImageFormat`], [`TexelAddress`]: a GLSL storage image, atomics
//!   included), [`Texture`] ([`TextureDesc`]), [`Sampler`] ([`SamplerDesc`]),
//!   [`Uniforms`] ([`UniformValue`]: uniform and push-constant blocks set by
//!   member name), and [`Arena`] ([`Region`]: buffers reached by address).
//! - Dispatch: [`Bind`] a [`Resource`] by GLSL name or by set and binding,
//!   then [`Context::dispatch`], [`Context::dispatch_indirect`],
//!   [`Context::encode_into`] your encoder ([`Workgroups`]), or a [`Batch`]
//!   of dispatches and copies ([`Target`]) submitted once.
//! - [`runtime::run`]: a run read back in its shapes, as `atomport run`
//!   prints it; [`validate`]: the CPU reference model, the conformance
//!   matrix and the comparison of runs.
//!
//! **Host data**: [`ElementType`] and [`ScalarType`] name what a buffer
//! holds; [`f32_to_half`] and [`half_to_f32`] convert `float16_t` values;
//! [`ChannelKind`] says what an image format's texels hold.
//!
//! **Errors**: one [`Error`] ([`Result`]), a shader's with its file, line
//! and column ([`ShaderError`]), wgpu's with its kind ([`WgpuErrorKind`]); [`FEATURES`] names the optional wgpu
//! features a kernel may need.
//!
//! # Features
//!
//! | feature | what it adds |
//! |---|---|
//! | `glsl` (default) | GLSL input through glslang (C++) |
//! | `native` (default) | the runtime on wgpu's Vulkan, GL, Metal and DX12 backends |
//! | `runtime` | the runtime without choosing a backend |
//! | `png` | `runtime::texture::read_png` and `write_png`: textures from and to PNG files |
//!
//! Without default features atomport is the translator alone, for a build
//! script: no wgpu backend, no C++ unless `glsl` is asked for.

#![warn(missing_docs)]

// README.md's Rust examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

// The translator names wgpu's feature, limit and format types through
// wgpu-types, so that it builds without wgpu's backends (in a build script).
extern crate wgpu_types as wgt;

mod error;
mod formats;
mod front;
mod kernel;
mod lower;
#[cfg(feature = "runtime")]
pub mod runtime;
mod scalar;
mod translate;
#[cfg(feature = "runtime")]
pub mod validate;

pub use error::{Error, FEATURES, Result, ShaderError, WgpuErrorKind};

/// Reading the files a user names as atomport reads shaders: bounded in
/// size, and refusing what is not a regular file before reading anything
/// (a FIFO would block, `/dev/zero` never ends). For programs that load
/// user-named inputs beside their shaders, as the CLI loads buffer files.
/// And which files of a shader folder are compute shaders, by the rule
/// `atomport check FOLDER` and [`build::translate_dir`] share.
pub mod files {
    pub use crate::front::folder::{is_compute_shader, kernel_name};
    pub use crate::front::{MAX_SOURCE_BYTES, read_bounded, read_text};
}
pub use front::annotations::Annotations;
pub use front::{
    BINDING_ARRAY_FEATURES, Dialect, GlslVersion, Platform, SourceOptions, SpecKey, Specialization,
    TargetEnv,
};
pub use kernel::{
    ArrayLength, BindingInfo, BindingKind, BindingMap, Counter, Form, ImageShape, Kernel, Lang,
    Member, PackedElement, TextureDim, TextureInfo,
};
pub use lower::memory::texel::{ChannelKind, ImageDim, ImageFormat, TexelAddress};
pub use lower::spirv::compat::Warning;
pub use lower::spirv::opengl::{OpenGlKind, OpenGlOrigin};
/// The naga whose module [`Kernel::module`] gives.
pub use naga;
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::arena::{Arena, Region};
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::buffer::Buffer;
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::context::{AdapterSummary, BackendChoice, Context, ContextOptions, adapters};
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::dispatch::{Batch, Bind, Resource, Target, Workgroups};
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::image::{Image, ImageDesc};
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::texture::{Sampler, SamplerDesc, Texture, TextureDesc};
#[cfg(feature = "runtime")]
#[doc(inline)]
pub use runtime::uniforms::{UniformValue, Uniforms};
pub use scalar::{ElementType, ScalarType, f32_to_half, half_to_f32};
pub use translate::{Translation, build, compile_glsl, spirv_words, translate, translate_file};
/// The wgpu atomport is built on, for callers that share its device.
#[cfg(feature = "runtime")]
pub use wgpu;
/// The wgpu types (features, limits, formats) the translator names, for
/// callers built without the `runtime` feature.
pub use wgpu_types;

/// On a machine without a window system, Mesa's EGL and its device-select
/// Vulkan layer probe Wayland and X and print an error about
/// `XDG_RUNTIME_DIR` on stderr; wgpu uses the surfaceless platform anyway.
/// When neither `DISPLAY` nor `WAYLAND_DISPLAY` is set, this says so up
/// front (`EGL_PLATFORM=surfaceless`, `NODEVICE_SELECT=1`), unless those are
/// already set.
///
/// # Safety
/// It sets environment variables: call it first thing in `main`, before any
/// other thread exists.
#[cfg(feature = "runtime")]
pub unsafe fn quiet_headless_probing() {
    let unset = |k| std::env::var_os(k).is_none();
    if unset("EGL_PLATFORM") && unset("WAYLAND_DISPLAY") && unset("DISPLAY") {
        // SAFETY: the caller guarantees no other thread reads the environment.
        unsafe {
            std::env::set_var("EGL_PLATFORM", "surfaceless");
            if unset("NODEVICE_SELECT") {
                std::env::set_var("NODEVICE_SELECT", "1");
            }
        }
    }
}

/// Stack of the threads that translate shaders and compile pipelines:
/// glslang, naga and the drivers' compilers recurse once per level of
/// nesting (a sum of 15 000 terms is 15 000 levels). Only what is touched
/// is ever committed.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) const DEEP_STACK: usize = 256 << 20;

thread_local! {
    /// How many [`guard`] calls are active on this thread.
    static GUARDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Installs, once, a panic hook that stays silent for panics [`guard`] turns
/// into errors (the error says it all) and defers to the previous hook otherwise.
fn quiet_panics_in_guard() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(|g| g.get()) == 0 {
                previous(info);
            } else if log::log_enabled!(log::Level::Debug) {
                // Where a guarded panic came from, for whoever debugs it.
                let trace = std::backtrace::Backtrace::force_capture();
                log::debug!("guarded panic: {info}\n{trace}");
            }
        }));
    });
}

/// Runs `f` and turns a panic inside it (naga, glslang glue) into
/// [`Error::Internal`] naming `what`, so that bad input never aborts the caller.
pub(crate) fn guard<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    guard_with(f, |msg| Error::Internal(format!("{what} panicked: {msg}")))
}

/// [`guard`] with the error a panic becomes chosen by the caller: a
/// reader that panics on a module's bytes was given malformed input.
pub(crate) fn guard_with<T>(
    f: impl FnOnce() -> Result<T>,
    on_panic: impl FnOnce(String) -> Error,
) -> Result<T> {
    quiet_panics_in_guard();
    GUARDED.with(|g| g.set(g.get() + 1));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    match out {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(on_panic(msg))
        }
    }
}
