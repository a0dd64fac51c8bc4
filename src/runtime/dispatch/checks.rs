//! The checks before anything is submitted: the kernel against the
//! device (features, limits), the workgroup counts, and every binding
//! against the kernel's map (given once, of the right kind and size).

use crate::kernel::{ArrayLength, BindingKind};
use crate::{Context, Error, Kernel, Result, Texture};

use super::{Resource, Slotted, Workgroups};

impl Context {
    /// Checks the kernel against the device: features, workgroup size and
    /// invocations, workgroup memory, bind groups and binding numbers.
    pub(super) fn check_kernel(&self, kernel: &Kernel) -> Result<()> {
        let limits = self.limits_ref();
        let missing = kernel.required_features() - self.device().features();
        if !missing.is_empty() {
            let feature = crate::error::describe_features(missing);
            return Err(if self.adapter_has(missing) {
                Error::FeatureNotRequested { feature }
            } else {
                Error::MissingFeature {
                    adapter: self.adapter_name().to_string(),
                    feature,
                }
            });
        }
        // The WGSL's workgroups, which the device runs.
        let size = kernel.wgsl_workgroup_size();
        let axis_limits = [
            (
                "max_compute_workgroup_size_x",
                limits.max_compute_workgroup_size_x,
            ),
            (
                "max_compute_workgroup_size_y",
                limits.max_compute_workgroup_size_y,
            ),
            (
                "max_compute_workgroup_size_z",
                limits.max_compute_workgroup_size_z,
            ),
        ];
        for ((axis, &n), (limit_name, limit)) in ["x", "y", "z"].iter().zip(&size).zip(axis_limits)
        {
            if n > limit {
                return Err(Error::Limit {
                    what: format!("the workgroup size in {axis} (local_size_{axis})"),
                    value: n.into(),
                    limit_name,
                    limit: limit.into(),
                });
            }
        }
        let invocations = size.iter().map(|&n| u64::from(n)).product::<u64>();
        if invocations > limits.max_compute_invocations_per_workgroup.into() {
            return Err(Error::Limit {
                what: format!(
                    "the invocations per workgroup ({}x{}x{})",
                    size[0], size[1], size[2]
                ),
                value: invocations,
                limit_name: "max_compute_invocations_per_workgroup",
                limit: limits.max_compute_invocations_per_workgroup.into(),
            });
        }
        if kernel.workgroup_memory() > limits.max_compute_workgroup_storage_size.into() {
            return Err(Error::Limit {
                what: "the shared (workgroup) memory in bytes".into(),
                value: kernel.workgroup_memory(),
                limit_name: "max_compute_workgroup_storage_size",
                limit: limits.max_compute_workgroup_storage_size.into(),
            });
        }
        self.check_per_stage(kernel, limits)?;
        for b in kernel.bindings() {
            if b.group >= limits.max_bind_groups {
                return Err(Error::Limit {
                    what: format!("the bind group (set) of `{}`", b.display_name()),
                    value: b.group.into(),
                    limit_name: "max_bind_groups (groups are numbered from 0)",
                    limit: limits.max_bind_groups.into(),
                });
            }
            if b.binding >= limits.max_bindings_per_bind_group {
                return Err(Error::Limit {
                    what: format!("the binding number of `{}`", b.display_name()),
                    value: b.binding.into(),
                    limit_name: "max_bindings_per_bind_group (bindings are numbered from 0)",
                    limit: limits.max_bindings_per_bind_group.into(),
                });
            }
        }
        Ok(())
    }

