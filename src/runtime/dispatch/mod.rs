//! Binding, checking, dispatching and reading back a [`Kernel`].

use std::sync::Arc;

use crate::kernel::BindingKind;
use crate::runtime::buffer::readback_job;
use crate::runtime::context::Pipeline;
use crate::runtime::texture::format_name;
use crate::{Buffer, Context, Error, Image, Kernel, Result, Sampler, Texture};

mod checks;
mod packed;
mod pipeline;
mod readback;
mod shared;
use readback::{copyable_buffers, in_bind_order, written_textures};
pub(crate) use shared::filled;

/// A resource bound to a kernel binding.
#[derive(Clone, Copy, Debug)]
pub enum Resource<'a> {
    /// A buffer, for storage and uniform bindings.
    Buffer(&'a Buffer),
    /// An image, for GLSL storage images held in texel buffers.
    Image(&'a Image),
    /// A texture, for sampled and storage texture bindings.
    Texture(&'a Texture),
    /// A sampler.
    Sampler(&'a Sampler),
    /// A texture and a sampler for a combined image sampler (`sampler2D
    /// tex`), bound together by its GLSL name.
    Sampled(&'a Texture, &'a Sampler),
}

impl<'a> Resource<'a> {
    fn describe(&self) -> String {
        match self {
            Resource::Buffer(_) => "buffer".into(),
            Resource::Image(i) => {
                format!("{} {} image", i.desc().format.name(), i.desc().dim.name())
            }
            Resource::Texture(t) => format!(
                "{} {} texture",
                format_name(t.desc().format),
                t.desc().dim.name()
            ),
            Resource::Sampler(s) if s.is_comparison() => "comparison sampler".into(),
            Resource::Sampler(_) => "sampler".into(),
            Resource::Sampled(..) => "texture and sampler".into(),
        }
    }

    /// The buffer that backs the resource, if one does.
    pub(crate) fn buffer(&self) -> Option<&'a Buffer> {
        match *self {
            Resource::Buffer(b) => Some(b),
            Resource::Image(i) => Some(i.buffer()),
            _ => None,
        }
    }

    /// A process-unique id of what is bound.
    fn id(&self) -> u64 {
        match *self {
            Resource::Buffer(b) => b.id(),
            Resource::Image(i) => i.buffer().id(),
            Resource::Texture(t) | Resource::Sampled(t, _) => t.id(),
            Resource::Sampler(s) => s.id(),
        }
    }
}

impl<'a> From<&'a Texture> for Resource<'a> {
    fn from(t: &'a Texture) -> Self {
        Resource::Texture(t)
    }
}

impl<'a> From<&'a Sampler> for Resource<'a> {
    fn from(s: &'a Sampler) -> Self {
        Resource::Sampler(s)
    }
}

impl<'a> From<(&'a Texture, &'a Sampler)> for Resource<'a> {
    fn from((t, s): (&'a Texture, &'a Sampler)) -> Self {
        Resource::Sampled(t, s)
    }
}

impl<'a> From<&'a Buffer> for Resource<'a> {
    fn from(b: &'a Buffer) -> Self {
        Resource::Buffer(b)
    }
}

impl<'a> From<&'a Image> for Resource<'a> {
    fn from(i: &'a Image) -> Self {
        Resource::Image(i)
    }
}

/// Which kernel binding a resource is for ([`Bind`]): by set and binding as
/// the shader declares them, or by GLSL name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// WGSL's (group, binding).
    Slot {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
    },
    /// A GLSL name, resolved by [`Kernel::element_named`]: a block's
    /// instance or type name, an image's name, an atomic counter's name,
    /// `NAME[k]` for element `k` of a binding array.
    Name(&'a str),
    /// Element `element` of the binding array at (group, binding).
    Element {
        /// Bind group index.
        group: u32,
        /// Binding index.
        binding: u32,
        /// The element, from 0.
        element: u32,
    },
}

/// A resource for one binding of a kernel.
#[derive(Clone, Copy, Debug)]
pub struct Bind<'a> {
    /// The binding.
    pub target: Target<'a>,
    /// What is bound.
    pub resource: Resource<'a>,
}

impl<'a> Bind<'a> {
    /// Binds `buffer` at (group, binding).
    pub fn new(group: u32, binding: u32, buffer: &'a Buffer) -> Self {
        Bind {
            target: Target::Slot { group, binding },
            resource: Resource::Buffer(buffer),
        }
    }

    /// Binds `image` at (group, binding).
    pub fn image(group: u32, binding: u32, image: &'a Image) -> Self {
        Bind {
            target: Target::Slot { group, binding },
            resource: Resource::Image(image),
        }
    }

