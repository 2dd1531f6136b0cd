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

/// Similarity of a stored node to the query being searched for.
pub(crate) trait Score {
    /// Higher is closer.
    fn score(&self, node: u32) -> f32;

    /// Starts loading `node`'s stored vector into the cache ([`crate::simd::prefetch`]).
    fn prefetch(&self, node: u32);
}

impl<S: Simd> Score for Scorer<'_, S> {
    #[inline(always)]
    fn score(&self, node: u32) -> f32 {
        dot_with(self.simd, self.query, &self.vectors[node as usize * self.dim..][..self.dim])
    }

    #[inline(always)]
    fn prefetch(&self, node: u32) {
        crate::simd::prefetch(bytemuck::cast_slice(&self.vectors[node as usize * self.dim..][..self.dim]));
    }
}

/// Estimated similarity from int8 codes: `Σ w_j · code_j` ([`crate::quant`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QScorer<'a, S> {
    /// The SIMD level to compute with.
    pub simd: S,
    /// The query's weights (`quant::query_weights`), `dim` floats.
    pub weights: &'a [f32],
    /// `[n, dim]` codes.
    pub codes: &'a [i8],
    /// Bytes per code row.
    pub dim: usize,
}

impl<S: Simd> Score for QScorer<'_, S> {
    #[inline(always)]
    fn score(&self, node: u32) -> f32 {
        crate::quant::dot_i8(self.simd, self.weights, &self.codes[node as usize * self.dim..][..self.dim])
    }

    #[inline(always)]
    fn prefetch(&self, node: u32) {
        crate::simd::prefetch(bytemuck::cast_slice(&self.codes[node as usize * self.dim..][..self.dim]));
    }
}

/// Damage a search met in the graph it walked: the neighbour list of `node` has an id ≥ n,
/// or offsets out of range. The search stops trusting its answer: hits may be missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphDamage {
    /// The node whose neighbour list is damaged.
    pub node: u32,
}

/// What a search computes similarities against.
#[derive(Debug, Clone, Copy)]
pub enum Stored<'a> {
    /// `[n, dim]` f32 vectors and the f32 query.
    F32 {
        /// The vectors.
        vectors: &'a [f32],
        /// The query.
        query: &'a [f32],
    },
    /// `[n, dim]` int8 codes and the query's weights (`quant::Int8Quantizer::query_weights`).
    I8 {
        /// The codes.
        codes: &'a [i8],
        /// The weights.
        weights: &'a [f32],
    },
}

/// Searches `graph` for the `ef` nodes most similar to `query` among those `allowed`, best
/// first. `vectors` is the `[n, dim]` matrix the graph was built on.
///
/// Nodes that `allowed` rejects are still traversed (they connect the graph) but never
/// returned, as in hnswlib's filtered search. Returns fewer than `ef` candidates only when
/// fewer allowed nodes are reachable. Cost: about `ef · log n` neighbour expansions of `2m`
/// dot products of `dim` floats, run with the CPU's best SIMD level.
///
/// # Errors
/// [`GraphDamage`] when a neighbour list the search read has an id ≥ n or offsets out of
/// range (a damaged file): its answer could silently lack hits. Checked on the lists read
/// only, at no extra cost; `verify` checks them all.
pub fn search(
    graph: &GraphView<'_>,
    vectors: &[f32],
    dim: usize,
    query: &[f32],
    ef: usize,
    allowed: &dyn Fn(u32) -> bool,
) -> Result<Vec<Candidate>, GraphDamage> {
    search_stored(graph, Stored::F32 { vectors, query }, dim, ef, allowed)
}

/// [`search`] over either f32 vectors or int8 codes ([`Stored`]); with codes the returned
/// scores are estimates, to be reranked by the caller.
///
/// # Errors
/// As [`search`].
pub fn search_stored(
    graph: &GraphView<'_>,
    stored: Stored<'_>,
    dim: usize,
    ef: usize,
    allowed: &dyn Fn(u32) -> bool,
) -> Result<Vec<Candidate>, GraphDamage> {
    let n = graph.n_nodes;
    let (len, qlen) = match stored {
        Stored::F32 { vectors, query } => (vectors.len(), query.len()),
        Stored::I8 { codes, weights } => (codes.len(), weights.len()),
    };
    if n == 0 || ef == 0 || graph.levels.is_empty() || (graph.entry_point as usize) >= n || len < n * dim || qlen != dim
    {
        return Ok(Vec::new());
    }
    let mut visited = take_visited(n);
    let op = SearchOp { graph, stored, dim, ef, allowed, visited: &mut visited };
    let out = pulp::Arch::new().dispatch(op);
    put_visited(visited);
    out
}

/// Where the search reads neighbour lists from: the CSR levels of a file (borrowed, no
/// copy) or the builder's locked lists (copied into `buf`).
pub(crate) trait Links {
    /// The neighbours of `node` (ids may be ≥ n in a damaged file: callers check); `None`
    /// when its list cannot be read (offsets out of range in a damaged file).
    fn get<'a>(&'a self, node: u32, buf: &'a mut Vec<u32>) -> Option<&'a [u32]>;

