//! The GLSL each case runs: the parts of its shader, and its translation.

use super::*;

pub(super) fn glsl_scalar(ty: ScalarType) -> (&'static str, &'static str, &'static str) {
    // (scalar, vec4, image prefix)
    match ty {
        ScalarType::U32 => ("uint", "uvec4", "u"),
        ScalarType::I32 => ("int", "ivec4", "i"),
        ScalarType::F32 => ("float", "vec4", ""),
    }
}

pub(super) fn image_format(ty: ScalarType) -> ImageFormat {
    match ty {
        ScalarType::U32 => ImageFormat::R32Uint,
        ScalarType::I32 => ImageFormat::R32Sint,
        ScalarType::F32 => ImageFormat::R32Float,
    }
}

pub(super) fn translate(case: &Case, src: &str, opts: &RunOptions) -> Result<Kernel> {
    let mut o = SourceOptions::named(format!("{}.comp", case.name()));
    o.native_float_atomics = opts.native_float_atomics;
    o.dialect = Some(case.dialect);
    o.target = opts.target;
    // A native run needs the original SPIR-V, which a translation made
    // ahead of time no longer carries: those translate afresh.
    if let Some(done) = opts.translations.as_ref().filter(|_| !opts.native) {
        let found = done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(src)
            .cloned();
        if let Some(t) = found {
            return Kernel::from_translation(&t, &o);
        }
    }
    #[cfg(feature = "glsl")]
    {
        let kernel = Kernel::from_glsl(src, &o)?;
        if let Some(done) = &opts.translations {
            done.lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(src.to_string(), crate::Translation::of_kernel(&kernel));
        }
        Ok(kernel)
    }
    #[cfg(not(feature = "glsl"))]
    {
        Err(crate::Error::Unsupported(format!(
            "{}: the conformance cases are GLSL, which needs atomport's `glsl` feature (or translations made ahead of time)",
            o.display_name()
        )))
    }
}

/// The first lines of a case's shader: the version, and for OpenGL GLSL
/// the loose uniforms that carry its parameters (`u_n`, `u_locs`, and
/// `u_compare` for compare-swaps).
pub(super) fn header(case: &Case, uniforms: &[&str]) -> String {
    match case.dialect {
        Dialect::Vulkan => "#version 450\n".into(),
        Dialect::OpenGl => {
            let (t, _, _) = glsl_scalar(case.ty);
            let mut h = "#version 430\n".to_string();
            for u in uniforms {
                h.push_str(&format!("uniform uint {u};\n"));
            }
            if case.op == AtomicOp::CompSwap {
                h.push_str(&format!("uniform {t} u_compare;\n"));
            }
            h
        }
    }
}

/// `layout(set = 0, binding = N` (Vulkan) or `layout(binding = N` (OpenGL).
pub(super) fn binding(case: &Case, n: u32) -> String {
    match case.dialect {
        Dialect::Vulkan => format!("layout(set = 0, binding = {n}"),
        Dialect::OpenGl => format!("layout(binding = {n}"),
    }
}

/// A constant of the case, written as GLSL: the literal, or for OpenGL
/// GLSL the loose uniform that carries it.
pub(super) fn param(case: &Case, uniform: &str, literal: String) -> String {
    match case.dialect {
        Dialect::Vulkan => literal,
        Dialect::OpenGl => uniform.into(),
    }
}

/// The call in GLSL: `imageAtomicAdd(img, P, args[i])`, `atomicCompSwap(t, C, args[i])`.
pub(super) fn call(case: &Case, target: &str, coords: &str, sample: &str) -> String {
    let (t, _, _) = glsl_scalar(case.ty);
    let name = case.op.glsl_name();
    let compare = if case.op == AtomicOp::CompSwap {
        format!("{}, ", param(case, "u_compare", format!("{t}({COMPARE}u)")))
    } else {
        String::new()
    };
    match case.memory {
        Memory::Image(_) => format!(
            "image{}{}(img, {coords}, {sample}{compare}args[i])",
            &name[..1].to_uppercase(),
            &name[1..]
        ),
        _ => format!("{name}({target}, {compare}args[i])"),
    }
}

/// GLSL's `P` from the coords buffer, and the sample argument with its
/// trailing comma (`"coords[…], "`) for multisample images, else `""`:
/// texel `i` of an image kernel reads its address from `coords[4i..4i+4]`.
pub fn coord_expr(dim: ImageDim) -> (String, String) {
    let c = |k: u32| format!("coords[4u * i + {k}u]");
    let p = match dim.coordinate_count() {
        1 => c(0),
        2 => format!("ivec2({}, {})", c(0), c(1)),
        _ => format!("ivec3({}, {}, {})", c(0), c(1), c(2)),
    };
    let s = if dim.is_multisampled() {
        format!("{}, ", c(3))
    } else {
        String::new()
    };
    (p, s)
}

