//! Running the buffer and shared-memory cases: the standard ones, the
//! compare-swap chains and the OpenGL atomic counters.

use super::*;

pub(super) async fn run_standard(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let mut rng = Rng(0x5eed ^ (case.name().len() as u64) << 7 ^ case.op as u64);
    match case.memory {
        Memory::Image(dim) => run_standard_image(ctx, case, dim, scale, opts, &mut rng).await,
        memory => run_standard_buffer(ctx, case, memory, scale, opts, &mut rng).await,
    }
}

pub(super) async fn run_standard_buffer(
    ctx: &Context,
    case: &Case,
    memory: Memory,
    scale: Scale,
    opts: &RunOptions,
    rng: &mut Rng,
) -> Result<Option<String>> {
    let l = buffer_layout(memory, scale);
    let (load, store) = shared_copy(memory);
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint loc = i % {};
    {load}
    rets[i] = {};
    {store}
}}
",
        buffer_preamble(case, l.workgroup, l.locs),
        param(case, "u_locs", "LOCS".into()),
        call(case, buffer_target(memory), "", "")
    );
    let kernel = translate(case, &src, opts)?;
    let n = l.workgroup * l.groups;
    // (word, invocations hitting it)
    let locations: Vec<(usize, Vec<usize>)> = match memory {
        Memory::Member => vec![(MEMBER, (0..n).collect())],
        Memory::VectorComponent => vec![(VECTOR_Y, (0..n).collect())],
        Memory::ArrayElement => (0..l.locs)
            .map(|c| (ARR + c, (0..n).filter(|i| i % l.locs == c).collect()))
            .collect(),
        _ => (0..l.groups)
            .flat_map(|g| {
                (0..l.locs).map(move |c| {
                    (
                        ARR + g * l.locs + c,
                        (g * l.workgroup..(g + 1) * l.workgroup)
                            .filter(|i| i % l.locs == c)
                            .collect(),
                    )
                })
            })
            .collect(),
    };
    // The block's size is a multiple of 16 bytes (its vector's alignment).
    let words = (ARR + l.groups * l.locs + l.locs).next_multiple_of(4);
    let sentinel = |w: usize| 0xA000_0000u32 + w as u32;
    let mut mem: Vec<u32> = (0..words).map(sentinel).collect();
    let mut args = vec![0u32; n];
    for (loc, (w, hits)) in locations.iter().enumerate() {
        if case.ty == ScalarType::F32 && case.variant == Variant::Standard {
            let (init, values) = float_min_max_values(case, loc, hits.len());
            mem[*w] = init;
            for (&i, v) in hits.iter().zip(values) {
                args[i] = v;
            }
            continue;
        }
        mem[*w] = if case.ty == ScalarType::F32 {
            0.5f32.to_bits()
        } else {
            initial(case, rng)
        };
        for (k, &i) in hits.iter().enumerate() {
            args[i] = if case.ty == ScalarType::F32 {
                ((1 + (i + k) % 13) as f32).to_bits()
            } else {
                argument(case, loc, k, rng)
            };
        }
    }
    let mem_buf = Buffer::from_slice(ctx, &mem)?;
    let args_buf = Buffer::from_slice(ctx, &args)?;
    let rets_buf = Buffer::zeroed(ctx, n as u64 * 4)?;
    let u = uniforms(ctx, &kernel, &[("u_locs", l.locs as u32)])?;
    let out = dispatch_and_read(
        ctx,
        opts,
        &kernel,
        [l.groups as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("mem", &mem_buf),
                Bind::named("Args", &args_buf),
                Bind::named("Rets", &rets_buf),
            ],
            &u,
        ),
    )
    .await?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let rets: Vec<u32> = bytemuck::pod_collect_to_vec(&out[2]);
    for (w, (&a, &m)) in after.iter().zip(&mem).enumerate() {
        if !locations.iter().any(|(t, _)| *t == w) && a != m {
            return Ok(Some(format!(
                "word {w} outside every target changed: expected {m:#x}, observed {a:#x}"
            )));
        }
    }
    for (w, hits) in &locations {
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        if let Some(why) = check_location(
            case,
            &format!("word {w}"),
            (mem[*w], &data, &returned, after[*w]),
            opts.native,
        ) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

pub(super) async fn run_chain(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    match case.memory {
        Memory::Image(dim) => run_image_chain(ctx, case, dim, scale, opts).await,
        memory => run_memory_chain(ctx, case, memory, opts).await,
    }
}

/// The body of a chain's shader: every invocation sweeps the links at its
/// location, counting its wins in `wins` (`LOAD`/`STORE` and `WINS_BAD`
/// are filled in by the caller).
fn chain_body(case: &Case, target: &str, coords: &str, sample: &str, loc_expr: &str) -> String {
    let (t, _, _) = glsl_scalar(case.ty);
    let call = match case.memory {
        Memory::Image(_) => {
            format!("imageAtomicCompSwap(img, {coords}, {sample}link(j), link(j + 1u))")
        }
        _ => format!("atomicCompSwap({target}, link(j), link(j + 1u))"),
    };
    format!(
        "{t} link(uint j) {{ return {t}(int(j) * 7919 - 100000); }}
void main() {{
    uint i = gl_GlobalInvocationID.x;
    uint loc = {loc_expr};
    LOAD
    for (uint j = 0u; j < {LINKS}u; j++) {{
        {t} seen = {call};
        if (seen == link(j)) {{
            atomicAdd(wins[loc * {LINKS}u + j], 1u);
        }} else {{
            int k = (int(seen) + 100000) / 7919;
            if (int(seen) + 100000 != k * 7919 || k <= int(j) || k > {LINKS}) atomicAdd(wins[WINS_BAD], 1u);
        }}
    }}
    STORE
}}
"
    )
}

/// A chain on the texels of an image.
async fn run_image_chain(
    ctx: &Context,
    case: &Case,
    dim: ImageDim,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let wins_decl = format!("{}) buffer Wins {{ uint wins[]; }};\n", binding(case, 4));
    let desc = image_desc(case, dim, scale)?;
    let locs = desc.texel_count().min(8);
    let n = 64 * 2;
    let (p, s) = coord_expr(dim);
    let src = image_preamble(case, dim)
        + &wins_decl
        + &chain_body(case, "", &p, &s, &format!("i % {locs}u"))
            .replace("LOAD", "")
            .replace("STORE", "")
            .replace("WINS_BAD", &format!("{}u", locs * LINKS as usize));
    let kernel = translate(case, &src, opts)?;
    let mut coords = vec![0i32; 4 * n];
    for i in 0..n {
        coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, i % locs));
    }
    let init: Vec<u32> = (0..desc.texel_count())
        .map(|t| if t < locs { link(0) } else { 0xDEAD })
        .collect();
    let img = Image::from_texels(ctx, desc, &init)?;
    let coords_buf = Buffer::from_slice(ctx, &coords)?;
    let wins = Buffer::zeroed(ctx, (locs * LINKS as usize + 1) as u64 * 4)?;
    let out = dispatch_and_read(
        ctx,
        opts,
        &kernel,
        [(n / 64) as u32, 1, 1],
        &[
            Bind::named("img", &img),
            Bind::named("Coords", &coords_buf),
            Bind::named("Wins", &wins),
        ],
    )
    .await?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let wins: Vec<u32> = bytemuck::pod_collect_to_vec(&out[2]);
    check_chain(&after[..locs], &after[locs..], &wins, locs)
}

