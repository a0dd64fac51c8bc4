//! What a translation for WebGPU ([`crate::Platform::WebGpu`]) may not
//! need: every feature outside what a browser can grant through wgpu is
//! refused at once, each named with the first source line that needs it.

use crate::{Error, Result};

/// GLSL words that find the line needing a feature, by feature.
fn words_of(feature: wgt::Features) -> &'static [&'static str] {
    use wgt::Features as F;
    const INT64: &[&str] = &[
        "uint64_t",
        "int64_t",
        "u64vec2",
        "u64vec3",
        "u64vec4",
        "i64vec2",
        "i64vec3",
        "i64vec4",
        "buffer_reference",
    ];
    const F64: &[&str] = &[
        "double", "dvec2", "dvec3", "dvec4", "dmat2", "dmat3", "dmat4",
    ];
    const ARRAYS: &[&str] = &["nonuniformEXT", "GL_EXT_nonuniform_qualifier"];
    if feature.intersects(
        F::SHADER_INT64 | F::SHADER_INT64_ATOMIC_MIN_MAX | F::SHADER_INT64_ATOMIC_ALL_OPS,
    ) {
        INT64
    } else if feature.contains(F::SHADER_F64) {
        F64
    } else if feature.intersects(
        F::TEXTURE_BINDING_ARRAY
            | F::BUFFER_BINDING_ARRAY
            | F::STORAGE_RESOURCE_BINDING_ARRAY
            | F::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING
            | F::STORAGE_TEXTURE_ARRAY_NON_UNIFORM_INDEXING,
    ) {
        ARRAYS
    } else {
        &[]
    }
}

/// The 1-based line of the first whole-word use of one of `words` in
/// `source`, outside `//` comments.
fn first_line(source: &str, words: &[&str]) -> Option<usize> {
    source
        .lines()
        .position(|l| {
            let code = l.split("//").next().unwrap_or_default();
            words
                .iter()
                .any(|w| crate::lower::spirv::compat::has_word(code, w))
        })
        .map(|p| p + 1)
}

/// Fails when `features` (what the translation needs) hold anything a
/// browser cannot grant, naming each feature and, with the GLSL `source`,
/// the line that needs it.
pub(crate) fn refuse_native_only(
    features: wgt::Features,
    source: Option<&str>,
    name: &str,
) -> Result<()> {
    let native_only = features - wgt::Features::all_webgpu_mask();
    if native_only.is_empty() {
        return Ok(());
    }
    let mut parts = Vec::new();
    for feature in native_only.iter() {
        let line = source.and_then(|s| first_line(s, words_of(feature)));
        let what = crate::error::describe_features(feature);
        parts.push(match line {
            Some(l) => format!("{name}:{l}: needs {what}"),
            None => format!("{name}: needs {what}"),
        });
    }
    Err(Error::Unsupported(format!(
        "{}; WebGPU has none of these (translate for a native target instead)",
        parts.join("; ")
    )))
}

/// Fails where a control barrier sits in control flow WGSL's uniformity
/// analysis cannot prove uniform (and `workgroupUniformLoad` could not
/// make so): browsers refuse the module, so it is never emitted.
pub(crate) fn refuse_non_uniform_barriers(warnings: &[crate::Warning], name: &str) -> Result<()> {
    let Some(w) = warnings
        .iter()
        .find(|w| w.message == crate::lower::ir::uniformity::NON_UNIFORM_BARRIER)
    else {
        return Ok(());
    };
    let at = match w.line {
        Some(l) => format!("{name}:{l}"),
        None => name.to_string(),
    };
    Err(Error::Unsupported(format!(
        "{at}: barrier() in control flow that WGSL's uniformity analysis cannot prove uniform, which browsers refuse; branch on uniform values (uniform blocks, read-only buffers, workgroup ids, shared flags read in uniform control flow) around it"
    )))
}

/// Fails where the kernel binds one buffer at two bindings (blocks declared
/// at one binding, or the views of buffer references' memory) and writes
/// it: WebGPU refuses a dispatch that binds a buffer twice where either
/// binding writes it ("writable storage buffer binding aliasing"), which
/// native backends allow.
pub(crate) fn refuse_writable_aliases(bindings: &[crate::BindingInfo], name: &str) -> Result<()> {
    for b in bindings {
        let Some(of) = b.alias_of else { continue };
        let Some(other) = bindings
            .iter()
            .find(|o| o.group == b.group && o.binding == of)
        else {
            continue;
        };
        if b.writable() || other.writable() {
            let what = if other.name.as_deref() == Some("atomport_arena") {
                "buffer references' memory, reached both atomically and plainly (two views of one buffer)".to_string()
            } else {
                format!(
                    "blocks `{}` and `{}`, declared at one binding",
                    b.display_name(),
                    other.display_name()
                )
            };
            return Err(Error::Unsupported(format!(
                "{name}: {what}, which the kernel writes: WebGPU cannot bind one buffer twice in a dispatch where either binding writes it"
            )));
        }
    }
    Ok(())
}

