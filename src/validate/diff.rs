//! Run against run (backend against backend, or the translation against
//! the original SPIR-V run natively): the same job's bindings compared,
//! each by a [`Comparison`] rule. What the kernel cannot write (uniform
//! blocks, read-only buffers, sampled textures) is its input, the same on
//! both sides, and is not compared.
//!
//! Exact comparison is the default. Outputs that depend on the order in
//! which invocations ran (atomicAdd return values stored per invocation,
//! append buffers, union-find forests) differ between two correct runs, so
//! a caller names the bindings that hold them and the order-independent
//! rule that fits what they encode; nothing is compared loosely unless a
//! caller says so.

use serde::Serialize;

use crate::runtime::run::{BindingOutput, Data, RunOutput};
use crate::{Error, Result};

/// How a binding's elements are compared (each element by its bits, so
/// NaNs compare equal to themselves and -0 differs from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Comparison {
    /// Element by element.
    Exact,
    /// The same values as many times each, in any order (a list of
    /// atomicAdd return values, an append buffer's items).
    Multiset,
    /// A parent-pointer forest (union-find): element `i` is joined to
    /// element `data[i]` where that is an index into the binding (anything
    /// else, such as `0xFFFFFFFF`, is no edge). Equal when the connected
    /// components are, whichever element each tree's root is.
    Forest,
    /// Labels: elements with equal values are in one class. Equal when the
    /// classes are, whatever the label values.
    Labels,
}

impl Comparison {
    /// Every rule, in the order help texts list them.
    pub const ALL: [Comparison; 4] = [
        Comparison::Exact,
        Comparison::Multiset,
        Comparison::Forest,
        Comparison::Labels,
    ];

    /// The rule's name: `exact`, `multiset`, `forest`, `labels`.
    pub fn name(self) -> &'static str {
        match self {
            Comparison::Exact => "exact",
            Comparison::Multiset => "multiset",
            Comparison::Forest => "forest",
            Comparison::Labels => "labels",
        }
    }

    /// The rule named `s` (as [`Comparison::name`] writes it).
    pub fn parse(s: &str) -> Option<Comparison> {
        Comparison::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// The rule for one binding, by the shader's name for it or `GROUP.BINDING`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// A binding's name (block, instance or variable name) or `GROUP.BINDING`.
    pub binding: String,
    /// How it is compared.
    pub comparison: Comparison,
}

impl Rule {
    /// Parses `NAME=RULE` (`Rets=multiset`, `0.2=forest`).
    pub fn parse(s: &str) -> Result<Rule> {
        let bad = || {
            let names: Vec<&str> = Comparison::ALL.iter().map(|c| c.name()).collect();
            Error::Spec(format!(
                "`{s}`: expected BINDING=RULE, RULE one of {}",
                names.join(", ")
            ))
        };
        let (name, rule) = s.split_once('=').ok_or_else(bad)?;
        let comparison = Comparison::parse(rule.trim()).ok_or_else(bad)?;
        if name.trim().is_empty() {
            return Err(bad());
        }
        Ok(Rule {
            binding: name.trim().to_string(),
            comparison,
        })
    }

    /// The rule with its binding as `GROUP.BINDING`, found by its name in
    /// `kernel` (a rule that numbers its binding already is kept).
    pub fn for_kernel(&self, kernel: &crate::Kernel) -> Result<Rule> {
        let numbered = self
            .binding
            .split_once('.')
            .map_or(self.binding.parse::<u32>().is_ok(), |(g, b)| {
                g.parse::<u32>().is_ok() && b.parse::<u32>().is_ok()
            });
        if numbered {
            return Ok(self.clone());
        }
        let b = kernel
            .binding_named(&self.binding)
            .map_err(|e| Error::UnknownName(format!("--compare {}: {e}", self.binding)))?;
        Ok(Rule {
            binding: format!("{}.{}", b.group, b.binding),
            comparison: self.comparison,
        })
    }

    /// Whether the rule names `b`.
    pub fn names(&self, b: &BindingOutput) -> bool {
        b.name.as_deref() == Some(self.binding.as_str())
            || self.binding == format!("{}.{}", b.group, b.binding)
            || (b.group == 0 && self.binding == b.binding.to_string())
    }
}

