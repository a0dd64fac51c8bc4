//! [`Context`]: one adapter, its device and queue, chosen by backend and name.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use super::MaybeSend;
#[cfg(target_arch = "wasm32")]
use super::web::Worker;
#[cfg(not(target_arch = "wasm32"))]
use super::worker::Worker;
use crate::{Error, Result};

/// Which backend(s) to look for adapters on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// Vulkan (lavapipe on machines without a GPU).
    Vulkan,
    /// Metal.
    Metal,
    /// Direct3D 12.
    Dx12,
    /// OpenGL / GLES (llvmpipe on machines without a GPU).
    Gl,
    /// Every backend compiled in; the best adapter wins.
    #[default]
    All,
}

impl BackendChoice {
    /// The wgpu backend set.
    pub fn backends(self) -> wgpu::Backends {
        match self {
            BackendChoice::Vulkan => wgpu::Backends::VULKAN,
            BackendChoice::Metal => wgpu::Backends::METAL,
            BackendChoice::Dx12 => wgpu::Backends::DX12,
            BackendChoice::Gl => wgpu::Backends::GL,
            BackendChoice::All => {
                wgpu::Backends::VULKAN
                    | wgpu::Backends::METAL
                    | wgpu::Backends::DX12
                    | wgpu::Backends::GL
            }
        }
    }

    /// The name as accepted by [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Vulkan => "vulkan",
            BackendChoice::Metal => "metal",
            BackendChoice::Dx12 => "dx12",
            BackendChoice::Gl => "gl",
            BackendChoice::All => "all",
        }
    }

    /// The single backends, in order of preference.
    pub const SINGLE: [BackendChoice; 4] = [
        BackendChoice::Vulkan,
        BackendChoice::Metal,
        BackendChoice::Dx12,
        BackendChoice::Gl,
    ];
}

impl FromStr for BackendChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => Ok(BackendChoice::Vulkan),
            "metal" | "mtl" => Ok(BackendChoice::Metal),
            "dx12" | "d3d12" => Ok(BackendChoice::Dx12),
            "gl" | "gles" | "opengl" => Ok(BackendChoice::Gl),
            "all" => Ok(BackendChoice::All),
            _ => Err(Error::UnknownBackend(s.to_string())),
        }
    }
}

/// The backend's lower-case name as used on the command line and in JSON.
pub fn backend_name(b: wgpu::Backend) -> &'static str {
    match b {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        wgpu::Backend::Noop => "noop",
    }
}

/// How to choose and open an adapter.
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Backend(s) to search.
    pub backend: BackendChoice,
    /// Case-insensitive substring the adapter name must contain.
    pub adapter: Option<String>,
    /// Optional features to request (see [`crate::Kernel::required_features`]);
    /// MEMORY_DECORATION_COHERENT and MEMORY_DECORATION_VOLATILE are
    /// requested too where the adapter has them, for buffers a shader
    /// declares `coherent` or `volatile`.
    pub features: wgpu::Features,
    /// Longest wait for any GPU work (dispatch, readback) before [`Error::Timeout`].
    pub timeout: Duration,
}

