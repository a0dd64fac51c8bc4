//! Which files of a project's shader folder are compute shaders, and the
//! kernel name each gives: one rule for `atomport check FOLDER` and for
//! [`crate::build::translate_dir`].
//!
//! Projects keep every stage, their headers and often their compiled
//! SPIR-V side by side, named `cull.comp`, `cull.comp.glsl`, `shade.frag`,
//! `quad.vs.glsl`, `common.glsl`, `particle.vert.spv`. A compute shader is a
//! `.comp`; a `.glsl` whose name gives no stage and that has a `#version`
//! line (a header has none, and without one GLSL ES 1.00 has no compute)
//! and defines `main` (an OpenGL unit of functions that other shaders link
//! has none: see `SourceOptions::linked`); a `.spv` whose module declares a
//! compute entry point; a `.glsl` or `.spv` whose name gives the stage
//! `comp` (or `cs`), after a dot or an underscore (`skybox_vs.glsl`,
//! `irmap_cs.glsl`); and a `.cs` that has a `#version` line and defines
//! `main`, as OpenGL ES projects name their compute shaders (a C# source,
//! the other `.cs`, has no `#version`). Any other stage in the name is not
//! compute.

use std::path::Path;

/// The stages a file name may give before its extension: glslang's names,
/// and the shorter ones projects also use (`quad.vs.glsl`, NVIDIA's
/// `cull-raster.geo.glsl`).
const STAGES: [&str; 20] = [
    "vert", "tesc", "tese", "geom", "frag", "comp", "mesh", "task", "rgen", "rint", "rahit",
    "rchit", "rmiss", "rcall", "vs", "fs", "gs", "ps", "cs", "geo",
];

/// How much of a file the rule reads: a `#version` line and a module's
/// entry points come first.
const HEAD: u64 = 64 << 10;

/// The stage a shader file's name gives before its extension, after a
/// dot or an underscore (`cull.comp.glsl`, `shade.frag.spv`,
/// `skybox_vs.glsl`), if any.
fn named_stage(path: &Path) -> Option<&str> {
    let stem = path.file_stem()?.to_str()?;
    let (_, stage) = stem.rsplit_once(['.', '_'])?;
    STAGES.contains(&stage).then_some(stage)
}

/// The first bytes of `path`, or `None` where it cannot be read or is no
/// regular file (a FIFO would block the open).
fn head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    read.ok().map(|_| head)
}

/// Whether the file at `path`, found in a folder, is a compute shader by
/// the rule above. A `.glsl` or `.spv` that cannot be read, or a `.spv`
/// that is no SPIR-V, counts, so that its error is reported rather than the
/// file passed over.
pub fn is_compute_shader(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str());
    if !matches!(ext, Some("comp" | "glsl" | "spv" | "cs")) {
        return false;
    }
    if ext == Some("comp") {
        return true;
    }
    if ext == Some("cs") {
        // Unreadable, it is passed over: a `.cs` is more often C#.
        return head(path).is_some_and(|bytes| {
            let text = String::from_utf8_lossy(&bytes);
            super::GlslVersion::declared_in(&text) && defines_main(&text)
        });
    }
    if let Some(stage) = named_stage(path) {
        return stage == "comp" || stage == "cs";
    }
    let Some(bytes) = head(path) else {
        return true;
    };
    if ext == Some("glsl") {
        let text = String::from_utf8_lossy(&bytes);
        // A head cut short may hold `main` past its end: kept, for its error.
        let cut = bytes.len() as u64 >= HEAD;
        return super::GlslVersion::declared_in(&text) && (cut || defines_main(&text));
    }
    declares_compute_entry_point(&bytes)
}

/// Whether GLSL `text` has `main` followed by `(` (spaces between
/// allowed) as a word: the entry point's definition (or a call of it),
/// which a unit of functions that other shaders link lacks.
fn defines_main(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices("main").any(|(i, _)| {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let before = i == 0 || !word(b[i - 1]);
        before && text[i + 4..].trim_start().starts_with('(')
    })
}

