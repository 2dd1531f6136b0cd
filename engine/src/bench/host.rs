//! [`Host`]: the machine benchmark figures were measured on, added to every `fixdex bench`
//! JSON line as `"host"` so that figures from different CPUs are never compared as one
//! (issue 12). Same shape as `host_info()` in scripts/peers/hostinfo.py.

use std::sync::OnceLock;

use serde::Serialize;

/// The machine: CPU model and vendor (`/proc/cpuinfo`), logical CPUs online and usable by
/// this process, and the SIMD features the kernels care about. Unknown values are `None`
/// (`null` in JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Host {
    /// `model name` of `/proc/cpuinfo`, e.g. `Intel(R) Xeon(R) Platinum 8480+`.
    pub cpu_model: Option<String>,
    /// `vendor_id` of `/proc/cpuinfo`, e.g. `GenuineIntel`.
    pub vendor: Option<String>,
    /// Logical CPUs online (`processor` entries of `/proc/cpuinfo`), else [`Self::usable_cpus`].
    pub logical_cpus: Option<usize>,
    /// Logical CPUs this process may run on (`std::thread::available_parallelism`).
    pub usable_cpus: Option<usize>,
    /// `std::env::consts::ARCH`, e.g. `x86_64`.
    pub arch: &'static str,
    /// `std::env::consts::OS`, e.g. `linux`.
    pub os: &'static str,
    /// The SIMD features detected.
    pub features: SimdFeatures,
}

/// SIMD features, by their `/proc/cpuinfo` spellings: detected at run time
/// (`std::is_x86_feature_detected!`), except `amx_bf16`, which is as `/proc/cpuinfo`
/// advertises it (the kernel grants AMX on request): `None` when there is no
/// `/proc/cpuinfo`. All `false` off x86.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SimdFeatures {
    /// AVX2.
    pub avx2: bool,
    /// Fused multiply-add.
    pub fma: bool,
    /// AVX-512 Foundation.
    pub avx512f: bool,
    /// AVX-512 BF16 (`avx512bf16` to the detection macro).
    pub avx512_bf16: bool,
    /// AMX BF16 tiles, as advertised.
    pub amx_bf16: Option<bool>,
}

/// The value of the first `name : value` line of `/proc/cpuinfo` text.
fn field(cpuinfo: &str, name: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim().to_string())
    })
}

/// Processors listed in `/proc/cpuinfo` text.
fn online(cpuinfo: &str) -> usize {
    cpuinfo.lines().filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor")).count()
}

impl Host {
    /// This machine, read once per process (later calls return the same value). Never fails:
    /// what cannot be read is `None`.
    pub fn get() -> &'static Host {
        static HOST: OnceLock<Host> = OnceLock::new();
        HOST.get_or_init(|| Host::from_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()))
    }

    /// This machine as `cpuinfo` (the text of `/proc/cpuinfo`, empty when unreadable)
    /// describes it, with the usable CPUs and SIMD features of the running process.
    pub fn from_cpuinfo(cpuinfo: &str) -> Host {
        let usable = std::thread::available_parallelism().map(std::num::NonZero::get).ok();
        let online = online(cpuinfo);
        let flags = field(cpuinfo, "flags").unwrap_or_default();
        let amx = (!cpuinfo.is_empty()).then(|| flags.split_whitespace().any(|f| f == "amx_bf16"));
        Host {
            cpu_model: field(cpuinfo, "model name"),
            vendor: field(cpuinfo, "vendor_id"),
            logical_cpus: if online > 0 { Some(online) } else { usable },
            usable_cpus: usable,
            arch: std::env::consts::ARCH,
            os: std::env::consts::OS,
            features: SimdFeatures::detect(amx),
        }
    }
}

impl SimdFeatures {
    /// The features of this CPU, with `amx_bf16` as given (from `/proc/cpuinfo`).
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    pub fn detect(amx_bf16: Option<bool>) -> SimdFeatures {
        use std::arch::is_x86_feature_detected as has;
        SimdFeatures {
            avx2: has!("avx2"),
            fma: has!("fma"),
            avx512f: has!("avx512f"),
            avx512_bf16: has!("avx512bf16"),
            amx_bf16,
        }
    }

    /// All `false` off x86 (`amx_bf16` included).
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
    pub fn detect(_amx_bf16: Option<bool>) -> SimdFeatures {
        SimdFeatures { avx2: false, fma: false, avx512f: false, avx512_bf16: false, amx_bf16: Some(false) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU @ 2.0GHz\n\
                           flags\t\t: fpu avx2 amx_bf16\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";

    #[test]
    fn cpuinfo_fields_and_processor_count() {
        let h = Host::from_cpuinfo(CPUINFO);
        assert_eq!(h.cpu_model.as_deref(), Some("Test CPU @ 2.0GHz"));
        assert_eq!(h.vendor.as_deref(), Some("GenuineIntel"));
        assert_eq!(h.logical_cpus, Some(2));
        if cfg!(target_arch = "x86_64") {
            assert_eq!(h.features.amx_bf16, Some(true));
        }
    }

    #[test]
    fn without_cpuinfo_values_are_unknown() {
        let h = Host::from_cpuinfo("");
        assert_eq!((h.cpu_model, h.vendor), (None, None));
        assert_eq!(h.logical_cpus, h.usable_cpus);
        if cfg!(target_arch = "x86_64") {
            assert_eq!(h.features.amx_bf16, None);
        }
        let json = serde_json::to_value(Host::get()).unwrap();
        assert!(json["features"]["avx2"].is_boolean() && json["arch"] == std::env::consts::ARCH);
    }
}
