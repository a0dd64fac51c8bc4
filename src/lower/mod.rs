//! The mapping of GLSL atomics onto WGSL, as passes in a fixed order, each
//! one idea in one file:
//!
//! 0. Word-level rewrites before rspirv reads the module ([`compat`]):
//!    `OpExecutionModeId` (SPIR-V 1.2+) and `OpSpecConstantOp`s with several
//!    literal operands, which rspirv's reader cannot place or parse.
//! 1. SPIR-V passes ([`spirv`]; those that keep the shader's memory layout
//!    in [`memory`]), all on one [`model::Model`] of the module (its
//!    definitions, names and decorations indexed once, find-or-insert of
//!    types and constants, fresh ids, one walker), for what naga cannot read
//!    or core WGSL cannot express: the caller's specialization values
//!    ([`spec`]); the Vulkan memory model relaxed to the GLSL450 one, with
//!    warnings for what is lost, reader gaps mended and unused globals
//!    dropped ([`compat`]); switch cases that fall through given a copy
//!    of what they fall into ([`fall_through`]); push constants made a buffer ([`push`]);
//!    instructions naga reads wrong (`-x` on a uint,
//!    `%` on ints, `texelFetchOffset`) rewritten ([`misread`]); built-ins it
//!    cannot read or WGSL lacks (`isnan`, `umulExtended`, `uaddCarry`, …)
//!    spelled in plain instructions ([`builtins`]); AMD's `min3`, `max3`,
//!    `mid3` as two minimums and maximums ([`amd`], which also drops GL_AMD_texture_gather_bias_lod where unused); infinite and NaN constants built at run time ([`non_finite`]); buffer blocks sharing a
//!    binding given bindings of their own ([`alias`]); subgroup operations
//!    naga lacks rewritten ([`subgroup`], OpenGL's ARB ones first in
//!    [`arb_subgroup`], those on booleans last in [`subgroup_bool`]);
//!    OpenGL's binding namespaces made WGSL bindings ([`opengl`],
//!    OpenGL-dialect GLSL only); what WGSL cannot express refused by name
//!    ([`refuse`]; integer textures sampled become texel fetches first,
//!    [`integer_sampling`]); buffer textures made read-only `imageBuffer`s of the
//!    caller's format ([`buffer_textures`]); combined image samplers split
//!    into a texture and a sampler, implicit-LOD sampling made explicit
//!    ([`sampler`]); specialization constants folded when naga could not
//!    read them ([`spec`]); images used atomically (or of a shape WGSL lacks)
//!    become texel buffers ([`image`], addressing in [`texel`]); atomics on
//!    vector components ([`vector`]); arrays with a stride wider than their
//!    element (std140) get padded elements ([`std140`]); float atomics on the
//!    bits, unless the adapter has SHADER_FLOAT32_ATOMIC and the caller asks
//!    for native ones ([`float`]).
//! 2. naga's SPIR-V reader.
//! 3. IR passes on naga's module ([`ir`]): memory barriers only in uniform control flow
//!    ([`uniformity`]); every compare-exchange made strong but those in
//!    atomport's own retry loops ([`compswap`]; the runtime makes a
//!    strong loop one compare-exchange again where the backend's is
//!    strong); structs padded so WGSL's
//!    natural layout keeps every offset ([`layout`]).
//! 4. naga validation, then WGSL output. The runtime compiles the validated
//!    module (wgpu's `ShaderSource::Naga`), so a valid shader is never
//!    refused for the WGSL parser's nesting limits. The text is parsed and
//!    validated back where it leaves atomport (`translate`, build scripts,
//!    the WebGPU target: [`SourceOptions::verify_wgsl`]), and by the golden
//!    tests.

pub mod ir;
pub mod memory;
pub(crate) mod model;
pub mod spirv;

use ir::{
    barriers_without_textures, binding_array_accesses, compswap, layout, literals,
    storage_array_access, uniformity, writeonly_storage_readable,
};
use memory::{copies, references, std140, words};
use spirv::{
    alias, amd, arb_subgroup, array_switch, arrays, buffer_textures, builtins, clustered, compat,
    dense, fall_through, float, formatless, halfs, image, integer_sampling, misread, narrow,
    non_finite, one_lane, opengl, printf, push, refuse, resource_args, sampler, spec, subgroup,
    subgroup_bool, vector, wide_ints,
};

