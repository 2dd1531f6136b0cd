//! Greedy descent through the upper levels, then an ef-bounded beam search on level 0
//! (Malkov & Yashunin, Algorithm 2). The same two routines serve queries (over the
//! memory-mapped CSR levels) and the builder (over locked adjacency lists).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::GraphView;
use crate::distance::dot;
use crate::simd::simd;

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

/// Runs `f` with this thread's visited marks, reset for `n` nodes (no allocation after the
/// first call on a thread).
#[inline(always)]
pub(crate) fn with_visited<R>(n: usize, f: impl FnOnce(&mut Visited) -> R) -> R {
    VISITED.with_borrow_mut(|visited| {
        visited.reset(n);
        f(visited)
    })
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
    simd(|| {
        let score = |node: u32| dot(query, &vectors[node as usize * dim..][..dim]);
        let mut ep = Candidate { score: score(graph.entry_point), node: graph.entry_point };
        for level in graph.levels.iter().skip(1).rev() {
            ep = greedy_with(ep, &score, |x, f: &mut dyn FnMut(&[u32])| f(level.neighbors(x)), n);
        }
        let level0 = &graph.levels[0];
        with_visited(n, |visited| {
            beam_with(ep, ef, visited, &score, allowed, |x, f: &mut dyn FnMut(&[u32])| f(level0.neighbors(x)), n)
        })
    })
}

/// Algorithm 2 with ef = 1: move to the best neighbour until none improves.
/// `neighbors(x, f)` calls `f` with the neighbour list of `x`; ids ≥ `n` are ignored.
#[inline(always)]
pub(crate) fn greedy_with<S, N>(mut ep: Candidate, score: &S, neighbors: N, n: usize) -> Candidate
where
    S: Fn(u32) -> f32,
    N: Fn(u32, &mut dyn FnMut(&[u32])),
{
    loop {
        let mut best = ep;
        neighbors(ep.node, &mut |list| {
            for &nb in list.iter().filter(|&&nb| (nb as usize) < n) {
                let s = score(nb);
                if s > best.score {
                    best = Candidate { score: s, node: nb };
                }
            }
        });
        if best.node == ep.node {
            return ep;
        }
        ep = best;
    }
}

/// Algorithm 2: ef-bounded beam search from `ep`, results filtered by `allowed`, best first.
#[inline(always)]
pub(crate) fn beam_with<S, N>(
    ep: Candidate,
    ef: usize,
    visited: &mut Visited,
    score: &S,
    allowed: &dyn Fn(u32) -> bool,
    neighbors: N,
    n: usize,
) -> Vec<Candidate>
where
    S: Fn(u32) -> f32,
    N: Fn(u32, &mut dyn FnMut(&[u32])),
{
    let mut frontier = BinaryHeap::with_capacity(ef * 4); // best candidate on top
    let mut results: BinaryHeap<Reverse<Candidate>> = BinaryHeap::with_capacity(ef + 1); // worst on top
    visited.insert(ep.node);
    frontier.push(ep);
    if allowed(ep.node) {
        results.push(Reverse(ep));
    }
    while let Some(c) = frontier.pop() {
        if results.len() >= ef && c.score < results.peek().map_or(f32::MIN, |r| r.0.score) {
            break;
        }
        neighbors(c.node, &mut |list| {
            for &nb in list {
                if (nb as usize) >= n || !visited.insert(nb) {
                    continue;
                }
                let cand = Candidate { score: score(nb), node: nb };
                if results.len() < ef || cand.score > results.peek().map_or(f32::MIN, |r| r.0.score) {
                    frontier.push(cand);
                    if allowed(nb) {
                        results.push(Reverse(cand));
                        if results.len() > ef {
                            results.pop();
                        }
                    }
                }
            }
        });
    }
    let mut out: Vec<Candidate> = results.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}
