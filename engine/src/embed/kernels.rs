//! The encoder's element-wise kernels: exp, GELU (exact, erf), softmax and LayerNorm, written
//! as branch-free loops that the compiler vectorises, and run under the instruction set
//! that was measured fastest on this CPU ([`elementwise`]).
//!
//! Why measured: AVX-512 versions of these loops ran ~20 % slower than AVX2 on AMD Zen 4
//! (double-pumped 512-bit units, and the wider loops' tails on 384-float rows), while Intel
//! Xeons run 512-bit FMAs natively. [`elementwise`] times the same representative work
//! (a bias+GELU row pass and a LayerNorm row pass over a `[16, 1536]` / `[16, 384]` buffer)
//! under pulp's `V4` (AVX-512) and `V3` (AVX2 + FMA) once per process (~0.5 ms) and keeps the
//! faster; [`elementwise_choice`] says which ran.
//!
//! Accuracy (tested against f64 on a grid): [`exp`] relative error < 3e-7 on [-87, 88];
//! [`erf`] absolute error < 4e-7 (Abramowitz & Stegun 7.1.26's 1.5e-7 plus its evaluation
//! in f32, ~2.6e-7 at worst on the test grid); GELU therefore within `4e-7 · |x| / 2` plus
//! 4 ulp; LayerNorm's statistics are
//! taken in one pass with the row's first element as shift (the "shifted data" variance,
//! Chan, Golub & LeVeque 1983), which keeps the cancellation of `E[x²] − E[x]²` small when
//! `|mean| ≫ std`.

use std::sync::OnceLock;
use std::time::Instant;

/// e^x for f32 without branches or saturating casts, so that loops over it vectorise:
/// Cody-Waite range reduction `x = n·ln2 + r`, a degree-6 polynomial for e^r on
/// |r| ≤ ln2/2, and 2^n built from the bits of the rounded `x·log2(e) + 1.5·2^23` (whose
/// low mantissa bits hold `n`). Relative error below 3e-7 on [-87, 88]; inputs are clamped
/// to that range.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    const ROUND: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer
    let x = x.clamp(-87.0, 88.0);
    let t = x * LOG2E + ROUND;
    let n = t - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // t's bits are 0x4B40_0000 + n for |n| < 2^22.
    let two_n = f32::from_bits(t.to_bits().wrapping_sub(0x4B40_0000).wrapping_add(127) << 23);
    p * two_n
}

/// erf(x) by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7 in exact arithmetic,
/// < 4e-7 evaluated in f32), odd-extended.
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * exp(-a * a);
    y.copysign(x)
}

/// `row = gelu(row + bias)` with GELU(x) = x · Φ(x) = x/2 · (1 + erf(x/√2)) (Hendrycks &
/// Gimpel 2016; BERT's `gelu`).
#[inline(always)]
pub fn bias_gelu(row: &mut [f32], bias: &[f32]) {
    row.iter_mut().zip(bias).for_each(|(v, b)| {
        let x = *v + b;
        *v = 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
    });
}