pub use spirv::alias::Alias;

use crate::front::{self, SourceOptions};
use crate::{Error, Form, Result, guard};

/// Deliberate faults in the mapping, for proving that the conformance
/// matrix catches a broken mapping. Injected only by atomport's own tests,
/// through a test-only hook: no option of a production build reaches them.
pub(crate) mod fault {
    /// A fault the tests can inject.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Fault {
        /// Compare-swap as one weak call that fails spuriously (as Metal's
        /// may): every call whose value is odd compares against the wrong value.
        SpuriousCompareExchange,
        /// Image x and y swapped in the texel index.
        SwappedImageAxes,
        /// Every 32-bit float literal `steps` representable floats up:
        /// arithmetic that rounds otherwise (one step), or that is wrong.
        NudgedFloatLiterals { steps: u32 },
    }

    /// Moves every 32-bit float literal of `module` (its constants' and
    /// its functions') `steps` representable floats up.
    pub(crate) fn nudge_float_literals(module: &mut naga::Module, steps: u32) {
        let nudge = |e: &mut naga::Expression| {
            if let naga::Expression::Literal(naga::Literal::F32(v)) = e {
                *v = (0..steps).fold(*v, |x, _| x.next_up());
            }
        };
        module
            .global_expressions
            .iter_mut()
            .for_each(|(_, e)| nudge(e));
        let functions = module
            .functions
            .iter_mut()
            .map(|(_, f)| f)
            .chain(module.entry_points.iter_mut().map(|e| &mut e.function));
        for f in functions {
            f.expressions.iter_mut().for_each(|(_, e)| nudge(e));
        }
    }

    #[cfg(test)]
    thread_local! {
        static ACTIVE: std::cell::Cell<Option<Fault>> = const { std::cell::Cell::new(None) };
    }

    /// Whether `fault` is injected on this thread (never outside tests).
    pub(crate) fn active(fault: Fault) -> bool {
        #[cfg(test)]
        {
            ACTIVE.with(|a| a.get()) == Some(fault)
        }
        #[cfg(not(test))]
        {
            let _ = fault;
            false
        }
    }

    /// The fault injected on this thread, to carry to a translation thread.
    #[cfg(test)]
    pub(crate) fn current() -> Option<Fault> {
        ACTIVE.with(|a| a.get())
    }

    /// Runs `f` with `fault` injected on this thread (and on the
    /// translation threads it starts).
    #[cfg(test)]
    pub(crate) fn inject<T>(fault: Option<Fault>, f: impl FnOnce() -> T) -> T {
        let before = ACTIVE.with(|a| a.replace(fault));
        let out = f();
        ACTIVE.with(|a| a.set(before));
        out
    }
}

/// The warning of a WebGPU translation whose subgroups are of one
/// invocation (`check` knows such a kernel by it).
pub(crate) const ONE_LANE_SUBGROUPS: &str = "subgroup operations run in subgroups of one invocation: WebGPU through wgpu grants no subgroups";

/// What the passes changed, logged at debug level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerReport {
    /// Specialization constants folded to their defaults.
    pub folded_spec_constants: usize,
    /// Vector sites retyped to arrays for component atomics.
    pub vector_sites: usize,
    /// Float memory sites retyped to `u32` for emulated float atomics.
    pub float_sites: usize,
    /// Compare-exchanges turned into strong retry loops.
    pub strong_compare_exchanges: usize,
    /// Structs given padding members to keep their declared offsets in WGSL.
    pub padded_structs: usize,
    /// Arrays whose elements were wrapped to keep a stride wider than the element.
    pub padded_arrays: usize,
    /// Blocks nested past WGSL's brace limit moved into functions.
    pub outlined_blocks: usize,
}

