// atomport for JavaScript: a shader (GLSL, SPIR-V or WGSL) translated to
// WGSL with its binding map, in a browser or in Node, by atomport's own
// translator and glslang compiled to WebAssembly; and a kernel run on a
// GPUDevice the caller owns (browsers: Node has no WebGPU).
import init, { translate as translateRaw } from './wasm/atomport_js.js';

let loading;
// What load() was given, for the translation worker to load the same.
let loadedFrom;
const inNode = typeof process !== 'undefined' && !!process.versions?.node;

/** Loads the wasm once: in Node from this package's folder, in a browser by URL (or from `wasm`). */
export function load(wasm) {
  loadedFrom ??= wasm instanceof URL ? wasm.href : wasm;
  loading ??= (async () => {
    if (wasm === undefined && inNode) {
      const { readFile } = await import('node:fs/promises');
      wasm = await readFile(new URL('./wasm/atomport_js_bg.wasm', import.meta.url));
    }
    await init(wasm === undefined ? undefined : { module_or_path: wasm });
  })();
  return loading;
}

/** An error atomport reports: `kind` is `shader` (with file, line and column), `usage`, `translation`, `timeout` or `webgpu` (the device refused a dispatch). */
export class AtomportError extends Error {
  constructor(report) {
    super(report.message);
    this.name = 'AtomportError';
    this.kind = report.kind;
    this.file = report.file ?? undefined;
    this.line = report.line ?? undefined;
    this.column = report.column ?? undefined;
  }
}

function langOf(source, lang) {
  if (lang) return lang;
  return typeof source === 'string' ? (/@compute\b/.test(source) ? 'wgsl' : 'glsl') : 'spirv';
}

/** Translates after `load()`: the WGSL, the binding map, the warnings. */
export function translateSync(source, options = {}) {
  const { lang, files, ...rest } = options;
  const bytes = typeof source === 'string' ? new TextEncoder().encode(source)
    : source instanceof Uint32Array ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
      : new Uint8Array(source);
  const json = JSON.stringify({ ...rest, files: files ?? {} });
  let out;
  try {
    out = translateRaw(bytes, langOf(source, lang), json);
  } catch (e) {
    let report;
    try { report = JSON.parse(String(e)); } catch { throw e; }
    throw new AtomportError(report);
  }
  const t = JSON.parse(out);
  return {
    wgsl: t.wgsl,
    entry: t.entry,
    workgroupSize: t.workgroup_size,
    workgroupSplit: t.workgroup_split ?? [1, 1, 1],
    dialect: t.dialect,
    bindings: t.bindings,
    overrides: t.overrides,
    warnings: t.warnings ?? [],
    translation: t,
  };
}

// The translation worker, started on first use and again after a timeout
// ended it; translations queue on it one at a time, so that each one's
// time starts when it starts.
let worker;
let queue = Promise.resolve();

async function startWorker() {
  const url = new URL('./worker.js', import.meta.url);
  let w;
  if (inNode) {
    const { Worker: NodeWorker } = await import('node:worker_threads');
    const t = new NodeWorker(url);
    // An idle worker does not keep Node running (a pending translation's
    // timer does): unref after the listeners, which ref it again.
    w = { post: (m) => t.postMessage(m), end: () => t.terminate(), on: (f) => { t.on('message', f); t.on('error', (e) => f({ crashed: e })); t.unref(); } };
  } else {
    const t = new Worker(url, { type: 'module' });
    w = { post: (m) => t.postMessage(m), end: () => t.terminate(), on: (f) => { t.onmessage = (e) => f(e.data); t.onerror = (e) => { e.preventDefault?.(); f({ crashed: e.message ?? e }); }; } };
  }
  w.pending = new Map();
  w.on((m) => {
    const answer = m.crashed === undefined ? w.pending.get(m.id) : [...w.pending.values()][0];
    if (!answer) return;
    w.pending.delete(m.id);
    if (m.crashed !== undefined) {
      w.retire();
      answer.fail(new Error(`the translation worker failed: ${m.crashed?.message ?? m.crashed}`));
    } else if (m.error) answer.fail(new AtomportError(m.error));
    else answer.done(m.result);
  });
  return w;
}

