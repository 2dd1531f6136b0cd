//! The figures `fixdex bench` reports: recall@k against exact neighbours, the FLOPs of a
//! MiniLM forward pass, CPU utilisation, and cosine agreement with reference embeddings.

use crate::{Error, Hit, Result};

/// Recall@k: the share of the `k` hits per query (`results[q]`) that are among the first
/// `k` exact neighbours `gt[q]` (TEXMEX ground truth, best first), over all queries, in
/// [0, 1]. Queries beyond the shorter list are ignored; a query with fewer than `k` hits
/// counts its missing hits as misses; no queries or `k` = 0 give NaN (undefined).
/// O(queries · k²).
pub fn recall_at<R: AsRef<[u32]>>(results: &[R], gt: &[Vec<u32>], k: usize) -> f64 {
    let found: usize = results
        .iter()
        .zip(gt)
        .map(|(r, g)| r.as_ref().iter().filter(|row| g[..k.min(g.len())].contains(row)).count())
        .sum();
    found as f64 / (results.len() * k) as f64
}

/// The document rows of `hits`, in order: what [`recall_at`] compares.
pub fn rows(hits: &[Hit]) -> Vec<u32> {
    hits.iter().map(|h| h.row).collect()
}

/// FLOPs of one sequence of `l` tokens through all-MiniLM-L6-v2-sized BERT (H = 384,
/// FFN 1536, 6 layers): `6 · (l · 2 · (4H² + 2H·1536) + 4 · l² · H)`, as in
/// ../shared/baselines/RESULTS.md §1 (embedding lookup, norms, softmax ignored).
pub fn minilm_flops(l: usize) -> f64 {
    let (l, h) = (l as f64, 384.0);
    6.0 * (l * 2.0 * (4.0 * h * h + 2.0 * h * 1536.0) + 4.0 * l * l * h)
}

/// CPU-seconds / wall-seconds of one measurement, all threads, rounded to 3 places
/// (`threads` when every thread ran the whole time); `None` without a CPU reading or when
/// `wall_s` is not positive.
pub fn cpu_util(cpu_s: Option<f64>, wall_s: f64) -> Option<f64> {
    let cpu = cpu_s?;
    (wall_s > 0.0).then(|| (cpu / wall_s * 1000.0).round() / 1000.0)
}

/// (min, mean) cosine between `out[i]` (unit vectors, `dim` floats each) and row `i` of the
/// flat row-major `reference` (e.g. from [`super::vecs::parse_npy_f32`]). O(n · dim).
///
/// # Errors
/// [`Error::BenchInput`] `has fewer rows than the snippets embedded` when `reference` has
/// fewer than `out.len()` rows of `dim`, or `out` is empty.
pub fn cosine_min_mean(out: &[Vec<f32>], reference: &[f32]) -> Result<(f32, f32)> {
    let dim = out.first().map_or(0, Vec::len);
    if dim == 0 || reference.len() < out.len() * dim {
        return Err(Error::BenchInput { reason: "has fewer rows than the snippets embedded".into() });
    }
    let cos: Vec<f32> = out.iter().zip(reference.chunks_exact(dim)).map(|(v, r)| crate::distance::dot(v, r)).collect();
    Ok((cos.iter().copied().fold(1.0, f32::min), cos.iter().sum::<f32>() / cos.len() as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_counts_hits_among_the_first_k_true_neighbours() {
        let gt = vec![vec![1, 2, 3], vec![4, 5, 6]];
        // Query 0 finds 1 and 9 (one of two), query 1 finds 5 and 4 (both): 3 of 4.
        assert_eq!(recall_at(&[vec![1, 9], vec![5, 4]], &gt, 2), 0.75);
        // Row 3 is a true neighbour only at k = 3.
        assert_eq!(recall_at(&[vec![3, 1]], &gt, 2), 0.5);
        assert_eq!(recall_at(&[vec![3, 1, 2]], &gt, 3), 1.0);
    }

    #[test]
    fn rows_of_hits_feed_recall() {
        let hits = [Hit { row: 4, score: 0.9 }, Hit { row: 7, score: 0.5 }];
        assert_eq!(rows(&hits), vec![4, 7]);
        assert_eq!(recall_at(&[rows(&hits)], &[vec![7, 4]], 2), 1.0);
    }

    #[test]
    fn minilm_flops_of_one_token_and_their_growth() {
        let per_token = 6.0 * 2.0 * (4.0 * 384.0f64.powi(2) + 2.0 * 384.0 * 1536.0);
        assert_eq!(minilm_flops(1), per_token + 6.0 * 4.0 * 384.0);
        assert!(minilm_flops(256) > 256.0 * per_token, "attention adds a quadratic term");
    }

    #[test]
    fn cpu_util_is_rounded_and_needs_a_reading() {
        assert_eq!(cpu_util(Some(3.0), 2.0), Some(1.5));
        assert_eq!(cpu_util(Some(1.0), 3.0), Some(0.333));
        assert_eq!(cpu_util(None, 1.0), None);
        assert_eq!(cpu_util(Some(1.0), 0.0), None);
    }

    #[test]
    fn cosine_against_a_reference() {
        let out = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        assert_eq!(cosine_min_mean(&out, &[1.0, 0.0, 0.6, 0.8]).unwrap(), (0.8, 0.9));
        assert!(cosine_min_mean(&out, &[1.0, 0.0]).is_err());
    }
}
