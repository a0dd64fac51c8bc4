//! The GPU worker thread of a native [`Context`](super::context::Context):
//! every submission and wait runs on it, so that the caller can stop
//! waiting after the timeout whatever the driver does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use super::context::Gpu;
use crate::{Error, Result};

type Job = Box<dyn FnOnce(&Gpu) + Send>;

/// Runs every submission and wait on one thread: lavapipe's fence wait (and
/// even its non-blocking status query, while a kernel runs) and GL's submit
/// all block until the kernel ends, however long. A caller-side polling
/// loop was measured and could not keep the timeout on lavapipe.
pub(crate) struct Worker {
    /// `None` once the context is being dropped.
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Ids: the last job queued, the last finished, the last that timed out.
    queued: AtomicU64,
    finished: Arc<AtomicU64>,
    timed_out: AtomicU64,
}

impl Worker {
    /// Starts the thread, which owns a clone of `gpu`.
    pub(crate) fn start(gpu: &Gpu) -> Result<Worker> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let finished = Arc::new(AtomicU64::new(0));
        let worker_gpu = gpu.clone();
        let worker_finished = finished.clone();
        let thread = std::thread::Builder::new()
            .name("atomport-gpu".into())
            .stack_size(crate::DEEP_STACK)
            .spawn(move || {
                let mut id = 0u64;
                while let Some(job) = next_job(&rx) {
                    // A panic in wgpu or the driver ends this job only: its
                    // caller sees the reply channel close.
                    let _ =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&worker_gpu)));
                    id += 1;
                    worker_finished.store(id, Ordering::Release);
                }
            })
            .map_err(|e| Error::Internal(format!("cannot start the GPU worker thread: {e}")))?;
        Ok(Worker {
            jobs: Some(jobs),
            thread: Some(thread),
            queued: AtomicU64::new(0),
            finished,
            timed_out: AtomicU64::new(0),
        })
    }

    /// Fails with [`Error::Busy`] while a timed-out job still runs: on GL
    /// the worker then holds the driver's context, and any other device call
    /// would block on it.
    pub(crate) fn ready(&self) -> Result<()> {
        if self.timed_out.load(Ordering::Acquire) > self.finished.load(Ordering::Acquire) {
            return Err(Error::Busy);
        }
        Ok(())
    }

    /// Runs `work` on the thread and waits for its result, at most
    /// `timeout`; a timeout names the work as `what`.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        what: &str,
        timeout: Duration,
        work: impl FnOnce(&Gpu) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (id, rx) = self.queue(work)?;
        // Short dispatches answer within microseconds: yield a few times
        // before sleeping on the channel, which costs a wake-up.
        for _ in 0..SPIN {
            match rx.try_recv() {
                Ok(r) => return r,
                Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
                Err(mpsc::TryRecvError::Disconnected) => return Err(worker_gone()),
            }
        }
        match rx.recv_timeout(timeout) {
            Ok(r) => r,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(self.timed_out(id, what, timeout)),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(worker_gone()),
        }
    }

    /// Like [`Worker::run`], as a future (the timeout is kept by a helper thread).
    pub(crate) async fn run_async<T: Send + 'static>(
        &self,
        what: &str,
        timeout: Duration,
        work: impl FnOnce(&Gpu) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (id, rx) = self.queue(work)?;
        let (tx, out) = futures_intrusive::channel::shared::oneshot_channel();
        std::thread::spawn(move || {
            let _ = tx.send(rx.recv_timeout(timeout));
        });
        match out.receive().await {
            Some(Ok(r)) => r,
            Some(Err(mpsc::RecvTimeoutError::Timeout)) => Err(self.timed_out(id, what, timeout)),
            _ => Err(worker_gone()),
        }
    }

    #[allow(clippy::type_complexity)]
    fn queue<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Gpu) -> Result<T> + Send + 'static,
    ) -> Result<(u64, mpsc::Receiver<Result<T>>)> {
        self.ready()?;
        let (tx, rx) = mpsc::sync_channel(1);
        let id = self.queued.fetch_add(1, Ordering::AcqRel) + 1;
        self.jobs
            .as_ref()
            .ok_or_else(worker_gone)?
            .send(Box::new(move |gpu: &Gpu| {
                let _ = tx.send(work(gpu));
            }))
            .map_err(|_| worker_gone())?;
        Ok((id, rx))
    }

    fn timed_out(&self, id: u64, what: &str, timeout: Duration) -> Error {
        self.timed_out.fetch_max(id, Ordering::AcqRel);
        Error::Timeout {
            what: what.into(),
            secs: timeout.as_secs_f64(),
        }
    }

    /// Lets the thread finish and release the device before returning, so
    /// that nothing of the device outlives the context (a process exiting
    /// right after would otherwise race the driver's teardown). A thread
    /// stuck on a timed-out kernel is left to end on its own.
    pub(crate) fn stop(&mut self) {
        self.jobs = None;
        if self.ready().is_ok()
            && let Some(t) = self.thread.take()
        {
            let _ = t.join();
        }
    }
}

/// How many times a waiting thread yields before it sleeps: enough to catch
/// a short dispatch's answer without a wake-up (64 left the small-dispatch
/// overhead at 1.1–1.3× hand-written wgpu on lavapipe, 256 brings it to
/// 0.8–1.03× on Vulkan and GL; 1024 starved GL's in-driver execution).
const SPIN: usize = 256;

/// The worker's next job: callers often queue one right after the last
/// answer, so yield a few times before sleeping on the channel.
fn next_job(rx: &mpsc::Receiver<Job>) -> Option<Job> {
    for _ in 0..SPIN {
        match rx.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
            Err(mpsc::TryRecvError::Disconnected) => return None,
        }
    }
    rx.recv().ok()
}

fn worker_gone() -> Error {
    Error::Internal("a GPU job ended without a result (a panic in wgpu or the driver)".into())
}