    /// Binds a buffer or image to the binding the shader calls `name`
    /// (`Bind::named("Particles", &buffer)`); with OpenGL GLSL this is the
    /// way to bind, as WGSL binding numbers are atomport's choice.
    pub fn named(name: &'a str, resource: impl Into<Resource<'a>>) -> Self {
        Bind {
            target: Target::Name(name),
            resource: resource.into(),
        }
    }
}

/// How many workgroups a dispatch runs.
#[derive(Clone, Copy, Debug)]
pub enum Workgroups<'a> {
    /// Counts known on the host, checked against the adapter's limits.
    Count([u32; 3]),
    /// Three `u32` counts read on the GPU from a buffer with INDIRECT usage.
    Indirect {
        /// The buffer holding the counts.
        buffer: &'a Buffer,
        /// Byte offset of the counts (a multiple of 4).
        offset: u64,
    },
}

/// Dispatches and copies recorded into one command encoder and submitted
/// once: the chained passes of a pipeline without a wait between them.
/// Every dispatch is checked as it is recorded.
pub struct Batch<'c> {
    ctx: &'c Context,
    encoder: wgpu::CommandEncoder,
    dispatches: usize,
}

impl<'c> Batch<'c> {
    /// Records a dispatch of `groups` workgroups.
    pub fn dispatch(
        &mut self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind],
    ) -> Result<&mut Self> {
        self.add(kernel, Workgroups::Count(groups), binds)
    }

    /// Records one dispatch, checked, into the batch's encoder.
    fn add(
        &mut self,
        kernel: &Kernel,
        workgroups: Workgroups,
        binds: &[Bind],
    ) -> Result<&mut Self> {
        self.ctx
            .encode_into(&mut self.encoder, kernel, workgroups, binds)?;
        self.dispatches += 1;
        Ok(self)
    }

    /// Records a dispatch whose counts the GPU reads from `args` at `offset`.
    pub fn dispatch_indirect(
        &mut self,
        kernel: &Kernel,
        args: &Buffer,
        offset: u64,
        binds: &[Bind],
    ) -> Result<&mut Self> {
        self.add(
            kernel,
            Workgroups::Indirect {
                buffer: args,
                offset,
            },
            binds,
        )
    }

    /// Records a copy of all of `src` into `dst` (after the work recorded so far).
    pub fn copy(&mut self, src: &Buffer, dst: &Buffer) -> Result<&mut Self> {
        src.has_usage(wgpu::BufferUsages::COPY_SRC, "COPY_SRC", "copying from it")?;
        dst.has_usage(wgpu::BufferUsages::COPY_DST, "COPY_DST", "copying into it")?;
        if dst.len() < src.len() {
            return Err(Error::Dispatch(format!(
                "a copy of {} bytes into a buffer of {}",
                src.len(),
                dst.len()
            )));
        }
        self.encoder.copy_buffer_to_buffer(
            src.raw(),
            0,
            dst.raw(),
            0,
            super::buffer::padded(src.len()),
        );
        Ok(self)
    }

    /// How many dispatches are recorded.
    pub fn len(&self) -> usize {
        self.dispatches
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.dispatches == 0
    }

    /// Submits everything once and waits at most the context's timeout.
    pub fn submit(self) -> Result<()> {
        let cmd = self.encoder.finish();
        self.ctx.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
    }

    /// Submits everything, then reads `buffers` back in the same submission.
    pub fn submit_and_read(self, buffers: &[&Buffer]) -> Result<Vec<Vec<u8>>> {
        for b in buffers {
            b.readable()?;
        }
        self.ctx
            .on_gpu(readback_job(self.ctx, buffers, Some(self.encoder)))
    }

    /// [`Batch::submit_and_read`] without blocking: in a browser, where
    /// nothing may, the form that reads a batch back.
    pub async fn submit_and_read_async(self, buffers: &[&Buffer]) -> Result<Vec<Vec<u8>>> {
        for b in buffers {
            b.readable()?;
        }
        super::buffer::read_back_async(self.ctx, buffers, Some(self.encoder)).await
    }
}

/// A [`Bind`] with its name resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slotted<'a> {
    pub(crate) group: u32,
    pub(crate) binding: u32,
    /// The element of a binding array; 0 for other bindings.
    pub(crate) element: u32,
    pub(crate) resource: Resource<'a>,
    /// A stand-in the runtime bound where an image array has no element of
    /// its own (see `shared`), not the caller's.
    pub(crate) placeholder: bool,
}