    /// Checks how many resources of each kind the kernel binds against the
    /// device's per-stage limits (a device gets WebGPU's defaults unless it
    /// asks for more: 8 storage buffers, 4 storage textures, …). Binding
    /// arrays count their elements where they are sized; images held in
    /// texel buffers are storage buffers.
    fn check_per_stage(&self, kernel: &Kernel, limits: &wgpu::Limits) -> Result<()> {
        let count = |kinds: &[BindingKind]| -> u64 {
            kernel
                .bindings()
                .iter()
                .filter(|b| kinds.contains(&b.kind))
                .map(|b| match b.array {
                    Some(ArrayLength::Fixed(n)) if b.is_binding_array() => u64::from(n),
                    _ => 1,
                })
                .sum()
        };
        let per_stage = [
            (
                count(&[
                    BindingKind::StorageRead,
                    BindingKind::StorageReadWrite,
                    BindingKind::Image,
                ]),
                "storage buffers",
                "max_storage_buffers_per_shader_stage",
                limits.max_storage_buffers_per_shader_stage,
            ),
            (
                count(&[BindingKind::StorageTexture]),
                "storage textures",
                "max_storage_textures_per_shader_stage",
                limits.max_storage_textures_per_shader_stage,
            ),
            (
                count(&[BindingKind::Uniform]),
                "uniform buffers",
                "max_uniform_buffers_per_shader_stage",
                limits.max_uniform_buffers_per_shader_stage,
            ),
            (
                count(&[BindingKind::SampledTexture]),
                "sampled textures",
                "max_sampled_textures_per_shader_stage",
                limits.max_sampled_textures_per_shader_stage,
            ),
            (
                count(&[BindingKind::Sampler]),
                "samplers",
                "max_samplers_per_shader_stage",
                limits.max_samplers_per_shader_stage,
            ),
        ];
        for (value, what, limit_name, limit) in per_stage {
            if value > u64::from(limit) {
                return Err(Error::Limit {
                    what: format!("the {what} the kernel binds"),
                    value,
                    limit_name,
                    limit: limit.into(),
                });
            }
        }
        Ok(())
    }

    /// Checks a dispatch's workgroup counts and bindings.
    pub(crate) fn check(
        &self,
        kernel: &Kernel,
        workgroups: Workgroups,
        binds: &[Slotted],
    ) -> Result<()> {
        let limits = self.limits_ref();
        match workgroups {
            Workgroups::Count(groups) => self.check_groups(kernel, groups, limits)?,
            Workgroups::Indirect { buffer, offset } => {
                if kernel.workgroup_split() != [1; 3] {
                    let (s, w) = (kernel.workgroup_size(), kernel.wgsl_workgroup_size());
                    return Err(Error::Dispatch(format!(
                        "indirect dispatch: this translation split each {}x{}x{} workgroup into workgroups of {}x{}x{} for WebGPU's default limits (Kernel::workgroup_split), and the counts in the buffer are not multiplied on the way; dispatch it with counts, or give the device limits that hold the whole workgroup and translate for the native target",
                        s[0], s[1], s[2], w[0], w[1], w[2]
                    )));
                }
                if !offset.is_multiple_of(4)
                    || offset.checked_add(12).is_none_or(|end| end > buffer.len())
                {
                    return Err(Error::Dispatch(format!(
                        "indirect dispatch arguments at offset {offset}: three u32 counts need a 4-byte-aligned offset and 12 bytes in a buffer of {}",
                        buffer.len()
                    )));
                }
                if !buffer.raw().usage().contains(wgpu::BufferUsages::INDIRECT) {
                    return Err(Error::Dispatch(
                        "the buffer of indirect dispatch arguments lacks INDIRECT usage".into(),
                    ));
                }
            }
        }
        self.check_binds(kernel, binds, limits)
    }

    /// Checks workgroup counts: none 0, each within the adapter's limit, and
    /// 32-bit ids that do not wrap.
    pub(super) fn check_groups(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        limits: &wgpu::Limits,
    ) -> Result<()> {
        let split = kernel.workgroup_split();
        for ((axis, &n), &f) in ["x", "y", "z"].iter().zip(&groups).zip(&split) {
            if n == 0 {
                return Err(Error::Dispatch(format!(
                    "the workgroup count in {axis} is 0: a dispatch of no workgroups runs nothing"
                )));
            }
            // The device counts the WGSL's workgroups, `f` to each of the shader's.
            let dispatched = u64::from(n) * u64::from(f);
            if dispatched > u64::from(limits.max_compute_workgroups_per_dimension) {
                return Err(Error::Limit {
                    what: if f == 1 {
                        format!("workgroup count in {axis}")
                    } else {
                        format!(
                            "workgroup count in {axis} ({n}, each split in {f} for WebGPU's workgroup limits)"
                        )
                    },
                    value: dispatched,
                    limit_name: "max_compute_workgroups_per_dimension",
                    limit: limits.max_compute_workgroups_per_dimension as u64,
                });
            }
        }
        // Drivers count workgroups and invocation ids in 32 bits: more wraps
        // around (measured on lavapipe and llvmpipe) instead of failing.
        let total = groups.iter().zip(&split).fold(1u64, |a, (&n, &f)| {
            a.saturating_mul(u64::from(n) * u64::from(f))
        });
        if total > u64::from(u32::MAX) {
            return Err(Error::Limit {
                what: format!(
                    "the total workgroup count ({}x{}x{})",
                    groups[0], groups[1], groups[2]
                ),
                value: total,
                limit_name: "2^32 - 1 (ids are 32-bit)",
                limit: u32::MAX.into(),
            });
        }
        for ((axis, &n), &w) in ["x", "y", "z"]
            .iter()
            .zip(&groups)
            .zip(&kernel.workgroup_size())
        {
            let ids = u64::from(n) * u64::from(w);
            if ids > u64::from(u32::MAX) + 1 {
                return Err(Error::Limit {
                    what: format!(
                        "the invocations in {axis} (gl_GlobalInvocationID.{axis} is 32-bit)"
                    ),
                    value: ids,
                    limit_name: "2^32",
                    limit: 1 << 32,
                });
            }
        }
        Ok(())
    }