let nextId = 0;
async function translateInWorker(source, options, seconds) {
  const started = (worker ??= startWorker());
  const w = await started;
  // Ends this worker; the next translation starts another.
  w.retire = () => {
    if (worker === started) worker = undefined;
    w.end();
  };
  const id = nextId++;
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      // glslang cannot be interrupted: the worker goes, and the next
      // translation starts a fresh one (which builds glslang's tables again).
      w.pending.delete(id);
      w.retire();
      const name = options.name ?? 'the shader';
      fail(new AtomportError({ kind: 'timeout',
        message: `translating ${name} did not finish within ${seconds} s (timeout); the shader may be too large` }));
    }, seconds * 1000);
    w.pending.set(id, {
      done: (r) => { clearTimeout(timer); done(r); },
      fail: (e) => { clearTimeout(timer); fail(e); },
    });
    w.post({ id, source, options, wasm: loadedFrom });
  });
}

/**
 * Translates a shader on a worker thread, loading the wasm there on first
 * use. `options.timeout` bounds it (seconds, default 30, as `atomport
 * translate --timeout`): one that does not finish in time rejects with an
 * AtomportError of kind `timeout`, and the next translation works. With
 * `timeout: null`, or where there are no workers, it translates on this
 * thread, unbounded, as `translateSync` does.
 */
export async function translate(source, options = {}) {
  const { timeout = 30, ...rest } = options;
  if (timeout !== null && (typeof timeout !== 'number' || !(timeout > 0))) {
    throw new AtomportError({ kind: 'usage', message: `timeout: ${timeout} is not a number of seconds above 0 (or null)` });
  }
  if (timeout === null || (!inNode && typeof Worker === 'undefined')) {
    await load();
    return translateSync(source, rest);
  }
  const job = queue.then(() => translateInWorker(source, rest, timeout));
  queue = job.catch(() => {});
  return job;
}

const ARRAYS = { u32: Uint32Array, i32: Int32Array, f32: Float32Array };

// The names a binding is given by: its own, its block's, those of the
// blocks declared at its binding that it serves (`also`), and GROUP.BINDING.
function bindingKey(b) {
  return [b.name, b.block, ...(b.also ?? []), `${b.group}.${b.binding}`].filter((k) => k !== undefined && k !== null);
}

/** Bytes a texel of the GLSL image format takes. */
function texelBytes(format) {
  if (['rgb10_a2', 'rgb10_a2ui', 'r11f_g11f_b10f'].includes(format)) return 4;
  const m = /^(rgba|rg|r)(8|16|32|64)/.exec(format);
  if (!m) throw new AtomportError({ kind: 'usage', message: `image format ${format} has no texel size here` });
  return (m[1].length * Number(m[2])) / 8;
}

/** An image's width, height and layers (6 a cube) from `imageSize`'s numbers. */
function imageExtent(dim, size) {
  const [w, h = 1, l = 1] = size;
  switch (dim) {
    case '1d': case 'buffer': return [w, 1, 1];
    case '1darray': return [w, 1, h];
    case '2d': case '2drect': case '2dms': return [w, h, 1];
    case 'cube': return [w, h, 6];
    case 'cubearray': return [w, h, 6 * l];
    default: return [w, h, l];
  }
}

/**
 * A storage image as the translation holds it (a texel buffer): its
 * bytes (a 16-byte header, the texels in texel order, one spare texel) and
 * its overrides' values (width, height, layers, samples).
 */