/// The halves a combined sampler (or an element `NAME[k]` of an array of
/// them) was split into: the texture's binding, the sampler's if the
/// kernel uses it, and the element.
pub(crate) fn combined_halves<'k>(
    kernel: &'k Kernel,
    name: &str,
) -> Option<(&'k crate::BindingInfo, Option<&'k crate::BindingInfo>, u32)> {
    let half = |kind: BindingKind, base: &str, array: bool| {
        kernel.bindings().iter().find(|i| {
            i.kind == kind && i.combined.as_deref() == Some(base) && i.array.is_some() == array
        })
    };
    if let Some(t) = half(BindingKind::SampledTexture, name, false) {
        return Some((t, half(BindingKind::Sampler, name, false), 0));
    }
    let (base, k) = crate::kernel::split_element(name)?;
    let t = half(BindingKind::SampledTexture, base, true)?;
    Some((t, half(BindingKind::Sampler, base, true), k))
}

/// Resolves every name against `kernel`: an unknown name is an error
/// listing the known ones. A texture and sampler pair becomes its halves.
pub(crate) fn resolve<'a>(kernel: &Kernel, binds: &[Bind<'a>]) -> Result<Vec<Slotted<'a>>> {
    let mut out = Vec::with_capacity(binds.len());
    for b in binds {
        if let Resource::Sampled(texture, sampler) = b.resource {
            let Target::Name(name) = b.target else {
                return Err(Error::Dispatch(
                    "a texture and sampler pair binds by its combined sampler's GLSL name (Bind::named)".into(),
                ));
            };
            let Some((t, s, element)) = combined_halves(kernel, name) else {
                return Err(Error::UnknownName(format!(
                    "the kernel has no combined sampler named `{name}` (its bindings: {})",
                    kernel.binding_names()
                )));
            };
            out.push(Slotted {
                group: t.group,
                binding: t.binding,
                element,
                resource: Resource::Texture(texture),
                placeholder: false,
            });
            // A combined sampler only read with texelFetch/textureSize uses
            // no sampler: then the pair's sampler is not bound.
            if let Some(s) = s {
                out.push(Slotted {
                    group: s.group,
                    binding: s.binding,
                    element,
                    resource: Resource::Sampler(sampler),
                    placeholder: false,
                });
            }
            continue;
        }
        let (group, binding, element) = match b.target {
            Target::Slot { group, binding } => {
                let (group, binding) = kernel.wgsl_slot(group, binding);
                (group, binding, 0)
            }
            Target::Element {
                group,
                binding,
                element,
            } => {
                let (group, binding) = kernel.wgsl_slot(group, binding);
                (group, binding, element)
            }
            Target::Name(name) => {
                let (info, element) = kernel.element_named(name)?;
                (info.group, info.binding, element)
            }
        };
        out.push(Slotted {
            group,
            binding,
            element,
            resource: b.resource,
            placeholder: false,
        });
    }
    shared::route(kernel, &mut out);
    Ok(out)
}

impl Context {
    /// Dispatches `groups` workgroups of `kernel` and waits for them, at most the timeout.
    ///
    /// Before anything is submitted it checks that every binding the kernel
    /// uses is given exactly once with the right kind and at least the size
    /// the shader's layout needs, that nothing else is given, that `groups`
    /// is within the device's limits and that the device has the kernel's
    /// features. After a [`Error::Timeout`] the GPU may still be running the
    /// kernel; the context should then be dropped (a process may simply exit).
    pub fn dispatch(&self, kernel: &Kernel, groups: [u32; 3], binds: &[Bind]) -> Result<()> {
        let cmd = self
            .encode(kernel, Workgroups::Count(groups), binds)?
            .0
            .finish();
        self.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
    }

    /// Compiles `kernel`'s pipeline now (otherwise the first dispatch does),
    /// e.g. to keep compilation out of a timed dispatch.
    /// A kernel with images compiles once per set of image sizes: pass the
    /// resources it will be dispatched with.
    pub fn prepare(&self, kernel: &Kernel, binds: &[Bind]) -> Result<()> {
        self.ready()?;
        let binds = resolve(kernel, binds)?;
        let holes = self.holes(kernel, &binds)?;
        let binds = filled(&binds, &holes);
        let overrides = Overrides::of(kernel, &binds);
        if self.cached_pipeline(kernel, &overrides).is_none() {
            self.check_kernel(kernel)?;
            self.compile_pipeline(kernel, overrides)?;
        }
        Ok(())
    }

