//! Storage-image arrays held in one buffer ([`crate::BindingInfo::packed`]):
//! where each bound image goes in the shared buffer, and the copies that
//! move the images in before the dispatch and out after it, recorded in
//! the dispatch's own encoder so that the images stay the host's to read.

use super::{Resource, Slotted};
use crate::{BindingInfo, Context, Image, Kernel, Result};

/// One element's region of a packed binding's buffer.
pub(super) struct Region<'a> {
    pub(super) image: &'a Image,
    /// Where it starts, in bytes: a multiple of 16, so that it is a whole
    /// number of texels of any format.
    pub(super) offset: u64,
}

/// The regions of the packed binding `info`, in element order, from the
/// images `binds` gives it; `None` while an element is missing (the
/// checks name it).
pub(super) fn regions<'a>(info: &BindingInfo, binds: &[Slotted<'a>]) -> Option<Vec<Region<'a>>> {
    let mut given: Vec<(u32, &Image)> = binds
        .iter()
        .filter(|b| (b.group, b.binding) == (info.group, info.binding))
        .filter_map(|b| match b.resource {
            Resource::Image(i) => Some((b.element, i)),
            _ => None,
        })
        .collect();
    given.sort_by_key(|g| g.0);
    let complete =
        given.len() == info.packed.len() && given.iter().enumerate().all(|(k, g)| g.0 == k as u32);
    if !complete {
        return None;
    }
    let mut offset = 0;
    Some(
        given
            .into_iter()
            .map(|(_, image)| {
                let r = Region { image, offset };
                offset += image.buffer().raw().size().next_multiple_of(16);
                r
            })
            .collect(),
    )
}

/// The bytes the regions take.
pub(super) fn total(regions: &[Region]) -> u64 {
    regions
        .last()
        .map_or(0, |r| r.offset + r.image.buffer().raw().size())
}

/// Where each element of `info` starts, in texels of its format: the
/// values of its offset overrides.
pub(super) fn texel_offsets(info: &BindingInfo, regions: &[Region]) -> Vec<u32> {
    let texel = u64::from(info.image.map_or(4, |s| s.format.texel_bytes()));
    regions.iter().map(|r| (r.offset / texel) as u32).collect()
}

/// A buffer for every packed binding of `kernel`: (group, binding, buffer).
pub(super) type Packs = Vec<(u32, u32, wgpu::Buffer)>;

impl Context {
    /// New buffers for the packed bindings `binds` gives images to, each
    /// checked against the adapter's largest storage binding.
    pub(super) fn pack_buffers(&self, kernel: &Kernel, binds: &[Slotted]) -> Result<Packs> {
        let limit = self.device().limits().max_storage_buffer_binding_size;
        let mut out = Vec::new();
        for info in kernel.bindings().iter().filter(|i| !i.packed.is_empty()) {
            let Some(rs) = regions(info, binds) else {
                continue;
            };
            let len = total(&rs);
            if len > limit {
                return Err(crate::Error::Limit {
                    what: format!(
                        "the images bound to `{}`, held in one buffer",
                        info.display_name()
                    ),
                    value: len,
                    limit_name: "max_storage_buffer_binding_size",
                    limit,
                });
            }
            let buffer = self.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("atomport packed images"),
                size: len,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            out.push((info.group, info.binding, buffer));
        }
        Ok(out)
    }
}

/// Every packed binding's buffer with the regions its images take there.
pub(super) fn moves<'a, 'p>(
    kernel: &Kernel,
    binds: &[Slotted<'a>],
    packs: &'p Packs,
) -> Vec<(&'p wgpu::Buffer, Vec<Region<'a>>)> {
    packs
        .iter()
        .filter_map(|(group, binding, buffer)| {
            let info = kernel.binding(*group, *binding)?;
            Some((buffer, regions(info, binds)?))
        })
        .collect()
}

/// Records the copies of the images of `moves` into their buffers
/// (`into`), or back out of them.
pub(super) fn copy(
    encoder: &mut wgpu::CommandEncoder,
    moves: &[(&wgpu::Buffer, Vec<Region>)],
    into: bool,
) {
    for (buffer, regions) in moves {
        for r in regions {
            let image = r.image.buffer().raw();
            if into {
                encoder.copy_buffer_to_buffer(image, 0, buffer, r.offset, image.size());
            } else {
                encoder.copy_buffer_to_buffer(buffer, r.offset, image, 0, image.size());
            }
        }
    }
}
