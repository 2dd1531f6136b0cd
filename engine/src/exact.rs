//! Exact (brute-force) top-k: the oracle for HNSW recall and the right tool for small
//! indexes (at 20k vectors an exact scan is as fast as HNSW at ef ≈ 100; RESULTS.md §3a).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::distance::dot;
use crate::hnsw::Candidate;

/// Rows per parallel work unit of [`top_k`].
const CHUNK_ROWS: usize = 4096;

/// The `k` rows of `vectors` (`[n, dim]`) with the highest inner product with `query`
/// among those `allowed`, best first; ties broken by lower row. O(n · dim), scanned in
/// parallel chunks of 4,096 rows on the rayon pool.
pub fn top_k(
    vectors: &[f32],
    dim: usize,
    query: &[f32],
    k: usize,
    allowed: &(dyn Fn(u32) -> bool + Sync),
) -> Vec<Candidate> {
    if k == 0 || dim == 0 {
        return Vec::new();
    }
    let partial: Vec<Vec<Candidate>> = vectors
        .par_chunks(CHUNK_ROWS * dim)
        .enumerate()
        .map(|(c, chunk)| {
            let base = (c * CHUNK_ROWS) as u32;
            let rows = chunk.chunks_exact(dim).zip(base..);
            crate::simd::simd(|| {
                keep_best(
                    rows.filter(|(_, r)| allowed(*r)).map(|(v, r)| Candidate { score: dot(query, v), node: r }),
                    k,
                )
            })
        })
        .collect();
    keep_best(partial.into_iter().flatten(), k)
}

fn keep_best(items: impl Iterator<Item = Candidate>, k: usize) -> Vec<Candidate> {
    // `k` may be any `usize`; the heap grows past this only when that many items come.
    let mut heap: BinaryHeap<Reverse<Candidate>> = BinaryHeap::with_capacity(k.min(1024) + 1);
    for c in items {
        if heap.len() < k {
            heap.push(Reverse(c));
        } else if heap.peek().is_some_and(|w| c > w.0) {
            heap.pop();
            heap.push(Reverse(c));
        }
    }
    let mut out: Vec<Candidate> = heap.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_full_sort() {
        let dim = 8;
        let n = 10_000;
        let v: Vec<f32> = (0..n * dim).map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5).collect();
        let q: Vec<f32> = (0..dim).map(|i| (i as f32).cos()).collect();
        let got = top_k(&v, dim, &q, 10, &|r| r % 3 != 0);
        let mut all: Vec<Candidate> = (0..n as u32)
            .filter(|r| r % 3 != 0)
            .map(|r| Candidate { score: dot(&q, &v[r as usize * dim..][..dim]), node: r })
            .collect();
        all.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(got, all[..10].to_vec());
        assert!(top_k(&v, dim, &q, 0, &|_| true).is_empty());
    }
}
