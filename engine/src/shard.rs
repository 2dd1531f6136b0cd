//! Sharded jobs (design decision 7): record → shard by a stable hash of its id, so `n`
//! independent jobs each take one shard and together cover the whole set exactly once:
//! `fixdex index --shard` (records of a corpus) and `fixdex eval defects4j --shard` (bugs).
//!
//! Shard of a record: `FNV-1a-64(id) mod n` ([`crate::id_hash`]); stable across machines,
//! builds and versions. `--shard auto/n` takes the index from the scheduler:
//! `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job) or `SLURM_ARRAY_TASK_ID` (Slurm array).

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A malformed or unresolvable `--shard` specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {spec}: {reason}")]
pub struct ShardError {
    /// The specification as given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

type Result<T> = std::result::Result<T, ShardError>;

/// Environment variables read by `--shard auto/n`, in order.
pub const SCHEDULER_VARS: [&str; 2] = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"];

/// Placeholder in an output path replaced by the zero-padded shard index.
pub const SHARD_PLACEHOLDER: &str = "{shard}";

/// One shard of `count`: records whose id hashes to `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, in `0..count`.
    pub index: u32,
    /// Number of shards, ≥ 1.
    pub count: u32,
}

impl Shard {
    /// Whether the record with `id` belongs to this shard.
    pub fn owns(&self, id: &str) -> bool {
        crate::id_hash(id) % u64::from(self.count) == u64::from(self.index)
    }

    /// Resolves `auto/n` (or `i/n`) using `env` to look up scheduler variables.
    ///
    /// # Errors
    /// [`ShardError`] for a malformed spec, an index out of range, or `auto` with no
    /// scheduler variable set.
    pub fn parse_with_env(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard> {
        let bad = |reason: String| ShardError { spec: spec.to_string(), reason };
        let (i, n) = spec.split_once('/').ok_or_else(|| bad("expected i/n or auto/n, e.g. 0/4".into()))?;
        let count: u32 = n.trim().parse().map_err(|_| bad(format!("`{n}` is not a shard count")))?;
        let index = if i.trim() == "auto" { from_scheduler(&env).map_err(bad)? } else { i.trim().to_string() };
        let index: u32 = index.parse().map_err(|_| bad(format!("`{index}` is not a shard index")))?;
        if count == 0 {
            return Err(bad("the shard count must be at least 1".into()));
        }
        if index >= count {
            return Err(bad(format!("shard index {index} is not in 0..{count} (0-based: 0 to {})", count - 1)));
        }
        Ok(Shard { index, count })
    }

    /// `path` with [`SHARD_PLACEHOLDER`] replaced by the zero-padded index (`007` of 100).
    pub fn apply_to_path(&self, path: &Path) -> PathBuf {
        let width = (self.count.max(2) - 1).to_string().len();
        let s = path.to_string_lossy().replace(SHARD_PLACEHOLDER, &format!("{:0width$}", self.index));
        PathBuf::from(s)
    }
}

fn from_scheduler(env: &impl Fn(&str) -> Option<String>) -> std::result::Result<String, String> {
    SCHEDULER_VARS.iter().find_map(|v| env(v)).ok_or_else(|| {
        format!(
            "`auto` needs {} (Kubernetes Indexed Job) or {} (Slurm array) set",
            SCHEDULER_VARS[0], SCHEDULER_VARS[1]
        )
    })
}

impl FromStr for Shard {
    type Err = ShardError;

    /// Parses `i/n` or `auto/n`, reading the process environment for `auto`.
    fn from_str(s: &str) -> Result<Shard> {
        Shard::parse_with_env(s, |k| std::env::var(k).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_explicit_and_scheduler_indexes() {
        let none = |_: &str| None;
        assert_eq!(Shard::parse_with_env("2/5", none).unwrap(), Shard { index: 2, count: 5 });
        let k8s = |k: &str| (k == "JOB_COMPLETION_INDEX").then(|| "3".to_string());
        assert_eq!(Shard::parse_with_env("auto/4", k8s).unwrap(), Shard { index: 3, count: 4 });
        let slurm = |k: &str| (k == "SLURM_ARRAY_TASK_ID").then(|| "1".to_string());
        assert_eq!(Shard::parse_with_env("auto/2", slurm).unwrap(), Shard { index: 1, count: 2 });
        for bad in ["5/5", "1", "x/2", "1/0", "auto/3"] {
            let e = Shard::parse_with_env(bad, none).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        assert!(Shard::parse_with_env("auto/3", none).unwrap_err().to_string().contains("JOB_COMPLETION_INDEX"));
        // Found by a fresh user: `0/0` said "shard index 0 is not in 0..0".
        assert!(Shard::parse_with_env("0/0", none).unwrap_err().to_string().contains("count must be at least 1"));
        assert!(Shard::parse_with_env("4/4", none).unwrap_err().to_string().contains("0-based: 0 to 3"));
    }

    #[test]
    fn every_id_has_exactly_one_shard() {
        let shards: Vec<Shard> = (0..7).map(|index| Shard { index, count: 7 }).collect();
        for i in 0..1000 {
            let id = format!("rec:{i}");
            assert_eq!(shards.iter().filter(|s| s.owns(&id)).count(), 1);
        }
        let counts: Vec<usize> =
            shards.iter().map(|s| (0..7000).filter(|i| s.owns(&format!("r{i}"))).count()).collect();
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
    }

    #[test]
    fn output_placeholder_is_zero_padded() {
        let s = Shard { index: 7, count: 100 };
        assert_eq!(s.apply_to_path(Path::new("out/seg-{shard}.fdx")), PathBuf::from("out/seg-07.fdx"));
        let s = Shard { index: 0, count: 1 };
        assert_eq!(s.apply_to_path(Path::new("a-{shard}.fdx")), PathBuf::from("a-0.fdx"));
    }
}
