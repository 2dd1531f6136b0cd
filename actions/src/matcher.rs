//! GumTree node matching (Falleri et al., "Fine-grained and accurate source code
//! differencing", ASE 2014), in three phases:
//!
//! 1. **Top-down**: the largest identical subtrees (equal hash, height ≥ [`MIN_HEIGHT`]) are
//!    matched, tallest first; a subtree with several identical twins is matched to the twin
//!    whose parent shares the most matched descendants (dice), after the unique ones.
//! 2. **Bottom-up**: an unmatched inner node is matched to the unmatched node of the same
//!    kind, among the ancestors of its descendants' partners, that shares the largest
//!    fraction of matched descendants (dice ≥ [`MIN_DICE`]); the roots always match.
//! 3. **Recovery** below each new bottom-up pair: their unmatched children are paired by
//!    longest common subsequence, first identical subtrees, then equal (class, label), then
//!    equal class, recursively (GumTree's "simple" recovery rather than its RTED step).

use std::collections::HashMap;

use crate::tree::{Ast, class};

/// Smallest subtree height the top-down phase matches (GumTree's default, 2): tokens are
/// matched later, inside a matched parent, so a common `;` or `i` is not matched at random.
pub(crate) const MIN_HEIGHT: usize = 2;
/// Most pairs of identical twins weighed against each other per subtree hash; past it
/// (hundreds of copies of one statement) twins pair up in order, keeping the matching
/// linear on repetitive code.
pub(crate) const MAX_TWIN_PAIRS: usize = 256;
/// Smallest dice coefficient for a bottom-up match (GumTree's default, 0.5).
pub(crate) const MIN_DICE: f64 = 0.5;

/// A one-to-one mapping between the nodes of two trees.
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    pub a2b: Vec<Option<usize>>,
    pub b2a: Vec<Option<usize>>,
}

impl Mapping {
    fn add(&mut self, a: usize, b: usize) {
        self.a2b[a] = Some(b);
        self.b2a[b] = Some(a);
    }
}

/// Matches the nodes of `a` (buggy) and `b` (fixed).
pub(crate) fn match_trees(a: &Ast, b: &Ast) -> Mapping {
    let mut m = Mapping { a2b: vec![None; a.nodes.len()], b2a: vec![None; b.nodes.len()] };
    top_down(a, b, &mut m);
    bottom_up(a, b, &mut m);
    m
}

/// Maps two isomorphic subtrees node by node (same preorder shape); nodes matched
/// already keep their partner.
fn map_subtree(a: &Ast, b: &Ast, x: usize, y: usize, m: &mut Mapping) {
    debug_assert_eq!(a.nodes[x].size, b.nodes[y].size);
    for k in 0..a.nodes[x].size.min(b.nodes[y].size) {
        if m.a2b[x + k].is_none() && m.b2a[y + k].is_none() {
            m.add(x + k, y + k);
        }
    }
}

fn dice(a: &Ast, b: &Ast, x: usize, y: usize, m: &Mapping) -> f64 {
    let (sx, sy) = (a.nodes[x].size - 1, b.nodes[y].size - 1);
    if sx + sy == 0 {
        return 0.0;
    }
    let common = (x + 1..x + 1 + sx).filter(|&d| m.a2b[d].is_some_and(|e| b.is_descendant(e, y))).count();
    2.0 * common as f64 / (sx + sy) as f64
}

fn parent_dice(a: &Ast, b: &Ast, x: usize, y: usize, m: &Mapping) -> f64 {
    match (a.nodes[x].parent, b.nodes[y].parent) {
        (Some(p), Some(q)) => dice(a, b, p, q, m),
        _ => 0.0,
    }
}

/// Removes and returns the nodes of the given height from a work list.
fn take_height(list: &mut Vec<usize>, t: &Ast, h: usize) -> Vec<usize> {
    let (taken, kept) = list.iter().partition(|&&n| t.nodes[n].height == h);
    *list = kept;
    taken
}

fn max_height(list: &[usize], t: &Ast) -> usize {
    list.iter().map(|&n| t.nodes[n].height).max().unwrap_or(0)
}

fn open(list: &mut Vec<usize>, t: &Ast, nodes: &[usize]) {
    list.extend(nodes.iter().flat_map(|&n| t.nodes[n].children.iter().copied()));
}

