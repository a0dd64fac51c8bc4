//! Generated kernels in the shapes real compute shaders have and the passes
//! must keep whole: long functions, short-circuit conditions and ternaries
//! (phis), loops nested in loops with `break` and `continue`, large
//! `switch` statements, helper functions, atomics on buffers and on shared
//! memory. Each must translate (never an internal error, never an id a
//! pass left dangling) and compute, translated on every backend present,
//! what its original SPIR-V computes natively on the same adapter.
//!
//! CI runs 24 kernels; a longer run is one command:
//! `ATOMPORT_SHAPES=2000 ATOMPORT_SHAPES_SEED=9 cargo test --release --test shapes -- --nocapture`.
//! A kernel that fails is written to `target/shape-failures/SEED-K.comp`.

mod common;

use std::fmt::Write;

use common::Rng;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes one generated kernel.
struct Gen {
    rng: Rng,
    out: String,
    /// Loop counters in scope, innermost last (conditions may read them).
    loops: Vec<String>,
    next_loop: u32,
    /// Statements left to write: bounds the kernel's length.
    budget: u32,
    /// Writing `helper` itself, which must not call itself.
    in_helper: bool,
}

/// The locals every body has.
const VARS: [&str; 5] = ["a", "b", "c", "d", "e"];

impl Gen {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.rng.below(from.len() as u32) as usize]
    }

    fn var(&mut self) -> String {
        let mut names: Vec<String> = VARS.iter().map(|v| v.to_string()).collect();
        names.extend(self.loops.iter().cloned());
        names[self.rng.below(names.len() as u32) as usize].clone()
    }

    /// An unsigned expression; every operation is defined for every value.
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.below(3) == 0 {
            return match self.rng.below(4) {
                0 => format!("{}u", self.rng.below(1000)),
                1 => format!("data[({}) & 63u]", self.var()),
                _ => self.var(),
            };
        }
        let (x, y) = (self.expr(depth - 1), self.expr(depth - 1));
        match self.rng.below(12) {
            0 => format!("({x} + {y})"),
            1 => format!("({x} - {y})"),
            2 => format!("({x} * {y})"),
            3 => format!("({x} ^ {y})"),
            4 => format!("({x} & {y})"),
            5 => format!("({x} | {y})"),
            6 => format!("({x} << ({y} & 31u))"),
            7 => format!("({x} >> ({y} & 31u))"),
            8 => format!("({x} / ({y} | 1u))"),
            9 => {
                let c = self.cond(depth - 1);
                format!("(({c}) ? {x} : {y})")
            }
            10 => format!("{}({x}, {y})", self.pick(&["min", "max", "mix3"])),
            _ => format!("uint(bitCount({x}))"),
        }
    }

    /// A condition, short-circuit ones among them (glslang writes phis).
    fn cond(&mut self, depth: u32) -> String {
        let (x, y) = (self.expr(depth), self.expr(depth));
        let cmp = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
        let base = format!("{x} {cmp} {y}");
        match self.rng.below(4) {
            0 => format!("({base}) && ({} != 0u)", self.expr(depth)),
            1 => format!("({base}) || (({} & 3u) == 1u)", self.expr(depth)),
            _ => base,
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(indent));
    }

    fn block(&mut self, indent: usize, depth: u32) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.statement(indent, depth);
        }
    }

    fn statement(&mut self, indent: usize, depth: u32) {
        let kind = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(9)
        };
        match kind {
            0 | 1 => {
                let (v, e) = (self.pick(&VARS), self.expr(2));
                self.line(indent, &format!("{v} = {e};"));
            }
            2 if self.rng.below(3) == 0 => {
                // The atomics other passes rewrite into loops and arrays:
                // float sums (exact: small integers), a vector component,
                // strong compare-swaps that claim a word.
                let (k, e) = (self.expr(1), self.expr(2));
                let text = match self.rng.below(4) {
                    0 => format!("atomicAdd(fsum[({k}) % 4u], float(({e}) & 7u));"),
                    1 => format!("atomicAdd(shared_f[({k}) % 4u], float(({e}) & 7u));"),
                    2 => format!(
                        "atomicAdd(lanes.{}, ({e}) & 255u);",
                        self.pick(&["x", "y", "z", "w"])
                    ),
                    _ => format!("atomicCompSwap(claims[({k}) % 4u], 0u, 1u);"),
                };
                self.line(indent, &text);
            }
            2 => {
                // Each operation on slots of its own: different operations
                // on one word would make the result depend on their order.
                let ops = [
                    "atomicAdd",
                    "atomicOr",
                    "atomicXor",
                    "atomicMin",
                    "atomicMax",
                ];
                let which = self.rng.below(ops.len() as u32);
                let (k, e) = (self.expr(1), self.expr(2));
                let target = if self.rng.below(2) == 0 {
                    "acc"
                } else {
                    "shared_acc"
                };
                let op = ops[which as usize];
                self.line(
                    indent,
                    &format!("{op}({target}[{}u + ({k}) % 3u], {e});", 3 * which),
                );
            }
            3 | 4 => {
                let c = self.cond(2);
                self.line(indent, &format!("if ({c}) {{"));
                self.block(indent + 1, depth - 1);
                if self.rng.below(2) == 0 {
                    self.line(indent, "} else {");
                    self.block(indent + 1, depth - 1);
                }
                self.line(indent, "}");
            }
            5 | 6 => {
                let i = format!("i{}", self.next_loop);
                self.next_loop += 1;
                let n = 1 + self.rng.below(6);
                self.line(
                    indent,
                    &format!("for (uint {i} = 0u; {i} < {n}u; ++{i}) {{"),
                );
                self.loops.push(i);
                self.block(indent + 1, depth - 1);
                for exit in ["break", "continue"] {
                    if self.rng.below(2) == 0 {
                        let c = self.cond(1);
                        self.line(indent + 1, &format!("if ({c}) {{ {exit}; }}"));
                        self.block(indent + 1, depth - 1);
                    }
                }
                self.loops.pop();
                self.line(indent, "}");
            }
            7 => {
                let cases = 2 + self.rng.below(10);
                let e = self.expr(2);
                self.line(indent, &format!("switch (({e}) % {cases}u) {{"));
                for k in 0..cases {
                    if k + 1 == cases {
                        self.line(indent, "default: {");
                    } else {
                        self.line(indent, &format!("case {k}u: {{"));
                    }
                    self.block(indent + 1, depth - 1);
                    self.line(indent + 1, "break;");
                    self.line(indent, "}");
                }
                self.line(indent, "}");
            }
            _ if self.in_helper => self.statement(indent, 0),
            _ => {
                let (v, x, y) = (self.pick(&VARS), self.expr(1), self.expr(1));
                self.line(indent, &format!("{v} = helper({x}, {y});"));
            }
        }
    }

    /// The whole kernel.
    fn kernel(seed: u64) -> String {
        let mut g = Gen {
            rng: Rng(seed),
            out: String::new(),
            loops: Vec::new(),
            next_loop: 0,
            budget: 40,
            in_helper: true,
        };
        g.out.push_str(
            "#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[64]; };
layout(std430, set = 0, binding = 1) buffer Acc { uint acc[32]; float fsum[4]; uvec4 lanes; uint claims[4]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint result[]; };
shared uint shared_acc[16];
shared float shared_f[4];
uint mix3(uint x, uint y) { return (x * 3u) ^ (y >> 1); }
",
        );
        g.line(0, "uint helper(uint a, uint b) {");
        g.line(1, "uint c = a ^ 0x9e37u, d = b + 7u, e = a * b;");
        g.block(1, 2);
        let r = g.expr(2);
        g.line(1, &format!("return {r};"));
        g.line(0, "}");
        g.in_helper = false;
        g.line(0, "void main() {");
        g.line(1, "uint a = gl_GlobalInvocationID.x, b = data[a & 63u], c = 1u, d = 2u, e = gl_LocalInvocationIndex;");
        g.line(
            1,
            "if (gl_LocalInvocationIndex < 16u) { shared_acc[gl_LocalInvocationIndex] = 0u; }",
        );
        g.line(
            1,
            "if (gl_LocalInvocationIndex < 4u) { shared_f[gl_LocalInvocationIndex] = 0.0; }",
        );
        g.line(1, "barrier();");
        g.budget = 40;
        g.block(1, 3);
        g.block(1, 3);
        g.line(
            1,
            "result[gl_GlobalInvocationID.x] = a ^ (b * 3u) ^ (c * 5u) ^ (d * 7u) ^ (e * 11u);",
        );
        g.line(1, "barrier();");
        // Into words of their own: adding into words other atomics change
        // would make the result depend on their order.
        g.line(1, "if (gl_LocalInvocationIndex < 16u) { atomicAdd(acc[16u + gl_LocalInvocationIndex], shared_acc[gl_LocalInvocationIndex]); }");
        g.line(1, "if (gl_LocalInvocationIndex < 4u) { atomicAdd(acc[16u + gl_LocalInvocationIndex], uint(shared_f[gl_LocalInvocationIndex])); }");
        g.line(0, "}");
        g.out
    }
}