/// Whether SPIR-V `bytes` (either byte order) declare a `GLCompute` entry
/// point among their instructions; true for what is not SPIR-V.
fn declares_compute_entry_point(bytes: &[u8]) -> bool {
    const ENTRY_POINT: u32 = 15;
    const GL_COMPUTE: u32 = 5;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let words: Vec<u32> = match words.first() {
        Some(0x0723_0203) => words,
        Some(0x0302_2307) => words.iter().map(|w| w.swap_bytes()).collect(),
        _ => return true,
    };
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, op) = ((first >> 16) as usize, first & 0xffff);
        if count == 0 {
            return true;
        }
        if op == ENTRY_POINT && words.get(at + 1) == Some(&GL_COMPUTE) {
            return true;
        }
        at += count;
    }
    false
}

/// The kernel name a shader file gives: its name without the shader
/// extensions (`cull.comp`, `cull.comp.glsl`, `cull.spv`, `cull.wgsl` and
/// `cull.comp.spv` all give `cull`).
pub fn kernel_name(path: &Path) -> String {
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for ext in [".glsl", ".spv", ".wgsl", ".cs"] {
        if let Some(s) = name.strip_suffix(ext) {
            name = s.to_string();
            break;
        }
    }
    if let Some(s) = name.strip_suffix(".comp") {
        name = s.to_string();
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_kernels_and_stages() {
        for (file, name) in [
            ("cull.comp", "cull"),
            ("cull.comp.glsl", "cull"),
            ("cull.spv", "cull"),
            ("cull.comp.spv", "cull"),
            ("cull.wgsl", "cull"),
            ("v1.2.comp", "v1.2"),
            ("scan.cs", "scan"),
        ] {
            assert_eq!(kernel_name(Path::new(file)), name, "{file}");
        }
        assert!(is_compute_shader(Path::new("absent/cull.comp.glsl")));
        assert!(!is_compute_shader(Path::new("absent/shade.frag.glsl")));
        assert!(!is_compute_shader(Path::new("absent/quad.vs.glsl")));
        assert!(is_compute_shader(Path::new("absent/trace.cs.glsl")));
        assert!(is_compute_shader(Path::new("absent/irmap_cs.glsl")));
        assert!(!is_compute_shader(Path::new("absent/skybox_vs.glsl")));
        assert!(!is_compute_shader(Path::new("absent/pbr_fs.glsl")));
        assert!(!is_compute_shader(Path::new("absent/cull-raster.geo.glsl")));
        assert!(defines_main("#version 430\nvoid main (void) {}"));
        assert!(!defines_main(
            "#version 430\nvec3 ortho(vec3 v);\nfloat domain;"
        ));
        assert!(!is_compute_shader(Path::new("absent/shade.frag.spv")));
        assert!(!is_compute_shader(Path::new("absent/notes.txt")));
        // Unreadable: kept, for its error.
        assert!(is_compute_shader(Path::new("absent/common.glsl")));
        let fragment = [0x0723_0203u32, 0x0001_0000, 0, 2, 0, 4 << 16 | 15, 4, 1, 0];
        assert!(!declares_compute_entry_point(bytemuck::cast_slice(
            &fragment
        )));
        let compute = [0x0723_0203u32, 0x0001_0000, 0, 2, 0, 4 << 16 | 15, 5, 1, 0];
        assert!(declares_compute_entry_point(bytemuck::cast_slice(&compute)));
        let swapped: Vec<u32> = compute.iter().map(|w| w.swap_bytes()).collect();
        assert!(declares_compute_entry_point(bytemuck::cast_slice(&swapped)));
        assert!(declares_compute_entry_point(b"not SPIR-V at all"));
    }

    #[test]
    fn a_cs_file_is_compute_when_it_is_glsl() {
        let dir = std::env::temp_dir().join(format!("atomport-folder-cs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gles = dir.join("scan.cs");
        std::fs::write(
            &gles,
            "#version 310 es\nlayout(local_size_x = 64) in;\nvoid main() {}\n",
        )
        .unwrap();
        let csharp = dir.join("Program.cs");
        std::fs::write(
            &csharp,
            "#if DEBUG\nclass Program { static void Main() {} }\n#endif\n",
        )
        .unwrap();
        assert!(is_compute_shader(&gles));
        assert!(!is_compute_shader(&csharp));
        assert!(!is_compute_shader(&dir.join("absent.cs")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
