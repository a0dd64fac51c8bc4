//! Deterministic fuzzing: the golden corpus (GLSL, its WGSL, its SPIR-V),
//! mutated from a seed, fed to the translators. (The command line's specs
//! are fuzzed by the binary's own unit tests, `cli::spec`.) Every mutant must end in a value
//! or an error — never a panic, an abort, a crash or a hang: each translation runs
//! under a timeout, and at most one mutant in a thousand may reach it —
//! and malformed input must never be called an internal error.
//!
//! The mutants run in child processes (this test binary again, as
//! `fuzz_worker`), so that an abort (a failed allocation, a stack overflow)
//! ends one child, not the run: the parent names the mutant the child was
//! on, saves it and goes on with a new child from the next one. Mutant `k`
//! of a seed is the same input whichever child makes it.
//!
//! CI runs 5 000 mutants. A longer run is one command:
//! `ATOMPORT_FUZZ_MUTANTS=400000 ATOMPORT_FUZZ_SEED=7 cargo test --release --test fuzz -- --nocapture`
//! (`ATOMPORT_FUZZ_JOBS` children at once, the machine's cores by default).
//! A mutant that fails is printed and written to `target/fuzz-failures/`:
//! move it to `tests/fuzz/` as a regression case (every `.comp`, `.spv` and
//! `.wgsl` there is run by `regressions_stay_fixed`).

mod common;

use std::collections::BTreeMap;
use std::io::Write;
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
    /// The child process died (an abort, a signal).
    Crash,
    /// The child said nothing for two minutes and was killed.
    Hang,
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

/// The inputs mutants are made from.
struct Corpus {
    glsl: Vec<(String, String)>,
    wgsl: Vec<(String, String)>,
    spirv: Vec<(String, Vec<u32>)>,
}

impl Corpus {
    fn load() -> Corpus {
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
        Corpus { glsl, wgsl, spirv }
    }
}

/// One mutant: its kind, the name of the input it came from, and its bytes.
struct Mutant {
    kind: &'static str,
    name: String,
    text: Option<String>,
    words: Vec<u32>,
}

impl Mutant {
    /// Mutant `k` of `seed`: its own random stream, so that any child can
    /// make any mutant.
    fn make(c: &Corpus, seed: u64, k: usize) -> Mutant {
        let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ (k as u64).rotate_left(32));
        let text = |rng: &mut Rng, from: &[(String, String)], kind| {
            let (name, src) = &from[rng.next_u32() as usize % from.len()];
            Mutant {
                kind,
                name: name.clone(),
                text: Some(mutate_text(rng, src)),
                words: Vec::new(),
            }
        };
        match Mutant::kind_of(k) {
            "spirv" => {
                let (name, words) = &c.spirv[rng.next_u32() as usize % c.spirv.len()];
                Mutant {
                    kind: "spirv",
                    name: name.clone(),
                    text: None,
                    words: mutate_words(&mut rng, words),
                }
            }
            "wgsl" => text(&mut rng, &c.wgsl, "wgsl"),
            _ => text(&mut rng, &c.glsl, "glsl"),
        }
    }

    fn translate(&self) -> (Outcome, String) {
        let o = opts(&self.name);
        match (self.kind, &self.text) {
            ("spirv", _) => classify(|| Kernel::from_spirv(&self.words, &o)),
            ("wgsl", Some(t)) => classify(|| Kernel::from_wgsl(t, &o)),
            (_, Some(t)) => classify(|| Kernel::from_glsl(t, &o)),
            _ => unreachable!("a text mutant has text"),
        }
    }

    /// The mutant as a report shows it and as its file holds it.
    fn input(&self) -> (String, Vec<u8>) {
        match &self.text {
            Some(t) => (t.clone(), t.clone().into_bytes()),
            None => (
                format!("{:x?}", self.words),
                bytemuck::cast_slice(&self.words).to_vec(),
            ),
        }
    }
}

#[derive(Default)]
struct Tally {
    by_kind: BTreeMap<(&'static str, Outcome), usize>,
    failures: Vec<String>,
    longest_ms: u64,
}

impl Tally {
    /// Counts an outcome; a failing mutant is kept for the report and its
    /// bytes written to `target/fuzz-failures/SEED-K.EXT`.
    fn add(&mut self, seed: u64, k: usize, m: &Mutant, (o, why): (Outcome, String)) {
        *self.by_kind.entry((m.kind, o)).or_default() += 1;
        if o >= Outcome::Internal && self.failures.len() < 20 {
            let (text, bytes) = m.input();
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            let ext = match m.kind {
                "glsl" => "comp",
                "spirv" => "spv",
                k => k,
            };
            let file = dir.join(format!("{seed}-{k}.{ext}"));
            let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, bytes));
            let shown: String = text.chars().take(4000).collect();
            self.failures.push(format!(
                "{} mutant {k} of {} {o:?}: {why} (saved as {})\n--- input ---\n{shown}\n---",
                m.kind,
                m.name,
                file.display()
            ));
        }
    }
}

const WORKER_ENV: &str = "ATOMPORT_FUZZ_WORKER";

