//! WGSL input: parsed by naga, errors rendered with file:line:col.

use crate::{Error, Result, guard};

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
