//! Runtime SIMD dispatch without `unsafe` (pulp), and the cache prefetch hint (one `unsafe`
//! call of an intrinsic that cannot fault, recorded in ARCHITECTURE.md).

/// Runs `f` compiled for AVX2 + FMA when the CPU has them (pulp's `V3`), else as is, so
/// plain loops inlined into `f` auto-vectorise with 256-bit vectors. Used by exact search.
/// The encoder's element-wise loops choose between AVX-512 and AVX2 by a timing instead
/// ([`crate::embed::kernels::elementwise`]): on Zen 4 they ran ~20 % slower compiled for
/// AVX-512. Graph search and build dispatch with `pulp::Arch`, which picks AVX-512 where
/// present (pulp's `x86-v4` feature).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if let Some(v3) = pulp::x86::V3::try_new() {
        return v3.vectorize(f);
    }
    f()
}

/// Asks the CPU to bring the cache lines of `bytes` into L1 (`prefetcht0` on x86_64; nothing
/// elsewhere). A hint: never faults, changes no memory, returns at once. Graph search calls
/// it for the vectors of a node's unvisited neighbours before scoring them, as hnswlib's
/// `searchBaseLayerST` does (`_mm_prefetch` of the next neighbour's data), so their misses
/// overlap instead of following one another.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64) {
        // SAFETY: `_mm_prefetch` needs SSE, part of every x86_64 CPU (the target's baseline);
        // a prefetch is a hint that never faults and writes nothing, and the address is
        // inside `bytes`.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}