fn top_down(a: &Ast, b: &Ast, m: &mut Mapping) {
    let count = |t: &Ast| {
        let mut c: HashMap<u64, usize> = HashMap::new();
        t.nodes.iter().for_each(|n| *c.entry(n.hash).or_default() += 1);
        c
    };
    let counts = (count(a), count(b));
    let (mut la, mut lb) = (vec![0], vec![0]);
    let mut candidates = Vec::new();
    loop {
        let (ha, hb) = (max_height(&la, a), max_height(&lb, b));
        if ha.min(hb) < MIN_HEIGHT {
            break;
        }
        if ha != hb {
            let (list, t, h) = if ha > hb { (&mut la, a, ha) } else { (&mut lb, b, hb) };
            let taken = take_height(list, t, h);
            open(list, t, &taken);
            continue;
        }
        let (ta, tb) = (take_height(&mut la, a, ha), take_height(&mut lb, b, hb));
        let (rest_a, rest_b) = match_level(a, b, (&ta, &tb), &counts, m, &mut candidates);
        open(&mut la, a, &rest_a);
        open(&mut lb, b, &rest_b);
    }
    resolve_candidates(a, b, m, candidates);
}

/// Matches the subtrees of one height: unique identical pairs at once, twins as
/// candidates. Returns the nodes with no identical partner (to be opened).
fn match_level(
    a: &Ast,
    b: &Ast,
    (ta, tb): (&[usize], &[usize]),
    (ca, cb): &(HashMap<u64, usize>, HashMap<u64, usize>),
    m: &mut Mapping,
    candidates: &mut Vec<(usize, usize)>,
) -> (Vec<usize>, Vec<usize>) {
    let (mut used_a, mut used_b) = (vec![false; ta.len()], vec![false; tb.len()]);
    let mut by_hash: HashMap<u64, (Vec<usize>, Vec<usize>)> = HashMap::new();
    ta.iter().enumerate().for_each(|(i, &x)| by_hash.entry(a.nodes[x].hash).or_default().0.push(i));
    for (j, &y) in tb.iter().enumerate() {
        if let Some(e) = by_hash.get_mut(&b.nodes[y].hash) {
            e.1.push(j);
        }
    }
    for (h, (is, js)) in by_hash.into_iter().filter(|e| !e.1.1.is_empty()) {
        is.iter().for_each(|&i| used_a[i] = true);
        js.iter().for_each(|&j| used_b[j] = true);
        if ca[&h] == 1 && cb[&h] == 1 {
            map_subtree(a, b, ta[is[0]], tb[js[0]], m);
        } else if is.len() * js.len() <= MAX_TWIN_PAIRS {
            candidates.extend(is.iter().flat_map(|&i| js.iter().map(move |&j| (ta[i], tb[j]))));
        } else {
            candidates.extend(is.iter().zip(&js).map(|(&i, &j)| (ta[i], tb[j])));
        }
    }
    let rest = |t: &[usize], used: &[bool]| t.iter().zip(used).filter(|p| !p.1).map(|p| *p.0).collect::<Vec<_>>();
    (rest(ta, &used_a), rest(tb, &used_b))
}

/// Twins: the pair whose parents share the most, then the closest in position, first.
fn resolve_candidates(a: &Ast, b: &Ast, m: &mut Mapping, mut candidates: Vec<(usize, usize)>) {
    let mut scored: Vec<(f64, usize, usize, usize)> = candidates
        .drain(..)
        .map(|(x, y)| {
            let pos = (x as f64 / a.nodes.len() as f64 - y as f64 / b.nodes.len() as f64).abs();
            (parent_dice(a, b, x, y, m), (pos * 1e6) as usize, x, y)
        })
        .collect();
    scored.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)).then(p.2.cmp(&q.2)).then(p.3.cmp(&q.3)));
    for (_, _, x, y) in scored {
        if m.a2b[x].is_none() && m.b2a[y].is_none() {
            map_subtree(a, b, x, y, m);
        }
    }
}

fn bottom_up(a: &Ast, b: &Ast, m: &mut Mapping) {
    for x in (1..a.nodes.len()).rev() {
        if m.a2b[x].is_some() || a.nodes[x].children.is_empty() {
            continue;
        }
        if let Some(y) = best_candidate(a, b, x, m) {
            m.add(x, y);
            recover(a, b, x, y, m);
        }
    }
    if m.a2b[0].is_none() && m.b2a[0].is_none() && class(&a.nodes[0]) == class(&b.nodes[0]) {
        m.add(0, 0);
    }
    if m.a2b[0] == Some(0) {
        recover(a, b, 0, 0, m);
    }
}

