//! The runtime: adapter choice, buffers, and dispatch with bounded waits.

pub mod buffer;
pub mod context;
pub mod dispatch;
pub mod image;
pub mod texture;
pub mod uniforms;