/// The default dispatch timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            backend: BackendChoice::All,
            adapter: None,
            features: wgpu::Features::empty(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl ContextOptions {
    /// Defaults overridden by `ATOMPORT_BACKEND` and `ATOMPORT_ADAPTER`
    /// (an empty variable counts as unset).
    pub fn from_env() -> Result<Self> {
        Self::from_env_with(None)
    }

    /// [`ContextOptions::from_env`], with `backend` (when given) taking the
    /// place of `ATOMPORT_BACKEND`, which is then not read at all: an
    /// explicit choice wins over the environment, whatever it holds.
    pub fn from_env_with(backend: Option<BackendChoice>) -> Result<Self> {
        let mut o = Self::default();
        match backend {
            Some(b) => o.backend = b,
            None => {
                if let Ok(b) = std::env::var("ATOMPORT_BACKEND")
                    && !b.is_empty()
                {
                    o.backend = b.parse()?;
                }
            }
        }
        if let Ok(a) = std::env::var("ATOMPORT_ADAPTER")
            && !a.is_empty()
        {
            o.adapter = Some(a);
        }
        Ok(o)
    }

    /// Sets the backend.
    pub fn with_backend(mut self, backend: BackendChoice) -> Self {
        self.backend = backend;
        self
    }

    /// Adds features to request.
    pub fn with_features(mut self, features: wgpu::Features) -> Self {
        self.features |= features;
        self
    }

    /// The optional features of the adapter these options choose, without
    /// opening it: lets a caller pick a mapping (e.g. native float atomics)
    /// before requesting a device.
    pub fn adapter_features(&self) -> Result<wgpu::Features> {
        Ok(select_adapter(self)?.features())
    }

    /// Sets the timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// What `atomport info` shows of one adapter ([`adapters`]): to choose one
/// by name, backend or features before opening a [`Context`] on it.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    /// Adapter name.
    pub name: String,
    /// Backend name (`vulkan`, `gl`, …).
    pub backend: &'static str,
    /// Device type (`DiscreteGpu`, `Cpu`, …).
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version information.
    pub driver_info: String,
    /// Which of [`crate::FEATURES`] the adapter has, by wgpu's names.
    pub features: Vec<&'static str>,
    /// The limits that matter for compute.
    pub limits: LimitsSummary,
}

/// The compute limits `atomport info` shows.
#[derive(Clone, Debug, Serialize)]
pub struct LimitsSummary {
    /// Largest storage buffer binding, bytes.
    pub max_storage_buffer_binding_size: u64,
    /// Most invocations in one workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Most workgroups per dispatch dimension.
    pub max_compute_workgroups_per_dimension: u32,
}

fn summarize(adapter: &wgpu::Adapter) -> AdapterSummary {
    summarize_parts(adapter.get_info(), adapter.features(), adapter.limits())
}

fn summarize_parts(
    info: wgpu::AdapterInfo,
    features: wgpu::Features,
    limits: wgpu::Limits,
) -> AdapterSummary {
    AdapterSummary {
        name: info.name,
        backend: backend_name(info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: info.driver,
        driver_info: info.driver_info,
        features: crate::FEATURES
            .iter()
            .filter(|(f, _, _)| features.contains(*f))
            .map(|(_, n, _)| *n)
            .collect(),
        limits: LimitsSummary {
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
            max_compute_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
        },
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn instance(backend: BackendChoice) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backend.backends();
    wgpu::Instance::new(desc)
}

#[cfg(not(target_arch = "wasm32"))]
fn device_rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn backend_rank(b: wgpu::Backend) -> usize {
    BackendChoice::SINGLE
        .iter()
        .position(|c| c.backends().contains(wgpu::Backends::from(b)))
        .unwrap_or(usize::MAX)
}

/// Every adapter on `backend`, best first: hardware before software, then
/// Vulkan, Metal, DX12, GL.
/// In a browser there is one adapter, which opens asynchronously
/// ([`Context::from_browser`]): none is listed.
#[cfg(target_arch = "wasm32")]
fn sorted_adapters(_backend: BackendChoice) -> Vec<wgpu::Adapter> {
    Vec::new()
}

/// Every adapter on `backend`, best first.
#[cfg(not(target_arch = "wasm32"))]
fn sorted_adapters(backend: BackendChoice) -> Vec<wgpu::Adapter> {
    let mut list = pollster::block_on(instance(backend).enumerate_adapters(backend.backends()));
    list.sort_by_key(|a| {
        let i = a.get_info();
        (device_rank(i.device_type), backend_rank(i.backend))
    });
    list
}

/// Every adapter found on `backend`, best first.
pub fn adapters(backend: BackendChoice) -> Vec<AdapterSummary> {
    sorted_adapters(backend).iter().map(summarize).collect()
}

/// Fails, naming what is missing, unless `adapter` has `features`.
pub(crate) fn has_features(adapter: &wgpu::Adapter, features: wgpu::Features) -> Result<()> {
    let missing = features - adapter.features();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::MissingFeature {
        adapter: adapter.get_info().name,
        feature: crate::error::describe_features(missing),
    })
}

/// The best adapter matching `opts`.
fn select_adapter(opts: &ContextOptions) -> Result<wgpu::Adapter> {
    let want = opts.adapter.as_ref().map(|s| s.to_lowercase());
    sorted_adapters(opts.backend)
        .into_iter()
        .find(|a| match &want {
            Some(w) => a.get_info().name.to_lowercase().contains(w),
            None => true,
        })
        .ok_or_else(|| Error::NoAdapter {
            tried: match opts.backend {
                BackendChoice::All => "vulkan, metal, dx12, gl".into(),
                b => b.name().into(),
            },
            filter: match &opts.adapter {
                Some(a) => format!("; adapter name containing `{a}`"),
                None => String::new(),
            },
        })
}

/// A compiled pipeline and its bind group layouts, cached per kernel.
pub(crate) struct Pipeline {
    /// The kernel's entry point, for the labels of what is made for it.
    pub(crate) label: String,
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layouts: Vec<wgpu::BindGroupLayout>,
    /// The bind groups of the last dispatch, keyed by (group, binding,
    /// buffer id) of every binding: repeated dispatches over the same
    /// buffers reuse them. One entry only, so at most one set of buffers
    /// per kernel is kept alive by the cache. With them, the buffers of
    /// its packed image arrays, which the bind groups bind.
    pub(crate) last_binds: Mutex<Option<(BindKey, BoundGroups)>>,
}

/// One kernel's compiled pipelines, by the values of the override constants
/// set from its resources (image sizes, layer counts), with when each was
/// last used; and whether the kernel still lives.
pub(crate) struct KernelPipelines {
    pub(crate) kernel: std::sync::Weak<()>,
    pub(crate) by_overrides: HashMap<Vec<u32>, (Arc<Pipeline>, u64)>,
}

/// How many pipelines a kernel keeps by default (one per set of image sizes).
pub const DEFAULT_PIPELINE_LIMIT: usize = 16;

/// A dispatch's bind groups, and the buffers of its packed image arrays
/// (group, binding, buffer) they bind.
pub(crate) type BoundGroups = Arc<(Vec<wgpu::BindGroup>, Vec<(u32, u32, wgpu::Buffer)>)>;

/// (group, binding, buffer id) of every binding of a dispatch, sorted.
pub(crate) type BindKey = Vec<(u32, u32, u32, u64)>;

/// The device and queue, as the GPU worker thread uses them.
#[derive(Clone)]
pub(crate) struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
}

impl Gpu {
    /// Submits `cmd` inside error scopes.
    pub(crate) fn submit(&self, cmd: wgpu::CommandBuffer) -> Result<wgpu::SubmissionIndex> {
        scoped(&self.device, || self.queue.submit([cmd]))
    }

    /// Waits for `submission` to finish and its callbacks to run.
    pub(crate) fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map(|_| ())
            .map_err(|e| Error::Wgpu {
                kind: crate::error::WgpuErrorKind::Wait,
                message: e.to_string(),
            })
    }

    /// Submits `cmd` and waits for it to finish.
    pub(crate) fn submit_and_wait(&self, cmd: wgpu::CommandBuffer) -> Result<()> {
        let submission = self.submit(cmd)?;
        self.wait(submission)
    }
}