/// The result of lowering: the naga module, its validation info and its WGSL.
pub struct Lowered {
    /// The final module.
    pub module: naga::Module,
    /// Its validation info and the device features it needs.
    pub validated: front::features::Validated,
    /// The WGSL text.
    pub wgsl: String,
    /// The images now held in texel buffers.
    pub images: Vec<image::ImageBinding>,
    /// For OpenGL-dialect input: every resource's OpenGL kind and number.
    pub opengl: Vec<opengl::OpenGlBinding>,
    /// Combined image samplers split into a texture and a sampler.
    pub samplers: Vec<sampler::SplitSampler>,
    /// Array textures whose layer count is an override.
    pub layer_counts: Vec<sampler::LayerCount>,
    /// Guarantees the shader asks for that WGSL does not give in full.
    pub warnings: Vec<compat::Warning>,
    /// Buffer blocks moved off a binding another block shares.
    pub aliases: Vec<Alias>,
    /// Bindings WGSL numbers apart from the shader (past WebGPU's limit).
    pub renumbered: Vec<dense::Renumbered>,
    /// The (group, binding) of every buffer the shader declared `coherent`
    /// (or `volatile`, which GLSL makes coherent too).
    pub coherent: Vec<(u32, u32)>,
    /// The (group, binding) of every buffer the shader declared `volatile`.
    pub volatile: Vec<(u32, u32)>,
    /// Push-constant blocks made buffers.
    pub push: Vec<push::PushBlock>,
    /// Storage images whose format the bound texture chooses.
    pub formatless: Vec<formatless::FormatlessImage>,
    /// Buffers made words, with the members they declared.
    pub words: Vec<words::WordBlock>,
    /// Samplers integer textures are sampled through: their address-mode
    /// overrides.
    pub address_modes: Vec<integer_sampling::AddressModes>,
    /// Storage-image arrays held in one buffer.
    pub packed: Vec<image::PackedArray>,
    /// The adapter-dependent forms the translation took.
    pub forms: Vec<Form>,
    /// How many of the WGSL's workgroups make one of the shader's, per
    /// axis ([`ir::workgroups`]).
    pub workgroup_split: [u32; 3],
}

/// What the SPIR-V passes found, for the binding map and the IR passes.
#[derive(Default)]
struct SpirvOutcome {
    images: Vec<image::ImageBinding>,
    opengl: Vec<opengl::OpenGlBinding>,
    samplers: Vec<sampler::SplitSampler>,
    layer_counts: Vec<sampler::LayerCount>,
    warnings: Vec<compat::Warning>,
    aliases: Vec<Alias>,
    renumbered: Vec<dense::Renumbered>,
    coherent: Vec<(u32, u32)>,
    volatile: Vec<(u32, u32)>,
    push: Vec<push::PushBlock>,
    formatless: Vec<formatless::FormatlessImage>,
    words: Vec<words::WordBlock>,
    address_modes: Vec<integer_sampling::AddressModes>,
    packed: Vec<image::PackedArray>,
    forms: Vec<Form>,
    /// The compare-exchanges in atomport's own retry loops.
    weak_compare_exchanges: compswap::Ordinals,
}

/// The passes that address memory anew: buffer references into the
/// arena, and buffers made words. For WebGPU, which binds a written
/// buffer once per dispatch, blocks declared at one binding share one array
/// of words there, and buffer references' memory has one view.
fn memory_passes(
    m: &mut model::Model,
    web: bool,
    volatile: &[rspirv::spirv::Word],
    found: &mut SpirvOutcome,
) -> Result<float::WordLoops> {
    let shared = if web {
        alias::alias_classes(m, std::mem::take(&mut found.aliases))
    } else {
        Vec::new()
    };
    let (views, mut word_loops) = references::buffer_references(m, web)?;
    found.aliases.extend(views);
    let (word_blocks, more_loops) = words::word_addressed_memory(m, volatile, &shared)?;
    found.words = word_blocks;
    word_loops.extend(more_loops);
    Ok(word_loops)
}

