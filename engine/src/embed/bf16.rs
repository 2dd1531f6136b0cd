//! bf16 GEMM for the encoder's projections on CPUs with AVX512-BF16 (AMD Zen 4 and later,
//! Intel Cooper Lake / Sapphire Rapids and later).
//!
//! `C[m, n] = A[m, k] · B[k, n]`: `B` (a weight matrix) is rounded to bf16 once, at load, and
//! packed into panels of [`NR`] columns; `A` (activations) is rounded to bf16 per call, [`MR`]
//! rows at a time; `vdpbf16ps` multiplies pairs of bf16 and accumulates in f32, so each
//! output is an f32 sum of bf16 × bf16 products (the products themselves are exact in f32).
//! One instruction does 32 multiply-adds where an f32 FMA does 16, so the peak is twice
//! that of f32. Rounding is to nearest, ties to even (as `vcvtne2ps2bf16` and PyTorch's
//! `torch.bfloat16` conversion). The kernel is the classic register-blocked micro-kernel
//! (Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", TOMS 2008):
//! `MR × NR` accumulators stay in registers over the whole `k` loop.
//!
//! Accuracy: on all-MiniLM-L6-v2 the embeddings keep cosine ≥ 0.999 to the f32 reference
//! on every one of the 2,000 reference snippets (measured by `fixdex bench embed
//! --precision bf16 --reference …`; tested on the tiny model against the f32 path).
//!
//! Safety: the kernel is safe code compiled with `#[target_feature]`; the `unsafe` here is
//! its call (reached only through [`gemm`]) and the rounding intrinsic's ([`round_row`]),
//! each after the CPU features are checked. pulp (our SIMD layer) has no safe wrapper for
//! `vdpbf16ps` or `vcvtne2ps2bf16`, so these are two of the workspace's five
//! `#[allow(unsafe_code)]` sites (with the mmap, the prefetch hint and the AMX permission
//! request; DESIGN.md allows the mmap and measured kernels: recorded exceptions).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m512, __m512bh, _mm512_cvtne2ps_pbh, _mm512_dpbf16_ps, _mm512_setzero_ps};
use std::sync::OnceLock;

use rayon::prelude::*;

pub mod amx;

/// Rows of `A` per micro-kernel call.
pub const MR: usize = 8;
/// Columns of `B` per panel: two 16-lane registers.
pub const NR: usize = 32;

