//! The runtime in a browser (`wasm32`, feature `webgpu`): no thread and no
//! blocking wait. Work is submitted on the caller's thread, as the browser
//! wants; what must wait (a read-back, the errors of an operation) is
//! awaited on the browser's event loop, each wait bounded by the context's
//! timeout through the page's timer.
//!
//! Errors: wgpu reports a WebGPU operation's errors through promises. Each
//! operation's error scopes are popped at once and kept
//! ([`defer_errors`]); the next awaited call ([`crate::Buffer::read_async`],
//! [`crate::Context::dispatch_async`], [`crate::Context::settle`]) awaits
//! them in order and returns the first. A synchronous dispatch on the web
//! thus reports a failed pipeline at the next await, never silently.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use wasm_bindgen::JsCast;

use super::context::{ContextOptions, Gpu};
use crate::error::WgpuErrorKind;
use crate::{Error, Result};

type ErrorFuture = Pin<Box<dyn Future<Output = Option<(WgpuErrorKind, wgpu::Error)>>>>;

thread_local! {
    /// Error scopes popped but not yet awaited, oldest first.
    static PENDING: RefCell<Vec<ErrorFuture>> = const { RefCell::new(Vec::new()) };
    /// The first error no scope caught since the last [`settle`] (a command
    /// encoder's, which WebGPU reports when the encoder finishes): what
    /// makes a later submission invalid, so it is reported first.
    static UNCAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps the error futures of one operation's scopes (innermost first), to
/// be awaited by [`settle`].
pub(crate) fn defer_errors(
    internal: impl Future<Output = Option<wgpu::Error>> + 'static,
    validation: impl Future<Output = Option<wgpu::Error>> + 'static,
    oom: impl Future<Output = Option<wgpu::Error>> + 'static,
) {
    let first = async move {
        let i = internal.await.map(|e| (WgpuErrorKind::Internal, e));
        let v = validation.await.map(|e| (WgpuErrorKind::Validation, e));
        let o = oom.await.map(|e| (WgpuErrorKind::OutOfMemory, e));
        i.or(v).or(o)
    };
    PENDING.with(|p| p.borrow_mut().push(Box::pin(first)));
}

/// Awaits every operation's errors so far, at most `timeout` in all, and
/// returns the first.
pub(crate) async fn settle(timeout: Duration) -> Result<()> {
    let pending: Vec<ErrorFuture> = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    let all = async move {
        let mut first = None;
        for f in pending {
            let e = f.await;
            if first.is_none() {
                first = e;
            }
        }
        first
    };
    let first = with_timeout(all, timeout, "waiting for the browser's error reports").await?;
    let uncaught = UNCAUGHT.with(|u| u.borrow_mut().take());
    match (uncaught, first) {
        (Some(message), _) => Err(Error::Wgpu {
            kind: WgpuErrorKind::Validation,
            message: super::context::one_line(&message),
        }),
        (None, Some((kind, e))) => Err(Error::Wgpu {
            kind,
            message: super::context::one_line(&crate::error::with_causes(&e)),
        }),
        (None, None) => Ok(()),
    }
}

/// The work of a native context's GPU thread, run on the caller's thread.
pub(crate) struct Worker {
    gpu: Gpu,
}

impl Worker {
    pub(crate) fn start(gpu: &Gpu) -> Result<Worker> {
        Ok(Worker { gpu: gpu.clone() })
    }

    pub(crate) fn ready(&self) -> Result<()> {
        Ok(())
    }

    pub(crate) fn run<T: 'static>(
        &self,
        _what: &str,
        _timeout: Duration,
        work: impl FnOnce(&Gpu) -> Result<T> + 'static,
    ) -> Result<T> {
        work(&self.gpu)
    }

    pub(crate) async fn run_async<T: 'static>(
        &self,
        _what: &str,
        timeout: Duration,
        work: impl FnOnce(&Gpu) -> Result<T> + 'static,
    ) -> Result<T> {
        let out = work(&self.gpu);
        settle(timeout).await?;
        out
    }

    pub(crate) fn stop(&mut self) {}
}