/// How the invocations of a buffer case are laid out.
pub(super) struct BufferLayout {
    pub(super) locs: usize,
    pub(super) workgroup: usize,
    pub(super) groups: usize,
}

pub(super) fn buffer_layout(memory: Memory, scale: Scale) -> BufferLayout {
    if scale == Scale::Heavy {
        return match memory {
            Memory::Member | Memory::VectorComponent => BufferLayout {
                locs: 1,
                workgroup: 64,
                groups: 64,
            },
            Memory::ArrayElement => BufferLayout {
                locs: 8,
                workgroup: 64,
                groups: 64,
            },
            _ => BufferLayout {
                locs: 8,
                workgroup: 1024,
                groups: 4,
            },
        };
    }
    let many = if scale == Scale::Full { 64 } else { 8 };
    match memory {
        Memory::Member | Memory::VectorComponent => BufferLayout {
            locs: 1,
            workgroup: CALLS,
            groups: 1,
        },
        Memory::ArrayElement => BufferLayout {
            locs: many,
            workgroup: CALLS * many,
            groups: 1,
        },
        _ => BufferLayout {
            locs: 8,
            workgroup: CALLS * 8,
            groups: if scale == Scale::Full { 16 } else { 2 },
        },
    }
}

/// Word of `Mem { before; member; v (@16); after; arr[] (@36) }`.
pub(super) const MEMBER: usize = 1;

pub(super) const VECTOR_Y: usize = 5;

pub(super) const ARR: usize = 9;

pub(super) fn buffer_preamble(case: &Case, workgroup: usize, locs: usize) -> String {
    let (t, v, _) = glsl_scalar(case.ty);
    let v = if case.ty == ScalarType::F32 {
        "vec4"
    } else {
        v
    };
    let ext = float_extensions(case);
    format!(
        "{}{ext}#define LOCS {locs}u
layout(local_size_x = {workgroup}) in;
{}) buffer Mem {{ {t} before; {t} member; {v} v; {t} after; {t} arr[]; }} mem;
{}) readonly buffer Args {{ {t} args[]; }};
{}) writeonly buffer Rets {{ {t} rets[]; }};
shared {t} sh[LOCS];
",
        header(case, &["u_locs"]),
        binding(case, 0),
        binding(case, 1),
        binding(case, 2),
    )
}

pub(super) fn buffer_target(memory: Memory) -> &'static str {
    match memory {
        Memory::Member => "mem.member",
        Memory::ArrayElement => "mem.arr[loc]",
        Memory::VectorComponent => "mem.v.y",
        _ => "sh[loc]",
    }
}

pub(super) fn shared_copy(memory: Memory) -> (&'static str, &'static str) {
    if memory == Memory::Shared {
        (
            "if (gl_LocalInvocationIndex < LOCS) sh[gl_LocalInvocationIndex] = mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex];\n    barrier();",
            "barrier();\n    if (gl_LocalInvocationIndex < LOCS) mem.arr[gl_WorkGroupID.x * LOCS + gl_LocalInvocationIndex] = sh[gl_LocalInvocationIndex];",
        )
    } else {
        ("", "")
    }
}

/// The `#extension` lines a float case needs.
pub(super) fn float_extensions(case: &Case) -> &'static str {
    match (case.ty, case.op) {
        (ScalarType::F32, AtomicOp::Min | AtomicOp::Max) => {
            "#extension GL_EXT_shader_atomic_float2 : require\n"
        }
        (ScalarType::F32, _) => "#extension GL_EXT_shader_atomic_float : require\n",
        _ => "",
    }
}

pub(super) fn image_preamble(case: &Case, dim: ImageDim) -> String {
    let (t, _, prefix) = glsl_scalar(case.ty);
    let format = image_format(case.ty).name();
    // OpenGL numbers image units apart from buffers: unit 0 beside buffer 0.
    let first_buffer = match case.dialect {
        Dialect::Vulkan => 1,
        Dialect::OpenGl => 0,
    };
    format!(
        "{}{}layout(local_size_x = 64) in;
{}, {format}) uniform {prefix}{} img;
{}) readonly buffer Coords {{ int coords[]; }};
{}) readonly buffer Args {{ {t} args[]; }};
{}) writeonly buffer Rets {{ {t} rets[]; }};
",
        header(case, &["u_n"]),
        float_extensions(case),
        binding(case, 0),
        dim.glsl_name(),
        binding(case, first_buffer),
        binding(case, first_buffer + 1),
        binding(case, first_buffer + 2),
    )
}
