// The browser side of scripts/test-web: loads atomport's wasm and exposes
// what run.mjs drives as `window.suite`. Every check itself is atomport's
// (examples/web/src/suite.rs); the hand-written WebGPU dispatch below is
// the benchmark's baseline.
import init, * as atomport from '/pkg/atomport_web.js';

// The same small dispatch by hand through WebGPU's own API: one device,
// one pipeline, one bind group, made once; each round dispatches one
// workgroup, copies the buffer out and maps it.
let hand = null;
async function handLoop(wgsl, words, n) {
  if (!hand || hand.wgsl !== wgsl) {
    const adapter = await navigator.gpu.requestAdapter();
    const device = await adapter.requestDevice();
    const module = device.createShaderModule({ code: wgsl });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const size = words * 4;
    const buffer = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer } }] });
    hand = { wgsl, device, pipeline, buffer, staging, group, size };
  }
  const { device, pipeline, buffer, staging, group, size } = hand;
  const start = performance.now();
  let last = 0;
  for (let i = 0; i < n; i++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    last = new Uint32Array(staging.getMappedRange())[0];
    staging.unmap();
  }
  return [performance.now() - start, last];
}

// Tint's verdict on a WGSL module: whether it compiles, and its errors.
async function tint(wgsl) {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice();
  const module = device.createShaderModule({ code: wgsl });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}: ${m.message}`);
  device.destroy();
  return { accepted: errors.length === 0, message: errors.join('; ') };
}

try {
  const wasm = await init();
  window.suite = {
    adapter: () => atomport.adapter(),
    job: (c) => atomport.job(c),
    outputs: (c) => atomport.outputs(c),
    conformanceLoad: (json) => atomport.conformance_load(json),
    conformanceCases: () => JSON.parse(atomport.conformance_cases()),
    conformanceCase: (name) => atomport.conformance_case(name),
    batch: () => atomport.batch(),
    translateGlsl: (name, source) => atomport.translate_glsl(name, source),
    memoryBytes: () => wasm.memory.buffer.byteLength,
    atomportLoop: (wgsl, words, n) => atomport.dispatch_loop(wgsl, words, n),
    handLoop,
    tint,
  };
  document.getElementById('status').textContent = 'ready';
} catch (e) {
  window.suiteError = String(e);
  document.getElementById('status').textContent = 'failed: ' + e;
}
window.suiteLoaded = true;
