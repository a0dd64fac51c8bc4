//! glslang's log as atomport's diagnostics: `file:line: error: …` with
//! the line quoted and the token marked, a preprocessor definition's
//! errors named as such, and the link errors for functions declared and
//! defined in no unit written as GLSL writes their signatures.

use std::path::PathBuf;

use super::Dialect;

/// The texts an error may point into: the shader under its name, and every
/// file it included under the name glslang gives it.
pub(super) fn sources<'a>(
    source: &'a str,
    name: &'a str,
    included: &'a [(PathBuf, String)],
) -> Vec<(&'a str, &'a str)> {
    let mut out = vec![(name, source)];
    for (path, text) in included {
        if let Some(p) = path.to_str() {
            out.push((p, text.as_str()));
        }
    }
    out
}

/// Where in `line` glslang's message points: its quoted token (`'atomicAdd'
/// : …`), or the token a syntax error names (`unexpected RIGHT_BRACE`).
fn glslang_column(line: &str, msg: &str) -> Option<(u32, u32)> {
    let quoted = msg.strip_prefix('\'').and_then(|m| m.split('\'').next());
    if let Some(token) = quoted.filter(|t| !t.is_empty()) {
        let token = token.trim();
        return crate::error::column_of(line, token).map(|c| (c, token.len() as u32));
    }
    let unexpected = msg.split("unexpected ").nth(1)?.split([',', ' ']).next()?;
    let symbol = match unexpected {
        "RIGHT_BRACE" => "}",
        "LEFT_BRACE" => "{",
        "RIGHT_PAREN" => ")",
        "LEFT_PAREN" => "(",
        "RIGHT_BRACKET" => "]",
        "LEFT_BRACKET" => "[",
        "SEMICOLON" => ";",
        "COMMA" => ",",
        "EQUAL" => "=",
        "DOT" => ".",
        _ => return None,
    };
    line.find(symbol).map(|i| (i as u32 + 1, 1))
}

/// glslang's log as `file:line: error: message` lines, each error followed
/// by its line of the source (from `sources`) and a caret where known.
pub(super) fn diagnostics(
    log: &str,
    name: &str,
    dialect: Dialect,
    sources: &[(&str, &str)],
) -> String {
    let mut lines: Vec<String> = Vec::new();
    // The functions listed after glslang's link error for functions
    // declared and defined nowhere, one per line.
    let mut undefined = false;
    for line in log.lines() {
        let line = line.trim();
        if undefined && !line.is_empty() && !line.contains(": ") {
            let shown = glslang_signature(line).unwrap_or_else(|| line.to_string());
            let function = line.split('(').next().unwrap_or(line);
            let at = sources
                .iter()
                .find_map(|(file, text)| {
                    let n = text.lines().position(|l| is_prototype(l, function))?;
                    Some(format!("{file}:{}", n + 1))
                })
                .unwrap_or_else(|| name.to_string());
            lines.push(format!(
                "{at}: error: `{shown}` is declared but defined in no compilation unit: link the shader that defines it (--link FILE, SourceOptions::linked), as OpenGL links every shader attached to a program"
            ));
            continue;
        }
        undefined = line.ends_with("No function definition (body) found:");
        if line.is_empty()
            || line.ends_with("compilation errors.  No code generated.")
            || line.ends_with("'' : compilation terminated")
        {
            continue;
        }
        let (severity, rest) = if let Some(r) = line.strip_prefix("ERROR: ") {
            ("error", r)
        } else if let Some(r) = line.strip_prefix("WARNING: ") {
            ("warning", r)
        } else {
            lines.push(format!("{name}: {line}"));
            continue;
        };
        // glslang writes `0:LINE: msg` for the main file and `FILE:LINE: msg` for includes.
        match rest.split_once(':').and_then(|(file, r)| {
            let (ln, msg) = r.split_once(':')?;
            ln.trim()
                .parse::<u32>()
                .ok()
                .map(|ln| (file, ln, msg.trim()))
        }) {
            Some((file, ln, msg)) => {
                let file = if file == "0" || file.is_empty() {
                    name
                } else {
                    file
                };
                // atomport's message for a header found nowhere names it already.
                let msg = match msg.split_once(" for header name: ") {
                    Some((m, header)) if m.contains(&format!("`{header}`")) => m,
                    _ => msg,
                };
                let opengl_only = msg.contains("atomic counter")
                    || msg.contains("non-opaque uniforms outside a block")
                    || msg.contains("require layout(binding");
                let hint = if dialect == Dialect::Vulkan && opengl_only {
                    " (this is OpenGL GLSL: compile it as the `opengl` dialect)"
                } else {
                    ""
                };
                if file == "-1" {
                    // glslang's preamble: the `-D` definitions, as `#define`s.
                    lines.push(format!(
                        "{name}: in a preprocessor definition: {severity}: {msg}"
                    ));
                } else {
                    let text = sources.iter().find(|(n, _)| *n == file).map(|(_, t)| *t);
                    let line_text = text.and_then(|t| t.lines().nth(ln.saturating_sub(1) as usize));
                    match (text, line_text) {
                        (Some(text), Some(line_text)) if severity == "error" => {
                            let (column, len) = glslang_column(line_text, msg).unwrap_or((0, 0));
                            let mark = crate::error::Mark {
                                line: ln,
                                column,
                                len,
                                label: String::new(),
                            };
                            lines.push(crate::error::with_excerpt(
                                file,
                                &format!("{severity}: {msg}{hint}"),
                                text,
                                &[mark],
                            ));
                        }
                        _ => lines.push(format!("{file}:{ln}: {severity}: {msg}{hint}")),
                    }
                }
            }
            None => lines.push(format!("{name}: {severity}: {rest}")),
        }
    }
    // glslang repeats its log in some failure paths.
    let mut seen = std::collections::HashSet::new();
    lines.retain(|l| seen.insert(l.clone()));
    if lines.is_empty() {
        format!("{name}: glslang failed without a message")
    } else {
        lines.join("\n")
    }
}