/// A chain on a buffer member, array elements, a vector component or
/// shared memory.
async fn run_memory_chain(
    ctx: &Context,
    case: &Case,
    memory: Memory,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let wins_decl = format!("{}) buffer Wins {{ uint wins[]; }};\n", binding(case, 4));
    let locs = if memory == Memory::ArrayElement { 4 } else { 1 };
    let (load, store) = match memory {
        Memory::Shared => (
            "if (gl_LocalInvocationIndex == 0u) sh[0] = mem.arr[gl_WorkGroupID.x]; barrier();",
            "barrier(); if (gl_LocalInvocationIndex == 0u) mem.arr[gl_WorkGroupID.x] = sh[0];",
        ),
        _ => ("", ""),
    };
    let groups = 2;
    let (locs_total, loc_expr) = if memory == Memory::Shared {
        (groups, "gl_WorkGroupID.x".to_string())
    } else {
        (locs, format!("i % {locs}u"))
    };
    let target = match memory {
        Memory::Member => "mem.member",
        Memory::ArrayElement => "mem.arr[loc]",
        Memory::VectorComponent => "mem.v.y",
        _ => "sh[0]",
    };
    let src = buffer_preamble(case, 64, 1)
        + &wins_decl
        + &chain_body(case, target, "", "", &loc_expr)
            .replace("LOAD", load)
            .replace("STORE", store)
            .replace("WINS_BAD", &format!("{}u", locs_total * LINKS as usize));
    let kernel = translate(case, &src, opts)?;
    let words = ARR + 7;
    let mut mem = vec![0xCAFEu32; words];
    let targets: Vec<usize> = match memory {
        Memory::Member => vec![MEMBER],
        Memory::VectorComponent => vec![VECTOR_Y],
        Memory::ArrayElement => (0..locs).map(|c| ARR + c).collect(),
        _ => (0..groups).map(|g| ARR + g).collect(),
    };
    for &w in &targets {
        mem[w] = link(0);
    }
    let mem_buf = Buffer::from_slice(ctx, &mem)?;
    let wins = Buffer::zeroed(ctx, (locs_total * LINKS as usize + 1) as u64 * 4)?;
    let out = dispatch_and_read(
        ctx,
        opts,
        &kernel,
        [groups as u32, 1, 1],
        &[Bind::named("mem", &mem_buf), Bind::named("Wins", &wins)],
    )
    .await?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let finals: Vec<u32> = targets.iter().map(|&w| after[w]).collect();
    let rest: Vec<u32> = (0..words)
        .filter(|w| !targets.contains(w))
        .map(|w| after[w])
        .collect();
    let wins: Vec<u32> = bytemuck::pod_collect_to_vec(&out[1]);
    check_chain(&finals, &rest, &wins, locs_total)
}