    /// Like [`Context::dispatch`], then reads back what the kernel can
    /// write: every buffer and image in the same submission, and storage
    /// textures the kernel writes (level 0, in a submission of its own, when
    /// the texture has COPY_SRC usage). The bytes come in the order of
    /// `binds` (for an image, its texels in texel order); sampled textures
    /// and samplers give none.
    pub fn dispatch_and_read(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind],
    ) -> Result<Vec<Vec<u8>>> {
        let (encoder, slots) = self.encode(kernel, Workgroups::Count(groups), binds)?;
        self.read_binds(kernel, binds, &slots, Some(encoder))
    }

    /// Reads back what the kernel can write among `binds` (as
    /// [`Context::dispatch_and_read`] does), after the work already submitted.
    pub(crate) fn read_back(&self, kernel: &Kernel, binds: &[Bind]) -> Result<Vec<Vec<u8>>> {
        let slots = resolve(kernel, binds)?;
        self.read_binds(kernel, binds, &slots, None)
    }

    /// [`Context::dispatch_and_read`] without blocking: in a browser, where
    /// nothing may, the only form that reads back.
    pub async fn dispatch_and_read_async(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind<'_>],
    ) -> Result<Vec<Vec<u8>>> {
        let (encoder, slots) = self.encode(kernel, Workgroups::Count(groups), binds)?;
        let buffers = copyable_buffers(binds);
        let read = super::buffer::read_back_async(self, &buffers, Some(encoder)).await?;
        let written = written_textures(kernel, binds, &slots);
        let mut textures = Vec::new();
        for t in written.iter().flatten() {
            textures.push(t.read_level_async(self, 0).await?);
        }
        Ok(in_bind_order(binds, &written, read, textures))
    }

    /// The bytes of every bound buffer and image (after `encoder`'s work, in
    /// its submission, when given) and of the storage textures the kernel
    /// writes, in the order of `binds`.
    fn read_binds(
        &self,
        kernel: &Kernel,
        binds: &[Bind],
        slots: &[Slotted],
        encoder: Option<wgpu::CommandEncoder>,
    ) -> Result<Vec<Vec<u8>>> {
        let buffers = copyable_buffers(binds);
        let read = self.on_gpu(readback_job(self, &buffers, encoder))?;
        // Textures are read after, in a submission of their own.
        let written = written_textures(kernel, binds, slots);
        let textures = written
            .iter()
            .flatten()
            .map(|t| t.read(self))
            .collect::<Result<Vec<_>>>()?;
        Ok(in_bind_order(binds, &written, read, textures))
    }

    /// Checks everything, then records the dispatch into a new encoder.
    fn encode<'a>(
        &self,
        kernel: &Kernel,
        workgroups: Workgroups,
        binds: &[Bind<'a>],
    ) -> Result<(wgpu::CommandEncoder, Vec<Slotted<'a>>)> {
        let mut encoder = self
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("atomport dispatch"),
            });
        self.ready()?;
        let slots = resolve(kernel, binds)?;
        self.record(&mut encoder, kernel, workgroups, &slots)?;
        Ok((encoder, slots))
    }

    /// Dispatches `kernel` with its workgroup counts read on the GPU from
    /// `args` at `offset` (three `u32`s, as a previous pass wrote them —
    /// the stream-compaction pattern), and waits at most the timeout. The
    /// counts are not checked against the adapter's limits: the GPU reads them.
    pub fn dispatch_indirect(
        &self,
        kernel: &Kernel,
        args: &Buffer,
        offset: u64,
        binds: &[Bind],
    ) -> Result<()> {
        let workgroups = Workgroups::Indirect {
            buffer: args,
            offset,
        };
        let cmd = self.encode(kernel, workgroups, binds)?.0.finish();
        self.on_gpu(move |gpu| gpu.submit_and_wait(cmd))
    }

    /// Like [`Context::dispatch`] without blocking the calling thread: the
    /// submission and the wait run on the context's GPU worker, so the future
    /// completes under any executor, with [`Error::Timeout`] after the timeout.
    pub async fn dispatch_async(
        &self,
        kernel: &Kernel,
        groups: [u32; 3],
        binds: &[Bind<'_>],
    ) -> Result<()> {
        let cmd = self
            .encode(kernel, Workgroups::Count(groups), binds)?
            .0
            .finish();
        self.on_gpu_async(move |gpu| gpu.submit_and_wait(cmd)).await
    }

    /// Starts a batch: dispatches and copies recorded into one encoder and
    /// submitted once ([`Batch::submit`]), each dispatch checked as it is recorded.
    pub fn batch(&self) -> Batch<'_> {
        Batch {
            ctx: self,
            encoder: self
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("atomport batch"),
                }),
            dispatches: 0,
        }
    }

    /// Checks everything — features, limits, every binding — compiles the
    /// pipeline if need be, and records the dispatch as one compute pass of
    /// the caller's `encoder`, to be submitted with the caller's other work.
    /// The dispatch's resources must outlive the submission.
    pub fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        workgroups: Workgroups,
        binds: &[Bind],
    ) -> Result<()> {
        self.ready()?;
        self.record(encoder, kernel, workgroups, &resolve(kernel, binds)?)
    }

    /// Checks a dispatch with resolved bindings and records it.
    fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &Kernel,
        workgroups: Workgroups,
        binds: &[Slotted],
    ) -> Result<()> {
        // Image arrays declared at one binding: placeholders where another
        // array of the class has the element.
        let holes = self.holes(kernel, binds)?;
        let with_holes;
        let binds = if holes.is_empty() {
            binds
        } else {
            with_holes = filled(binds, &holes);
            &with_holes
        };
        // A kernel with a compiled pipeline here was checked against the
        // device when it was compiled: only the dispatch's own inputs are.
        let overrides = Overrides::of(kernel, binds);
        let cached = self.cached_pipeline(kernel, &overrides);
        if cached.is_none() {
            self.check_kernel(kernel)?;
        }
        self.check(kernel, workgroups, binds)?;
        let pipeline = match cached {
            Some(p) => p,
            None => self.compile_pipeline(kernel, overrides)?,
        };
        let bound = self.bind_groups(kernel, &pipeline, binds)?;
        let (bind_groups, packs) = &*bound;
        let moves = packed::moves(kernel, binds, packs);
        packed::copy(encoder, &moves, true);
        // Recording errors surface at submission, inside its error scope.
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(kernel.entry()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline.pipeline);
        for (i, bg) in bind_groups.iter().enumerate() {
            pass.set_bind_group(i as u32, bg, &[]);
        }
        match workgroups {
            Workgroups::Count(g) => {
                // Checked against the limit in check_groups.
                let f = kernel.workgroup_split();
                pass.dispatch_workgroups(g[0] * f[0], g[1] * f[1], g[2] * f[2])
            }
            Workgroups::Indirect { buffer, offset } => {
                pass.dispatch_workgroups_indirect(buffer.raw(), offset)
            }
        }
        drop(pass);
        packed::copy(encoder, &moves, false);
        Ok(())
    }

    /// The bind groups for `binds` (and the buffers of packed image arrays
    /// they bind), reused from the last dispatch of this pipeline when it
    /// bound the same buffers.
    fn bind_groups(
        &self,
        kernel: &Kernel,
        pipeline: &Pipeline,
        binds: &[Slotted],
    ) -> Result<crate::runtime::context::BoundGroups> {
        let mut key: Vec<(u32, u32, u32, u64)> = binds
            .iter()
            .map(|b| (b.group, b.binding, b.element, b.resource.id()))
            .collect();
        key.sort_unstable();
        let mut last = pipeline
            .last_binds
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((k, groups)) = last.as_ref()
            && *k == key
        {
            return Ok(groups.clone());
        }
        let packs = self.pack_buffers(kernel, binds)?;
        let groups = self.scoped(|| {
            pipeline
                .layouts
                .iter()
                .enumerate()
                .map(|(group, layout)| {
                    let per = per_binding(kernel, binds, group as u32);
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
                    let entries: Vec<wgpu::BindGroupEntry> = per
                        .iter()
                        .zip(&parts)
                        .map(|((binding, array, elements), parts)| {
                            let pack = packs
                                .iter()
                                .find(|p| (p.0, p.1) == (group as u32, *binding));
                            wgpu::BindGroupEntry {
                                binding: *binding,
                                resource: match (elements[0].resource, pack) {
                                    _ if *array => array_resource(parts),
                                    (_, Some(p)) => p.2.as_entire_binding(),
                                    (Resource::Texture(t) | Resource::Sampled(t, _), _) => {
                                        wgpu::BindingResource::TextureView(t.view())
                                    }
                                    (Resource::Sampler(s), _) => {
                                        wgpu::BindingResource::Sampler(s.raw())
                                    }
                                    (Resource::Buffer(buf), _) => buf.raw().as_entire_binding(),
                                    (Resource::Image(img), _) => {
                                        img.buffer().raw().as_entire_binding()
                                    }
                                },
                            }
                        })
                        .collect();
                    self.device().create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(&format!("{} group {group}", pipeline.label)),
                        layout,
                        entries: &entries,
                    })
                })
                .collect::<Vec<_>>()
        })?;
        // On wasm32 wgpu's buffers are neither Send nor Sync; the page runs
        // atomport on one thread.
        #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
        let groups = Arc::new((groups, packs));
        *last = Some((key, groups.clone()));
        Ok(groups)
    }
}