/// Whether `line` declares `function` without a body: a return type (and
/// qualifiers) before its name, the statement ended on the line. A call
/// (`x = f(a);`, `f(a);`, `return f(a);`) is none.
fn is_prototype(line: &str, function: &str) -> bool {
    let l = line.trim();
    let Some((before, _)) = l.split_once(&format!("{function}(")) else {
        return false;
    };
    let words: Vec<&str> = before.split_whitespace().collect();
    l.ends_with(';')
        && before.ends_with(char::is_whitespace)
        && !words.is_empty()
        && !words.contains(&"return")
        && words
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// A function's signature as glslang mangles it in messages
/// (`jitter(vu2;u1;`) written as GLSL (`jitter(uvec2, uint)`); a parameter
/// type of another form is left as glslang wrote it.
fn glslang_signature(mangled: &str) -> Option<String> {
    let (name, params) = mangled.split_once('(')?;
    let types: Vec<String> = params
        .split(';')
        .filter(|p| !p.is_empty())
        .map(|p| {
            if let Some(rest) = p.strip_prefix("struct-") {
                return rest.split('-').next().unwrap_or(rest).to_string();
            }
            let (vector, rest) = p.strip_prefix('v').map_or((false, p), |r| (true, r));
            let mut chars = rest.chars();
            let (kind, size) = (chars.next(), chars.as_str());
            let (scalar, prefix) = match kind {
                Some('f') => ("float", "vec"),
                Some('d') => ("double", "dvec"),
                Some('i') => ("int", "ivec"),
                Some('u') => ("uint", "uvec"),
                Some('b') => ("bool", "bvec"),
                _ => return p.to_string(),
            };
            match (vector, size) {
                (false, "1") => scalar.to_string(),
                (true, "2" | "3" | "4") => format!("{prefix}{size}"),
                _ => p.to_string(),
            }
        })
        .collect();
    Some(format!("{name}({})", types.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function declared and defined nowhere is located at its prototype,
    /// not at an earlier line that calls it or one of a longer name.
    #[test]
    fn an_undefined_function_is_located_at_its_prototype() {
        let main = "#version 430\nvec2 myjitter(uint n);\nvoid helper() { jitter(1u); }\n\
                    highp vec2 jitter(uint n);\nvoid main() { vec2 v = jitter(2u); }\n";
        let log =
            "ERROR: Linking compute stage: No function definition (body) found:\n    jitter(u1;\n";
        let text = diagnostics(log, "k.comp", Dialect::OpenGl, &[("k.comp", main)]);
        assert!(
            text.contains(
                "k.comp:4: error: `jitter(uint)` is declared but defined in no compilation unit"
            ),
            "{text}"
        );
        for call in [
            "jitter(1u);",
            "v = jitter(2u);",
            "return jitter(n);",
            "myjitter(uint n);",
        ] {
            assert!(!is_prototype(call, "jitter"), "{call}");
        }
        assert!(is_prototype("  const highp vec2 jitter(uint n);", "jitter"));
    }
}
