//! SPIR-V pass: `switch` cases that fall through into the next.
//!
//! A GLSL case without `break` runs on into the next case's code; SPIR-V
//! says so with a branch from one case's blocks to another case's label.
//! WGSL has no fall-through (naga's writer refuses it: "fall-through switch
//! case block"), so each such case gets its own copy of the code it falls
//! into: the blocks of the next case's construct, with fresh ids, and the
//! branch into that case retargeted to the copy. A case that falls into a
//! case that falls into a third gets copies of both, innermost first.
//!
//! A case's construct is what its label dominates, short of the switch's
//! merge block. Phis past it that name its blocks get the copies' values
//! too; a value the case computes and code past the switch uses (only
//! possible where the case dominates the merge) has no copy that reaches
//! it, and is refused by name.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rspirv::dr::{Block, Function, Instruction, Operand};
use rspirv::spirv::{Op, Word};

use crate::lower::model::Model;
use crate::{Error, Result};

/// Gives every case that falls through a copy of the code it falls into;
/// returns how many copies were made.
pub fn copy_fall_through_cases(m: &mut Model) -> Result<usize> {
    let any = m.instructions().any(|i| i.class.opcode == Op::Switch);
    if !any {
        return Ok(0);
    }
    m.with_functions(|m, functions| {
        let mut copies = 0;
        for f in functions.iter_mut() {
            // Each copy removes one branch between cases; a function has
            // no more than it has blocks.
            for _ in 0..=f.blocks.len() {
                let graph = Graph::of(f);
                match next_fall_through(f, &graph) {
                    Some((from, into, merge)) => {
                        copy_case(m, f, &graph, from, into, merge)?;
                        copies += 1;
                    }
                    None => break,
                }
            }
        }
        Ok(copies)
    })
}

/// The label of a block.
fn label(b: &Block) -> Word {
    b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0)
}

/// The labels a block's terminator branches to.
fn successors(b: &Block) -> Vec<Word> {
    let Some(t) = b.instructions.last() else {
        return Vec::new();
    };
    let ids = |skip: usize| -> Vec<Word> {
        t.operands
            .iter()
            .skip(skip)
            .filter_map(|o| match o {
                Operand::IdRef(w) => Some(*w),
                _ => None,
            })
            .collect()
    };
    match t.class.opcode {
        Op::Branch => ids(0),
        Op::BranchConditional => ids(1),
        Op::Switch => ids(1),
        _ => Vec::new(),
    }
}

/// A function's blocks as a graph: each block's index by its label, and
/// the immediate dominators by index.
struct Graph {
    at: HashMap<Word, usize>,
    idom: Vec<Option<usize>>,
}

impl Graph {
    fn of(f: &Function) -> Graph {
        let at: HashMap<Word, usize> = f
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (label(b), i))
            .collect();
        let idom = dominators(f, &at);
        Graph { at, idom }
    }
}

