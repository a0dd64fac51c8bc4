//! The native reference run: a kernel's original SPIR-V dispatched as it is
//! (wgpu's passthrough shaders, Vulkan only) with the resources its
//! translation is given, bound at the same bindings — buffers as buffers,
//! images as storage textures, textures and samplers as they are — and read
//! back in the same shapes. What the translation computes is checked
//! against it ([`crate::validate::diff`]).
//!
//! The module is [`Kernel::native_spirv`]: the original with only its
//! bindings made wgpu's (specialization values as defaults, OpenGL's
//! numbers, combined samplers split). Images live in textures for the run
//! and are copied back into their texel buffers after it. A cube image is
//! the 2D array of its faces there, a buffer image a 1D one, a 1D array the
//! 2D image of its layers as rows (the module addresses them so:
//! `lower::spirv::native_shapes`); WebGPU has no multisample
//! storage textures, so kernels with such images have no native run.

use crate::runtime::dispatch::{
    Resource, Slotted, array_parts, array_resource, filled, layout_entries, per_binding, resolve,
};
use crate::runtime::run::RunOutput;
use crate::{Bind, BindingInfo, Context, Error, Kernel, Result, Workgroups};

/// The feature a native run needs, as messages name it.
pub const NATIVE_FEATURE: &str =
    "PASSTHROUGH_SHADERS (running the original SPIR-V natively, on Vulkan adapters)";

impl crate::ContextOptions {
    /// These options (a Vulkan backend) with the features a native run
    /// needs, where the adapter has them: PASSTHROUGH_SHADERS, push
    /// constants as immediates, the adapter's own format features
    /// (read-write storage images of any format), 16-bit normalized
    /// formats (a storage image declared `rgba16` lives in one for the
    /// run), and arrays of storage
    /// textures (an image array the translation holds in texel buffers is
    /// one in the original). No Vulkan adapter is the feature missing.
    pub fn for_native(self) -> Result<crate::ContextOptions> {
        let mut native = wgpu::Features::PASSTHROUGH_SHADERS
            | wgpu::Features::IMMEDIATES
            | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
            | wgpu::Features::TEXTURE_FORMAT_16BIT_NORM;
        if self.features.contains(wgpu::Features::BUFFER_BINDING_ARRAY) {
            native |= wgpu::Features::TEXTURE_BINDING_ARRAY
                | wgpu::Features::STORAGE_RESOURCE_BINDING_ARRAY
                | wgpu::Features::STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING;
        }
        match self.adapter_features() {
            Ok(have) => Ok(self.with_features(have & native)),
            Err(Error::NoAdapter { .. }) => Err(Error::MissingFeature {
                adapter: "(no Vulkan adapter)".into(),
                feature: NATIVE_FEATURE.into(),
            }),
            Err(e) => Err(e),
        }
    }
}

impl Context {
    /// Whether this context can run kernels natively: a Vulkan device opened
    /// with [`wgpu::Features::PASSTHROUGH_SHADERS`].
    pub fn has_native(&self) -> bool {
        self.info().backend == wgpu::Backend::Vulkan
            && self
                .device()
                .features()
                .contains(wgpu::Features::PASSTHROUGH_SHADERS)
    }