fn best_candidate(a: &Ast, b: &Ast, x: usize, m: &Mapping) -> Option<usize> {
    let kind = class(&a.nodes[x]);
    let mut seen = Vec::new();
    for d in x + 1..x + a.nodes[x].size {
        let Some(e) = m.a2b[d] else { continue };
        for y in b.ancestors(e) {
            if m.b2a[y].is_none() && class(&b.nodes[y]) == kind && !seen.contains(&y) {
                seen.push(y);
            }
        }
    }
    let scored = seen.into_iter().map(|y| (dice(a, b, x, y, m), y));
    let best = scored.max_by(|p, q| p.0.total_cmp(&q.0).then(q.1.cmp(&p.1)))?;
    (best.0 >= MIN_DICE).then_some(best.1)
}

/// Pairs the unmatched children of a matched pair, by LCS of successively looser keys.
fn recover(a: &Ast, b: &Ast, x: usize, y: usize, m: &mut Mapping) {
    type Key = fn(&Ast, usize) -> (u64, String);
    let keys: [Key; 3] = [
        |t, n| (t.nodes[n].hash, String::new()),
        |t, n| (0, format!("{}\u{0}{}", class(&t.nodes[n]), t.nodes[n].label)),
        |t, n| (0, class(&t.nodes[n]).to_string()),
    ];
    for (step, key) in keys.iter().enumerate() {
        if step == 2 {
            wrapped(a, b, x, y, m);
        }
        let ua: Vec<usize> = a.nodes[x].children.iter().copied().filter(|&c| m.a2b[c].is_none()).collect();
        let ub: Vec<usize> = b.nodes[y].children.iter().copied().filter(|&c| m.b2a[c].is_none()).collect();
        let ka: Vec<_> = ua.iter().map(|&n| key(a, n)).collect();
        let kb: Vec<_> = ub.iter().map(|&n| key(b, n)).collect();
        for (i, j) in lcs(&ka, &kb) {
            if step == 0 {
                map_subtree(a, b, ua[i], ub[j], m);
            } else {
                m.add(ua[i], ub[j]);
                recover(a, b, ua[i], ub[j], m);
            }
        }
    }
}

/// An unmatched child on one side that reappears, identical, inside an unmatched child on
/// the other side: the code was wrapped (`x` → `f(x)`, `c` → `c && d`) or unwrapped.
fn wrapped(a: &Ast, b: &Ast, x: usize, y: usize, m: &mut Mapping) {
    let ua: Vec<usize> = a.nodes[x].children.iter().copied().filter(|&c| m.a2b[c].is_none()).collect();
    let ub: Vec<usize> = b.nodes[y].children.iter().copied().filter(|&c| m.b2a[c].is_none()).collect();
    for &cb in &ub {
        let inside = ua.iter().flat_map(|&ca| ca + 1..ca + a.nodes[ca].size);
        if let Some(d) = inside.into_iter().find(|&d| a.nodes[d].hash == b.nodes[cb].hash && m.a2b[d].is_none()) {
            map_subtree(a, b, d, cb, m);
        }
    }
    for &ca in &ua {
        let inside = ub.iter().flat_map(|&cb| cb + 1..cb + b.nodes[cb].size);
        if let Some(d) = inside.into_iter().find(|&d| b.nodes[d].hash == a.nodes[ca].hash && m.b2a[d].is_none()) {
            map_subtree(a, b, ca, d, m);
        }
    }
}

/// Index pairs of a longest common subsequence (O(n·m) table; children lists are short).
pub(crate) fn lcs<T: PartialEq>(xs: &[T], ys: &[T]) -> Vec<(usize, usize)> {
    let (n, k) = (xs.len(), ys.len());
    let mut t = vec![vec![0u32; k + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..k).rev() {
            t[i][j] = if xs[i] == ys[j] { t[i + 1][j + 1] + 1 } else { t[i + 1][j].max(t[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < k {
        if xs[i] == ys[j] {
            out.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcs_finds_the_common_order() {
        assert_eq!(lcs(&[1, 2, 3, 4], &[2, 4, 5]), vec![(1, 0), (3, 1)]);
        assert!(lcs::<u8>(&[], &[1]).is_empty());
    }
}
