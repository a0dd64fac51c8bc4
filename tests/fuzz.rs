//! Deterministic fuzzing: the golden corpus (GLSL, its WGSL, its SPIR-V),
//! mutated from a seed, fed to the translators. (The command line's specs
//! are fuzzed by the binary's own unit tests, `cli::spec`.) Every mutant must end in a value
//! or an error — never a panic, a crash or a hang: each translation runs
//! under a timeout, and at most one mutant in a thousand may reach it —
//! and malformed input must never be called an internal error.
//!
//! CI runs 5 000 mutants. A longer run is one command:
//! `ATOMPORT_FUZZ_MUTANTS=200000 ATOMPORT_FUZZ_SEED=7 cargo test --release --test fuzz -- --nocapture`.
//! A mutant that fails is printed and written to `target/fuzz-failures/`:
//! move it to `tests/fuzz/` as a regression case (every `.comp`, `.spv` and
//! `.wgsl` there is run by `regressions_stay_fixed`).

mod common;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use atomport::{Error, Kernel, SourceOptions};
use common::Rng;

/// What one mutant did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Translated,
    Refused,
    /// Gave up at the timeout (glslang copying a struct with a huge array
    /// element by element): bounded, reported, not a failure.
    TimedOut,
    Internal,
    Panic,
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn corpus(ext: &str) -> Vec<(String, String)> {
    // The golden corpus and the Vulkan (newer SPIR-V) one.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<(String, String)> = ["tests/glsl", "tests/vulkan"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Fragments that mutations splice in: the constructs the passes care about
/// and the values that break parsers.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    "[",
    "]",
    ",",
    "=",
    ".",
    "\n",
    "#version 450\n",
    "#version 45\u{e9}\n",
    "#include \"x.glsl\"\n",
    "#define A A\n",
    "uniform ",
    "buffer ",
    "shared ",
    "layout(binding = 1) ",
    "layout(set = 31, binding = 1024) ",
    "layout(local_size_x = 1024, local_size_y = 1024) in;",
    "atomicAdd(",
    "atomicCompSwap(",
    "imageAtomicExchange(",
    "atomicCounterIncrement(",
    "uniform atomic_uint c;",
    "uint a[10000000];",
    "4294967295",
    "-1",
    "0x",
    "1e39",
    "nan",
    "@group(0) @binding(0) ",
    "var<storage, read_write> ",
    "atomic<u32>",
    "array<u32>",
    "fn ",
    "override ",
    "@workgroup_size(0)",
    "loop {",
    "while (true) {",
    "\u{0}",
];