/// A future resolved by the page's timer after `d` (a window's or a
/// worker's `setTimeout`).
fn sleep(d: Duration) -> wasm_bindgen_futures::JsFuture {
    let ms = d.as_millis().min(i32::MAX as u128) as i32;
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let global = js_sys::global();
        if let Some(w) = global.dyn_ref::<web_sys::Window>() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        } else if let Some(w) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    wasm_bindgen_futures::JsFuture::from(promise)
}

/// `fut`, or [`Error::Timeout`] naming `what` when the timer fires first.
pub(crate) async fn with_timeout<F: Future>(
    fut: F,
    timeout: Duration,
    what: &str,
) -> Result<F::Output> {
    let race = Race {
        work: Box::pin(fut),
        timer: Box::pin(sleep(timeout)),
    };
    race.await.ok_or_else(|| Error::Timeout {
        what: what.into(),
        secs: timeout.as_secs_f64(),
    })
}

/// The work's output, or `None` when the timer ends first.
struct Race<F: Future> {
    work: Pin<Box<F>>,
    timer: Pin<Box<wasm_bindgen_futures::JsFuture>>,
}

impl<F: Future> Future for Race<F> {
    type Output = Option<F::Output>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = self.work.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(_) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Submits `cmd`, which copies into the `stagings` (MAP_READ buffers), and
/// reads back the first `len` bytes of each once the browser has mapped
/// them, at most `timeout` later.
pub(crate) async fn read_back(
    gpu: &Gpu,
    cmd: wgpu::CommandBuffer,
    stagings: &[(wgpu::Buffer, usize)],
    timeout: Duration,
) -> Result<Vec<Vec<u8>>> {
    gpu.submit(cmd)?;
    let mut maps = Vec::with_capacity(stagings.len());
    for (s, _) in stagings {
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        s.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        maps.push(rx);
    }
    let results = with_timeout(
        async move {
            let mut out = Vec::with_capacity(maps.len());
            for m in maps {
                out.push(m.receive().await);
            }
            out
        },
        timeout,
        "reading back",
    )
    .await?;
    // The copy's own errors come before the map's.
    settle(timeout).await?;
    let mut out = Vec::with_capacity(stagings.len());
    for ((s, len), r) in stagings.iter().zip(results) {
        match r {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                return Err(super::buffer::map_error(format!(
                    "mapping a buffer for readback failed: {e}"
                )));
            }
            None => return Err(super::buffer::map_error("a buffer was never mapped".into())),
        }
        let view = s.slice(..).get_mapped_range().map_err(|e| {
            super::buffer::map_error(format!("reading a mapped buffer failed: {e}"))
        })?;
        out.push(view[..*len].to_vec());
        drop(view);
        s.unmap();
    }
    Ok(out)
}

/// The browser's adapter and a device on it with `opts.features` and the
/// adapter's limits (a device gets WebGPU's defaults unless it asks, and
/// real kernels need more: 1024 invocations, 10 storage buffers).
pub(crate) async fn open(
    opts: &ContextOptions,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue)> {
    if !wgpu::util::is_browser_webgpu_supported().await {
        return Err(Error::NoWebGpu);
    }
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = wgpu::Instance::new(desc);
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|_| Error::NoWebGpu)?;
    super::context::has_features(&adapter, opts.features)?;
    let info = adapter.get_info();
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("atomport"),
            required_features: opts.features,
            required_limits: adapter.limits(),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::RequestDevice {
            adapter: info.name.clone(),
            message: e.to_string(),
        })?;
    device.on_uncaptured_error(std::sync::Arc::new(|e: wgpu::Error| {
        UNCAUGHT.with(|u| {
            u.borrow_mut().get_or_insert_with(|| e.to_string());
        });
    }));
    Ok((adapter, device, queue))
}
