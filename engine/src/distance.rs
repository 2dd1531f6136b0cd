//! Vector similarity. Index vectors are L2-normalised, so the inner product is the cosine
//! similarity, in [-1, 1], higher is closer.

/// Inner product of two equal-length slices.
///
/// Written with 16 independent accumulators over `chunks_exact(16)` so the compiler emits
/// packed SIMD multiply-adds; the remainder is summed in order. O(len).
///
/// Call it inside a pulp dispatch ([`crate::simd::simd`], or `pulp::Arch` as search and
/// build do) to get AVX2/FMA or AVX-512 code.
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

/// Inner product with explicit SIMD at `simd`'s lane width (pulp: 8 lanes with FMA on
/// AVX2 machines), four independent accumulators, the remainder summed in order. Call it from
/// code that runs inside `pulp::Arch::dispatch` (see [`crate::simd`]) so it inlines there.
///
/// # Panics
/// In debug builds, when the lengths differ.
#[inline(always)]
pub fn dot_with<S: pulp::Simd>(simd: S, a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let (ah, at) = S::as_simd_f32s(a);
    let (bh, bt) = S::as_simd_f32s(b);
    let zero = simd.splat_f32s(0.0);
    let (mut s0, mut s1, mut s2, mut s3) = (zero, zero, zero, zero);
    let (a4, ar) = pulp::as_arrays::<4, _>(ah);
    let (b4, br) = pulp::as_arrays::<4, _>(bh);
    for (x, y) in a4.iter().zip(b4) {
        s0 = simd.mul_add_e_f32s(x[0], y[0], s0);
        s1 = simd.mul_add_e_f32s(x[1], y[1], s1);
        s2 = simd.mul_add_e_f32s(x[2], y[2], s2);
        s3 = simd.mul_add_e_f32s(x[3], y[3], s3);
    }
    for (x, y) in ar.iter().zip(br) {
        s0 = simd.mul_add_e_f32s(*x, *y, s0);
    }
    let sum = simd.add_f32s(simd.add_f32s(s0, s1), simd.add_f32s(s2, s3));
    simd.reduce_sum_f32s(sum) + at.iter().zip(bt).map(|(x, y)| x * y).sum::<f32>()
}

/// [`dot_with`] dispatched for this CPU: for one-off products outside hot loops.
pub fn dot_dispatch(a: &[f32], b: &[f32]) -> f32 {
    struct Op<'a>(&'a [f32], &'a [f32]);
    impl pulp::WithSimd for Op<'_> {
        type Output = f32;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) -> f32 {
            dot_with(simd, self.0, self.1)
        }
    }
    pulp::Arch::new().dispatch(Op(a, b))
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
    fn simd_dot_matches_scalar() {
        for len in [0, 1, 7, 8, 31, 32, 33, 384, 1000] {
            let a: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..len).map(|i| (i as f32 * 0.11).cos()).collect();
            assert!((dot_dispatch(&a, &b) - dot(&a, &b)).abs() < 1e-4, "len {len}");
            assert!((dot_with(pulp::Scalar::new(), &a, &b) - dot(&a, &b)).abs() < 1e-4, "len {len}");
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