/// Storage images held in texel buffers (every one for WebGPU), and for
/// WebGPU, image arrays held in one buffer where their texel buffers would
/// pass the storage buffers a stage may bind; returns the masked stores
/// of sub-word texels for the float pass.
fn texel_buffers(
    m: &mut model::Model,
    opts: &SourceOptions,
    split: &[arrays::SplitArray],
    found: &mut SpirvOutcome,
) -> Result<Vec<float::MaskedStore>> {
    let web = opts.target == front::Platform::WebGpu;
    let limit = opts.max_storage_buffers.unwrap_or(WEBGPU_STORAGE_BUFFERS);
    let (images, texel_stores, packed) = image::images_to_texel_buffers(
        m,
        opts.images_as_texel_buffers || web,
        web.then_some((split, limit)),
        &found.formatless,
        fault::active(fault::Fault::SwappedImageAxes),
    )?;
    found.images = images;
    found.packed = packed;
    Ok(texel_stores)
}

/// WebGPU's default `maxStorageBuffersPerShaderStage`.
const WEBGPU_STORAGE_BUFFERS: u32 = 8;

/// Runs every pass over SPIR-V words; `opts.dialect` of
/// [`Dialect::OpenGl`](crate::front::Dialect) runs the OpenGL binding pass
/// (glslang's output for OpenGL GLSL), which marks the resources named in
/// `unbound` (declarations without a binding) as bound automatically.
pub fn lower_spirv(words: &[u32], opts: &SourceOptions, unbound: &[String]) -> Result<Lowered> {
    let name = opts.display_name();
    let mut report = LowerReport::default();
    let (words, found) = spirv_passes(words, opts, unbound, &mut report)?;
    let mut module = front::spirv::to_naga(&words, name)?;
    let mut warnings = found.warnings;
    let (validated, wgsl, workgroup_split) = ir_passes(
        &mut module,
        opts,
        &found.weak_compare_exchanges,
        &mut report,
        &mut warnings,
    )?;
    log::debug!("{name}: {report:?}");
    Ok(Lowered {
        module,
        validated,
        wgsl,
        images: found.images,
        opengl: found.opengl,
        samplers: found.samplers,
        layer_counts: found.layer_counts,
        warnings,
        aliases: found.aliases,
        renumbered: found.renumbered,
        coherent: found.coherent,
        volatile: found.volatile,
        push: found.push,
        formatless: found.formatless,
        words: found.words,
        address_modes: found.address_modes,
        packed: found.packed,
        forms: found.forms,
        workgroup_split,
    })
}