    /// Runs `kernel`'s original SPIR-V natively (see the module docs) with
    /// the resources and workgroups its translation would get, and reports
    /// every binding as [`Context::run`] does. The context must be a Vulkan
    /// one opened with PASSTHROUGH_SHADERS; the kernel must come from GLSL or
    /// SPIR-V.
    pub fn run_native(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind],
    ) -> Result<RunOutput> {
        let data = self.dispatch_and_read_native(kernel, groups, binds)?;
        self.outputs(kernel, binds, data)
    }

    /// [`Context::dispatch_and_read`] for the native run: the bytes of every
    /// bound resource after it, in the order of `binds`.
    pub fn dispatch_and_read_native(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind],
    ) -> Result<Vec<Vec<u8>>> {
        if !self.has_native() {
            return Err(Error::MissingFeature {
                adapter: format!("{} ({})", self.adapter_name(), self.backend_name()),
                feature: NATIVE_FEATURE.into(),
            });
        }
        self.ready()?;
        let spirv = kernel.native_spirv()?;
        let slots = resolve(kernel, binds)?;
        let holes = self.holes(kernel, &slots)?;
        let mut slots = filled(&slots, &holes);
        self.check(kernel, Workgroups::Count(groups), &slots)?;
        // The push constants are push constants natively: the bytes of the
        // buffer the translation reads them from.
        let push = match slots.iter().position(|s| {
            kernel
                .binding(s.group, s.binding)
                .is_some_and(|i| i.push_constant)
        }) {
            Some(k) => Some(self.push_bytes(kernel, &slots.remove(k))?),
            None => None,
        };
        // A packed image array's elements are images of their own in the
        // original.
        for s in &mut slots {
            if let Some(e) = kernel
                .binding(s.group, s.binding)
                .and_then(|i| i.packed.get(s.element as usize))
            {
                s.binding = e.native_binding;
                s.element = 0;
            }
        }
        // Images live in storage textures for the run.
        let mut textures: Vec<(usize, Vec<wgpu::Texture>, wgpu::TextureView)> = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            if let Resource::Image(img) = s.resource {
                let view_dimension =
                    crate::runtime::image::storage_view(img.desc().dim, img.desc().samples)
                        .ok_or_else(|| no_native_image(kernel, s))?;
                let t = img.to_textures(self)?;
                let view = t[0].create_view(&wgpu::TextureViewDescriptor {
                    dimension: Some(view_dimension),
                    ..Default::default()
                });
                textures.push((i, t, view));
            }
        }
        let samplers = self.placeholder_samplers(spirv, &slots)?;
        let immediate_size = push.as_ref().map_or(0, |p| p.len() as u32);
        let pipeline = self.native_pipeline(kernel, spirv, &slots, &samplers, immediate_size)?;
        let groups_bound =
            self.native_bind_groups(kernel, &pipeline, &slots, &textures, &samplers)?;
        let cmd = self.scoped(|| {
            let mut encoder =
                self.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("atomport native run"),
                    });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("native"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&pipeline.0);
                if let Some(p) = &push {
                    pass.set_immediates(0, p);
                }
                for (g, bg) in groups_bound.iter().enumerate() {
                    pass.set_bind_group(g as u32, bg, &[]);
                }
                pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
            }
            encoder.finish()
        })?;
        // A module the driver cannot run (glslang emits some invalid SPIR-V,
        // e.g. a bias on explicit-LOD sampling) loses the submission
        // without a validation error: say what that likely means.
        self.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
            .map_err(|e| match e {
                Error::Wgpu { kind, message } => Error::Wgpu {
                    kind,
                    message: format!(
                        "the driver did not run the original SPIR-V ({message}); the module may be invalid (spirv-val names what is wrong)"
                    ),
                },
                e => e,
            })?;
        for (i, t, _) in &textures {
            if let Resource::Image(img) = slots[*i].resource {
                img.copy_from_textures(self, t)?;
            }
        }
        self.read_back(kernel, binds)
    }

    /// The push constants of a native run: the block's bytes, from the
    /// buffer bound for it, checked against the device.
    fn push_bytes(&self, kernel: &Kernel, s: &Slotted) -> Result<Vec<u8>> {
        let Resource::Buffer(buffer) = s.resource else {
            return Err(Error::Internal(
                "push constants bound to a non-buffer".into(),
            ));
        };
        if !self
            .device()
            .features()
            .contains(wgpu::Features::IMMEDIATES)
        {
            return Err(Error::MissingFeature {
                adapter: format!("{} ({})", self.adapter_name(), self.backend_name()),
                feature: "IMMEDIATES (the original's push constants in a native run)".into(),
            });
        }
        let size = kernel
            .binding(s.group, s.binding)
            .map_or(0, |i| i.min_size.next_multiple_of(4));
        let max = self.device().limits().max_immediate_size;
        if size > u64::from(max) {
            return Err(Error::Limit {
                what: "push-constant bytes of a native run".into(),
                value: size,
                limit_name: "max_immediate_size",
                limit: u64::from(max),
            });
        }
        let mut bytes: Vec<u8> = buffer.read(self)?;
        bytes.truncate(size as usize);
        Ok(bytes)
    }

    /// A sampler for every sampler binding of the native module that the
    /// translation does not use, so not given: a sampler only `texelFetch`
    /// reads through (or the sampler half of a combined sampler so read),
    /// which naga drops and the original still declares.
    fn placeholder_samplers(
        &self,
        spirv: &[u32],
        slots: &[Slotted],
    ) -> Result<Vec<(u32, u32, wgpu::Sampler)>> {
        let mut out = Vec::new();
        for (group, binding) in sampler_bindings(spirv) {
            if slots
                .iter()
                .any(|s| s.group == group && s.binding == binding)
            {
                continue;
            }
            let raw = self.scoped(|| {
                self.device()
                    .create_sampler(&wgpu::SamplerDescriptor::default())
            })?;
            out.push((group, binding, raw));
        }
        Ok(out)
    }

    /// The passthrough pipeline and its bind group layouts.
    fn native_pipeline(
        &self,
        kernel: &Kernel,
        spirv: &[u32],
        slots: &[Slotted],
        samplers: &[(u32, u32, wgpu::Sampler)],
        immediate_size: u32,
    ) -> Result<(wgpu::ComputePipeline, Vec<wgpu::BindGroupLayout>)> {
        let groups = slots
            .iter()
            .map(|s| s.group + 1)
            .chain(samplers.iter().map(|s| s.0 + 1))
            .max()
            .unwrap_or(0);
        let mut entries = layout_entries(kernel, slots, groups, true)?;
        for (group, binding, _) in samplers {
            entries[*group as usize].push(wgpu::BindGroupLayoutEntry {
                binding: *binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            });
        }
        let numbers: Vec<Vec<u32>> = entries
            .iter()
            .map(|e| {
                let mut b: Vec<u32> = e.iter().map(|e| e.binding).collect();
                b.sort_unstable();
                b
            })
            .collect();
        let spirv = dense_bindings(spirv, &numbers)?;
        let entry = kernel.entry().to_string();
        self.on_gpu_for("compiling the native pipeline", move |gpu| {
            crate::runtime::context::scoped(&gpu.device, || {
                let layouts: Vec<wgpu::BindGroupLayout> = entries
                    .iter()
                    .map(|e| {
                        gpu.device
                            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                                label: Some("atomport native"),
                                entries: e,
                            })
                    })
                    .collect();
                let layout = gpu
                    .device
                    .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("atomport native"),
                        bind_group_layouts: &layouts.iter().map(Some).collect::<Vec<_>>(),
                        immediate_size,
                    });
                // SAFETY: the module is glslang's (or the caller's) SPIR-V,
                // checked by atomport's reader and changed only in its
                // bindings; the driver compiles it as it would the original.
                let module = unsafe {
                    gpu.device.create_shader_module_passthrough(
                        wgpu::ShaderModuleDescriptorPassthrough {
                            label: Some("atomport native"),
                            entry_points: std::borrow::Cow::Owned(vec![
                                wgpu::PassthroughShaderEntryPoint {
                                    name: std::borrow::Cow::Owned(entry.clone()),
                                    workgroup_size: (0, 0, 0),
                                },
                            ]),
                            spirv: Some(std::borrow::Cow::Owned(spirv)),
                            ..Default::default()
                        },
                    )
                };
                let pipeline =
                    gpu.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("atomport native"),
                            layout: Some(&layout),
                            module: &module,
                            entry_point: Some(&entry),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                (pipeline, layouts)
            })
        })
    }

    /// The bind groups of a native run: images as their storage textures.
    fn native_bind_groups(
        &self,
        kernel: &Kernel,
        pipeline: &(wgpu::ComputePipeline, Vec<wgpu::BindGroupLayout>),
        slots: &[Slotted],
        textures: &[(usize, Vec<wgpu::Texture>, wgpu::TextureView)],
        samplers: &[(u32, u32, wgpu::Sampler)],
    ) -> Result<Vec<wgpu::BindGroup>> {
        self.scoped(|| {
            pipeline
                .1
                .iter()
                .enumerate()
                .map(|(g, layout)| {
                    let per = per_binding(kernel, slots, g as u32);
                    let parts: Vec<_> = per
                        .iter()
                        .map(|(_, array, e)| {
                            if *array {
                                array_parts(e)
                            } else {
                                Default::default()
                            }
                        })
                        .collect();
                    // The storage texture an image was copied into.
                    let view_of = |s: &Slotted| {
                        let i = slots
                            .iter()
                            .position(|x| std::ptr::eq(x, s))
                            .unwrap_or(usize::MAX);
                        &textures.iter().find(|t| t.0 == i).expect("made above").2
                    };
                    // An image array: the storage textures it declares.
                    let image_views: Vec<Vec<&wgpu::TextureView>> = per
                        .iter()
                        .map(|(_, array, e)| match e[0].resource {
                            Resource::Image(_) if *array => e.iter().map(|s| view_of(s)).collect(),
                            _ => Vec::new(),
                        })
                        .collect();
                    let mut entries: Vec<wgpu::BindGroupEntry> = Vec::new();
                    for (((binding, array, elements), parts), views) in
                        per.iter().zip(&parts).zip(&image_views)
                    {
                        let s = elements[0];
                        let resource = match s.resource {
                            Resource::Image(_) if *array => {
                                wgpu::BindingResource::TextureViewArray(views)
                            }
                            _ if *array => array_resource(parts),
                            Resource::Image(_) => wgpu::BindingResource::TextureView(view_of(s)),
                            Resource::Texture(t) | Resource::Sampled(t, _) => {
                                wgpu::BindingResource::TextureView(t.view())
                            }
                            Resource::Sampler(smp) => wgpu::BindingResource::Sampler(smp.raw()),
                            Resource::Buffer(b) => b.raw().as_entire_binding(),
                        };
                        entries.push(wgpu::BindGroupEntry {
                            binding: *binding,
                            resource,
                        });
                    }
                    for (_, binding, smp) in samplers.iter().filter(|s| s.0 == g as u32) {
                        entries.push(wgpu::BindGroupEntry {
                            binding: *binding,
                            resource: wgpu::BindingResource::Sampler(smp),
                        });
                    }
                    self.device().create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("atomport native"),
                        layout,
                        entries: &entries,
                    })
                })
                .collect()
        })
    }
}

