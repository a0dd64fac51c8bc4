//! glslang through its C interface, one parse per compile.
//!
//! The glslang crate's `ShaderBuilder::parse` runs glslang's preprocessor
//! over the shader and then parses the preprocessed text, and glslang
//! builds the shader's symbol table afresh for each of the two (for a
//! 200-line compute shader, a quarter of the whole compile). glslang's
//! parser preprocesses as it reads, so a shader is parsed once, from its
//! own text, unless a separate preprocessing pass is needed: only it calls
//! the includer for `#include`, and only it gives the preprocessed text
//! (which OpenGL's unbound resources are found in, where the source holds
//! preprocessor conditionals or macros).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr::NonNull;

use glslang::include::{IncludeHandler, IncludeType};
use glslang::limits::ResourceLimits;
use glslang_sys as sys;

/// How to parse one shader.
pub(super) struct Options<'a> {
    /// The shader's text.
    pub source: &'a str,
    /// The Vulkan version to target.
    pub client: sys::glslang_target_client_version_t,
    /// The SPIR-V version to write.
    pub spirv: sys::glslang_target_language_version_t,
    /// The version and profile for a shader without a `#version` line.
    pub default_version: Option<(i32, sys::glslang_profile_t)>,
    /// `#define` lines read before the shader (the `-D` definitions).
    pub preamble: &'a str,
    /// glslang's OpenGL-on-Vulkan rules (loose uniforms, atomic counters,
    /// resources without a binding).
    pub opengl: bool,
    /// The resource limits glslang checks the shader against.
    pub limits: &'a ResourceLimits,
    /// Where `#include`s are resolved.
    pub includer: &'a mut dyn IncludeHandler,
    /// Whether to preprocess apart first: for a shader that includes
    /// files, or whose preprocessed text is wanted.
    pub preprocess: bool,
}

/// A parsed shader.
pub(super) struct Parsed {
    shader: NonNull<sys::glslang_shader_t>,
    /// Whether glslang holds preprocessed text to give back.
    preprocessed: bool,
}

/// The empty preamble glslang is left pointing at once parsing is done
/// (it keeps the pointer, not a copy).
const NO_PREAMBLE: &CStr = c"";

/// Parses the shader; `Err` holds glslang's log.
pub(super) fn parse(o: Options<'_>) -> std::result::Result<Parsed, String> {
    let source = CString::new(o.source)
        .map_err(|_| "ERROR: 0:0: '' : the source contains a NUL byte".to_string())?;
    let preamble = CString::new(o.preamble)
        .map_err(|_| "ERROR: -1:0: '' : a definition contains a NUL byte".to_string())?;
    // The includer as glslang's callbacks reach it: a pointer to the fat
    // reference, alive on this frame until the preprocessing is done.
    let mut includer: &mut dyn IncludeHandler = o.includer;
    let ctx = (&mut includer as *mut &mut dyn IncludeHandler).cast::<c_void>();
    let callbacks = sys::glsl_include_callbacks_t {
        include_system: Some(include_callback::<true>),
        include_local: Some(include_callback::<false>),
        free_include_result: Some(free_include_result),
    };
    let (default_version, default_profile) = o
        .default_version
        .unwrap_or((100, sys::glslang_profile_t::None));
    // Boxed: glslang keeps the address of its `code` field.
    let input = Box::new(sys::glslang_input_t {
        language: sys::glslang_source_t::GLSL,
        stage: sys::glslang_stage_t::Compute,
        client: sys::glslang_client_t::Vulkan,
        client_version: o.client,
        target_language: sys::glslang_target_language_t::SPIRV,
        target_language_version: o.spirv,
        code: source.as_ptr(),
        default_version,
        default_profile,
        force_default_version_and_profile: c_int::from(o.default_version.is_some()),
        forward_compatible: 0,
        messages: sys::glslang_messages_t::DEFAULT,
        // ResourceLimits is a transparent wrapper of glslang's struct.
        resource: (o.limits as *const ResourceLimits).cast::<sys::glslang_resource_t>(),
        callbacks,
        callbacks_ctx: ctx,
    });
    // SAFETY: `input` and what it points to (the source, the limits, the
    // includer) outlive every call below that reads them; glslang copies
    // the preprocessed code it is given and keeps the preamble's pointer
    // only until it is pointed at the static empty string again.
    unsafe {
        let shader = NonNull::new(sys::glslang_shader_create(&*input))
            .ok_or_else(|| "ERROR: glslang created no shader".to_string())?;
        let parsed = Parsed {
            shader,
            preprocessed: o.preprocess,
        };
        let s = shader.as_ptr();
        if o.opengl {
            // Loose uniforms gathered into `gl_DefaultUniformBlock`, each
            // atomic-counter binding a buffer; auto-mapping lifts the rule
            // that every block names a binding (no mapIO follows: the
            // numbers are atomport's binding pass's).
            sys::glslang_shader_set_options(
                s,
                (sys::glslang_shader_options_t::VULKAN_RULES_RELAXED
                    | sys::glslang_shader_options_t::AUTO_MAP_BINDINGS)
                    .0,
            );
            sys::glslang_shader_set_default_uniform_block_set_and_binding(s, 0, 0);
        }
        if !o.preamble.is_empty() {
            sys::glslang_shader_set_preamble(s, preamble.as_ptr());
        }
        let ok = if o.preprocess {
            sys::glslang_shader_preprocess(s, &*input) != 0
                && sys::glslang_shader_parse(s, &*input) != 0
        } else {
            // The parse reads the "preprocessed" text, which is the source:
            // the parser runs the preprocessor itself.
            sys::glslang_shader_set_preprocessed_code(s, source.as_ptr());
            sys::glslang_shader_parse(s, &*input) != 0
        };
        sys::glslang_shader_set_preamble(s, NO_PREAMBLE.as_ptr());
        if ok { Ok(parsed) } else { Err(parsed.log()) }
    }
}

