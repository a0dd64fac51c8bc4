//! Translation bounded in time: natively on a worker thread with a deep
//! stack, one per calling thread and reused; in a browser on the caller's
//! thread.

#[cfg(not(target_arch = "wasm32"))]
use crate::Error;
use crate::{Result, SourceOptions};

/// In a browser there are no threads: the work runs on the caller's, with
/// no timeout. With glslang linked in, a trap inside the work (glslang's
/// stack or memory running out, a panic) comes back as an error and the
/// module goes on.
#[cfg(target_arch = "wasm32")]
pub(super) fn bounded<T: 'static>(
    opts: &SourceOptions,
    work: impl FnOnce(&SourceOptions) -> Result<T> + 'static,
) -> Result<T> {
    #[cfg(feature = "glsl")]
    {
        let owned = opts.clone();
        crate::front::wasm_c::contain(opts.display_name(), move || work(&owned))
    }
    #[cfg(not(feature = "glsl"))]
    work(opts)
}

/// A job for a translation worker.
#[cfg(not(target_arch = "wasm32"))]
type Job = Box<dyn FnOnce() + Send>;

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// This thread's translation worker: a thread with a deep stack that
    /// runs this thread's translations one after another. Reused because a
    /// fresh thread per translation costs its start, its stack's first
    /// pages and glslang's per-thread set-up, together about a tenth of a
    /// small shader's compile. One per calling thread, so that callers on
    /// several threads still translate in parallel; it ends when its
    /// caller's thread does (the sender dropped).
    static WORKER: std::cell::RefCell<Option<std::sync::mpsc::Sender<Job>>> =
        const { std::cell::RefCell::new(None) };
}

/// Hands `job` to this thread's worker, starting one where there is none
/// or the last one is gone.
#[cfg(not(target_arch = "wasm32"))]
fn submit(job: Job) -> Result<()> {
    WORKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        let job = match slot.as_ref() {
            Some(tx) => match tx.send(job) {
                Ok(()) => return Ok(()),
                Err(std::sync::mpsc::SendError(job)) => job,
            },
            None => job,
        };
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("atomport-translate".into())
            .stack_size(crate::DEEP_STACK)
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    // A panic past the translation's own guards drops the
                    // job's result sender (the caller hears of it) and
                    // leaves the worker to serve the next.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .map_err(|e| Error::Internal(format!("could not start a translation thread: {e}")))?;
        // A fresh worker's receiver is alive: the send cannot fail.
        let _ = tx.send(job);
        *slot = Some(tx);
        Ok(())
    })
}

/// Runs a translation on this thread's worker (a deep stack), waiting at
/// most `opts.timeout` for it. A worker past its time is abandoned: the
/// next translation starts a fresh one.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn bounded<T: Send + 'static>(
    opts: &SourceOptions,
    work: impl FnOnce(&SourceOptions) -> Result<T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread_opts = opts.clone();
    #[cfg(test)]
    let fault = crate::lower::fault::current();
    submit(Box::new(move || {
        #[cfg(test)]
        let _ = tx.send(crate::lower::fault::inject(fault, || work(&thread_opts)));
        #[cfg(not(test))]
        let _ = tx.send(work(&thread_opts));
    }))?;
    let gone = || Error::Internal("the translation thread ended without a result".into());
    match opts.timeout {
        Some(t) => match rx.recv_timeout(t) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                WORKER.with(|slot| slot.borrow_mut().take());
                Err(Error::Timeout {
                    what: format!("translating {}", opts.display_name()),
                    secs: t.as_secs_f64(),
                })
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
        },
        None => rx.recv().map_err(|_| gone())?,
    }
}
