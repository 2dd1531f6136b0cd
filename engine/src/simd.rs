//! Runtime SIMD dispatch without `unsafe` (pulp).

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