fn mutate_text(rng: &mut Rng, src: &str) -> String {
    let mut b = src.as_bytes().to_vec();
    // Mostly one edit, so that many mutants still get past the parsers.
    let edits = if rng.next_u32().is_multiple_of(2) {
        1
    } else {
        2 + rng.next_u32() % 3
    };
    for _ in 0..edits {
        let at = |rng: &mut Rng, len: usize| (rng.next_u32() as usize) % (len + 1);
        match rng.next_u32() % 7 {
            0 if !b.is_empty() => {
                let i = at(rng, b.len() - 1);
                b[i] = (rng.next_u32() % 128) as u8;
            }
            1 if !b.is_empty() => {
                let i = at(rng, b.len());
                let n = (rng.next_u32() as usize % 40).min(b.len() - i);
                b.drain(i..i + n);
            }
            2 => {
                let i = at(rng, b.len());
                let n = (rng.next_u32() as usize % 200).min(b.len() - i);
                let copy = b[i..i + n].to_vec();
                let j = at(rng, b.len());
                b.splice(j..j, copy);
            }
            3 | 4 => {
                let t = TOKENS[rng.next_u32() as usize % TOKENS.len()];
                let i = at(rng, b.len());
                b.splice(i..i, t.bytes());
            }
            5 => {
                let cut = at(rng, b.len());
                b.truncate(cut);
            }
            _ => {
                // Swap two lines.
                let text = String::from_utf8_lossy(&b).into_owned();
                let mut lines: Vec<&str> = text.lines().collect();
                if lines.len() > 2 {
                    let (x, y) = (at(rng, lines.len() - 1), at(rng, lines.len() - 1));
                    lines.swap(x, y);
                }
                b = lines.join("\n").into_bytes();
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn mutate_words(rng: &mut Rng, words: &[u32]) -> Vec<u32> {
    let mut w = words.to_vec();
    let edits = if rng.next_u32().is_multiple_of(2) {
        1
    } else {
        2
    };
    for _ in 0..edits {
        let len = w.len();
        let i = 5 + rng.next_u32() as usize % (len - 5).max(1);
        if i >= w.len() {
            continue;
        }
        match rng.next_u32() % 6 {
            0 => w[i] ^= 1 << (rng.next_u32() % 32),
            1 => w[i] = rng.next_u32() % 64,
            2 => w[i] = rng.next_u32(),
            3 => w.truncate(i),
            4 => {
                // An instruction's word count.
                w[i] = (w[i] & 0xffff) | ((rng.next_u32() % 8) << 16);
            }
            _ => {
                let j = 5 + rng.next_u32() as usize % (len - 5).max(1);
                if j < w.len() {
                    w.swap(i, j);
                }
            }
        }
    }
    w
}

/// Translates under a timeout, catching what escapes.
fn classify(f: impl FnOnce() -> atomport::Result<Kernel>) -> (Outcome, String) {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(_)) => (Outcome::Translated, String::new()),
        Ok(Err(Error::Timeout { .. })) => (Outcome::TimedOut, "timeout".into()),
        Ok(Err(e @ Error::Internal(_))) => (Outcome::Internal, e.to_string()),
        Ok(Err(_)) => (Outcome::Refused, String::new()),
        Err(_) => (Outcome::Panic, "panic".into()),
    }
}

fn opts(name: &str) -> SourceOptions {
    let mut o = SourceOptions::named(name);
    o.timeout = Some(Duration::from_secs(20));
    o
}

struct Tally {
    by_kind: BTreeMap<(&'static str, Outcome), usize>,
    failures: Vec<String>,
}

impl Tally {
    /// Counts an outcome; a failing mutant is kept for the report and its
    /// bytes written to `target/fuzz-failures/N.EXT`.
    fn add(
        &mut self,
        kind: &'static str,
        (o, why): (Outcome, String),
        input: impl FnOnce() -> (String, Vec<u8>),
    ) {
        *self.by_kind.entry((kind, o)).or_default() += 1;
        if o >= Outcome::Internal && self.failures.len() < 20 {
            let (text, bytes) = input();
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            let ext = match kind {
                "glsl" => "comp",
                "spirv" => "spv",
                k => k,
            };
            let file = dir.join(format!("{}.{ext}", self.failures.len()));
            let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, bytes));
            self.failures.push(format!(
                "{kind} {o:?}: {why} (saved as {})\n--- input ---\n{text}\n---",
                file.display()
            ));
        }
    }
}

#[test]
fn mutants_never_panic_hang_or_pass_as_internal_errors() {
    let total = env_usize("ATOMPORT_FUZZ_MUTANTS", 5000);
    let mut rng = Rng(env_usize("ATOMPORT_FUZZ_SEED", 1) as u64);
    let glsl = corpus("comp");
    let wgsl = corpus("wgsl");
    // SPIR-V 1.3 from a quarter of the corpus, and 1.6 (Vulkan 1.3) from
    // every shader that needs it or has spec constants.
    let mut spirv: Vec<(String, Vec<u32>)> = glsl
        .iter()
        .step_by(4)
        .filter_map(|(n, s)| {
            let words = atomport::compile_glsl(s, &SourceOptions::named(n)).ok()?;
            Some((n.replace(".comp", ".spv"), words))
        })
        .collect();
    spirv.extend(
        glsl.iter()
            .filter(|(_, s)| {
                s.contains("constant_id")
                    || s.contains("#pragma use_vulkan_memory_model")
                    || s.contains("subgroup")
            })
            .filter_map(|(n, s)| {
                let mut o = SourceOptions::named(n);
                o.target_env = Some(atomport::TargetEnv::Vulkan1_3);
                let words = atomport::compile_glsl(s, &o).ok()?;
                Some((n.replace(".comp", ".1.6.spv"), words))
            }),
    );
    let mut tally = Tally {
        by_kind: BTreeMap::new(),
        failures: Vec::new(),
    };
    let start = Instant::now();
    let mut longest = Duration::ZERO;
    for k in 0..total {
        let t = Instant::now();
        match k % 10 {
            0..=3 => {
                let (name, src) = &glsl[rng.next_u32() as usize % glsl.len()];
                let m = mutate_text(&mut rng, src);
                let o = opts(name);
                let r = classify(|| Kernel::from_glsl(&m, &o));
                tally.add("glsl", r, || (m.clone(), m.clone().into_bytes()));
            }
            4 | 5 => {
                let (name, words) = &spirv[rng.next_u32() as usize % spirv.len()];
                let m = mutate_words(&mut rng, words);
                let o = opts(name);
                let r = classify(|| Kernel::from_spirv(&m, &o));
                tally.add("spirv", r, || {
                    (format!("{m:x?}"), bytemuck::cast_slice(&m).to_vec())
                });
            }
            6 | 7 => {
                let (name, src) = &wgsl[rng.next_u32() as usize % wgsl.len()];
                let m = mutate_text(&mut rng, src);
                let o = opts(name);
                let r = classify(|| Kernel::from_wgsl(&m, &o));
                tally.add("wgsl", r, || (m.clone(), m.clone().into_bytes()));
            }
            _ => {
                let (name, src) = &glsl[rng.next_u32() as usize % glsl.len()];
                let m = mutate_text(&mut rng, src);
                let o = opts(name);
                let r = classify(|| Kernel::from_glsl(&m, &o));
                tally.add("glsl", r, || (m.clone(), m.clone().into_bytes()));
            }
        }
        longest = longest.max(t.elapsed());
    }
    println!(
        "{total} mutants in {:.1} s (longest {:.2} s)",
        start.elapsed().as_secs_f64(),
        longest.as_secs_f64()
    );
    for ((kind, o), n) in &tally.by_kind {
        println!("  {kind:<6} {o:?}: {n}");
    }
    // The mutants reach past the parsers: some of every kind translate.
    for kind in ["glsl", "spirv", "wgsl"] {
        assert!(
            tally
                .by_kind
                .get(&(kind, Outcome::Translated))
                .copied()
                .unwrap_or(0)
                > 0,
            "no {kind} mutant translated"
        );
    }
    let timed_out: usize = tally
        .by_kind
        .iter()
        .filter(|((_, o), _)| *o == Outcome::TimedOut)
        .map(|(_, n)| n)
        .sum();
    assert!(
        timed_out * 1000 <= total,
        "{timed_out} of {total} mutants reached the timeout"
    );
    assert!(
        tally.failures.is_empty(),
        "{} failing mutants (first {}):\n{}",
        tally
            .by_kind
            .iter()
            .filter(|((_, o), _)| *o >= Outcome::Internal)
            .map(|(_, n)| n)
            .sum::<usize>(),
        tally.failures.len(),
        tally.failures.join("\n")
    );
}

#[test]
fn regressions_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "comp" || e == "spv" || e == "wgsl")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let r = classify(|| Kernel::from_path(&path, None, &opts(&path.display().to_string())));
        assert!(
            r.0 < Outcome::Internal,
            "{}: {:?} {}",
            path.display(),
            r.0,
            r.1
        );
        println!("{}: {:?}", path.display(), r.0);
    }
}
