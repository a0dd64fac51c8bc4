//! atomicCompSwap is strong. A chain (invocation sweeps link j: compare A_j,
//! write A_j+1, for every j in order) completes only if no compare-swap ever
//! fails while memory equals the compared value: after any invocation's
//! sweep, memory must be A_n and every link must have been taken exactly
//! once. A single weak compare-exchange that failed spuriously would leave
//! the chain short or a link untaken. The WGSL is also checked to contain
//! the retry loop around every weak call.

mod common;

use atomport::{Bind, Buffer, Kernel, SourceOptions};

const LINKS: u32 = 48;

fn chain_shader(ty: &str, target: &str, shared: bool) -> String {
    let (load, store) = if shared {
        (
            "if (gl_LocalInvocationIndex == 0u) s = mem.value; barrier();",
            "barrier(); if (gl_LocalInvocationIndex == 0u) mem.value = s;",
        )
    } else {
        ("", "")
    };
    format!(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Mem {{ {ty} value; uvec4 v; }} mem;
layout(set = 0, binding = 1) buffer Wins {{ uint wins[]; }};
layout(set = 0, binding = 2) buffer Bad {{ uint bad; }};
shared {ty} s;
{ty} link(uint j) {{ return {ty}(int(j) * 7919 - 100000); }}
void main() {{
    {load}
    for (uint j = 0u; j < {LINKS}u; j++) {{
        {ty} seen = atomicCompSwap({target}, link(j), link(j + 1u));
        if (seen == link(j)) {{
            atomicAdd(wins[j], 1u);
        }} else {{
            // A failure must have seen a later link.
            int k = (int(seen) + 100000) / 7919;
            if (int(seen) + 100000 != k * 7919 || k <= int(j) || k > {LINKS}) atomicAdd(bad, 1u);
        }}
    }}
    {store}
}}
"
    )
}

fn link(j: u32) -> u32 {
    (j as i32 * 7919 - 100000) as u32
}

#[test]
fn compare_swap_chain_takes_every_link_once() {
    let cases = [
        ("uint", "mem.value", false),
        ("int", "mem.value", false),
        ("uint", "mem.v.z", false),
        ("uint", "s", true),
        ("int", "s", true),
    ];
    for ctx in common::contexts(wgpu::Features::empty()) {
        for (ty, target, shared) in cases {
            let what = format!("{ty} {target} on {}", ctx.backend_name());
            let src = chain_shader(ty, target, shared);
            let kernel = Kernel::from_glsl(&src, &SourceOptions::named("chain.comp"))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let wgsl = kernel.wgsl();
            let weak_calls = wgsl.matches("atomicCompareExchangeWeak").count();
            assert!(weak_calls >= 1, "{what}");
            for (i, _) in wgsl.match_indices("atomicCompareExchangeWeak") {
                let before = wgsl[..i].trim_end();
                let line_start = before.rfind('\n').unwrap_or(0);
                assert!(
                    wgsl[..line_start].trim_end().ends_with("loop {"),
                    "{what}: a weak compare-exchange outside a retry loop:\n{wgsl}"
                );
            }
            let groups = if shared { 1 } else { 4 };
            let mut init = vec![0u32; 8];
            let slot = if target == "mem.v.z" { 6 } else { 0 };
            init[slot] = link(0);
            let mem = Buffer::from_slice(&ctx, &init).unwrap();
            let wins = Buffer::zeroed(&ctx, LINKS as u64 * 4).unwrap();
            let bad = Buffer::zeroed(&ctx, 4).unwrap();
            let out = ctx
                .dispatch_and_read(
                    &kernel,
                    [groups, 1, 1],
                    &[
                        Bind::new(0, 0, &mem),
                        Bind::new(0, 1, &wins),
                        Bind::new(0, 2, &bad),
                    ],
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mem: &[u32] = bytemuck::cast_slice(&out[0]);
            let wins: &[u32] = bytemuck::cast_slice(&out[1]);
            let bad: &[u32] = bytemuck::cast_slice(&out[2]);
            assert_eq!(
                mem[slot],
                link(LINKS),
                "{what}: the chain did not reach its end"
            );
            assert!(wins.iter().all(|&w| w == 1), "{what}: links taken {wins:?}");
            assert_eq!(
                bad[0], 0,
                "{what}: a failed compare-swap returned a value that was never in memory after its link"
            );
        }
    }
}

/// Many invocations compare the same value: exactly one may win, and every
/// loser must be told the winner's value.
#[test]
fn contended_compare_swap_has_one_winner_per_workgroup_location() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Mem { uint lock[]; };
layout(set = 0, binding = 1) buffer Rets { uint rets[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    rets[i] = atomicCompSwap(lock[i % 16u], 0u, i + 1u);
}
";
    let kernel = Kernel::from_glsl(src, &SourceOptions::named("lock.comp")).unwrap();
    for ctx in common::contexts(wgpu::Features::empty()) {
        let n = 4096u32;
        let mem = Buffer::zeroed(&ctx, 16 * 4).unwrap();
        let rets = Buffer::zeroed(&ctx, n as u64 * 4).unwrap();
        let out = ctx
            .dispatch_and_read(
                &kernel,
                [n / 64, 1, 1],
                &[Bind::new(0, 0, &mem), Bind::new(0, 1, &rets)],
            )
            .unwrap();
        let lock: &[u32] = bytemuck::cast_slice(&out[0]);
        let rets: &[u32] = bytemuck::cast_slice(&out[1]);
        for (l, &value) in lock.iter().enumerate() {
            let hits: Vec<usize> = (0..n as usize).filter(|i| i % 16 == l).collect();
            let winners: Vec<usize> = hits.iter().copied().filter(|&i| rets[i] == 0).collect();
            assert_eq!(winners.len(), 1, "{}: location {l}", ctx.backend_name());
            assert_eq!(value, winners[0] as u32 + 1);
            assert!(hits.iter().all(|&i| i == winners[0] || rets[i] == value));
        }
    }
}
