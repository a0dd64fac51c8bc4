//! Checking results: the CPU reference model of every GLSL atomic function
//! and the conformance matrix built on it.

pub mod conformance;
pub mod diff;
pub mod reference;
