//! A kernel's pipelines: the module each compiles (formats of formatless
//! storage images, memory decorations and single compare-exchanges where
//! the device has them), the compile under the context's timeout, and the
//! cache of pipelines by override values.

use std::collections::HashMap;
use std::sync::Arc;

use super::Overrides;
use crate::runtime::context::Pipeline;
use crate::{Context, Error, Kernel, Result};

impl Context {
    /// The pipeline compiled for `kernel` with these override values, if
    /// there is one (marked as used).
    pub(super) fn cached_pipeline(
        &self,
        kernel: &Kernel,
        overrides: &Overrides,
    ) -> Option<Arc<Pipeline>> {
        let mut cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        let tick = self
            .pipeline_tick
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (pipeline, last_used) = cache
            .get_mut(&kernel.id())?
            .by_overrides
            .get_mut(overrides.values.as_slice())?;
        *last_used = tick;
        Some(pipeline.clone())
    }

    /// `module` with the buffers the shader declared `coherent` and
    /// `volatile` decorated so, where the device has
    /// MEMORY_DECORATION_COHERENT and MEMORY_DECORATION_VOLATILE.
    fn with_memory_decorations(
        &self,
        kernel: &Kernel,
        module: Arc<naga::Module>,
    ) -> Arc<naga::Module> {
        use naga::MemoryDecorations as D;
        let features = self.device().features();
        let wanted = |b: &crate::BindingInfo| {
            let mut d = D::empty();
            if b.coherent && features.contains(wgpu::Features::MEMORY_DECORATION_COHERENT) {
                d |= D::COHERENT;
            }
            if b.volatile && features.contains(wgpu::Features::MEMORY_DECORATION_VOLATILE) {
                d |= D::VOLATILE;
            }
            (
                naga::ResourceBinding {
                    group: b.group,
                    binding: b.binding,
                },
                d,
            )
        };
        let decorated: Vec<_> = kernel
            .bindings()
            .iter()
            .map(wanted)
            .filter(|(_, d)| !d.is_empty())
            .collect();
        if decorated.is_empty() {
            return module;
        }
        let mut m = (*module).clone();
        for (_, g) in m.global_variables.iter_mut() {
            if !matches!(g.space, naga::AddressSpace::Storage { .. }) {
                continue;
            }
            if let Some((_, d)) = decorated
                .iter()
                .find(|(b, _)| g.binding.as_ref() == Some(b))
            {
                g.memory_decorations |= *d;
            }
        }
        Arc::new(m)
    }

    /// `module` with each compare-exchange retry loop its one call, where
    /// the backend's compare-exchange is strong (Vulkan, GL, DX12; Metal's
    /// and a browser's may fail spuriously, and keep the loops).
    fn with_strong_compare_exchange(&self, module: Arc<naga::Module>) -> Arc<naga::Module> {
        let strong = matches!(
            self.info().backend,
            wgpu::Backend::Vulkan | wgpu::Backend::Gl | wgpu::Backend::Dx12
        );
        if !strong {
            return module;
        }
        let mut m = (*module).clone();
        if crate::lower::ir::compswap::single_calls_where_strong(&mut m) == 0 {
            return module;
        }
        Arc::new(m)
    }

