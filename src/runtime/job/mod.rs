//! A job: the resources that specs (`atomport run`'s `--buffer`,
//! `--image`, `--texture`, `--sampler`, `--uniform`, `--push`, `--counter`)
//! describe, made for a kernel's bindings and run ([`run`], and
//! [`run_async`] where nothing may block, as in a browser). The flags are
//! [`Resources::from_flags`]; each value is read by its spec's `FromStr`
//! ([`spec`]).

pub use crate::front::annotations;
pub mod spec;

pub use annotations::Annotations;

use crate::runtime::run::{AddressableOutput, RunOutput};
use crate::runtime::texture::format_name;
use crate::{
    Arena, Bind, BindingInfo, BindingKind, Buffer, Context, ElementType, Error, Image, ImageDesc,
    Kernel, Region, Resource, Result, Sampler, Target, Texture, Uniforms,
};

use spec::{
    BindingRef, BufferArg, CounterArg, ImageArg, SamplerArg, Slot, TextureArg, TextureInit,
    UniformArg, address_name, parse_fill, texture_format,
};

/// Everything a job creates for the kernel's bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    /// `--buffer`s.
    pub buffers: Vec<BufferArg>,
    /// `--image`s.
    pub images: Vec<ImageArg>,
    /// `--uniform`s: the uniform blocks not given as buffers are made from
    /// these and the shader's initializers.
    pub uniforms: Vec<UniformArg>,
    /// `--push`es: the push-constant block, unless given as a buffer.
    pub push: Vec<UniformArg>,
    /// `--counter`s: atomic-counter buffers not given as buffers start at
    /// zero except for these.
    pub counters: Vec<CounterArg>,
    /// `--texture`s.
    pub textures: Vec<TextureArg>,
    /// `--sampler`s.
    pub samplers: Vec<SamplerArg>,
}

/// A resource a job made, with where it binds.
enum Made {
    /// A buffer and the type its spec wrote it as (none for `@FILE`).
    Buffer(Buffer, Option<ElementType>),
    /// The arena of the `--buffer @NAME`s, with the type each spec wrote.
    Arena(Arena, Vec<Option<ElementType>>),
    Image(Image),
    Texture(Texture),
    Sampler(Sampler),
}

impl Resources {
    /// The resources of `atomport run`'s flags as one list (`--buffer`,
    /// `B=SPEC`, `--image`, …; a flag and its value as two items, or as
    /// `--flag=value`), with `--groups X[,Y[,Z]]` (1,1,1 when not given).
    /// What no job flag names is refused, naming it.
    pub fn from_flags<S: AsRef<str>>(flags: &[S]) -> Result<(Resources, [u32; 3])> {
        let mut res = Resources::default();
        let mut groups = [1, 1, 1];
        let mut items = flags.iter().map(AsRef::as_ref);
        while let Some(flag) = items.next() {
            let (flag, value) = match flag.split_once('=').filter(|(f, _)| f.starts_with("--")) {
                Some((f, v)) => (f, v),
                None => (
                    flag,
                    items
                        .next()
                        .ok_or_else(|| Error::Spec(format!("{flag} needs a value")))?,
                ),
            };
            let named = |e: Error| Error::Spec(format!("{flag} {value}: {e}"));
            match flag {
                "--buffer" => res.buffers.push(value.parse().map_err(named)?),
                "--image" => res.images.push(value.parse().map_err(named)?),
                "--uniform" => res.uniforms.push(value.parse().map_err(named)?),
                "--push" => res.push.push(value.parse().map_err(named)?),
                "--counter" => res.counters.push(value.parse().map_err(named)?),
                "--texture" => res.textures.push(value.parse().map_err(named)?),
                "--sampler" => res.samplers.push(value.parse().map_err(named)?),
                "--groups" => groups = spec::parse_groups(value).map_err(Error::Spec)?,
                _ => {
                    return Err(Error::Spec(format!(
                        "`{flag}` is not a job flag (--buffer, --image, --texture, --sampler, --uniform, --push, --counter, --groups)"
                    )));
                }
            }
        }
        Ok((res, groups))
    }
}

/// Creates the buffers, images, uniform blocks and counter buffers the
/// specs describe, dispatches `groups` workgroups of `kernel` (its
/// translation, or with `native` its original SPIR-V:
/// [`Context::run_native`]) and reads every binding back.
pub fn run(
    ctx: &Context,
    kernel: &Kernel,
    groups: [u32; 3],
    res: &Resources,
    native: bool,
) -> Result<RunOutput> {
    let made = make(ctx, kernel, res)?;
    let binds = binds_of(&made);
    let out = if native {
        ctx.run_native(kernel, groups, &binds)?
    } else {
        ctx.run(kernel, groups, &binds)?
    };
    Ok(shown_as_written(out, &made))
}

/// [`run`] of the translation without blocking: in a browser, where
/// nothing may, the only form that runs.
pub async fn run_async(
    ctx: &Context,
    kernel: &Kernel,
    groups: [u32; 3],
    res: &Resources,
) -> Result<RunOutput> {
    let made = make(ctx, kernel, res)?;
    let binds = binds_of(&made);
    let out = ctx.run_async(kernel, groups, &binds).await?;
    Ok(shown_as_written(out, &made))
}

