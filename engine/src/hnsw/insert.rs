//! fixdex's own HNSW builder: parallel insertion with per-node locks, the neighbour-
//! selection heuristic, and SIMD distances (Malkov & Yashunin, TPAMI 2018, Algorithms 1, 2
//! and 4, with hnswlib's conventions: every new node links to ≤ M neighbours on each of its
//! levels; a neighbour's list may hold M (upper levels) or 2·M (level 0) before it is pruned
//! with the heuristic).
//!
//! By default ([`super::Builder::Native`]) the beam searches of insertion traverse int8 codes
//! of the vectors ([`crate::quant`]: a quarter of the bytes per distance, and insertion is
//! bound by loading neighbour vectors) and the `ef_construction` candidates they return are
//! rescored with exact f32 similarity before the heuristic selects neighbours, which, like
//! pruning, stays f32. The same idea as the query path's int8 traversal with f32 rerank.
//!
//! Node levels are drawn from a seeded generator per node id (`⌊-ln U · 1/ln M⌋`, capped at
//! 15), so the level structure is reproducible; with one thread, or up to
//! [`SEQUENTIAL_PREFIX`] nodes (inserted one by one before the parallel insertion), the
//! whole build is. A node is linked back into its neighbours' lists only once all its own
//! lists are written, so no concurrent insertion descends into a half-written node.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, RwLock};

use rayon::prelude::*;

use pulp::{Simd, WithSimd};

use super::search::{Candidate, Links, QScorer, Score, Scorer, beam_with, greedy_with, put_visited, take_visited};
use super::{Graph, HnswConfig, Level};
use crate::distance::{dot, dot_with};

/// Highest level a node can get.
const MAX_LEVEL: usize = 15;

/// Nodes inserted one by one before the parallel insertion starts (below that size the
/// whole build is sequential).
const SEQUENTIAL_PREFIX: u32 = 1024;

/// Graph under construction.
struct Builder<'a> {
    vectors: &'a [f32],
    dim: usize,
    m: usize,
    ef: usize,
    levels: Vec<u8>,
    /// Level-0 lists, where nearly all the search time goes ([`Level0`]).
    level0: Level0,
    /// `upper[node][level - 1]`: neighbour ids on levels `1..=levels[node]`.
    upper: Vec<Mutex<Vec<Vec<u32>>>>,
    /// (entry node, its level).
    entry: RwLock<(u32, usize)>,
    /// int8 codes of the vectors and their per-dimension scales, when the beam searches of
    /// insertion traverse with them ([`crate::quant`]); candidates are rescored in f32.
    codes: Option<(Vec<i8>, Vec<f32>)>,
}

/// Builds the graph over `vectors` (`[n, dim]`, unit vectors, validated by the caller)
/// with `threads`-way parallel insertion on the rayon pool.
/// With `int8`, insertion traverses int8 codes of the vectors and rescores candidates in f32.
pub(super) fn build_native(vectors: &[f32], dim: usize, cfg: &HnswConfig, seed: u64, int8: bool) -> Graph {
    let n = vectors.len() / dim;
    let levels: Vec<u8> = (0..n).map(|i| random_level(seed, i as u64, cfg.m, cfg.max_levels)).collect();
    let upper = levels.iter().map(|&l| Mutex::new(vec![Vec::new(); usize::from(l)])).collect();
    let b = Builder {
        vectors,
        dim,
        m: cfg.m,
        ef: cfg.ef_construction.max(cfg.m),
        level0: Level0::new(n, 2 * cfg.m),
        levels,
        upper,
        entry: RwLock::new((0, 0)),
        codes: int8.then(|| {
            let q = crate::quant::Int8Quantizer::fit(vectors, dim);
            (q.encode(vectors), q.scales)
        }),
    };
    *b.entry.write().expect("fresh lock") = (0, usize::from(b.levels[0]));
    // The first nodes go in one by one: inserted in parallel into a near-empty graph, the
    // first node of each thread's share links to the few nodes there so far and later
    // searches miss it (9 of 1,500 self-queries in one 16-thread build, every one the start
    // of a rayon split).
    let prefix = (SEQUENTIAL_PREFIX as usize).min(n) as u32;
    for node in 1..prefix {
        pulp::Arch::new().dispatch(InsertOp { b: &b, node });
    }
    (prefix..n as u32)
        .into_par_iter()
        .with_min_len(32)
        .for_each(|node| pulp::Arch::new().dispatch(InsertOp { b: &b, node }));
    b.export()
}

fn random_level(seed: u64, node: u64, m: usize, max_levels: usize) -> u8 {
    let mut z = seed ^ node.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let u = ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64; // (0, 1)
    let level = (-u.ln() / (m as f64).ln()).floor() as usize;
    level.min(MAX_LEVEL).min(max_levels.saturating_sub(1)) as u8
}