/// The override constants a dispatch sets from its resources: each image's
/// width, height, layers and samples, each array texture's layer count;
/// and the formats of the textures bound to formatless storage images. The
/// values (format codes among them) key the pipeline cache.
struct Overrides {
    ids: Vec<u32>,
    /// The value of each of `ids`, in order, then what else keys the cache
    /// (format codes, the layout's hash), which sets no constant.
    values: Vec<u32>,
    /// (group, binding, format) of each formatless storage image.
    formats: Vec<(u32, u32, wgpu::TextureFormat)>,
    /// For a kernel with binding arrays, every binding bound: the layout
    /// entries of each group (its hash among the values).
    layout: Option<Vec<Vec<wgpu::BindGroupLayoutEntry>>>,
}

impl Overrides {
    fn of(kernel: &Kernel, binds: &[Slotted]) -> Overrides {
        let mut o = Overrides {
            ids: Vec::new(),
            values: Vec::new(),
            formats: Vec::new(),
            layout: None,
        };
        // Keys past the constants' values: among them, a format code would
        // give the next image's width to the wrong constant.
        let mut format_codes = Vec::new();
        let bound = |info: &crate::BindingInfo| {
            binds
                .iter()
                .find(|b| b.group == info.group && b.binding == info.binding)
                .map(|b| b.resource)
        };
        for info in kernel.bindings() {
            // A packed image array: each element's sizes and region.
            if !info.packed.is_empty() {
                if let Some(regions) = packed::regions(info, binds) {
                    let offsets = packed::texel_offsets(info, &regions);
                    for ((e, r), offset) in info.packed.iter().zip(&regions).zip(offsets) {
                        o.ids.extend(e.size_overrides);
                        o.values.extend(size_values(r.image));
                        o.ids.push(e.offset_override);
                        o.values.push(offset);
                    }
                }
                continue;
            }
            let resource = bound(info);
            match (info.image, info.layers_override, resource) {
                // Without an image (prepare without binds) the defaults of 1 stand.
                // An element of an image array reads its sizes from its header.
                (Some(shape), _, Some(Resource::Image(img))) if !info.is_binding_array() => {
                    o.ids.extend(shape.size_overrides);
                    o.values.extend(size_values(img));
                }
                (None, Some(id), Some(Resource::Texture(t))) => {
                    o.ids.push(id);
                    o.values.push(t.desc().layers());
                }
                _ => {}
            }
            // A sampler integer textures are sampled through: its address
            // mode (checked known and nearest before submission).
            if let (Some(id), Some(Resource::Sampler(s) | Resource::Sampled(_, s))) =
                (info.address_override, resource)
            {
                o.ids.push(id);
                o.values.push(address_code(s));
            }
            // A sampler array: its elements' modes, packed.
            if !info.address_overrides.is_empty() {
                let per = crate::lower::spirv::integer_sampling::MODES_PER_WORD as usize;
                let mut words = vec![0u32; info.address_overrides.len()];
                for b in binds
                    .iter()
                    .filter(|b| b.group == info.group && b.binding == info.binding)
                {
                    let k = b.element as usize;
                    if let (Resource::Sampler(s), Some(w)) = (b.resource, words.get_mut(k / per)) {
                        *w |= address_code(s) << (2 * (k % per));
                    }
                }
                o.ids.extend(&info.address_overrides);
                o.values.extend(words);
            }
            if let (Some(t), Some(Resource::Texture(bound))) = (&info.texture, resource)
                && t.format_from_host
            {
                let f = bound.desc().format;
                o.formats.push((info.group, info.binding, f));
                // In the key, a format is its name's position + 2^31.
                format_codes.push(crate::formats::code(f) | 1 << 31);
            }
        }
        debug_assert_eq!(o.ids.len(), o.values.len());
        o.values.extend(format_codes);
        if needs_explicit_layout(kernel, binds)
            && kernel.bindings().iter().all(|i| {
                binds
                    .iter()
                    .any(|b| b.group == i.group && b.binding == i.binding)
            })
        {
            if let Ok(layout) = layout_entries(kernel, binds, group_count(kernel), false) {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                layout.hash(&mut h);
                let h = h.finish();
                o.values.extend([h as u32, (h >> 32) as u32]);
                o.layout = Some(layout);
            }
        }
        o
    }
}