function imageBuffer(b, name, given) {
  if (!given || !Array.isArray(given.size)) {
    throw new AtomportError({ kind: 'usage', message: `image ${name}: give it as { size: [imageSize's numbers], data?, samples? }` });
  }
  const samples = given.samples ?? 1;
  const [w, h, layers] = imageExtent(b.dim, given.size);
  const count = w * h * layers * samples;
  const texels = count * texelBytes(b.format);
  // The spare texel follows the last; the buffer is whole words.
  const bytes = new Uint8Array(16 + Math.ceil((texels + texelBytes(b.format)) / 4) * 4);
  new Uint32Array(bytes.buffer, 0, 4).set([w, h, layers, samples]);
  if (given.data !== undefined) {
    const data = ArrayBuffer.isView(given.data)
      ? new Uint8Array(given.data.buffer, given.data.byteOffset, given.data.byteLength) : new Uint8Array(given.data);
    if (data.byteLength !== texels) {
      throw new AtomportError({ kind: 'usage', message: `image ${name}: ${data.byteLength} bytes of texels, where a ${b.format} ${b.dim} image of ${given.size.join('x')} holds ${texels}` });
    }
    bytes.set(data, 16);
  }
  const heightful = !['1d', '1darray', 'buffer'].includes(b.dim);
  // `texels`: how many bytes the texels take.
  return { bytes, texels, values: [w, heightful ? h : 1, layers, samples] };
}

/** An image's texels as a typed array: of the channel's type for 32-bit one-channel formats, bytes otherwise. */
const IMAGE_ARRAYS = { r32ui: Uint32Array, r32i: Int32Array, r32f: Float32Array };

/** Bytes a texel of a WebGPU texture format takes (of its only aspect for depth). */
function formatBytes(format) {
  const special = { rgb10a2unorm: 4, rgb10a2uint: 4, rg11b10ufloat: 4, rgb9e5ufloat: 4, depth16unorm: 2, depth32float: 4 };
  if (format in special) return special[format];
  const m = /^(rgba|bgra|rg|r)(8|16|32)(unorm|snorm|uint|sint|float)(-srgb)?$/.exec(format);
  if (!m) throw new AtomportError({ kind: 'usage', message: `texture format ${format} has no texel size here: give a GPUTexture of it instead` });
  return ((m[1] === 'bgra' ? 4 : m[1].length) * Number(m[2])) / 8;
}

// What each sample type is made of when the caller names no format: the
// filterable or integer four-channel format a host most often binds.
const TEXTURE_FORMATS = { float: 'rgba8unorm', uint: 'rgba32uint', sint: 'rgba32sint', depth: 'depth16unorm' };
const VIEW_DIMENSIONS = { '1d': '1d', '2d': '2d', '2darray': '2d-array', cube: 'cube', cubearray: 'cube-array', '3d': '3d' };
// The address modes the translation's override takes, for integer
// textures sampled as the fetch a nearest sampler makes.
const ADDRESS_CODES = { 'clamp-to-edge': 0, repeat: 1, 'mirror-repeat': 2 };

/**
 * A sampled texture for `b`: the caller's GPUTexture or GPUTextureView, or
 * one made from `{ size, format?, data?, levels? }` (`data` level 0's texels,
 * or an array of each level's, rows of texels in texel order). With it the
 * layer count the translation reads as an override.
 */