impl Parsed {
    /// glslang's info log.
    pub fn log(&self) -> String {
        // SAFETY: the shader is alive; glslang returns a NUL-terminated
        // string it owns.
        unsafe { text(sys::glslang_shader_get_info_log(self.shader.as_ptr())) }
    }

    /// The preprocessed text, where a preprocessing pass ran.
    pub fn preprocessed(&self) -> Option<String> {
        // SAFETY: as for `log`.
        self.preprocessed.then(|| unsafe {
            text(sys::glslang_shader_get_preprocessed_code(
                self.shader.as_ptr(),
            ))
        })
    }
}

/// Links parsed compilation units into one program and writes its SPIR-V;
/// `Err` holds glslang's log.
pub(super) fn link(units: &[&Parsed]) -> std::result::Result<Vec<u32>, String> {
    // SAFETY: the program is deleted before the shaders it holds (the
    // caller keeps them alive past this call); the buffer is as long as
    // glslang says the SPIR-V is.
    unsafe {
        let program = sys::glslang_program_create();
        if program.is_null() {
            return Err("ERROR: glslang created no program".into());
        }
        for unit in units {
            sys::glslang_program_add_shader(program, unit.shader.as_ptr());
        }
        let messages = sys::glslang_messages_t::DEFAULT
            | sys::glslang_messages_t::VULKAN_RULES
            | sys::glslang_messages_t::SPV_RULES;
        let out = if sys::glslang_program_link(program, messages.0) == 0 {
            Err(text(sys::glslang_program_get_info_log(program)))
        } else {
            sys::glslang_program_SPIRV_generate(program, sys::glslang_stage_t::Compute);
            let size = sys::glslang_program_SPIRV_get_size(program);
            let mut words = vec![0u32; size];
            sys::glslang_program_SPIRV_get(program, words.as_mut_ptr());
            Ok(words)
        };
        sys::glslang_program_delete(program);
        out
    }
}

impl Drop for Parsed {
    fn drop(&mut self) {
        // SAFETY: created by glslang_shader_create, deleted once.
        unsafe { sys::glslang_shader_delete(self.shader.as_ptr()) }
    }
}

/// A C string glslang owns, copied (invalid UTF-8 replaced).
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller passes a NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// glslang's call for `#include "x"` (`SYSTEM` false) or `#include <x>`
/// (true; glslang also asks so for `"x"` after a local search found
/// nothing).
unsafe extern "C" fn include_callback<const SYSTEM: bool>(
    ctx: *mut c_void,
    header: *const c_char,
    includer: *const c_char,
    depth: usize,
) -> *mut sys::glsl_include_result_t {
    let ty = if SYSTEM {
        IncludeType::System
    } else {
        IncludeType::Local
    };
    // SAFETY: glslang passes back the context it was given.
    unsafe { include(ctx, ty, header, includer, depth) }
}

/// Asks the includer; a panic in it is an answer of nothing (glslang then
/// reports the header as not found), never an unwind into C++.
unsafe fn include(
    ctx: *mut c_void,
    ty: IncludeType,
    header: *const c_char,
    includer: *const c_char,
    depth: usize,
) -> *mut sys::glsl_include_result_t {
    if ctx.is_null() || header.is_null() {
        return std::ptr::null_mut();
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: `ctx` points at the `&mut dyn IncludeHandler` on
        // `parse`'s frame; the names are NUL-terminated strings.
        let (handler, header, includer) = unsafe {
            (
                &mut *ctx.cast::<&mut dyn IncludeHandler>(),
                text(header),
                text(includer),
            )
        };
        let Some(found) = handler.include(ty, &header, &includer, depth) else {
            return std::ptr::null_mut();
        };
        // Text with a NUL byte was refused by the includer already.
        let (Ok(name), Ok(data)) = (CString::new(found.name), CString::new(found.data)) else {
            return std::ptr::null_mut();
        };
        let header_length = data.as_bytes().len();
        Box::into_raw(Box::new(sys::glsl_include_result_t {
            header_name: name.into_raw(),
            header_data: data.into_raw(),
            header_length,
        }))
    }))
    .unwrap_or(std::ptr::null_mut())
}

/// Frees what [`include`] gave glslang.
unsafe extern "C" fn free_include_result(
    _ctx: *mut c_void,
    result: *mut sys::glsl_include_result_t,
) -> c_int {
    if !result.is_null() {
        // SAFETY: `result` and its strings were made by `include` with
        // Box::into_raw and CString::into_raw, and are freed once.
        unsafe {
            let r = Box::from_raw(result);
            drop(CString::from_raw(r.header_name.cast_mut()));
            drop(CString::from_raw(r.header_data.cast_mut()));
        }
    }
    0
}