    /// Checks every binding against the kernel's map.
    pub(super) fn check_binds(
        &self,
        kernel: &Kernel,
        binds: &[Slotted],
        limits: &wgpu::Limits,
    ) -> Result<()> {
        for (i, b) in binds.iter().enumerate() {
            if binds[..i]
                .iter()
                .any(|o| o.group == b.group && o.binding == b.binding && o.element == b.element)
            {
                return Err(Error::Dispatch(match kernel.binding(b.group, b.binding) {
                    Some(info) if info.array.is_some() => format!(
                        "element {} of `{}` is given twice",
                        b.element,
                        info.display_name()
                    ),
                    _ => format!("binding {}.{} is given twice", b.group, b.binding),
                }));
            }
            if kernel.binding(b.group, b.binding).is_none() {
                return Err(Error::UnusedBinding {
                    group: b.group,
                    binding: b.binding,
                });
            }
        }
        for info in kernel.bindings() {
            let mut given: Vec<&Slotted> = binds
                .iter()
                .filter(|b| b.group == info.group && b.binding == info.binding)
                .collect();
            given.sort_by_key(|b| b.element);
            let missing = |element: Option<u32>| Error::MissingBinding {
                group: info.group,
                binding: info.binding,
                name: match element {
                    Some(k) => format!("{}[{k}]", info.display_name()),
                    None => info.display_name(),
                },
            };
            let Some(last) = given.last() else {
                return Err(missing(info.array.map(|_| 0)));
            };
            // Each element fits before the elements are compared.
            for bind in &given {
                self.check_bind(info, bind, limits)?;
            }
            match info.array {
                None if last.element != 0 => {
                    return Err(Error::Dispatch(format!(
                        "`{}` is not an array: element {} cannot be bound",
                        info.display_name(),
                        last.element
                    )));
                }
                None => {}
                Some(length) => {
                    if let ArrayLength::Fixed(n) = length
                        && last.element >= n
                    {
                        return Err(Error::Dispatch(format!(
                            "element {} of `{}` is past its {n} elements",
                            last.element,
                            info.display_name()
                        )));
                    }
                    let n = match length {
                        ArrayLength::Fixed(n) => n,
                        ArrayLength::Unsized => last.element + 1,
                    };
                    if let Some(k) = (0..n).find(|&k| given.iter().all(|b| b.element != k)) {
                        return Err(missing(Some(k)));
                    }
                    // A packed array holds each element in a region of its
                    // own: one image at two elements would not alias.
                    if !info.packed.is_empty() {
                        for (i, a) in given.iter().enumerate() {
                            if let Some(b) = given[..i]
                                .iter()
                                .find(|b| b.resource.id() == a.resource.id())
                            {
                                let name = info.display_name();
                                return Err(Error::Dispatch(format!(
                                    "`{name}[{}]` and `{name}[{}]` are one image: the translation holds the array's elements in one buffer, a region each, so each must be an image of its own",
                                    b.element, a.element
                                )));
                            }
                        }
                    }
                    // A formatless array is compiled for one format: WGSL
                    // gives a binding array one element type.
                    if info.texture.as_ref().is_some_and(|t| t.format_from_host) {
                        // A placeholder has the format of one given.
                        let format = |b: &Slotted| match b.resource {
                            Resource::Texture(t) if !b.placeholder => Some(t.desc().format),
                            _ => None,
                        };
                        if let Some(a) = given.iter().find(|b| format(b).is_some())
                            && let Some(b) = given
                                .iter()
                                .find(|b| format(b).is_some_and(|f| Some(f) != format(a)))
                        {
                            let name = info.display_name();
                            let of = |b: &Slotted| {
                                format(b).map_or_else(|| "?".into(), crate::formats::format_name)
                            };
                            return Err(Error::Dispatch(format!(
                                "`{name}[{}]` is {} and `{name}[{}]` is {}: `{name}` is declared without a format, and a binding array takes one format for all its elements, so bind textures of one format (or declare it, e.g. layout(rgba8))",
                                a.element,
                                of(a),
                                b.element,
                                of(b)
                            )));
                        }
                    }
                    // A sampler array integer textures are sampled
                    // through: its modes fit the overrides.
                    let per = crate::lower::spirv::integer_sampling::MODES_PER_WORD;
                    let most = per * info.address_overrides.len() as u32;
                    if most > 0 && n > most {
                        return Err(Error::Limit {
                            what: format!(
                                "the elements of `{}`, a sampler array an integer texture is sampled through",
                                info.display_name()
                            ),
                            value: n.into(),
                            limit_name: "the elements whose address modes its overrides hold (16 per override)",
                            limit: most.into(),
                        });
                    }
                    let limit = limits.max_binding_array_elements_per_shader_stage;
                    if info.is_binding_array() && n > limit {
                        return Err(Error::Limit {
                            what: format!("the elements of `{}`", info.display_name()),
                            value: n.into(),
                            limit_name: "max_binding_array_elements_per_shader_stage",
                            limit: limit.into(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks one resource against its binding: kind, shape, size.
    pub(super) fn check_bind(
        &self,
        info: &crate::BindingInfo,
        bind: &Slotted,
        limits: &wgpu::Limits,
    ) -> Result<()> {
        let wrong_kind = || Error::WrongKind {
            group: info.group,
            binding: info.binding,
            name: match info.array {
                Some(_) => format!("{}[{}]", info.display_name(), bind.element),
                None => info.display_name(),
            },
            expected: expected(info),
            given: bind.resource.describe(),
        };
        if info.texture.as_ref().is_some_and(|t| t.multisampled) {
            return Err(Error::Unsupported(format!(
                "binding {}.{} (`{}`) is a multisampled texture (texture2DMS, sampler2DMS): atomport binds none, so the kernel cannot run (WebGPU fills a multisampled texture only by drawing into it)",
                info.group,
                info.binding,
                info.display_name()
            )));
        }
        match (bind.resource, info.image) {
            (Resource::Buffer(_), None) if info.kind.is_buffer() => {}
            (Resource::Image(img), Some(shape))
                if img.desc().dim == shape.dim && img.desc().format == shape.format => {}
            (Resource::Texture(t), None) if texture_fits(info, t) => return Ok(()),
            (Resource::Sampler(s), None)
                if info.kind == BindingKind::Sampler
                    && info.comparison == Some(s.is_comparison()) =>
            {
                return integer_texture_sampler(info, s);
            }
            _ => return Err(wrong_kind()),
        }
        let Some(buf) = bind.resource.buffer() else {
            return Err(wrong_kind());
        };
        if buf.len() < info.min_size {
            return Err(Error::BufferTooSmall {
                group: info.group,
                binding: info.binding,
                name: info.display_name(),
                needed: info.min_size,
                size: buf.len(),
            });
        }
        let (limit_name, limit) = match info.kind {
            BindingKind::Uniform => (
                "max_uniform_buffer_binding_size",
                limits.max_uniform_buffer_binding_size,
            ),
            _ => (
                "max_storage_buffer_binding_size",
                limits.max_storage_buffer_binding_size,
            ),
        };
        if buf.len() > limit {
            return Err(Error::Limit {
                what: format!("the size of binding {}.{}", info.group, info.binding),
                value: buf.len(),
                limit_name,
                limit,
            });
        }
        Ok(())
    }
}

/// What a binding takes, for messages: `r32ui cube image`, `float 2d
/// texture`, `rgba8unorm 2d storage texture`, `comparison sampler`.
fn expected(info: &crate::BindingInfo) -> String {
    if let Some(shape) = info.image {
        return format!("{} {} image", shape.format.name(), shape.dim.name());
    }
    let dim = |t: &crate::TextureInfo| t.dim.map_or("multisampled or 1D-array", |d| d.name());
    match (&info.texture, info.kind) {
        (Some(t), BindingKind::StorageTexture) if t.format_from_host => format!(
            "{} {} storage texture of any {} format{}",
            t.sample,
            dim(t),
            t.sample,
            if t.access == Some("read_write") {
                " WebGPU reads and writes (r32 ones)"
            } else {
                ""
            }
        ),
        (Some(t), BindingKind::StorageTexture) => format!(
            "{} {} storage texture",
            t.format.as_deref().unwrap_or("?"),
            dim(t)
        ),
        (Some(t), _) => format!(
            "{}{} {} texture",
            t.sample,
            if t.multisampled { " multisampled" } else { "" },
            dim(t)
        ),
        (None, BindingKind::Sampler) if info.comparison == Some(true) => {
            "comparison sampler (a sampler with a compare function)".into()
        }
        (None, BindingKind::Sampler) => "sampler without a compare function".into(),
        _ => info.kind.describe().into(),
    }
}

/// Whether `t` fits the texture binding `info`: shape, sample type, and for
/// a storage texture the format and the storage usage.
pub(super) fn texture_fits(info: &crate::BindingInfo, t: &Texture) -> bool {
    let Some(want) = &info.texture else {
        return false;
    };
    let d = t.desc();
    if want.multisampled || want.dim != Some(d.dim) {
        return false;
    }
    match info.kind {
        BindingKind::StorageTexture if want.format_from_host => {
            let kind = match d.format.sample_type(None, None) {
                Some(wgpu::TextureSampleType::Float { .. }) => "float",
                Some(wgpu::TextureSampleType::Sint) => "sint",
                Some(wgpu::TextureSampleType::Uint) => "uint",
                _ => "",
            };
            let read_write = want.access == Some("read_write");
            let r32 = matches!(
                d.format,
                wgpu::TextureFormat::R32Float
                    | wgpu::TextureFormat::R32Uint
                    | wgpu::TextureFormat::R32Sint
            );
            t.is_storage() && kind == want.sample && (r32 || !read_write)
        }
        BindingKind::StorageTexture => {
            t.is_storage()
                && want
                    .format
                    .as_deref()
                    .and_then(crate::runtime::texture::parse_format)
                    == Some(d.format)
        }
        BindingKind::SampledTexture => {
            let aspect = d
                .format
                .has_depth_aspect()
                .then_some(wgpu::TextureAspect::DepthOnly);
            // A depth texture also binds as an unfilterable float one
            // (texelFetch on a depth buffer); wgpu refuses it with a
            // filtering sampler.
            matches!(
                (want.sample, d.format.sample_type(aspect, None)),
                ("float", Some(wgpu::TextureSampleType::Float { .. }))
                    | ("float", Some(wgpu::TextureSampleType::Depth))
                    | ("depth", Some(wgpu::TextureSampleType::Depth))
                    | ("sint", Some(wgpu::TextureSampleType::Sint))
                    | ("uint", Some(wgpu::TextureSampleType::Uint))
            )
        }
        _ => false,
    }
}

/// A sampler an integer texture is sampled through must be a nearest one of
/// known address mode: the shader fetches the texel it picks (Vulkan
/// forbids filtering integer textures linearly too).
fn integer_texture_sampler(info: &crate::BindingInfo, s: &crate::Sampler) -> Result<()> {
    if info.address_override.is_none() {
        return Ok(());
    }
    // The combined sampler's GLSL name, as the host knows it.
    let name = info.combined.clone().unwrap_or_else(|| info.display_name());
    match s.described() {
        Some((_, false)) => Ok(()),
        Some((_, true)) => Err(Error::Dispatch(format!(
            "sampler `{name}` filters linearly, and an integer texture is sampled through it: integer textures are read through nearest samplers only (Vulkan forbids filtering them too)"
        ))),
        None => Err(Error::Dispatch(format!(
            "sampler `{name}`, through which an integer texture is sampled, is the caller's own of unknown address mode and filter: wrap it with Sampler::from_wgpu_described"
        ))),
    }
}
