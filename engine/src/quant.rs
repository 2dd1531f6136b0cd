//! int8 scalar quantization for graph traversal, with exact f32 rescoring.
//!
//! Each dimension `j` is clipped at `c_j`, the 99.9th percentile of `|x_j|` over (a sample
//! of) the indexed vectors, and stored as `q_j = round(x_j · 127 / c_j)` in `[-127, 127]`
//! (one byte; 4× less memory than f32). Queries are not quantized: the traversal score is
//! the asymmetric product `Σ_j (x_j · c_j / 127) · q_j`, an estimate of the cosine. The
//! search keeps its `ef` best candidates by that estimate and reranks them by the exact f32
//! cosine, so returned scores are exact (see [`crate::query`]).

use pulp::Simd;

/// Name of the scheme, recorded in the space metadata.
pub const SCHEME: &str = "int8-per-dim-p99.9";
/// Fraction of `|x_j|` values below the clipping bound of dimension `j`.
pub const CLIP_QUANTILE: f64 = 0.999;
/// Rows sampled (evenly spaced) to fit the clipping bounds.
pub const FIT_SAMPLE: usize = 100_000;

/// Per-dimension scales: stored value `q` stands for `q / scale`.
#[derive(Debug, Clone, PartialEq)]
pub struct Int8Quantizer {
    /// `127 / c_j` per dimension.
    pub scales: Vec<f32>,
}

impl Int8Quantizer {
    /// Fits clipping bounds on `vectors` (`[n, dim]`). O(min(n, 100k) · dim).
    pub fn fit(vectors: &[f32], dim: usize) -> Int8Quantizer {
        let n = vectors.len() / dim.max(1);
        let step = n.div_ceil(FIT_SAMPLE).max(1);
        let rows: Vec<&[f32]> = vectors.chunks_exact(dim).step_by(step).collect();
        let scales = (0..dim)
            .map(|j| {
                let mut col: Vec<f32> = rows.iter().map(|r| r[j].abs()).collect();
                let k = ((col.len() as f64 * CLIP_QUANTILE) as usize).min(col.len().saturating_sub(1));
                let c = if col.is_empty() { 0.0 } else { *col.select_nth_unstable_by(k, f32::total_cmp).1 };
                if c > 0.0 { 127.0 / c } else { 1.0 }
            })
            .collect();
        Int8Quantizer { scales }
    }

    /// Encodes `[n, dim]` vectors as `[n, dim]` i8 codes (clipped, rounded).
    pub fn encode(&self, vectors: &[f32]) -> Vec<i8> {
        let dim = self.scales.len();
        vectors
            .chunks_exact(dim)
            .flat_map(|row| row.iter().zip(&self.scales).map(|(x, s)| (x * s).round().clamp(-127.0, 127.0) as i8))
            .collect()
    }

    /// The weights a query uses against codes: `x_j / scale_j`.
    pub fn query_weights(&self, query: &[f32]) -> Vec<f32> {
        query_weights(&self.scales, query)
    }
}

/// The weights a query uses against codes with per-dimension `scales`: `x_j / scale_j`.
pub fn query_weights(scales: &[f32], query: &[f32]) -> Vec<f32> {
    query.iter().zip(scales).map(|(x, s)| x / s).collect()
}

/// `Σ_j w_j · codes_j` (i8 widened to f32), written as plain loops over 32-lane chunks (two
/// independent 16-lane accumulators, one AVX-512 register or two AVX2 ones each) with fused
/// multiply-adds, so it vectorises inside a pulp SIMD context (both of pulp's x86 levels
/// have FMA) without a loop-carried dependency on one register. Separate multiply and add
/// (the f32 `a += w · c` the compiler may not fuse) cost ~10 % of search time.
#[inline(always)]
pub fn dot_i8<S: Simd>(_simd: S, w: &[f32], codes: &[i8]) -> f32 {
    let (mut a0, mut a1) = ([0f32; 16], [0f32; 16]);
    let (wc, cc) = (w.chunks_exact(32), codes.chunks_exact(32));
    let tail: f32 = wc.remainder().iter().zip(cc.remainder()).map(|(a, b)| a * f32::from(*b)).sum();
    for (a, b) in wc.zip(cc) {
        for i in 0..16 {
            a0[i] = a[i].mul_add(f32::from(b[i]), a0[i]);
            a1[i] = a[16 + i].mul_add(f32::from(b[16 + i]), a1[i]);
        }
    }
    let mut sum = tail;
    for i in 0..16 {
        sum += a0[i] + a1[i];
    }
    sum
}

#[cfg(all(test, feature = "testing"))]
mod tests {
    use super::*;

    #[test]
    fn estimates_cosine_closely() {
        let dim = 64;
        let v = crate::testing::random_unit_vectors(2000, dim, 3);
        let q = Int8Quantizer::fit(&v, dim);
        let codes = q.encode(&v);
        let query = &v[5 * dim..6 * dim];
        let w = q.query_weights(query);
        let mut worst = 0f32;
        for r in 0..2000 {
            let exact = crate::distance::dot(query, &v[r * dim..(r + 1) * dim]);
            let est = dot_i8(pulp::Scalar::new(), &w, &codes[r * dim..(r + 1) * dim]);
            worst = worst.max((exact - est).abs());
        }
        assert!(worst < 0.02, "worst absolute error {worst}");
        assert!(codes.iter().all(|&c| c >= -127));
    }
}
