//! [`Buffer`]: a GPU storage/uniform buffer with typed creation and readback.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

use wgpu::util::DeviceExt;

use crate::runtime::context::Gpu;
use crate::{Context, Error, Result};

/// A GPU buffer usable as a storage or uniform binding, readable back to the host.
#[derive(Debug)]
pub struct Buffer {
    /// Process-unique, so the runtime can recognise a binding it has seen.
    id: u64,
    raw: wgpu::Buffer,
    len: u64,
    /// A MAP_READ buffer of the same size, made on the first read and reused.
    staging: Mutex<Option<wgpu::Buffer>>,
}

/// Every buffer can be bound as storage or uniform, copied both ways, and
/// hold indirect dispatch arguments a pass wrote.
const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::UNIFORM)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::INDIRECT);

/// wgpu copies and bindings work in 4-byte units.
pub(crate) fn padded(len: u64) -> u64 {
    len.max(4).next_multiple_of(4)
}

impl Buffer {
    /// A buffer holding `data`.
    pub fn from_slice<T: bytemuck::Pod>(ctx: &Context, data: &[T]) -> Result<Buffer> {
        Self::from_bytes(ctx, bytemuck::cast_slice(data))
    }

    /// A buffer holding `bytes` (padded with zeros to a multiple of 4 bytes on the GPU).
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<Buffer> {
        Self::from_bytes_labeled(ctx, bytes, "atomport buffer")
    }

