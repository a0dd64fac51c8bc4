// Drives atomport in Debian's headless Chromium (WebGPU on SwiftShader):
//
//   node run.mjs suite ROOT       the browser suite: every job in target/web/jobs.json, the
//                                 conformance matrix with target/web/conformance.json,
//                                 atomport's barrier verdicts in target/web/uniformity.json
//                                 against Tint's, target/web/glsl.json's shaders the page's
//                                 glslang must refuse cleanly, the
//                                 dispatch-overhead benchmark, and the error without WebGPU;
//                                 ends with one line, `N passed, M failed` (exit 1 if M > 0)
//   node run.mjs serve ROOT [PORT] serves the demo at http://localhost:PORT/ (and playground.html) until stopped
//   node run.mjs screenshot ROOT OUT.png  the demo page, rendered, as a PNG
//   node run.mjs playground-screenshot ROOT OUT.png  the playground after Run, as a PNG
//   node run.mjs outputs ROOT IN.json OUT.json  runs each job of IN.json (`atomport check
//                                 --browser`'s: a translation and `run`'s flags) and writes
//                                 each one's bindings, [{"bindings":[{group,binding,hex}]}
//                                 or {"error"}], to OUT.json
//   node run.mjs figures ROOT [SHADER…]  GLSL at run time in the page against natively: per
//                                 shader (default: a 30-line and a 300-line one), the first
//                                 translation in a fresh page and the median of 20 after it,
//                                 beside the same translation natively (`cargo bench --bench
//                                 translate -- --web`, wall time both), and the page's memory
//                                 (wasm and JS heap) after 100 translations
//   node run.mjs package ROOT IN.json OUT.json  translates each shader of IN.json
//                                 ([{name, source, options, async}]; async: through translate()'s
//                                 worker, else translateSync) in Node through the JavaScript
//                                 package ($ATOMPORT_WEB_DIR/npm/atomport) and writes each one's
//                                 translation (atomport's JSON) or error, [{translation}|{error}]
//
// ROOT is the repository; the pages load the wasm from $ATOMPORT_WEB_DIR/pkg (ROOT/target/web/pkg).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [mode, root = '.', third, fourth] = process.argv.slice(2);
// Where scripts/build-web and the suite's native side wrote (ROOT/target/web by default).
const webDir = process.env.ATOMPORT_WEB_DIR || path.join(root, 'target/web');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.css': 'text/css' };
// What a case or page may take before it counts as hung.
const CASE_MS = 120_000;

// Static files: the pages from examples/web/www at /, the wasm and its glue at /pkg/.
function serve(port = 0) {
  const www = path.join(root, 'examples/web/www');
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const rel = url === '/' ? 'index.html' : url.slice(1);
    const where = rel.startsWith('pkg/') || rel.startsWith('npm/') ? path.join(webDir, rel) : path.join(www, rel);
    const file = url.includes('..') || !fs.existsSync(where) || !fs.statSync(where).isFile() ? undefined : where;
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

async function browser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
      '--use-webgpu-adapter=swiftshader', '--use-vulkan=swiftshader', '--disable-quic',
      '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync'],
  });
}