/// An open device on the chosen adapter.
pub struct Context {
    /// `None` for a caller's device ([`Context::from_wgpu`]).
    adapter: Option<wgpu::Adapter>,
    gpu: Gpu,
    info: wgpu::AdapterInfo,
    timeout: Duration,
    worker: Worker,
    /// Compiled pipelines by kernel id, then by image sizes.
    pub(crate) pipelines: Mutex<HashMap<u64, KernelPipelines>>,
    /// Counts pipeline uses, for least-recently-used eviction.
    pub(crate) pipeline_tick: AtomicU64,
    /// Most pipelines kept per kernel (one per set of image sizes).
    pipeline_limit: std::sync::atomic::AtomicUsize,
    /// The device's limits, read once.
    limits: wgpu::Limits,
    /// Placeholder textures by format and shape, bound where an image
    /// array has no element of its own (see `dispatch::shared`).
    pub(crate) placeholders:
        Mutex<HashMap<(wgpu::TextureFormat, crate::TextureDim), Arc<crate::Texture>>>,
    /// Placeholder buffers by size and binding kind, bound where a buffer
    /// array has no element of its own.
    pub(crate) placeholder_buffers:
        Mutex<HashMap<(u64, crate::kernel::BindingKind), Arc<crate::Buffer>>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .finish()
    }
}

