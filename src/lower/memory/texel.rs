//! Texel addressing of images held in buffers, shared by the SPIR-V image
//! pass (which emits it as shader code) and the host side (which fills and
//! reads the buffers). The order is DESIGN's: x fastest, then y, then layer
//! (array layer, 3D slice or cube face; a cube array's layer is
//! 6 × cube + face), then sample:
//!
//! `index = ((sample * layers + layer) * height + y) * width + x`
//!
//! The buffer holds a 16-byte header `(width, height, layers, samples)`,
//! then every texel in that order, then one scratch texel that out-of-range
//! accesses are sent to, so that nothing real is touched.

use serde::{Deserialize, Serialize};

/// Words of the header before the first texel.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub const HEADER_WORDS: u32 = 4;

/// The eleven GLSL image types' shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageDim {
    /// `image1D`.
    #[serde(rename = "1d")]
    D1,
    /// `image2D`.
    #[serde(rename = "2d")]
    D2,
    /// `image3D`.
    #[serde(rename = "3d")]
    D3,
    /// `image2DRect`.
    #[serde(rename = "2drect")]
    Rect,
    /// `imageCube`.
    #[serde(rename = "cube")]
    Cube,
    /// `imageBuffer`.
    #[serde(rename = "buffer")]
    Buffer,
    /// `image1DArray`.
    #[serde(rename = "1darray")]
    D1Array,
    /// `image2DArray`.
    #[serde(rename = "2darray")]
    D2Array,
    /// `imageCubeArray`.
    #[serde(rename = "cubearray")]
    CubeArray,
    /// `image2DMS`.
    #[serde(rename = "2dms")]
    D2Ms,
    /// `image2DMSArray`.
    #[serde(rename = "2dmsarray")]
    D2MsArray,
}

impl ImageDim {
    /// Every image type.
    pub const ALL: [ImageDim; 11] = [
        ImageDim::D1,
        ImageDim::D2,
        ImageDim::D3,
        ImageDim::Rect,
        ImageDim::Cube,
        ImageDim::Buffer,
        ImageDim::D1Array,
        ImageDim::D2Array,
        ImageDim::CubeArray,
        ImageDim::D2Ms,
        ImageDim::D2MsArray,
    ];