/// Where each made resource binds.
fn binds_of(made: &[(Slot, Made)]) -> Vec<Bind<'_>> {
    made.iter()
        .map(|(slot, m)| Bind {
            target: Target::Element {
                group: slot.group,
                binding: slot.binding,
                element: slot.element,
            },
            resource: match m {
                Made::Buffer(b, _) => Resource::Buffer(b),
                Made::Arena(a, _) => Resource::Buffer(a.buffer()),
                Made::Image(i) => Resource::Image(i),
                Made::Texture(t) => Resource::Texture(t),
                Made::Sampler(s) => Resource::Sampler(s),
            },
        })
        .collect()
}

/// A run's output with each buffer in the type its spec wrote (an aliased
/// buffer has several declared types; `@FILE` shows in the one its block
/// declares) and each addressable buffer by name, from the arena's bytes.
fn shown_as_written(mut out: RunOutput, made: &[(Slot, Made)]) -> RunOutput {
    for b in &mut out.bindings {
        let written = made.iter().find_map(|(slot, m)| match m {
            Made::Buffer(_, Some(ty)) if slot.group == b.group && slot.binding == b.binding => {
                Some(*ty)
            }
            _ => None,
        });
        if let Some(ty) = written {
            b.ty = Some(ty);
            b.data = crate::runtime::run::Data::from_elements(ty, &b.bytes);
        }
    }
    for (slot, m) in made {
        if let Made::Arena(arena, types) = m
            && let Some(b) = out
                .bindings
                .iter()
                .find(|b| (b.group, b.binding) == (slot.group, slot.binding))
        {
            out.addressable = arena
                .regions()
                .iter()
                .zip(types)
                .map(|(r, ty)| AddressableOutput::of(r, &b.bytes, ty.unwrap_or(ElementType::U32)))
                .collect();
        }
    }
    out
}

/// Where each `--buffer @NAME` goes in the arena, from the specs' lengths
/// (so that every address is known before any bytes are made).
fn arena_layout(kernel: &Kernel, res: &Resources) -> Result<Vec<Region>> {
    let mut lens: Vec<(&str, u64)> = Vec::new();
    for a in &res.buffers {
        if let BindingRef::Addressable(name) = &a.slot {
            lens.push((name.as_str(), a.init.byte_len()?));
        }
    }
    let references = kernel.binding_named(Arena::BINDING).is_ok();
    if let Some((name, _)) = lens.first().filter(|_| !references) {
        return Err(Error::Spec(format!(
            "--buffer @{name}: the kernel reaches no buffer by address (it declares no buffer_reference)"
        )));
    }
    if !lens.is_empty()
        && res
            .buffers
            .iter()
            .any(|a| a.slot == BindingRef::Name(Arena::BINDING.into()))
    {
        return Err(Error::Spec(format!(
            "--buffer {}: the arena is made of the --buffer @NAMEs given; give one or the other",
            Arena::BINDING
        )));
    }
    Arena::layout(&lens).map_err(|e| Error::Spec(format!("--buffer: {e}")))
}

/// The value of `@NAME`: the address of addressable buffer NAME.
fn address_of(regions: &[Region], name: &str) -> Result<u64> {
    match regions.iter().find(|r| r.name == name) {
        Some(r) => Ok(Arena::BASE + r.offset),
        None => {
            let names: Vec<String> = regions.iter().map(|r| format!("@{}", r.name)).collect();
            Err(Error::Spec(format!(
                "`@{name}` names no addressable buffer ({}; --buffer @{name}=SPEC makes one)",
                if names.is_empty() {
                    "none is given".to_string()
                } else {
                    format!("given: {}", names.join(", "))
                }
            )))
        }
    }
}

/// A `--uniform`/`--push` value with each `@NAME` component replaced by
/// the address it stands for: a `uint64_t` as one number, a `uvec2`
/// (`GL_EXT_buffer_reference_uvec2`) as its low and high words.
fn with_addresses(value: &str, ty: Option<&str>, regions: &[Region]) -> Result<String> {
    if !value.contains('@') {
        return Ok(value.to_string());
    }
    let parts = value
        .split(',')
        .map(|part| match address_name(part) {
            Some(name) => {
                let a = address_of(regions, name)?;
                Ok(if ty == Some("uvec2") {
                    format!("{},{}", a as u32, a >> 32)
                } else {
                    a.to_string()
                })
            }
            None => Ok(part.to_string()),
        })
        .collect::<Result<Vec<String>>>()?;
    Ok(parts.join(","))
}