    /// Refuses, on wgpu's GL backend, a kernel with a texture that backend
    /// binds wrongly, silently, naming the first such texture:
    /// - a 1D texture read through a sampler or `texelFetch`: wgpu keeps
    ///   1D textures as GL's 2D ones, and the desktop GLSL it writes reads
    ///   them as 1D ones, so every read gives (0, 0, 0, 1) and every size 1
    ///   (1D storage images bind by unit and are unaffected);
    /// - a 3D storage image: wgpu binds one layer of it (`glBindImageTexture`
    ///   with `layered` false, as for a 2D image), so only slice 0 is seen:
    ///   stores to the other slices are lost and loads read slice 0. Held
    ///   in a texel buffer, the image is a storage buffer and runs.
    fn refuse_what_gl_binds_wrongly(&self, kernel: &Kernel) -> Result<()> {
        if self.info().backend != wgpu::Backend::Gl {
            return Ok(());
        }
        let m = kernel.module();
        let wrong = m.global_variables.iter().find_map(|(_, g)| {
            let naga::TypeInner::Image {
                dim: naga::ImageDimension::D1,
                class,
                ..
            } = m.types[g.ty].inner
            else {
                return None;
            };
            let sampled = !matches!(class, naga::ImageClass::Storage { .. });
            sampled.then(|| format!(
                "the 1D texture `{}` cannot be read on wgpu's GL backend: wgpu keeps it as a 2D texture that the GLSL it writes reads as a 1D one (every texel (0, 0, 0, 1)); run it on Vulkan, or declare a 2D texture of height 1",
                g.name.as_deref().unwrap_or_default()
            ))
        });
        let wrong = wrong.or_else(|| {
            let (name, formatless) = kernel.storage_3d_images().into_iter().next()?;
            // A formatless image stays a storage texture whatever the
            // options: only Vulkan is left to it.
            let instead = if formatless {
                ""
            } else {
                ", or translate with images held in texel buffers (--texel-buffers, SourceOptions::images_as_texel_buffers; Kernel::refitted_for makes that translation)"
            };
            Some(format!(
                "the 3D storage image `{name}` cannot be used on wgpu's GL backend: wgpu binds only its first slice (stores to the others are lost, loads read slice 0); run it on Vulkan{instead}"
            ))
        });
        wrong.map_or(Ok(()), |why| Err(Error::Unsupported(why)))
    }

    /// The module `kernel`'s pipeline with `overrides` compiles: formatless
    /// storage images given the bound formats, and this device's memory
    /// decorations and single compare-exchanges.
    fn pipeline_module(&self, kernel: &Kernel, overrides: &Overrides) -> Result<Arc<naga::Module>> {
        self.refuse_what_gl_binds_wrongly(kernel)?;
        let module = if overrides.formats.is_empty() {
            kernel.module().clone()
        } else {
            Arc::new(with_storage_formats(kernel.module(), &overrides.formats)?)
        };
        let module = self.with_memory_decorations(kernel, module);
        Ok(self.with_strong_compare_exchange(module))
    }

