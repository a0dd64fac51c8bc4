//! Translates shaders/*.comp to WGSL in OUT_DIR at build time.

fn main() {
    let written = atomport::build::translate_dir("shaders", &atomport::SourceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!written.is_empty(), "no shaders translated");
}