    /// [`Buffer::from_bytes`] with a label for debuggers and wgpu's messages
    /// (the binding's name, say).
    pub fn from_bytes_labeled(ctx: &Context, bytes: &[u8], label: &str) -> Result<Buffer> {
        let len = bytes.len() as u64;
        let mut padded_bytes;
        let contents = if len == padded(len) {
            bytes
        } else {
            padded_bytes = bytes.to_vec();
            padded_bytes.resize(padded(len) as usize, 0);
            &padded_bytes
        };
        Self::create(ctx, len, |d| {
            d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: USAGE,
            })
        })
    }

    /// A zeroed buffer of `len` bytes that also has `extra` usages (VERTEX,
    /// INDEX, …) for the caller's own pipelines.
    pub fn zeroed_with_usage(ctx: &Context, len: u64, extra: wgpu::BufferUsages) -> Result<Buffer> {
        if extra.intersects(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE) {
            return Err(Error::Resource(
                "MAP_READ and MAP_WRITE buffers cannot be storage buffers; atomport maps its own staging buffers".into(),
            ));
        }
        Self::create(ctx, len, |d| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("atomport buffer"),
                size: padded(len),
                usage: USAGE | extra,
                mapped_at_creation: false,
            })
        })
    }

    /// Wraps the caller's buffer (no copy). It must have STORAGE or UNIFORM
    /// usage to be bound, COPY_SRC to be read back and COPY_DST to be
    /// written, and a size that is a multiple of 4 bytes.
    pub fn from_wgpu(buffer: wgpu::Buffer) -> Result<Buffer> {
        let usage = buffer.usage();
        if !usage.intersects(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::UNIFORM) {
            return Err(Error::Resource(format!(
                "the buffer's usage ({usage:?}) has neither STORAGE nor UNIFORM"
            )));
        }
        // Copies and bindings work in whole u32 words.
        if !buffer.size().is_multiple_of(4) {
            return Err(Error::Resource(format!(
                "the buffer is {} bytes, not a multiple of 4",
                buffer.size()
            )));
        }
        Ok(Buffer {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            len: buffer.size(),
            raw: buffer,
            staging: Mutex::new(None),
        })
    }

    /// A zeroed buffer of `len` bytes.
    pub fn zeroed(ctx: &Context, len: u64) -> Result<Buffer> {
        Self::zeroed_with_usage(ctx, len, wgpu::BufferUsages::empty())
    }

    /// A buffer of `count` copies of `value`.
    pub fn filled<T: bytemuck::Pod>(ctx: &Context, value: T, count: usize) -> Result<Buffer> {
        Self::from_slice(ctx, &vec![value; count])
    }

    fn create(
        ctx: &Context,
        len: u64,
        make: impl FnOnce(&wgpu::Device) -> wgpu::Buffer,
    ) -> Result<Buffer> {
        ctx.ready()?;
        let limit = ctx.limits().max_buffer_size;
        if padded(len) > limit {
            return Err(Error::Limit {
                what: "a buffer size".into(),
                value: len,
                limit_name: "max_buffer_size",
                limit,
            });
        }
        let raw = ctx.scoped(|| make(ctx.device()))?;
        Ok(Buffer {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            raw,
            len,
            staging: Mutex::new(None),
        })
    }

    /// The size in bytes, as created.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A process-unique id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The wgpu buffer, for the caller's own pipelines.
    pub fn raw(&self) -> &wgpu::Buffer {
        &self.raw
    }

    /// Overwrites the buffer from offset 0 with `data` (ordered before later dispatches).
    pub fn write<T: bytemuck::Pod>(&self, ctx: &Context, data: &[T]) -> Result<()> {
        ctx.ready()?;
        self.has_usage(wgpu::BufferUsages::COPY_DST, "COPY_DST", "writing it")?;
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.len() as u64 > self.len {
            return Err(Error::Resource(format!(
                "write of {} bytes into a buffer of {} bytes",
                bytes.len(),
                self.len
            )));
        }
        let mut v = bytes.to_vec();
        v.resize(padded(v.len() as u64) as usize, 0);
        ctx.queue().write_buffer(&self.raw, 0, &v);
        Ok(())
    }

    /// Reads the whole buffer back as `T`s, waiting at most the context's timeout.
    pub fn read<T: bytemuck::Pod>(&self, ctx: &Context) -> Result<Vec<T>> {
        ctx.ready()?;
        self.readable()?;
        let bytes = ctx.on_gpu(readback_job(ctx, &[self], None))?;
        cast_vec(&bytes[0])
    }

    /// Reads the buffer back as `T`s without blocking the calling thread: the
    /// copy and map run on the context's GPU worker (in a browser, on its
    /// event loop), so the future completes under any executor, with
    /// [`Error::Timeout`] after the context's timeout. The only read there
    /// is in a browser, where nothing may block.
    pub async fn read_async<T: bytemuck::Pod>(&self, ctx: &Context) -> Result<Vec<T>> {
        ctx.ready()?;
        self.readable()?;
        let bytes = read_back_async(ctx, &[self], None).await?;
        cast_vec(&bytes[0])
    }

    /// A caller's buffer without COPY_SRC cannot be read back.
    pub(crate) fn readable(&self) -> Result<()> {
        self.has_usage(wgpu::BufferUsages::COPY_SRC, "COPY_SRC", "reading it back")
    }

    /// An error naming the usage `what` needs when the buffer (a caller's,
    /// wrapped with [`Buffer::from_wgpu`]) lacks it: checked before
    /// recording, since wgpu reports a copy's usage only when the encoder
    /// finishes, outside atomport's error scopes.
    pub(crate) fn has_usage(
        &self,
        usage: wgpu::BufferUsages,
        name: &str,
        what: &str,
    ) -> Result<()> {
        if self.raw.usage().contains(usage) {
            Ok(())
        } else {
            Err(Error::Resource(format!(
                "the buffer's usage ({:?}) lacks {name}, which {what} needs",
                self.raw.usage()
            )))
        }
    }

    /// Records a copy of this buffer into its staging buffer.
    fn encode_copy(&self, ctx: &Context, encoder: &mut wgpu::CommandEncoder) -> wgpu::Buffer {
        let mut guard = self.staging.lock().unwrap_or_else(|p| p.into_inner());
        let staging = guard
            .get_or_insert_with(|| {
                ctx.device().create_buffer(&wgpu::BufferDescriptor {
                    label: Some("atomport staging"),
                    size: padded(self.len),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .clone();
        encoder.copy_buffer_to_buffer(&self.raw, 0, &staging, 0, padded(self.len));
        staging
    }
}

/// Casts little-endian bytes to `T`s, refusing a length that is not a multiple of `T`.
pub(crate) fn cast_vec<T: bytemuck::Pod>(bytes: &[u8]) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(Error::Resource(format!(
            "{} bytes is not a whole number of {}-byte elements",
            bytes.len(),
            size
        )));
    }
    Ok(bytes
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

/// Copies `buffers` to their staging buffers — after `encoder`'s work if one
/// is given, in the same submission — maps them and returns their bytes.
/// Returns the job to run on the context's GPU worker ([`Context::on_gpu`]).
pub(crate) fn readback_job(
    ctx: &Context,
    buffers: &[&Buffer],
    encoder: Option<wgpu::CommandEncoder>,
) -> impl FnOnce(&Gpu) -> Result<Vec<Vec<u8>>> + super::MaybeSend + 'static {
    let (cmd, stagings) = readback_commands(ctx, buffers, encoder);
    move |gpu| submit_and_read(gpu, cmd, &stagings)
}

/// `encoder` (or a new one) with copies of `buffers` into their staging
/// buffers, finished; and each staging buffer with the length to read.
#[allow(clippy::type_complexity)]
fn readback_commands(
    ctx: &Context,
    buffers: &[&Buffer],
    encoder: Option<wgpu::CommandEncoder>,
) -> (wgpu::CommandBuffer, Vec<(wgpu::Buffer, usize)>) {
    let mut encoder = encoder.unwrap_or_else(|| {
        ctx.device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("atomport readback"),
            })
    });
    let stagings: Vec<(wgpu::Buffer, usize)> = buffers
        .iter()
        .map(|b| (b.encode_copy(ctx, &mut encoder), b.len as usize))
        .collect();
    (encoder.finish(), stagings)
}