/// The words, rewritten by the SPIR-V passes, and what they found.
fn spirv_passes(
    words: &[u32],
    opts: &SourceOptions,
    unbound: &[String],
    report: &mut LowerReport,
) -> Result<(Vec<u32>, SpirvOutcome)> {
    let name = opts.display_name();
    // rspirv's reader panics on some corrupt modules (e.g. a string length
    // past the end): guarded like naga.
    front::spirv::check_instruction_stream(words, name)?;
    let (words, local_size) = compat::execution_mode_ids(words).map_err(|e| match e {
        Error::Shader(m) => Error::shader(format!("{name}: {m}")),
        e => Error::Unsupported(format!("{name}: {e}")),
    })?;
    let words = compat::split_variadic_spec_constant_ops(&words);
    let mut m = model::Model::load(&words, name)?;
    m.check_ids(name)?;
    compat::strip_debug_lines(&mut m);
    compat::function_names_as_written(&mut m);
    // The caller's values: their errors name the value given, as given.
    spec::apply_specializations(&mut m, &opts.specializations)?;
    // Malformed SPIR-V that rspirv still reads could make a pass index out
    // of bounds: a panic in a pass becomes an internal error, never an abort.
    let unsupported = |e: Error| match e {
        Error::Internal(_) => e,
        Error::Shader(m) => Error::shader(format!("{name}: {m}")),
        e => Error::Unsupported(format!("{name}: {e}")),
    };
    let web = opts.target == front::Platform::WebGpu;
    guard("atomport's SPIR-V passes", || {
        let (warnings, qualified) = compat::relax_memory_model(&mut m)?;
        let mut found = SpirvOutcome {
            warnings,
            ..SpirvOutcome::default()
        };
        found.warnings.extend(printf::drop_debug_printf(&mut m));
        found
            .warnings
            .extend(compat::drop_reconvergence_modes(&mut m));
        amd::lower_amd_extensions(&mut m)?;
        refuse::ray_queries(&m)?;
        compat::copy_logical(&mut m)?;
        compat::copy_opaque_values(&mut m)?;
        resource_args::specialize_resource_arguments(&mut m)?;
        fall_through::copy_fall_through_cases(&mut m)?;
        // Unused globals go before anything complains about their kind;
        // under OpenGL's rules after the numbering, which counts them.
        if opts.dialect == Some(front::Dialect::OpenGl) {
            found.opengl = opengl::assign_bindings(&mut m, unbound)?;
            compat::remove_unused_globals(&mut m);
        } else {
            compat::remove_unused_globals(&mut m);
            found.aliases = alias::alias_shared_bindings(&mut m)?;
        }
        if array_switch::switch_dynamic_indices(&mut m, opts.binding_arrays && !web)? > 0 {
            found.forms.push(Form::ArraySwitches);
        }
        let split = arrays::split_resource_arrays(&mut m)?;
        arrays::uniforms_apart_from_binding_arrays(&mut m);
        found.renumbered = dense::dense_bindings(&mut m, &mut found.aliases);
        if web {
            dense::dense_groups(
                &mut m,
                &mut found.aliases,
                &mut found.renumbered,
                dense::WEBGPU_BIND_GROUPS,
            )?;
        }
        found.push = push::push_constants_to_buffers(&mut m)?;
        let mut word_loops = memory_passes(&mut m, web, &qualified.volatile, &mut found)?;
        halfs::lower_halfs(&mut m)?;
        narrow::lower_narrow_integers(&mut m)?;
        compat::match_bit_query_types(&mut m)?;
        misread::rewrite_misread_instructions(&mut m)?;
        builtins::lower_builtins(&mut m)?;
        compat::split_wide_bitcasts(&mut m)?;
        non_finite::non_finite_values(&mut m)?;
        arb_subgroup::lower_arb_subgroup_operations(&mut m)?;
        clustered::lower_clustered_reductions(&mut m)?;
        subgroup::lower_subgroup_operations(&mut m)?;
        subgroup::lower_subgroup_masks(&mut m)?;
        subgroup_bool::lower_boolean_subgroup_operations(&mut m)?;
        if web && one_lane::one_lane_subgroups(&mut m)? > 0 {
            found.warnings.push(compat::Warning::new(
                ONE_LANE_SUBGROUPS,
                one_lane::GLSL_WORDS,
            ));
        }
        buffer_textures::buffer_textures_to_images(&mut m, &opts.buffer_texture_formats)?;
        found.formatless = formatless::formatless_storage_images(&mut m)?;
        refuse::two_row_matrices_with_wide_columns(&m)?;
        found.samplers = sampler::split_combined_samplers(&mut m)?;
        sampler::declare_coordinate_types(&mut m);
        found.address_modes = integer_sampling::integer_sampling_as_fetches(&mut m)?;
        refuse::integer_sampling(&m)?;
        sampler::explicit_lod_sampling(&mut m)?;
        sampler::outline_binding_array_accesses(&mut m)?;
        compat::match_atomic_operand_types(&mut m)?;
        let specs = spec::specialization_constants(&m);
        report.folded_spec_constants = spec::fold_specialization_constants(&mut m, local_size)?;
        // Folding can make infinities (`BIG * 4.0`); so can arithmetic on
        // an override when the pipeline is created.
        non_finite::non_finite_values(&mut m)?;
        spec::constants_at_run_time(&mut m, &specs)?;
        word_loops
            .stores
            .extend(texel_buffers(&mut m, opts, &split, &mut found)?);
        // After the image pass: images it made texel buffers answer their
        // sizes themselves.
        found.layer_counts = sampler::array_sizes_from_overrides(&mut m)?;
        report.vector_sites = vector::scalarize_vector_atomics(&mut m)?;
        report.padded_arrays = std140::pad_strided_arrays(&mut m)?;
        // Native float atomics cover storage buffers; shared memory is
        // always emulated.
        let floats =
            float::emulate_float_atomics(&mut m, !opts.native_float_atomics || web, &word_loops)?;
        report.float_sites = floats.sites;
        if floats.sites > 0 && (!opts.native_float_atomics || web) {
            found.forms.push(Form::FloatAtomicLoops);
        }
        copies::member_wise_copies(&mut m)?;
        refuse::aggregate_copies_of_atomics(&m)?;
        if (web || opts.int64_pairs) && wide_ints::lower_wide_integers(&mut m)? > 0 {
            found.forms.push(Form::Int64Pairs);
        }
        if log::log_enabled!(log::Level::Trace) {
            use rspirv::binary::Disassemble;
            log::trace!(
                "SPIR-V after the SPIR-V passes:\n{}",
                m.module().disassemble()
            );
        }
        // The coherent and volatile variables' final bindings.
        let slots = |vars: &[rspirv::spirv::Word]| -> Vec<(u32, u32)> {
            vars.iter()
                .filter_map(|&v| {
                    let binding = m.decoration(v, rspirv::spirv::Decoration::Binding)?;
                    let set = m.decoration(v, rspirv::spirv::Decoration::DescriptorSet);
                    Some((set.unwrap_or(0), binding))
                })
                .collect()
        };
        found.coherent = slots(&qualified.coherent);
        found.volatile = slots(&qualified.volatile);
        let words = m.assemble()?;
        found.weak_compare_exchanges = compswap::Ordinals::of(&words, &floats.weak);
        Ok((words, found))
    })
    .map_err(unsupported)
}

