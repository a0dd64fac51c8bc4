//! Which bound resources a dispatch reads back, and their bytes in the
//! order of its binds.

use crate::{Buffer, Kernel, Texture};

use super::{Bind, Resource, Slotted, writes};

/// The buffers among `binds` that can be read back (images' included; a
/// caller's buffer without COPY_SRC cannot).
pub(super) fn copyable_buffers<'b>(binds: &[Bind<'b>]) -> Vec<&'b Buffer> {
    binds
        .iter()
        .filter_map(|b| b.resource.buffer())
        .filter(|b| copyable(b))
        .collect()
}

fn copyable(b: &Buffer) -> bool {
    b.raw().usage().contains(wgpu::BufferUsages::COPY_SRC)
}

/// Per bind, the texture the kernel writes and that can be read back.
pub(super) fn written_textures<'b>(
    kernel: &Kernel,
    binds: &[Bind<'b>],
    slots: &[Slotted],
) -> Vec<Option<&'b Texture>> {
    binds
        .iter()
        .map(|b| match b.resource {
            Resource::Texture(t) if writes(kernel, slots, t) && t.is_copyable() => Some(t),
            _ => None,
        })
        .collect()
}

/// The bytes read back, in the order of `binds`: `buffers` as
/// [`copyable_buffers`] listed them, `textures` for the binds
/// [`written_textures`] named; what the kernel cannot write is empty.
pub(super) fn in_bind_order(
    binds: &[Bind],
    written: &[Option<&Texture>],
    buffers: Vec<Vec<u8>>,
    textures: Vec<Vec<u8>>,
) -> Vec<Vec<u8>> {
    let mut buffers = buffers.into_iter();
    let mut textures = textures.into_iter();
    binds
        .iter()
        .zip(written)
        .map(|(b, w)| match b.resource {
            Resource::Image(img) => img
                .texel_bytes(&buffers.next().unwrap_or_default())
                .to_vec(),
            Resource::Buffer(b) if copyable(b) => buffers.next().unwrap_or_default(),
            Resource::Texture(_) if w.is_some() => textures.next().unwrap_or_default(),
            _ => Vec::new(),
        })
        .collect()
}