/// One element that differs.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Difference {
    /// Element index (texel channel index for images); under `multiset`,
    /// the index into both sides' values sorted by their bits.
    pub index: usize,
    /// The value on the first side, as text (under `forest` and `labels`,
    /// `class N`: the smallest index in the element's class).
    pub a: String,
    /// The value on the second side, as text.
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
    /// The rule it was compared by.
    pub comparison: Comparison,
    /// How many elements differ.
    pub count: usize,
    /// The first differing elements (at most [`FIRST`]).
    pub first: Vec<Difference>,
}

/// How many differing elements a report lists per binding.
pub const FIRST: usize = 10;

/// Compares every binding of two outputs of the same job exactly.
pub fn compare(a: &RunOutput, b: &RunOutput) -> Vec<BindingDiff> {
    compare_with(a, b, &[]).expect("no rule names a binding that is missing")
}

/// Compares every binding of two outputs of the same job, each by the rule
/// in `rules` that names it, or exactly. Returns the bindings that differ;
/// an error if a rule names no binding (a misspelt name would otherwise
/// leave the binding compared exactly, or not at all).
pub fn compare_with(a: &RunOutput, b: &RunOutput, rules: &[Rule]) -> Result<Vec<BindingDiff>> {
    if let Some(r) = rules
        .iter()
        .find(|r| !a.bindings.iter().any(|x| r.names(x)))
    {
        let names: Vec<String> = a
            .bindings
            .iter()
            .map(|x| {
                x.name
                    .clone()
                    .unwrap_or_else(|| format!("{}.{}", x.group, x.binding))
            })
            .collect();
        return Err(Error::UnknownName(format!(
            "--compare {}: the job has no binding of that name (it has {})",
            r.binding,
            names.join(", ")
        )));
    }
    let mut out = Vec::new();
    for (x, y) in a.bindings.iter().zip(&b.bindings) {
        if !x.writable {
            continue;
        }
        let comparison = rules
            .iter()
            .find(|r| r.names(x))
            .map_or(Comparison::Exact, |r| r.comparison);
        let first = differences(comparison, &x.data, &y.data);
        if first.is_empty() {
            continue;
        }
        out.push(BindingDiff {
            group: x.group,
            binding: x.binding,
            name: x.name.clone(),
            comparison,
            count: first.len(),
            first: first.into_iter().take(FIRST).collect(),
        });
    }
    Ok(out)
}

/// Every difference between `x` and `y` under `rule`.
pub(crate) fn differences(rule: Comparison, x: &Data, y: &Data) -> Vec<Difference> {
    let (mut xb, mut yb) = (x.bits(), y.bits());
    let n = xb.len().max(yb.len());
    let show = |d: &Data, i: usize| {
        if i < d.len() {
            d.show(i)
        } else {
            "(missing)".into()
        }
    };
    match rule {
        Comparison::Exact => (0..n)
            .filter(|&i| xb.get(i) != yb.get(i))
            .map(|i| Difference {
                index: i,
                a: show(x, i),
                b: show(y, i),
            })
            .collect(),
        Comparison::Multiset => {
            xb.sort_unstable();
            yb.sort_unstable();
            let (sx, sy) = (sorted(x, &xb), sorted(y, &yb));
            (0..n)
                .filter(|&i| xb.get(i) != yb.get(i))
                .map(|i| Difference {
                    index: i,
                    a: show(&sx, i),
                    b: show(&sy, i),
                })
                .collect()
        }
        Comparison::Forest | Comparison::Labels => {
            let (cx, cy) = (classes(rule, &xb), classes(rule, &yb));
            (0..n)
                .filter(|&i| cx.get(i) != cy.get(i))
                .map(|i| {
                    let class = |c: &[usize]| {
                        c.get(i)
                            .map_or("(missing)".into(), |r| format!("class {r}"))
                    };
                    Difference {
                        index: i,
                        a: class(&cx),
                        b: class(&cy),
                    }
                })
                .collect()
        }
    }
}

/// `bits` (sorted) shown in `like`'s element type.
fn sorted(like: &Data, bits: &[u64]) -> Data {
    match like {
        Data::U32(_) => Data::U32(bits.iter().map(|&b| b as u32).collect()),
        Data::I32(_) => Data::I32(bits.iter().map(|&b| b as u32 as i32).collect()),
        Data::F32(_) => Data::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
        Data::U64(_) => Data::U64(bits.to_vec()),
        Data::I64(_) => Data::I64(bits.iter().map(|&b| b as i64).collect()),
    }
}