/// A sampler's address mode as the integer-sampling fetch takes it: 0
/// clamp to edge (also for a sampler of unknown modes), 1 repeat, 2
/// mirrored repeat, 3 clamp to border.
fn address_code(s: &Sampler) -> u32 {
    match s.described() {
        Some((wgpu::AddressMode::Repeat, _)) => 1,
        Some((wgpu::AddressMode::MirrorRepeat, _)) => 2,
        Some((wgpu::AddressMode::ClampToBorder, _)) => 3,
        _ => 0,
    }
}

/// The values of an image's size overrides: width, height (1 for shapes
/// without one), layers (6 a cube) and samples.
fn size_values(img: &Image) -> [u32; 4] {
    let d = img.desc();
    let height = if d.dim.has_height() { d.height } else { 1 };
    [d.width, height, d.layers(), d.samples]
}

/// How many bind groups `kernel`'s pipeline layout has: up to its highest
/// group's.
fn group_count(kernel: &Kernel) -> u32 {
    kernel
        .bindings()
        .iter()
        .map(|b| b.group + 1)
        .max()
        .unwrap_or(0)
}

/// Whether the pipeline's layout must be made from what `binds` binds
/// rather than derived from the module by wgpu: for binding arrays (their
/// lengths), and for float textures of formats that cannot be filtered
/// (`r32float` read through a nearest sampler), which the derived layout
/// takes for filterable ones whenever the shader samples.
fn needs_explicit_layout(kernel: &Kernel, binds: &[Slotted]) -> bool {
    kernel.bindings().iter().any(|b| b.is_binding_array())
        || binds.iter().any(|b| {
            let (Resource::Texture(t) | Resource::Sampled(t, _)) = b.resource else {
                return false;
            };
            let format = t.desc().format;
            !format.has_depth_aspect()
                && format.sample_type(None, None)
                    == Some(wgpu::TextureSampleType::Float { filterable: false })
                && kernel
                    .binding(b.group, b.binding)
                    .is_some_and(|i| i.kind == BindingKind::SampledTexture)
        })
}

