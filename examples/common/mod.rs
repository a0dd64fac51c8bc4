//! What every demo shares: its command line, the adapter, timing, PNG output
//! and the final `check:` line.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Instant;

use atomport::{BackendChoice, Context, ContextOptions, Kernel, SourceOptions};

/// `--backend NAME`, `--out FILE.png`, `--size WxH`.
pub struct Args {
    pub backend: Option<BackendChoice>,
    pub out: PathBuf,
    pub width: u32,
    pub height: u32,
    /// Values of the demo's own flags, as given.
    pub extra: Vec<(String, String)>,
}

impl Args {
    /// The value of one of the demo's own flags, parsed; exits 2 if it does not parse.
    pub fn extra<T: std::str::FromStr>(&self, flag: &str) -> Option<T> {
        let (_, v) = self.extra.iter().find(|(f, _)| f == flag)?;
        Some(v.parse().unwrap_or_else(|_| {
            eprintln!("{flag} {v}: not a valid value");
            std::process::exit(2);
        }))
    }
}

/// Parses the demo's arguments; prints usage and exits 2 on a bad one.
pub fn args(name: &str, default_size: (u32, u32)) -> Args {
    args_with(name, default_size, &[])
}

/// [`args`] with the demo's own flags (`("--capacity", "N")`), each taking a value.
pub fn args_with(name: &str, default_size: (u32, u32), own: &[(&str, &str)]) -> Args {
    // SAFETY: demos call this first thing in main, before any other thread exists.
    unsafe { atomport::quiet_headless_probing() };
    let own_usage: String = own.iter().map(|(f, v)| format!(" [{f} {v}]")).collect();
    let usage = format!(
        "usage: {name} [--backend vulkan|metal|dx12|gl] [--out FILE.png] [--size WxH]{own_usage}"
    );
    let mut a = Args {
        backend: None,
        out: PathBuf::from(format!("{name}.png")),
        width: default_size.0,
        height: default_size.1,
        extra: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    let fail = |msg: String| -> ! {
        eprintln!("{name}: {msg}\n{usage}");
        std::process::exit(2);
    };
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{usage}");
            std::process::exit(0);
        }
        let Some(value) = it.next() else {
            fail(format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--backend" => {
                a.backend = Some(
                    value
                        .parse()
                        .unwrap_or_else(|e: atomport::Error| fail(e.to_string())),
                )
            }
            "--out" => a.out = value.into(),
            "--size" => {
                let parsed = value
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
                    .filter(|&(w, h)| (8..=4096).contains(&w) && (8..=4096).contains(&h));
                let Some((w, h)) = parsed else {
                    fail(format!("--size {value}: expected WxH, each 8..=4096"))
                };
                a.width = w;
                a.height = h;
            }
            other if own.iter().any(|(f, _)| *f == other) => a.extra.push((flag.clone(), value)),
            other => fail(format!("unknown flag {other}")),
        }
    }
    a
}

/// Opens the adapter (`--backend`, else ATOMPORT_BACKEND, else the best).
pub fn context(args: &Args, features: wgpu::Features) -> Context {
    let mut opts = ContextOptions::from_env().unwrap_or_else(|e| die(&e.to_string()));
    if let Some(b) = args.backend {
        opts.backend = b;
    }
    let ctx = Context::new(&opts.with_features(features)).unwrap_or_else(|e| die(&e.to_string()));
    println!("adapter: {} ({})", ctx.adapter_name(), ctx.backend_name());
    ctx
}

/// A kernel from one of the demo's GLSL shaders. Every r32 image is a
/// texel buffer, so that one `Image` binds to every pass.
pub fn kernel(name: &str, source: &str) -> Kernel {
    let mut opts = SourceOptions::named(name);
    opts.images_as_texel_buffers = true;
    Kernel::from_glsl(source, &opts).unwrap_or_else(|e| die(&e.to_string()))
}

/// One pass: the pipeline compiled first (for these resources), then the
/// dispatch timed from submission to completion.
pub fn pass(
    ctx: &Context,
    what: &str,
    kernel: &Kernel,
    groups: [u32; 3],
    binds: &[atomport::Bind],
) {
    ctx.prepare(kernel, binds)
        .unwrap_or_else(|e| die(&format!("{what}: {e}")));
    timed(what, || ctx.dispatch(kernel, groups, binds));
}

/// Runs `f`, printing how long it took.
pub fn timed<T>(what: &str, f: impl FnOnce() -> atomport::Result<T>) -> T {
    let start = Instant::now();
    let out = f().unwrap_or_else(|e| die(&format!("{what}: {e}")));
    println!("  {what}: {:.2} ms", start.elapsed().as_secs_f64() * 1e3);
    out
}

/// Writes RGBA8 pixels as a PNG.
pub fn write_png(path: &std::path::Path, width: u32, height: u32, rgba: &[u8]) {
    ok(atomport::runtime::texture::write_png(
        path,
        width,
        height,
        wgpu::TextureFormat::Rgba8Unorm,
        rgba,
    ));
    println!("wrote {} ({width}x{height})", path.display());
}

/// The value, or the error printed and exit 1.
pub fn ok<T>(r: atomport::Result<T>) -> T {
    r.unwrap_or_else(|e| die(&e.to_string()))
}

/// Prints the error and exits 1.
pub fn die(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

/// The final line: `check: passed`, or the first mismatch and exit 1.
pub fn check(result: Result<(), String>) {
    match result {
        Ok(()) => println!("check: passed"),
        Err(e) => {
            println!("check: FAILED: {e}");
            std::process::exit(1);
        }
    }
}

#[path = "rng.rs"]
mod rng;
#[allow(unused_imports)]
pub use rng::Rng;