    /// The name used on the command line and in JSON (`1d`, `cubearray`, …).
    pub fn name(self) -> &'static str {
        match self {
            ImageDim::D1 => "1d",
            ImageDim::D2 => "2d",
            ImageDim::D3 => "3d",
            ImageDim::Rect => "2drect",
            ImageDim::Cube => "cube",
            ImageDim::Buffer => "buffer",
            ImageDim::D1Array => "1darray",
            ImageDim::D2Array => "2darray",
            ImageDim::CubeArray => "cubearray",
            ImageDim::D2Ms => "2dms",
            ImageDim::D2MsArray => "2dmsarray",
        }
    }

    /// The GLSL type name without the `i`/`u` prefix (`image2DMSArray`, …).
    pub fn glsl_name(self) -> &'static str {
        match self {
            ImageDim::D1 => "image1D",
            ImageDim::D2 => "image2D",
            ImageDim::D3 => "image3D",
            ImageDim::Rect => "image2DRect",
            ImageDim::Cube => "imageCube",
            ImageDim::Buffer => "imageBuffer",
            ImageDim::D1Array => "image1DArray",
            ImageDim::D2Array => "image2DArray",
            ImageDim::CubeArray => "imageCubeArray",
            ImageDim::D2Ms => "image2DMS",
            ImageDim::D2MsArray => "image2DMSArray",
        }
    }

    /// The shape of a SPIR-V `OpTypeImage`.
    pub fn from_spirv(dim: rspirv::spirv::Dim, arrayed: bool, ms: bool) -> Option<ImageDim> {
        use rspirv::spirv::Dim;
        Some(match (dim, arrayed, ms) {
            (Dim::Dim1D, false, false) => ImageDim::D1,
            (Dim::Dim1D, true, false) => ImageDim::D1Array,
            (Dim::Dim2D, false, false) => ImageDim::D2,
            (Dim::Dim2D, true, false) => ImageDim::D2Array,
            (Dim::Dim2D, false, true) => ImageDim::D2Ms,
            (Dim::Dim2D, true, true) => ImageDim::D2MsArray,
            (Dim::Dim3D, false, false) => ImageDim::D3,
            (Dim::DimRect, false, false) => ImageDim::Rect,
            (Dim::DimCube, false, false) => ImageDim::Cube,
            (Dim::DimCube, true, false) => ImageDim::CubeArray,
            (Dim::DimBuffer, false, false) => ImageDim::Buffer,
            _ => return None,
        })
    }

    /// Parses the names of [`ImageDim::name`].
    pub fn parse(s: &str) -> Option<ImageDim> {
        ImageDim::ALL.into_iter().find(|d| d.name() == s)
    }

    /// How many coordinates GLSL passes (the `P` of imageLoad and friends).
    pub fn coordinate_count(self) -> u32 {
        match self {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 | ImageDim::Rect | ImageDim::D1Array | ImageDim::D2Ms => 2,
            _ => 3,
        }
    }

    /// Whether it has samples (`image2DMS`, `image2DMSArray`).
    pub fn is_multisampled(self) -> bool {
        matches!(self, ImageDim::D2Ms | ImageDim::D2MsArray)
    }

    /// Whether the image has rows (a height other than 1).
    pub fn has_height(self) -> bool {
        !matches!(self, ImageDim::D1 | ImageDim::Buffer | ImageDim::D1Array)
    }

    /// How many numbers `imageSize` returns.
    pub fn size_count(self) -> u32 {
        match self {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 | ImageDim::Rect | ImageDim::Cube | ImageDim::D1Array | ImageDim::D2Ms => {
                2
            }
            _ => 3,
        }
    }

    /// Which coordinate is the layer (3D slice, array layer, cube face), if any.
    pub fn layer_coordinate(self) -> Option<u32> {
        match self {
            ImageDim::D1Array => Some(1),
            ImageDim::D3
            | ImageDim::Cube
            | ImageDim::D2Array
            | ImageDim::CubeArray
            | ImageDim::D2MsArray => Some(2),
            _ => None,
        }
    }

    /// Layers held for an `imageSize` layer count `n` (cube: 6 faces; cube array: 6 per cube).
    pub fn layers_for(self, n: u32) -> u32 {
        match self {
            ImageDim::Cube => 6,
            ImageDim::CubeArray => 6 * n,
            ImageDim::D3 | ImageDim::D1Array | ImageDim::D2Array | ImageDim::D2MsArray => n,
            _ => 1,
        }
    }
}

/// One texel's place: column, row, layer (slice, array layer, face) and
/// sample. [`crate::ImageDesc::index`] turns it into the texel's position in
/// texel order, to find a texel among those an image reads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexelAddress {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Layer: 3D slice, array layer, cube face, or 6 × cube + face.
    pub layer: u32,
    /// Sample.
    pub sample: u32,
}

impl TexelAddress {
    /// The index in texel order of an image `width × height × layers × samples`.
    pub fn index(self, width: u32, height: u32, layers: u32) -> usize {
        ((self.sample as usize * layers as usize + self.layer as usize) * height as usize
            + self.y as usize)
            * width as usize
            + self.x as usize
    }

    /// The address of texel `index` (the inverse of [`TexelAddress::index`]).
    pub fn from_index(index: usize, width: u32, height: u32, layers: u32) -> TexelAddress {
        let (w, h, l) = (width as usize, height as usize, layers as usize);
        TexelAddress {
            x: (index % w) as u32,
            y: (index / w % h) as u32,
            layer: (index / (w * h) % l) as u32,
            sample: (index / (w * h * l)) as u32,
        }
    }