/// Every resource the specs describe, made for the kernel's bindings; sizes
/// are checked before anything is allocated.
fn make(ctx: &Context, kernel: &Kernel, res: &Resources) -> Result<Vec<(Slot, Made)>> {
    // A spec naming a whole array of resources binds every element alike.
    let slot_name = |r: &BindingRef| match r {
        BindingRef::Name(n) => Some(n.clone()),
        BindingRef::Slot(_) | BindingRef::Addressable(_) => None,
    };
    let res = &Resources {
        buffers: per_element(
            kernel,
            &res.buffers,
            |a| slot_name(&a.slot),
            |a, n| BufferArg {
                slot: BindingRef::Name(n),
                ..a.clone()
            },
        )?,
        images: per_element(
            kernel,
            &res.images,
            |a| slot_name(&a.slot),
            |a, n| ImageArg {
                slot: BindingRef::Name(n),
                ..a.clone()
            },
        )?,
        textures: per_element(
            kernel,
            &res.textures,
            |a| slot_name(&a.slot),
            |a, n| TextureArg {
                slot: BindingRef::Name(n),
                ..a.clone()
            },
        )?,
        samplers: per_element(
            kernel,
            &res.samplers,
            |a| Some(a.name.clone()),
            |a, n| SamplerArg {
                name: n,
                ..a.clone()
            },
        )?,
        ..res.clone()
    };
    let limits = ctx.limits();
    let largest = limits
        .max_buffer_size
        .min(limits.max_storage_buffer_binding_size);
    let regions = arena_layout(kernel, res)?;
    if !regions.is_empty() {
        // Before any buffer's bytes are made.
        Arena::size(ctx, &regions)?;
    }
    let address = |name: &str| address_of(&regions, name);
    for a in res
        .buffers
        .iter()
        .filter(|a| !matches!(a.slot, BindingRef::Addressable(_)))
    {
        let len = a.init.byte_len()?;
        if len > largest {
            return Err(Error::Limit {
                what: format!("the buffer for {}, in bytes,", a.slot),
                value: len,
                limit_name: "max_storage_buffer_binding_size",
                limit: largest,
            });
        }
    }
    let mut made: Vec<(Slot, Made)> = Vec::new();
    let mut addressable: Vec<(Option<ElementType>, Vec<u8>)> = Vec::new();
    for a in &res.buffers {
        if let BindingRef::Addressable(name) = &a.slot {
            let (ty, bytes) = a.init.materialize(&address)?;
            // A file that changed size since its length placed the buffers.
            let placed = regions.iter().find(|r| &r.name == name).map(|r| r.len);
            if placed != Some(bytes.len() as u64) {
                return Err(Error::Spec(format!(
                    "--buffer @{name}: the file changed size while being read"
                )));
            }
            addressable.push((ty, bytes));
            continue;
        }
        let (slot, info) = a.slot.resolve(kernel)?;
        let (ty, bytes) = a.init.materialize(&address)?;
        let label = info.map_or_else(
            || format!("{}.{}", slot.group, slot.binding),
            BindingInfo::display_name,
        );
        made.push((
            slot,
            Made::Buffer(Buffer::from_bytes_labeled(ctx, &bytes, &label)?, ty),
        ));
    }
    if !regions.is_empty() {
        let (slot, _) = BindingRef::Name(Arena::BINDING.into()).resolve(kernel)?;
        let buffers: Vec<(&str, &[u8])> = regions
            .iter()
            .zip(&addressable)
            .map(|(r, (_, b))| (r.name.as_str(), b.as_slice()))
            .collect();
        let arena = Arena::new(ctx, &buffers)?;
        made.push((
            slot,
            Made::Arena(arena, addressable.into_iter().map(|(t, _)| t).collect()),
        ));
    }
    for a in &res.images {
        made.push(image(ctx, kernel, a, largest)?);
    }
    for a in &res.textures {
        let (slot, info) = a.slot.resolve(kernel)?;
        let info = info.ok_or(Error::UnusedBinding {
            group: slot.group,
            binding: slot.binding,
        })?;
        made.push((slot, Made::Texture(sampled_texture(ctx, info, a)?)));
    }
    samplers(ctx, kernel, &res.samplers, &mut made)?;
    let given = |info: &BindingInfo| {
        made.iter()
            .any(|(s, _)| s.group == info.group && s.binding == info.binding)
    };
    let extra: Vec<_> = uniform_blocks(kernel, &res.uniforms, &given, &regions)?
        .into_iter()
        .chain(counter_buffers(kernel, &res.counters, &given)?)
        .chain(push_block(kernel, &res.push, &given, &regions)?)
        .collect();
    for (info, bytes) in extra {
        made.push((
            Slot {
                group: info.group,
                binding: info.binding,
                element: 0,
            },
            Made::Buffer(
                Buffer::from_bytes_labeled(ctx, &bytes, &info.display_name())?,
                None,
            ),
        ));
    }
    Ok(made)
}

/// The elements (`NAME[0]`, `NAME[1]`, …) of the resource array `name`
/// that the kernel binds, in order (of an array it split into bindings, or
/// of a binding array of fixed length); none when `name` is a single
/// binding. A binding array without a size has no "every element": naming
/// it whole is an error.
fn array_elements(kernel: &Kernel, name: &str) -> Result<Vec<String>> {
    let array = kernel.bindings().iter().find_map(|b| {
        let named = b.name.as_deref() == Some(name) || b.combined.as_deref() == Some(name);
        b.array.filter(|_| named)
    });
    match array {
        Some(crate::ArrayLength::Fixed(n)) => {
            return Ok((0..n).map(|k| format!("{name}[{k}]")).collect());
        }
        Some(crate::ArrayLength::Unsized) => {
            return Err(Error::Spec(format!(
                "`{name}` is an array without a size: bind its elements one by one, as {name}[0]=…, {name}[1]=…"
            )));
        }
        None => {}
    }
    if kernel.binding_named(name).is_ok() {
        return Ok(Vec::new());
    }
    let mut found: Vec<(u32, String)> = kernel
        .bindings()
        .iter()
        .flat_map(|b| [b.name.as_deref(), b.combined.as_deref()])
        .flatten()
        .filter_map(|n| {
            let (base, k) = crate::Kernel::split_element(n)?;
            (base == name).then(|| (k, n.to_string()))
        })
        .collect();
    found.sort();
    found.dedup();
    Ok(found.into_iter().map(|(_, n)| n).collect())
}

