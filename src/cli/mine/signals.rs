//! The clean-up of an interrupted `fixdex mine`: on SIGINT or SIGTERM one thread removes the
//! temporary output, the lock and the scratch folder and exits 130 / 143; the main thread
//! renames the finished output only while no clean-up runs ([`publish`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// Renames the finished `tmp` over `output`, unless a signal is cleaning up (then this
/// thread waits for the exit).
pub(super) fn publish(tmp: &Path, output: &Path) -> anyhow::Result<()> {
    let mut finished = FINISHED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    wait_if_interrupted();
    std::fs::rename(tmp, output).with_context(|| format!("cannot rename {} to {}", tmp.display(), output.display()))?;
    *finished = true;
    Ok(())
}

/// Set by the signal thread of [`remove_on_signal`] when a signal arrived.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Whether the output is in place; held by whoever renames it or cleans up.
static FINISHED: std::sync::Mutex<bool> = std::sync::Mutex::new(false);

/// Once interrupted, the signal thread owns the clean-up and the exit status: an error the
/// main thread meets meanwhile (a temporary file removed under it) is not reported.
pub(super) fn wait_if_interrupted() {
    if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// On SIGINT or SIGTERM, removes `paths` (the temporary output, the output's lock file and
/// the folder of the bundles' temporary repositories) and exits 130 / 143, as a shell reports a signal. The
/// signals are blocked in every thread (the rayon workers inherit the mask) and taken by one
/// thread with `sigwait`, so the clean-up runs as ordinary code, not in a signal handler.
pub(super) fn remove_on_signal(paths: Vec<PathBuf>) -> anyhow::Result<()> {
    use nix::sys::signal::{SigSet, Signal};
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    set.add(Signal::SIGTERM);
    set.thread_block().context("cannot block SIGINT and SIGTERM")?;
    std::thread::Builder::new().name("fixdex-mine-signals".into()).spawn(move || {
        let Ok(signal) = set.wait() else { return };
        clean_up_and_exit(signal, &paths);
    })?;
    Ok(())
}

/// The signal thread's work once `signal` arrived: removes `paths` and exits with
/// 128 + the signal's number, holding [`FINISHED`] so the output is not renamed meanwhile.
fn clean_up_and_exit(signal: nix::sys::signal::Signal, paths: &[PathBuf]) -> ! {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
    // Held until the exit: the main thread cannot rename the output meanwhile.
    let finished = FINISHED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    remove_all(paths);
    if *finished {
        eprintln!("fixdex mine: interrupted ({signal}) after the output was written");
    } else {
        eprintln!("fixdex mine: interrupted ({signal}); nothing written");
    }
    std::process::exit(128 + signal as i32);
}

/// Removes `paths` (files and folders). After the rename the temporary output is gone; the
/// folder still is to remove. The workers may still be writing into the folder: retry
/// until it is gone (they fail once it is, and then wait for the exit), at most ~1 s.
fn remove_all(paths: &[PathBuf]) {
    for _ in 0..100 {
        for p in paths {
            let _ = if p.is_dir() { std::fs::remove_dir_all(p) } else { std::fs::remove_file(p) };
        }
        if !paths.iter().any(|p| p.exists()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
