//! wgpu's texture formats by the names WGSL and the command line use
//! (`rgba8unorm`, `r32float`, `depth32float`): a leaf that the image pass
//! (for GLSL image formats' wgpu twins) and the runtime share.

/// Texture formats by the names WGSL and the command line use.
const FORMATS: &[(&str, wgt::TextureFormat)] = {
    use wgt::TextureFormat as F;
    &[
        ("r8unorm", F::R8Unorm),
        ("r8snorm", F::R8Snorm),
        ("r8uint", F::R8Uint),
        ("r8sint", F::R8Sint),
        ("r16uint", F::R16Uint),
        ("r16sint", F::R16Sint),
        ("r16float", F::R16Float),
        ("rg8unorm", F::Rg8Unorm),
        ("rg8snorm", F::Rg8Snorm),
        ("rg8uint", F::Rg8Uint),
        ("rg8sint", F::Rg8Sint),
        ("r32uint", F::R32Uint),
        ("r32sint", F::R32Sint),
        ("r32float", F::R32Float),
        ("rg16uint", F::Rg16Uint),
        ("rg16sint", F::Rg16Sint),
        ("rg16float", F::Rg16Float),
        ("rgba8unorm", F::Rgba8Unorm),
        ("rgba8unorm-srgb", F::Rgba8UnormSrgb),
        ("rgba8snorm", F::Rgba8Snorm),
        ("rgba8uint", F::Rgba8Uint),
        ("rgba8sint", F::Rgba8Sint),
        ("bgra8unorm", F::Bgra8Unorm),
        ("bgra8unorm-srgb", F::Bgra8UnormSrgb),
        ("rgb10a2uint", F::Rgb10a2Uint),
        ("rgb10a2unorm", F::Rgb10a2Unorm),
        ("rg11b10ufloat", F::Rg11b10Ufloat),
        ("rg32uint", F::Rg32Uint),
        ("rg32sint", F::Rg32Sint),
        ("rg32float", F::Rg32Float),
        ("rgba16uint", F::Rgba16Uint),
        ("rgba16sint", F::Rgba16Sint),
        ("rgba16float", F::Rgba16Float),
        ("rgba32uint", F::Rgba32Uint),
        ("rgba32sint", F::Rgba32Sint),
        ("rgba32float", F::Rgba32Float),
        ("r16unorm", F::R16Unorm),
        ("r16snorm", F::R16Snorm),
        ("rg16unorm", F::Rg16Unorm),
        ("rg16snorm", F::Rg16Snorm),
        ("rgba16unorm", F::Rgba16Unorm),
        ("rgba16snorm", F::Rgba16Snorm),
        ("depth32float", F::Depth32Float),
        ("depth16unorm", F::Depth16Unorm),
    ]
};

/// The format named `name` (`rgba8unorm`, `r32float`, `depth32float`, …).
#[cfg(feature = "runtime")]
pub fn parse_format(name: &str) -> Option<wgt::TextureFormat> {
    FORMATS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The name of a format, as [`parse_format`] takes it.
pub fn format_name(format: wgt::TextureFormat) -> String {
    FORMATS
        .iter()
        .find(|(_, f)| *f == format)
        .map(|(n, _)| n.to_string())
        .unwrap_or_else(|| format!("{format:?}").to_ascii_lowercase())
}

/// The names of every format [`parse_format`] takes, for messages.
#[cfg(feature = "runtime")]
pub fn format_names() -> String {
    FORMATS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A number for `format`, the same in every run: its place in the table
/// (formats the table lacks share one past it).
#[cfg(feature = "runtime")]
pub(crate) fn code(format: wgt::TextureFormat) -> u32 {
    FORMATS
        .iter()
        .position(|(_, f)| *f == format)
        .unwrap_or(FORMATS.len()) as u32
}