/// `args`, each one that names a whole resource array replaced by one per
/// element (`with` makes the element's copy) but those given on their own.
fn per_element<T: Clone>(
    kernel: &Kernel,
    args: &[T],
    name: impl Fn(&T) -> Option<String>,
    with: impl Fn(&T, String) -> T,
) -> Result<Vec<T>> {
    let named: Vec<String> = args.iter().filter_map(&name).collect();
    let mut out = Vec::new();
    for a in args {
        let elements = match name(a) {
            Some(n) => array_elements(kernel, &n)?,
            None => Vec::new(),
        };
        if elements.is_empty() {
            out.push(a.clone());
        }
        out.extend(
            elements
                .into_iter()
                .filter(|e| !named.contains(e))
                .map(|e| with(a, e)),
        );
    }
    Ok(out)
}

/// The image (or storage texture) an `--image` spec describes.
fn image(ctx: &Context, kernel: &Kernel, a: &ImageArg, largest: u64) -> Result<(Slot, Made)> {
    let (slot, info) = a.slot.resolve(kernel)?;
    let info = info.ok_or(Error::UnusedBinding {
        group: slot.group,
        binding: slot.binding,
    })?;
    if info.kind == BindingKind::StorageTexture {
        // A storage image of an ordinary format: a storage texture.
        return Ok((slot, Made::Texture(storage_texture(ctx, info, a)?)));
    }
    let shape = info.image.ok_or_else(|| {
        Error::Spec(format!(
            "--image {}.{}: binding `{}` is a {} in the kernel, not an image",
            slot.group,
            slot.binding,
            info.display_name(),
            info.kind.describe()
        ))
    })?;
    if let Some(f) = a
        .format
        .as_deref()
        .filter(|f| crate::ImageFormat::parse(f) != Some(shape.format))
    {
        // A buffer texture's format is the translation's to choose.
        let hint = match shape.dim {
            crate::ImageDim::Buffer => format!(
                " (a samplerBuffer's format is chosen at translation: --buffer-format {}={f})",
                info.display_name()
            ),
            _ => String::new(),
        };
        return Err(Error::Spec(format!(
            "--image {}: the shader declares `{}` as {}, not {f}{hint}",
            a.slot,
            info.display_name(),
            shape.format.name()
        )));
    }
    let desc = ImageDesc::new(shape.dim, shape.format, &a.size, a.samples)
        .map_err(|e| Error::Spec(format!("--image {}.{}: {e}", slot.group, slot.binding)))?;
    if desc.buffer_len() > largest {
        return Err(Error::Limit {
            what: format!("the image for {}, in bytes,", a.slot),
            value: desc.buffer_len(),
            limit_name: "max_storage_buffer_binding_size",
            limit: largest,
        });
    }
    let (n, bits, _) = shape.format.layout();
    let image = match &a.fill {
        // 64-bit texels take a 64-bit value.
        Some(v) if bits == 64 => Image::filled(ctx, desc, shape.format.parse_value(v)?)?,
        // One 32-bit channel: the value as its type reads it (hex, exact).
        Some(v) if n == 1 && bits == 32 => {
            Image::filled(ctx, desc, shape.format.scalar().parse_value(v)?)?
        }
        // Other formats: one value, or one per channel, encoded as stored.
        Some(v) => {
            let values =
                parse_fill(v).map_err(|e| Error::Spec(format!("--image {}: {e}", a.slot)))?;
            let mut c = [0.0; 4];
            match values[..] {
                [one] => c = [one; 4],
                _ if values.len() == n as usize => c[..values.len()].copy_from_slice(&values),
                _ => {
                    return Err(Error::Spec(format!(
                        "--image {}: fill has {} values; {} has {n} channel(s) (or give one value for all)",
                        a.slot,
                        values.len(),
                        shape.format.name()
                    )));
                }
            }
            let texel = crate::runtime::texture::encode_texel(shape.format.texture_format(), c)
                .map_err(|e| Error::Spec(format!("--image {}: {e}", a.slot)))?;
            let bytes: Vec<u8> = texel
                .iter()
                .copied()
                .cycle()
                .take(desc.texel_bytes())
                .collect();
            Image::from_texels(ctx, desc, &bytes)?
        }
        None => Image::zeroed(ctx, desc)?,
    };
    Ok((slot, Made::Image(image)))
}

