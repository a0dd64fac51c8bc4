//! Run against run (backend against backend, or the translation against
//! the original SPIR-V run natively): the same job's bindings compared.

use serde::Serialize;

use crate::{Data, RunOutput};

/// One element that differs.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// Element index (texel index for images).
    pub index: usize,
    /// The value on the first backend, as text.
    pub a: String,
    /// The value on the second backend, as text.
    pub b: String,
}

/// How one binding differs.
#[derive(Clone, Debug, Serialize)]
pub struct BindingDiff {
    /// Bind group.
    pub group: u32,
    /// Binding.
    pub binding: u32,
    /// The shader's name.
    pub name: Option<String>,
    /// How many elements differ.
    pub count: usize,
    /// The first differing elements (at most [`FIRST`]).
    pub first: Vec<Difference>,
}

/// How many differing elements a report lists per binding.
pub const FIRST: usize = 10;

/// Compares every binding of two outputs of the same job exactly (floats by
/// their bits, so NaNs compare too). Returns the bindings that differ.
pub fn compare(a: &RunOutput, b: &RunOutput) -> Vec<BindingDiff> {
    let mut out = Vec::new();
    for (x, y) in a.bindings.iter().zip(&b.bindings) {
        let (xb, yb) = (x.data.bits(), y.data.bits());
        let n = xb.len().max(yb.len());
        let differing: Vec<usize> = (0..n).filter(|&i| xb.get(i) != yb.get(i)).collect();
        if differing.is_empty() {
            continue;
        }
        let show = |d: &Data, i: usize| {
            if i < d.len() {
                d.show(i)
            } else {
                "(missing)".into()
            }
        };
        out.push(BindingDiff {
            group: x.group,
            binding: x.binding,
            name: x.name.clone(),
            count: differing.len(),
            first: differing
                .iter()
                .take(FIRST)
                .map(|&i| Difference {
                    index: i,
                    a: show(&x.data, i),
                    b: show(&y.data, i),
                })
                .collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AdapterRef, BindingOutput};

    fn output(data: Data) -> RunOutput {
        RunOutput {
            adapter: AdapterRef {
                name: "x".into(),
                backend: "vulkan".into(),
            },
            bindings: vec![BindingOutput {
                group: 0,
                binding: 1,
                name: Some("b".into()),
                kind: "buffer",
                ty: None,
                dim: None,
                format: None,
                size: None,
                samples: None,
                data,
                bytes: Vec::new(),
            }],
            counters: Vec::new(),
        }
    }

    #[test]
    fn differences_are_counted_and_listed() {
        let a = output(Data::U32((0..30).collect()));
        let mut v: Vec<u32> = (0..30).collect();
        for i in (0..30).step_by(2) {
            v[i] += 1;
        }
        let d = compare(&a, &output(Data::U32(v)));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].count, 15);
        assert_eq!(d[0].first.len(), FIRST);
        assert_eq!(
            (
                d[0].first[1].index,
                d[0].first[1].a.as_str(),
                d[0].first[1].b.as_str()
            ),
            (2, "2", "3")
        );
        assert!(compare(&a, &a).is_empty());
        // Floats compare by bits: NaN equals itself, -0 differs from 0.
        let f = output(Data::F32(vec![f32::NAN, 0.0]));
        assert!(compare(&f, &f).is_empty());
        assert_eq!(
            compare(&f, &output(Data::F32(vec![f32::NAN, -0.0])))[0].count,
            1
        );
    }
}