function sampledTexture(device, b, name, given, made) {
  const t = b.texture ?? {};
  const viewDimension = VIEW_DIMENSIONS[t.dim];
  if (given === undefined) {
    throw new AtomportError({ kind: 'usage', message: `texture ${name} is not given: pass it in textures, as a GPUTexture or { size, format?, data? }` });
  }
  const layersOf = (texture) => (t.dim === 'cubearray' ? texture.depthOrArrayLayers / 6 : texture.depthOrArrayLayers);
  if (typeof GPUTextureView !== 'undefined' && given instanceof GPUTextureView) {
    if (b.layers_override !== undefined) {
      throw new AtomportError({ kind: 'usage', message: `texture ${name}: the kernel reads its layer count, which a view does not tell: pass its GPUTexture` });
    }
    return { view: given };
  }
  if (typeof GPUTexture !== 'undefined' && given instanceof GPUTexture) {
    return { view: given.createView({ dimension: viewDimension }), layers: layersOf(given) };
  }
  if (!Array.isArray(given.size)) {
    throw new AtomportError({ kind: 'usage', message: `texture ${name}: give it as a GPUTexture or { size: [textureSize's numbers], format?, data?, levels? }` });
  }
  const format = given.format ?? TEXTURE_FORMATS[t.sample];
  if (t.multisampled && given.data !== undefined) {
    throw new AtomportError({ kind: 'usage', message: `texture ${name} is multisampled, and WebGPU writes no texels into one: pass a GPUTexture you drew` });
  }
  const [width, height, layers] = imageExtent(t.dim, given.size);
  const levels = given.levels ?? (Array.isArray(given.data) ? given.data.length : 1);
  const texture = device.createTexture({
    size: [width, height, layers],
    format,
    dimension: t.dim === '1d' ? '1d' : t.dim === '3d' ? '3d' : '2d',
    mipLevelCount: levels,
    sampleCount: t.multisampled ? 4 : 1,
    usage: globalThis.GPUTextureUsage.TEXTURE_BINDING | globalThis.GPUTextureUsage.COPY_DST
      | (t.multisampled ? globalThis.GPUTextureUsage.RENDER_ATTACHMENT : 0),
  });
  made.push(texture);
  const data = given.data === undefined ? [] : Array.isArray(given.data) ? given.data : [given.data];
  if (data.length > levels) {
    throw new AtomportError({ kind: 'usage', message: `texture ${name}: ${data.length} levels of texels for a texture of ${levels}` });
  }
  if (data.length > 0 && format === 'depth32float') {
    throw new AtomportError({ kind: 'usage', message: `texture ${name}: WebGPU copies no texels into depth32float: use depth16unorm, or pass a GPUTexture you drew` });
  }
  const bytes = formatBytes(format);
  data.forEach((level, l) => {
    const w = Math.max(width >> l, 1);
    const h = t.dim === '1d' ? 1 : Math.max(height >> l, 1);
    const d = t.dim === '3d' ? Math.max(layers >> l, 1) : layers;
    const view = ArrayBuffer.isView(level) ? new Uint8Array(level.buffer, level.byteOffset, level.byteLength) : new Uint8Array(level);
    if (view.byteLength !== w * h * d * bytes) {
      throw new AtomportError({ kind: 'usage', message: `texture ${name}: ${view.byteLength} bytes of texels at level ${l}, where ${w}x${h}x${d} of ${format} hold ${w * h * d * bytes}` });
    }
    device.queue.writeTexture({ texture, mipLevel: l }, view, { bytesPerRow: w * bytes, rowsPerImage: h }, [w, h, d]);
  });
  return { view: texture.createView({ dimension: viewDimension }), layers: layersOf(texture) };
}

/**
 * A sampler for `b`: the caller's GPUSampler, or one made from a
 * GPUSamplerDescriptor (WebGPU's default, nearest and clamp to edge, when
 * absent; a comparison sampler must be given its `compare`). An integer
 * texture sampled through it takes its address mode as an override, so it
 * must come as a nearest descriptor.
 */
function sampler(device, b, name, given) {
  const integer = b.address_override !== undefined;
  if (typeof GPUSampler !== 'undefined' && given instanceof GPUSampler) {
    if (integer) {
      throw new AtomportError({ kind: 'usage', message: `sampler ${name}: an integer texture is sampled through it, and the kernel needs its address mode, which a GPUSampler does not tell: give its descriptor` });
    }
    return { sampler: given };
  }
  const desc = given ?? {};
  if (b.comparison && desc.compare === undefined) {
    throw new AtomportError({ kind: 'usage', message: `sampler ${name} compares (a shadow sampler): give its descriptor with a compare function` });
  }
  let address;
  if (integer) {
    if ((desc.minFilter ?? 'nearest') !== 'nearest' || (desc.magFilter ?? 'nearest') !== 'nearest') {
      throw new AtomportError({ kind: 'usage', message: `sampler ${name} filters linearly, and an integer texture is sampled through it: integer textures are read through nearest samplers only` });
    }
    address = ADDRESS_CODES[desc.addressModeU ?? 'clamp-to-edge'];
  }
  return { sampler: device.createSampler(desc), address };
}

