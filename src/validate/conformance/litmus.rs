//! The memory-model litmus tests: message passing and coherence.

use super::*;

/// Dispatches of each litmus test, and workgroups per dispatch.
pub(super) fn litmus_runs(scale: Scale) -> (usize, u32) {
    match scale {
        Scale::Small => (4, 8),
        Scale::Full | Scale::Heavy => (200, 64),
    }
}

/// Message passing inside a workgroup: 32 writers each store a payload and
/// release a flag; 32 readers (in other subgroups) acquire a flag and read
/// its payload. The reference model (the Vulkan memory model the shader
/// asks for) allows (flag, payload) = (0, 0), (0, 1) and (1, 1), never
/// (1, 0). atomport maps the release/acquire pair to WGSL's relaxed atomics
/// (with a warning), so this checks that what the adapter does stays within
/// the shader's model.
pub(super) async fn run_message_passing(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let src = "#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Outcomes { uint outcome[]; };
shared uint payload[32];
shared uint flag[32];
void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid < 32u) {
        payload[lid] = 0u;
        atomicStore(flag[lid], 0u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    }
    barrier();
    if (lid < 32u) {
        payload[lid] = 1u;
        atomicStore(flag[lid], 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    } else {
        uint p = (lid - 32u) ^ 21u;
        uint f = atomicLoad(flag[p], gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire);
        uint d = payload[p];
        outcome[gl_WorkGroupID.x * 32u + p] = f * 2u + d;
    }
}
";
    let kernel = translate(case, src, opts)?;
    let (runs, groups) = litmus_runs(scale);
    let out = Buffer::zeroed(ctx, u64::from(groups) * 32 * 4)?;
    let mut seen = [0u64; 4];
    for _ in 0..runs {
        dispatch_and_read(
            ctx,
            opts,
            &kernel,
            [groups, 1, 1],
            &[Bind::named("Outcomes", &out)],
        )
        .await?;
        for v in read_words(ctx, &out).await? {
            seen[(v as usize).min(3)] += 1;
        }
    }
    let histogram = format!(
        "(flag, payload) = (0,0): {}, (0,1): {}, (1,0): {}, (1,1): {}",
        seen[0], seen[1], seen[2], seen[3]
    );
    if seen[2] > 0 {
        return Ok(Some(format!(
            "a reader acquired the flag but read the old payload, which release/acquire forbids: {histogram}"
        )));
    }
    Ok(None)
}

/// Coherence of one location: half the invocations of many workgroups
/// exchange their own increasing sequence into one word, the other half read
/// it again and again (`atomicOr(x, 0)`). Every location has one order of
/// writes that all readers agree with: a reader never sees a writer's k-th
/// value after its later one, every value read was written (or is the
/// initial 0), and the final value is some writer's last.
pub(super) async fn run_coherence(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    const WRITES: u32 = 8;
    const READS: u32 = 16;
    let src = format!(
        "#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Word {{ uint x; }};
layout(set = 0, binding = 1) buffer Reads {{ uint seen[]; }};
void main() {{
    uint id = gl_GlobalInvocationID.x;
    uint who = id / 2u;
    if (id % 2u == 0u) {{
        for (uint k = 1u; k <= {WRITES}u; ++k) atomicExchange(x, (who << 8) | k);
    }} else {{
        for (uint j = 0u; j < {READS}u; ++j) seen[who * {READS}u + j] = atomicOr(x, 0u);
    }}
}}
"
    );
    let kernel = translate(case, &src, opts)?;
    let (runs, groups) = litmus_runs(scale);
    let pairs = groups as usize * 32;
    let word = Buffer::zeroed(ctx, 4)?;
    let reads = Buffer::zeroed(ctx, (pairs * READS as usize * 4) as u64)?;
    for run in 0..runs {
        word.write(ctx, &[0u32])?;
        dispatch_and_read(
            ctx,
            opts,
            &kernel,
            [groups, 1, 1],
            &[Bind::named("Word", &word), Bind::named("Reads", &reads)],
        )
        .await?;
        let fin = read_words(ctx, &word).await?[0];
        if (fin & 0xff) != WRITES || (fin >> 8) as usize >= pairs {
            return Ok(Some(format!(
                "run {run}: the final value {fin:#x} is no writer's last write"
            )));
        }
        let seen = read_words(ctx, &reads).await?;
        for (reader, values) in seen.chunks(READS as usize).enumerate() {
            let mut latest: std::collections::HashMap<u32, u32> = Default::default();
            for &v in values {
                if v == 0 {
                    if !latest.is_empty() {
                        return Ok(Some(format!(
                            "run {run}: reader {reader} read the initial 0 after a write: {values:x?}"
                        )));
                    }
                    continue;
                }
                let (w, k) = (v >> 8, v & 0xff);
                if w as usize >= pairs || k == 0 || k > WRITES {
                    return Ok(Some(format!(
                        "run {run}: reader {reader} read {v:#x}, which nobody wrote"
                    )));
                }
                let last = latest.entry(w).or_insert(0);
                if k < *last {
                    return Ok(Some(format!(
                        "run {run}: reader {reader} read writer {w}'s write {k} after its write {last}: {values:x?}"
                    )));
                }
                *last = k;
            }
        }
    }
    Ok(None)
}