/// Whether this CPU runs the kernel (AVX512F and AVX512_BF16), detected once.
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bf16")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// `x` rounded to bf16 (the top 16 bits of an f32), to nearest with ties to even; NaN stays
/// NaN (quieted), infinities stay infinite.
#[inline(always)]
pub fn to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    (b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// bf16 bits back to f32 (exact).
#[inline(always)]
pub fn from_bf16(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// A `[k, n]` matrix rounded to bf16 and packed for the kernel: `ceil(n / NR)` panels; panel
/// `j` holds, for each pair of rows `(2p, 2p + 1)`, [`NR`] 32-bit words whose low half is
/// row `2p` and high half row `2p + 1` of columns `j·NR ..`; `k` is padded to even and `n` to
/// a multiple of `NR` with zeros; the pairs are padded to a multiple of [`amx::KP_STEP`] (16)
/// so the AMX kernel reads whole tiles. Memory: `2 · k · n` bytes (half of f32), plus
/// padding.
#[derive(Clone)]
pub struct PackedB {
    k: usize,
    n: usize,
    /// `ceil(k / 2)` row pairs, rounded up to a multiple of [`amx::KP_STEP`].
    kp: usize,
    data: Vec<u32>,
}

impl std::fmt::Debug for PackedB {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackedB").field("k", &self.k).field("n", &self.n).finish_non_exhaustive()
    }
}

impl PackedB {
    /// Packs `b`, `[k, n]` row-major f32.
    ///
    /// # Panics
    /// When `b.len() != k · n`.
    pub fn pack(b: &[f32], k: usize, n: usize) -> PackedB {
        assert_eq!(b.len(), k * n, "PackedB::pack: {} floats for a [{k}, {n}] matrix", b.len());
        let kp = k.div_ceil(2).next_multiple_of(amx::KP_STEP);
        let mut data = vec![0u32; n.div_ceil(NR) * kp * NR];
        for (r, row) in b.chunks_exact(n.max(1)).enumerate() {
            let shift = if r % 2 == 0 { 0 } else { 16 };
            for (j, &v) in row.iter().enumerate() {
                data[((j / NR) * kp + r / 2) * NR + j % NR] |= u32::from(to_bf16(v)) << shift;
            }
        }
        PackedB { k, n, kp, data }
    }

    /// Packs the transpose of `w`, `[n, k]` row-major f32 (PyTorch's `Linear` weight
    /// `[out, in]`), as [`PackedB::pack`] packs a `[k, n]` matrix: the result multiplies
    /// `A[m, k]` into `A · wᵀ`.
    ///
    /// # Panics
    /// When `w.len() != n · k`.
    pub fn pack_transposed(w: &[f32], n: usize, k: usize) -> PackedB {
        assert_eq!(w.len(), k * n, "PackedB::pack_transposed: {} floats for a [{n}, {k}] matrix", w.len());
        PackedB::pack_transposed_rows(w.chunks_exact(k.max(1)), n, k)
    }

    /// [`PackedB::pack_transposed`] of the matrix whose `n` rows of `k` floats `rows`
    /// yields (e.g. the query, key and value weights stacked without a copy).
    ///
    /// # Panics
    /// When `rows` yields other than `n` rows of `k` floats.
    pub fn pack_transposed_rows<'a>(rows: impl Iterator<Item = &'a [f32]>, n: usize, k: usize) -> PackedB {
        let kp = k.div_ceil(2).next_multiple_of(amx::KP_STEP);
        let mut data = vec![0u32; n.div_ceil(NR) * kp * NR];
        let mut seen = 0;
        for (j, col) in rows.enumerate() {
            assert!(j < n && col.len() == k, "PackedB::pack_transposed_rows: row {j} of {} floats", col.len());
            seen += 1;
            for (r, &v) in col.iter().enumerate() {
                let shift = if r % 2 == 0 { 0 } else { 16 };
                data[((j / NR) * kp + r / 2) * NR + j % NR] |= u32::from(to_bf16(v)) << shift;
            }
        }
        assert_eq!(seen, n, "PackedB::pack_transposed_rows: {seen} rows for {n}");
        PackedB { k, n, kp, data }
    }

    /// Rows (`k`) of the matrix.
    pub fn rows(&self) -> usize {
        self.k
    }

    /// Columns (`n`) of the matrix.
    pub fn cols(&self) -> usize {
        self.n
    }
}

/// `dst[m, n] = a[m, k] · b` (`Accum::Replace`), `a` and `dst` row-major f32; rows are split
/// over the rayon pool when `parallel` and there are enough of them. `a` is rounded to bf16
/// ([`to_bf16`]); sums are f32.
///
/// # Panics
/// When the CPU lacks the features ([`available`] is false) or `a.len() != m · k` or
/// `dst.len() != m · n`.
pub fn gemm(dst: &mut [f32], a: &[f32], m: usize, b: &PackedB, parallel: bool) {
    assert!(available(), "bf16 GEMM needs AVX512F and AVX512_BF16 (check bf16::available() first)");
    assert_eq!(a.len(), m * b.k, "bf16 gemm: A is not [{m}, {}]", b.k);
    assert_eq!(dst.len(), m * b.n, "bf16 gemm: C is not [{m}, {}]", b.n);
    if m == 0 || b.n == 0 {
        return;
    }
    let threads = rayon::current_num_threads();
    let block = if amx::available() { amx::BLOCK_ROWS } else { MR };
    if parallel && threads > 1 && m >= 4 * block {
        // Row blocks that are a multiple of the kernel's rows, about two per thread.
        let rows = (m.div_ceil(2 * threads)).div_ceil(block) * block;
        dst.par_chunks_mut(rows * b.n)
            .zip(a.par_chunks(rows * b.k))
            .for_each(|(d, a)| gemm_rows(d, a, d.len() / b.n, b));
    } else {
        gemm_rows(dst, a, m, b);
    }
}

