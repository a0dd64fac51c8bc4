//! Bindings declared at one binding of the shader (see
//! [`crate::BindingInfo::alias_of`]): buffer blocks over one buffer, and
//! unsized arrays over one descriptor array (a bindless "mega set":
//! `image2D Images[]` and `uimage2D UImages[]`, or arrays of buffer blocks
//! of several types, at one binding, element k read through the array of
//! its type). WGSL gives each a binding of its own; here the host's
//! resources reach all of them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::kernel::{BindingKind, TextureDim};
use crate::{Buffer, Context, Error, Kernel, Result, Texture, TextureDesc};

use super::{Resource, Slotted};

/// The bindings of each class in `kernel`: (group, [the declared binding,
/// then the bindings moved off it]).
fn classes(kernel: &Kernel) -> Vec<(u32, Vec<u32>)> {
    let mut classes: Vec<(u32, Vec<u32>)> = Vec::new();
    for b in kernel.bindings() {
        let Some(of) = b.alias_of else { continue };
        match classes
            .iter_mut()
            .find(|(g, c)| *g == b.group && c[0] == of)
        {
            Some((_, c)) => c.push(b.binding),
            None => classes.push((b.group, vec![of, b.binding])),
        }
    }
    classes
}

/// What a class holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Buffer blocks over one buffer.
    Blocks,
    /// Arrays of buffer blocks over one array of buffers.
    BufferArrays,
    /// Arrays of images (textures, sampled or storage).
    ImageArrays,
}

/// What the class `class` of `group` holds.
fn holds(kernel: &Kernel, group: u32, class: &[u32]) -> Holds {
    let infos = || class.iter().filter_map(|&b| kernel.binding(group, b));
    if infos().any(|i| {
        matches!(
            i.kind,
            BindingKind::StorageTexture | BindingKind::SampledTexture
        )
    }) {
        Holds::ImageArrays
    } else if infos().any(|i| i.is_binding_array()) {
        Holds::BufferArrays
    } else {
        Holds::Blocks
    }
}

/// Sends what the host gave for each class where the kernel uses it. A
/// buffer given once (for any block of its class) is bound to every block
/// the kernel uses; a buffer given at a declared binding that only an alias
/// uses moves there. A texture given for an element of an image array goes
/// to the array of its class whose type fits it: the one it was named for
/// when that fits, otherwise the first that does (what does not fit any
/// stays, for the checks to name). The elements of buffer arrays stay
/// where they were given ([`Context::holes`] fills the others).
pub(super) fn route(kernel: &Kernel, out: &mut Vec<Slotted>) {
    for (group, class) in classes(kernel) {
        match holds(kernel, group, &class) {
            Holds::BufferArrays => {}
            Holds::Blocks => route_blocks(kernel, group, &class, out),
            Holds::ImageArrays => route_images(kernel, group, &class, out),
        }
    }
}

/// Each texture given for an element of an image array goes to the array
/// of the class whose type fits it.
fn route_images(kernel: &Kernel, group: u32, class: &[u32], out: &mut [Slotted]) {
    for s in out.iter_mut() {
        let Resource::Texture(t) = s.resource else {
            continue;
        };
        if s.group != group || !class.contains(&s.binding) {
            continue;
        }
        let fits = |b: u32| {
            kernel
                .binding(group, b)
                .is_some_and(|i| super::checks::texture_fits(i, t))
        };
        if !fits(s.binding)
            && let Some(&b) = class.iter().find(|&&b| fits(b))
        {
            s.binding = b;
        }
    }
}

/// A buffer given once for any block of a class is bound to every block
/// the kernel uses.
fn route_blocks(kernel: &Kernel, group: u32, class: &[u32], out: &mut Vec<Slotted>) {
    let given: Vec<Slotted> = out
        .iter()
        .filter(|s| s.group == group && class.contains(&s.binding))
        .copied()
        .collect();
    // Several given: the checks name the duplicate or the unused one.
    let [one] = given[..] else { return };
    out.retain(|s| !(s.group == group && s.binding == one.binding));
    for &binding in class {
        if kernel.binding(group, binding).is_some() {
            out.push(Slotted { binding, ..one });
        }
    }
}