/// Each element's class under `rule`, named by the smallest index in it.
fn classes(rule: Comparison, bits: &[u64]) -> Vec<usize> {
    let n = bits.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    fn union(parent: &mut [usize], i: usize, j: usize) {
        let (ri, rj) = (find(parent, i), find(parent, j));
        // The smaller index is the root, so that roots name their classes.
        if ri < rj {
            parent[rj] = ri;
        } else {
            parent[ri] = rj;
        }
    }
    match rule {
        Comparison::Forest => {
            for (i, &p) in bits.iter().enumerate() {
                if (p as usize) < n {
                    union(&mut parent, i, p as usize);
                }
            }
        }
        _ => {
            let mut first_with = std::collections::HashMap::new();
            for (i, &v) in bits.iter().enumerate() {
                let f = *first_with.entry(v).or_insert(i);
                union(&mut parent, f, i);
            }
        }
    }
    (0..n).map(|i| find(&mut parent, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::run::{AdapterRef, BindingOutput};

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
                writable: true,
                ty: None,
                dim: None,
                format: None,
                size: None,
                samples: None,
                data,
                bytes: Vec::new(),
                note: None,
            }],
            counters: Vec::new(),
            push_constants: Vec::new(),
            addressable: Vec::new(),
        }
    }

    fn by(rule: &str, a: Vec<u32>, b: Vec<u32>) -> Vec<BindingDiff> {
        let rules = [Rule::parse(&format!("b={rule}")).unwrap()];
        compare_with(&output(Data::U32(a)), &output(Data::U32(b)), &rules).unwrap()
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

    #[test]
    fn multiset_ignores_order_but_not_counts() {
        assert!(by("multiset", vec![3, 1, 2, 1], vec![1, 1, 2, 3]).is_empty());
        let d = by("multiset", vec![3, 1, 2, 1], vec![1, 2, 2, 3]);
        assert_eq!(d[0].comparison, Comparison::Multiset);
        assert_eq!(d[0].count, 1);
        assert_eq!(
            (d[0].first[0].a.as_str(), d[0].first[0].b.as_str()),
            ("1", "2")
        );
        assert_eq!(by("exact", vec![3, 1], vec![1, 3])[0].count, 2);
    }

    #[test]
    fn forests_compare_by_their_components() {
        // {0,1,2} {3,4} {5}, rooted differently; 0xFFFFFFFF is no parent.
        let a = vec![0, 0, 1, 3, 3, u32::MAX];
        let b = vec![2, 2, 2, 4, 4, 5];
        assert!(by("forest", a.clone(), b).is_empty());
        let d = by("forest", a, vec![2, 2, 2, 2, 4, 5]);
        assert_eq!(d[0].count, 2);
        assert_eq!(
            (
                d[0].first[0].index,
                d[0].first[0].a.as_str(),
                d[0].first[0].b.as_str()
            ),
            (3, "class 3", "class 0")
        );
    }

    #[test]
    fn labels_compare_by_their_classes() {
        assert!(by("labels", vec![7, 7, 9, 1], vec![2, 2, 0, 5]).is_empty());
        // As a forest the same data joins more: 1 -> element 1.
        assert_eq!(by("labels", vec![1, 1, 0, 0], vec![5, 5, 6, 6]).len(), 0);
        assert_eq!(by("labels", vec![1, 1, 0, 0], vec![5, 6, 6, 6])[0].count, 3);
    }

    #[test]
    fn rules_name_bindings_or_fail() {
        let r = Rule::parse("0.1=multiset").unwrap();
        assert!(r.names(&output(Data::U32(vec![])).bindings[0]));
        assert!(
            Rule::parse("1=forest")
                .unwrap()
                .names(&output(Data::U32(vec![])).bindings[0])
        );
        for bad in ["b", "b=sorted", "=exact"] {
            let e = Rule::parse(bad).unwrap_err().to_string();
            assert!(e.contains("expected BINDING=RULE"), "{e}");
        }
        let x = output(Data::U32(vec![1]));
        let e = compare_with(&x, &x, &[Rule::parse("c=exact").unwrap()]).unwrap_err();
        assert!(
            e.to_string()
                .contains("--compare c: the job has no binding"),
            "{e}"
        );
    }
}