/// Counters of a counter case and their byte offsets in binding 0: the
/// word at offset 4 lies between two counters and must never change.
pub(super) const COUNTER_OFFSETS: [u32; 3] = [0, 8, 12];

/// Invocations per counter.
pub(super) const COUNTER_CALLS: usize = 128;

/// The shader of a counter case: three counters in one binding, each hit
/// by a third of the invocations.
fn counter_shader(case: &Case, f: CounterFn) -> String {
    let call = |c: &str| match f {
        CounterFn::Increment | CounterFn::Decrement => format!("{}({c})", f.glsl_name(case.op)),
        CounterFn::Op if case.op == AtomicOp::CompSwap => {
            format!("{}({c}, u_compare, args[i])", f.glsl_name(case.op))
        }
        _ => format!("{}({c}, args[i])", f.glsl_name(case.op)),
    };
    let compare = if case.op == AtomicOp::CompSwap && f == CounterFn::Op {
        "uniform uint u_compare;\n"
    } else {
        ""
    };
    let src = format!(
        "#version 460
layout(local_size_x = 64) in;
uniform uint u_n;
{compare}layout(binding = 0, offset = {}) uniform atomic_uint c0;
layout(binding = 0, offset = {}) uniform atomic_uint c1;
layout(binding = 0) uniform atomic_uint c2;
layout(std430, binding = 0) readonly buffer Args {{ uint args[]; }};
layout(std430, binding = 1) writeonly buffer Rets {{ uint rets[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_n) return;
    uint which = i % 3u;
    uint r;
    if (which == 0u) {{
        r = {};
    }} else if (which == 1u) {{
        r = {};
    }} else {{
        r = {};
    }}
    rets[i] = r;
}}
",
        COUNTER_OFFSETS[0],
        COUNTER_OFFSETS[1],
        call("c0"),
        call("c1"),
        call("c2"),
    );
    src
}

