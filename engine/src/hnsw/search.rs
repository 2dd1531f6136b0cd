//! Greedy descent through the upper levels, then an ef-bounded beam search on level 0.

use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::GraphView;
use crate::distance::dot;

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

/// Per-thread visited marks, reset in O(1) by bumping an epoch (as hnswlib's VisitedList).
#[derive(Debug, Default)]
struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

impl Visited {
    fn reset(&mut self, n: usize) {
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
    #[inline]
    fn insert(&mut self, node: u32) -> bool {
        let m = &mut self.marks[node as usize];
        let fresh = *m != self.epoch;
        *m = self.epoch;
        fresh
    }
}

thread_local! {
    static VISITED: RefCell<Visited> = RefCell::new(Visited::default());
}

/// Searches `graph` for the `ef` nodes most similar to `query` among those `allowed`, best
/// first. `vectors` is the `[n, dim]` matrix the graph was built on.
///
/// Nodes that `allowed` rejects are still traversed (they connect the graph) but never
/// returned, as in hnswlib's filtered search. Returns fewer than `ef` candidates only when
/// fewer allowed nodes are reachable. Cost: about `ef · log n` neighbour expansions, each
/// `2m` dot products of `dim` floats.
pub fn search(
    graph: &GraphView<'_>,
    vectors: &[f32],
    dim: usize,
    query: &[f32],
    ef: usize,
    allowed: &dyn Fn(u32) -> bool,
) -> Vec<Candidate> {
    let n = graph.n_nodes;
    if n == 0 || ef == 0 || graph.levels.is_empty() || (graph.entry_point as usize) >= n {
        return Vec::new();
    }
    let score = |node: u32| dot(query, &vectors[node as usize * dim..(node as usize + 1) * dim]);
    VISITED.with_borrow_mut(|visited| {
        let mut ep = Candidate { score: score(graph.entry_point), node: graph.entry_point };
        for level in graph.levels.iter().skip(1).rev() {
            ep = greedy(level, ep, n, &score);
        }
        visited.reset(n);
        beam(graph, ep, ef, visited, &score, allowed)
    })
}

/// Algorithm 2 with ef = 1: move to the best neighbour until none improves.
fn greedy(level: &super::LevelView<'_>, mut ep: Candidate, n: usize, score: &dyn Fn(u32) -> f32) -> Candidate {
    loop {
        let mut moved = false;
        for &nb in level.neighbors(ep.node) {
            if (nb as usize) < n {
                let s = score(nb);
                if s > ep.score {
                    ep = Candidate { score: s, node: nb };
                    moved = true;
                }
            }
        }
        if !moved {
            return ep;
        }
    }
}

/// Algorithm 2 on level 0 with an `allowed` filter on the result set.
fn beam(
    graph: &GraphView<'_>,
    ep: Candidate,
    ef: usize,
    visited: &mut Visited,
    score: &dyn Fn(u32) -> f32,
    allowed: &dyn Fn(u32) -> bool,
) -> Vec<Candidate> {
    let level0 = &graph.levels[0];
    let mut frontier = BinaryHeap::new(); // max-heap: best candidate first
    let mut results: BinaryHeap<Reverse<Candidate>> = BinaryHeap::new(); // worst result on top
    visited.insert(ep.node);
    frontier.push(ep);
    if allowed(ep.node) {
        results.push(Reverse(ep));
    }
    while let Some(c) = frontier.pop() {
        if results.len() >= ef && c.score < results.peek().map_or(f32::MIN, |r| r.0.score) {
            break;
        }
        for &nb in level0.neighbors(c.node) {
            if (nb as usize) >= graph.n_nodes || !visited.insert(nb) {
                continue;
            }
            let cand = Candidate { score: score(nb), node: nb };
            let worst = results.peek().map_or(f32::MIN, |r| r.0.score);
            if results.len() < ef || cand.score > worst {
                frontier.push(cand);
                if allowed(nb) {
                    results.push(Reverse(cand));
                    if results.len() > ef {
                        results.pop();
                    }
                }
            }
        }
    }
    let mut out: Vec<Candidate> = results.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}