/// Level-0 neighbour lists in one flat array of atomics, `cap + 1` words per node (length,
/// then up to `cap` ids), so a search reads a list with plain loads: no lock and no copy
/// through a `Vec` (those were 17 % of build time). Writers serialise per node on `locks`
/// and publish the length last (`Release`); a reader that races a writer sees, per slot,
/// either the old or the new id, all of them valid node ids, which a beam search tolerates
/// (it only decides which nodes to score). All atomics are `Relaxed` except the length.
struct Level0 {
    cap: usize,
    words: Vec<AtomicU32>,
    locks: Vec<Mutex<()>>,
}

impl Level0 {
    fn new(n: usize, cap: usize) -> Level0 {
        Level0 {
            cap,
            words: (0..n * (cap + 1)).map(|_| AtomicU32::new(0)).collect(),
            locks: (0..n).map(|_| Mutex::new(())).collect(),
        }
    }

    /// The words of `node`: `[len, ids…]`.
    #[inline(always)]
    fn slot(&self, node: u32) -> &[AtomicU32] {
        &self.words[node as usize * (self.cap + 1)..][..self.cap + 1]
    }

    /// Copies `node`'s list into `out` without locking.
    #[inline(always)]
    fn read(&self, node: u32, out: &mut Vec<u32>) {
        let slot = self.slot(node);
        let len = (slot[0].load(Ordering::Acquire) as usize).min(self.cap);
        out.clear();
        out.extend(slot[1..=len].iter().map(|w| w.load(Ordering::Relaxed)));
    }

    /// Replaces `node`'s list with `ids` (at most `cap`); the caller holds `node`'s lock.
    #[inline(always)]
    fn write(&self, node: u32, ids: &[u32]) {
        let slot = self.slot(node);
        for (w, &id) in slot[1..].iter().zip(ids) {
            w.store(id, Ordering::Relaxed);
        }
        slot[0].store(ids.len().min(self.cap) as u32, Ordering::Release);
    }

    /// Owned lists, for export.
    fn into_lists(self) -> Vec<Vec<u32>> {
        let cap = self.cap;
        let words: Vec<u32> = self.words.into_iter().map(AtomicU32::into_inner).collect();
        words.chunks_exact(cap + 1).map(|s| s[1..=(s[0] as usize).min(cap)].to_vec()).collect()
    }
}

/// One level of the graph under construction, as search reads it.
struct LevelLinks<'a, 'v> {
    b: &'a Builder<'v>,
    level: usize,
}

impl Links for LevelLinks<'_, '_> {
    #[inline(always)]
    fn get<'a>(&'a self, node: u32, buf: &'a mut Vec<u32>) -> Option<&'a [u32]> {
        self.b.neighbours(node, self.level, buf);
        Some(buf)
    }
}

/// One insertion, run inside pulp's dispatch so the inlined loops get the CPU's SIMD level.
struct InsertOp<'a, 'v> {
    b: &'a Builder<'v>,
    node: u32,
}

impl WithSimd for InsertOp<'_, '_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        self.b.insert(simd, self.node);
    }
}

