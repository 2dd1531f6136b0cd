//! Runtime SIMD dispatch without `unsafe` in this crate.

/// Runs `f` compiled for the best SIMD level of this CPU that pulp knows (AVX2 + FMA on
/// x86-64 when present, else the baseline), so plain loops inlined into `f` auto-vectorise
/// with it (pulp's `Arch::dispatch`; the detection result is cached by std).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    pulp::Arch::new().dispatch(f)
}
