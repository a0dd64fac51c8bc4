//! Shader sources as compilers take them — Latin-1 comments, byte-order
//! marks, `#include <…>`, a shader that needs a newer SPIR-V than the
//! default — and `--spec` values on WGSL input.

mod common;

use std::path::{Path, PathBuf};

use atomport::{
    Bind, Buffer, Error, GlslVersion, Kernel, SourceOptions, Specialization, TargetEnv,
};

/// A fresh folder of this test's own.
fn folder(test: &str) -> PathBuf {
    let dir = common::scratch().join(format!(
        "atomport-source-input-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn with_include_dirs(dirs: &[&Path]) -> SourceOptions {
    SourceOptions {
        include_dirs: dirs.iter().map(|d| d.to_path_buf()).collect(),
        ..SourceOptions::default()
    }
}

/// Dispatches a 16-bin histogram kernel over keys 0..128 and returns the bins.
fn histogram(k: &Kernel, ctx: &atomport::Context) -> Vec<u32> {
    let keys: Vec<u32> = (0..128).collect();
    let keys = Buffer::from_slice(ctx, &keys).unwrap();
    let bins = Buffer::zeroed(ctx, 16 * 4).unwrap();
    ctx.dispatch(
        k,
        [2, 1, 1],
        &[Bind::new(0, 0, &keys), Bind::new(0, 1, &bins)],
    )
    .unwrap();
    bins.read::<u32>(ctx).unwrap()
}

#[test]
fn latin1_comments_are_read_as_glslang_reads_them() {
    let dir = folder("latin1");
    // A licence header and remarks saved as Latin-1 (ISO 8859-1), as older
    // editors on Windows write them: not UTF-8, only inside comments.
    write(
        &dir.join("common/bins.glsl"),
        b"// R\xe9partition des cl\xe9s sur les cases\n#define BIN(k) ((k) % 16u)\n",
    );
    let main = dir.join("histogramme.comp");
    write(
        &main,
        b"// Histogramme \xa9 2019 Soci\xe9t\xe9 G\xe9n\xe9rale, tous droits r\xe9serv\xe9s.\n\
#version 450\n\
#include \"common/bins.glsl\"\n\
/* Auteur : Fran\xe7ois M\xfcller\n   r\xe9vis\xe9 en 2021 */\n\
layout(local_size_x = 64) in; // \xe0 64 par groupe\n\
layout(set = 0, binding = 0) readonly buffer Keys { uint keys[]; };\n\
layout(set = 0, binding = 1) buffer Bins { uint bins[16]; };\n\
void main() {\n\
    uint k = keys[gl_GlobalInvocationID.x]; /* cl\xe9 */ atomicAdd(bins[BIN(k)], 1u);\n\
}\n",
    );
    let k =
        Kernel::from_path(&main, None, &SourceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for ctx in common::contexts(wgpu::Features::empty()) {
        assert_eq!(histogram(&k, &ctx), vec![8; 16], "{}", ctx.backend_name());
    }
    // Outside a comment such a byte is an error that says where it is.
    let code = dir.join("identifiant.comp");
    write(
        &code,
        b"#version 450\nlayout(local_size_x = 1) in;\n// fin\nvoid main() { uint caf\xe9 = 1u; }\n",
    );
    let e = Kernel::from_path(&code, None, &SourceOptions::default()).unwrap_err();
    let Error::Shader(s) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(s.line, Some(4), "{e}");
    assert_eq!(s.column, Some(23), "{e}");
    assert!(
        e.to_string()
            .contains("error: byte 0xe9 is not UTF-8 text, and not inside a comment"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn byte_order_marks_are_ignored() {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let dir = folder("bom");
    write(
        &dir.join("bins.glsl"),
        &[BOM, b"#define BIN(k) ((k) & 15u)\n"].concat(),
    );
    let glsl = "#version 450
#include \"bins.glsl\"
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1) buffer Bins { uint bins[16]; };
void main() { atomicAdd(bins[BIN(keys[gl_GlobalInvocationID.x])], 1u); }
";
    let main = dir.join("bins.comp");
    write(&main, &[BOM, glsl.as_bytes()].concat());
    let from_file =
        Kernel::from_path(&main, None, &SourceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // A string with the mark, as a program that read the file itself has it.
    let text = std::fs::read_to_string(&main).unwrap();
    assert!(text.starts_with('\u{feff}'));
    let opts = SourceOptions::named(main.display().to_string());
    let from_text = Kernel::from_glsl(&text, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_file.wgsl(), from_text.wgsl());
    let wgsl = dir.join("bins.wgsl");
    write(&wgsl, &[BOM, from_file.wgsl().as_bytes()].concat());
    let from_wgsl =
        Kernel::from_path(&wgsl, None, &SourceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!from_wgsl.wgsl().starts_with('\u{feff}'));
    for ctx in common::contexts(wgpu::Features::empty()) {
        for k in [&from_file, &from_wgsl] {
            assert_eq!(histogram(k, &ctx), vec![8; 16], "{}", ctx.backend_name());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn angle_bracket_includes_are_searched_on_the_include_dirs() {
    let dir = folder("angle");
    let lib = dir.join("lib");
    // A library header that includes its neighbour as `"…"`.
    write(
        &lib.join("hash/fnv.glsl"),
        b"#include \"mix.glsl\"\nuint bin_of(uint k) { return mix_bits(k * 16777619u) & 15u; }\n",
    );
    write(
        &lib.join("hash/mix.glsl"),
        b"uint mix_bits(uint h) { return h ^ (h >> 16); }\n",
    );
    let glsl = "#version 450
#include <hash/fnv.glsl>
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1) buffer Bins { uint bins[16]; };
void main() { atomicAdd(bins[bin_of(keys[gl_GlobalInvocationID.x])], 1u); }
";
    let main = dir.join("src/main.comp");
    write(&main, glsl.as_bytes());
    let k = Kernel::from_path(&main, None, &with_include_dirs(&[&lib]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.includes().len(), 2, "{:?}", k.includes());
    for ctx in common::contexts(wgpu::Features::empty()) {
        let bins = histogram(&k, &ctx);
        let mut want = vec![0u32; 16];
        for key in 0u32..128 {
            let h = key.wrapping_mul(16777619);
            want[((h ^ (h >> 16)) & 15) as usize] += 1;
        }
        assert_eq!(bins, want, "{}", ctx.backend_name());
    }
    // Where atomport looked, when the header is in none of those places.
    let e = Kernel::from_path(&main, None, &SourceOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains(
            "main.comp:2:1: error: '#include' : `hash/fnv.glsl` is searched for on the -I folders only (#include <…>), and none was given"
        ),
        "{e}"
    );
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let e = Kernel::from_path(&main, None, &with_include_dirs(&[&elsewhere])).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "`hash/fnv.glsl` is not in the -I folders {}",
            elsewhere.display()
        )),
        "{e}"
    );
    // `<…>` does not search the shader's own folder (as GCC and glslang):
    // the message says where the header is.
    let beside = dir.join("beside.comp");
    write(
        &beside,
        glsl.replace("hash/fnv.glsl", "lib/hash/fnv.glsl")
            .as_bytes(),
    );
    let e = Kernel::from_path(&beside, None, &SourceOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "; it is in {0}: write #include \"lib/hash/fnv.glsl\" or add -I {0}",
            dir.display()
        )),
        "{e}"
    );
    // `"…"` searches the including file's folder, then the -I folders.
    let quoted = dir.join("src/quoted.comp");
    write(
        &quoted,
        glsl.replace("<hash/fnv.glsl>", "\"fnv.glsl\"").as_bytes(),
    );
    let e = Kernel::from_path(&quoted, None, &with_include_dirs(&[&lib])).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "`fnv.glsl` is not in {}, {} (-I)",
            dir.join("src").display(),
            lib.display()
        )),
        "{e}"
    );
    // A header found but not read is named at the line that includes it,
    // for <…> as for "…" (where glslang asks again as <…> after a local
    // answer it cannot use).
    write(&lib.join("hash/fnv.glsl"), b"uint bin_of(uint k) {\0}\n");
    let local = dir.join("local.comp");
    write(
        &local,
        glsl.replace("<hash/fnv.glsl>", "\"lib/hash/fnv.glsl\"")
            .as_bytes(),
    );
    for (shader, header, opts) in [
        (&main, "hash/fnv.glsl", with_include_dirs(&[&lib])),
        (&local, "lib/hash/fnv.glsl", SourceOptions::default()),
    ] {
        let e = Kernel::from_path(shader, None, &opts).unwrap_err();
        assert!(
            e.to_string().contains(&format!(
                ".comp:2:1: error: '#include' : `{header}`: {}: the source contains a NUL byte\n",
                lib.join("hash/fnv.glsl").display()
            )),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `subgroupBroadcast` from a lane computed at run time: legal from SPIR-V
/// 1.5 (Vulkan 1.2) on, refused by glslang below.
const VARYING_BROADCAST: &str = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Lanes {
    uint size;
    uint hits;
    uint got[64];
} lanes;
void main() {
    uint lane = gl_SubgroupInvocationID;
    // Each lane reads the value of the lane after it, wrapping around.
    uint from = (lane + 1u) % gl_SubgroupSize;
    uint v = subgroupBroadcast(lane * 3u + 1u, from);
    lanes.got[gl_LocalInvocationIndex] = v;
    lanes.size = gl_SubgroupSize;
    atomicAdd(lanes.hits, 1u);
}
";

#[test]
fn a_shader_that_needs_spirv_1_5_compiles_without_a_target() {
    let spirv_version = |words: &[u32]| words[1];
    let name = SourceOptions::named("broadcast.comp");
    let words = atomport::compile_glsl(VARYING_BROADCAST, &name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        spirv_version(&words),
        0x0001_0500,
        "Vulkan 1.2's SPIR-V 1.5"
    );
    // A shader that SPIR-V 1.3 can express keeps it.
    let plain = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint n; };
void main() { atomicAdd(n, 1u); }
";
    let words = atomport::compile_glsl(plain, &name).unwrap();
    assert_eq!(spirv_version(&words), 0x0001_0300);
    // A target the caller chose stands, refusal included.
    let mut chosen = name.clone();
    chosen.target_env = Some(TargetEnv::Vulkan1_1);
    let e = atomport::compile_glsl(VARYING_BROADCAST, &chosen).unwrap_err();
    assert!(
        e.to_string()
            .contains("broadcast.comp:14: error: 'id' : argument must be compile-time constant"),
        "{e}"
    );
    chosen.target_env = Some(TargetEnv::Vulkan1_3);
    let words = atomport::compile_glsl(VARYING_BROADCAST, &chosen).unwrap();
    assert_eq!(spirv_version(&words), 0x0001_0600);
    // And it runs where the adapter has subgroups.
    let k = Kernel::from_glsl(VARYING_BROADCAST, &name).unwrap_or_else(|e| panic!("{e}"));
    assert!(k.required_features().contains(wgpu::Features::SUBGROUP));
    let mut ran = 0;
    for ctx in common::contexts_with_available(wgpu::Features::SUBGROUP) {
        if !ctx.device().features().contains(wgpu::Features::SUBGROUP) {
            println!("{}: no SUBGROUP, not run", ctx.backend_name());
            continue;
        }
        let b = Buffer::zeroed(&ctx, 66 * 4).unwrap();
        ctx.dispatch(&k, [1, 1, 1], &[Bind::new(0, 0, &b)]).unwrap();
        let out: Vec<u32> = b.read(&ctx).unwrap();
        let size = out[0];
        assert!(size.is_power_of_two() && size <= 64, "subgroup size {size}");
        assert_eq!(out[1], 64);
        let want: Vec<u32> = (0..64u32)
            .map(|i| ((i % size + 1) % size) * 3 + 1)
            .collect();
        assert_eq!(&out[2..], &want[..], "{}", ctx.backend_name());
        ran += 1;
    }
    println!("ran on {ran} adapter(s) with SUBGROUP");
}

/// A WGSL histogram with overrides of each kind: with and without `@id`,
/// with and without a default.
const TALLY: &str = "// Counts keys into BINS bins, each hit worth WEIGHT.
@id(0) override BINS: u32 = 16u;
override WEIGHT: u32;
@id(2) override SKEW = 0; // i32, inferred
override SCALE: f32 = 1.0;
@id(4) override ENABLED: bool = true;
const LIMIT = 64u;
override CAP: u32 = LIMIT;

@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (!ENABLED || id.x >= CAP) { return; }
    let k = u32(i32(keys[id.x]) + SKEW) + u32(SCALE) - 1u;
    atomicAdd(&bins[k % BINS], WEIGHT);
    atomicAdd(&bins[16], LIMIT);
}
";

fn with_specs(specs: &[&str]) -> SourceOptions {
    let mut o = SourceOptions::named("tally.wgsl");
    o.specializations = specs
        .iter()
        .map(|s| Specialization::parse(s).unwrap())
        .collect();
    o
}

/// Runs the tally over keys 0..128: the 17 words of `bins`.
fn tally(k: &Kernel, ctx: &atomport::Context) -> Vec<u32> {
    let keys: Vec<u32> = (0..128).collect();
    let keys = Buffer::from_slice(ctx, &keys).unwrap();
    let bins = Buffer::zeroed(ctx, 17 * 4).unwrap();
    ctx.dispatch(
        k,
        [2, 1, 1],
        &[Bind::new(0, 0, &keys), Bind::new(0, 1, &bins)],
    )
    .unwrap();
    bins.read::<u32>(ctx).unwrap()
}

#[test]
fn wgsl_overrides_take_spec_values_by_id_and_by_name() {
    let k = Kernel::from_wgsl(
        TALLY,
        &with_specs(&["BINS=4", "WEIGHT=3", "2=1", "SCALE=2.5", "CAP=100", "0=8"]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The values are the defaults, in the text as in the module.
    for line in [
        "@id(0) override BINS: u32 = 8u;",
        "override WEIGHT: u32 = 3u;",
        "@id(2) override SKEW = 1i; // i32, inferred",
        "override SCALE: f32 = 2.5f;",
        "@id(4) override ENABLED: bool = true;",
        "const LIMIT = 64u;",
        "override CAP: u32 = 100u;",
    ] {
        assert!(k.wgsl().lines().any(|l| l == line), "{line}\n{}", k.wgsl());
    }
    for ctx in common::contexts(wgpu::Features::empty()) {
        let out = tally(&k, &ctx);
        // Keys 0..100 count, each as key + 1 + 2 - 1, into 8 bins, 3 a hit.
        let mut want = vec![0u32; 17];
        for key in 0..100u32 {
            want[((key + 2) % 8) as usize] += 3;
        }
        want[16] = 64 * 100;
        assert_eq!(out, want, "{}", ctx.backend_name());
        // Switched off by name.
        let off = Kernel::from_wgsl(TALLY, &with_specs(&["WEIGHT=1", "ENABLED=false"])).unwrap();
        assert_eq!(tally(&off, &ctx), vec![0; 17], "{}", ctx.backend_name());
    }
    // Values checked against the override's type: i32's extremes fit.
    let k = Kernel::from_wgsl(TALLY, &with_specs(&["WEIGHT=1", "SKEW=-2147483648"])).unwrap();
    assert!(
        k.wgsl()
            .contains("@id(2) override SKEW = i32(-2147483648);")
    );
}

#[test]
fn a_spec_the_wgsl_shader_lacks_or_cannot_hold_is_refused() {
    let e = Kernel::from_wgsl(TALLY, &with_specs(&["NOPE=1"])).unwrap_err();
    assert!(matches!(e, Error::UnknownName(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the shader has no specialization constant `NOPE` (--spec NOPE=1); it has: 0 (BINS), 2 (SKEW), 4 (ENABLED), WEIGHT, SCALE, CAP"
    );
    let e = Kernel::from_wgsl(TALLY, &with_specs(&["7=1"])).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "the shader has no specialization constant 7 (--spec 7=1); it has: 0 (BINS)"
        ),
        "{e}"
    );
    let plain = "@compute @workgroup_size(1) fn main() {}";
    let e = Kernel::from_wgsl(plain, &with_specs(&["0=1"])).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("; the shader has no specialization constants"),
        "{e}"
    );
    for (spec, message) in [
        (
            "BINS=-1",
            "specialization constant `BINS` (--spec BINS=-1) is an unsigned 32-bit integer: `-1` is not one",
        ),
        (
            "2=2147483648",
            "specialization constant 2 (--spec 2=2147483648) is a signed 32-bit integer",
        ),
        (
            "ENABLED=yes",
            "specialization constant `ENABLED` (--spec ENABLED=yes) is a bool: `yes` is not one (true, false, 1 or 0)",
        ),
        ("SCALE=1e39", "(--spec SCALE=1e39) is a float"),
        ("SCALE=inf", "is a float: `inf` is not a finite one"),
    ] {
        let e = Kernel::from_wgsl(TALLY, &with_specs(&[spec])).unwrap_err();
        assert!(matches!(e, Error::InvalidValue(_)), "{spec}: {e:?}");
        assert!(e.to_string().contains(message), "{spec}: {e}");
    }
}

#[test]
fn wgsl_spec_on_the_command_line() {
    let dir = folder("cli");
    let path = dir.join("tally.wgsl");
    write(&path, TALLY.as_bytes());
    let p = path.to_str().unwrap();
    let o = common::atomport(&["translate", p, "--spec", "BINS=4", "--spec", "WEIGHT=2"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("@id(0) override BINS: u32 = 4u;"), "{text}");
    assert!(text.contains("override WEIGHT: u32 = 2u;"), "{text}");
    let o = common::atomport(&["translate", p, "--spec", "NOPE=1"]);
    common::assert_fails(
        &o,
        2,
        "no specialization constant `NOPE` (--spec NOPE=1); it has: 0 (BINS), 2 (SKEW), 4 (ENABLED), WEIGHT, SCALE, CAP",
    );
    let o = common::atomport(&["translate", p, "--spec", "ENABLED=maybe"]);
    common::assert_fails(&o, 2, "`ENABLED` (--spec ENABLED=maybe) is a bool");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn included_files_given_by_their_text_translate_as_from_disk() {
    let name = "tests/glsl/include_common_hash_buckets.comp";
    let source = std::fs::read_to_string(name).unwrap();
    let from_disk = Kernel::from_glsl(&source, &SourceOptions::named(name)).unwrap();
    let header = "tests/glsl/include/common.glsl";
    assert_eq!(from_disk.includes(), [PathBuf::from(header)]);
    // Named as the search names it, `./` and `x/..` aside; the disk is not
    // read (the shader is moved to a folder where the header is not).
    let moved = "elsewhere/include_common_hash_buckets.comp";
    let opts = SourceOptions {
        files: vec![(
            PathBuf::from("elsewhere/./x/../include/common.glsl"),
            std::fs::read_to_string(header).unwrap(),
        )],
        ..SourceOptions::named(moved)
    };
    let given = Kernel::from_glsl(&source, &opts).unwrap();
    assert_eq!(given.wgsl(), from_disk.wgsl());
    assert_eq!(given.bindings(), from_disk.bindings());
    assert_eq!(
        given.includes(),
        [PathBuf::from("elsewhere/./x/../include/common.glsl")]
    );
    // Without it, the search says where it looked.
    let e = Kernel::from_glsl(&source, &SourceOptions::named(moved))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not in elsewhere"), "{e}");
}

/// A shader written without `#version`, as a renderer whose build hands
/// glslang the version (and the include extension) writes its passes: a
/// header of helpers beside it, `#include` without the extension named.
#[test]
fn a_shader_without_a_version_takes_the_one_its_build_gives() {
    let dir = folder("versionless");
    write(
        &dir.join("Binning.h.glsl"),
        b"// Shared by the passes: the bin of a key.\nuint binOf(uint key) { uint h = key * 2246822519u; return (h ^ (h >> 15)) & 15u; }\n",
    );
    let main = dir.join("Histogram.comp.glsl");
    write(
        &main,
        b"#include \"Binning.h.glsl\"\n\
layout(local_size_x = 64) in;\n\
layout(set = 0, binding = 0) readonly buffer KeyBuffer { uint keys[]; };\n\
layout(set = 0, binding = 1) buffer BinBuffer { uint bins[16]; };\n\
void main() { atomicAdd(bins[binOf(keys[gl_GlobalInvocationID.x])], 1u); }\n",
    );
    // As glslang reads it alone: GLSL ES 1.00, with no compute shaders.
    let e = Kernel::from_path(&main, None, &SourceOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("compute shaders require"), "{text}");
    assert!(
        text.contains("Histogram.comp.glsl: the shader has no #version line: give the version its project compiles it with (--glsl-version 460"),
        "{text}"
    );
    let v460 = SourceOptions {
        glsl_version: Some(GlslVersion::parse("460").unwrap()),
        ..SourceOptions::default()
    };
    let k = Kernel::from_path(&main, None, &v460).unwrap_or_else(|e| panic!("{e}"));
    for ctx in common::contexts(wgpu::Features::empty()) {
        let mut want = vec![0u32; 16];
        for key in 0u32..128 {
            let h = key.wrapping_mul(2246822519);
            want[((h ^ (h >> 15)) & 15) as usize] += 1;
        }
        assert_eq!(histogram(&k, &ctx), want, "{}", ctx.backend_name());
    }
    // Errors keep the file's own line numbers, the version given apart.
    let broken = dir.join("Broken.comp.glsl");
    write(
        &broken,
        b"#include \"Binning.h.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() { binOf(undeclared); }\n",
    );
    let e = Kernel::from_path(&broken, None, &v460).unwrap_err();
    assert!(
        e.to_string().contains("Broken.comp.glsl:3:") && e.to_string().contains("undeclared"),
        "{e}"
    );
    // A shader's own #version wins: GLSL ES has no doubles, which the
    // desktop version given would have allowed.
    let es = dir.join("Es.comp");
    write(
        &es,
        b"#version 310 es\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { float b; };\nvoid main() { double d = 1.0; b = float(d); }\n",
    );
    let e = Kernel::from_path(&es, None, &v460).unwrap_err();
    assert!(e.to_string().contains("Es.comp:4:"), "{e}");
    // Only the versions with compute shaders parse.
    assert_eq!(
        GlslVersion::parse("310es"),
        Ok(GlslVersion {
            number: 310,
            es: true
        })
    );
    assert_eq!(
        GlslVersion::parse("450core").map(GlslVersion::name),
        Ok("450".into())
    );
    for bad in ["330", "300es", "470", "", "460compatibility"] {
        assert!(GlslVersion::parse(bad).is_err(), "{bad}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
