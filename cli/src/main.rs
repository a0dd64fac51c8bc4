//! `atomport`, the command-line interface, thin over the library: arguments
//! in [`args`], textual resource specs in [`spec`], the resources a job
//! makes in [`job`], and one module per command. Everything it does is a
//! library call; what it adds is parsing, printing and PNG files.

/// Appends a formatted line to a command's output text.
macro_rules! outln {
    ($o:expr) => {
        $o.push('\n')
    };
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($t)*);
    }};
}

mod args;
mod check;
mod info;
mod run;
mod translate;
mod validate;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use atomport::{ContextOptions, Error};
use clap::Parser;

use args::{AdapterArgs, Cli, Command};

/// Exit status for usage errors, as clap uses.
const USAGE: u8 = 2;

/// Writes a command's output to stdout and flushes it. A reader that closed
/// the pipe early (`| head`) has what it wanted: the process ends quietly
/// with status 0. Any other failure (a full disk) is an error, status 1.
fn emit(text: &str) -> atomport::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => leave(0),
        Err(source) => Err(Error::Io {
            path: "standard output".into(),
            source,
        }),
    }
}

fn main() -> ExitCode {
    // SAFETY: first thing in main, before any other thread exists.
    unsafe { atomport::quiet_headless_probing() };
    // naga logs every SPIR-V capability it does not know (which the passes
    // make moot), and naga and wgpu log each error that atomport reports
    // itself in one line: silent unless RUST_LOG says otherwise.
    env_logger::Builder::from_env(
        env_logger::Env::default()
            .default_filter_or("warn,naga=off,wgpu=off,wgpu_core=off,wgpu_hal=off"),
    )
    .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { backend, json } => info::info(backend, json),
        Command::Run {
            shader,
            job,
            adapter,
            json,
        } => run::run(&shader, &job, &adapter, json),
        Command::Validate(args) => validate::validate(args),
        Command::Diff(args) => run::diff(&args),
        Command::Check(args) => check::check(&args),
        Command::Translate {
            shader,
            out,
            bindings,
            translation,
            native_float_atomics,
            binding_arrays,
            backend,
            timeout,
        } => translate::features(native_float_atomics, binding_arrays, backend).and_then(
            |features| {
                translate::translate(
                    &shader,
                    out.as_deref(),
                    translate::Output::of(bindings, translation),
                    features,
                    timeout,
                )
            },
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed stderr leaves the status to say it.
            let _ = writeln!(std::io::stderr(), "atomport: {e}");
            // What the command line got wrong — a flag's value, or a binding,
            // uniform or counter the shader lacks or needs — is a usage error.
            let code = match e {
                Error::UnknownBackend(_)
                | Error::Spec(_)
                | Error::UnknownName(_)
                | Error::InvalidValue(_)
                | Error::Input(_)
                | Error::Resource(_)
                | Error::Dispatch(_)
                | Error::Uniform(_)
                | Error::MissingBinding { .. }
                | Error::UnusedBinding { .. }
                | Error::WrongKind { .. }
                | Error::BufferTooSmall { .. } => USAGE,
                _ => 1,
            };
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            leave(code)
        }
    }
}

/// Exits at once with `code`. A timed-out kernel may still be running, and
/// the drivers' exit handlers (lavapipe's among them) wait for it; `_exit`
/// skips them, so a timeout ends the process when it is reported.
fn leave(code: u8) -> ! {
    #[cfg(unix)]
    {
        // SAFETY: _exit ends the process; stdout and stderr were flushed above.
        unsafe { libc::_exit(code.into()) }
    }
    #[cfg(not(unix))]
    {
        std::process::exit(code.into())
    }
}

fn context_options(args: &AdapterArgs, timeout: Duration) -> atomport::Result<ContextOptions> {
    let mut o = ContextOptions::from_env_with(args.backend)?.with_timeout(timeout);
    if args.adapter.is_some() {
        o.adapter = args.adapter.clone();
    }
    Ok(o)
}