function timed(promise, what) {
  let timer;
  const timeout = new Promise((_, no) => { timer = setTimeout(() => no(new Error(`${what}: no answer in ${CASE_MS / 1000} s`)), CASE_MS); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function openSuite(b, base, init) {
  const context = await b.newContext();
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${base}/suite.html`);
  await page.waitForFunction(() => window.suiteLoaded, null, { timeout: CASE_MS });
  const error = await page.evaluate(() => window.suiteError);
  if (error) throw new Error(`the suite page did not load: ${error}`);
  return page;
}

async function suite() {
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const b = await browser();
  const results = { checks: [], bench: [] };
  let passed = 0, failed = 0, skipped = 0;
  const record = (group, v) => {
    results.checks.push({ group, ...v });
    if (v.skipped) { skipped++; console.log(`skip ${group} ${v.name}: ${v.skipped}`); }
    else if (v.passed) passed++;
    else { failed++; console.log(`FAIL ${group} ${v.name}: ${v.detail}`); }
  };
  try {
    const page = await openSuite(b, base);
    results.adapter = await page.evaluate(() => window.suite.adapter());
    console.log(`adapter: ${results.adapter}`);
    // The first GLSL translation in a page builds glslang's tables; later ones do not.
    const luma = fs.readFileSync(path.join(root, 'examples/histogram/luma.comp'), 'utf8');
    const translate = (name, source) => page.evaluate(([n, s]) => {
      const start = performance.now();
      try { return { ok: window.suite.translateGlsl(n, s), ms: performance.now() - start }; } catch (e) { return { error: String(e) }; }
    }, [name, source]);
    const first = await translate('luma.comp', luma);
    const again = await translate('luma.comp', luma);
    console.log(`GLSL in the page: the first translation ${first.ms?.toFixed(0)} ms, the next ${again.ms?.toFixed(1)} ms (examples/histogram/luma.comp)`);
    // Golden and demo kernels, each against lavapipe's run.
    const jobs = JSON.parse(fs.readFileSync(path.join(webDir, 'jobs.json'), 'utf8'));
    for (const c of jobs) {
      let v;
      try {
        v = JSON.parse(await timed(page.evaluate((c) => window.suite.job(c), JSON.stringify(c)), c.name));
      } catch (e) {
        v = { name: c.name, passed: false, detail: String(e.message || e) };
      }
      record('job', v);
    }
    // The conformance matrix, against atomport's CPU reference model.
    const translations = fs.readFileSync(path.join(webDir, 'conformance.json'), 'utf8');
    await page.evaluate((t) => window.suite.conformanceLoad(t), translations);
    const names = await page.evaluate(() => window.suite.conformanceCases());
    for (const name of names) {
      let v;
      try {
        v = JSON.parse(await timed(page.evaluate((n) => window.suite.conformanceCase(n), name), name));
      } catch (e) {
        v = { name, passed: false, detail: String(e.message || e) };
      }
      record('conformance', v);
    }
    // Barriers: atomport's verdict (keep, or refuse the shader) against Tint's.
    for (const c of JSON.parse(fs.readFileSync(path.join(webDir, 'uniformity.json'), 'utf8'))) {
      let v;
      try {
        const t = await timed(page.evaluate((w) => window.suite.tint(w), c.wgsl), c.name);
        const agrees = (c.atomport === 'keep') === t.accepted;
        v = { name: c.name, passed: agrees,
          detail: agrees ? '' : `atomport: ${c.atomport}; Tint: ${t.accepted ? 'accepts' : t.message}` };
      } catch (e) {
        v = { name: c.name, passed: false, detail: String(e.message || e) };
      }
      record('uniformity', v);
    }
    // GLSL the page's glslang must refuse cleanly; after each, a kernel must still translate.
    const after = luma;
    for (const c of JSON.parse(fs.readFileSync(path.join(webDir, 'glsl.json'), 'utf8'))) {
      let v;
      try {
        const r = await timed(translate(c.name, c.source), c.name);
        const e = r.error;
        const ok = e === undefined ? Boolean(c.or_translates)
          : (c.error === undefined || e === c.error) && (c.error_starts === undefined || e.startsWith(c.error_starts))
            && (c.error_has === undefined || e.includes(c.error_has)) && !e.includes('internal error');
        const next = await timed(translate('luma.comp', after), 'luma.comp');
        v = { name: c.name, passed: ok && next.ok !== undefined,
          detail: !ok ? `said: ${e === undefined ? 'translated' : e}` : next.ok === undefined ? `the next translation failed: ${next.error}` : '' };
        console.log(`glsl ${c.name}: ${e === undefined ? 'translated' : e.split('\n')[0]}`);
      } catch (e) {
        v = { name: c.name, passed: false, detail: String(e.message || e) };
      }
      record('glsl', v);
    }
    // The JavaScript package in the page: GLSL translated there, run on the page's own
    // GPUDevice, its counts checked against the same count made here.
    const values = Array.from({ length: 1000 }, (_, i) => (i * 2654435761) >>> 0);
    const want = new Array(16).fill(0);
    for (const v of values) want[v % 16]++;
    const counted = await timed(page.evaluate(async (values) => {
      const atomport = await import('/npm/atomport/index.js');
      const glsl = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { uint count; uint values[]; };
layout(set = 0, binding = 1) buffer Histogram { uint bins[BINS]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < count) atomicAdd(bins[values[i] % BINS], 1u);
}`;
      const kernel = await atomport.translate(glsl, { name: 'count.comp', target: 'webgpu', defines: ['BINS=16'] });
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const out = await atomport.run(device, kernel, {
        groups: [Math.ceil(values.length / 64), 1, 1],
        buffers: { Input: new Uint32Array([values.length, ...values]) },
      });
      device.destroy();
      return { type: out.Histogram.constructor.name, bins: Array.from(out.Histogram) };
    }, values), 'package run');
    const same = counted.type === 'Uint32Array' && JSON.stringify(counted.bins) === JSON.stringify(want);
    record('package', { name: 'GLSL translated and run on the page\'s GPUDevice through the JavaScript package', passed: same,
      detail: same ? '' : `${counted.type} ${counted.bins}, where the count here is ${want}` });
    // A translation past its timeout ends its worker, not the page; the
    // next one runs on a fresh worker.
    const bounded = await timed(page.evaluate(async () => {
      const atomport = await import('/npm/atomport/index.js');
      let bomb = '#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { float v[]; };\n#define A0 1\n';
      for (let i = 1; i <= 26; i++) bomb += `#define A${i} (A${i - 1} + A${i - 1})\n`;
      bomb += '#if A26 > 0\nvoid main() { v[1] = 1.0; }\n#endif\n';
      const start = performance.now();
      let error;
      try { await atomport.translate(bomb, { name: 'bomb.comp', timeout: 2 }); } catch (e) { error = { kind: e.kind, message: e.message }; }
      const ms = performance.now() - start;
      const next = await atomport.translate('#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint n; };\nvoid main() { atomicAdd(n, 1u); }\n', { target: 'webgpu' });
      return { error, ms, next: next.wgsl.includes('atomicAdd') };
    }), 'package timeout');
    const boundedOk = bounded.error?.kind === 'timeout' && bounded.error.message.startsWith('translating bomb.comp did not finish within 2 s')
      && bounded.ms < 10_000 && bounded.next;
    record('package', { name: 'a translation past its timeout rejects (its worker ended, the page alive) and the next one works', passed: boundedOk,
      detail: boundedOk ? '' : JSON.stringify(bounded) });
    // Images through the package: a mip chain of twelve r32ui levels, which
    // the translation holds in one buffer (past eight storage buffers),
    // each level's texels counted up by a value naming the level and texel.
    const mips = await timed(page.evaluate(async () => {
      const atomport = await import('/npm/atomport/index.js');
      const glsl = `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D mips[12];
layout(set = 0, binding = 1) buffer Sizes { ivec2 size[12]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  for (int k = 0; k < 12; ++k) {
    ivec2 s = imageSize(mips[k]);
    if (p == ivec2(0)) size[k] = s;
    if (all(lessThan(p, s))) {
      imageStore(mips[k], p, uvec4(imageLoad(mips[k], p).x + uint(k) * 100000u + uint(p.y) * 100u + uint(p.x)));
    }
  }
}`;
      const kernel = await atomport.translate(glsl, { name: 'mips.comp', target: 'webgpu' });
      const size = (l) => [Math.max(40 >> l, 1), Math.max(24 >> l, 1)];
      const images = {};
      for (let l = 0; l < 12; l++) {
        const [w, h] = size(l);
        images[`mips[${l}]`] = { size: [w, h], data: Uint32Array.from({ length: w * h }, (_, i) => 7 * l + i) };
      }
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const out = await atomport.run(device, kernel, { groups: [5, 3, 1], images });
      device.destroy();
      const wrong = [];
      for (let l = 0; l < 12; l++) {
        const [w, h] = size(l);
        const want = Array.from({ length: w * h }, (_, i) => 7 * l + i + l * 100000 + Math.floor(i / w) * 100 + (i % w));
        const got = Array.from(out[`mips[${l}]`] ?? []);
        if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`level ${l}: ${got.slice(0, 4)}…, not ${want.slice(0, 4)}…`);
        const s = Array.from(new Int32Array(out.Sizes.buffer)).slice(2 * l, 2 * l + 2);
        if (s[0] !== w || s[1] !== h) wrong.push(`size ${l}: ${s}`);
      }
      return { packed: (kernel.bindings.find((b) => b.name === 'mips')?.packed ?? []).length, wrong };
    }), 'package images');
    const mipsOk = mips.packed === 12 && mips.wrong.length === 0;
    record('package', { name: 'a mip chain of images run through the JavaScript package, its levels in one buffer', passed: mipsOk,
      detail: mipsOk ? '' : `packed ${mips.packed}; ${mips.wrong.join('; ')}` });
    // A 32x32 workgroup (1024 invocations, past the 256 SwiftShader grants)
    // that shares nothing between its invocations: the page's translation
    // splits it and run() multiplies the counts; each invocation records
    // the built-ins it saw, which must be the shader's own.
    const wide = await timed(page.evaluate(async () => {
      const atomport = await import('/npm/atomport/index.js');
      const glsl = `#version 450
layout(local_size_x = 32, local_size_y = 32) in;
layout(set = 0, binding = 0) buffer Seen { uvec4 seen[]; };
void main() {
  uvec3 g = gl_GlobalInvocationID;
  seen[g.y * 64u + g.x] = uvec4(gl_WorkGroupID.x * 10u + gl_WorkGroupID.y, gl_LocalInvocationIndex,
                                gl_NumWorkGroups.x * 10u + gl_NumWorkGroups.y, g.x + g.y);
}`;
      const kernel = await atomport.translate(glsl, { name: 'wide.comp', target: 'webgpu' });
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const out = await atomport.run(device, kernel, { groups: [2, 2, 1], buffers: { Seen: new Uint32Array(64 * 64 * 4) } });
      device.destroy();
      // A buffer of uvec4s comes back as bytes (its elements are vectors).
      const seen = new Uint32Array(out.Seen.buffer, out.Seen.byteOffset, out.Seen.byteLength / 4);
      const wrong = [];
      for (let y = 0; y < 64; y++) {
        for (let x = 0; x < 64; x++) {
          const want = [Math.floor(x / 32) * 10 + Math.floor(y / 32), (x % 32) + (y % 32) * 32, 22, x + y];
          for (let k = 0; k < 4; k++) {
            const got = seen[(y * 64 + x) * 4 + k];
            if (got !== want[k] && wrong.length < 4) wrong.push(`(${x}, ${y})[${k}] ${got}, not ${want[k]}`);
          }
        }
      }
      return { split: kernel.workgroupSplit, wrong };
    }), 'package wide workgroup');
    const wideOk = JSON.stringify(wide.split) === '[2,2,1]' && wide.wrong.length === 0;
    record('package', { name: 'a 32x32 workgroup split for the browser\'s limits, run through the JavaScript package', passed: wideOk,
      detail: wideOk ? '' : `split ${wide.split}; ${wide.wrong.join('; ')}` });
    // Sampled textures and samplers through the package, in a G-buffer
    // statistics pass: a combined float texture read with texelFetch, an
    // integer one sampled one texel to the right through a repeat sampler
    // (the translation reads its address mode), a separate array texture
    // whose layer count the kernel asks for, and a depth comparison; each
    // count checked against the same counts made here.
    const sampled = await timed(page.evaluate(async () => {
      const atomport = await import('/npm/atomport/index.js');
      const glsl = `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D albedo;
layout(set = 0, binding = 1) uniform usampler2D labels;
layout(set = 0, binding = 2) uniform texture2DArray heights;
layout(set = 0, binding = 3) uniform sampler pointClamp;
layout(set = 0, binding = 4) uniform sampler2DShadow shadow;
layout(set = 0, binding = 5) buffer Stats { uint layers; uint lit; uint bright[4]; uint height[4]; uint perLabel[8]; };
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(albedo, 0);
  if (any(greaterThanEqual(p, size))) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(size);
  uvec4 c = uvec4(round(texelFetch(albedo, p, 0) * 255.0));
  uint label = textureLod(labels, uv + vec2(1.0 / float(size.x), 0.0), 0.0).x;
  atomicAdd(perLabel[label & 7u], c.r);
  int count = textureSize(sampler2DArray(heights, pointClamp), 0).z;
  if (p == ivec2(0)) layers = uint(count);
  for (int l = 0; l < count; ++l) {
    float h = textureLod(sampler2DArray(heights, pointClamp), vec3(uv, float(l)), 0.0).x;
    atomicMax(height[l & 3], uint(round(h * 255.0)) * 256u + uint(p.y * size.x + p.x));
  }
  atomicAdd(bright[c.g & 3u], 1u);
  if (textureLod(shadow, vec3(uv, 0.5), 0.0) > 0.5) atomicAdd(lit, 1u);
}`;
      const kernel = await atomport.translate(glsl, { name: 'gbuffer_stats.comp', target: 'webgpu' });
      const [W, H, L] = [12, 10, 3];
      const n = W * H;
      const albedo = new Uint8Array(4 * n);
      for (let i = 0; i < n; i++) albedo.set([(i * 37) & 255, (i * 11) & 255, 0, 255], 4 * i);
      const labels = Uint32Array.from({ length: n }, (_, i) => (i * 5 + 3) % 11);
      const heights = Uint8Array.from({ length: n * L }, (_, i) => ((Math.floor(i / n) * 50) + (i % n) * 7) & 255);
      const depth = Uint16Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 60000 : 1000));
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const textures = {
        albedo: { size: [W, H], data: albedo },
        labels: { size: [W, H], format: 'r32uint', data: labels },
        heights: { size: [W, H, L], format: 'r8unorm', data: heights },
        shadow: { size: [W, H], format: 'depth16unorm', data: depth },
      };
      const samplers = { labels: { addressModeU: 'repeat', addressModeV: 'repeat' }, shadow: { compare: 'less' } };
      const out = await atomport.run(device, kernel, { groups: [2, 2, 1], textures, samplers });
      // What the package must refuse, naming the binding, before anything runs.
      const refusals = [];
      for (const [what, opts] of [
        ['linear', { textures, samplers: { ...samplers, labels: { magFilter: 'linear', minFilter: 'linear' } } }],
        ['missing', { textures: { ...textures, heights: undefined }, samplers }],
        ['no compare', { textures, samplers: { labels: samplers.labels } }],
      ]) {
        try { await atomport.run(device, kernel, { groups: [2, 2, 1], ...opts }); refusals.push(`${what}: ran`); } catch (e) { refusals.push(`${what}: ${e.kind}: ${e.message}`); }
      }
      device.destroy();
      const want = new Uint32Array(18);
      want[0] = L;
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const i = y * W + x;
          want[10 + (labels[y * W + ((x + 1) % W)] & 7)] += albedo[4 * i];
          for (let l = 0; l < L; l++) want[6 + (l & 3)] = Math.max(want[6 + (l & 3)], heights[l * n + i] * 256 + i);
          want[2 + (albedo[4 * i + 1] & 3)] += 1;
          if (depth[i] / 65535 > 0.5) want[1] += 1;
        }
      }
      // A block of several members comes back as its bytes.
      return { got: Array.from(new Uint32Array(out.Stats.buffer, out.Stats.byteOffset, 18)), want: Array.from(want), refusals };
    }), 'package textures');
    const refusedRight = sampled.refusals.length === 3
      && sampled.refusals[0].startsWith('linear: usage: sampler labels filters linearly')
      && sampled.refusals[1].startsWith('missing: usage: texture heights is not given')
      && sampled.refusals[2].startsWith('no compare: usage: sampler shadow compares');
    const sampledOk = JSON.stringify(sampled.got) === JSON.stringify(sampled.want) && refusedRight;
    record('package', { name: 'sampled textures and samplers through the JavaScript package: texelFetch, a repeat sampler over an integer texture, an array\'s layer count, a depth comparison', passed: sampledOk,
      detail: sampledOk ? '' : `got ${sampled.got}, want ${sampled.want}; ${sampled.refusals.join(' | ')}` });
    // Two views of one buffer at one binding, given by the second's name.
    const views = await timed(page.evaluate(async () => {
      const atomport = await import('/npm/atomport/index.js');
      const glsl = `#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Words { uint words[]; };
layout(set = 0, binding = 0) buffer Bytes { uint8_t bytes[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  words[i] += 1u;
  bytes[4u * i + 3u] = uint8_t(i);
}`;
      const kernel = await atomport.translate(glsl, { name: 'views.comp', target: 'webgpu' });
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const out = await atomport.run(device, kernel, { buffers: { Bytes: new Uint32Array(16).fill(0x10) } });
      device.destroy();
      const b = kernel.bindings[0];
      return { bindings: kernel.bindings.length, name: b.name, also: b.also, words: Array.from(new Uint32Array(out[b.name].buffer)) };
    }), 'package views');
    const wantViews = Array.from({ length: 16 }, (_, i) => ((i << 24) | 0x11) >>> 0);
    const viewsOk = views.bindings === 1 && JSON.stringify(views.words) === JSON.stringify(wantViews);
    record('package', { name: 'two blocks at one binding, one buffer given by either name through the JavaScript package', passed: viewsOk,
      detail: viewsOk ? '' : JSON.stringify(views) });
    await checkPlayground(b, base, record);
    record('runtime', JSON.parse(await timed(page.evaluate(() => window.suite.batch()), 'batch')));
    // Dispatch overhead: atomport against the same WGSL by hand, interleaved.
    const wgsl = '@group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>>;\n' +
      '@compute @workgroup_size(64) fn main() { atomicAdd(&counter[0], 1u); }\n';
    const n = 200;
    const rounds = 9;
    for (let round = 0; round < rounds; round++) {
      const [ms_a, last_a] = await page.evaluate(([w, n]) => window.suite.atomportLoop(w, 1, n), [wgsl, n]);
      const [ms_h, last_h] = await page.evaluate(([w, n]) => window.suite.handLoop(w, 1, n), [wgsl, n]);
      results.bench.push({ round, atomport_ms: ms_a, hand_ms: ms_h, ratio: ms_a / ms_h });
      // 64 per dispatch: atomport's loop counts in a new buffer each round,
      // the hand-written one keeps its buffer.
      const ok = last_a === 64 * n && last_h === 64 * n * (round + 1);
      record('bench', { name: `dispatch overhead round ${round}`, passed: ok,
        detail: ok ? '' : `counters ${last_a} (atomport) and ${last_h} (by hand), not ${64 * n} and ${64 * n * (round + 1)}` });
      console.log(`dispatch+read x${n}: atomport ${ms_a.toFixed(1)} ms, by hand ${ms_h.toFixed(1)} ms, ratio ${(ms_a / ms_h).toFixed(2)}`);
    }
    const ratios = results.bench.map((b) => b.ratio).sort((a, b) => a - b);
    results.median_ratio = ratios[Math.floor(ratios.length / 2)];
    console.log(`dispatch overhead: median ratio ${results.median_ratio.toFixed(2)} (atomport / by hand) over ${rounds} interleaved rounds of ${n}`);
    await page.context().close();
    // A browser without WebGPU: atomport says so in one line.
    const bare = await openSuite(b, base, () => { Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }); });
    const said = await bare.evaluate(() => window.suite.adapter().then(() => 'opened', (e) => String(e)));
    const oneLine = said.startsWith('this browser has no WebGPU') && !said.includes('\n');
    record('errors', { name: 'no WebGPU', passed: oneLine, detail: oneLine ? '' : `said: ${said}` });
  } finally {
    await b.close();
    server.close();
  }
  fs.writeFileSync(path.join(webDir, 'results.json'), JSON.stringify(results, null, 1));
  console.log(`${skipped} skipped`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

// The playground: its example translates as the page loads; Run leaves the
// histogram of 0..255 (bin (7v mod 16): 16 values each) and a first
// invocation per bin, each counted here; an error is shown at its line.
async function openPlayground(b, base) {
  const page = await b.newPage({ viewport: { width: 1300, height: 900 } });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${base}/playground.html`);
  await page.waitForFunction(() => window.playgroundLoaded, null, { timeout: CASE_MS });
  return page;
}

async function checkPlayground(b, base, record) {
  const page = await openPlayground(b, base);
  try {
    const wgsl = await page.textContent('#wgsl');
    record('playground', { name: 'the example translates as the page loads', passed: wgsl.includes('atomicAdd'),
      detail: wgsl.includes('atomicAdd') ? '' : `WGSL pane: ${wgsl.slice(0, 200)}; status: ${await page.textContent('#status')}` });
    await page.click('#run');
    await page.waitForFunction(() => window.playgroundRan, null, { timeout: CASE_MS });
    const cells = await page.$$eval('#bindings tr', (rows) => rows.slice(1).map((r) => [r.cells[1].textContent, r.cells[5].textContent]));
    const byName = Object.fromEntries(cells);
    const bins = (byName.Histogram ?? '').split(', ').map(Number);
    const first = (byName.First ?? '').split(', ').map(Number);
    const binsOk = bins.length === 16 && bins.every((n) => n === 16);
    // Each bin's first recorder is one of the invocations that counted there (1-based).
    const firstOk = first.length === 16 && first.every((f, bin) => f >= 1 && f <= 256 && ((f - 1) * 7) % 16 === bin);
    record('playground', { name: 'Run dispatches the example with its // run: lines', passed: binsOk && firstOk,
      detail: binsOk && firstOk ? '' : `Histogram ${byName.Histogram}; First ${byName.First}; status: ${await page.textContent('#status')}` });
    // No // run: line: inputs generated, the count's buffer sized to the dispatch (2 x 8).
    await page.fill('#glsl', '#version 450\nlayout(local_size_x = 8) in;\n' +
      'layout(set = 0, binding = 0) buffer Count { uint n; uint hits[]; };\n' +
      'void main() { if (gl_GlobalInvocationID.x < n) atomicAdd(hits[gl_GlobalInvocationID.x % 4u], 1u); }\n');
    await page.waitForFunction(() => document.getElementById('wgsl').textContent.includes('workgroup_size(8, 1, 1)'), null, { timeout: CASE_MS });
    await page.evaluate(() => { window.playgroundRan = false; });
    await page.click('#run');
    await page.waitForFunction(() => window.playgroundRan, null, { timeout: CASE_MS });
    const generatedSaid = await page.textContent('#status');
    const count = (await page.$$eval('#bindings tr', (rows) => rows.slice(1).map((r) => r.cells[5].textContent)))[0] ?? '';
    const words = count.split(', ').map(Number);
    // Well-formed inputs set a count to the dispatch's invocations (16): they add 16
    // over the counters, to what the generated flags put there.
    const last = await page.evaluate(() => window.playgroundLastRun);
    const spec = last?.generated?.[1] ?? '';
    const before = spec.slice(spec.indexOf('[') + 1, -1).split(',').map(Number);
    const sum = (list) => list.slice(1).reduce((a, v) => a + v, 0);
    const generatedOk = generatedSaid.includes('generated well-formed inputs') && words[0] === 16
      && before[0] === 16 && words.length === before.length && sum(words) - sum(before) === 16;
    record('playground', { name: 'Run without a // run: line runs on generated inputs', passed: generatedOk,
      detail: generatedOk ? '' : `said ${generatedSaid}; Count ${count}; generated ${spec}` });
    // An image is shown as a picture: texel (x, y) counts x + 8y, so grey
    // runs from black at (0, 0) to white at (7, 7).
    await page.fill('#glsl', '#version 450\nlayout(local_size_x = 4, local_size_y = 4) in;\n' +
      '// run: --groups 2,2 --image counts=8x8\n' +
      'layout(set = 0, binding = 0, r32ui) uniform uimage2D counts;\n' +
      'void main() { ivec2 p = ivec2(gl_GlobalInvocationID.xy); imageAtomicAdd(counts, p, uint(p.x + 8 * p.y)); }\n');
    await page.waitForFunction(() => document.getElementById('wgsl').textContent.includes('workgroup_size(4, 4, 1)'), null, { timeout: CASE_MS });
    await page.evaluate(() => { window.playgroundRan = false; });
    await page.click('#run');
    await page.waitForFunction(() => window.playgroundRan, null, { timeout: CASE_MS });
    const pixels = await page.evaluate(() => {
      const c = document.querySelector('#bindings canvas.picture');
      if (!c) return null;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      return { width: c.width, height: c.height, first: d[0], mid: d[(3 * 8 + 4) * 4], last: d[(8 * 8 - 1) * 4] };
    });
    const pictureOk = pixels !== null && pixels.width === 8 && pixels.height === 8 && pixels.first === 0
      && pixels.mid === Math.round((4 + 24) / 63 * 255) && pixels.last === 255;
    record('playground', { name: 'Run shows an image as a picture', passed: pictureOk,
      detail: pictureOk ? '' : `canvas ${JSON.stringify(pixels)}; status: ${await page.textContent('#status')}` });
    await page.fill('#glsl', '#version 450\nlayout(local_size_x = 1) in;\nvoid main() { int x = ; }\n');
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('playground.comp:3:'), null, { timeout: CASE_MS })
      .catch(() => {});
    const said = await page.textContent('#status');
    const marked = await page.$$eval('#gutter .bad', (d) => d.map((x) => x.textContent));
    const ok = said.startsWith('playground.comp:3:23: error:') && marked.join() === '3';
    record('playground', { name: 'an error is shown at its line', passed: ok, detail: ok ? '' : `said ${said}; marked ${marked}` });
    // A shader glslang works at for minutes in constant memory (an `#if`
    // on a macro doubled 26 times): the playground gives up on it after
    // its timeout, the page answering all the while, and translates the
    // next edit.
    let bomb = '#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { float v[]; };\n#define A0 1\n';
    for (let i = 1; i <= 26; i++) bomb += `#define A${i} (A${i - 1} + A${i - 1})\n`;
    await page.fill('#glsl', bomb + '#if A26 > 0\nvoid main() { v[1] = 1.0; }\n#endif\n');
    const answered = await timed(page.evaluate(() => new Promise((ok) => setTimeout(() => ok(true), 1000))), 'the page while translating');
    await page.waitForFunction(() => document.getElementById('status').textContent.includes('(timeout)'), null, { timeout: CASE_MS })
      .catch(() => {});
    const gaveUp = await page.textContent('#status');
    await page.fill('#glsl', '#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint n; };\nvoid main() { atomicAdd(n, 1u); }\n');
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('translated for WebGPU'), null, { timeout: CASE_MS })
      .catch(() => {});
    const next = await page.textContent('#status');
    const boundedOk = answered && gaveUp.startsWith('translating playground.comp did not finish within 10 s (timeout)')
      && next.startsWith('translated for WebGPU');
    record('playground', { name: 'a shader past the translation timeout is given up on, the page answering, and the next edit translates', passed: boundedOk,
      detail: boundedOk ? '' : `status after the bomb: ${gaveUp}; after the next edit: ${next}` });
  } finally {
    await page.close();
  }
}

