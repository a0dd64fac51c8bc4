//! The runtime: adapter choice ([`context`]), the resources a kernel binds
//! ([`buffer`], [`arena`], [`image`], [`texture`], [`uniforms`]), checked dispatch with
//! bounded waits ([`dispatch`]), runs read back in their shapes ([`run`])
//! and the native reference run of the original SPIR-V ([`native`]). Its types are re-exported at the crate's root; the modules
//! hold the helpers that go with them (texel encoding, PNG files).

pub mod arena;
pub mod buffer;
pub mod context;
pub mod dispatch;
pub mod image;
pub mod job;
pub mod native;
pub mod run;
pub mod texture;
pub mod uniforms;
#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(not(target_arch = "wasm32"))]
mod worker;

/// `Send` natively, where the GPU work runs on a thread of its own; nothing
/// in a browser, where wgpu's types are not `Send` and nothing leaves the
/// caller's thread.
pub(crate) use wgpu::WasmNotSend as MaybeSend;
