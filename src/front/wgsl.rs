//! WGSL input: parsed by naga, errors rendered with file:line:col.

use crate::front::{SourceOptions, SpecScalar, Specialization};
use crate::{Error, Result, guard};

/// WGSL as a kernel is made of it: a byte-order mark at the start dropped,
/// and the caller's specialization values ([`SourceOptions::specializations`],
/// by `@id` or by name) written into the source as the defaults of the
/// `override`s they name, so that the text and the module the runtime
/// compiles say the same. Returns the text and its module.
pub fn read(source: &str, opts: &SourceOptions) -> Result<(String, naga::Module)> {
    let name = opts.display_name();
    let source = source.strip_prefix('\u{FEFF}').unwrap_or(source);
    let module = parse(source, name)?;
    if opts.specializations.is_empty() {
        return Ok((source.to_string(), module));
    }
    let (text, expected) = specialized(source, &module, &opts.specializations)?;
    let module = parse(&text, name).map_err(|e| {
        Error::Unsupported(format!(
            "{name}: the WGSL with the --spec values written in does not parse: {e}"
        ))
    })?;
    // The new defaults are where they were meant to be.
    for (index, literal) in expected {
        let init = module
            .overrides
            .iter()
            .nth(index)
            .and_then(|(_, o)| o.init)
            .map(|init| &module.global_expressions[init]);
        if init != Some(&naga::Expression::Literal(literal)) {
            return Err(Error::Unsupported(format!(
                "{name}: the value given with --spec for override {index} did not become its default ({init:?}, not {literal:?})"
            )));
        }
    }
    Ok((text, module))
}

/// The source with each specialization's value as the default of the
/// override it names, and (override index, the literal it now has).
fn specialized(
    source: &str,
    module: &naga::Module,
    specs: &[Specialization],
) -> Result<(String, Vec<(usize, naga::Literal)>)> {
    let has: Vec<(Option<u32>, Option<&str>)> = module
        .overrides
        .iter()
        .map(|(_, o)| (o.id.map(u32::from), o.name.as_deref()))
        .collect();
    // (override index, byte range replaced, text); a later value for the
    // same override replaces an earlier one.
    let mut edits: Vec<(usize, std::ops::Range<usize>, String)> = Vec::new();
    let mut expected = Vec::new();
    for spec in specs {
        let mut found = false;
        for (index, (handle, o)) in module.overrides.iter().enumerate() {
            if !spec.names(o.id.map(u32::from), o.name.as_deref()) {
                continue;
            }
            found = true;
            let (text, literal) = literal(spec, &module.types[o.ty].inner)?;
            let (range, text) = default_in(source, module.overrides.get_span(handle), text)
                .ok_or_else(|| {
                    Error::Unsupported(format!(
                        "{}: no place for the value in the declaration of override `{}`",
                        spec.label(),
                        o.name.as_deref().unwrap_or("?")
                    ))
                })?;
            edits.retain(|(i, _, _)| *i != index);
            expected.retain(|(i, _)| *i != index);
            edits.push((index, range, text));
            expected.push((index, literal));
        }
        if !found {
            return Err(crate::front::no_such_constant(spec, &has));
        }
    }
    edits.sort_by_key(|(_, range, _)| std::cmp::Reverse(range.start));
    let mut out = source.to_string();
    for (_, range, text) in edits {
        out.replace_range(range, &text);
    }
    Ok((out, expected))
}

/// Where an override's default is in its declaration `override NAME[: T]
/// [= EXPR];` (`span`, naga's, from `override` to the `;`): the range after
/// its `=` that replaces EXPR, or the place before the `;` that receives
/// `= VALUE`. Never an expression's own span, which naga may share with the
/// `const` the default names.
fn default_in(
    source: &str,
    span: naga::Span,
    value: String,
) -> Option<(std::ops::Range<usize>, String)> {
    let decl = span.to_range()?;
    let text = source.get(decl.clone())?;
    let semicolon = decl.start + text.strip_suffix(';')?.len();
    Some(match text.find('=') {
        Some(eq) => (decl.start + eq + 1..semicolon, format!(" {value}")),
        None => (semicolon..semicolon, format!(" = {value}")),
    })
}

