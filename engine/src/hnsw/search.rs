//! Greedy descent through the upper levels, then an ef-bounded beam search on level 0
//! (Malkov & Yashunin, Algorithm 2). The same two routines serve queries (over the
//! memory-mapped CSR levels) and the builder (over locked adjacency lists).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use pulp::{Simd, WithSimd};

use super::GraphView;
use crate::distance::dot_with;

/// A node and its similarity to the query (cosine, higher is closer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Cosine similarity to the query, in [-1, 1].
    pub score: f32,
    /// Node id (= document row).
    pub node: u32,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score.total_cmp(&other.score).then_with(|| other.node.cmp(&self.node))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Visited marks, reset in O(1) by bumping an epoch (as hnswlib's VisitedList).
#[derive(Debug, Default)]
pub(crate) struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

impl Visited {
    /// Prepares for a search over `n` nodes.
    pub(crate) fn reset(&mut self, n: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }

    /// Marks `node`; returns true when it was not yet visited in this epoch.
    #[inline(always)]
    pub(crate) fn insert(&mut self, node: u32) -> bool {
        let m = &mut self.marks[node as usize];
        let fresh = *m != self.epoch;
        *m = self.epoch;
        fresh
    }
}

thread_local! {
    static VISITED: std::cell::RefCell<Visited> = std::cell::RefCell::new(Visited::default());
}

/// Takes this thread's visited marks (allocated once per thread), reset for `n` nodes;
/// hand them back with [`put_visited`].
pub(crate) fn take_visited(n: usize) -> Visited {
    let mut v = VISITED.with(std::cell::RefCell::take);
    v.reset(n);
    v
}

/// Returns marks taken with [`take_visited`] for the next search on this thread.
pub(crate) fn put_visited(v: Visited) {
    VISITED.with(|cell| cell.replace(v));
}

/// Similarity of stored vectors to one query vector: `dot(query, vectors[node])` with the
/// SIMD token `simd`. A struct (not a closure) so `#[inline(always)]` puts the dot product
/// inside the caller's SIMD context.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scorer<'a, S> {
    /// The SIMD level to compute with.
    pub simd: S,
    /// The query, `dim` floats.
    pub query: &'a [f32],
    /// `[n, dim]` row-major.
    pub vectors: &'a [f32],
    /// Floats per vector.
    pub dim: usize,
}

impl<S: Simd> Scorer<'_, S> {
    #[inline(always)]
    pub(crate) fn score(&self, node: u32) -> f32 {
        dot_with(self.simd, self.query, &self.vectors[node as usize * self.dim..][..self.dim])
    }
}

/// Searches `graph` for the `ef` nodes most similar to `query` among those `allowed`, best
/// first. `vectors` is the `[n, dim]` matrix the graph was built on.
///
/// Nodes that `allowed` rejects are still traversed (they connect the graph) but never
/// returned, as in hnswlib's filtered search. Returns fewer than `ef` candidates only when
/// fewer allowed nodes are reachable. Neighbour ids ≥ n (a damaged file) are skipped.
/// Cost: about `ef · log n` neighbour expansions of `2m` dot products of `dim` floats, run
/// with the CPU's best SIMD level.
pub fn search(
    graph: &GraphView<'_>,
    vectors: &[f32],
    dim: usize,
    query: &[f32],
    ef: usize,
    allowed: &dyn Fn(u32) -> bool,
) -> Vec<Candidate> {
    let n = graph.n_nodes;
    if n == 0 || ef == 0 || graph.levels.is_empty() || (graph.entry_point as usize) >= n || vectors.len() < n * dim {
        return Vec::new();
    }
    let mut visited = take_visited(n);
    let op = SearchOp { graph, vectors, dim, query, ef, allowed, visited: &mut visited };
    let out = pulp::Arch::new().dispatch(op);
    put_visited(visited);
    out
}