    /// Compiles `kernel`'s pipeline with `overrides` and caches it, this
    /// kernel's least recently used ones going past the bound.
    pub(super) fn compile_pipeline(
        &self,
        kernel: &Kernel,
        overrides: Overrides,
    ) -> Result<Arc<Pipeline>> {
        // Drivers compile here, in time that grows with the shader: on the
        // worker thread, under the context's timeout.
        let module = self.pipeline_module(kernel, &overrides)?;
        let entry = kernel.entry().to_string();
        let groups = super::group_count(kernel);
        // A binding array's length is its layout's: a kernel with one gets
        // an explicit layout, made from what is bound (as does one whose
        // bound textures the layout wgpu derives would not take).
        let explicit = match overrides.layout.clone() {
            Some(layout) => Some(layout),
            None if kernel.bindings().iter().any(|b| b.is_binding_array()) => {
                return Err(Error::Dispatch(format!(
                    "`{}` binds arrays of resources, whose lengths the pipeline takes from what is bound: prepare it with every element bound",
                    kernel.entry()
                )));
            }
            None => None,
        };
        let constants: Vec<(String, f64)> = overrides
            .ids
            .iter()
            .zip(&overrides.values)
            .map(|(id, v)| (id.to_string(), f64::from(*v)))
            .collect();
        // A browser reports a refused pipeline only later, at an await:
        // there the values are checked first.
        #[cfg(target_arch = "wasm32")]
        overrides_apply(&module, &entry, &constants)?;
        // A browser compiles text: atomport's, whose float literals every
        // WGSL compiler reads back.
        #[cfg(target_arch = "wasm32")]
        let source = wgpu::ShaderSource::Wgsl(std::borrow::Cow::Owned(
            crate::kernel::web::browser_wgsl(&module, &entry)?,
        ));
        #[cfg(not(target_arch = "wasm32"))]
        let source = wgpu::ShaderSource::Naga(std::borrow::Cow::Owned((*module).clone()));
        let zero_shared = !kernel.shared_memory_starts_undefined();
        // What the failure names, should wgpu refuse the pipeline.
        let (checked, entry_name, values) = (module.clone(), entry.clone(), constants.clone());
        let p = self
            .on_gpu_for("compiling the pipeline", move |gpu| {
                crate::runtime::context::scoped(&gpu.device, || {
                    let constants: Vec<(&str, f64)> =
                        constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
                    let module = gpu
                        .device
                        .create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(&entry),
                            source,
                        });
                    let explicit = explicit.map(|entries| {
                        let layouts: Vec<wgpu::BindGroupLayout> = entries
                            .iter()
                            .map(|e| {
                                gpu.device.create_bind_group_layout(
                                    &wgpu::BindGroupLayoutDescriptor {
                                        label: Some(&entry),
                                        entries: e,
                                    },
                                )
                            })
                            .collect();
                        let layout =
                            gpu.device
                                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                                    label: Some(&entry),
                                    bind_group_layouts: &layouts
                                        .iter()
                                        .map(Some)
                                        .collect::<Vec<_>>(),
                                    immediate_size: 0,
                                });
                        (layouts, layout)
                    });
                    let pipeline =
                        gpu.device
                            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                                label: Some(&entry),
                                layout: explicit.as_ref().map(|e| &e.1),
                                module: &module,
                                entry_point: Some(&entry),
                                compilation_options: wgpu::PipelineCompilationOptions {
                                    constants: &constants,
                                    zero_initialize_workgroup_memory: zero_shared,
                                },
                                cache: None,
                            });
                    let layouts = match explicit {
                        Some((layouts, _)) => layouts,
                        None => (0..groups)
                            .map(|g| pipeline.get_bind_group_layout(g))
                            .collect(),
                    };
                    Pipeline {
                        label: entry.clone(),
                        pipeline,
                        layouts,
                        last_binds: std::sync::Mutex::new(None),
                    }
                })
            })
            .map_err(|e| match e {
                // wgpu's error keeps only the top of naga's: the override
                // values are checked for the reason, on this path only.
                Error::Wgpu { .. } => overrides_apply(&checked, &entry_name, &values)
                    .err()
                    .unwrap_or(e),
                e => e,
            })?;
        // On wasm32 wgpu's buffers (the packed images' among the cached
        // bind groups) are neither Send nor Sync; the page runs atomport on
        // one thread.
        #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
        let p = Arc::new(p);
        Ok(self.cache_pipeline(kernel, overrides.values, p))
    }

    /// Keeps `p`, compiled for `kernel` with override `values`, in the
    /// pipeline cache: this kernel's least recently used ones go past the
    /// bound, and those of kernels dropped go with them.
    fn cache_pipeline(&self, kernel: &Kernel, values: Vec<u32>, p: Arc<Pipeline>) -> Arc<Pipeline> {
        let mut cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        // Pipelines of kernels that were dropped go with them (on a miss
        // only: hits stay a single lookup).
        cache.retain(|_, e| e.kernel.strong_count() > 0);
        let mine =
            cache
                .entry(kernel.id())
                .or_insert_with(|| crate::runtime::context::KernelPipelines {
                    kernel: kernel.liveness(),
                    by_overrides: HashMap::new(),
                });
        // One pipeline per set of image sizes: the least recently used go
        // past the bound.
        let limit = self.pipeline_limit().max(1);
        if mine.by_overrides.len() >= limit {
            let mut ages: Vec<(u64, Vec<u32>)> = mine
                .by_overrides
                .iter()
                .map(|(k, (_, t))| (*t, k.clone()))
                .collect();
            ages.sort_unstable_by_key(|(t, _)| *t);
            for (_, k) in ages.into_iter().take(mine.by_overrides.len() + 1 - limit) {
                mine.by_overrides.remove(&k);
            }
        }
        let tick = self
            .pipeline_tick
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        mine.by_overrides.insert(values, (p.clone(), tick));
        p
    }
}