#[test]
fn generated_shapes_translate_and_agree_with_their_native_runs() {
    let count = env_u64("ATOMPORT_SHAPES", 24);
    let seed = env_u64("ATOMPORT_SHAPES_SEED", 1);
    let contexts = common::contexts_with_available(wgpu::Features::PASSTHROUGH_SHADERS);
    let mut data_rng = Rng(seed ^ 0xda7a);
    let data: Vec<u32> = (0..64).map(|_| data_rng.next_u32()).collect();
    let mut failures = Vec::new();
    let (mut compared, mut lines) = (0, 0);
    for k in 0..count {
        let source = Gen::kernel(seed.wrapping_mul(1_000_003).wrapping_add(k));
        lines = lines.max(source.lines().count());
        let opts = atomport::SourceOptions::named(format!("shape-{seed}-{k}.comp"));
        let kernel = match atomport::Kernel::from_glsl(&source, &opts) {
            Ok(kernel) => kernel,
            Err(e) => {
                failures.push((k, source, format!("does not translate: {e}")));
                continue;
            }
        };
        let mut runs = Vec::new();
        for ctx in &contexts {
            let inputs = [
                ("In", bytemuck::cast_slice(&data).to_vec()),
                ("Acc", vec![0u8; 176]),
                ("Out", vec![0u8; 64 * 4]),
            ];
            runs.extend(common::translated_and_native(
                ctx,
                &kernel,
                [2, 1, 1],
                &inputs,
            ));
        }
        compared += runs.len();
        // The native run is the truth; without one, the backends must agree.
        let native = runs.iter().find(|(b, _)| b.ends_with("(native: true)"));
        let reference = native.or(runs.first()).map(|r| r.1.clone());
        for (backend, out) in &runs {
            if Some(out) != reference.as_ref() {
                failures.push((
                    k,
                    source.clone(),
                    format!("{backend} differs from the native run"),
                ));
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/shape-failures");
    for (k, source, why) in &failures {
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{seed}-{k}.comp"));
        let _ = std::fs::write(&path, source);
        println!("kernel {k}: {why} (saved as {})", path.display());
    }
    println!(
        "{count} generated kernels (up to {lines} lines), {compared} runs compared, {} failed",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} kernels failed",
        failures.len()
    );
}
