//! [`Arena`]: the buffers a kernel reaches by address (`GL_EXT_buffer_reference`).
//!
//! WGSL has no pointers into memory by address, so atomport keeps every
//! addressable buffer in one storage buffer, bound by name as
//! [`Arena::BINDING`]; a buffer's address is [`Arena::BASE`] plus its byte
//! offset there (atomport's buffer-reference pass). Write
//! the addresses where the shader reads its references — push constants,
//! uniforms, other buffers — as the `uint64_t` they are.

use crate::{Bind, Buffer, Context, Error, Result};

/// One addressable buffer in an [`Arena`]: its name and where it lies, so
/// that the host writes its address where the shader reads a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its name.
    pub name: String,
    /// Its byte offset in the arena.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
}

/// Addressable buffers, in the one storage buffer a kernel with buffer
/// references binds as [`Arena::BINDING`].
#[derive(Debug)]
pub struct Arena {
    buffer: Buffer,
    regions: Vec<Region>,
}

impl Arena {
    /// The binding name of the arena in every kernel with buffer references.
    pub const BINDING: &'static str = crate::lower::memory::references::ARENA;
    /// The address of the arena's first byte (0 is never a buffer's).
    pub const BASE: u64 = crate::lower::memory::references::ARENA_BASE;
    /// Every buffer starts at a multiple of this (the largest
    /// `buffer_reference_align` the field uses).
    pub const ALIGN: u64 = 16;
    /// Bytes kept at the arena's end for accesses at addresses outside it:
    /// an 8-byte slot read, one written.
    const RESERVED: u64 = 16;

    /// Where buffers of these (name, length in bytes) go in an arena, in
    /// order: each at the next multiple of [`Arena::ALIGN`]. The same
    /// lengths always get the same offsets, so a caller can know every
    /// address before it makes the bytes that hold addresses.
    pub fn layout(buffers: &[(&str, u64)]) -> Result<Vec<Region>> {
        let mut regions: Vec<Region> = Vec::new();
        let mut end = 0u64;
        for &(name, len) in buffers {
            if regions.iter().any(|r| r.name == name) {
                return Err(Error::Resource(format!(
                    "the arena has two buffers named `{name}`"
                )));
            }
            let offset = end.next_multiple_of(Self::ALIGN);
            regions.push(Region {
                name: name.to_string(),
                offset,
                len,
            });
            end = offset + len;
        }
        Ok(regions)
    }

    /// An arena holding `buffers` (name, initial bytes), laid out as
    /// [`Arena::layout`] says; its size is checked against the adapter's
    /// largest storage binding before anything is allocated.
    pub fn new(ctx: &Context, buffers: &[(&str, &[u8])]) -> Result<Arena> {
        let lens: Vec<(&str, u64)> = buffers.iter().map(|(n, b)| (*n, b.len() as u64)).collect();
        let regions = Self::layout(&lens)?;
        let size = Self::size(ctx, &regions)?;
        let mut bytes = vec![0u8; size as usize];
        for (r, (_, b)) in regions.iter().zip(buffers) {
            bytes[r.offset as usize..(r.offset + r.len) as usize].copy_from_slice(b);
        }
        let buffer = Buffer::from_bytes_labeled(ctx, &bytes, Self::BINDING)?;
        Ok(Arena { buffer, regions })
    }

    /// The bytes an arena of `regions` (as [`Arena::layout`] placed them)
    /// takes on `ctx`'s device, checked against its largest storage binding.
    pub fn size(ctx: &Context, regions: &[Region]) -> Result<u64> {
        let end = regions.iter().map(|r| r.offset + r.len).max().unwrap_or(0);
        // A multiple of 8: the 64-bit views index it by 8 bytes.
        let size = end.next_multiple_of(8) + Self::RESERVED;
        // An address's low word is the offset: never past 4 GiB.
        let limit = ctx
            .limits()
            .max_storage_buffer_binding_size
            .min(ctx.limits().max_buffer_size)
            .min(u64::from(u32::MAX));
        if size > limit {
            return Err(Error::Limit {
                what: "the arena of addressable buffers, in bytes,".into(),
                value: size,
                limit_name: "max_storage_buffer_binding_size",
                limit,
            });
        }
        Ok(size)
    }

    /// The buffers, in the order given.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    fn region(&self, name: &str) -> Result<&Region> {
        self.regions.iter().find(|r| r.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.regions.iter().map(|r| r.name.as_str()).collect();
            Error::UnknownName(format!(
                "the arena has no buffer named `{name}` (its buffers: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ))
        })
    }

    /// The address of buffer `name`, as the shader's references hold it.
    pub fn address(&self, name: &str) -> Result<u64> {
        Ok(Self::BASE + self.region(name)?.offset)
    }

    /// The storage buffer that holds them all.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// The binding of the arena, for a dispatch's binds.
    pub fn bind(&self) -> Bind<'_> {
        Bind::named(Self::BINDING, &self.buffer)
    }

    /// The bytes of buffer `name` now (after the work submitted).
    pub fn read(&self, ctx: &Context, name: &str) -> Result<Vec<u8>> {
        let r = self.region(name)?.clone();
        let all: Vec<u8> = self.buffer.read(ctx)?;
        Ok(all[r.offset as usize..(r.offset + r.len) as usize].to_vec())
    }
}