async function playgroundScreenshot(out) {
  const server = await serve();
  const b = await browser();
  try {
    const page = await openPlayground(b, `http://127.0.0.1:${server.address().port}`);
    await page.click('#run');
    await page.waitForFunction(() => window.playgroundRan, null, { timeout: CASE_MS });
    console.log(await page.textContent('#status'));
    await page.screenshot({ path: out, fullPage: true });
  } finally {
    await b.close();
    server.close();
  }
}

async function screenshot(out) {
  const server = await serve();
  const b = await browser();
  try {
    const page = await b.newPage({ viewport: { width: 1100, height: 640 } });
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => window.demoDone, null, { timeout: CASE_MS });
    const status = await page.textContent('#status');
    console.log(status);
    await page.screenshot({ path: out, fullPage: true });
    if (await page.$('#status.error')) process.exitCode = 1;
  } finally {
    await b.close();
    server.close();
  }
}

async function outputs(input, output) {
  const server = await serve();
  const b = await browser();
  const results = [];
  try {
    const page = await openSuite(b, `http://127.0.0.1:${server.address().port}`);
    for (const c of JSON.parse(fs.readFileSync(input, 'utf8'))) {
      try {
        const out = await timed(page.evaluate((c) => window.suite.outputs(c), JSON.stringify(c)), c.name);
        results.push({ bindings: JSON.parse(out) });
      } catch (e) {
        results.push({ error: String(e.message || e) });
      }
    }
  } finally {
    await b.close();
    server.close();
  }
  fs.writeFileSync(output, JSON.stringify(results));
}