/// One query, run inside pulp's dispatch so every inlined loop gets the CPU's SIMD level.
struct SearchOp<'a, 'g> {
    graph: &'a GraphView<'g>,
    vectors: &'a [f32],
    dim: usize,
    query: &'a [f32],
    ef: usize,
    allowed: &'a dyn Fn(u32) -> bool,
    visited: &'a mut Visited,
}

impl WithSimd for SearchOp<'_, '_> {
    type Output = Vec<Candidate>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Vec<Candidate> {
        let (graph, n) = (self.graph, self.graph.n_nodes);
        let scorer = Scorer { simd, query: self.query, vectors: self.vectors, dim: self.dim };
        let mut ep = Candidate { score: scorer.score(graph.entry_point), node: graph.entry_point };
        let mut buf = Vec::with_capacity(64);
        for level in graph.levels.iter().skip(1).rev() {
            ep = greedy_with(ep, &scorer, |x, out: &mut Vec<u32>| copy_into(out, level.neighbors(x)), n, &mut buf);
        }
        let level0 = &graph.levels[0];
        let links = |x, out: &mut Vec<u32>| copy_into(out, level0.neighbors(x));
        beam_with(ep, self.ef, self.visited, &scorer, self.allowed, links, n, &mut buf)
    }
}

#[inline(always)]
fn copy_into(out: &mut Vec<u32>, list: &[u32]) {
    out.clear();
    out.extend_from_slice(list);
}

/// Algorithm 2 with ef = 1: move to the best neighbour until none improves.
/// `neighbors(x, buf)` fills `buf` with the neighbour list of `x`; ids ≥ `n` are ignored.
#[inline(always)]
pub(crate) fn greedy_with<S: Simd, N>(
    mut ep: Candidate,
    scorer: &Scorer<'_, S>,
    neighbors: N,
    n: usize,
    buf: &mut Vec<u32>,
) -> Candidate
where
    N: Fn(u32, &mut Vec<u32>),
{
    loop {
        let mut best = ep;
        neighbors(ep.node, buf);
        for &nb in buf.iter().filter(|&&nb| (nb as usize) < n) {
            let s = scorer.score(nb);
            if s > best.score {
                best = Candidate { score: s, node: nb };
            }
        }
        if best.node == ep.node {
            return ep;
        }
        ep = best;
    }
}

/// Algorithm 2: ef-bounded beam search from `ep`, results filtered by `allowed`, best first.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn beam_with<S: Simd, N>(
    ep: Candidate,
    ef: usize,
    visited: &mut Visited,
    scorer: &Scorer<'_, S>,
    allowed: &dyn Fn(u32) -> bool,
    neighbors: N,
    n: usize,
    buf: &mut Vec<u32>,
) -> Vec<Candidate>
where
    N: Fn(u32, &mut Vec<u32>),
{
    let mut frontier = BinaryHeap::with_capacity(ef * 4); // best candidate on top
    let mut results: BinaryHeap<Reverse<Candidate>> = BinaryHeap::with_capacity(ef + 1); // worst on top
    visited.insert(ep.node);
    frontier.push(ep);
    if allowed(ep.node) {
        results.push(Reverse(ep));
    }
    let mut worst = if results.len() >= ef { ep.score } else { f32::MIN };
    while let Some(c) = frontier.pop() {
        if c.score < worst {
            break;
        }
        neighbors(c.node, buf);
        for &nb in buf.iter() {
            if (nb as usize) >= n || !visited.insert(nb) {
                continue;
            }
            let cand = Candidate { score: scorer.score(nb), node: nb };
            if cand.score > worst {
                frontier.push(cand);
                if allowed(nb) {
                    results.push(Reverse(cand));
                    if results.len() > ef {
                        results.pop();
                    }
                    if results.len() >= ef {
                        worst = results.peek().map_or(f32::MIN, |r| r.0.score);
                    }
                }
            }
        }
    }
    let mut out: Vec<Candidate> = results.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}