    /// Starts loading `node`'s neighbour list into the cache (nothing by default).
    #[inline(always)]
    fn prefetch(&self, _node: u32) {}
}

impl Links for super::LevelView<'_> {
    #[inline(always)]
    fn get<'a>(&'a self, node: u32, _buf: &'a mut Vec<u32>) -> Option<&'a [u32]> {
        self.checked_neighbors(node)
    }

    /// Level 0 only (the O(1) lookup; upper levels are few and binary-searched).
    #[inline(always)]
    fn prefetch(&self, node: u32) {
        if self.nodes.is_none() {
            crate::simd::prefetch(bytemuck::cast_slice(self.neighbors(node)));
        }
    }
}

/// One query, run inside pulp's dispatch so every inlined loop gets the CPU's SIMD level.
struct SearchOp<'a, 'g> {
    graph: &'a GraphView<'g>,
    stored: Stored<'a>,
    dim: usize,
    ef: usize,
    allowed: &'a dyn Fn(u32) -> bool,
    visited: &'a mut Visited,
}

impl WithSimd for SearchOp<'_, '_> {
    type Output = Result<Vec<Candidate>, GraphDamage>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        let dim = self.dim;
        match self.stored {
            Stored::F32 { vectors, query } => self.run(&Scorer { simd, query, vectors, dim }),
            Stored::I8 { codes, weights } => self.run(&QScorer { simd, weights, codes, dim }),
        }
    }
}

impl SearchOp<'_, '_> {
    #[inline(always)]
    fn run<Sc: Score>(self, scorer: &Sc) -> Result<Vec<Candidate>, GraphDamage> {
        let (graph, n) = (self.graph, self.graph.n_nodes);
        let mut ep = Candidate { score: scorer.score(graph.entry_point), node: graph.entry_point };
        let (mut buf, mut damage) = (Vec::with_capacity(64), None);
        for level in graph.levels.iter().skip(1).rev() {
            ep = greedy_with(ep, scorer, level, n, &mut buf, &mut damage);
        }
        let found =
            beam_with(ep, self.ef, self.visited, scorer, self.allowed, &graph.levels[0], n, &mut buf, &mut damage);
        match damage {
            Some(node) => Err(GraphDamage { node }),
            None => Ok(found),
        }
    }
}

/// Algorithm 2 with ef = 1: move to the best neighbour until none improves.
/// A node whose list is damaged (unreadable, or an id ≥ `n`, which is skipped) is put in
/// `damage`.
#[inline(always)]
pub(crate) fn greedy_with<Sc: Score, L: Links + ?Sized>(
    mut ep: Candidate,
    scorer: &Sc,
    links: &L,
    n: usize,
    buf: &mut Vec<u32>,
    damage: &mut Option<u32>,
) -> Candidate {
    loop {
        let mut best = ep;
        let Some(list) = links.get(ep.node, buf) else {
            damage.get_or_insert(ep.node);
            return ep;
        };
        for &nb in list {
            if nb as usize >= n {
                damage.get_or_insert(ep.node);
                continue;
            }
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
/// A node whose list is damaged (unreadable, or an id ≥ `n`, which is skipped) is put in
/// `damage`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn beam_with<Sc: Score, L: Links + ?Sized>(
    ep: Candidate,
    ef: usize,
    visited: &mut Visited,
    scorer: &Sc,
    allowed: &dyn Fn(u32) -> bool,
    links: &L,
    n: usize,
    buf: &mut Vec<u32>,
    damage: &mut Option<u32>,
) -> Vec<Candidate> {
    // Sized by what the graph can hold: `ef` may be any `usize` (`--ef`, a batch line's `k`).
    let bound = ef.min(n);
    let mut frontier = BinaryHeap::with_capacity(bound.saturating_mul(4)); // best candidate on top
    let mut results: BinaryHeap<Reverse<Candidate>> = BinaryHeap::with_capacity(bound + 1); // worst on top
    visited.insert(ep.node);
    frontier.push(ep);
    if allowed(ep.node) {
        results.push(Reverse(ep));
    }
    let mut worst = if results.len() >= ef { ep.score } else { f32::MIN };
    let mut fresh: Vec<u32> = Vec::with_capacity(64);
    while let Some(c) = frontier.pop() {
        if c.score < worst {
            break;
        }
        // The next candidate's neighbour list loads while this one's neighbours are scored.
        if let Some(next) = frontier.peek() {
            links.prefetch(next.node);
        }
        // Unvisited neighbours first, their vectors prefetched, then scored: the cache
        // misses of a node's neighbours overlap instead of following one another.
        fresh.clear();
        let Some(list) = links.get(c.node, buf) else {
            damage.get_or_insert(c.node);
            continue;
        };
        for &nb in list {
            if nb as usize >= n {
                damage.get_or_insert(c.node);
            } else if visited.insert(nb) {
                scorer.prefetch(nb);
                fresh.push(nb);
            }
        }
        for &nb in &fresh {
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