/// The sampler a `--sampler` spec describes, at the binding it names; none
/// for a combined sampler read only by texelFetch (it uses no sampler).
fn sampler(ctx: &Context, kernel: &Kernel, a: &SamplerArg) -> Result<Option<(Slot, Made)>> {
    // `NAME[k]`: element k of a binding array of samplers (or of the
    // samplers a combined sampler array was split into).
    let (base, element) = match crate::Kernel::split_element(&a.name) {
        Some((base, k)) if kernel.binding_named(&a.name).is_err() => (base, Some(k)),
        _ => (a.name.as_str(), None),
    };
    let found = kernel.bindings().iter().find(|b| {
        b.kind == BindingKind::Sampler
            && b.array.is_some() == element.is_some()
            && (b.name.as_deref() == Some(base) || b.combined.as_deref() == Some(base))
    });
    let found = match (found, element) {
        (None, Some(_)) => kernel.bindings().iter().find(|b| {
            b.kind == BindingKind::Sampler
                && (b.name.as_deref() == Some(a.name.as_str())
                    || b.combined.as_deref() == Some(a.name.as_str()))
        }),
        (found, _) => found,
    };
    let element = element.filter(|_| found.is_some_and(|b| b.array.is_some()));
    if let (Some(k), Some(crate::ArrayLength::Fixed(n))) = (element, found.and_then(|b| b.array))
        && k >= n
    {
        return Err(Error::UnknownName(format!(
            "--sampler {}: the array `{base}` has {n} elements (`{base}[0]` to `{base}[{}]`)",
            a.name,
            n - 1
        )));
    }
    let texel_fetch_only = found.is_none()
        && kernel.bindings().iter().any(|b| {
            b.combined.as_deref() == Some(a.name.as_str())
                || (element.is_some() && b.combined.as_deref() == Some(base))
        });
    if texel_fetch_only {
        return Ok(None);
    }
    let info = found.ok_or_else(|| {
        Error::Spec(format!(
            "--sampler {}: the kernel has no sampler of that name (its bindings: {})",
            a.name,
            kernel.binding_names()
        ))
    })?;
    let slot = Slot {
        group: info.group,
        binding: info.binding,
        element: element.unwrap_or(0),
    };
    Ok(Some((slot, Made::Sampler(Sampler::new(ctx, a.desc)?))))
}

/// The `--sampler`s, then the default samplers of combined samplers given
/// a texture alone ([`default_samplers`]).
fn samplers(
    ctx: &Context,
    kernel: &Kernel,
    given: &[SamplerArg],
    made: &mut Vec<(Slot, Made)>,
) -> Result<()> {
    for a in given {
        if let Some(s) = sampler(ctx, kernel, a)? {
            made.push(s);
        }
    }
    for slot in default_samplers(kernel, made)? {
        let desc = crate::SamplerDesc::default();
        made.push((slot, Made::Sampler(Sampler::new(ctx, desc)?)));
    }
    Ok(())
}

/// The sampler halves of combined samplers (`sampler2D tex`) whose texture
/// was given and whose sampler was not: they get a nearest, clamping
/// sampler (`--sampler tex=nearest`), as `--help` says. A shadow sampler's
/// comparison has no default: the error names the flag that gives it.
fn default_samplers(kernel: &Kernel, made: &[(Slot, Made)]) -> Result<Vec<Slot>> {
    let given = |group, binding, element| {
        made.iter()
            .any(|(s, _)| (s.group, s.binding, s.element) == (group, binding, element))
    };
    let mut out = Vec::new();
    for sampler in kernel.bindings() {
        let Some(name) = sampler.combined.as_deref() else {
            continue;
        };
        if sampler.kind != BindingKind::Sampler {
            continue;
        }
        let texture = kernel.bindings().iter().find(|t| {
            t.kind == BindingKind::SampledTexture
                && t.group == sampler.group
                && t.combined.as_deref() == Some(name)
        });
        let Some(texture) = texture else { continue };
        for (slot, _) in made {
            if (slot.group, slot.binding) == (texture.group, texture.binding)
                && !given(sampler.group, sampler.binding, slot.element)
            {
                if sampler.comparison == Some(true) {
                    return Err(Error::Spec(format!(
                        "`{name}` is a shadow sampler, whose comparison has no default: give it with --sampler {name}=nearest,compare=lequal (or another compare=)"
                    )));
                }
                out.push(Slot {
                    group: sampler.group,
                    binding: sampler.binding,
                    element: slot.element,
                });
            }
        }
    }
    Ok(out)
}

fn default_format(info: &BindingInfo) -> wgpu::TextureFormat {
    match info.texture.as_ref().map(|t| t.sample) {
        Some("uint") => wgpu::TextureFormat::Rgba32Uint,
        Some("sint") => wgpu::TextureFormat::Rgba32Sint,
        Some("depth") => wgpu::TextureFormat::Depth32Float,
        _ => wgpu::TextureFormat::Rgba8Unorm,
    }
}

