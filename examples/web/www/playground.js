// The playground: GLSL in the editor is translated as you type, through
// the JavaScript package on its worker thread (glslang compiled to wasm),
// bounded by a timeout so that no shader freezes the page; the WGSL, the binding
// map and errors (marked at their line) show beside it; Run dispatches the
// kernel on this browser's WebGPU with the inputs its `// run:` lines give,
// or inputs generated as `atomport check` makes them, and shows every
// binding after it: buffers as their values, images and textures as
// pictures too (each element of an array its own).
import init, * as atomport from '/pkg/atomport_web.js';
import { translate as translateBounded } from '/npm/atomport/index.js';

// Seconds a translation may take before the playground gives up on it.
const TIMEOUT = 10;

const EXAMPLE = `#version 450
// A 16-bin histogram: each invocation counts its value with atomicAdd,
// and the first to reach a bin records itself there with atomicCompSwap.
// run: --groups 4 --buffer Input=u32:256:iota --buffer Histogram=u32:16 --buffer First=u32:16
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Input { uint values[]; };
layout(set = 0, binding = 1) buffer Histogram { uint bins[16]; };
layout(set = 0, binding = 2) buffer First { uint first[16]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint bin = (values[i] * 7u) % 16u;
    atomicAdd(bins[bin], 1u);
    atomicCompSwap(first[bin], 0u, i + 1u);
}
`;

const $ = (id) => document.getElementById(id);
let translation = null;
let timer = 0;

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function gutter(badLine) {
  const n = $('glsl').value.split('\n').length;
  $('gutter').innerHTML = Array.from({ length: n }, (_, i) =>
    `<div${i + 1 === badLine ? ' class="bad"' : ''}>${i + 1}</div>`).join('');
  $('gutter').scrollTop = $('glsl').scrollTop;
}

function showMap(t) {
  const rows = t.bindings.map((b) => `<tr><td>${b.group}.${b.binding}</td><td>${b.name}</td><td>${b.kind}</td><td>${b.element ?? ''}</td><td>${b.min_size}</td><td class="values"></td></tr>`);
  $('bindings').innerHTML = '<tr><th>group.binding</th><th>name</th><th>kind</th><th>element</th><th>least bytes</th><th>after Run</th></tr>' + rows.join('');
}

// The source of the translation shown, which Run runs: one that finished
// within its time, so that the page's own translation of it (Run's) does.
let translated = null;
let generation = 0;

async function translate() {
  const source = $('glsl').value;
  const mine = ++generation;
  translation = null;
  try {
    const t = await translateBounded(source, { name: 'playground.comp', target: 'webgpu', annotations: true, timeout: TIMEOUT });
    // A later edit's translation answers for the editor now.
    if (mine !== generation) return;
    translation = t.translation;
    translated = source;
    $('wgsl').textContent = translation.wgsl;
    URL.revokeObjectURL($('download').href);
    $('download').href = URL.createObjectURL(new Blob([translation.wgsl], { type: 'text/plain' }));
    showMap(translation);
    const warnings = (translation.warnings || []).map((w) => `warning: ${w.line ? `line ${w.line}: ` : ''}${w.message}`);
    status(['translated for WebGPU', ...warnings].join('\n'));
    gutter(0);
  } catch (e) {
    if (mine !== generation) return;
    status(e.message ?? String(e), true);
    gutter(e.line ?? 0);
  }
}

// A binding's bytes as its values: by the element type the map names.
function values(b, hex) {
  const bytes = new Uint8Array(hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
  const Type = { u32: Uint32Array, i32: Int32Array, f32: Float32Array }[b.element] ?? Uint32Array;
  const list = Array.from(new Type(bytes.buffer, 0, Math.floor(bytes.length / 4)));
  return list.length > 512 ? `${list.slice(0, 512).join(', ')}, … (${list.length} in all)` : list.join(', ');
}

// A picture `playground_run` made (RGBA8 in hex) on a canvas, scaled up
// to at least 128 pixels across, texels kept sharp.
function picture(p) {
  const canvas = document.createElement('canvas');
  canvas.width = p.width;
  canvas.height = p.height;
  canvas.className = 'picture';
  canvas.title = `${p.name}: ${p.width}x${p.height}`;
  const bytes = new Uint8ClampedArray(p.rgba.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
  canvas.getContext('2d').putImageData(new ImageData(bytes, p.width, p.height), 0, 0);
  const scale = Math.max(1, Math.floor(128 / Math.max(p.width, p.height)));
  canvas.style.width = `${p.width * scale}px`;
  canvas.style.height = `${p.height * scale}px`;
  canvas.style.imageRendering = 'pixelated';
  return canvas;
}

async function run() {
  if (translated !== $('glsl').value) await translate();
  if (!translation) return;
  status('running…');
  try {
    const out = JSON.parse(await atomport.playground_run('playground.comp', translated));
    window.playgroundLastRun = out;
    const cells = $('bindings').querySelectorAll('td.values');
    translation.bindings.forEach((b, i) => {
      // An array's elements share its binding: each is shown, by name.
      const at = (x) => x.group === b.group && x.binding === b.binding;
      const outs = out.bindings.filter(at);
      cells[i].replaceChildren();
      for (const o of outs) {
        const text = document.createElement('div');
        text.textContent = (outs.length > 1 ? `${o.name}: ` : '') + values(b, o.hex);
        cells[i].append(text);
        const p = out.pictures.find((x) => at(x) && x.name === o.name);
        if (p) cells[i].append(picture(p));
      }
    });
    const inputs = out.generated ? `; no // run: line, so on generated well-formed inputs (atomport check's), ${out.groups.join('x')} workgroups` : '';
    status(`ran on ${await atomport.adapter()}${inputs}`);
  } catch (e) {
    status(String(e), true);
  }
  window.playgroundRan = true;
}

try {
  await init();
  $('glsl').value = EXAMPLE;
  $('glsl').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(translate, 250); });
  $('glsl').addEventListener('scroll', () => { $('gutter').scrollTop = $('glsl').scrollTop; });
  $('run').addEventListener('click', run);
  await translate();
  window.playground = { run, translate };
} catch (e) {
  status(`failed: ${e}`, true);
}
window.playgroundLoaded = true;
