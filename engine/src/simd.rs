//! Runtime SIMD dispatch without `unsafe` (pulp).

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