/// The texels of mip `level` of a texture made from `size`, `fill` and
/// `iota`, whose count starts at `start` (the texels of the levels before).
fn texel_data(
    desc: &crate::TextureDesc,
    level: u32,
    start: usize,
    fill: Option<&[f64]>,
    iota: bool,
) -> Result<Vec<u8>> {
    let texels = (desc.level_bytes(level) / u64::from(desc.texel_bytes().unwrap_or(4))) as usize;
    let channels = crate::runtime::texture::channels(desc.format).unwrap_or(1);
    let base: [f64; 4] = match fill {
        Some([v]) => [*v; 4],
        Some(vs) => {
            if vs.len() != channels {
                return Err(Error::Spec(format!(
                    "fill has {} values; {} has {channels} channel(s) (or give one value for all)",
                    vs.len(),
                    format_name(desc.format)
                )));
            }
            let mut b = [0.0; 4];
            b[..vs.len()].copy_from_slice(vs);
            b
        }
        None => [0.0; 4],
    };
    // Depth lies in 0..1 (depth32float too): iota counts as in a
    // normalized channel.
    let normalized =
        crate::runtime::texture::normalized(desc.format) || desc.format.is_depth_stencil_format();
    let mut out = Vec::with_capacity(texels * desc.texel_bytes().unwrap_or(4) as usize);
    for i in 0..texels {
        let mut v = base;
        if iota {
            v[0] = iota_value(desc.format, normalized, start + i);
        }
        out.extend(crate::runtime::texture::encode_texel(desc.format, v)?);
    }
    Ok(out)
}

/// Texel `i`'s first channel under `iota`: `i`, wrapping where the channel
/// cannot hold it — normalized channels `i / 255` wrapping at 256 (exact in
/// 8 bits), narrow integer channels in their range (0..2ⁿ, or 0..2ⁿ⁻¹ for
/// signed ones, so that the values stay non-negative).
fn iota_value(format: wgpu::TextureFormat, normalized: bool, i: usize) -> f64 {
    if normalized {
        return (i % 256) as f64 / 255.0;
    }
    let bits = crate::runtime::texture::channel_bits(format).unwrap_or(32);
    let range = match crate::runtime::texture::integer_channels(format) {
        Some(signed) if bits < 32 + u32::from(signed) => 1u64 << (bits - u32::from(signed)),
        _ => return i as f64,
    };
    (i as u64 % range) as f64
}

/// A sampled texture for `info` from a `--texture` spec.
fn sampled_texture(ctx: &Context, info: &BindingInfo, a: &TextureArg) -> Result<Texture> {
    let flag = |e: Error| Error::Spec(format!("--texture {}: {e}", a.slot));
    let want = info.texture.as_ref().ok_or_else(|| {
        Error::Spec(format!(
            "--texture {}: binding `{}` is a {} in the kernel, not a texture",
            a.slot,
            info.display_name(),
            info.kind.describe()
        ))
    })?;
    let dim = want.dim.ok_or_else(|| {
        Error::Spec(format!(
            "--texture {}: atomport makes no multisampled textures",
            a.slot
        ))
    })?;
    match &a.init {
        TextureInit::Png(path) => {
            if dim != crate::TextureDim::D2 {
                return Err(Error::Spec(format!(
                    "--texture {}: a PNG makes a 2d texture; the shader declares {}",
                    a.slot,
                    dim.name()
                )));
            }
            #[cfg(feature = "png")]
            {
                let (w, h, format, data) = crate::runtime::texture::read_png(path)?;
                let desc = crate::TextureDesc::new(dim, format, &[w, h], 1).map_err(flag)?;
                Texture::from_data(ctx, desc, &data)
            }
            #[cfg(not(feature = "png"))]
            Err(Error::Spec(format!(
                "--texture {}: {} is a PNG file, which needs atomport's `png` feature",
                a.slot,
                path.display()
            )))
        }
        TextureInit::Make {
            size,
            format,
            fill,
            iota,
            mips,
        } => {
            let format = format.unwrap_or_else(|| default_format(info));
            let desc = crate::TextureDesc::new(dim, format, size, *mips).map_err(flag)?;
            // Made first: its limits are checked before any texel is.
            let t = Texture::zeroed(ctx, desc)?;
            // Every level holds data: a kernel that reads a level past 0
            // (`texelFetch(t, p, level)`, a downsampler's source) reads
            // the values the spec gives, not zeros.
            let mut start = 0;
            for level in 0..*mips {
                let data = texel_data(&desc, level, start, fill.as_deref(), *iota).map_err(flag)?;
                start += data.len() / desc.texel_bytes().unwrap_or(4).max(1) as usize;
                t.write_level(ctx, level, &data)?;
            }
            Ok(t)
        }
    }
}

/// A storage texture for `info` from an `--image` spec.
fn storage_texture(ctx: &Context, info: &BindingInfo, a: &ImageArg) -> Result<Texture> {
    let flag = |e: Error| Error::Spec(format!("--image {}: {e}", a.slot));
    // A formatless image takes the format the spec gives.
    let from_host = info.texture.as_ref().is_some_and(|t| t.format_from_host);
    // The spec's format, by GLSL's or wgpu's name (the spec parser took
    // only names one of them has).
    let given = a.format.as_deref().and_then(texture_format);
    if from_host && given.is_none() {
        return Err(Error::Spec(format!(
            "--image {}: the shader declares `{}` without a format: give one (e.g. {}=64x64:rgba16float)",
            a.slot,
            info.display_name(),
            a.slot
        )));
    }
    let want = info.texture.as_ref().and_then(|t| {
        let format = if from_host {
            format_name(given?)
        } else {
            t.format.clone()?
        };
        Some((t.dim?, format))
    });
    let Some((dim, declared)) = want else {
        return Err(Error::Spec(format!(
            "--image {}: `{}` is a storage texture of a shape or format atomport cannot make",
            a.slot,
            info.display_name()
        )));
    };
    let format = crate::runtime::texture::parse_format(&declared).ok_or_else(|| {
        Error::Spec(format!(
            "--image {}: atomport cannot make a {declared} texture",
            a.slot
        ))
    })?;
    if let (Some(f), Some(g)) = (a.format.as_deref(), given)
        && g != format
    {
        return Err(Error::Spec(format!(
            "--image {}: the shader declares `{}` as {declared}, not {f}",
            a.slot,
            info.display_name()
        )));
    }
    if a.samples != 1 {
        return Err(flag(Error::Spec("storage textures have one sample".into())));
    }
    let desc = crate::TextureDesc::new(dim, format, &a.size, 1).map_err(flag)?;
    let fill = a
        .fill
        .as_deref()
        .map(parse_fill)
        .transpose()
        .map_err(flag)?;
    let t = Texture::zeroed(ctx, desc)?;
    if !t.is_storage() {
        return Err(Error::Spec(format!(
            "--image {}: the adapter cannot use {declared} as a storage texture",
            a.slot
        )));
    }
    if let Some(f) = fill {
        t.write_level(
            ctx,
            0,
            &texel_data(&desc, 0, 0, Some(&f), false).map_err(flag)?,
        )?;
    }
    Ok(t)
}