// Node has no WebGPU: the package translates only.
async function packageTranslations(input, output) {
  const atomport = await import(path.join(webDir, 'npm/atomport/index.js'));
  await atomport.load();
  const results = [];
  for (const c of JSON.parse(fs.readFileSync(input, 'utf8'))) {
    try {
      // `async`: through translate(), on its worker thread.
      const t = c.async ? await atomport.translate(c.source, { name: c.name, ...c.options })
        : atomport.translateSync(c.source, { name: c.name, ...c.options });
      results.push({ translation: t.translation });
    } catch (e) {
      results.push({ error: { message: e.message, kind: e.kind, file: e.file, line: e.line, column: e.column } });
    }
  }
  fs.writeFileSync(output, JSON.stringify(results));
}

// The in-page translation figures: each shader in a fresh page, so that its
// first translation builds glslang's tables as a user's first one does.
async function figures(shaders) {
  if (shaders.length === 0) shaders = ['examples/histogram/equalize.comp', 'tests/vulkan/particle_grid_step.comp'];
  const { execFileSync } = await import('node:child_process');
  const native = execFileSync('cargo', ['bench', '--bench', 'translate', '--', '--web', ...shaders],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const b = await browser();
  const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
  const mib = (bytes) => (bytes / 1048576).toFixed(1);
  try {
    for (const [i, file] of shaders.entries()) {
      const source = fs.readFileSync(path.join(root, file), 'utf8');
      const page = await openSuite(b, base);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      const memory = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        const { metrics } = await cdp.send('Performance.getMetrics');
        const heap = metrics.find((m) => m.name === 'JSHeapUsedSize').value;
        return { wasm: await page.evaluate(() => window.suite.memoryBytes()), heap };
      };
      const before = await memory();
      const times = await page.evaluate(([n, s]) => {
        const t = [];
        for (let k = 0; k < 21; k++) {
          const start = performance.now();
          window.suite.translateGlsl(n, s);
          t.push(performance.now() - start);
        }
        return t;
      }, [file, source]);
      const afterFirst = await memory();
      await page.evaluate(([n, s]) => { for (let k = 21; k < 100; k++) window.suite.translateGlsl(n, s); }, [file, source]);
      const after = await memory();
      await page.context().close();
      const n = native[i];
      const first = times[0], again = median(times.slice(1));
      console.log(`${file} (${n.lines} lines): first translation in the page ${first.toFixed(0)} ms, ` +
        `natively ${n.first_ms.toFixed(0)} ms (a fresh process), ${(first / n.first_ms).toFixed(1)}x; ` +
        `after it ${again.toFixed(1)} ms, natively ${n.after_ms.toFixed(1)} ms, ${(again / n.after_ms).toFixed(1)}x (medians of 20)`);
      console.log(`  page memory: wasm ${mib(before.wasm)} MiB before, ${mib(afterFirst.wasm)} MiB after 21 translations, ` +
        `${mib(after.wasm)} MiB after 100; JS heap ${mib(before.heap)}, ${mib(afterFirst.heap)}, ${mib(after.heap)} MiB ` +
        `(a native process peaks at ${n.peak_mib.toFixed(0)} MiB for one)`);
    }
  } finally {
    await b.close();
    server.close();
  }
}

if (mode === 'suite') await suite();
else if (mode === 'figures') await figures(process.argv.slice(4));
else if (mode === 'package' && third && fourth) await packageTranslations(third, fourth);
else if (mode === 'outputs' && third && fourth) await outputs(third, fourth);
else if (mode === 'screenshot') await screenshot(third || 'demo.png');
else if (mode === 'playground-screenshot') await playgroundScreenshot(third || 'playground.png');
else if (mode === 'serve') {
  const server = await serve(Number(third || 8000));
  console.log(`atomport's demo: http://localhost:${server.address().port}/, the playground: http://localhost:${server.address().port}/playground.html (Chromium: --enable-unsafe-webgpu where WebGPU is off)`);
} else {
  console.error('usage: node run.mjs suite|serve|screenshot|playground-screenshot|outputs|package|figures ROOT [PORT|OUT.png|IN.json OUT.json|SHADER…]');
  process.exitCode = 2;
}