/// `wgsl` as browsers compile it: [`exact_float_literals`], then
/// [`non_finite_at_run_time`].
pub(crate) fn for_browsers(wgsl: &str) -> String {
    non_finite_at_run_time(&exact_float_literals(wgsl))
}

/// `wgsl` with each infinity or NaN that a function makes from its bits
/// (`bitcast<f32>(2139095040u)`, as atomport writes GLSL's `1.0 / 0.0`)
/// made from bits read out of a private variable: Tint evaluates a bitcast
/// of a constant when it compiles, and refuses one that gives no finite
/// `f32` ("value inf cannot be represented as 'f32'"). Function bodies are
/// the indented lines of naga's text; module-scope constants are left as
/// they are.
pub(crate) fn non_finite_at_run_time(wgsl: &str) -> String {
    let mut declared: Vec<u32> = Vec::new();
    let mut body = String::with_capacity(wgsl.len());
    for line in wgsl.split_inclusive('\n') {
        if !line.starts_with(' ') || !line.contains("bitcast<f32>(") {
            body.push_str(line);
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("bitcast<f32>(") {
            let (before, call) = rest.split_at(at);
            body.push_str(before);
            let args = &call["bitcast<f32>(".len()..];
            let digits = args.bytes().take_while(u8::is_ascii_digit).count();
            let bits = args[..digits].parse::<u32>().ok();
            match bits
                .filter(|&b| !f32::from_bits(b).is_finite() && args[digits..].starts_with("u)"))
            {
                Some(b) => {
                    if !declared.contains(&b) {
                        declared.push(b);
                    }
                    body.push_str(&format!("bitcast<f32>(atomport_bits_{b})"));
                    rest = &args[digits + 2..];
                }
                None => {
                    body.push_str("bitcast<f32>(");
                    rest = args;
                }
            }
        }
        body.push_str(rest);
    }
    if declared.is_empty() {
        return body;
    }
    // After the directives, which come first in WGSL.
    let directives: usize = body
        .split_inclusive('\n')
        .take_while(|l| {
            l.starts_with("enable ") || l.starts_with("requires ") || l.starts_with("diagnostic")
        })
        .map(str::len)
        .sum();
    let vars: String = declared
        .iter()
        .map(|b| format!("var<private> atomport_bits_{b}: u32 = {b}u;\n"))
        .collect();
    format!("{}{vars}{}", &body[..directives], &body[directives..])
}

/// `wgsl` with every `f32` literal that a WGSL compiler would not read
/// back as the same value written in hexadecimal, exactly. naga prints the
/// shortest decimal that rounds to the value, and a compiler that reads
/// decimals through `f64` (Tint) refuses one past `f32`'s range — the
/// largest float prints as `340282350000000000000000000000000000000f`,
/// which is above it — or may round twice.
pub(crate) fn exact_float_literals(wgsl: &str) -> String {
    let b = wgsl.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = String::with_capacity(wgsl.len());
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !ident(b[i - 1]));
        if !starts {
            let c = wgsl[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let mut j = i;
        while j < b.len()
            && (b[j].is_ascii_digit()
                || b[j] == b'.'
                || b[j] == b'e'
                || ((b[j] == b'-' || b[j] == b'+') && j > i && b[j - 1] == b'e'))
        {
            j += 1;
        }
        let literal = b.get(j) == Some(&b'f') && !b.get(j + 1).is_some_and(|&c| ident(c));
        match literal.then(|| wgsl[i..j].parse::<f32>().ok()).flatten() {
            Some(value) if rereads_wrong(&wgsl[i..j], value) => {
                out.push_str(&hex_f32(value));
                i = j + 1;
            }
            _ => {
                out.push_str(&wgsl[i..j]);
                i = j;
            }
        }
    }
    out
}

/// Whether a compiler reading `text` (naga's shortest decimal of `value`)
/// through `f64` fails (past `f32`'s range) or rounds twice to another `f32`.
fn rereads_wrong(text: &str, value: f32) -> bool {
    let Ok(decimal) = text.parse::<f64>() else {
        return true;
    };
    decimal.abs() > f64::from(f32::MAX) || (decimal as f32).to_bits() != value.to_bits()
}

/// `v` as a WGSL hexadecimal `f32` literal (`0x1.fffffep+127f`).
fn hex_f32(v: f32) -> String {
    let bits = v.to_bits();
    let sign = if bits >> 31 == 1 { "-" } else { "" };
    let exp = ((bits >> 23) & 0xff) as i32;
    let mantissa = (bits & 0x7f_ffff) << 1;
    if exp == 0 {
        format!("{sign}0x0.{mantissa:06x}p-126f")
    } else {
        format!("{sign}0x1.{mantissa:06x}p{:+}f", exp - 127)
    }
}

/// The WGSL a browser compiles for `module` (the kernel's, with the
/// run's storage formats): naga's text with [`exact_float_literals`].
/// wgpu's WebGPU backend would print a naga module itself, without them.
#[cfg(all(feature = "runtime", target_arch = "wasm32"))]
pub(crate) fn browser_wgsl(module: &naga::Module, name: &str) -> Result<String> {
    let info = crate::front::validate(module, None, name)?;
    let text =
        naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| {
                Error::Unsupported(format!("{name}: WGSL has no form for this module: {e}"))
            })?;
    Ok(for_browsers(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_native_only_feature_is_named_with_its_line() {
        let src = "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(binding = 0) buffer B { uint64_t v[]; double d; };\n";
        let f = wgt::Features::SHADER_INT64 | wgt::Features::SHADER_F64;
        let e = refuse_native_only(f, Some(src), "k.comp")
            .unwrap_err()
            .to_string();
        assert!(e.contains("k.comp:3: needs SHADER_INT64"), "{e}");
        assert!(e.contains("k.comp:3: needs SHADER_F64"), "{e}");
        assert!(refuse_native_only(wgt::Features::SHADER_F16, Some(src), "k").is_ok());
    }

    #[test]
    fn infinities_from_bits_are_made_at_run_time_in_functions_only() {
        let wgsl = "enable f16;\nconst K: f32 = bitcast<f32>(2139095040u);\nfn f() {\n    let a = bitcast<f32>(2139095040u) + bitcast<f32>(1065353216u);\n    let b = bitcast<f32>(4286578688u);\n}\n";
        let out = non_finite_at_run_time(wgsl);
        assert_eq!(
            out,
            "enable f16;\nvar<private> atomport_bits_2139095040: u32 = 2139095040u;\nvar<private> atomport_bits_4286578688: u32 = 4286578688u;\nconst K: f32 = bitcast<f32>(2139095040u);\nfn f() {\n    let a = bitcast<f32>(atomport_bits_2139095040) + bitcast<f32>(1065353216u);\n    let b = bitcast<f32>(atomport_bits_4286578688);\n}\n"
        );
        assert_eq!(
            non_finite_at_run_time("fn f() {\n    let a = 1f;\n}\n"),
            "fn f() {\n    let a = 1f;\n}\n"
        );
    }

    #[test]
    fn float_literals_past_the_range_become_exact_hexadecimal() {
        let wgsl = format!(
            "let a = {}f; let b = -{}f; let c = 0.1f; let d = 2f; let x1f = 1u; let e = vec2(1.5f, {}f);",
            f32::MAX,
            f32::MAX,
            f32::MIN_POSITIVE / 4.0,
        );
        let out = exact_float_literals(&wgsl);
        assert!(out.contains("let a = 0x1.fffffep+127f;"), "{out}");
        assert!(out.contains("let b = -0x1.fffffep+127f;"), "{out}");
        assert!(
            out.contains("let c = 0.1f; let d = 2f; let x1f = 1u;"),
            "{out}"
        );
        // Every literal reads back as the value it was written for.
        let m = naga::front::wgsl::parse_str(&format!(
            "fn f() -> f32 {{ return {}; }}",
            out.split("let a = ")
                .nth(1)
                .unwrap()
                .split(';')
                .next()
                .unwrap()
        ))
        .unwrap();
        let found = m.functions.iter().any(|(_, f)| {
            f.expressions
                .iter()
                .any(|(_, e)| matches!(e, naga::Expression::Literal(naga::Literal::F32(v)) if *v == f32::MAX))
        });
        assert!(found, "{out}");
        for v in [
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::MIN_POSITIVE / 4.0,
            1.0e-45,
            3.0e38,
        ] {
            let h = hex_f32(v);
            let m = naga::front::wgsl::parse_str(&format!("const K: f32 = {h};")).unwrap();
            let (_, c) = m.constants.iter().next().unwrap();
            let naga::Expression::Literal(naga::Literal::F32(back)) = m.global_expressions[c.init]
            else {
                panic!("{h}");
            };
            assert_eq!(back.to_bits(), v.to_bits(), "{h}");
        }
    }
}
