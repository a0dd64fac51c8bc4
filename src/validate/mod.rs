//! Checking results: the CPU reference model of every GLSL atomic function
//! and the conformance matrix built on it; runs compared ([`diff`]); a
//! shader checked against its native run with generated inputs ([`check`]).

#[cfg(not(target_arch = "wasm32"))]
pub mod check;
pub mod conformance;
pub mod diff;
pub mod reference;