pub(super) async fn run_counter(
    ctx: &Context,
    case: &Case,
    f: CounterFn,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let counters = COUNTER_OFFSETS.len();
    let n = counters * COUNTER_CALLS;
    let kernel = translate(case, &counter_shader(case, f), opts)?;
    let mut rng = Rng(0xC0DE ^ case.op as u64 ^ (f as u64) << 8);
    let words = 8;
    let mut init: Vec<u32> = (0..words as u32).map(|w| 0xB000_0000 + w).collect();
    let mut args = vec![0u32; n];
    for (c, &offset) in COUNTER_OFFSETS.iter().enumerate() {
        init[offset as usize / 4] = match f {
            CounterFn::Increment | CounterFn::Decrement => 1000 * (c as u32 + 1),
            _ => initial(case, &mut rng),
        };
        for k in 0..COUNTER_CALLS {
            args[k * counters + c] = argument(case, c, k, &mut rng);
        }
    }
    let counter_buf = Buffer::from_slice(ctx, &init)?;
    let args_buf = Buffer::from_slice(ctx, &args)?;
    let rets_buf = Buffer::filled(ctx, 0xFFFF_FFFFu32, n)?;
    let u = uniforms(ctx, &kernel, &[("u_n", n as u32)])?;
    let out = dispatch_and_read(
        ctx,
        opts,
        &kernel,
        [n.div_ceil(64) as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("c0", &counter_buf),
                Bind::named("Rets", &rets_buf),
            ]
            .into_iter()
            // Increment and decrement take no arguments.
            .chain(
                kernel
                    .binding_named("Args")
                    .is_ok()
                    .then(|| Bind::named("Args", &args_buf)),
            )
            .collect(),
            &u,
        ),
    )
    .await?;
    let after: Vec<u32> = bytemuck::pod_collect_to_vec(&out[0]);
    let rets: Vec<u32> = bytemuck::pod_collect_to_vec(&out[1]);
    for w in 0..words {
        if !COUNTER_OFFSETS.contains(&(w as u32 * 4)) && after[w] != init[w] {
            return Ok(Some(format!(
                "word {w}, beside the counters, changed from {:#x} to {:#x}",
                init[w], after[w]
            )));
        }
    }
    for (c, &offset) in COUNTER_OFFSETS.iter().enumerate() {
        let w = offset as usize / 4;
        let hits: Vec<usize> = (0..COUNTER_CALLS).map(|k| k * counters + c).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        let what = format!("counter c{c} (offset {offset})");
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        if let Some(why) = check_counter(case, f, &what, (init[w], after[w]), &data, &returned) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// Checks one counter: its start and final values, the arguments of the
/// calls on it and what they returned.
fn check_counter(
    case: &Case,
    f: CounterFn,
    what: &str,
    (start, fin): (u32, u32),
    args: &[u32],
    returned: &[u32],
) -> Option<String> {
    let steps = COUNTER_CALLS as u32;
    match f {
        CounterFn::Increment | CounterFn::Decrement => {
            // Increment returns the values before: start … start+n-1;
            // decrement the values after: start-1 … start-n.
            let mut want: Vec<u32> = (0..steps)
                .map(|k| match f {
                    CounterFn::Increment => start.wrapping_add(k),
                    _ => start.wrapping_sub(k + 1),
                })
                .collect();
            let expected_final = match f {
                CounterFn::Increment => start.wrapping_add(steps),
                _ => start.wrapping_sub(steps),
            };
            let mut sorted = returned.to_vec();
            sorted.sort_unstable();
            want.sort_unstable();
            if sorted != want {
                return Some(format!(
                    "{what}: {} returned {:?}… which is not a permutation of {:?}…",
                    f.glsl_name(case.op),
                    &sorted[..4],
                    &want[..4]
                ));
            }
            (fin != expected_final)
                .then(|| format!("{what}: final {fin}, expected {expected_final}"))
        }
        CounterFn::Subtract => {
            // Subtracting d is adding its two's complement.
            let data: Vec<u32> = args.iter().map(|a| a.wrapping_neg()).collect();
            let add = Case {
                op: AtomicOp::Add,
                ..*case
            };
            check_location(&add, what, (start, &data, returned, fin), false)
        }
        CounterFn::Op => check_location(case, what, (start, args, returned, fin), false),
    }
}
