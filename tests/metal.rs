//! Metal is never executed here (no Apple machine): what can be checked is
//! that every golden translation (tests/glsl, tests/vulkan, tests/spirv)
//! goes through naga's validator and its Metal Shading Language writer, as
//! wgpu's Metal backend would take it. Kernels that need what MSL lacks are
//! listed by the writer's own message, and none may be a surprise; kernels
//! with doubles, which Metal lacks, are not written.

use std::path::Path;

/// MSL 3.1: texture atomics (3.1) and 64-bit min/max atomics (2.4).
const LANG: (u8, u8) = (3, 1);

/// Writes `module` as MSL, overrides given their defaults (an override
/// without one, such as an image size, gets 4), as wgpu does before it.
fn write_msl(module: &naga::Module) -> Result<String, String> {
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(module)
    .map_err(|e| format!("{e:?}"))?;
    let constants: naga::back::PipelineConstants = module
        .overrides
        .iter()
        .filter(|(_, o)| o.init.is_none())
        .map(|(_, o)| {
            let key =
                o.id.map_or_else(|| o.name.clone().unwrap_or_default(), |id| id.to_string());
            (key, 4.0)
        })
        .collect();
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(module, &info, None, &constants)
            .map_err(|e| e.to_string())?;
    let options = naga::back::msl::Options {
        lang_version: LANG,
        fake_missing_bindings: true,
        ..Default::default()
    };
    let (msl, _) = naga::back::msl::write_string(
        &module,
        &info,
        &options,
        &naga::back::msl::PipelineOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(msl)
}

#[test]
fn every_golden_translation_is_written_as_msl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut written = 0;
    let mut refused = Vec::new();
    let mut doubled: Vec<String> = Vec::new();
    for (dir, ext) in [
        ("tests/glsl", "wgsl"),
        ("tests/vulkan", "comp"),
        ("tests/spirv", "spv"),
    ] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        for path in files {
            let name = path.strip_prefix(root).unwrap().display().to_string();
            // The recorded WGSL where there is one; the translation otherwise.
            let module = if ext == "wgsl" {
                let text = std::fs::read_to_string(&path).unwrap();
                naga::front::wgsl::parse_str(&text)
                    .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&text)))
            } else {
                let k =
                    atomport::Kernel::from_path(&path, None, &atomport::SourceOptions::default())
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                (**k.module()).clone()
            };
            // Metal has no 64-bit floats: wgpu's Metal backend never
            // offers SHADER_F64, so such a kernel is refused at the
            // dispatch (naga's MSL writer would panic on it).
            let doubles = module.types.iter().any(|(_, t)| {
                matches!(
                    t.inner,
                    naga::TypeInner::Scalar(naga::Scalar::F64)
                        | naga::TypeInner::Vector {
                            scalar: naga::Scalar::F64,
                            ..
                        }
                )
            });
            if doubles {
                doubled.push(name);
                continue;
            }
            match write_msl(&module) {
                Ok(msl) => {
                    assert!(msl.contains("kernel void"), "{name}: no kernel in the MSL");
                    written += 1;
                }
                Err(e) => refused.push(format!("{name}: {e}")),
            }
        }
    }
    println!(
        "{written} golden translations written as MSL {}.{}; not those with doubles: {doubled:?}",
        LANG.0, LANG.1
    );
    assert_eq!(doubled, ["tests/vulkan/double_atomic_bounds.comp"]);
    assert!(written >= 75, "only {written} written");
    assert!(
        refused.is_empty(),
        "MSL writer refused:\n{}",
        refused.join("\n")
    );
}
