//! The eight GLSL atomic memory functions × {int, uint} × {buffer member,
//! buffer array element, vector component, shared array element}, compiled
//! from GLSL by atomport and dispatched on every backend present, with many
//! invocations per location. Every result is checked against the CPU
//! reference model: the exact fold for order-independent functions, the
//! permutation property for exchange, one winner for a contended
//! compare-swap, and — where few calls hit a location — that the returned
//! values are explained by a serial order of those calls. Words around the
//! target are sentinels that must survive (catches wrong offsets).

mod common;

use atomport::validate::reference::{AtomicOp, explained_by_serial_order};
use atomport::{Bind, Buffer, Context, Kernel, ScalarType, SourceOptions};
use common::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mem {
    Member,
    ArrayElement,
    VectorComponent,
    Shared,
}

/// Word index of `Mem { before; member; v (uvec4 @16); after; arr[] @36 }`.
const MEMBER: usize = 1;
const VECTOR_Y: usize = 5;
const ARR: usize = 9;

struct Case {
    op: AtomicOp,
    ty: ScalarType,
    mem: Mem,
    invocations: u32,
    workgroup: u32,
    locs: u32,
}

impl Case {
    fn glsl_ty(&self) -> (&'static str, &'static str) {
        match self.ty {
            ScalarType::I32 => ("int", "ivec4"),
            _ => ("uint", "uvec4"),
        }
    }

    /// The contended compare-swap compares with this initial value.
    fn compare(&self) -> u32 {
        0x1234_5678
    }

    fn shader(&self) -> String {
        let (t, v) = self.glsl_ty();
        let target = match self.mem {
            Mem::Member => "mem.member".to_string(),
            Mem::ArrayElement => "mem.arr[loc]".to_string(),
            Mem::VectorComponent => "mem.v.y".to_string(),
            Mem::Shared => "sh[loc]".to_string(),
        };
        let call = match self.op {
            AtomicOp::CompSwap => format!(
                "atomicCompSwap({target}, {t}({}u), args[i])",
                self.compare()
            ),
            op => format!("{}({target}, args[i])", op.glsl_name()),
        };
        let (load, store) = if self.mem == Mem::Shared {
            (
                "if (gl_LocalInvocationIndex < LOCS) sh[gl_LocalInvocationIndex] = mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex];\n    barrier();",
                "barrier();\n    if (gl_LocalInvocationIndex < LOCS) mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex] = sh[gl_LocalInvocationIndex];",
            )
        } else {
            ("", "")
        };
        format!(
            "#version 450
#define LOCS {locs}u
layout(local_size_x = {wg}) in;
layout(set = 0, binding = 0) buffer Mem {{ {t} before; {t} member; {v} v; {t} after; {t} arr[]; }} mem;
layout(set = 0, binding = 1) readonly buffer Args {{ {t} args[]; }};
layout(set = 0, binding = 2) writeonly buffer Rets {{ {t} rets[]; }};
shared {t} sh[LOCS];
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint loc = i % LOCS;
    {load}
    rets[i] = {call};
    {store}
}}
",
            locs = self.locs,
            wg = self.workgroup,
        )
    }

    /// (word index in Mem, invocations that hit it) for every location.
    fn locations(&self) -> Vec<(usize, Vec<usize>)> {
        let n = self.invocations as usize;
        let locs = self.locs as usize;
        let wg = self.workgroup as usize;
        match self.mem {
            Mem::Member => vec![(MEMBER, (0..n).collect())],
            Mem::VectorComponent => vec![(VECTOR_Y, (0..n).collect())],
            Mem::ArrayElement => (0..locs)
                .map(|l| (ARR + l, (0..n).filter(|i| i % locs == l).collect()))
                .collect(),
            Mem::Shared => (0..n / wg)
                .flat_map(|g| {
                    (0..locs).map(move |l| {
                        (
                            ARR + g * locs + l,
                            (g * wg..(g + 1) * wg).filter(|i| i % locs == l).collect(),
                        )
                    })
                })
                .collect(),
        }
    }

    fn initial(&self, rng: &mut Rng) -> u32 {
        let signed = self.ty == ScalarType::I32;
        match self.op {
            AtomicOp::Min => {
                if signed {
                    1 << 30
                } else {
                    0xF000_0000
                }
            }
            AtomicOp::Max => {
                if signed {
                    (-(1i32 << 30)) as u32
                } else {
                    5
                }
            }
            AtomicOp::And => 0xFFFF_FFFF ^ (rng.next_u32() & 0x0101_0101),
            AtomicOp::Or => 0,
            AtomicOp::CompSwap => self.compare(),
            _ => rng.next_u32(),
        }
    }

    fn argument(&self, i: usize, rng: &mut Rng) -> u32 {
        let r = rng.next_u32();
        match self.op {
            // x² + y² with alternating signs, as the Khronos CTS does.
            AtomicOp::Min | AtomicOp::Max => {
                let x = (i as i64 % 97) * (i as i64 % 97) + (r % 1000) as i64;
                (if i.is_multiple_of(2) { x } else { -x }) as i32 as u32
            }
            AtomicOp::And => !(1u32 << (r % 32)),
            AtomicOp::Or => 1u32 << (r % 32),
            // Distinct and never the compared value.
            AtomicOp::CompSwap | AtomicOp::Exchange => 0x1000_0000 + i as u32 * 7,
            _ => r,
        }
    }
}