impl Builder<'_> {
    #[inline(always)]
    fn vec(&self, node: u32) -> &[f32] {
        &self.vectors[node as usize * self.dim..][..self.dim]
    }

    #[inline(always)]
    fn sim<S: Simd>(&self, simd: S, a: u32, b: u32) -> f32 {
        dot_with(simd, self.vec(a), self.vec(b))
    }

    /// Copies the neighbours of `node` on `level` into `out` (level 0 without a lock, see
    /// [`Level0`]; above, under that node's lock).
    #[inline(always)]
    fn neighbours(&self, node: u32, level: usize, out: &mut Vec<u32>) {
        if level == 0 {
            return self.level0.read(node, out);
        }
        out.clear();
        let links = self.upper[node as usize].lock().expect("no panics while locked");
        out.extend_from_slice(links.get(level - 1).map_or(&[], Vec::as_slice));
    }

    #[inline(always)]
    fn insert<S: Simd>(&self, simd: S, node: u32) {
        match &self.codes {
            Some((codes, scales)) => {
                let weights = crate::quant::query_weights(scales, self.vec(node));
                let scorer = QScorer { simd, weights: &weights, codes, dim: self.dim };
                self.insert_with(simd, node, &scorer, true);
            }
            None => {
                let scorer = Scorer { simd, query: self.vec(node), vectors: self.vectors, dim: self.dim };
                self.insert_with(simd, node, &scorer, false);
            }
        }
    }

    /// Inserts `node`, traversing with `scorer`; with `rescore`, the candidates each beam
    /// search returns are rescored with exact f32 similarity before neighbour selection.
    #[inline(always)]
    fn insert_with<S: Simd, Sc: Score>(&self, simd: S, node: u32, scorer: &Sc, rescore: bool) {
        let level = usize::from(self.levels[node as usize]);
        let (ep, top) = *self.entry.read().expect("no panics while locked");
        let n = self.levels.len();
        let mut buf = Vec::with_capacity(2 * self.m + 1);
        let mut cur = Candidate { score: scorer.score(ep), node: ep };
        for l in (level + 1..=top).rev() {
            cur = greedy_with(cur, scorer, &LevelLinks { b: self, level: l }, n, &mut buf, &mut None);
        }
        // The node's own lists are written level by level as the descent goes, but it is linked
        // back (made visible to other insertions) only once every one of its lists is written:
        // linking back level by level, as the paper and hnswlib do, let a concurrent insertion
        // reach the node on an upper level and descend from it into its still empty level-0
        // list, leaving that insertion with one neighbour. hnswlib instead holds the node's lock
        // for its whole insertion, so such a search waits. With 8 threads on 2 cores that race
        // cost up to 27 of 1,500 self-queries (engine/tests/integration/search.rs).
        let mut back: Vec<(usize, Vec<u32>)> = Vec::with_capacity(level.min(top) + 1);
        for l in (0..=level.min(top)).rev() {
            let links = LevelLinks { b: self, level: l };
            let mut visited = take_visited(n);
            let mut found = beam_with(cur, self.ef, &mut visited, scorer, &|_| true, &links, n, &mut buf, &mut None);
            put_visited(visited);
            let next = found[0];
            if rescore {
                for c in found.iter_mut() {
                    c.score = self.sim(simd, node, c.node);
                }
                found.sort_unstable_by(|a, b| b.cmp(a));
            }
            let chosen: Vec<u32> = self.select(simd, &found, self.m).into_iter().filter(|&x| x != node).collect();
            if l == 0 {
                let _guard = self.level0.locks[node as usize].lock().expect("no panics while locked");
                self.level0.write(node, &chosen);
            } else {
                self.upper[node as usize].lock().expect("no panics while locked")[l - 1] = chosen.clone();
            }
            back.push((l, chosen));
            cur = next;
        }
        for (l, chosen) in back {
            for e in chosen {
                self.link_back(simd, e, node, l);
            }
        }
        if level > top {
            let mut entry = self.entry.write().expect("no panics while locked");
            if level > entry.1 {
                *entry = (node, level);
            }
        }
    }

    /// Adds `node` to `e`'s list on `level`, pruning it with the heuristic when full.
    #[inline(always)]
    fn link_back<S: Simd>(&self, simd: S, e: u32, node: u32, level: usize) {
        if level == 0 {
            let _guard = self.level0.locks[e as usize].lock().expect("no panics while locked");
            let mut list = Vec::with_capacity(self.level0.cap + 1);
            self.level0.read(e, &mut list);
            if !list.contains(&node) {
                self.level0.write(e, &self.add_or_prune(simd, e, node, list, self.level0.cap));
            }
            return;
        }
        let mut links = self.upper[e as usize].lock().expect("no panics while locked");
        let list = &mut links[level - 1];
        *list = self.add_or_prune(simd, e, node, std::mem::take(list), self.m);
    }

    /// `list` (of `e`) with `node` added, pruned back to `cap` with the heuristic when full.
    #[inline(always)]
    fn add_or_prune<S: Simd>(&self, simd: S, e: u32, node: u32, mut list: Vec<u32>, cap: usize) -> Vec<u32> {
        if list.contains(&node) {
            return list;
        }
        if list.len() < cap {
            list.push(node);
            return list;
        }
        // Plain loops, not closures, in this function: closures would be compiled outside the
        // SIMD context and call the FMA intrinsic out of line.
        let mut cands: Vec<Candidate> = Vec::with_capacity(list.len() + 1);
        for &x in list.iter().chain(std::iter::once(&node)) {
            cands.push(Candidate { score: self.sim(simd, e, x), node: x });
        }
        cands.sort_unstable_by(|a, b| b.cmp(a));
        self.select(simd, &cands, cap)
    }

    /// Algorithm 4 (heuristic): take candidates best first; keep one only if it is closer
    /// to the query than to every neighbour kept so far. `cands` is sorted best first.
    #[inline(always)]
    fn select<S: Simd>(&self, simd: S, cands: &[Candidate], m: usize) -> Vec<u32> {
        let mut kept: Vec<u32> = Vec::with_capacity(m);
        'candidates: for c in cands {
            if kept.len() >= m {
                break;
            }
            for &k in &kept {
                if self.sim(simd, c.node, k) >= c.score {
                    continue 'candidates;
                }
            }
            kept.push(c.node);
        }
        kept
    }

    fn export(self) -> Graph {
        let entry = self.entry.into_inner().expect("no panics while locked");
        let mut links: Vec<Vec<Vec<u32>>> = self
            .level0
            .into_lists()
            .into_iter()
            .zip(self.upper)
            .map(|(l0, up)| {
                let mut all = vec![l0];
                all.extend(up.into_inner().expect("no panics while locked"));
                all
            })
            .collect();
        connect_level0(&mut links, entry.0, self.vectors, self.dim, 2 * self.m);
        let top = entry.1;
        let levels = (0..=top)
            .map(|l| {
                let mut level = Level { nodes: Vec::new(), offsets: vec![0], neighbors: Vec::new() };
                for (node, nl) in links.iter().enumerate() {
                    if let Some(list) = nl.get(l) {
                        if l > 0 {
                            level.nodes.push(node as u32);
                        }
                        level.neighbors.extend_from_slice(list);
                        level.offsets.push(level.neighbors.len() as u64);
                    }
                }
                level
            })
            .collect();
        Graph { levels, entry_point: entry.0 }
    }
}