/// The type of member `name` of a block, for an `@NAME` value.
fn member_type<'i>(info: &'i BindingInfo, name: &str) -> Option<&'i str> {
    info.members
        .iter()
        .find(|m| m.name == name)
        .map(|m| m.ty.as_str())
}

/// The bytes of every uniform block not `given` as a buffer, from the
/// `--uniform`s and the shader's initializers; an `@NAME` value is the
/// address of an addressable buffer placed as `regions` say.
fn uniform_blocks<'k>(
    kernel: &'k Kernel,
    args: &[UniformArg],
    given: &dyn Fn(&BindingInfo) -> bool,
    regions: &[Region],
) -> Result<Vec<(&'k BindingInfo, Vec<u8>)>> {
    let blocks: Vec<&BindingInfo> = kernel
        .bindings()
        .iter()
        .filter(|b| b.kind == BindingKind::Uniform && !b.push_constant)
        .collect();
    let mut values: Vec<Uniforms> = blocks
        .iter()
        .map(|b| Uniforms::of(b))
        .collect::<Result<_>>()?;
    for a in args {
        let candidates: Vec<usize> = match &a.block {
            Some(block) => {
                let info = kernel.binding_named(block)?;
                blocks
                    .iter()
                    .position(|b| b.group == info.group && b.binding == info.binding)
                    .into_iter()
                    .collect()
            }
            None => (0..blocks.len())
                .filter(|&i| blocks[i].members.iter().any(|m| m.name == a.name))
                .collect(),
        };
        let i = match candidates[..] {
            [i] => i,
            [] => {
                let all: Vec<String> = blocks
                    .iter()
                    .flat_map(|b| b.members.iter().map(|m| format!("{} {}", m.ty, m.name)))
                    .collect();
                return Err(Error::Spec(format!(
                    "--uniform {}: the kernel has no uniform of that name (uniforms: {})",
                    a.name,
                    if all.is_empty() {
                        "none".to_string()
                    } else {
                        all.join(", ")
                    }
                )));
            }
            _ => {
                let names: Vec<String> = candidates
                    .iter()
                    .map(|&i| blocks[i].display_name())
                    .collect();
                return Err(Error::Spec(format!(
                    "--uniform {}: several uniform blocks have a member of that name ({}); write BLOCK.{}",
                    a.name,
                    names.join(", "),
                    a.name
                )));
            }
        };
        if given(blocks[i]) {
            return Err(Error::Spec(format!(
                "--uniform {}: block `{}` is given as a --buffer already",
                a.name,
                blocks[i].display_name()
            )));
        }
        let value = with_addresses(&a.value, member_type(blocks[i], &a.name), regions)
            .map_err(|e| Error::Spec(format!("--uniform {}: {e}", a.name)))?;
        values[i]
            .set_text(&a.name, &value)
            .map_err(|e| Error::Spec(format!("--uniform {}: {e}", a.name)))?;
    }
    blocks
        .into_iter()
        .zip(values)
        .filter(|(b, _)| !given(b))
        .map(|(b, u)| Ok((b, u.bytes()?.to_vec())))
        .collect()
}

