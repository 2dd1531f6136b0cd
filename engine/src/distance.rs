//! Vector similarity. Index vectors are L2-normalised, so the inner product is the cosine
//! similarity, in [-1, 1], higher is closer.

/// Inner product of two equal-length slices.
///
/// Written with 16 independent accumulators over `chunks_exact(16)` so the compiler emits
/// packed SIMD multiply-adds; the remainder is summed in order. O(len).
///
/// Call it inside [`crate::simd::simd`] (as search and build do) to get AVX2/FMA code.
///
/// # Panics
/// In debug builds, when the lengths differ.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// L2-normalises `v` in place and returns its original norm. A zero vector stays zero.
pub fn normalize(v: &mut [f32]) -> f32 {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    norm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_for_all_remainders() {
        for len in [0, 1, 15, 16, 17, 384, 385] {
            let a: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..len).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(dot(&a, &b)) - naive).abs() < 1e-4, "len {len}");
        }
    }

    #[test]
    fn normalize_gives_unit_norm() {
        let mut v = vec![3.0, 4.0];
        assert_eq!(normalize(&mut v), 5.0);
        assert!((dot(&v, &v) - 1.0).abs() < 1e-6);
        let mut z = vec![0.0; 3];
        assert_eq!(normalize(&mut z), 0.0);
        assert_eq!(z, vec![0.0; 3]);
    }
}