/// Heuristic pruning can leave a few nodes with no incoming level-0 link (a known HNSW
/// effect, worse in low dimensions), so no search could ever reach them. This links each
/// such node from its most similar reachable out-neighbour (or, when it has none, from the
/// most similar reachable node) whose list still holds at most `cap` (= 2·M) ids, so a list
/// exceeds 2·M by at most one, until every node is reachable from the entry point.
/// O(n + edges) plus a rare O(n · dim) fallback.
fn connect_level0(links: &mut [Vec<Vec<u32>>], entry: u32, vectors: &[f32], dim: usize, cap: usize) {
    let n = links.len();
    let vec = |x: u32| &vectors[x as usize * dim..][..dim];
    let mut seen = vec![false; n];
    mark_from(links, entry, &mut seen);
    for u in 0..n as u32 {
        if seen[u as usize] {
            continue;
        }
        let open = |v: u32| seen[v as usize] && links[v as usize][0].len() <= cap;
        let from_out = links[u as usize][0].iter().copied().filter(|&v| open(v));
        let best = from_out.max_by(|&a, &b| dot(vec(u), vec(a)).total_cmp(&dot(vec(u), vec(b)))).or_else(|| {
            (0..n as u32).filter(|&v| open(v)).max_by(|&a, &b| dot(vec(u), vec(a)).total_cmp(&dot(vec(u), vec(b))))
        });
        if let Some(v) = best {
            links[v as usize][0].push(u);
            mark_from(links, u, &mut seen);
        }
    }
}

/// Marks every node reachable on level 0 from `start`.
fn mark_from(links: &[Vec<Vec<u32>>], start: u32, seen: &mut [bool]) {
    let mut stack = vec![start];
    seen[start as usize] = true;
    while let Some(x) = stack.pop() {
        for &y in &links[x as usize][0] {
            if !std::mem::replace(&mut seen[y as usize], true) {
                stack.push(y);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_geometric_and_reproducible() {
        let levels: Vec<u8> = (0..100_000).map(|i| random_level(1, i, 16, 16)).collect();
        let above0 = levels.iter().filter(|&&l| l > 0).count() as f64 / 1e5;
        assert!((above0 - 1.0 / 16.0).abs() < 0.005, "{above0}");
        assert_eq!(levels[123], random_level(1, 123, 16, 16));
    }

    /// Two unreachable nodes whose best reachable neighbour is the same node: the first
    /// repair link fills that node's spare slot, the second goes to the next best.
    #[test]
    fn repair_links_keep_lists_within_cap_plus_one() {
        // 1-d "vectors" on a line, so similarity order is easy to read: 0 is the entry.
        let vectors = [1.0f32, 0.9, 0.8, 0.95, 0.94];
        // 0 -> 1, 2; 1 -> 0; 2 -> 0. Nodes 3 and 4 point at 0 but nothing points at them.
        let mut links = vec![vec![vec![1, 2]], vec![vec![0]], vec![vec![0]], vec![vec![0, 1]], vec![vec![0, 1]]];
        connect_level0(&mut links, 0, &vectors, 1, 2);
        assert_eq!(links[0][0], vec![1, 2, 3], "0 had room for one more");
        assert_eq!(links[1][0], vec![0, 4], "0 is full (cap + 1), so 4 hangs off 1");
    }
}
