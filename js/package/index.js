// atomport for JavaScript: a shader (GLSL, SPIR-V or WGSL) translated to
// WGSL with its binding map, in a browser or in Node, by atomport's own
// translator and glslang compiled to WebAssembly; and a kernel run on a
// GPUDevice the caller owns (browsers: Node has no WebGPU).
import init, { translate as translateRaw } from './wasm/atomport_js.js';

let loading;

/** Loads the wasm once: in Node from this package's folder, in a browser by URL (or from `wasm`). */
export function load(wasm) {
  loading ??= (async () => {
    if (wasm === undefined && typeof process !== 'undefined' && process.versions?.node) {
      const { readFile } = await import('node:fs/promises');
      wasm = await readFile(new URL('./wasm/atomport_js_bg.wasm', import.meta.url));
    }
    await init(wasm === undefined ? undefined : { module_or_path: wasm });
  })();
  return loading;
}

/** An error atomport reports: `kind` is `shader` (with file, line and column), `usage` or `translation`. */
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
    dialect: t.dialect,
    bindings: t.bindings,
    overrides: t.overrides,
    warnings: t.warnings ?? [],
    translation: t,
  };
}

/** Translates a shader, loading the wasm on first use. */
export async function translate(source, options = {}) {
  await load();
  return translateSync(source, options);
}

const ARRAYS = { u32: Uint32Array, i32: Int32Array, f32: Float32Array };

function bindingKey(b) {
  return [b.name, b.block, `${b.group}.${b.binding}`].filter((k) => k !== undefined && k !== null);
}

/**
 * Runs a translated kernel on `device` (a GPUDevice): `groups` workgroups,
 * each storage or uniform buffer from `buffers` by GLSL name (block or
 * instance) or `GROUP.BINDING` (typed arrays or ArrayBuffers; missing ones
 * are zeros of the binding's least size). Resolves to every writable
 * buffer after the dispatch, by name, as a typed array of its element type.
 * Images, textures and samplers are bound by the caller's own WebGPU code:
 * this call refuses a kernel that has them, naming the binding.
 */
export async function run(device, kernel, { groups = [1, 1, 1], buffers = {} } = {}) {
  const gpu = globalThis.GPUBufferUsage;
  if (!gpu) throw new AtomportError({ kind: 'usage', message: 'run needs WebGPU (a browser); Node translates only' });
  const made = [];
  const entries = new Map();
  for (const b of kernel.bindings) {
    const uniform = b.kind === 'uniform';
    if (!uniform && !b.kind.startsWith('storage')) {
      throw new AtomportError({ kind: 'usage', message: `binding ${b.group}.${b.binding} (${b.name}) is a ${b.kind}: run() binds buffers only` });
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
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: kernel.entry } });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  for (const [group, list] of entries) {
    pass.setBindGroup(group, device.createBindGroup({ layout: pipeline.getBindGroupLayout(group), entries: list }));
  }
  pass.dispatchWorkgroups(...groups);
  pass.end();
  const reads = [];
  for (const m of made.filter((m) => m.b.kind === 'storage_read_write')) {
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
    out[m.b.name] = new (ARRAYS[m.b.element] ?? Uint8Array)(copy);
  }
  for (const m of made) m.buffer.destroy();
  return out;
}