/// Whether `t` is bound (in the resolved `slots`) to a storage texture the
/// kernel writes.
fn writes(kernel: &Kernel, slots: &[Slotted], t: &Texture) -> bool {
    slots.iter().any(|s| {
        matches!(s.resource, Resource::Texture(x) if x.id() == t.id())
            && kernel.binding(s.group, s.binding).is_some_and(|i| {
                i.kind == BindingKind::StorageTexture
                    && i.texture.as_ref().and_then(|t| t.access) != Some("read")
            })
    })
}

/// The layout entry of one binding, from what is bound to it (`s`, the
/// first element of an array; `count`, the elements of an array): for the
/// native module (`native`: images as the storage textures it declares) or
/// for the translation (images as their texel buffers).
fn layout_entry(
    kernel: &Kernel,
    info: &crate::BindingInfo,
    elements: &[&Slotted],
    native: bool,
) -> Result<wgpu::BindGroupLayoutEntry> {
    let s = elements[0];
    let count = info.is_binding_array().then_some(elements.len() as u32);
    let buffer = |ty| wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let ty = match (info.kind, s.resource) {
        (BindingKind::StorageRead, _) => {
            buffer(wgpu::BufferBindingType::Storage { read_only: true })
        }
        (BindingKind::StorageReadWrite, _) => {
            buffer(wgpu::BufferBindingType::Storage { read_only: false })
        }
        (BindingKind::Uniform, _) => buffer(wgpu::BufferBindingType::Uniform),
        (BindingKind::Image, Resource::Image(_)) if !native => {
            buffer(wgpu::BufferBindingType::Storage {
                read_only: !writes_buffer(kernel, info),
            })
        }
        (BindingKind::Image, Resource::Image(img)) => wgpu::BindingType::StorageTexture {
            access: wgpu::StorageTextureAccess::ReadWrite,
            format: img.desc().format.texture_format(),
            view_dimension: crate::runtime::image::storage_view(img.desc().dim, img.desc().samples)
                .unwrap_or(wgpu::TextureViewDimension::D2),
        },
        (BindingKind::StorageTexture, Resource::Texture(t)) => wgpu::BindingType::StorageTexture {
            access: match info.texture.as_ref().and_then(|t| t.access) {
                Some("read") => wgpu::StorageTextureAccess::ReadOnly,
                Some("write") => wgpu::StorageTextureAccess::WriteOnly,
                _ => wgpu::StorageTextureAccess::ReadWrite,
            },
            format: t.desc().format,
            view_dimension: t.desc().dim.view_dimension(),
        },
        (BindingKind::SampledTexture, Resource::Texture(t) | Resource::Sampled(t, _)) => {
            let sample_type = |r: &Resource| {
                let (Resource::Texture(t) | Resource::Sampled(t, _)) = *r else {
                    return None;
                };
                let format = t.desc().format;
                let aspect = format
                    .has_depth_aspect()
                    .then_some(wgpu::TextureAspect::DepthOnly);
                format.sample_type(aspect, None)
            };
            // The elements of an array share one sample type: filterable
            // only if every one is.
            let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
            let mut ty = sample_type(&s.resource).unwrap_or(unfilterable);
            if elements
                .iter()
                .any(|e| sample_type(&e.resource) == Some(unfilterable))
            {
                ty = unfilterable;
            }
            wgpu::BindingType::Texture {
                sample_type: ty,
                view_dimension: t.desc().dim.view_dimension(),
                multisampled: false,
            }
        }
        (BindingKind::Sampler, Resource::Sampler(smp)) => {
            let filtering = elements
                .iter()
                .any(|e| matches!(e.resource, Resource::Sampler(x) if x.is_filtering()));
            wgpu::BindingType::Sampler(if smp.is_comparison() {
                wgpu::SamplerBindingType::Comparison
            } else if filtering {
                wgpu::SamplerBindingType::Filtering
            } else {
                wgpu::SamplerBindingType::NonFiltering
            })
        }
        _ => {
            return Err(Error::Dispatch(format!(
                "binding {}.{} (`{}`) cannot be bound for a native run",
                info.group,
                info.binding,
                info.display_name()
            )));
        }
    };
    Ok(wgpu::BindGroupLayoutEntry {
        binding: s.binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: count.and_then(std::num::NonZeroU32::new),
    })
}

