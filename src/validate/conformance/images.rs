//! Running the image cases: the standard ones, out-of-range accesses and
//! the 64-bit images.

use super::*;

pub(super) fn image_desc(case: &Case, dim: ImageDim, scale: Scale) -> Result<ImageDesc> {
    let (size, samples) = image_size(dim, scale);
    ImageDesc::new(dim, image_format(case.ty), &size, samples)
}

pub(super) async fn run_standard_image(
    ctx: &Context,
    case: &Case,
    dim: ImageDim,
    scale: Scale,
    opts: &RunOptions,
    rng: &mut Rng,
) -> Result<Option<String>> {
    let desc = image_desc(case, dim, scale)?;
    let texels = desc.texel_count();
    let n = texels * CALLS;
    let (p, s) = coord_expr(dim);
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {}) return;
    rets[i] = {};
}}
",
        image_preamble(case, dim),
        param(case, "u_n", format!("{n}u")),
        call(case, "", &p, &s)
    );
    let kernel = translate(case, &src, opts)?;
    // Invocation i hits texel i % texels: neighbours in a workgroup hit different texels,
    // and the calls at one texel come from different workgroups.
    let mut coords = vec![0i32; 4 * n];
    let mut args = vec![0u32; n];
    let mut init = vec![0u32; texels];
    for (t, v) in init.iter_mut().enumerate() {
        *v = if case.ty == ScalarType::F32 {
            (t as f32 * 0.25 - 3.0).to_bits()
        } else {
            initial(case, rng)
        };
    }
    let float_min_max = case.ty == ScalarType::F32 && case.variant == Variant::Standard;
    if float_min_max {
        for (t, v) in init.iter_mut().enumerate() {
            *v = float_min_max_values(case, t, CALLS).0;
        }
    }
    for i in 0..n {
        let (t, k) = (i % texels, i / texels);
        coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, t));
        args[i] = if float_min_max {
            float_min_max_values(case, t, CALLS).1[k]
        } else if case.ty == ScalarType::F32 {
            (1000.0 + i as f32).to_bits()
        } else {
            argument(case, t, k, rng)
        };
    }
    let (after, rets) =
        run_image_kernel((ctx, opts), &kernel, desc, &init, &coords, &args, n, 0).await?;
    for t in 0..texels {
        let hits: Vec<usize> = (0..CALLS).map(|k| k * texels + t).collect();
        let data: Vec<u32> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u32> = hits.iter().map(|&i| rets[i]).collect();
        let a = TexelAddress::from_index(t, desc.width, desc.height, desc.layers());
        let what = format!(
            "texel {t} (x {}, y {}, layer {}, sample {})",
            a.x, a.y, a.layer, a.sample
        );
        if let Some(why) = check_location(
            case,
            &what,
            (init[t], &data, &returned, after[t]),
            opts.native,
        ) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// Dispatches an image case's kernel (image at 0, coords at 1, arguments at
/// 2, returns at 3) with one invocation per argument; returns the texels
/// after it and the `rets_len` words of returns, pre-filled with `rets_fill`.
#[allow(clippy::too_many_arguments)]
pub(super) async fn run_image_kernel(
    (ctx, opts): (&Context, &RunOptions),
    kernel: &Kernel,
    desc: ImageDesc,
    init: &[u32],
    coords: &[i32],
    args: &[u32],
    rets_len: usize,
    rets_fill: u32,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let img = Image::from_texels(ctx, desc, init)?;
    let coords_buf = Buffer::from_slice(ctx, coords)?;
    let args_buf = Buffer::from_slice(ctx, args)?;
    let rets_buf = Buffer::filled(ctx, rets_fill, rets_len)?;
    let u = uniforms(ctx, kernel, &[("u_n", args.len() as u32)])?;
    let out = dispatch_and_read(
        ctx,
        opts,
        kernel,
        [args.len().div_ceil(64) as u32, 1, 1],
        &with_uniforms(
            vec![
                Bind::named("img", &img),
                Bind::named("Coords", &coords_buf),
                Bind::named("Args", &args_buf),
                Bind::named("Rets", &rets_buf),
            ],
            &u,
        ),
    )
    .await?;
    Ok((
        bytemuck::pod_collect_to_vec(&out[0]),
        bytemuck::pod_collect_to_vec(&out[3]),
    ))
}

pub(super) async fn run_out_of_range(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let Memory::Image(dim) = case.memory else {
        return Ok(Some("out-of-range cases are for images".into()));
    };
    let desc = image_desc(case, dim, scale)?;
    let (t, v4, _) = glsl_scalar(case.ty);
    // Every axis just below 0 and just past its end, with the others in range.
    let limits = [
        desc.width as i32,
        if dim.has_height() {
            desc.height as i32
        } else {
            1
        },
        desc.layers() as i32,
        desc.samples as i32,
    ];
    let mut bad: Vec<[i32; 4]> = Vec::new();
    let axes: Vec<usize> = {
        let mut a = vec![0];
        if dim.has_height() {
            a.push(1);
        }
        if dim.layer_coordinate().is_some() {
            a.push(2);
        }
        if dim.is_multisampled() {
            a.push(3);
        }
        a
    };
    for &axis in &axes {
        for v in [-1, limits[axis], i32::MIN, i32::MAX] {
            let mut c = [0; 4];
            c[axis] = v;
            bad.push(c);
        }
    }
    // Coordinates as GLSL passes them: the layer of a 1D array is P.y.
    let n = bad.len();
    let coords: Vec<i32> = bad
        .iter()
        .flat_map(|c| {
            let (x, y, l, s) = (c[0], c[1], c[2], c[3]);
            match dim.coordinate_count() {
                1 => [x, 0, 0, s],
                2 if dim == ImageDim::D1Array => [x, l, 0, s],
                2 => [x, y, 0, s],
                _ => [x, y, l, s],
            }
        })
        .collect();
    let (p, s) = coord_expr(dim);
    // imageLoad(img, P[, sample]) and imageStore(img, P[, sample], data).
    let sample_arg = s.trim_end_matches(", ");
    let load_args = if sample_arg.is_empty() {
        p.clone()
    } else {
        format!("{p}, {sample_arg}")
    };
    let src = format!(
        "{}void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {n}u) return;
    rets[3u * i] = {};
    {v4} l = imageLoad(img, {load_args});
    rets[3u * i + 1u] = l.x + l.w;
    imageStore(img, {load_args}, {v4}(args[i]));
    rets[3u * i + 2u] = {t}(imageSize(img).x);
}}
",
        image_preamble(case, dim),
        call(case, "", &p, &s),
    );
    let kernel = translate(case, &src, opts)?;
    let init: Vec<u32> = (0..desc.texel_count()).map(|t| 1000 + t as u32).collect();
    let args: Vec<u32> = (0..n).map(|i| 0x0777_0000 + i as u32).collect();
    // Pre-filled, so that a return value that is never written cannot pass as 0.
    let (after, rets) = run_image_kernel(
        (ctx, opts),
        &kernel,
        desc,
        &init,
        &coords,
        &args,
        3 * n,
        0xFFFF_FFFF,
    )
    .await?;
    if let Some(t) = (0..after.len()).find(|&t| after[t] != init[t]) {
        return Ok(Some(format!(
            "texel {t} changed from {} to {:#x} by out-of-range accesses",
            init[t], after[t]
        )));
    }
    for (i, c) in bad.iter().enumerate() {
        let (atomic, load) = (rets[3 * i], rets[3 * i + 1]);
        if atomic != 0 || load != 0 {
            return Ok(Some(format!(
                "out-of-range (x {}, y {}, layer {}, sample {}): the atomic returned {atomic:#x} and imageLoad {load:#x}, not 0",
                c[0], c[1], c[2], c[3]
            )));
        }
        if rets[3 * i + 2] != desc.width {
            return Ok(Some(format!(
                "imageSize(img).x is {}, not {}",
                rets[3 * i + 2],
                desc.width
            )));
        }
    }
    Ok(None)
}