/// The bytes of the push-constant block, from the `--push`es (`@NAME`
/// values as for [`uniform_blocks`]), unless it is `given` as a buffer.
fn push_block<'k>(
    kernel: &'k Kernel,
    args: &[UniformArg],
    given: &dyn Fn(&BindingInfo) -> bool,
    regions: &[Region],
) -> Result<Option<(&'k BindingInfo, Vec<u8>)>> {
    let Some(info) = kernel.bindings().iter().find(|b| b.push_constant) else {
        return match args.first() {
            Some(a) => Err(Error::Spec(format!(
                "--push {}: the kernel has no push constants (its bindings: {})",
                a.name,
                kernel.binding_names()
            ))),
            None => Ok(None),
        };
    };
    if given(info) {
        return match args.first() {
            Some(a) => Err(Error::Spec(format!(
                "--push {}: the push constants `{}` are given as a --buffer already",
                a.name,
                info.display_name()
            ))),
            None => Ok(None),
        };
    }
    let mut block = Uniforms::of(info)?;
    for a in args {
        // `--push P.count` names the block, as `--uniform` may.
        if let Some(b) = &a.block
            && kernel
                .binding_named(b)
                .map_or(true, |i| (i.group, i.binding) != (info.group, info.binding))
        {
            return Err(Error::Spec(format!(
                "--push {b}.{}: the push constants are `{}`",
                a.name,
                info.display_name()
            )));
        }
        let value = with_addresses(&a.value, member_type(info, &a.name), regions)
            .map_err(|e| Error::Spec(format!("--push {}: {e}", a.name)))?;
        block
            .set_text(&a.name, &value)
            .map_err(|e| Error::Spec(format!("--push {}: {e}", a.name)))?;
    }
    let bytes = block
        .bytes()
        .map_err(|e| Error::Spec(format!("push constants: {e} (set it with --push)")))?;
    Ok(Some((info, bytes.to_vec())))
}

/// The bytes of every atomic-counter buffer not `given` as a buffer: zero,
/// but for the `--counter`s.
fn counter_buffers<'k>(
    kernel: &'k Kernel,
    args: &[CounterArg],
    given: &dyn Fn(&BindingInfo) -> bool,
) -> Result<Vec<(&'k BindingInfo, Vec<u8>)>> {
    let buffers: Vec<&BindingInfo> = kernel
        .bindings()
        .iter()
        .filter(|b| !b.counters().is_empty())
        .collect();
    let mut out: Vec<(&BindingInfo, Vec<u8>)> = buffers
        .iter()
        .map(|b| (*b, vec![0u8; b.min_size.max(4) as usize]))
        .collect();
    for a in args {
        let found = out.iter_mut().find_map(|(b, bytes)| {
            b.counters()
                .into_iter()
                .find(|c| c.name == a.name)
                .map(|c| (*b, c.offset as usize, bytes))
        });
        let Some((info, at, bytes)) = found else {
            let names: Vec<String> = buffers
                .iter()
                .flat_map(|b| b.counters())
                .map(|c| c.name)
                .collect();
            return Err(Error::Spec(format!(
                "--counter {}: the kernel has no atomic counter of that name (counters: {})",
                a.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        if given(info) {
            return Err(Error::Spec(format!(
                "--counter {}: its buffer `{}` is given as a --buffer already",
                a.name,
                info.display_name()
            )));
        }
        bytes[at..at + 4].copy_from_slice(&a.value.to_le_bytes());
    }
    Ok(out.into_iter().filter(|(b, _)| !given(b)).collect())
}

#[cfg(test)]
mod tests {
    use super::{iota_value, texel_data};
    use wgpu::TextureFormat as F;

    #[test]
    fn every_mip_level_is_filled_and_iota_counts_on_through_them() {
        let desc = crate::TextureDesc::new(
            crate::TextureDim::D2,
            wgpu::TextureFormat::R32Uint,
            &[4, 4],
            3,
        )
        .unwrap();
        let words = |b: Vec<u8>| -> Vec<u32> {
            b.chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        assert_eq!(
            words(texel_data(&desc, 0, 0, None, true).unwrap()),
            (0..16).collect::<Vec<u32>>()
        );
        // Level 1 is 2x2, counting on from level 0's 16 texels.
        assert_eq!(
            words(texel_data(&desc, 1, 16, None, true).unwrap()),
            vec![16, 17, 18, 19]
        );
        assert_eq!(
            words(texel_data(&desc, 2, 20, Some(&[7.0]), false).unwrap()),
            vec![7]
        );
    }

    #[test]
    fn job_flags_are_read_as_the_command_line_reads_them() {
        let (res, groups) = super::Resources::from_flags(&[
            "--groups",
            "4,2",
            "--buffer=Bins=u32:256",
            "--uniform",
            "n=3",
            "--counter",
            "hits=5",
        ])
        .unwrap();
        assert_eq!(groups, [4, 2, 1]);
        assert_eq!(
            (res.buffers.len(), res.uniforms.len(), res.counters.len()),
            (1, 1, 1)
        );
        let e = |flags: &[&str]| super::Resources::from_flags(flags).unwrap_err().to_string();
        assert!(e(&["--bogus", "x"]).starts_with("`--bogus` is not a job flag"));
        assert_eq!(e(&["--buffer"]), "--buffer needs a value");
        assert!(e(&["--groups", "0"]).contains("`0` is not a workgroup count"));
        assert!(e(&["--counter", "hits"]).starts_with("--counter hits: "));
    }

    #[test]
    fn iota_wraps_in_the_channel_range() {
        assert_eq!(iota_value(F::R8Uint, false, 300), 44.0);
        assert_eq!(iota_value(F::R8Sint, false, 300), 44.0);
        assert_eq!(iota_value(F::R16Sint, false, 40000), 7232.0);
        assert_eq!(iota_value(F::R32Uint, false, 5_000_000), 5_000_000.0);
        assert_eq!(iota_value(F::R32Sint, false, 70_000), 70_000.0);
        assert_eq!(iota_value(F::Rgba8Unorm, true, 257), 1.0 / 255.0);
        assert_eq!(iota_value(F::R32Float, false, 9), 9.0);
    }
}