/// Whether the translation's variable at `info`'s slot is a storage buffer
/// it writes.
fn writes_buffer(kernel: &Kernel, info: &crate::BindingInfo) -> bool {
    kernel.module().global_variables.iter().any(|(_, v)| {
        v.binding.as_ref().is_some_and(|rb| rb.group == info.group && rb.binding == info.binding)
            && matches!(v.space, naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
    })
}

/// The resources bound in `group`, per binding in binding order: the
/// binding, whether it is an array, and what is bound, in element order.
pub(crate) fn per_binding<'s, 'a>(
    kernel: &Kernel,
    slots: &'s [Slotted<'a>],
    group: u32,
) -> Vec<(u32, bool, Vec<&'s Slotted<'a>>)> {
    let mut out: Vec<(u32, bool, Vec<&Slotted>)> = Vec::new();
    for s in slots.iter().filter(|s| s.group == group) {
        match out.iter_mut().find(|p| p.0 == s.binding) {
            Some(p) => p.2.push(s),
            None => {
                let array = kernel
                    .binding(group, s.binding)
                    .is_some_and(|i| i.is_binding_array());
                out.push((s.binding, array, vec![s]));
            }
        }
    }
    out.sort_by_key(|p| p.0);
    for p in &mut out {
        p.2.sort_by_key(|s| s.element);
    }
    out
}

/// The texture views, samplers and buffers bound to a binding array's
/// elements.
pub(crate) type ArrayParts<'a> = (
    Vec<&'a wgpu::TextureView>,
    Vec<&'a wgpu::Sampler>,
    Vec<wgpu::BufferBinding<'a>>,
);

/// A binding array's resource, from its [`array_parts`].
pub(crate) fn array_resource<'a>(parts: &'a ArrayParts<'a>) -> wgpu::BindingResource<'a> {
    let (views, samplers, buffers) = parts;
    if !buffers.is_empty() {
        wgpu::BindingResource::BufferArray(buffers)
    } else if views.is_empty() {
        wgpu::BindingResource::SamplerArray(samplers)
    } else {
        wgpu::BindingResource::TextureViewArray(views)
    }
}

/// The texture views, samplers and buffers bound to a binding array's
/// elements.
pub(crate) fn array_parts<'a>(elements: &[&Slotted<'a>]) -> ArrayParts<'a> {
    let mut parts: ArrayParts = Default::default();
    for e in elements {
        match e.resource {
            Resource::Texture(t) | Resource::Sampled(t, _) => parts.0.push(t.view()),
            Resource::Sampler(s) => parts.1.push(s.raw()),
            Resource::Buffer(b) => parts.2.push(b.raw().as_entire_buffer_binding()),
            // An image array used atomically: its texel buffers.
            Resource::Image(i) => parts.2.push(i.buffer().raw().as_entire_buffer_binding()),
        }
    }
    parts
}

/// The bind group layout entries of every group `0..groups`, from what is
/// bound (see [`layout_entry`]); a binding array counts its elements.
pub(crate) fn layout_entries(
    kernel: &Kernel,
    slots: &[Slotted],
    groups: u32,
    native: bool,
) -> Result<Vec<Vec<wgpu::BindGroupLayoutEntry>>> {
    (0..groups)
        .map(|g| {
            per_binding(kernel, slots, g)
                .into_iter()
                .map(|(binding, array, elements)| {
                    // Natively, a packed image array's elements are at
                    // bindings of their own.
                    let info = kernel
                        .binding(g, binding)
                        .or_else(|| {
                            let at = |i: &&crate::BindingInfo| {
                                i.group == g && i.packed.iter().any(|e| e.native_binding == binding)
                            };
                            native.then(|| kernel.bindings().iter().find(at)).flatten()
                        })
                        .ok_or(Error::UnusedBinding { group: g, binding })?;
                    let _ = array;
                    layout_entry(kernel, info, &elements, native)
                })
                .collect()
        })
        .collect()
}
