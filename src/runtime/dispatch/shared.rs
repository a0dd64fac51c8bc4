//! Bindings declared at one binding of the shader (see
//! [`crate::BindingInfo::alias_of`]): buffer blocks over one buffer, and
//! unsized image arrays over one descriptor array (a bindless "mega set":
//! `image2D Images[]` and `uimage2D UImages[]` at one binding, element k
//! read through the array of its type). WGSL gives each a binding of its
//! own; here the host's resources reach all of them.

use std::sync::Arc;

use crate::kernel::{BindingKind, TextureDim};
use crate::{Context, Error, Kernel, Result, Texture, TextureDesc};

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

/// Whether the class is of image arrays (textures, sampled or storage).
fn of_textures(kernel: &Kernel, group: u32, class: &[u32]) -> bool {
    class.iter().any(|&b| {
        kernel.binding(group, b).is_some_and(|i| {
            matches!(
                i.kind,
                BindingKind::StorageTexture | BindingKind::SampledTexture
            )
        })
    })
}

/// Sends what the host gave for each class where the kernel uses it. A
/// buffer given once (for any block of its class) is bound to every block
/// the kernel uses; a buffer given at a declared binding that only an alias
/// uses moves there. A texture given for an element of an image array goes
/// to the array of its class whose type fits it: the one it was named for
/// when that fits, otherwise the first that does (what does not fit any
/// stays, for the checks to name).
pub(super) fn route(kernel: &Kernel, out: &mut Vec<Slotted>) {
    for (group, class) in classes(kernel) {
        if of_textures(kernel, group, &class) {
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
            continue;
        }
        let given: Vec<Slotted> = out
            .iter()
            .filter(|s| s.group == group && class.contains(&s.binding))
            .copied()
            .collect();
        // Several given: the checks name the duplicate or the unused one.
        let [one] = given[..] else { continue };
        out.retain(|s| !(s.group == group && s.binding == one.binding));
        for &binding in &class {
            if kernel.binding(group, binding).is_some() {
                out.push(Slotted { binding, ..one });
            }
        }
    }
}

/// A placeholder texture bound at one element of an image array whose
/// class has another array's texture there.
pub(crate) struct Hole {
    group: u32,
    binding: u32,
    element: u32,
    texture: Arc<Texture>,
}

/// `slots` with a slot for every hole: what the checks, the layout and the
/// bind groups see.
pub(crate) fn filled<'s>(slots: &[Slotted<'s>], holes: &'s [Hole]) -> Vec<Slotted<'s>> {
    let mut out = slots.to_vec();
    out.extend(holes.iter().map(|h| Slotted {
        group: h.group,
        binding: h.binding,
        element: h.element,
        resource: Resource::Texture(&h.texture),
        placeholder: true,
    }));
    out
}

impl Context {
    /// The holes of `slots` (after [`route`]): in each class of image
    /// arrays, every element up to the last given that an array lacks gets
    /// a placeholder texture of the array's type, so every array is as long
    /// as the descriptor array the shader declared. An element given to two
    /// arrays of a class, or to none below the last, is an error naming it.
    pub(crate) fn holes(&self, kernel: &Kernel, slots: &[Slotted]) -> Result<Vec<Hole>> {
        let mut holes = Vec::new();
        for (group, class) in classes(kernel) {
            if !of_textures(kernel, group, &class) {
                continue;
            }
            let class: Vec<&crate::BindingInfo> = class
                .iter()
                .filter_map(|&b| kernel.binding(group, b))
                .collect();
            let given = |info: &crate::BindingInfo, k: u32| {
                slots
                    .iter()
                    .find(|s| s.group == group && s.binding == info.binding && s.element == k)
            };
            let n = slots
                .iter()
                .filter(|s| s.group == group && class.iter().any(|i| i.binding == s.binding))
                .map(|s| s.element + 1)
                .max()
                .unwrap_or(0);
            for k in 0..n {
                let owners: Vec<&&crate::BindingInfo> =
                    class.iter().filter(|i| given(i, k).is_some()).collect();
                match owners[..] {
                    [] => {
                        return Err(Error::Dispatch(format!(
                            "element {k} of {} (declared at one binding, set {group}) is used by the kernel but was not given: bind {} (an unsized array takes its elements from 0 on, without a gap)",
                            names_of(&class),
                            names(&class, k)
                        )));
                    }
                    [_] => {}
                    [a, b, ..] => {
                        return Err(Error::Dispatch(format!(
                            "`{}[{k}]` and `{}[{k}]` are one element: {} are declared at one binding (set {group}), so element {k} is bound once, and the kernel reads it through the array of its type",
                            a.display_name(),
                            b.display_name(),
                            names_of(&class)
                        )));
                    }
                }
                for info in class.iter().filter(|i| given(i, k).is_none()) {
                    holes.push(Hole {
                        group,
                        binding: info.binding,
                        element: k,
                        texture: self.placeholder(info, slots)?,
                    });
                }
            }
        }
        Ok(holes)
    }

    /// The context's 1-texel (6 for a cube) zeroed texture of the type of
    /// the image array `info`: its declared format; for a formatless one
    /// the format of a texture given to it that fits, else the 32-bit one of its
    /// sample type, which WebGPU reads and writes; for a sampled one a
    /// format of its sample type.
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
