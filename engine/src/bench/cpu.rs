//! This process's CPU time and resident memory, read from Linux `/proc` (`None` elsewhere):
//! what `fixdex bench` turns into `cpu_util` and `rss_mb_*`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// Clock ticks per second of `/proc/self/stat`'s utime and stime (`USER_HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// This process's CPU time at one moment: per thread from `/proc/self/task/*/schedstat`
/// (run time in nanoseconds, keyed by thread id), else utime + stime from `/proc/self/stat`
/// (clock ticks, 1/100 s, threads that exited included).
#[derive(Debug)]
pub enum CpuReading {
    /// Run time in nanoseconds per live thread id.
    Threads(HashMap<String, u64>),
    /// utime + stime of the whole process, in clock ticks.
    Ticks(u64),
}

/// The first number in the file at `path` (a schedstat's run time in nanoseconds).
fn run_ns(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.split_whitespace().next()?.parse().ok()
}

/// Whether this kernel has per-thread schedstat (checked once per process).
fn have_schedstat() -> bool {
    static SCHEDSTAT: OnceLock<bool> = OnceLock::new();
    *SCHEDSTAT.get_or_init(|| run_ns(Path::new("/proc/thread-self/schedstat")).is_some())
}

/// Run time of every live thread of this process, nanoseconds by thread id.
fn per_thread() -> Option<HashMap<String, u64>> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let entry = |t: std::io::Result<std::fs::DirEntry>| {
        let t = t.ok()?;
        Some((t.file_name().to_string_lossy().into_owned(), run_ns(&t.path().join("schedstat"))?))
    };
    Some(tasks.filter_map(entry).collect())
}

/// utime + stime of this process in clock ticks, from `/proc/self/stat`.
fn ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the `(comm)`: state is field 3; utime and stime are fields 14 and 15.
    let f: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

impl CpuReading {
    /// This process's CPU time now; `None` off Linux or when `/proc` cannot be read.
    /// O(threads) file reads.
    pub fn now() -> Option<CpuReading> {
        if have_schedstat() {
            return per_thread().map(CpuReading::Threads);
        }
        ticks().map(CpuReading::Ticks)
    }

    /// CPU seconds this process has used since `before`, all threads: per thread, the run
    /// time now less the run time then (threads started since count in full; threads that
    /// exited since, such as a dropped pool's, drop out instead of making the difference
    /// negative). `None` without a reading then or now.
    pub fn since(before: Option<&CpuReading>) -> Option<f64> {
        before?.seconds_until(&CpuReading::now()?)
    }

    /// CPU seconds from `self` to the later reading `after`; `None` when the kinds differ.
    fn seconds_until(&self, after: &CpuReading) -> Option<f64> {
        match (self, after) {
            (CpuReading::Threads(b), CpuReading::Threads(a)) => {
                let ns: u64 = a.iter().map(|(tid, &ns)| ns.saturating_sub(b.get(tid).copied().unwrap_or(0))).sum();
                Some(ns as f64 / 1e9)
            }
            (CpuReading::Ticks(b), CpuReading::Ticks(a)) => Some(a.saturating_sub(*b) as f64 / TICKS_PER_SECOND),
            _ => None,
        }
    }
}

/// Resident set size of this process in MiB (Linux `/proc/self/status` `VmRSS`), or `None`.
pub fn rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_thread_difference_counts_new_threads_and_drops_exited_ones() {
        let before = CpuReading::Threads(HashMap::from([("1".into(), 1_000_000_000), ("2".into(), 5)]));
        let after = CpuReading::Threads(HashMap::from([("1".into(), 1_500_000_000), ("3".into(), 250_000_000)]));
        assert_eq!(before.seconds_until(&after), Some(0.75));
        assert_eq!(CpuReading::Ticks(100).seconds_until(&CpuReading::Ticks(350)), Some(2.5));
        assert_eq!(before.seconds_until(&CpuReading::Ticks(1)), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn busy_work_shows_as_cpu_time_and_memory_is_read() {
        let before = CpuReading::now();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        // Spin until the reading moves (or 10 s of wall time): on a loaded machine, 50 ms of
        // wall time can hold far less than 50 ms of this process's CPU.
        let mut cpu = 0.0;
        while cpu <= 0.01 && t.elapsed().as_secs() < 10 {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            cpu = CpuReading::since(before.as_ref()).expect("a reading on Linux");
        }
        assert!(cpu > 0.01, "{:.1} s of spinning used {cpu} s of CPU", t.elapsed().as_secs_f64());
        assert!(rss_mb().is_some_and(|mb| mb > 0.0));
    }
}