/// The module with its bindings numbered as wgpu's Vulkan backend numbers
/// the descriptors: 0, 1, 2… in each bind group, in the order of the
/// binding numbers its layout has (`numbers`, sorted, per group). wgpu tells
/// naga's SPIR-V writer so; a passthrough module must say so itself, or
/// binding 4 of a group that binds 0 and 4 reads descriptor 4, which is not
/// there.
fn dense_bindings(spirv: &[u32], numbers: &[Vec<u32>]) -> Result<Vec<u32>> {
    let mut sets = std::collections::HashMap::new();
    let mut bindings = Vec::new();
    for (at, inst) in crate::front::spirv::instructions(spirv) {
        match (inst[0] & 0xffff, inst) {
            (OP_DECORATE, [_, target, DESCRIPTOR_SET, set]) => {
                sets.insert(*target, *set);
            }
            (OP_DECORATE, [_, _, BINDING, _]) => bindings.push(at),
            _ => {}
        }
    }
    let mut words = spirv.to_vec();
    for at in bindings {
        let set = sets.get(&words[at + 1]).copied().unwrap_or(0);
        let binding = words[at + 3];
        let dense = numbers
            .get(set as usize)
            .and_then(|n| n.binary_search(&binding).ok())
            .ok_or_else(|| {
                Error::Internal(format!(
                    "the native module uses binding {set}.{binding}, which its layout lacks"
                ))
            })?;
        words[at + 3] = dense as u32;
    }
    Ok(words)
}

