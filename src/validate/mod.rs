//! Checking results: the CPU reference model of every GLSL atomic function.

pub mod reference;
