//! Translation bounded in time: natively on a thread of its own with a
//! deep stack; in a browser on the caller's thread.

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

/// Runs a translation on a thread of its own with a deep stack, waiting at
/// most `opts.timeout` for it (a thread past its time is abandoned).
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn bounded<T: Send + 'static>(
    opts: &SourceOptions,
    work: impl FnOnce(&SourceOptions) -> Result<T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread_opts = opts.clone();
    #[cfg(test)]
    let fault = crate::lower::fault::current();
    std::thread::Builder::new()
        .name("atomport-translate".into())
        .stack_size(crate::DEEP_STACK)
        .spawn(move || {
            #[cfg(test)]
            let _ = tx.send(crate::lower::fault::inject(fault, || work(&thread_opts)));
            #[cfg(not(test))]
            let _ = tx.send(work(&thread_opts));
        })
        .map_err(|e| Error::Internal(format!("could not start a translation thread: {e}")))?;
    let gone = || Error::Internal("the translation thread ended without a result".into());
    match opts.timeout {
        Some(t) => match rx.recv_timeout(t) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Error::Timeout {
                what: format!("translating {}", opts.display_name()),
                secs: t.as_secs_f64(),
            }),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
        },
        None => rx.recv().map_err(|_| gone())?,
    }
}
