//! The histogram demo in the browser: the same five kernels as
//! `examples/histogram` (translated for WebGPU at build time), the same
//! procedural picture, checked against the same CPU model, drawn on a
//! canvas: the luma on the left, equalized on the right.

use atomport::{
    Bind, Buffer, Image, ImageDesc, ImageDim, ImageFormat, Kernel, Result, Sampler, SamplerDesc,
    Texture, TextureDesc, TextureDim, include_kernel, wgpu,
};
use wasm_bindgen::prelude::*;

use super::{context, fail, model};

/// Runs the demo at `width`×`height` and draws it on `canvas` (resized to
/// the picture); resolves to the check's summary and the time the GPU
/// passes took, or rejects with the first difference from the CPU.
#[wasm_bindgen]
pub async fn demo(
    canvas: web_sys::HtmlCanvasElement,
    width: u32,
    height: u32,
) -> Result<String, JsValue> {
    if width == 0 || height == 0 || width > 4096 || height > 4096 {
        return Err(fail(format!(
            "a {width}x{height} picture: width and height go from 1 to 4096"
        )));
    }
    let ctx = context().await?;
    let start = now();
    let (shown, summary) = run(&ctx, width, height).await.map_err(fail)?;
    let ms = now() - start;
    draw(&canvas, 2 * width, height, &shown)?;
    Ok(format!(
        "{summary}; {width}x{height} on {} in {ms:.0} ms",
        ctx.adapter_name()
    ))
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The five passes; the picture and the CPU check's summary.
async fn run(ctx: &atomport::Context, w: u32, h: u32) -> Result<(Vec<u8>, String)> {
    // The native demo's picture: the same generator and seed.
    let mut rng = super::rng::Rng(42);
    let rgba = model::scene(w, h, || rng.unit());
    let luma: Kernel = include_kernel!("luma")?;
    let hist: Kernel = include_kernel!("histogram")?;
    let equalize: Kernel = include_kernel!("equalize")?;
    let map: Kernel = include_kernel!("map")?;
    let present: Kernel = include_kernel!("present")?;
    let count = w * h;
    let photo = Texture::from_data(
        ctx,
        TextureDesc::new(TextureDim::D2, wgpu::TextureFormat::Rgba8Unorm, &[w, h], 1)?,
        &rgba,
    )?;
    let nearest = Sampler::new(ctx, SamplerDesc::default())?;
    let pix = Buffer::zeroed(ctx, u64::from(count) * 4)?;
    ctx.dispatch(
        &luma,
        [w.div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::named("photo", (&photo, &nearest)),
            Bind::named("Pixels", &pix),
        ],
    )?;
    let bins = Buffer::from_slice(ctx, &[0u32; 256])?;
    let params = Buffer::from_slice(ctx, &[count, 0, 0, 0])?;
    let lut = Buffer::from_slice(ctx, &[0u32; 256])?;
    let out = Buffer::zeroed(ctx, u64::from(count) * 4)?;
    let groups = (count / 256 / 16).clamp(1, 256);
    ctx.dispatch(&hist, [groups, 1, 1], &slots(&[&pix, &bins, &params]))?;
    ctx.dispatch(&equalize, [1, 1, 1], &slots(&[&bins, &lut, &params]))?;
    ctx.dispatch(
        &map,
        [count.div_ceil(256), 1, 1],
        &slots(&[&pix, &lut, &out, &params]),
    )?;
    let picture = Image::zeroed(
        ctx,
        ImageDesc::new(ImageDim::D2, ImageFormat::Rgba8Unorm, &[2 * w, h], 1)?,
    )?;
    ctx.dispatch(
        &present,
        [(2 * w).div_ceil(16), h.div_ceil(16), 1],
        &[
            Bind::named("Pixels", &pix),
            Bind::named("Out", &out),
            Bind::named("picture", &picture),
        ],
    )?;
    // Every read is awaited: the browser maps the buffers on its event loop.
    let pixels: Vec<u32> = pix.read_async(ctx).await?;
    let got_bins: Vec<u32> = bins.read_async(ctx).await?;
    let equalized: Vec<u32> = out.read_async(ctx).await?;
    let shown: Vec<u8> = picture.read_async(ctx).await?;
    let summary = model::verify(&rgba, w as usize, &pixels, &got_bins, &equalized, &shown)
        .map_err(atomport::Error::Dispatch)?;
    Ok((shown, summary))
}

/// Binds `buffers` at group 0, bindings 0, 1, …
fn slots<'b>(buffers: &[&'b Buffer]) -> Vec<Bind<'b>> {
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| Bind::new(0, i as u32, b))
        .collect()
}

/// Puts the rgba8 picture on the canvas.
fn draw(canvas: &web_sys::HtmlCanvasElement, w: u32, h: u32, rgba: &[u8]) -> Result<(), JsValue> {
    use wasm_bindgen::JsCast;
    canvas.set_width(w);
    canvas.set_height(h);
    let ctx2d = canvas
        .get_context("2d")?
        .ok_or_else(|| fail("the canvas gives no 2d context"))?
        .dyn_into::<web_sys::CanvasRenderingContext2d>()?;
    let data =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(rgba), w, h)?;
    ctx2d.put_image_data(&data, 0.0, 0.0)
}