const OP_TYPE_SAMPLER: u32 = 26;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const BINDING: u32 = 33;
const DESCRIPTOR_SET: u32 = 34;

/// The (set, binding) of every sampler (or array of samplers) variable.
fn sampler_bindings(words: &[u32]) -> Vec<(u32, u32)> {
    let mut samplers = std::collections::HashSet::new();
    let mut pointers = std::collections::HashSet::new();
    let mut variables = Vec::new();
    let mut slot: std::collections::HashMap<u32, (u32, u32)> = Default::default();
    for (_, inst) in crate::front::spirv::instructions(words) {
        match (inst[0] & 0xffff, inst) {
            (OP_TYPE_SAMPLER, [_, r]) => {
                samplers.insert(*r);
            }
            (OP_TYPE_ARRAY, [_, r, element, _]) if samplers.contains(element) => {
                samplers.insert(*r);
            }
            (OP_TYPE_POINTER, [_, r, _, pointee]) if samplers.contains(pointee) => {
                pointers.insert(*r);
            }
            (OP_VARIABLE, [_, ty, r, ..]) if pointers.contains(ty) => variables.push(*r),
            (OP_DECORATE, [_, target, DESCRIPTOR_SET, set]) => {
                slot.entry(*target).or_default().0 = *set;
            }
            (OP_DECORATE, [_, target, BINDING, binding]) => {
                slot.entry(*target).or_default().1 = *binding;
            }
            _ => {}
        }
    }
    variables
        .iter()
        .filter_map(|v| slot.get(v).copied())
        .collect()
}

fn no_native_image(kernel: &Kernel, s: &Slotted) -> Error {
    let name = kernel.binding(s.group, s.binding).map_or_else(
        || format!("{}.{}", s.group, s.binding),
        BindingInfo::display_name,
    );
    Error::NoNative(format!(
        "image `{name}`: WebGPU binds no multisample storage texture"
    ))
}
