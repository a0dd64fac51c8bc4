//! GLSL that glslang refuses and desktop drivers take, read as drivers
//! read it: the refused text is blanked (lines keep their numbers) and
//! the shader compiled again, where those refusals are the log's only
//! errors ([`without_what_drivers_take`]). glslang names one refusal at a
//! time, so a bounded number of passes ([`MAX_LENIENT_PASSES`]).

use std::path::PathBuf;

/// How many times glslang is asked again after blanking what it refused
/// (see [`without_what_drivers_take`]).
pub(super) const MAX_LENIENT_PASSES: usize = 32;

/// Blanks what glslang's log refuses and desktop drivers take, in `main`
/// (the shader's text) or in `patched` (included files, found before any
/// on disk; a file is copied there from `included` when first changed),
/// where those are its only errors:
/// - a semicolon after a function body (`};`), which GLSL allows from
///   4.60 and drivers in every version;
/// - a malformed `optimize` or `debug` pragma (`#pragma optimize off`),
///   which drivers ignore as they ignore any pragma they do not know, and
///   which changes nothing in SPIR-V.
///
/// `None` where the log has other errors, or what it refused is not where
/// expected.
pub(super) fn without_what_drivers_take(
    log: &str,
    main: &mut String,
    patched: &mut Vec<(PathBuf, String)>,
    included: &[(PathBuf, String)],
) -> Option<()> {
    let mut at: Vec<(&str, usize, bool)> = Vec::new();
    for line in log.lines().filter_map(|l| l.trim().strip_prefix("ERROR: ")) {
        if line.ends_with("compilation errors.  No code generated.")
            || line.ends_with("'' : compilation terminated")
        {
            continue;
        }
        let (file, rest) = line.split_once(':')?;
        let (n, msg) = rest.split_once(':')?;
        let msg = msg.trim_start();
        let pragma = msg.starts_with("'#pragma' : optimize pragma syntax is incorrect")
            || msg.starts_with("'#pragma' : debug pragma syntax is incorrect");
        if !pragma && !msg.starts_with("'extraneous semicolon'") {
            return None;
        }
        at.push((file, n.trim().parse().ok()?, pragma));
    }
    if at.is_empty() {
        return None;
    }
    for (file, n, pragma) in at {
        let text = if file == "0" || file.is_empty() {
            &mut *main
        } else {
            let k = match patched.iter().position(|(p, _)| p.to_str() == Some(file)) {
                Some(k) => k,
                None => {
                    let (p, t) = included.iter().find(|(p, _)| p.to_str() == Some(file))?;
                    patched.push((p.clone(), t.clone()));
                    patched.len() - 1
                }
            };
            &mut patched[k].1
        };
        if pragma {
            blank_pragma(text, n)?;
        } else {
            blank_extraneous_semicolon(text, n)?;
        }
    }
    Some(())
}

/// The byte range of line `n` (1-based) of `text`, without its newline.
fn line_range(text: &str, n: usize) -> Option<std::ops::Range<usize>> {
    let start: usize = text
        .split_inclusive('\n')
        .take(n.checked_sub(1)?)
        .map(str::len)
        .sum();
    let len = text.get(start..)?.split('\n').next()?.len();
    Some(start..start + len)
}

/// Blanks line `n` (1-based) where it is a `#pragma` directive.
fn blank_pragma(text: &mut String, n: usize) -> Option<()> {
    let range = line_range(text, n)?;
    let line = &text[range.clone()];
    let directive = line.trim_start().strip_prefix('#')?.trim_start();
    if !directive.starts_with("pragma") || line.ends_with('\\') {
        return None;
    }
    let blank = " ".repeat(line.len());
    text.replace_range(range, &blank);
    Some(())
}

/// Blanks the last semicolon of line `n` (1-based) that closes nothing:
/// one right after a `}` or alone on its line.
fn blank_extraneous_semicolon(text: &mut String, n: usize) -> Option<()> {
    let range = line_range(text, n)?;
    let start = range.start;
    let line = &text[range];
    let at = line.char_indices().rev().find_map(|(i, c)| {
        let before = line[..i].trim_end();
        (c == ';' && (before.is_empty() || before.ends_with('}'))).then_some(i)
    })?;
    text.replace_range(start + at..start + at + 1, " ");
    Some(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::front::SourceOptions;
    use crate::front::glsl::compile;

    /// Semicolons after function bodies (`};`), which glslang refuses
    /// before GLSL 4.60 and desktop drivers take in every version, in the
    /// shader and in a header it includes (NVIDIA's GL samples write them),
    /// and malformed pragmas drivers ignore: the shader compiles. A
    /// struct's own `};` stays, and a shader with another error still has
    /// it named at its line.
    #[test]
    fn what_drivers_take_is_read_as_they_read_it() {
        let header = "vec4 twice(vec4 v) {\n    return v * 2.0;\n};\n";
        let src = "#version 430
#include \"helpers.glsl\"
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer B { vec4 v[]; };
struct Pair { float a; float b; };
float sum(Pair p) { return p.a + p.b; };
float half_of(float x) { return x * 0.5; }; ;
void main() {
    v[gl_GlobalInvocationID.x] = twice(v[0]) + half_of(sum(Pair(1.0, 2.0)));
};
";
        let mut opts = SourceOptions::named("shaders/step.comp");
        opts.files = vec![(PathBuf::from("shaders/helpers.glsl"), header.into())];
        let c = compile(src, &opts).unwrap();
        assert!(c.includes.iter().any(|p| p.ends_with("helpers.glsl")));
        let bad = src.replace("twice(v[0])", "twice(v[0], 1)");
        let e = compile(&bad, &opts).unwrap_err().to_string();
        assert!(e.contains("shaders/step.comp:9:"), "{e}");
        assert!(!e.contains("extraneous"), "{e}");
        // ES profiles are read alike.
        let es =
            "#version 310 es\nlayout(local_size_x = 1) in;\nvoid f() {};\nvoid main() { f(); }\n";
        compile(es, &SourceOptions::named("es.comp")).unwrap();
        // Pragmas drivers ignore, written as GLSL does not spell them
        // (Granite's FFT writes `#pragma optimize off`).
        let pragmas = "#version 450\n#pragma optimize off\n  # pragma debug on\nlayout(local_size_x = 1) in;\nvoid f() {};\nvoid main() { f(); }\n";
        compile(pragmas, &SourceOptions::named("fft.comp")).unwrap();
        // An error of another kind is reported as it stands.
        let e = compile(
            "#version 450\n#pragma optimize off\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n",
            &SourceOptions::named("bad.comp"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bad.comp:4:"), "{e}");
    }
}