/// The original module made bindable through wgpu, for running it natively
/// beside the translation (wgpu's passthrough shaders on Vulkan): only the
/// passes that change bindings run — the caller's specialization values
/// written as the defaults, unused globals dropped, OpenGL's binding numbers
/// (or blocks sharing a binding moved apart) and combined samplers split
/// into a texture and a sampler (wgpu binds no combined ones), and for the
/// WebGPU target its sets fitted into four bind groups — so that its
/// bindings are the translation's. Everything else is the compiler's.
pub fn native_spirv(words: &[u32], opts: &SourceOptions, unbound: &[String]) -> Result<Vec<u32>> {
    let name = opts.display_name();
    front::spirv::check_instruction_stream(words, name)?;
    // rspirv places no OpExecutionModeId: set aside, put back after.
    let (words, modes_by_id) = compat::take_execution_mode_ids(words);
    let words = compat::split_variadic_spec_constant_ops(&words);
    let mut m = model::Model::load(&words, name)?;
    m.check_ids(name)?;
    guard("atomport's SPIR-V passes", || {
        spec::apply_specializations(&mut m, &opts.specializations)?;
        if opts.dialect == Some(front::Dialect::OpenGl) {
            opengl::assign_bindings(&mut m, unbound)?;
            compat::remove_unused_globals(&mut m);
        } else {
            compat::remove_unused_globals(&mut m);
            // The WebGPU target serves blocks declared at one binding from
            // one binding: the original keeps them there too (Vulkan binds
            // one buffer to both).
            if opts.target != front::Platform::WebGpu {
                alias::alias_shared_bindings(&mut m)?;
            }
        }
        // wgpu gives buffers no device addresses to pass the original; a
        // reference type a shared header declared and the kernel never
        // used went with the unused globals, and its addressing with it.
        if references::has_reference_types(&m) {
            return Err(Error::NoNative(
                "the shader uses buffer references, and wgpu gives buffers no device addresses to run the original with".into(),
            ));
        }
        references::logical_addressing(&mut m);
        let web = opts.target == front::Platform::WebGpu;
        array_switch::switch_dynamic_indices(&mut m, opts.binding_arrays && !web)?;
        arrays::split_resource_arrays(&mut m)?;
        arrays::uniforms_apart_from_binding_arrays(&mut m);
        dense::dense_bindings(&mut m, &mut []);
        // The translation's bind groups, so that one set of bindings
        // serves both runs.
        if opts.target == front::Platform::WebGpu {
            dense::dense_groups(&mut m, &mut [], &mut Vec::new(), dense::WEBGPU_BIND_GROUPS)?;
        }
        // WebGPU binds no buffer texture: the original reads one as the
        // read-only storage image of its format (the translation's own
        // rewrite, so a native run checks all but that: `texelFetch` and
        // `imageLoad` give a texel of one format alike).
        resource_args::specialize_resource_arguments(&mut m)?;
        buffer_textures::buffer_textures_to_images(&mut m, &opts.buffer_texture_formats)?;
        sampler::split_combined_samplers(&mut m)?;
        // WebGPU binds no cube, buffer or 1D-array storage texture: the
        // original gets images of shapes it binds, addressed alike.
        spirv::native_shapes::cube_images_as_face_arrays(&mut m)?;
        spirv::native_shapes::buffer_and_1d_array_images(&mut m)?;
        // Elements of a split array the shader never reads are not bound
        // (naga drops them from the translation).
        compat::remove_unused_globals(&mut m);
        Ok(compat::put_execution_mode_ids(&m.assemble()?, &modes_by_id))
    })
}