/**
 * Runs a translated kernel on `device` (a GPUDevice): `groups` workgroups,
 * each storage or uniform buffer from `buffers` by GLSL name (block or
 * instance) or `GROUP.BINDING` (typed arrays or ArrayBuffers; missing ones
 * are zeros of the binding's least size), each storage image from
 * `images` by name (`{ size: [imageSize's numbers], data?: texel bytes in
 * texel order, samples? }`; an array's elements as `NAME[k]`), each
 * sampled texture from `textures` (a GPUTexture, or `{ size:
 * [textureSize's numbers], format?, data?, levels? }`) and each sampler
 * from `samplers` (a GPUSampler or a GPUSamplerDescriptor), by name, or
 * for a combined `sampler2D` both by its GLSL name. Resolves to every
 * writable buffer and every image after the dispatch, by name, as a typed
 * array (a buffer's of its element type, an image's texels as
 * `Uint32Array`, `Int32Array` or `Float32Array` for r32ui, r32i and r32f,
 * bytes otherwise).
 */
export async function run(device, kernel, options = {}) {
  if (!globalThis.GPUBufferUsage) throw new AtomportError({ kind: 'usage', message: 'run needs WebGPU (a browser); Node translates only' });
  // What run() made, destroyed however it ends (the caller's own are not).
  const made = [];
  const textureMade = [];
  // WebGPU reports a refused pipeline or binding later, on the device:
  // caught here, it rejects this call instead of leaving zeros.
  device.pushErrorScope('validation');
  let out;
  try {
    out = await dispatch(device, kernel, options, made, textureMade);
  } finally {
    const error = await device.popErrorScope();
    for (const m of made) m.buffer.destroy();
    for (const t of textureMade) t.destroy();
    if (error) throw new AtomportError({ kind: 'webgpu', message: `WebGPU refused the dispatch of ${kernel.entry}: ${error.message}` });
  }
  return out;
}