/// A specialization's value as WGSL text for an override of type `ty`, and
/// the literal naga reads from it.
fn literal(spec: &Specialization, ty: &naga::TypeInner) -> Result<(String, naga::Literal)> {
    use naga::ScalarKind as K;
    let scalar = match ty {
        naga::TypeInner::Scalar(s) => *s,
        _ => {
            return Err(Error::Unsupported(format!(
                "{} is not a scalar",
                spec.label()
            )));
        }
    };
    let kind = match (scalar.kind, scalar.width) {
        (K::Bool, _) => SpecScalar::Bool,
        (K::Sint | K::Uint, w) => SpecScalar::Int {
            width: u32::from(w) * 8,
            signed: scalar.kind == K::Sint,
        },
        (K::Float, w) => SpecScalar::Float {
            width: u32::from(w) * 8,
        },
        _ => {
            return Err(Error::Unsupported(format!(
                "{} has a type WGSL overrides cannot have",
                spec.label()
            )));
        }
    };
    let bits = spec.bits(kind)?;
    Ok(match kind {
        SpecScalar::Bool => ((bits != 0).to_string(), naga::Literal::Bool(bits != 0)),
        SpecScalar::Int {
            width: 32,
            signed: true,
        } => {
            let v = bits as u32 as i32;
            // `-2147483648i` negates a literal out of i32's range.
            let text = if v == i32::MIN {
                format!("i32({v})")
            } else {
                format!("{v}i")
            };
            (text, naga::Literal::I32(v))
        }
        SpecScalar::Int {
            width: 32,
            signed: false,
        } => (format!("{}u", bits as u32), naga::Literal::U32(bits as u32)),
        SpecScalar::Float { width: 32 } => {
            let v = f32::from_bits(bits as u32);
            if !v.is_finite() {
                return Err(Error::InvalidValue(format!(
                    "{} is a float: `{}` is not a finite one, which WGSL needs",
                    spec.label(),
                    spec.value
                )));
            }
            (format!("{v:?}f"), naga::Literal::F32(v))
        }
        _ => {
            return Err(Error::Unsupported(format!(
                "{} has a type WGSL overrides cannot have",
                spec.label()
            )));
        }
    })
}

/// Parses WGSL source into a naga module. Errors carry `name:line:col`
/// and the source lines naga's labels point at.
pub fn parse(source: &str, name: &str) -> Result<naga::Module> {
    guard("naga's WGSL parser", || {
        naga::front::wgsl::parse_str(source).map_err(|e| {
            let spans: Vec<(naga::Span, String)> = e
                .labels()
                .map(|(span, label)| (span, label.to_string()))
                .collect();
            let mut message = format!("error: {}", e.message());
            for note in e.notes() {
                message.push_str(&format!(" ({note})"));
            }
            Error::shader(render(name, &message, source, &spans))
        })
    })
}

/// A naga error with its spans as an excerpt of `source` (see
/// [`crate::error::with_excerpt`]).
pub(crate) fn render(
    name: &str,
    message: &str,
    source: &str,
    spans: &[(naga::Span, String)],
) -> String {
    let marks: Vec<crate::error::Mark> = spans
        .iter()
        .filter(|(span, _)| {
            span.is_defined() && span.to_range().is_some_and(|r| r.end <= source.len())
        })
        .map(|(span, label)| {
            let at = span.location(source);
            crate::error::Mark {
                line: at.line_number,
                column: at.line_position,
                len: at.length.max(1),
                label: label.clone(),
            }
        })
        .collect();
    crate::error::with_excerpt(name, message, source, &marks)
}