/// Runs mutants `FROM..TO` of `SEED` (`ATOMPORT_FUZZ_WORKER=FROM,TO,SEED`),
/// saying on stdout when each starts and how it ended, so that the parent
/// can name the one a crash ended. Only `mutants_never_panic…` runs it.
#[test]
#[ignore = "a child process of mutants_never_panic_hang_or_pass_as_internal_errors"]
fn fuzz_worker() {
    let Some(spec) = std::env::var(WORKER_ENV).ok() else {
        return;
    };
    let [from, to, seed]: [u64; 3] = spec
        .split(',')
        .map(|v| v.parse().expect("a worker range"))
        .collect::<Vec<_>>()
        .try_into()
        .expect("FROM,TO,SEED");
    let corpus = Corpus::load();
    let mut out = std::io::stdout().lock();
    for k in from as usize..to as usize {
        let m = Mutant::make(&corpus, seed, k);
        writeln!(out, "@@start {k}").unwrap();
        out.flush().unwrap();
        let t = Instant::now();
        let (o, why) = m.translate();
        let why = why.replace('\n', " ");
        writeln!(out, "@@done {k} {} {o:?} {why}", t.elapsed().as_millis()).unwrap();
        out.flush().unwrap();
    }
}

fn outcome(name: &str) -> Outcome {
    match name {
        "Translated" => Outcome::Translated,
        "Refused" => Outcome::Refused,
        "TimedOut" => Outcome::TimedOut,
        "Internal" => Outcome::Internal,
        "Panic" => Outcome::Panic,
        _ => Outcome::Crash,
    }
}

/// Runs mutants `range` of `seed` in child processes, one after another,
/// starting a new child after the mutant that ended one.
fn run_children(seed: u64, range: std::ops::Range<usize>, corpus: &Corpus) -> Tally {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    /// Longer than any one translation may take (20 s, with glslang's own
    /// stack and the corpus load of a fresh child).
    const SILENCE: Duration = Duration::from_secs(120);
    let mut tally = Tally::default();
    let mut next = range.start;
    while next < range.end {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["fuzz_worker", "--exact", "--ignored", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(WORKER_ENV, format!("{next},{},{seed}", range.end))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start a fuzz worker");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let err_tail = std::thread::spawn(move || {
            let mut all = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut all);
            let text = String::from_utf8_lossy(&all).into_owned();
            let tail: Vec<&str> = text.lines().rev().take(3).collect();
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        });
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current = None;
        let mut hung = false;
        loop {
            match rx.recv_timeout(SILENCE) {
                Ok(line) => {
                    let mut w = line.splitn(5, ' ');
                    match (w.next(), w.next().and_then(|k| k.parse::<usize>().ok())) {
                        (Some("@@start"), Some(k)) => current = Some(k),
                        (Some("@@done"), Some(k)) => {
                            let ms: u64 = w.next().and_then(|v| v.parse().ok()).unwrap_or(0);
                            let o = outcome(w.next().unwrap_or(""));
                            let why = w.next().unwrap_or("").to_string();
                            tally.longest_ms = tally.longest_ms.max(ms);
                            if o >= Outcome::Internal {
                                tally.add(seed, k, &Mutant::make(corpus, seed, k), (o, why));
                            } else {
                                *tally.by_kind.entry((Mutant::kind_of(k), o)).or_default() += 1;
                            }
                            current = None;
                            next = k + 1;
                        }
                        _ => {}
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    hung = true;
                    let _ = child.kill();
                    break;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().expect("wait for a fuzz worker");
        let stderr = err_tail.join().unwrap_or_default();
        match current {
            Some(k) => {
                let why = if hung {
                    format!("no answer in {} s", SILENCE.as_secs())
                } else {
                    format!("the process ended ({status}): {stderr}")
                };
                let o = if hung { Outcome::Hang } else { Outcome::Crash };
                tally.add(seed, k, &Mutant::make(corpus, seed, k), (o, why));
                next = k + 1;
            }
            None if next < range.end => {
                panic!("a fuzz worker ended before its first mutant ({status}): {stderr}")
            }
            None => {}
        }
    }
    tally
}

impl Mutant {
    /// The kind mutant `k` is, as [`Mutant::make`] chooses it.
    fn kind_of(k: usize) -> &'static str {
        match k % 10 {
            4 | 5 => "spirv",
            6 | 7 => "wgsl",
            _ => "glsl",
        }
    }
}

#[test]
fn mutants_never_panic_hang_or_pass_as_internal_errors() {
    let total = env_usize("ATOMPORT_FUZZ_MUTANTS", 5000);
    let seed = env_usize("ATOMPORT_FUZZ_SEED", 1) as u64;
    let jobs = env_usize(
        "ATOMPORT_FUZZ_JOBS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )
    .clamp(1, 64);
    let corpus = Corpus::load();
    let start = Instant::now();
    let chunk = total.div_ceil(jobs).max(1);
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let corpus = &corpus;
        let handles: Vec<_> = (0..total)
            .step_by(chunk)
            .map(|from| {
                s.spawn(move || run_children(seed, from..(from + chunk).min(total), corpus))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut tally = Tally::default();
    for t in tallies {
        for (key, n) in t.by_kind {
            *tally.by_kind.entry(key).or_default() += n;
        }
        tally.failures.extend(t.failures);
        tally.longest_ms = tally.longest_ms.max(t.longest_ms);
    }
    println!(
        "{total} mutants of seed {seed} in {:.1} s, {jobs} at once (longest {:.2} s)",
        start.elapsed().as_secs_f64(),
        tally.longest_ms as f64 / 1000.0
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
