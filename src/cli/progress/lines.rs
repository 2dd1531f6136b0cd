//! Plain progress lines, for a stderr that is not a terminal (a batch job's log, a file),
//! where indicatif draws nothing: every interval, one line for the stage running, e.g.
//! `indexing: embedding code+cause 12000/58713 records (20%), 310 rec/s, ETA 2m31s`.
//! A ticker thread writes them, so a stage that does not advance (an HNSW graph, the action
//! labels) still says it is running. Writing never fails the build: a line that cannot be
//! written is dropped.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indexer::build::Stage;

/// The stage running, as the ticker reads it.
#[derive(Debug, Clone, Copy)]
struct Running {
    stage: Stage,
    /// Units of the stage (bytes while reading, else records); 0 when unknown.
    total: u64,
    /// Units done.
    done: u64,
    started: Instant,
}

/// Progress lines on stderr every interval, from a ticker thread; stopped by
/// [`Lines::stop`] or on drop.
#[derive(Debug)]
pub(super) struct Lines {
    running: Arc<Mutex<Option<Running>>>,
    stop: Mutex<Option<(Sender<()>, JoinHandle<()>)>>,
}

impl Lines {
    /// Lines every `every`, the first one `every` after now.
    pub(super) fn new(every: Duration) -> Lines {
        let running: Arc<Mutex<Option<Running>>> = Arc::default();
        let (tx, rx) = mpsc::channel::<()>();
        let seen = Arc::clone(&running);
        let ticker = std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                let now = *seen.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(r) = now {
                    let _ = writeln!(std::io::stderr(), "indexing: {}", line(&r, r.started.elapsed()));
                }
            }
        });
        Lines { running, stop: Mutex::new(Some((tx, ticker))) }
    }

    /// `stage` starts, of `total` units (0: unknown).
    pub(super) fn start(&self, stage: Stage, total: u64) {
        *self.lock() = Some(Running { stage, total, done: 0, started: Instant::now() });
    }

    /// `n` more units of the stage running are done.
    pub(super) fn advance(&self, n: u64) {
        if let Some(r) = self.lock().as_mut() {
            r.done = r.done.saturating_add(n);
        }
    }

    /// The stage running is done: no line until the next starts.
    pub(super) fn finish(&self) {
        *self.lock() = None;
    }

    /// Stops the ticker (no line after this returns). Idempotent.
    pub(super) fn stop(&self) {
        let taken = self.stop.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((tx, ticker)) = taken {
            drop(tx);
            let _ = ticker.join();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The line of stage `r` after `elapsed`: done/total with the percentage, rate and ETA; a
/// stage without a known total or steps only says how long it has run.
fn line(r: &Running, elapsed: Duration) -> String {
    let name = super::label(r.stage);
    if super::spins(r.stage, r.total) {
        return format!("{name}, running for {}", hms(elapsed));
    }
    let pct = r.done.saturating_mul(100) / r.total.max(1);
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { r.done as f64 / secs } else { 0.0 };
    let eta = if rate > 0.0 {
        format!(", ETA {}", hms(Duration::from_secs_f64(r.total.saturating_sub(r.done) as f64 / rate)))
    } else {
        String::new()
    };
    match r.stage {
        Stage::Read => {
            let mib = |b: f64| b / (1024.0 * 1024.0);
            let (done, total) = (mib(r.done as f64), mib(r.total as f64));
            format!("{name} {done:.1}/{total:.1} MiB ({pct}%), {:.1} MiB/s{eta}", mib(rate))
        }
        _ => format!("{name} {}/{} records ({pct}%), {rate:.0} rec/s{eta}", r.done, r.total),
    }
}

/// `d` as `45s`, `2m31s` or `1h02m`.
fn hms(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Space;

    fn running(stage: Stage, total: u64, done: u64) -> Running {
        Running { stage, total, done, started: Instant::now() }
    }

    #[test]
    fn lines_give_count_percentage_rate_and_eta() {
        let r = running(Stage::Embed(Space::CodeCause), 58_713, 12_000);
        assert_eq!(
            line(&r, Duration::from_secs(40)),
            "embedding code+cause 12000/58713 records (20%), 300 rec/s, ETA 2m35s"
        );
        let r = running(Stage::Read, 50 * 1024 * 1024, 10 * 1024 * 1024);
        assert_eq!(line(&r, Duration::from_secs(5)), "reading 10.0/50.0 MiB (20%), 2.0 MiB/s, ETA 20s");
        let r = running(Stage::Graph(Space::Code), 58_713, 0);
        assert_eq!(line(&r, Duration::from_secs(3725)), "HNSW graph code, running for 1h02m");
        let r = running(Stage::Tokenize, 10, 0);
        assert_eq!(line(&r, Duration::ZERO), "tokenizing 0/10 records (0%), 0 rec/s");
    }
}