/// The copies and maps of [`readback_job`], awaited: on the GPU worker
/// natively, on the browser's event loop in a browser.
pub(crate) async fn read_back_async(
    ctx: &Context,
    buffers: &[&Buffer],
    encoder: Option<wgpu::CommandEncoder>,
) -> Result<Vec<Vec<u8>>> {
    let (cmd, stagings) = readback_commands(ctx, buffers, encoder);
    submit_and_read_async(ctx, cmd, stagings).await
}

/// [`submit_and_read`], awaited: on the GPU worker natively, on the
/// browser's event loop in a browser.
pub(crate) async fn submit_and_read_async(
    ctx: &Context,
    cmd: wgpu::CommandBuffer,
    stagings: Vec<(wgpu::Buffer, usize)>,
) -> Result<Vec<Vec<u8>>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        ctx.on_gpu_async(move |gpu| submit_and_read(gpu, cmd, &stagings))
            .await
    }
    #[cfg(target_arch = "wasm32")]
    {
        super::web::read_back(ctx.gpu(), cmd, &stagings, ctx.timeout()).await
    }
}

/// Submits `cmd`, which copies into the `stagings` (MAP_READ buffers), and
/// reads back the first `len` bytes of each. In a browser it fails at once:
/// a map completes on the event loop, which a synchronous call never yields
/// to.
#[cfg(target_arch = "wasm32")]
pub(crate) fn submit_and_read(
    _gpu: &Gpu,
    _cmd: wgpu::CommandBuffer,
    _stagings: &[(wgpu::Buffer, usize)],
) -> Result<Vec<Vec<u8>>> {
    Err(Error::Unsupported(
        "a synchronous read-back cannot complete in a browser: use the _async read".into(),
    ))
}

/// Submits `cmd`, which copies into the `stagings` (MAP_READ buffers), and
/// reads back the first `len` bytes of each.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn submit_and_read(
    gpu: &Gpu,
    cmd: wgpu::CommandBuffer,
    stagings: &[(wgpu::Buffer, usize)],
) -> Result<Vec<Vec<u8>>> {
    // One wait covers the work and the maps: map requests made after the
    // submit complete with it.
    let submission = gpu.submit(cmd)?;
    let (tx, rx) = std::sync::mpsc::channel();
    for (i, (s, _)) in stagings.iter().enumerate() {
        let tx = tx.clone();
        s.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send((i, r));
        });
    }
    drop(tx);
    gpu.wait(submission)?;
    let mut out = vec![Vec::new(); stagings.len()];
    let mut mapped = 0;
    for (i, r) in rx.try_iter() {
        mapped += 1;
        r.map_err(|e| map_error(format!("mapping a buffer for readback failed: {e}")))?;
        let (s, len) = &stagings[i];
        let view = s
            .slice(..)
            .get_mapped_range()
            .map_err(|e| map_error(format!("reading a mapped buffer failed: {e}")))?;
        out[i] = view[..*len].to_vec();
        drop(view);
        s.unmap();
    }
    if mapped != stagings.len() {
        return Err(map_error(format!(
            "only {mapped} of {} readback buffers were mapped",
            stagings.len()
        )));
    }
    Ok(out)
}

pub(crate) fn map_error(message: String) -> Error {
    Error::Wgpu {
        kind: crate::error::WgpuErrorKind::Map,
        message,
    }
}