async function dispatch(device, kernel, { groups = [1, 1, 1], buffers = {}, images = {}, textures = {}, samplers = {} }, made, textureMade) {
  const gpu = globalThis.GPUBufferUsage;
  const entries = new Map();
  const constants = {};
  for (const b of kernel.bindings) {
    if (b.kind === 'image') {
      // An array held in one buffer (`packed`) takes its elements one
      // after another, each at a multiple of 16 bytes.
      const elements = b.packed ? b.packed.map((e, k) => [`${b.name}[${k}]`, e.size_overrides, e.offset_override])
        : [[b.name, b.size_overrides, undefined]];
      const parts = [];
      let offset = 0;
      for (const [name, ids, offsetId] of elements) {
        const image = imageBuffer(b, name, images[name]);
        ids.forEach((id, k) => { constants[id] = image.values[k]; });
        if (offsetId !== undefined) constants[offsetId] = offset / texelBytes(b.format);
        parts.push({ name, image, offset });
        offset += Math.ceil(image.bytes.byteLength / 16) * 16;
      }
      const size = parts.at(-1).offset + parts.at(-1).image.bytes.byteLength;
      const buffer = device.createBuffer({ size, usage: gpu.STORAGE | gpu.COPY_SRC | gpu.COPY_DST });
      for (const p of parts) device.queue.writeBuffer(buffer, p.offset, p.image.bytes);
      made.push({ b, buffer, size, parts });
      if (!entries.has(b.group)) entries.set(b.group, []);
      entries.get(b.group).push({ binding: b.binding, resource: { buffer } });
      continue;
    }
    if (b.kind === 'sampled_texture' || b.kind === 'sampler') {
      const keys = [b.name, b.combined, `${b.group}.${b.binding}`].filter((k) => k !== undefined && k !== null);
      const from = b.kind === 'sampler' ? samplers : textures;
      const key = keys.find((k) => k in from);
      const given = key === undefined ? undefined : from[key];
      let resource;
      if (b.kind === 'sampler') {
        const s = sampler(device, b, b.combined ?? b.name, given);
        if (s.address !== undefined) constants[b.address_override] = s.address;
        resource = s.sampler;
      } else {
        const t = sampledTexture(device, b, b.combined ?? b.name, given, textureMade);
        if (b.layers_override !== undefined) constants[b.layers_override] = t.layers;
        resource = t.view;
      }
      if (!entries.has(b.group)) entries.set(b.group, []);
      entries.get(b.group).push({ binding: b.binding, resource });
      continue;
    }
    const uniform = b.kind === 'uniform';
    if (!uniform && !b.kind.startsWith('storage_read')) {
      throw new AtomportError({ kind: 'usage', message: `binding ${b.group}.${b.binding} (${b.name}) is a ${b.kind}, which run() does not bind: translate with target: 'webgpu', which holds storage images in buffers` });
    }
    const key = bindingKey(b).find((k) => k in buffers);
    const given = key === undefined ? undefined : buffers[key];
    const bytes = given === undefined ? new Uint8Array(b.min_size)
      : ArrayBuffer.isView(given) ? new Uint8Array(given.buffer, given.byteOffset, given.byteLength) : new Uint8Array(given);
    if (bytes.byteLength < b.min_size) {
      throw new AtomportError({ kind: 'usage', message: `${key}: ${bytes.byteLength} bytes, under the ${b.min_size} the kernel needs` });
    }
    const size = Math.max(4, Math.ceil(bytes.byteLength / 4) * 4);
    const usage = (uniform ? gpu.UNIFORM : gpu.STORAGE | gpu.COPY_SRC) | gpu.COPY_DST;
    const buffer = device.createBuffer({ size, usage });
    const padded = new Uint8Array(size);
    padded.set(bytes);
    device.queue.writeBuffer(buffer, 0, padded);
    made.push({ b, buffer, size });
    if (!entries.has(b.group)) entries.set(b.group, []);
    entries.get(b.group).push({ binding: b.binding, resource: { buffer } });
  }
  const module = device.createShaderModule({ code: kernel.wgsl });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: kernel.entry, constants } });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  for (const [group, list] of entries) {
    pass.setBindGroup(group, device.createBindGroup({ layout: pipeline.getBindGroupLayout(group), entries: list }));
  }
  // A workgroup split for WebGPU's limits is several of the WGSL's.
  const split = kernel.workgroupSplit ?? [1, 1, 1];
  pass.dispatchWorkgroups(...[0, 1, 2].map((k) => (groups[k] ?? 1) * split[k]));
  pass.end();
  const reads = [];
  for (const m of made.filter((m) => m.b.kind === 'storage_read_write' || m.b.kind === 'image')) {
    const staging = device.createBuffer({ size: m.size, usage: gpu.MAP_READ | gpu.COPY_DST });
    encoder.copyBufferToBuffer(m.buffer, 0, staging, 0, m.size);
    reads.push({ m, staging });
  }
  device.queue.submit([encoder.finish()]);
  const out = {};
  for (const { m, staging } of reads) {
    await staging.mapAsync(globalThis.GPUMapMode.READ);
    const copy = staging.getMappedRange().slice(0);
    staging.unmap();
    staging.destroy();
    if (m.parts) {
      for (const p of m.parts) {
        const texels = copy.slice(p.offset + 16, p.offset + 16 + p.image.texels);
        out[p.name] = new (IMAGE_ARRAYS[m.b.format] ?? Uint8Array)(texels);
      }
      continue;
    }
    out[m.b.name] = new (ARRAYS[m.b.element] ?? Uint8Array)(copy);
  }
  return out;
}