/// The IR passes over naga's module, then validation and WGSL; with the
/// factor its workgroups were split by.
fn ir_passes(
    module: &mut naga::Module,
    opts: &SourceOptions,
    weak: &compswap::Ordinals,
    report: &mut LowerReport,
    warnings: &mut Vec<compat::Warning>,
) -> Result<(front::features::Validated, String, [u32; 3])> {
    let (name, target) = (opts.display_name(), opts.target);
    let unsupported = |e: Error| match e {
        Error::Internal(_) => e,
        Error::Shader(m) => Error::shader(format!("{name}: {m}")),
        e => Error::Unsupported(format!("{name}: {e}")),
    };
    writeonly_storage_readable(module);
    ir::predeclared_results(module);
    ir::comparison_sampler_parameters(module);
    ir::access::storage_image_access(module);
    ir::buffer_binding_arrays(module);
    binding_array_accesses(module);
    storage_array_access(module);
    barriers_without_textures(module);
    ir::privates::uniform_privates(module);
    warnings.extend(guard("atomport's uniformity pass", || {
        Ok(uniformity::barriers_in_uniform_control_flow(module))
    })?);
    report.strong_compare_exchanges = guard("atomport's compare-exchange pass", || {
        if fault::active(fault::Fault::SpuriousCompareExchange) {
            compswap::spurious_failures(module)
        } else {
            compswap::strong_compare_exchange(module, weak)
        }
    })
    .map_err(unsupported)?;
    literals::fold_literal_conversions(module);
    for steps in [1, 100_000] {
        if fault::active(fault::Fault::NudgedFloatLiterals { steps }) {
            fault::nudge_float_literals(module, steps);
        }
    }
    // Drop what the reader left unused (the pre-upgrade copies of atomic structs).
    guard("naga's compaction", || {
        naga::compact::compact(module, naga::compact::KeepUnused::No);
        Ok(())
    })?;
    // Browsers grant WebGPU's default workgroup limits unless asked.
    let mut workgroup_split = [1; 3];
    if target == front::Platform::WebGpu {
        let (split, kept) = ir::workgroups::split_workgroups(module);
        workgroup_split = split;
        warnings.extend(kept.map(|why| compat::Warning::new(why, &["local_size_x"])));
    }
    // The input got through every pass but WGSL has no valid form for what
    // came out (a malformed or unusual module, or a gap in a pass): said as
    // such, not as a bug of the input's making.
    let no_wgsl = |e: Error| Error::Unsupported(format!("no valid WGSL for this shader: {e}"));
    let validate = |m: &naga::Module| front::features::validate(m, None, name).map_err(no_wgsl);
    let mut validated = validate(module)?;
    report.padded_structs = guard("atomport's layout pass", || {
        layout::match_natural_layout(module, &validated.info)
    })
    .map_err(unsupported)?;
    if report.padded_structs > 0 {
        validated = validate(module)?;
    }
    let too_deep = |f: &naga::Function| ir::outline::deepest(&f.body, 1) > ir::outline::LIMIT;
    if module.functions.iter().any(|(_, f)| too_deep(f))
        || module.entry_points.iter().any(|e| too_deep(&e.function))
    {
        report.outlined_blocks = guard("atomport's outlining pass", || {
            ir::outline::outline_deep_blocks(module, |m| front::validate(m, None, name))
        })
        .map_err(no_wgsl)?;
        naga::compact::compact(module, naga::compact::KeepUnused::No);
        validated = validate(module)?;
    }
    let wgsl = guard("naga's WGSL writer", || {
        naga::back::wgsl::write_string(
            module,
            &validated.info,
            naga::back::wgsl::WriterFlags::empty(),
        )
        .map_err(|e| Error::Unsupported(format!("{name}: WGSL has no form for this module: {e}")))
    })?;
    warnings.extend(nesting(&wgsl, name, target)?);
    // Natively the runtime compiles the module, so the text is read back
    // only where it leaves atomport (browsers compile it).
    if opts.verify_wgsl || target == front::Platform::WebGpu {
        warnings.extend(reads_back(&wgsl, name)?);
    }
    Ok((validated, wgsl, workgroup_split))
}

