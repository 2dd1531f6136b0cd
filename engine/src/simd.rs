//! Runtime SIMD dispatch without `unsafe` (pulp), and a software prefetch hint.

/// Runs `f` compiled for the best SIMD level of this CPU that pulp knows (AVX2 + FMA on
/// x86-64 when present, else the baseline), so plain loops inlined into `f` auto-vectorise
/// with it (pulp's `Arch::dispatch`; the detection result is cached by std).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    pulp::Arch::new().dispatch(f)
}

/// Asks the CPU to start loading the cache lines of `data[..lines * 16]` (64-byte lines of
/// f32) into L1 (`prefetcht0`), without waiting for them: search calls it for the vectors of
/// a node's neighbours before scoring them, so their cache misses overlap (hnswlib does the
/// same in `searchBaseLayer`). A hint only: it never faults and changes no result. No-op off
/// x86-64.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch(data: &[f32], lines: usize) {
    #[cfg(target_arch = "x86_64")]
    for chunk in data.chunks(16).take(lines) {
        // SAFETY: prefetcht0 reads nothing architecturally and cannot fault, whatever the
        // address; this one is inside a live slice anyway. SSE is part of x86-64's baseline.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(chunk.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, lines);
}