fn sentinel(w: usize) -> u32 {
    0xA000_0000 + w as u32
}

fn run_case(ctx: &Context, case: &Case, seed: u64) {
    let what = format!(
        "{:?} {:?} {:?} on {}",
        case.op,
        case.ty,
        case.mem,
        ctx.backend_name()
    );
    let src = case.shader();
    let kernel = Kernel::from_glsl(&src, &SourceOptions::named("case.comp"))
        .unwrap_or_else(|e| panic!("{what}: {e}\n{src}"));
    let n = case.invocations as usize;
    let mut rng = Rng(seed);
    let locations = case.locations();
    let words = ARR + (case.invocations / case.workgroup * case.locs) as usize + case.locs as usize;
    let mut mem: Vec<u32> = (0..words).map(sentinel).collect();
    for (w, _) in &locations {
        mem[*w] = case.initial(&mut rng);
    }
    let args: Vec<u32> = (0..n).map(|i| case.argument(i, &mut rng)).collect();
    let mem_buf = Buffer::from_slice(ctx, &mem).unwrap();
    let args_buf = Buffer::from_slice(ctx, &args).unwrap();
    let rets_buf = Buffer::zeroed(ctx, n as u64 * 4).unwrap();
    let out = ctx
        .dispatch_and_read(
            &kernel,
            [case.invocations / case.workgroup, 1, 1],
            &[
                Bind::new(0, 0, &mem_buf),
                Bind::new(0, 1, &args_buf),
                Bind::new(0, 2, &rets_buf),
            ],
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let after: &[u32] = bytemuck::cast_slice(&out[0]);
    let rets: &[u32] = bytemuck::cast_slice(&out[2]);
    for (w, &v) in after.iter().enumerate() {
        if !locations.iter().any(|(t, _)| *t == w) {
            assert_eq!(v, mem[w], "{what}: word {w} outside the target changed");
        }
    }
    for (w, hits) in &locations {
        let initial = mem[*w];
        let fin = after[*w];
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        match case.op {
            op if op.is_order_independent() => {
                assert_eq!(
                    fin,
                    op.fold(case.ty, initial, data.iter().copied()),
                    "{what}: final value at word {w}"
                );
            }
            AtomicOp::Exchange => {
                let mut lhs = returned.clone();
                lhs.push(fin);
                let mut rhs = data.clone();
                rhs.push(initial);
                lhs.sort_unstable();
                rhs.sort_unstable();
                assert_eq!(
                    lhs, rhs,
                    "{what}: returned + final is not a permutation of initial + arguments at word {w}"
                );
            }
            _ => {
                let winners: Vec<usize> = (0..hits.len())
                    .filter(|&k| returned[k] == initial)
                    .collect();
                assert_eq!(
                    winners.len(),
                    1,
                    "{what}: exactly one compare-swap may win at word {w}: {returned:?}"
                );
                let winner = winners[0];
                assert_eq!(
                    fin, data[winner],
                    "{what}: the winner's value is final at word {w}"
                );
                for (k, &r) in returned.iter().enumerate() {
                    if k != winner {
                        assert_eq!(
                            r, fin,
                            "{what}: a losing compare-swap returns the winner's value"
                        );
                    }
                }
            }
        }
        if hits.len() <= 12 {
            let calls: Vec<(u32, u32, u32)> = data
                .iter()
                .zip(&returned)
                .map(|(&d, &r)| (d, case.compare(), r))
                .collect();
            assert!(
                explained_by_serial_order(case.op, case.ty, initial, &calls, fin),
                "{what}: returned values {returned:?} from {initial:#x} with {data:?} ending at {fin:#x} fit no serial order"
            );
        }
    }
}

fn matrix(mem: Mem) {
    let locs = if matches!(mem, Mem::Member | Mem::VectorComponent) {
        1
    } else {
        8
    };
    let contexts = common::contexts(wgpu::Features::empty());
    for ctx in &contexts {
        for (k, op) in AtomicOp::ALL.into_iter().enumerate() {
            for ty in [ScalarType::I32, ScalarType::U32] {
                // Heavy: thousands of invocations, hundreds per location.
                let heavy = Case {
                    op,
                    ty,
                    mem,
                    invocations: 4096,
                    workgroup: 64,
                    locs,
                };
                run_case(ctx, &heavy, 11 + k as u64);
                // Light: few calls per location, so the serial-order search runs.
                let wg = if locs == 1 { 8 } else { 64 };
                let light = Case {
                    op,
                    ty,
                    mem,
                    invocations: wg * 2,
                    workgroup: wg,
                    locs,
                };
                run_case(ctx, &light, 101 + k as u64);
            }
        }
    }
}

#[test]
fn buffer_member() {
    matrix(Mem::Member);
}

#[test]
fn buffer_array_element() {
    matrix(Mem::ArrayElement);
}

#[test]
fn vector_component() {
    matrix(Mem::VectorComponent);
}

#[test]
fn shared_array_element() {
    matrix(Mem::Shared);
}

/// GL_EXT_shader_atomic_float atomicAdd and atomicExchange: emulated by a
/// compare-exchange loop on the bits everywhere, and native where the
/// adapter has SHADER_FLOAT32_ATOMIC. Arguments are small integers, so every
/// partial sum is exact whatever the order.
#[test]
fn float_add_and_exchange() {
    let src = "#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Mem { float sum; float last; float arr[4]; } mem;
layout(set = 0, binding = 1) readonly buffer Args { float args[]; };
layout(set = 0, binding = 2) writeonly buffer Rets { float added[]; } rets;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = gl_NumWorkGroups.x * 64u;
    rets.added[i] = atomicAdd(mem.sum, args[i]);
    rets.added[n + i] = atomicAdd(mem.arr[i % 4u], args[i]);
    rets.added[2u * n + i] = atomicExchange(mem.last, args[i]);
}
";
    let n = 1024usize;
    let args: Vec<f32> = (0..n).map(|i| (1 + i % 13) as f32).collect();
    let initial = [0.5f32, -1.0, 10.0, 20.0, 30.0, 40.0];
    for ctx in common::contexts(wgpu::Features::empty()) {
        let natives: &[bool] = if ctx
            .device()
            .features()
            .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC)
        {
            &[false, true]
        } else {
            &[false]
        };
        // Contexts are opened without optional features; open one with it for the native case.
        for &native in natives {
            let mut opts = SourceOptions::named("float.comp");
            opts.native_float_atomics = native;
            let kernel = Kernel::from_glsl(src, &opts).unwrap();
            assert_eq!(
                kernel.wgsl().contains("atomic<f32>"),
                native,
                "{}",
                kernel.wgsl()
            );
            let native_ctx;
            let ctx = if native {
                native_ctx = Context::new(
                    &atomport::ContextOptions::default()
                        .with_backend(ctx.backend_name().parse().unwrap())
                        .with_features(kernel.required_features()),
                )
                .unwrap();
                &native_ctx
            } else {
                &ctx
            };
            let what = format!("{} native={native}", ctx.backend_name());
            let mem = Buffer::from_slice(ctx, &initial).unwrap();
            let a = Buffer::from_slice(ctx, &args).unwrap();
            let rets = Buffer::zeroed(ctx, (3 * n * 4) as u64).unwrap();
            let out = ctx
                .dispatch_and_read(
                    &kernel,
                    [(n / 64) as u32, 1, 1],
                    &[
                        Bind::new(0, 0, &mem),
                        Bind::new(0, 1, &a),
                        Bind::new(0, 2, &rets),
                    ],
                )
                .unwrap();
            let mem: &[f32] = bytemuck::cast_slice(&out[0]);
            let rets: &[f32] = bytemuck::cast_slice(&out[2]);
            let total: f32 = args.iter().sum();
            assert_eq!(mem[0], initial[0] + total, "{what}: sum");
            for l in 0..4 {
                let part: f32 = args.iter().skip(l).step_by(4).sum();
                assert_eq!(mem[2 + l], initial[2 + l] + part, "{what}: arr[{l}]");
            }
            // Every add returned a distinct partial sum, the smallest being the initial value.
            let mut added: Vec<f32> = rets[..n].to_vec();
            added.sort_by(f32::total_cmp);
            assert_eq!(added[0], initial[0], "{what}");
            assert!(
                added.windows(2).all(|w| w[0] < w[1]),
                "{what}: returned partial sums repeat"
            );
            let mut lhs: Vec<u32> = rets[2 * n..].iter().map(|f| f.to_bits()).collect();
            lhs.push(mem[1].to_bits());
            let mut rhs: Vec<u32> = args.iter().map(|f| f.to_bits()).collect();
            rhs.push(initial[1].to_bits());
            lhs.sort_unstable();
            rhs.sort_unstable();
            assert_eq!(lhs, rhs, "{what}: exchange permutation");
        }
    }
}
