//! Choosing the projections' precision by measured speed, not by CPU flags alone.
//!
//! bf16 projections ([`super::bf16`]) need AVX512_BF16, but having the instruction does not
//! make them faster: on AMD Zen 4 they ran 1.5× the f32 path, on an Intel Xeon (Sapphire
//! Rapids class, 2-vCPU VM) 0.7× (issue 12). [`measure`] times the encoder's largest
//! projection (`[T, H] · [H, I]`, the feed-forward up-projection, on one thread as the
//! encoder runs it per group of sequences) in f32 (faer) and in bf16, and [`prefer_bf16`]
//! says whether bf16 won by a margin. Cost: ~0.1 s (one warm-up and the best of three of
//! each on synthetic matrices of the model's shape); nothing is cached across processes.

use std::time::Instant;

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

use super::bf16::{self, PackedB};

/// What [`measure`] found.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// Throughput of the f32 projection, GFLOP/s on one thread.
    pub f32_gflops: f64,
    /// Throughput of the bf16 projection, GFLOP/s on one thread; `None` when the CPU
    /// cannot run it ([`bf16::available`]).
    pub bf16_gflops: Option<f64>,
    /// The bf16 kernel timed ([`bf16::kernel_name`]: `"amx"` or `"avx512-bf16"`).
    pub bf16_kernel: Option<&'static str>,
}

/// bf16 must beat f32 by this factor to be chosen: below it, the gain does not pay for the
/// small loss of accuracy (cosine ≥ 0.999 instead of ~1 − 1e-7 to the reference).
pub const BF16_MARGIN: f64 = 1.1;

impl Calibration {
    /// Whether bf16 is available and at least [`BF16_MARGIN`] × as fast as f32.
    pub fn prefer_bf16(&self) -> bool {
        self.bf16_gflops.is_some_and(|b| b >= BF16_MARGIN * self.f32_gflops)
    }
}

/// Times `[tokens, hidden] · [hidden, inter]` in f32 and (when available) bf16 on the
/// calling thread; best of three after one warm-up, GFLOP/s = `2 · tokens · hidden · inter`
/// / seconds / 1e9.
pub fn measure(tokens: usize, hidden: usize, inter: usize) -> Calibration {
    let a: Vec<f32> = (0..tokens * hidden).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
    let w: Vec<f32> = (0..hidden * inter).map(|i| ((i * 104_729) % 1000) as f32 / 1000.0 - 0.5).collect();
    let mut c = vec![0f32; tokens * inter];
    let flops = 2.0 * (tokens * hidden * inter) as f64;
    let f32_s = best_of(|| {
        matmul(
            MatMut::from_row_major_slice_mut(&mut c, tokens, inter),
            Accum::Replace,
            MatRef::from_row_major_slice(&a, tokens, hidden),
            MatRef::from_row_major_slice(&w, hidden, inter),
            1.0,
            Par::Seq,
        );
    });
    let bf16_s = bf16::available().then(|| {
        let packed = PackedB::pack(&w, hidden, inter);
        best_of(|| bf16::gemm(&mut c, &a, tokens, &packed, false))
    });
    Calibration {
        f32_gflops: flops / f32_s / 1e9,
        bf16_gflops: bf16_s.map(|s| flops / s / 1e9),
        bf16_kernel: bf16::kernel_name(),
    }
}

/// [`measure`] at all-MiniLM-L6-v2's shape (768 tokens, H 384, I 1536) and whether bf16
/// should run: the rule of `--precision auto`.
pub fn prefer_bf16() -> (bool, Calibration) {
    let c = measure(768, 384, 1536);
    (c.prefer_bf16(), c)
}

/// Seconds of the fastest of three runs of `f`, after one warm-up run.
fn best_of(mut f: impl FnMut()) -> f64 {
    f();
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_measures_both_paths_and_applies_the_margin() {
        let c = measure(64, 32, 96);
        assert!(c.f32_gflops.is_finite() && c.f32_gflops > 0.0);
        assert_eq!(c.bf16_gflops.is_some(), bf16::available());
        let with = |b: f64| Calibration { f32_gflops: 10.0, bf16_gflops: Some(b), bf16_kernel: Some("avx512-bf16") };
        assert!(with(11.0).prefer_bf16());
        assert!(!with(10.9).prefer_bf16());
        assert!(!Calibration { f32_gflops: 10.0, bf16_gflops: None, bf16_kernel: None }.prefer_bf16());
    }
}