/// An image atomic on a 64-bit image: [`CALLS`] calls per texel with 64-bit
/// arguments whose both halves matter, checked against the 64-bit model by
/// fold, permutation or single winner.
/// The shader of a 64-bit image case: one call per invocation.
fn int64_shader(
    case: &Case,
    dim: ImageDim,
    (t, prefix, format): (&str, &str, ImageFormat),
    n: usize,
) -> String {
    let (p, smp) = coord_expr(dim);
    let name = case.op.glsl_name();
    let compare = if case.op == AtomicOp::CompSwap {
        format!("{t}({COMPARE64}ul), ")
    } else {
        String::new()
    };
    let src = format!(
        "#version 450
#extension GL_EXT_shader_image_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, {}) uniform {prefix}{} img;
layout(set = 0, binding = 1) readonly buffer Coords {{ int coords[]; }};
layout(set = 0, binding = 2) readonly buffer Args {{ {t} args[]; }};
layout(set = 0, binding = 3) writeonly buffer Rets {{ {t} rets[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {n}u) return;
    rets[i] = image{}{}(img, {p}, {smp}{compare}args[i]);
}}
",
        format.name(),
        dim.glsl_name(),
        &name[..1].to_uppercase(),
        &name[1..],
    );
    src
}

pub(super) async fn run_int64_image(
    ctx: &Context,
    case: &Case,
    scale: Scale,
    opts: &RunOptions,
) -> Result<Option<String>> {
    let Memory::Image(dim) = case.memory else {
        return Ok(Some("a 64-bit case needs an image".into()));
    };
    let signed = case.ty == ScalarType::I32;
    let (t, prefix, format) = if signed {
        ("int64_t", "i64", ImageFormat::R64Sint)
    } else {
        ("uint64_t", "u64", ImageFormat::R64Uint)
    };
    let (size, samples) = image_size(dim, scale);
    let desc = ImageDesc::new(dim, format, &size, samples)?;
    let texels = desc.texel_count();
    let n = texels * CALLS;
    let src = int64_shader(case, dim, (t, prefix, format), n);
    let kernel = translate(case, &src, opts)?;
    let mut rng = Rng(0x64 ^ (case.name().len() as u64) << 9 ^ case.op as u64);
    let wide = |rng: &mut Rng| (u64::from(rng.next()) << 32) | u64::from(rng.next());
    let initial = |rng: &mut Rng| -> u64 {
        match (case.op, signed) {
            (AtomicOp::Min, true) => i64::MAX as u64,
            (AtomicOp::Min, false) => u64::MAX,
            (AtomicOp::Max, true) => i64::MIN as u64,
            (AtomicOp::Max, false) => 0,
            (AtomicOp::And, _) => !(wide(rng) & 0x0101_0101_0101_0101),
            (AtomicOp::Or, _) => 0,
            (AtomicOp::CompSwap, _) => COMPARE64,
            _ => wide(rng),
        }
    };
    let init: Vec<u64> = (0..texels).map(|_| initial(&mut rng)).collect();
    let mut coords = vec![0i32; 4 * n];
    let mut args = vec![0u64; n];
    for i in 0..n {
        let (texel, k) = (i % texels, i / texels);
        coords[4 * i..4 * i + 4].copy_from_slice(&coords_of(&desc, texel));
        let r = wide(&mut rng);
        args[i] = match case.op {
            AtomicOp::And => !(1u64 << (r % 64)),
            AtomicOp::Or => 1u64 << (r % 64),
            AtomicOp::CompSwap | AtomicOp::Exchange => {
                0x1000_0000_0000_0000 + (k as u64) * 0x1_0000_0007 + texel as u64
            }
            _ => r,
        };
    }
    let words = |v: &[u64]| -> Vec<u32> { bytemuck::cast_slice(v).to_vec() };
    let (after, rets) = run_image_kernel(
        (ctx, opts),
        &kernel,
        desc,
        &words(&init),
        &coords,
        &words(&args),
        2 * n,
        0,
    )
    .await?;
    let after: Vec<u64> = bytemuck::pod_collect_to_vec(&after);
    let rets: Vec<u64> = bytemuck::pod_collect_to_vec(&rets);
    for texel in 0..texels {
        let hits: Vec<usize> = (0..CALLS).map(|k| k * texels + texel).collect();
        let data: Vec<u64> = hits.iter().map(|&i| args[i]).collect();
        let returned: Vec<u64> = hits.iter().map(|&i| rets[i]).collect();
        let what = format!("texel {texel}");
        let states = (init[texel], after[texel]);
        if let Some(why) = check_texel64(case, signed, &what, states, &data, &returned) {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// Checks one texel of a 64-bit case: the final value, and what the calls
/// on it returned.
fn check_texel64(
    case: &Case,
    signed: bool,
    what: &str,
    (start, fin): (u64, u64),
    data: &[u64],
    returned: &[u64],
) -> Option<String> {
    match case.op {
        AtomicOp::Exchange => not_a_permutation(what, start, data, returned, fin),
        AtomicOp::CompSwap => {
            let winners = returned.iter().filter(|&&r| r == start).count();
            (winners != 1 || !data.contains(&fin)).then(|| {
                format!(
                    "{what}: {winners} compare-swaps won (expected exactly 1), final {fin:#x}; returned {returned:x?}"
                )
            })
        }
        op => {
            let expected = data
                .iter()
                .fold(start, |m, &d| op.apply64(signed, m, d, 0).0);
            if fin != expected {
                return Some(format!(
                    "{what}: expected final {expected:#x}, observed {fin:#x}"
                ));
            }
            // Every returned value is a state some prefix of the calls
            // reaches: for the commutative ones, a fold of a subset.
            (!returned.contains(&start)).then(|| {
                format!("{what}: no call returned the initial value {start:#x}: {returned:x?}")
            })
        }
    }
}
