//! Memory layout: memory WGSL cannot type as 32-bit words ([`words`],
//! reading the declared layout through [`layout`], with the members the
//! binding map reports in [`declared`]), buffer
//! references as offsets into one arena ([`references`]),
//! images held in buffers and their texel addressing ([`texel`]), std140's
//! padded array strides ([`std140`]) and whole copies of memory that holds
//! atomics ([`copies`]). SPIR-V passes too, grouped because each keeps the
//! shader's own byte offsets, which the binding map reports to the host.

pub mod copies;
pub mod declared;
pub mod layout;
pub mod references;
pub mod std140;
pub mod texel;
pub mod words;