impl Context {
    /// Opens the best adapter matching `opts`, requesting `opts.features` and the adapter's limits.
    /// In a browser it fails: the adapter opens asynchronously there
    /// ([`Context::from_browser`]).
    #[cfg(target_arch = "wasm32")]
    pub fn new(_opts: &ContextOptions) -> Result<Context> {
        Err(Error::Unsupported(
            "in a browser a device opens asynchronously: use Context::from_browser".into(),
        ))
    }

    /// The browser's WebGPU adapter and a device on it, with `opts.features`
    /// and the adapter's limits; `opts.timeout` bounds every later wait.
    /// [`Error::NoWebGpu`] where the browser has no WebGPU.
    #[cfg(target_arch = "wasm32")]
    pub async fn from_browser(opts: &ContextOptions) -> Result<Context> {
        let (adapter, device, queue) = super::web::open(opts).await?;
        let mut info = adapter.get_info();
        // Browsers keep the adapter's name to themselves.
        if info.name.is_empty() {
            info.name = "the browser's WebGPU adapter".into();
        }
        Context::assemble(Some(adapter), info, device, queue, opts.timeout)
    }

    /// Opens the best adapter matching `opts`, requesting `opts.features` and the adapter's limits.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let adapter = select_adapter(opts)?;
        let info = adapter.get_info();
        has_features(&adapter, opts.features)?;
        // `@coherent` and `@volatile` for buffers a shader declares so,
        // where the adapter has them: they change nothing for any other kernel.
        let coherent = adapter.features()
            & (wgpu::Features::MEMORY_DECORATION_COHERENT
                | wgpu::Features::MEMORY_DECORATION_VOLATILE);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("atomport"),
            required_features: opts.features | coherent,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| Error::RequestDevice {
            adapter: info.name.clone(),
            message: e.to_string(),
        })?;
        // Errors are caught by error scopes around each operation and
        // reported; what escapes them follows one already reported (e.g.
        // asking an invalid pipeline for its layouts): logged at debug level
        // rather than aborting the process.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            log::debug!("wgpu: {e}");
        }));
        Context::assemble(Some(adapter), info, device, queue, opts.timeout)
    }

    /// A context over the caller's own device and queue (a wgpu program's),
    /// with the same checks and timeouts: features and limits are the
    /// device's. atomport's work goes on the caller's queue in order with
    /// the caller's; the caller's uncaught-error handler is left as it is.
    /// Without the adapter, format capabilities are WebGPU's guarantees.
    pub fn from_wgpu(
        info: wgpu::AdapterInfo,
        device: wgpu::Device,
        queue: wgpu::Queue,
        timeout: Duration,
    ) -> Result<Context> {
        Context::assemble(None, info, device, queue, timeout)
    }

    fn assemble(
        adapter: Option<wgpu::Adapter>,
        info: wgpu::AdapterInfo,
        device: wgpu::Device,
        queue: wgpu::Queue,
        timeout: Duration,
    ) -> Result<Context> {
        log::info!("adapter: {} ({:?})", info.name, info.backend);
        let device_limits = device.limits();
        let gpu = Gpu { device, queue };
        let worker = Worker::start(&gpu)?;
        Ok(Context {
            adapter,
            gpu,
            info,
            timeout,
            worker,
            pipelines: Mutex::new(HashMap::new()),
            pipeline_tick: AtomicU64::new(0),
            pipeline_limit: std::sync::atomic::AtomicUsize::new(DEFAULT_PIPELINE_LIMIT),
            limits: device_limits,
            placeholders: Mutex::new(HashMap::new()),
            placeholder_buffers: Mutex::new(HashMap::new()),
        })
    }

    /// The adapter's information.
    pub fn info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The adapter's name.
    pub fn adapter_name(&self) -> &str {
        &self.info.name
    }

    /// The backend's lower-case name (`vulkan`, `gl`, …).
    pub fn backend_name(&self) -> &'static str {
        backend_name(self.info.backend)
    }

    /// A summary of the adapter as `atomport info` shows it.
    pub fn summary(&self) -> AdapterSummary {
        summarize_parts(
            self.info.clone(),
            self.gpu.device.features(),
            self.gpu.device.limits(),
        )
    }

    /// The wgpu device, for interop with the caller's own pipelines.
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }

    /// The device and queue, as GPU work uses them.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.gpu.queue
    }

    /// The device's limits.
    pub fn limits(&self) -> wgpu::Limits {
        self.limits.clone()
    }

    /// The device's limits, without a copy (they never change).
    pub(crate) fn limits_ref(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// What this device may do with `format` (usages, filtering): the
    /// adapter's own capabilities when the device was opened with
    /// TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES, WebGPU's guaranteed ones
    /// (that the adapter has) otherwise.
    pub fn format_features(&self, format: wgpu::TextureFormat) -> wgpu::TextureFormatFeatures {
        let features = self.gpu.device.features();
        let mut f = format.guaranteed_format_features(features);
        let Some(adapter) = self
            .adapter
            .as_ref()
            .map(|a| a.get_texture_format_features(format))
        else {
            return f;
        };
        if features.contains(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES) {
            return adapter;
        }
        // WebGPU's guarantees, less what a downlevel adapter cannot do.
        f.allowed_usages &= adapter.allowed_usages;
        f.flags &= adapter.flags;
        f
    }

    /// Whether the adapter has `features` (unknown for a caller's device: no).
    pub(crate) fn adapter_has(&self, features: wgpu::Features) -> bool {
        self.adapter
            .as_ref()
            .is_some_and(|a| a.features().contains(features))
    }

    /// Sets how many compiled pipelines each kernel keeps (one per set of
    /// image sizes and layer counts; the least recently used goes first).
    /// Pipelines of dropped kernels are released whatever the bound.
    pub fn set_pipeline_limit(&self, limit: usize) {
        self.pipeline_limit.store(limit.max(1), Ordering::Relaxed);
    }

    /// The per-kernel pipeline bound.
    pub fn pipeline_limit(&self) -> usize {
        self.pipeline_limit.load(Ordering::Relaxed)
    }

    /// How many compiled pipelines the context holds for live kernels.
    pub fn cached_pipelines(&self) -> usize {
        let cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .values()
            .filter(|e| e.kernel.strong_count() > 0)
            .map(|e| e.by_overrides.len())
            .sum()
    }

    /// The longest wait for GPU work.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `work` on the GPU worker thread and waits for its result, at most
    /// the timeout. After a timeout the work goes on in the background and
    /// every later call fails with [`Error::Busy`] until it ends. In a
    /// browser it runs on the caller's thread, and waits for nothing.
    pub(crate) fn on_gpu<T: MaybeSend + 'static>(
        &self,
        work: impl FnOnce(&Gpu) -> Result<T> + MaybeSend + 'static,
    ) -> Result<T> {
        self.on_gpu_for("dispatch", work)
    }

    /// [`Context::on_gpu`] for work that a timeout names as `what`.
    pub(crate) fn on_gpu_for<T: MaybeSend + 'static>(
        &self,
        what: &str,
        work: impl FnOnce(&Gpu) -> Result<T> + MaybeSend + 'static,
    ) -> Result<T> {
        self.worker.run(what, self.timeout, work)
    }

    /// Like [`Context::on_gpu`], as a future: natively the timeout is kept
    /// by a helper thread; in a browser the work's errors are awaited.
    pub(crate) async fn on_gpu_async<T: MaybeSend + 'static>(
        &self,
        work: impl FnOnce(&Gpu) -> Result<T> + MaybeSend + 'static,
    ) -> Result<T> {
        self.worker.run_async("dispatch", self.timeout, work).await
    }

    /// Fails with [`Error::Busy`] while a timed-out job still runs: on GL
    /// the worker then holds the driver's context, and any other device call
    /// would block on it.
    pub(crate) fn ready(&self) -> Result<()> {
        self.worker.ready()
    }

    /// Waits for the errors of everything done so far and returns the
    /// first. Natively each call has reported its own already, so this
    /// returns at once; in a browser WebGPU reports errors through promises,
    /// and a synchronous call ([`Context::dispatch`], [`Buffer::write`](crate::Buffer::write))
    /// reports its own here, or at the next awaited call.
    pub async fn settle(&self) -> Result<()> {
        #[cfg(target_arch = "wasm32")]
        {
            super::web::settle(self.timeout).await
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            Ok(())
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes, returning the first error.
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        scoped(&self.gpu.device, f)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        self.worker.stop();
        if self.worker.ready().is_err() {
            // A kernel that timed out still runs, and lavapipe's pipeline
            // and resource destruction waits on the queue it holds: what the
            // context made is leaked rather than hanging its owner forever.
            fn take<T: Default>(m: &mut Mutex<T>) -> T {
                std::mem::take(m.get_mut().unwrap_or_else(|e| e.into_inner()))
            }
            std::mem::forget((
                take(&mut self.pipelines),
                take(&mut self.placeholders),
                take(&mut self.placeholder_buffers),
            ));
        }
    }
}