    /// GLSL's coordinate `P` for this texel of an image of shape `dim`.
    pub fn coordinates(self, dim: ImageDim) -> Vec<i32> {
        let (x, y, l) = (self.x as i32, self.y as i32, self.layer as i32);
        match dim {
            ImageDim::D1 | ImageDim::Buffer => vec![x],
            ImageDim::D2 | ImageDim::Rect | ImageDim::D2Ms => vec![x, y],
            ImageDim::D1Array => vec![x, l],
            _ => vec![x, y, l],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips_in_design_order() {
        let (w, h, l) = (5, 3, 4);
        for i in 0..w * h * l * 2 {
            let a = TexelAddress::from_index(i as usize, w, h, l);
            assert_eq!(a.index(w, h, l), i as usize);
        }
        // x fastest, then y, then layer, then sample.
        let a = TexelAddress {
            x: 1,
            y: 2,
            layer: 3,
            sample: 1,
        };
        assert_eq!(a.index(w, h, l), ((4 + 3) * 3 + 2) * 5 + 1);
    }

    #[test]
    fn cube_arrays_hold_six_layers_per_cube() {
        assert_eq!(ImageDim::CubeArray.layers_for(2), 12);
        assert_eq!(ImageDim::Cube.layers_for(1), 6);
        assert_eq!(ImageDim::D1Array.layer_coordinate(), Some(1));
    }
}

/// What a format's channels hold ([`ImageFormat::layout`]): how the
/// host writes and reads an image's texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    /// IEEE floats (16 or 32 bits).
    Float,
    /// Unsigned normalized: 0..1.
    Unorm,
    /// Signed normalized: -1..1.
    Snorm,
    /// Unsigned integers.
    Uint,
    /// Signed integers.
    Sint,
}

/// Declares [`ImageFormat`] from one table: variant, GLSL name, SPIR-V
/// format, wgpu format, channels, bits per channel, channel kind.
macro_rules! image_formats {
    ($($(#[$doc:meta])* $v:ident $glsl:literal $spv:ident $wgpu:ident $n:literal $bits:literal $kind:ident;)*) => {
        /// The texel formats of GLSL storage images: every one GLSL has.
        /// For the packed `rgb10_a2`, `rgb10_a2ui` and `r11f_g11f_b10f`,
        /// `layout` gives the channel count and kind, and
        /// [`ImageFormat::packed`] each channel's bits.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ImageFormat {
            $($(#[$doc])* #[serde(rename = $glsl)] $v,)*
        }

        impl ImageFormat {
            /// Every format.
            pub const ALL: &[ImageFormat] = &[$(ImageFormat::$v,)*];

            /// The GLSL layout qualifier (`r32ui`, `rgba16f`, …).
            pub fn name(self) -> &'static str {
                match self { $(ImageFormat::$v => $glsl,)* }
            }

            /// The format a SPIR-V image type declares, if atomport maps it.
            pub fn from_spirv(f: rspirv::spirv::ImageFormat) -> Option<ImageFormat> {
                match f {
                    $(rspirv::spirv::ImageFormat::$spv => Some(ImageFormat::$v),)*
                    _ => None,
                }
            }

            /// SPIR-V's name of the format.
            pub fn spirv(self) -> rspirv::spirv::ImageFormat {
                match self { $(ImageFormat::$v => rspirv::spirv::ImageFormat::$spv,)* }
            }

            /// The wgpu texture format with the same texels (`r64i`
            /// texels have the bits of `R64Uint`'s).
            pub fn texture_format(self) -> wgt::TextureFormat {
                match self { $(ImageFormat::$v => wgt::TextureFormat::$wgpu,)* }
            }

            /// (channels, bits per channel, what they hold).
            pub fn layout(self) -> (u32, u32, ChannelKind) {
                match self { $(ImageFormat::$v => ($n, $bits, ChannelKind::$kind),)* }
            }
        }
    };
}

image_formats! {
    /// `r32ui`: one `uint` per texel.
    R32Uint "r32ui" R32ui R32Uint 1 32 Uint;
    /// `r32i`: one `int` per texel.
    R32Sint "r32i" R32i R32Sint 1 32 Sint;
    /// `r32f`: one `float` per texel.
    R32Float "r32f" R32f R32Float 1 32 Float;
    /// `r64ui` (GL_EXT_shader_image_int64): one `uint64_t` per texel, held
    /// as two words, low first.
    R64Uint "r64ui" R64ui R64Uint 1 64 Uint;
    /// `r64i`: one `int64_t` per texel, held as two words, low first.
    R64Sint "r64i" R64i R64Uint 1 64 Sint;
    /// `rgba32f`.
    Rgba32Float "rgba32f" Rgba32f Rgba32Float 4 32 Float;
    /// `rgba32ui`.
    Rgba32Uint "rgba32ui" Rgba32ui Rgba32Uint 4 32 Uint;
    /// `rgba32i`.
    Rgba32Sint "rgba32i" Rgba32i Rgba32Sint 4 32 Sint;
    /// `rg32f`.
    Rg32Float "rg32f" Rg32f Rg32Float 2 32 Float;
    /// `rg32ui`.
    Rg32Uint "rg32ui" Rg32ui Rg32Uint 2 32 Uint;
    /// `rg32i`.
    Rg32Sint "rg32i" Rg32i Rg32Sint 2 32 Sint;
    /// `rgba16f`.
    Rgba16Float "rgba16f" Rgba16f Rgba16Float 4 16 Float;
    /// `rgba16ui`.
    Rgba16Uint "rgba16ui" Rgba16ui Rgba16Uint 4 16 Uint;
    /// `rgba16i`.
    Rgba16Sint "rgba16i" Rgba16i Rgba16Sint 4 16 Sint;
    /// `rgba16`.
    Rgba16Unorm "rgba16" Rgba16 Rgba16Unorm 4 16 Unorm;
    /// `rgba16_snorm`.
    Rgba16Snorm "rgba16_snorm" Rgba16Snorm Rgba16Snorm 4 16 Snorm;
    /// `rg16f`.
    Rg16Float "rg16f" Rg16f Rg16Float 2 16 Float;
    /// `rg16ui`.
    Rg16Uint "rg16ui" Rg16ui Rg16Uint 2 16 Uint;
    /// `rg16i`.
    Rg16Sint "rg16i" Rg16i Rg16Sint 2 16 Sint;
    /// `rg16`.
    Rg16Unorm "rg16" Rg16 Rg16Unorm 2 16 Unorm;
    /// `rg16_snorm`.
    Rg16Snorm "rg16_snorm" Rg16Snorm Rg16Snorm 2 16 Snorm;
    /// `r16f`.
    R16Float "r16f" R16f R16Float 1 16 Float;
    /// `r16ui`.
    R16Uint "r16ui" R16ui R16Uint 1 16 Uint;
    /// `r16i`.
    R16Sint "r16i" R16i R16Sint 1 16 Sint;
    /// `r16`.
    R16Unorm "r16" R16 R16Unorm 1 16 Unorm;
    /// `r16_snorm`.
    R16Snorm "r16_snorm" R16Snorm R16Snorm 1 16 Snorm;
    /// `rgba8`.
    Rgba8Unorm "rgba8" Rgba8 Rgba8Unorm 4 8 Unorm;
    /// `rgba8_snorm`.
    Rgba8Snorm "rgba8_snorm" Rgba8Snorm Rgba8Snorm 4 8 Snorm;
    /// `rgba8ui`.
    Rgba8Uint "rgba8ui" Rgba8ui Rgba8Uint 4 8 Uint;
    /// `rgba8i`.
    Rgba8Sint "rgba8i" Rgba8i Rgba8Sint 4 8 Sint;
    /// `rg8`.
    Rg8Unorm "rg8" Rg8 Rg8Unorm 2 8 Unorm;
    /// `rg8_snorm`.
    Rg8Snorm "rg8_snorm" Rg8Snorm Rg8Snorm 2 8 Snorm;
    /// `rg8ui`.
    Rg8Uint "rg8ui" Rg8ui Rg8Uint 2 8 Uint;
    /// `rg8i`.
    Rg8Sint "rg8i" Rg8i Rg8Sint 2 8 Sint;
    /// `r8`.
    R8Unorm "r8" R8 R8Unorm 1 8 Unorm;
    /// `r8_snorm`.
    R8Snorm "r8_snorm" R8Snorm R8Snorm 1 8 Snorm;
    /// `rgb10_a2`: unorm red, green and blue of 10 bits and alpha of 2,
    /// packed in one word (red in the low bits).
    Rgb10A2Unorm "rgb10_a2" Rgb10A2 Rgb10a2Unorm 4 8 Unorm;
    /// `rgb10_a2ui`: the same layout, unsigned integers.
    Rgb10A2Uint "rgb10_a2ui" Rgb10a2ui Rgb10a2Uint 4 8 Uint;
    /// `r11f_g11f_b10f`: unsigned floats of 11, 11 and 10 bits (5-bit
    /// exponents, no sign) packed in one word.
    Rg11B10Float "r11f_g11f_b10f" R11fG11fB10f Rg11b10Ufloat 3 8 Float;
    /// `r8ui`.
    R8Uint "r8ui" R8ui R8Uint 1 8 Uint;
    /// `r8i`.
    R8Sint "r8i" R8i R8Sint 1 8 Sint;
}

impl ImageFormat {
    /// Parses a GLSL format name (`r32ui`, `rgba16f`) or wgpu's name of
    /// the same format (`r32uint`, `rgba16float`).
    pub fn parse(s: &str) -> Option<ImageFormat> {
        let s = s.to_ascii_lowercase();
        Self::ALL.iter().copied().find(|f| {
            f.name() == s
                || (*f != ImageFormat::R64Sint
                    && crate::formats::format_name(f.texture_format()) == s)
                || (*f == ImageFormat::R64Sint && s == "r64sint")
        })
    }

    /// Bytes of one texel.
    pub fn texel_bytes(self) -> u32 {
        if self.packed().is_some() {
            return 4;
        }
        let (n, bits, _) = self.layout();
        n * bits / 8
    }

    /// For the packed formats (`rgb10_a2`, `rgb10_a2ui`,
    /// `r11f_g11f_b10f`), each channel's bits, red first from the word's
    /// low bits; `None` for formats of equal channels.
    pub fn packed(self) -> Option<&'static [u32]> {
        match self {
            ImageFormat::Rgb10A2Unorm | ImageFormat::Rgb10A2Uint => Some(&[10, 10, 10, 2]),
            ImageFormat::Rg11B10Float => Some(&[11, 11, 10]),
            _ => None,
        }
    }

    /// Whether a texel is narrower than a word (`r8`, `rg8`, `r16`…):
    /// several share one, which stores change with atomics.
    pub fn is_sub_word(self) -> bool {
        self.texel_bytes() < 4
    }

    /// Whether each channel is a whole 32- or 64-bit word of the texel
    /// buffer, read and written as such.
    pub fn whole_words(self) -> bool {
        self.layout().1 >= 32
    }

    /// The type of the texel buffer's elements: the channel type when the
    /// channels are whole words (64-bit ones as two `u32`/`i32` words),
    /// `uint` words of packed texels otherwise.
    pub fn scalar(self) -> crate::ScalarType {
        match self.layout() {
            (_, 32 | 64, ChannelKind::Sint) => crate::ScalarType::I32,
            (_, 32, ChannelKind::Float) => crate::ScalarType::F32,
            _ => crate::ScalarType::U32,
        }
    }

    /// Parses one texel value written as text (decimal or `0x` hex
    /// integers in the format's range, floats for `r32f`) to its bit
    /// pattern, 32-bit formats' zero-extended.
    pub fn parse_value(self, s: &str) -> crate::Result<u64> {
        match self {
            ImageFormat::R64Uint | ImageFormat::R64Sint => {
                let signed = self == ImageFormat::R64Sint;
                crate::scalar::parse_int(s.trim(), 64, signed).ok_or_else(|| {
                    crate::Error::InvalidValue(format!(
                        "`{s}` is not a valid {} value",
                        if signed { "i64" } else { "u64" }
                    ))
                })
            }
            _ => self.scalar().parse_value(s).map(u64::from),
        }
    }

    /// 32-bit words per texel: 1, or 2 for `r64ui`/`r64i`, 4 for `rgba32f`;
    /// rounded up for texels narrower than a word (see
    /// [`ImageFormat::is_sub_word`]).
    pub fn words(self) -> usize {
        self.texel_bytes().div_ceil(4) as usize
    }
}