/// What stands at one element of an array of a class that another array
/// of the class has the element of: a placeholder texture of the array's
/// type, or for buffer arrays the buffer given (when it holds the array's
/// block and the arrays are of one kind: read-only, writable or uniform)
/// or a zeroed one that does.
pub(crate) struct Hole<'a> {
    group: u32,
    binding: u32,
    element: u32,
    stand: Stand<'a>,
}

/// What a [`Hole`] binds.
enum Stand<'a> {
    Texture(Arc<Texture>),
    Buffer(Arc<Buffer>),
    Given(Resource<'a>),
}

/// `slots` with a slot for every hole: what the checks, the layout and the
/// bind groups see.
pub(crate) fn filled<'s>(slots: &[Slotted<'s>], holes: &'s [Hole<'s>]) -> Vec<Slotted<'s>> {
    let mut out = slots.to_vec();
    out.extend(holes.iter().map(|h| Slotted {
        group: h.group,
        binding: h.binding,
        element: h.element,
        resource: match &h.stand {
            Stand::Texture(t) => Resource::Texture(t),
            Stand::Buffer(b) => Resource::Buffer(b),
            Stand::Given(r) => *r,
        },
        placeholder: true,
    }));
    out
}

impl Context {
    /// The holes of `slots` (after [`route`]): in each class of arrays,
    /// every element up to the last given that an array lacks gets a
    /// stand-in of the array's type, so every array is as long as the
    /// descriptor array the shader declared. An element given to two
    /// arrays of a class (other than one buffer), or to none below the
    /// last, is an error naming it.
    pub(crate) fn holes<'a>(
        &self,
        kernel: &Kernel,
        slots: &[Slotted<'a>],
    ) -> Result<Vec<Hole<'a>>> {
        let mut holes = Vec::new();
        for (group, class) in classes(kernel) {
            let holds = holds(kernel, group, &class);
            if holds == Holds::Blocks {
                continue;
            }
            let class: Vec<&crate::BindingInfo> = class
                .iter()
                .filter_map(|&b| kernel.binding(group, b))
                .collect();
            // What is given in the class, by (binding, element): one pass
            // over the slots, however long the arrays.
            let given: HashMap<(u32, u32), &Slotted<'a>> = slots
                .iter()
                .filter(|s| s.group == group && class.iter().any(|i| i.binding == s.binding))
                .map(|s| ((s.binding, s.element), s))
                .collect();
            let n = given.keys().map(|&(_, k)| k + 1).max().unwrap_or(0);
            // Each array's stand-in texture, made once.
            let mut textures: Vec<Option<Arc<Texture>>> = vec![None; class.len()];
            for k in 0..n {
                let owners: Vec<(&&crate::BindingInfo, &Slotted<'a>)> = class
                    .iter()
                    .filter_map(|i| Some((i, *given.get(&(i.binding, k))?)))
                    .collect();
                let one = match owners[..] {
                    [] => {
                        return Err(Error::Dispatch(format!(
                            "element {k} of {} (declared at one binding, set {group}) is used by the kernel but was not given: bind {} (an unsized array takes its elements from 0 on, without a gap)",
                            names_of(&class),
                            names(&class, k)
                        )));
                    }
                    [(_, one)] => one,
                    [(a, x), (b, y), ..]
                        if x.resource.id() != y.resource.id() || holds == Holds::ImageArrays =>
                    {
                        return Err(Error::Dispatch(format!(
                            "`{}[{k}]` and `{}[{k}]` are one element: {} are declared at one binding (set {group}), so element {k} is bound once, and the kernel reads it through the array of its type",
                            a.display_name(),
                            b.display_name(),
                            names_of(&class)
                        )));
                    }
                    [(_, one), ..] => one,
                };
                let owner = kernel.binding(group, one.binding).map(|i| i.kind);
                for (at, info) in class.iter().enumerate() {
                    if given.contains_key(&(info.binding, k)) {
                        continue;
                    }
                    // wgpu binds a buffer read-only and writable in one
                    // dispatch nowhere: across kinds, a zeroed one stands in.
                    let stand = match (holds, one.resource) {
                        (Holds::BufferArrays, Resource::Buffer(b))
                            if b.len() >= info.min_size && owner == Some(info.kind) =>
                        {
                            Stand::Given(one.resource)
                        }
                        (Holds::BufferArrays, _) => Stand::Buffer(self.placeholder_buffer(info)?),
                        _ => {
                            if textures[at].is_none() {
                                textures[at] = Some(self.placeholder(info, slots)?);
                            }
                            Stand::Texture(textures[at].clone().expect("made above"))
                        }
                    };
                    holes.push(Hole {
                        group,
                        binding: info.binding,
                        element: k,
                        stand,
                    });
                }
            }
        }
        Ok(holes)
    }