/// wgpu's multi-line error (`Validation Error\n\nCaused by:\n  In …\n    …`)
/// as one line: the causes joined by `: `.
pub(crate) fn one_line(text: &str) -> String {
    // naga's excerpts inside wgpu's messages point into WGSL atomport
    // wrote, not the user's source: their frame, gutter and carets go, the
    // notes (`= …`) stay.
    let residue = |l: &str| {
        l.starts_with('┌')
            || l.starts_with('│')
            || l.starts_with('·')
            || l.split_once('│')
                .is_some_and(|(n, _)| n.trim().chars().all(|c| c.is_ascii_digit()))
    };
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:" && !residue(l))
        .map(|l| l.strip_prefix("= ").unwrap_or(l).trim())
        .collect();
    match parts.as_slice() {
        [first, rest @ ..] if !rest.is_empty() && first.ends_with("Error") => rest.join(": "),
        _ => parts.join(": "),
    }
}

/// Runs `f` inside validation and out-of-memory error scopes on `device`
/// (scopes are per thread), returning the first error.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> Result<T> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    // A driver's compiler failing (GL's) is an internal error to wgpu.
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let out = f();
    let i = pollster::block_on(internal.pop());
    let v = pollster::block_on(validation.pop());
    let o = pollster::block_on(oom.pop());
    use crate::error::WgpuErrorKind as K;
    let kinded = i
        .map(|e| (K::Internal, e))
        .or(v.map(|e| (K::Validation, e)))
        .or(o.map(|e| (K::OutOfMemory, e)));
    match kinded {
        Some((kind, e)) => Err(Error::Wgpu {
            kind,
            message: one_line(&crate::error::with_causes(&e)),
        }),
        None => Ok(out),
    }
}

/// In a browser the scopes' errors come through promises: they are kept
/// and reported by the next awaited call ([`Context::settle`]).
#[cfg(target_arch = "wasm32")]
pub(crate) fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> Result<T> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let out = f();
    super::web::defer_errors(internal.pop(), validation.pop(), oom.pop());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn wgpu_errors_are_condensed_without_naga_excerpts() {
        let text = "Validation Error

Caused by:
  In Device::create_shader_module, label = 'main'
    Shader validation error: Entry point main at Compute is invalid
   ┌─ main:1:1
   │
 1 │ var<storage, read_write> v: array<u32>;
   │ ^^^ naga::ir::GlobalVariable [0]
   │
   = Requires MEMORY_DECORATION_COHERENT
";
        assert_eq!(
            one_line(text),
            "In Device::create_shader_module, label = 'main': Shader validation error: Entry point main at Compute is invalid: Requires MEMORY_DECORATION_COHERENT"
        );
    }
}