/// Softmax of one row without the final division: `row = exp(row − max)`, returning the
/// sum, so the caller scales whatever the probabilities are multiplied into (the `[L, d]`
/// attention output instead of the `[L, L]` scores: `d/L` of the divisions, as
/// FlashAttention defers its normalisation). Three vectorised passes (max; exp; sum): a
/// running `sum += exp(..)` in the exp loop is a serial f32 dependence the compiler may not
/// reorder, which kept every exp scalar (23 % of the bf16 encoder's time in a profile).
#[inline(always)]
pub fn softmax_unnormalized(row: &mut [f32]) -> f32 {
    let max = lanes_fold(row, f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    lanes_fold(row, 0.0, |a, b| a + b)
}

/// [`softmax_unnormalized`] of every `l`-float row of `scores`, each row's sum into `sums`.
/// A plain loop in an always-inlined function, so that it compiles inside [`elementwise`]'s
/// instruction set: the same loop as an iterator `for_each` closure was outlined and ran
/// as 4-lane SSE (seen in a profile: 17 % of the bf16 encoder's time).
#[inline(always)]
pub fn softmax_rows(scores: &mut [f32], l: usize, sums: &mut [f32]) {
    for (row, sum) in scores.chunks_exact_mut(l).zip(sums) {
        *sum = softmax_unnormalized(row);
    }
}

/// Lanes of the independent partial results in [`lanes_fold`] and [`shifted_sums`]: 16 f32
/// (one AVX-512 register, two AVX2 ones).
const LANES: usize = 16;

/// `fold(init, f)` over `row` with [`LANES`] independent accumulators combined at the end,
/// so the loop vectorises (a single accumulator is a serial dependence). For `+` the sum is
/// pairwise-ish and no less accurate than the serial one.
#[inline(always)]
fn lanes_fold(row: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; LANES];
    let chunks = row.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = f(*a, v);
        }
    }
    let mut r = tail.iter().fold(init, |a, &v| f(a, v));
    for a in acc {
        r = f(r, a);
    }
    r
}

/// In-place LayerNorm of one row: `(x − mean) / sqrt(var + eps) · g + b`, the statistics in
/// one pass (shifted by the first element), then one pass to normalise.
#[inline(always)]
pub fn layer_norm_row(row: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    let (shift, sums) = shifted_sums(row);
    normalize_shifted(row, shift, sums, g, b, eps);
}

/// `x = LayerNorm(x + y + bias)` for one row (BERT's residual + `LayerNorm`): the sum, its
/// statistics in one pass (16 independent partial sums), then one pass to normalise.
#[inline(always)]
pub fn residual_norm_row(x: &mut [f32], y: &[f32], bias: &[f32], g: &[f32], b: &[f32], eps: f32) {
    x.iter_mut().zip(y).zip(bias).for_each(|((a, &yv), &c)| *a += yv + c);
    let (shift, sums) = shifted_sums(x);
    normalize_shifted(x, shift, sums, g, b, eps);
}

/// Σ(x − x₀) and Σ(x − x₀)² of a row, and x₀, with [`LANES`] independent partial sums (so
/// the loop vectorises).
#[inline(always)]
fn shifted_sums(row: &[f32]) -> (f32, (f32, f32)) {
    let shift = row.first().copied().unwrap_or(0.0);
    let (mut s, mut s2) = ([0.0f32; LANES], [0.0f32; LANES]);
    let chunks = row.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for ((s, s2), &v) in s.iter_mut().zip(&mut s2).zip(c) {
            let d = v - shift;
            *s += d;
            *s2 += d * d;
        }
    }
    let (mut ts, mut ts2) = (0.0f32, 0.0f32);
    for &v in tail {
        let d = v - shift;
        ts += d;
        ts2 += d * d;
    }
    (shift, (ts + s.iter().sum::<f32>(), ts2 + s2.iter().sum::<f32>()))
}

#[inline(always)]
fn normalize_shifted(row: &mut [f32], shift: f32, (s, s2): (f32, f32), g: &[f32], b: &[f32], eps: f32) {
    let n = row.len().max(1) as f32;
    let mean_d = s / n;
    let var = (s2 / n - mean_d * mean_d).max(0.0);
    let mean = shift + mean_d;
    let inv = 1.0 / (var + eps).sqrt();
    row.iter_mut().zip(g).zip(b).for_each(|((v, g), b)| *v = (*v - mean) * inv * g + b);
}

/// Which instruction set the element-wise loops run under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Isa {
    /// AVX-512 (pulp `V4`).
    Avx512,
    /// AVX2 + FMA (pulp `V3`).
    Avx2,
    /// Whatever the binary was compiled for (no runtime dispatch available).
    Baseline,
}

/// The instruction set [`elementwise`] uses in this process, measured on first use.
pub fn elementwise_choice() -> Isa {
    static CHOICE: OnceLock<Isa> = OnceLock::new();
    *CHOICE.get_or_init(|| match std::env::var("FIXDEX_ELEMENTWISE").as_deref() {
        Ok("avx512") if has_v4() => Isa::Avx512,
        Ok("avx2") if has_v3() => Isa::Avx2,
        _ => measure_choice(),
    })
}

