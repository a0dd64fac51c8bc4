//! Translates the histogram demo's kernels (examples/histogram/*.comp) for
//! WebGPU into OUT_DIR at build time: the browser loads them with their
//! binding maps (`include_kernel!`), without glslang or a SPIR-V reader.

fn main() {
    let opts = atomport::SourceOptions {
        target: atomport::Platform::WebGpu,
        ..Default::default()
    };
    let written =
        atomport::build::translate_dir("../histogram", &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(!written.is_empty(), "no shaders translated");
}
