//! A kernel that runs far longer than the timeout returns [`Error::Timeout`]
//! on time, and the context refuses new work while the device is busy.
//! Alone in its own test binary: the process exits when it ends, which stops
//! the abandoned kernel instead of leaving it to slow other tests.

mod common;

use std::time::{Duration, Instant};

use atomport::{Bind, Buffer, Error};

#[test]
fn long_kernel_times_out_instead_of_hanging() {
    let kernel = common::wgsl(include_str!("spin.wgsl"));
    for ctx in common::contexts_with_timeout(kernel.required_features(), Duration::from_secs(2)) {
        let params = Buffer::from_slice(&ctx, &[65535u32, 65535]).unwrap();
        let count = Buffer::zeroed(&ctx, 4).unwrap();
        let start = Instant::now();
        // 4096 × 64 invocations × 65535 increments: minutes on lavapipe.
        let e = ctx
            .dispatch(
                &kernel,
                [4096, 1, 1],
                &[Bind::new(0, 0, &params), Bind::new(0, 1, &count)],
            )
            .unwrap_err();
        let took = start.elapsed();
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        assert!(
            took < Duration::from_secs(10),
            "took {took:?} on {}",
            ctx.backend_name()
        );
        assert!(
            e.to_string()
                .starts_with("dispatch did not finish within 2 s"),
            "{e}"
        );
        let e = count.read::<u32>(&ctx).unwrap_err();
        assert!(matches!(e, Error::Busy), "{e}");
    }
}