/// The limit WGSL sets on nested statements in a function (127, which
/// Chromium's compiler reaches at 63 braces: it counts an `if` and its
/// block both), checked on the text as written as 63 braces. Blocks
/// nested past it were moved into functions
/// ([`ir::outline`]); what is still past it (a block that cannot move: a
/// loop's continuing, ray queries, more than 255 values to pass) is
/// natively a warning (the runtime compiles the module), for the WebGPU
/// target, whose browsers compile the text, a refusal.
fn nesting(wgsl: &str, name: &str, target: front::Platform) -> Result<Option<compat::Warning>> {
    const BRACE_NESTING_MAXIMUM: usize = 63;
    let mut depth = 0usize;
    let mut deepest = 0usize;
    // naga writes no braces in comments, and WGSL has no strings: every
    // brace of the text is one of a block (or of a struct, at depth 1).
    // One pass over the bytes, a `//` comment skipped to its line's end.
    let bytes = wgsl.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(bytes.len(), |n| i + n);
            }
            _ => {}
        }
        i += 1;
    }
    if deepest <= BRACE_NESTING_MAXIMUM {
        return Ok(None);
    }
    let what = "the shader nests its blocks past the 63 braces WGSL's compilers accept (127 levels of statements)";
    if target == front::Platform::WebGpu {
        return Err(Error::Unsupported(format!(
            "{name}: {what}, and browsers compile the text: nest fewer blocks (move \
             the inner ones into functions)"
        )));
    }
    Ok(Some(compat::Warning::new(
        format!(
            "{what}: atomport's runtime compiles the module, but a host that compiles \
             the WGSL text may refuse it"
        ),
        &[],
    )))
}

/// The WGSL text atomport gives out parses and validates back: a host that
/// ships the text (a build script, `translate`, a browser) never gets
/// invalid WGSL. Text that does not is atomport's bug, and said as one.
/// Text nested past naga's parser's recursion limit is valid WGSL all the
/// same: a warning says so (atomport's runtime compiles the module, never
/// the text).
fn reads_back(wgsl: &str, name: &str) -> Result<Option<compat::Warning>> {
    let module = match front::wgsl::parse(wgsl, name) {
        Ok(m) => m,
        Err(e) if e.to_string().contains("recursion limit") => {
            return Ok(Some(compat::Warning::new(
                "the WGSL nests deeper than naga's WGSL parser reads (its recursion limit): \
                 atomport's runtime compiles it, but a host that compiles the text may refuse it",
                &[],
            )));
        }
        Err(e) => {
            return Err(Error::Internal(format!(
                "the WGSL written for {name} does not parse back: {e}"
            )));
        }
    };
    front::validate(&module, Some(wgsl), name).map_err(|e| {
        Error::Internal(format!(
            "the WGSL written for {name} does not validate back: {e}"
        ))
    })?;
    Ok(None)
}