/// Immediate dominators by block index (the entry's is itself), by
/// Cooper, Harvey and Kennedy's iteration over reverse postorder.
fn dominators(f: &Function, at: &HashMap<Word, usize>) -> Vec<Option<usize>> {
    let n = f.blocks.len();
    let succ: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| {
            successors(b)
                .iter()
                .filter_map(|l| at.get(l).copied())
                .collect()
        })
        .collect();
    // Postorder, iteratively (functions can be deep).
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    if n > 0 {
        seen[0] = true;
    }
    while let Some((b, k)) = stack.pop() {
        if let Some(&s) = succ[b].get(k) {
            stack.push((b, k + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
        }
    }
    let mut rank = vec![usize::MAX; n];
    for (r, &b) in order.iter().enumerate() {
        rank[b] = r;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a].unwrap_or(0);
            }
            while rank[b] < rank[a] {
                b = idom[b].unwrap_or(0);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().rev().filter(|&&b| b != 0) {
            let mut new: Option<usize> = None;
            for &p in preds[b].iter().filter(|&&p| idom[p].is_some()) {
                new = Some(match new {
                    None => p,
                    Some(q) => intersect(&idom, p, q),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Whether block `a` dominates block `b`.
fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
}

/// The blocks (by index) of the construct of the case at block `case`: what
/// it dominates, short of the switch's merge.
fn construct(f: &Function, g: &Graph, case: usize, merge: Word) -> Vec<usize> {
    let mut out = Vec::new();
    let mut todo = vec![case];
    let mut seen = HashSet::from_iter([case]);
    while let Some(b) = todo.pop() {
        out.push(b);
        for s in successors(&f.blocks[b]) {
            let Some(&si) = g.at.get(&s) else { continue };
            if s != merge && dominates(&g.idom, case, si) && seen.insert(si) {
                todo.push(si);
            }
        }
    }
    out.sort_unstable();
    out
}

/// A branch from one case's construct into another case of the same
/// switch whose own construct falls into no other: (the block that
/// branches, the case it falls into, the switch's merge).
fn next_fall_through(f: &Function, g: &Graph) -> Option<(usize, usize, Word)> {
    let at = &g.at;
    for b in &f.blocks {
        let n = b.instructions.len();
        let (Some(t), Some(sm)) = (
            b.instructions.last(),
            n.checked_sub(2).map(|k| &b.instructions[k]),
        ) else {
            continue;
        };
        if t.class.opcode != Op::Switch || sm.class.opcode != Op::SelectionMerge {
            continue;
        }
        let Some(Operand::IdRef(merge)) = sm.operands.first() else {
            continue;
        };
        let merge = *merge;
        let mut cases: Vec<usize> = successors(b)
            .into_iter()
            .filter(|&l| l != merge)
            .filter_map(|l| at.get(&l).copied())
            .collect();
        cases.sort_unstable();
        cases.dedup();
        let falls = |c: usize| -> Option<(usize, usize)> {
            construct(f, g, c, merge).into_iter().find_map(|x| {
                successors(&f.blocks[x])
                    .into_iter()
                    .filter_map(|l| at.get(&l).copied())
                    .find(|&s| s != c && cases.contains(&s))
                    .map(|s| (x, s))
            })
        };
        for &c in &cases {
            if let Some((x, into)) = falls(c)
                && falls(into).is_none()
            {
                return Some((x, into, merge));
            }
        }
    }
    None
}

/// Copies the construct of case `into` with fresh ids, and retargets
/// block `from`'s branch into it to the copy.
fn copy_case(
    m: &Model,
    f: &mut Function,
    g: &Graph,
    from: usize,
    into: usize,
    merge: Word,
) -> Result<()> {
    let region = construct(f, g, into, merge);
    let mut map: HashMap<Word, Word> = HashMap::default();
    for &b in &region {
        let block = &f.blocks[b];
        map.insert(label(block), m.fresh());
        for i in &block.instructions {
            if let Some(r) = i.result_id {
                map.insert(r, m.fresh());
            }
        }
    }
    // What the region defines may be used only inside it, or by phis.
    let inside: HashSet<usize> = region.iter().copied().collect();
    for (b, block) in f
        .blocks
        .iter()
        .enumerate()
        .filter(|(b, _)| !inside.contains(b))
    {
        for i in block
            .instructions
            .iter()
            .filter(|i| i.class.opcode != Op::Phi)
        {
            if i.operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(w) if map.contains_key(w) && !is_label(f, *w)))
            {
                return Err(Error::Unsupported(format!(
                    "a switch case that falls through into a case whose value is used after the switch (block {}): WGSL has no fall-through, and a copy of the case would not reach that use",
                    label(&f.blocks[b])
                )));
            }
        }
    }
    let renamed = |o: &Operand| -> Operand {
        match o {
            Operand::IdRef(w) => Operand::IdRef(*map.get(w).unwrap_or(w)),
            Operand::IdScope(w) => Operand::IdScope(*map.get(w).unwrap_or(w)),
            Operand::IdMemorySemantics(w) => Operand::IdMemorySemantics(*map.get(w).unwrap_or(w)),
            o => o.clone(),
        }
    };
    let from_label = label(&f.blocks[from]);
    let into_label = label(&f.blocks[into]);
    let mut copies: Vec<Block> = Vec::new();
    for &b in &region {
        let block = &f.blocks[b];
        let mut new = Block::new();
        new.label = Some(Instruction::new(
            Op::Label,
            None,
            Some(map[&label(block)]),
            Vec::new(),
        ));
        for i in &block.instructions {
            let mut c = i.clone();
            c.result_id = i.result_id.map(|r| map[&r]);
            c.operands = i.operands.iter().map(&renamed).collect();
            // The copy of the case's entry is reached from `from` alone.
            if b == into && i.class.opcode == Op::Phi {
                c.operands = phi_pairs(&i.operands)
                    .filter(|&(_, p)| p == from_label)
                    .flat_map(|(v, p)| {
                        [
                            Operand::IdRef(*map.get(&v).unwrap_or(&v)),
                            Operand::IdRef(p),
                        ]
                    })
                    .collect();
            }
            new.instructions.push(c);
        }
        copies.push(new);
    }
    // `from` goes to the copy, and the case's own entry forgets it.
    if let Some(t) = f.blocks[from].instructions.last_mut() {
        for o in &mut t.operands {
            if *o == Operand::IdRef(into_label) {
                *o = Operand::IdRef(map[&into_label]);
            }
        }
    }
    for i in f.blocks[into]
        .instructions
        .iter_mut()
        .filter(|i| i.class.opcode == Op::Phi)
    {
        i.operands = phi_pairs(&i.operands)
            .filter(|&(_, p)| p != from_label)
            .flat_map(|(v, p)| [Operand::IdRef(v), Operand::IdRef(p)])
            .collect();
    }
    // Phis past the region get the copies' values from the copies' blocks.
    for (b, block) in f.blocks.iter_mut().enumerate() {
        if inside.contains(&b) {
            continue;
        }
        for i in block
            .instructions
            .iter_mut()
            .filter(|i| i.class.opcode == Op::Phi)
        {
            let extra: Vec<Operand> = phi_pairs(&i.operands)
                .filter(|(_, p)| map.contains_key(p))
                .flat_map(|(v, p)| {
                    [
                        Operand::IdRef(*map.get(&v).unwrap_or(&v)),
                        Operand::IdRef(map[&p]),
                    ]
                })
                .collect();
            i.operands.extend(extra);
        }
    }
    // The copies go right after the region's last block, keeping blocks in
    // an order where each follows its dominator.
    let at = region.last().map_or(f.blocks.len(), |&b| b + 1);
    f.blocks.splice(at..at, copies);
    Ok(())
}

/// A phi's (value, parent) pairs.
fn phi_pairs(operands: &[Operand]) -> impl Iterator<Item = (Word, Word)> + '_ {
    operands.chunks_exact(2).filter_map(|c| match c {
        [Operand::IdRef(v), Operand::IdRef(p)] => Some((*v, *p)),
        _ => None,
    })
}

/// Whether `w` is a block's label in `f`.
fn is_label(f: &Function, w: Word) -> bool {
    f.blocks.iter().any(|b| label(b) == w)
}