/// Runs `f` (plain loops over the kernels above, inlined into it) compiled for the
/// instruction set of [`elementwise_choice`]. `FIXDEX_ELEMENTWISE=avx512|avx2` forces one
/// (when the CPU has it), for benchmarks.
#[inline(always)]
pub fn elementwise<R>(f: impl FnOnce() -> R) -> R {
    run_with(elementwise_choice(), f)
}

#[inline(always)]
fn run_with<R>(isa: Isa, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    match isa {
        Isa::Avx512 => {
            if let Some(v4) = pulp::x86::V4::try_new() {
                return v4.vectorize(f);
            }
        }
        Isa::Avx2 => {
            if let Some(v3) = pulp::x86::V3::try_new() {
                return v3.vectorize(f);
            }
        }
        Isa::Baseline => {}
    }
    f()
}

fn has_v4() -> bool {
    #[cfg(target_arch = "x86_64")]
    return pulp::x86::V4::try_new().is_some();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

fn has_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    return pulp::x86::V3::try_new().is_some();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Times representative element-wise work under each available instruction set (best of
/// five after a warm-up) and returns the fastest; AVX2 wins ties within 3 %.
fn measure_choice() -> Isa {
    if !has_v3() {
        return Isa::Baseline;
    }
    if !has_v4() {
        return Isa::Avx2;
    }
    let (rows, h, i) = (16, 384, 1536);
    let mut up: Vec<f32> = (0..rows * i).map(|k| ((k * 37) % 200) as f32 / 50.0 - 2.0).collect();
    let bias = vec![0.01f32; i];
    let mut x: Vec<f32> = (0..rows * h).map(|k| ((k * 11) % 100) as f32 / 25.0 - 2.0).collect();
    let y = x.clone();
    let (g, b) = (vec![1.0f32; h], vec![0.0f32; h]);
    let mut time = |isa: Isa| {
        let mut best = f64::INFINITY;
        for round in 0..6 {
            let t = Instant::now();
            // `#[inline(always)]`, as in the encoder: otherwise the closure may be compiled
            // outside the `#[target_feature]` function and both timings measure SSE2 code.
            run_with(
                isa,
                #[inline(always)]
                || {
                    for r in up.chunks_exact_mut(i) {
                        bias_gelu(r, &bias);
                    }
                    for (r, yr) in x.chunks_exact_mut(h).zip(y.chunks_exact(h)) {
                        residual_norm_row(r, yr, &b, &g, &b, 1e-12);
                    }
                },
            );
            if round > 0 {
                best = best.min(t.elapsed().as_secs_f64());
            }
        }
        best
    };
    let (v3, v4) = (time(Isa::Avx2), time(Isa::Avx512));
    if v4 < v3 * 0.97 { Isa::Avx512 } else { Isa::Avx2 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf in f64 to ~1e-15: the Maclaurin series for |x| ≤ 2.5, else 1 − erfc by its
    /// continued fraction erfc(z) = e^(−z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))).
    fn erf64(x: f64) -> f64 {
        let z = x.abs();
        if z > 2.5 {
            let mut k = z;
            for n in (1..=80).rev() {
                k = z + f64::from(n) / 2.0 / k;
            }
            return x.signum() * (1.0 - (-z * z).exp() / std::f64::consts::PI.sqrt() / k);
        }
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn exp_erf_and_gelu_are_within_their_bounds_under_every_isa() {
        for isa in [Isa::Baseline, Isa::Avx2, Isa::Avx512] {
            let xs: Vec<f32> = (0..20_000).map(|k| -87.0 + k as f32 * 0.008_75).collect();
            let mut e = xs.clone();
            run_with(isa, || e.iter_mut().for_each(|v| *v = exp(*v)));
            for (&x, &got) in xs.iter().zip(&e) {
                let want = f64::from(x).exp();
                assert!(((f64::from(got) - want) / want).abs() < 3e-7, "{isa:?} exp({x}) = {got}, want {want}");
            }
            let xs: Vec<f32> = (0..8_000).map(|k| -8.0 + k as f32 * 0.002).collect();
            let mut gl = xs.clone();
            run_with(isa, || bias_gelu(&mut gl, &vec![0.0; xs.len()]));
            for (&x, &got) in xs.iter().zip(&gl) {
                let x64 = f64::from(x);
                let want = 0.5 * x64 * (1.0 + erf64(x64 / std::f64::consts::SQRT_2));
                let bound = 0.5 * 4e-7 * x64.abs() + 4.0 * f64::from(f32::EPSILON) * want.abs() + 1e-9;
                assert!((f64::from(got) - want).abs() <= bound, "{isa:?} gelu({x}) = {got}, want {want}");
                let z = x * std::f32::consts::FRAC_1_SQRT_2;
                let e = erf(z);
                assert!((f64::from(e) - erf64(f64::from(z))).abs() < 4e-7, "{isa:?} erf({z}) = {e}");
            }
        }
    }

    #[test]
    fn layer_norms_match_the_two_pass_reference_even_with_a_large_mean() {
        let h = 384;
        for offset in [0.0f32, 30.0, -500.0] {
            let x: Vec<f32> = (0..h).map(|k| offset + ((k * 37) % 101) as f32 / 20.0 - 2.5).collect();
            let y: Vec<f32> = (0..h).map(|k| ((k * 13) % 7) as f32 / 10.0).collect();
            let bias: Vec<f32> = (0..h).map(|k| (k % 5) as f32 * 0.01).collect();
            let g: Vec<f32> = (0..h).map(|k| 1.0 + (k % 3) as f32 * 0.1).collect();
            let b: Vec<f32> = (0..h).map(|k| (k % 4) as f32 * 0.05).collect();
            let summed: Vec<f64> = x.iter().zip(&y).zip(&bias).map(|((a, c), d)| f64::from(a + c + d)).collect();
            let mean = summed.iter().sum::<f64>() / h as f64;
            let var = summed.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / h as f64;
            let want: Vec<f64> = summed
                .iter()
                .zip(&g)
                .zip(&b)
                .map(|((v, g), b)| (v - mean) / (var + 1e-12).sqrt() * f64::from(*g) + f64::from(*b))
                .collect();
            for isa in [Isa::Baseline, Isa::Avx2, Isa::Avx512] {
                let mut fused = x.clone();
                run_with(isa, || residual_norm_row(&mut fused, &y, &bias, &g, &b, 1e-12));
                let mut plain: Vec<f32> = summed.iter().map(|&v| v as f32).collect();
                run_with(isa, || layer_norm_row(&mut plain, &g, &b, 1e-12));
                for k in 0..h {
                    assert!((f64::from(fused[k]) - want[k]).abs() < 2e-4, "{isa:?} offset {offset} fused [{k}]");
                    assert!((f64::from(plain[k]) - want[k]).abs() < 2e-4, "{isa:?} offset {offset} plain [{k}]");
                }
            }
        }
    }

    #[test]
    fn unnormalized_softmax_returns_the_sum_of_its_row() {
        let mut r = vec![1.0f32, 3.0, -2.0, 3.0, -100.0];
        let s = softmax_unnormalized(&mut r);
        assert!((r.iter().sum::<f32>() - s).abs() < 1e-6);
        assert_eq!(r[1], 1.0, "the max becomes exp(0)");
        let p: Vec<f32> = r.iter().map(|v| v / s).collect();
        assert!(p[1] > p[0] && p[0] > p[2] && p[1] == p[3] && p[4] >= 0.0);
    }

    #[test]
    fn the_elementwise_choice_is_one_this_cpu_runs() {
        let isa = elementwise_choice();
        match isa {
            Isa::Avx512 => assert!(has_v4()),
            Isa::Avx2 => assert!(has_v3()),
            Isa::Baseline => assert!(!has_v3()),
        }
    }
}