/// Which kernel [`gemm`] runs on this CPU: `"amx"` ([`amx`]), `"avx512-bf16"`, or `None`
/// when neither ([`available`] is false).
pub fn kernel_name() -> Option<&'static str> {
    if amx::available() { Some("amx") } else { available().then_some("avx512-bf16") }
}

/// [`gemm`] on this thread: AMX tiles where [`amx::available`], else the AVX-512 kernel.
fn gemm_rows(dst: &mut [f32], a: &[f32], m: usize, b: &PackedB) {
    if amx::available() {
        amx::gemm_rows(dst, a, m, b);
    } else {
        gemm_rows_avx512(dst, a, m, b);
    }
}

/// [`gemm_rows`] with the AVX-512 micro-kernel ([`kernel`]).
fn gemm_rows_avx512(dst: &mut [f32], a: &[f32], m: usize, b: &PackedB) {
    let (k, n, kp) = (b.k, b.n, b.kp);
    let mut apack = vec![0u32; kp * MR];
    let mut tile = [[0f32; NR]; MR];
    for m0 in (0..m).step_by(MR) {
        let rows = MR.min(m - m0);
        if rows < MR {
            apack.fill(0);
        }
        for r in 0..rows {
            let row = &a[(m0 + r) * k..][..k];
            let (pairs, odd) = row.split_at(k / 2 * 2);
            for (p, pair) in pairs.chunks_exact(2).enumerate() {
                apack[p * MR + r] = u32::from(to_bf16(pair[0])) | (u32::from(to_bf16(pair[1])) << 16);
            }
            if let Some(&last) = odd.first() {
                apack[(k / 2) * MR + r] = u32::from(to_bf16(last));
            }
        }
        for (panel, j0) in (0..n).step_by(NR).enumerate() {
            let cols = NR.min(n - j0);
            kernel(&apack, &b.data[panel * kp * NR..][..kp * NR], &mut tile);
            for (r, t) in tile.iter().enumerate().take(rows) {
                let out = &mut dst[(m0 + r) * n + j0..][..cols];
                // A full panel is copied as a fixed-size array (two vector stores); a
                // runtime-length copy is a `memmove` call per row, 7 % of the whole
                // encoder's time in a profile on an Intel Xeon.
                match <&mut [f32; NR]>::try_from(&mut *out) {
                    Ok(full) => *full = *t,
                    Err(_) => out.copy_from_slice(&t[..cols]),
                }
            }
        }
    }
}

