/** How a shader is read and what its translation is for (atomport's `SourceOptions`). */
export interface Options {
  /** The name in messages, and the folder `#include "x"` is searched from. */
  name?: string;
  /** `glsl`, `spirv` or `wgsl`; by default WGSL when the text has `@compute`, GLSL for other text, SPIR-V for bytes. */
  lang?: 'glsl' | 'spirv' | 'wgsl';
  /** `native` (the default) or `webgpu`, for a browser's kernels. */
  target?: 'native' | 'webgpu';
  /** The GLSL dialect; detected when absent. */
  dialect?: 'vulkan' | 'opengl';
  /** The GLSL version of a shader without a `#version` line (`460`, `450core`, `310es`), as `--glsl-version`; a `#version` in the shader wins. */
  glslVersion?: string;
  /** The compute entry point, where a module has several. */
  entry?: string;
  /** `NAME` or `NAME=VALUE`, as `-D` takes them. */
  defines?: string[];
  /** Folders `#include` searches, as `-I`. */
  includeDirs?: string[];
  /** The files `#include` may read, by path, with their text (there is no file system). */
  files?: Record<string, string>;
  /** Further compute shaders linked with the shader into one program, as OpenGL links every compute shader attached to a program (as `--link`): their paths, each's text in `files`. */
  link?: string[];
  /** Read the shader's own `// defines:`, `// dialect:`, `// link:` and `// run:` lines (their `--spec` and `--target-env`) too, as `atomport run` does. */
  annotations?: boolean;
  /**
   * `translate` only: seconds the translation may take on its worker thread
   * (default 30); past them it rejects with an AtomportError of kind
   * `timeout`. `null` translates on the calling thread, unbounded.
   */
  timeout?: number | null;
}

/** One binding of the map: atomport's `BindingInfo`, as `atomport translate --translation` writes it. */
export interface Binding {
  group: number;
  binding: number;
  name: string;
  kind: string;
  element: 'u32' | 'i32' | 'f32' | string | null;
  min_size: number;
  block?: string;
  /** The other blocks declared at this binding, which it serves (the WebGPU target binds a written buffer once). */
  also?: string[];
  [more: string]: unknown;
}

/** A guarantee the GLSL asks for that WGSL does not give in full. */
export interface Warning {
  message: string;
  /** The shader's line it is about, where known (1-based). */
  line?: number;
}

export interface Translation {
  wgsl: string;
  entry: string;
  /** The shader's workgroup size (`local_size_*`), in which `run`'s `groups` count. */
  workgroupSize: [number, number, number];
  /**
   * How many of the WGSL's workgroups make one of the shader's, per axis:
   * [1, 1, 1] unless a workgroup past WebGPU's default limits (256
   * invocations) without shared memory, barriers or subgroup operations was
   * split so that every browser runs it. The WGSL's `@workgroup_size` is
   * `workgroupSize` divided by it; a caller dispatching the WGSL itself
   * multiplies its workgroup counts by it (`run` does).
   */
  workgroupSplit: [number, number, number];
  dialect?: 'vulkan' | 'opengl';
  bindings: Binding[];
  overrides: number[];
  warnings: Warning[];
  /** The translation as atomport's JSON (`Translation::from_json` reads it). */
  translation: object;
}

export class AtomportError extends Error {
  /** `webgpu`: the device refused the dispatch run() made (its message says why). */
  kind: 'shader' | 'usage' | 'translation' | 'timeout' | 'webgpu';
  file?: string;
  line?: number;
  column?: number;
}

export function load(wasm?: BufferSource | URL | string): Promise<void>;
export function translate(source: string | Uint8Array | Uint32Array | ArrayBuffer, options?: Options): Promise<Translation>;
export function translateSync(source: string | Uint8Array | Uint32Array | ArrayBuffer, options?: Options): Translation;
/** A storage image for `run`: `imageSize`'s numbers, and its texels' bytes in texel order (zeros when absent). */
export interface ImageInput {
  size: number[];
  data?: ArrayBufferView | ArrayBuffer;
  samples?: number;
}

/**
 * A sampled texture for `run`: `textureSize`'s numbers (a cube's layers are
 * 6, a cube array's `[w, h, cubes]`), a WebGPU format (by default
 * `rgba8unorm`, `rgba32uint`, `rgba32sint` or `depth16unorm` by the sample
 * type), and level 0's texels, or each level's, row by row (zeros when absent).
 */
export interface TextureInput {
  size: number[];
  format?: string;
  data?: ArrayBufferView | ArrayBuffer | (ArrayBufferView | ArrayBuffer)[];
  levels?: number;
}

export function run(
  /** A GPUDevice. */
  device: object,
  kernel: Translation,
  options?: {
    groups?: [number, number, number];
    /** Storage and uniform buffers, by GLSL name or `GROUP.BINDING`. */
    buffers?: Record<string, ArrayBufferView | ArrayBuffer>;
    /** Storage images, by GLSL name; an array's elements as `NAME[k]`. */
    images?: Record<string, ImageInput>;
    /** Sampled textures by GLSL name (a combined `sampler2D`'s name gives its texture): a GPUTexture (or a GPUTextureView where the kernel reads no layer count) or one to make. */
    textures?: Record<string, TextureInput | object>;
    /** Samplers by GLSL name (a combined `sampler2D`'s name gives its sampler): a GPUSampler or a GPUSamplerDescriptor; WebGPU's default sampler when absent, but a comparison sampler needs its `compare`, and one an integer texture is sampled through must be a nearest descriptor (its address mode is read). */
    samplers?: Record<string, object>;
  },
): Promise<Record<string, Uint32Array | Int32Array | Float32Array | Uint8Array>>;