/// `module` with the storage textures at (group, binding) of the given
/// formats (formatless storage images, compiled for what is bound).
fn with_storage_formats(
    module: &naga::Module,
    formats: &[(u32, u32, wgpu::TextureFormat)],
) -> Result<naga::Module> {
    let mut m = module.clone();
    let globals: Vec<naga::Handle<naga::GlobalVariable>> =
        m.global_variables.iter().map(|(h, _)| h).collect();
    for h in globals {
        let Some(rb) = m.global_variables[h].binding else {
            continue;
        };
        let Some(&(_, _, format)) = formats
            .iter()
            .find(|(g, b, _)| *g == rb.group && *b == rb.binding)
        else {
            continue;
        };
        // An array of them is a binding array of one storage texture type.
        let (ty, array) = match m.types[m.global_variables[h].ty].inner {
            naga::TypeInner::BindingArray { base, size } => (base, Some(size)),
            _ => (m.global_variables[h].ty, None),
        };
        let naga::TypeInner::Image {
            dim,
            arrayed,
            class: naga::ImageClass::Storage { access, .. },
        } = m.types[ty].inner
        else {
            continue;
        };
        let storage = wgpu_naga_bridge::map_storage_format_to_naga(format).ok_or_else(|| {
            Error::Dispatch(format!(
                "binding {}.{}: {} is not a storage texture format",
                rb.group,
                rb.binding,
                crate::formats::format_name(format)
            ))
        })?;
        let new = m.types.insert(
            naga::Type {
                name: None,
                inner: naga::TypeInner::Image {
                    dim,
                    arrayed,
                    class: naga::ImageClass::Storage {
                        format: storage,
                        access,
                    },
                },
            },
            naga::Span::UNDEFINED,
        );
        let new = match array {
            Some(size) => m.types.insert(
                naga::Type {
                    name: None,
                    inner: naga::TypeInner::BindingArray { base: new, size },
                },
                naga::Span::UNDEFINED,
            ),
            None => new,
        };
        m.global_variables[h].ty = new;
    }
    Ok(m)
}

/// Checks that the override values give a valid module, as wgpu does when
/// it makes the pipeline: wgpu's error keeps only the top of naga's
/// ("Function [4] 'f' is invalid"), this one the whole chain down to the
/// reason ("Division by zero"). Natively run only once wgpu has refused a
/// pipeline, so that a pipeline that compiles is validated once.
fn overrides_apply(module: &naga::Module, entry: &str, constants: &[(String, f64)]) -> Result<()> {
    if module.overrides.is_empty() {
        return Ok(());
    }
    crate::guard("naga's pipeline constants", || {
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(module)
        .map_err(|e| {
            Error::Internal(format!(
                "the kernel's module does not validate: {}",
                crate::error::with_causes(e.as_inner())
            ))
        })?;
        let values: naga::back::PipelineConstants =
            constants.iter().map(|(k, v)| (k.clone(), *v)).collect();
        naga::back::pipeline_constants::process_overrides(
            module,
            &info,
            Some((naga::ShaderStage::Compute, entry)),
            &values,
        )
        .map(|_| ())
        .map_err(|e| {
            Error::Dispatch(format!(
                "`{entry}`: the specialization values make the kernel invalid: {}",
                crate::error::with_causes(&e)
            ))
        })
    })
}