/// `src` rounded to bf16 into `dst` (same length), as [`to_bf16`] but 32 values per
/// instruction (`vcvtne2ps2bf16`: nearest, ties to even; denormal inputs become zero).
///
/// # Panics
/// When the lengths differ or [`available`] is false.
#[allow(unsafe_code)]
pub fn round_row(dst: &mut [u16], src: &[f32]) {
    assert_eq!(dst.len(), src.len(), "round_row: lengths");
    assert!(available(), "bf16 rounding needs AVX512F and AVX512_BF16 (check bf16::available() first)");
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: calling a `#[target_feature]` function needs those features: the CPU has
        // AVX512F and AVX512_BF16 (checked just above). The function itself is safe code.
        unsafe { round_row_avx512(dst, src) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("available() is false off x86_64");
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
fn round_row_avx512(dst: &mut [u16], src: &[f32]) {
    let mut d = dst.chunks_exact_mut(32);
    let mut s = src.chunks_exact(32);
    for (d, s) in (&mut d).zip(&mut s) {
        let lo: __m512 = bytemuck::cast(<[f32; 16]>::try_from(&s[..16]).expect("16 floats"));
        let hi: __m512 = bytemuck::cast(<[f32; 16]>::try_from(&s[16..]).expect("16 floats"));
        let v: [u16; 32] = bytemuck::cast(_mm512_cvtne2ps_pbh(hi, lo));
        d.copy_from_slice(&v);
    }
    for (d, &s) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *d = to_bf16(s);
    }
}

/// `tile = apack · bpanel` for one `MR × NR` block: `apack` is `[kp][MR]` row pairs of `A`,
/// `bpanel` `[kp][NR]` row pairs of `B`, both as packed bf16 pairs.
///
/// # Panics
/// When the slices are not `kp · MR` and `kp · NR` words for the same `kp`.
#[inline]
#[allow(unsafe_code)]
fn kernel(apack: &[u32], bpanel: &[u32], tile: &mut [[f32; NR]; MR]) {
    assert_eq!(apack.len() / MR, bpanel.len() / NR);
    assert!(apack.len().is_multiple_of(MR) && bpanel.len().is_multiple_of(NR));
    #[cfg(target_arch = "x86_64")]
    {
        assert!(available());
        // SAFETY: calling a `#[target_feature]` function needs those features: the CPU has
        // AVX512F and AVX512_BF16 (checked just above). The kernel itself is safe code.
        unsafe { kernel_avx512(apack, bpanel, tile) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("available() is false off x86_64");
}

/// The AVX512-BF16 micro-kernel: `MR × 2` f32 accumulators of 16 lanes, one `vdpbf16ps`
/// per accumulator and row pair. A safe function: registers are built from and written back
/// to arrays with `bytemuck` casts (no raw-pointer loads); only calling it needs the CPU
/// features, which [`kernel`] checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
fn kernel_avx512(apack: &[u32], bpanel: &[u32], tile: &mut [[f32; NR]; MR]) {
    let mut acc = [[_mm512_setzero_ps(); 2]; MR];
    for (a, b) in apack.chunks_exact(MR).zip(bpanel.chunks_exact(NR)) {
        let half = |h: &[u32]| -> __m512bh { bytemuck::cast(<[u32; 16]>::try_from(h).expect("16 words")) };
        let (b0, b1) = (half(&b[..16]), half(&b[16..]));
        for (r, acc) in acc.iter_mut().enumerate() {
            // One 32-bit word (a bf16 pair of A) in every lane.
            let ar: __m512bh = bytemuck::cast([a[r]; 16]);
            acc[0] = _mm512_dpbf16_ps(acc[0], ar, b0);
            acc[1] = _mm512_dpbf16_ps(acc[1], ar, b1);
        }
    }
    for (t, acc) in tile.iter_mut().zip(&acc) {
        t[..16].copy_from_slice(&bytemuck::cast::<__m512, [f32; 16]>(acc[0]));
        t[16..].copy_from_slice(&bytemuck::cast::<__m512, [f32; 16]>(acc[1]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_nearest_even() {
        assert_eq!(from_bf16(to_bf16(1.0)), 1.0);
        // 1 + 2^-8 is halfway between two bf16 values (1 and 1 + 2^-7): ties go to even (1).
        assert_eq!(from_bf16(to_bf16(1.0 + 1.0 / 256.0)), 1.0);
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): goes up.
        assert_eq!(from_bf16(to_bf16(1.0 + 3.0 / 256.0)), 1.0 + 1.0 / 64.0);
        assert!(from_bf16(to_bf16(f32::NAN)).is_nan());
        assert_eq!(from_bf16(to_bf16(f32::INFINITY)), f32::INFINITY);
        for x in [0.1f32, -3.7, 1234.5, 1e-20] {
            assert!(((from_bf16(to_bf16(x)) - x) / x).abs() <= 1.0 / 256.0, "{x}");
        }
    }

    /// Against a naive f64 product of the bf16-rounded inputs, over shapes that exercise
    /// every edge of both kernels: rows not a multiple of MR (8) or of the AMX block (32),
    /// columns not a multiple of NR, odd k, k not a multiple of 32 pairs, the encoder's
    /// shapes. Each kernel this CPU runs is checked on its own, and `gemm` (the dispatch,
    /// in parallel and not).
    #[test]
    fn matches_naive_product_of_rounded_inputs() {
        // Without AVX512_BF16 the kernel is never chosen and refuses to run.
        if !available() {
            assert_refused(|| gemm(&mut [0.0], &[1.0], 1, &PackedB::pack(&[1.0], 1, 1), false));
        }
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let shapes = [(1, 1, 1), (9, 7, 33), (40, 64, 96), (13, 384, 40), (70, 100, 50), (33, 1536, 64), (64, 384, 96)];
        for (m, k, n) in shapes.into_iter().filter(|_| available()) {
            let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rnd()).collect();
            let packed = PackedB::pack(&b, k, n);
            let r = |x: f32| f64::from(from_bf16(to_bf16(x)));
            let check = |c: &[f32], what: &str| {
                for i in 0..m {
                    for j in 0..n {
                        let want: f64 = (0..k).map(|x| r(a[i * k + x]) * r(b[x * n + j])).sum();
                        let got = f64::from(c[i * n + j]);
                        let tol = 1e-5 * (k as f64).sqrt();
                        assert!((got - want).abs() <= tol, "{what} [{m},{k},{n}] ({i},{j}): {got} vs {want}");
                    }
                }
            };
            let mut c = vec![f32::NAN; m * n];
            gemm_rows_avx512(&mut c, &a, m, &packed);
            check(&c, "avx512");
            if amx::available() {
                let mut c = vec![f32::NAN; m * n];
                amx::gemm_rows(&mut c, &a, m, &packed);
                check(&c, "amx");
            }
            for parallel in [false, true] {
                let mut c = vec![f32::NAN; m * n];
                gemm(&mut c, &a, m, &packed, parallel);
                check(&c, "gemm");
            }
        }
    }

    /// Packing `wᵀ` from `w` is packing the transposed matrix.
    #[test]
    fn pack_transposed_is_pack_of_the_transpose() {
        let (n, k) = (37, 21);
        let w: Vec<f32> = (0..n * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let mut t = vec![0f32; k * n];
        for j in 0..n {
            for r in 0..k {
                t[r * n + j] = w[j * k + r];
            }
        }
        let (a, b) = (PackedB::pack_transposed(&w, n, k), PackedB::pack(&t, k, n));
        assert_eq!((a.k, a.n, a.kp, &a.data), (b.k, b.n, b.kp, &b.data));
    }

    /// The vector rounding is the scalar one (nearest, ties to even) on normal numbers, at
    /// every length (the 32-wide body and the scalar tail).
    #[test]
    fn vector_rounding_matches_scalar() {
        if !available() {
            assert_refused(|| round_row(&mut [0], &[1.0]));
        }
        let src: Vec<f32> = (0..100).map(|i| (i as f32 - 50.0) * 0.037 + 1.0 / 256.0 * (i % 3) as f32).collect();
        for len in [0, 1, 31, 32, 33, 64, 100].into_iter().filter(|_| available()) {
            let mut dst = vec![0u16; len];
            round_row(&mut dst, &src[..len]);
            let want: Vec<u16> = src[..len].iter().map(|&x| to_bf16(x)).collect();
            assert_eq!(dst, want, "len {len}");
        }
    }

    /// `f` panics with the message that names the missing CPU features.
    fn assert_refused(f: impl FnOnce() + std::panic::UnwindSafe) {
        let err = std::panic::catch_unwind(f).expect_err("ran without AVX512_BF16");
        let msg = err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()));
        assert!(msg.unwrap_or_default().contains("AVX512"), "refusal names the features");
    }

    /// `FIXDEX_AMX` names the kernel that ran; on a CPU with AMX (and the OS grant) it is
    /// chosen unless turned off.
    #[test]
    fn kernel_name_says_which_ran() {
        match kernel_name() {
            Some("amx") => assert!(amx::available()),
            Some("avx512-bf16") => assert!(available() && !amx::available()),
            None => assert!(!available()),
            Some(other) => panic!("unknown kernel {other}"),
        }
    }
}
