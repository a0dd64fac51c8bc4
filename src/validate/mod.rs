//! Checking results: the CPU reference model of every GLSL atomic function
//! and the conformance matrix built on it; runs compared ([`diff`]); a
//! shader checked against its native run with generated inputs ([`check`]).

#[cfg(not(target_arch = "wasm32"))]
pub mod check;
/// In a browser, the inputs `check` generates from a kernel's declarations
/// (its runs, which need native adapters, are not there).
#[cfg(target_arch = "wasm32")]
pub mod check {
    #[path = "inputs.rs"]
    pub mod inputs;
    pub use inputs::Variant;
}
pub mod conformance;
pub mod diff;
pub mod reference;
