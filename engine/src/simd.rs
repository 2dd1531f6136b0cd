//! Runtime SIMD dispatch without `unsafe` (pulp), and a software prefetch hint.

/// Runs `f` compiled for AVX2 + FMA when the CPU has them (pulp's `V3`), else as is, so
/// plain loops inlined into `f` auto-vectorise with 256-bit vectors. Used by the encoder's
/// element-wise loops and exact search. Not AVX-512 on purpose: on Zen 4 the encoder's
/// loops ran ~20 % slower compiled for it. Graph search and build dispatch with
/// `pulp::Arch` instead, which picks AVX-512 where present (pulp's `x86-v4` feature).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if let Some(v3) = pulp::x86::V3::try_new() {
        return v3.vectorize(f);
    }
    f()
}

/// Asks the CPU to start loading the first `lines` 64-byte cache lines of `data` into L1
/// (`prefetcht0`), without waiting for them: search calls it for the vectors (or int8
/// codes) of a node's neighbours before scoring them, so their cache misses overlap
/// (hnswlib does the same in `searchBaseLayer`). A hint only: it never faults and changes no
/// result. No-op off x86-64.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(data: &[T], lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let bytes = std::mem::size_of_val(data);
        let base = data.as_ptr().cast::<i8>();
        for off in (0..bytes).step_by(64).take(lines) {
            // SAFETY: prefetcht0 reads nothing architecturally and cannot fault, whatever the
            // address; this one is inside a live slice anyway (off < its size in bytes). SSE
            // is part of x86-64's baseline.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(base.wrapping_add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, lines);
}