    /// The context's zeroed buffer that holds the block of the buffer array
    /// `info`, one per size and kind (read-only, writable, uniform: wgpu
    /// binds no buffer read-only and writable in one dispatch). The kernel
    /// reads an element only through the array of its type, so a stand-in
    /// is never read for what it holds.
    // On wasm32 wgpu's buffers are neither Send nor Sync; the page runs
    // atomport on one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    fn placeholder_buffer(&self, info: &crate::BindingInfo) -> Result<Arc<Buffer>> {
        let key = (info.min_size.max(16), info.kind);
        let mut cache = self
            .placeholder_buffers
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(b) = cache.get(&key) {
            return Ok(b.clone());
        }
        let buffer = Arc::new(Buffer::zeroed(self, key.0)?);
        cache.insert(key, buffer.clone());
        Ok(buffer)
    }

    /// The context's 1-texel (6 for a cube) zeroed texture of the type of
    /// the image array `info`: its declared format; for a formatless one
    /// the format of a texture given to it that fits, else the 32-bit one of its
    /// sample type, which WebGPU reads and writes; for a sampled one a
    /// format of its sample type.
    // On wasm32 wgpu's textures are neither Send nor Sync; the page runs
    // atomport on one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    fn placeholder(&self, info: &crate::BindingInfo, slots: &[Slotted]) -> Result<Arc<Texture>> {
        use wgpu::TextureFormat as F;
        let unbindable = || {
            Error::Dispatch(format!(
                "`{}` has no element of its own to stand in for the elements of the arrays declared at its binding: WebGPU has no such texture",
                info.display_name()
            ))
        };
        let t = info.texture.as_ref().ok_or_else(unbindable)?;
        let dim = t.dim.filter(|_| !t.multisampled).ok_or_else(unbindable)?;
        let bound = slots.iter().find_map(|s| match s.resource {
            Resource::Texture(x)
                if s.group == info.group
                    && s.binding == info.binding
                    && super::checks::texture_fits(info, x) =>
            {
                Some(x.desc().format)
            }
            _ => None,
        });
        let by_sample = match (info.kind, t.sample) {
            (BindingKind::SampledTexture, "float") => F::Rgba8Unorm,
            (BindingKind::SampledTexture, "depth") => F::Depth32Float,
            (_, "uint") => F::R32Uint,
            (_, "sint") => F::R32Sint,
            _ => F::R32Float,
        };
        let format = match (&t.format, t.format_from_host) {
            (Some(f), false) => crate::runtime::texture::parse_format(f).unwrap_or(by_sample),
            _ => bound.unwrap_or(by_sample),
        };
        let key = (format, dim);
        let mut cache = self.placeholders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(&key) {
            return Ok(t.clone());
        }
        let size: &[u32] = match dim {
            TextureDim::D1 => &[1],
            TextureDim::D2 | TextureDim::Cube => &[1, 1],
            _ => &[1, 1, 1],
        };
        let texture = Arc::new(Texture::zeroed(
            self,
            TextureDesc::new(dim, format, size, 1)?,
        )?);
        cache.insert(key, texture.clone());
        Ok(texture)
    }
}

/// `A[k]` or `B[k]`…, for messages.
fn names(class: &[&crate::BindingInfo], k: u32) -> String {
    class
        .iter()
        .map(|i| format!("`{}[{k}]`", i.display_name()))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// `A` and `B`…, for messages.
fn names_of(class: &[&crate::BindingInfo]) -> String {
    class
        .iter()
        .map(|i| format!("`{}`", i.display_name()))
        .collect::<Vec<_>>()
        .join(" and ")
}
