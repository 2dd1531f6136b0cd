//! Running a benchmark's bugs into a run folder ([`crate::bench::record`]): the folder opened
//! fresh or resumed ([`open`]), the bugs still to do, `-j N` workers over them
//! ([`run_bugs`]), each bug's `result.json` written last and by rename ([`write_result`]).
//!
//! `--resume` redoes exactly the bugs whose `result.json` is missing, unreadable or says they
//! did not finish ([`BugRecord::done`]); a bug folder left by a killed run is emptied before
//! its bug runs again, so nothing of a half-run bug survives next to a new result. A run
//! folder holding another run's settings is refused, naming the setting that differs.
//!
//! A process that runs bugs into a folder, or merges shards into one, holds an exclusive
//! advisory lock on the folder's `.lock` file ([`RunLock`]) until it ends, so a second
//! process on the same folder (say one with `--resume`, which empties half-run bug folders)
//! is refused at once instead of running every bug again next to the first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::bench::record::{self, BugRecord, RESULT_FILE, RUN_FILE, RunRecord};

/// Errors of the run folder itself (the bugs' own failures are in their records).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The folder holds a run and neither `--resume` nor `--retry-failed` was given.
    #[error(
        "{0} already holds a run: give --resume to finish it, --retry-failed to redo its failed bugs too, or another --run-dir"
    )]
    Exists(PathBuf),
    /// `--resume` with settings other than the folder's run.
    #[error(
        "{dir} holds a run with {key} = {stored}, not {given}: resume it with its own settings, or use another --run-dir"
    )]
    Differs {
        /// The run folder.
        dir: PathBuf,
        /// The setting's name.
        key: String,
        /// Its value in `run.json`.
        stored: String,
        /// Its value now.
        given: String,
    },
    /// Another process holds the run folder's lock (it is running bugs into the folder or
    /// merging into it), or the lock file cannot be made.
    #[error("run folder {} is in use: {reason}", dir.display())]
    Locked {
        /// The run folder.
        dir: PathBuf,
        /// Why: the other run (its pid when known) and the lock file, or the I/O error.
        reason: String,
        /// Whether another process holds the lock (`false`: the lock file could not be
        /// made or locked, say in a read-only folder).
        held: bool,
    },
    /// `eval merge`: the folders are not the shards of one run, or not all of them (the
    /// message names the folders, the setting that differs, the missing or repeated shards).
    #[error("cannot merge: {0}")]
    Shards(String),
    /// A file of the run folder could not be read, parsed or written.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What failed (serde's message names the line and column).
        reason: String,
    },
}

fn file_error(path: &Path) -> impl FnOnce(String) -> BatchError + '_ {
    move |reason| BatchError::File { path: path.to_path_buf(), reason }
}

/// The name of a run folder's lock file, inside the folder.
pub const LOCK_FILE: &str = ".lock";

/// The run folders this process holds the lock of, by canonical path.
static HELD: Mutex<Vec<(PathBuf, Weak<engine::output::Lock>)>> = Mutex::new(Vec::new());

/// The exclusive advisory lock (`flock`) of a run folder, on its [`LOCK_FILE`] (which holds
/// the owner's pid and is removed when the last guard is dropped; one left by a killed
/// process is taken over). Released when every clone of the guard is dropped, or when the
/// process dies. Within one process, a second lock of the same folder shares the first (the
/// lock keeps other processes out).
#[derive(Debug, Clone)]
pub struct RunLock(Arc<engine::output::Lock>);

impl RunLock {
    /// Locks run folder `dir` (which must exist), never waiting.
    ///
    /// # Errors
    /// [`BatchError::Locked`] naming `dir` when another process holds its lock (another
    /// fixdex run or merge: its pid and the lock file are named), or the lock file cannot be
    /// made.
    pub fn acquire(dir: &Path) -> Result<RunLock, BatchError> {
        let locked = |reason: String, held: bool| BatchError::Locked { dir: dir.to_path_buf(), reason, held };
        let real = std::fs::canonicalize(dir).map_err(|e| locked(format!("cannot resolve the folder: {e}"), false))?;
        let mut held = HELD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        held.retain(|(_, lock)| lock.strong_count() > 0);
        if let Some(lock) = held.iter().find(|(path, _)| *path == real).and_then(|(_, lock)| lock.upgrade()) {
            return Ok(RunLock(lock));
        }
        // `DIR/` + `.lock`: the lock file inside the folder.
        let lock = engine::output::Lock::acquire(&real.join("")).map_err(|e| match e {
            engine::Error::Output { reason, .. } => locked(reason, true),
            other => locked(other.to_string(), false),
        })?;
        let lock = Arc::new(lock);
        held.push((real, Arc::downgrade(&lock)));
        Ok(RunLock(lock))
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// A run folder opened by [`open`]: the bugs still to do (what it dereferences to), and
/// the folder's lock, held as long as this value is kept.
#[derive(Debug)]
pub struct Opened {
    /// The bugs of the run still to do, in the run's order.
    pub todo: Vec<String>,
    /// The bugs whose `result.json` could not be read: `(bug, the folder it was moved to,
    /// the error)`; each is to do again.
    pub unreadable: Vec<(String, PathBuf, String)>,
    /// The run folder's lock.
    pub lock: RunLock,
}

impl std::ops::Deref for Opened {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.todo
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Opened {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.todo.len() == N && self.todo.iter().zip(other).all(|(a, b)| a == b)
    }
}

/// Opens run folder `dir` for `run` and locks it ([`RunLock`]; keep the returned value for
/// the whole run): a new or empty folder gets `run.json`; one holding a run is refused
/// unless `resume` (or `retry_failed`), and then must hold the same settings (everything
/// but the start time). Returns the bugs of `run` still to do, in order, with the lock.
///
/// A bug whose `result.json` cannot be read or parsed is to do again, and nothing of it is
/// deleted: its whole folder is moved aside to `bugs/<id>.corrupt` (`.corrupt.2`, ... when
/// taken) and a warning on stderr names the file, the error and the new place.
///
/// # Errors
/// [`BatchError::Locked`] when another process holds the folder; [`BatchError::Exists`],
/// [`BatchError::Differs`] for a folder of another run; [`BatchError::File`] for a file that
/// cannot be read or written, or an unreadable result that cannot be moved aside.
pub fn open(dir: &Path, run: &RunRecord, resume: bool, retry_failed: bool) -> Result<Opened, BatchError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let why = if dir.exists() && !dir.is_dir() { "a file, not a folder".to_string() } else { e.to_string() };
        file_error(dir)(format!("cannot be the run folder (--run-dir): {why}; give a folder, made if missing"))
    })?;
    let lock = RunLock::acquire(dir)?;
    let run_file = dir.join(RUN_FILE);
    if run_file.exists() {
        if !(resume || retry_failed) {
            return Err(BatchError::Exists(dir.to_path_buf()));
        }
        let text = std::fs::read_to_string(&run_file).map_err(|e| file_error(&run_file)(e.to_string()))?;
        let stored: RunRecord = serde_json::from_str(&text).map_err(|e| file_error(&run_file)(e.to_string()))?;
        same_settings(dir, &stored, run)?;
    } else {
        write_atomic(&run_file, &serde_json::to_string_pretty(run).expect("a RunRecord serializes"))?;
    }
    let (mut todo, mut unreadable) = (Vec::new(), Vec::new());
    for bug in &run.bugs {
        match read_result(dir, bug) {
            Ok(Some(r)) if r.done(retry_failed) => continue,
            Ok(_) => {}
            Err(reason) => {
                let file = record::bug_dir(dir, bug).join(RESULT_FILE);
                let aside = move_aside(&record::bug_dir(dir, bug))
                    .map_err(|e| file_error(&file)(format!("{reason}; moving its bug folder aside failed: {e}")))?;
                eprintln!(
                    "warning: {}: unreadable ({reason}); its bug folder is kept as {}, and {bug} runs again",
                    file.display(),
                    aside.display()
                );
                unreadable.push((bug.clone(), aside, reason));
            }
        }
        todo.push(bug.clone());
    }
    Ok(Opened { todo, unreadable, lock })
}

/// Renames `folder` to `<folder>.corrupt` (`.corrupt.2`, ... when taken); returns the new path.
fn move_aside(folder: &Path) -> std::io::Result<PathBuf> {
    let name = folder.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let mut n = 1;
    loop {
        let suffix = if n == 1 { String::new() } else { format!(".{n}") };
        let to = folder.with_file_name(format!("{name}.corrupt{suffix}"));
        if !to.exists() {
            std::fs::rename(folder, &to)?;
            return Ok(to);
        }
        n += 1;
    }
}

/// Settings that a later version of fixdex records in `run.json`: a run folder an earlier
/// version started lacks them, and resumes without their check. `settings.index_content`:
/// what `--index` holds (another index at the same path is refused).
const LATER_SETTINGS: &[&str] = &["settings.index_content"];

/// Settings compared by presence only: `settings.index`, the `--index` path, which another
/// spelling (`./x.fdx`) or a moved copy changes while `settings.index_content` says whether
/// it holds the same index (a folder an earlier version started, without the content, then
/// resumes with any index given).
const PRESENCE_SETTINGS: &[&str] = &["settings.index"];

/// Settings an earlier version recorded and this one does not, ignored where only the stored
/// record has them: `settings.model`, the embedding model's folder, which also came from
/// `FIXDEX_MODEL` (so exporting it refused a resume) and changes no number that
/// `settings.index_content` does not already pin (an index opens only with its own model).
const FORMER_SETTINGS: &[&str] = &["settings.model"];

/// Whether a `run.json` setting's id is an option group that clap's derive makes for a
/// flattened `Args` struct (its id is the struct's name, `RetrievalArgs`; an option's id is
/// its snake_case field name). Earlier versions recorded such a
/// group as a setting (`"RetrievalArgs": "index"`); it is no setting, so it is neither
/// written nor compared on `--resume`.
#[must_use]
pub fn is_group_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Refuses `given` when a setting differs from `stored` (the start time and version aside,
/// the [`LATER_SETTINGS`] that `stored` lacks, the [`FORMER_SETTINGS`] that `given` lacks,
/// the [`PRESENCE_SETTINGS`] both have, and the option groups an earlier version recorded,
/// [`is_group_id`]).
fn same_settings(dir: &Path, stored: &RunRecord, given: &RunRecord) -> Result<(), BatchError> {
    let as_map = |r: &RunRecord| {
        let mut v = serde_json::to_value(r).expect("a RunRecord serializes");
        let map = v.as_object_mut().expect("a struct serializes to an object");
        map.remove("started_unix");
        map.remove("fixdex_version");
        if let Some(serde_json::Value::Object(settings)) = map.remove("settings") {
            let settings = settings.into_iter().filter(|(k, _)| !is_group_id(k));
            map.extend(settings.map(|(k, v)| (format!("settings.{k}"), v)));
        }
        map.clone()
    };
    let (a, b) = (as_map(stored), as_map(given));
    for key in a.keys().chain(b.keys()) {
        if !a.contains_key(key) && LATER_SETTINGS.contains(&key.as_str()) {
            continue;
        }
        if !b.contains_key(key) && FORMER_SETTINGS.contains(&key.as_str()) {
            continue;
        }
        if PRESENCE_SETTINGS.contains(&key.as_str()) && a.contains_key(key) == b.contains_key(key) {
            continue;
        }
        if a.get(key) != b.get(key) {
            let show = |v: Option<&serde_json::Value>| {
                v.map_or_else(|| "(not given: the default)".to_string(), ToString::to_string)
            };
            return Err(BatchError::Differs {
                dir: dir.to_path_buf(),
                key: key.clone(),
                stored: show(a.get(key)),
                given: show(b.get(key)),
            });
        }
    }
    Ok(())
}

/// The result of bug `id` in run folder `dir`, when it has a readable one.
#[must_use]
pub fn load_result(dir: &Path, id: &str) -> Option<BugRecord> {
    read_result(dir, id).ok().flatten()
}

/// The result of bug `id` in run folder `dir`: `Ok(None)` when it has no `result.json`.
///
/// # Errors
/// The reason a `result.json` that exists cannot be read or is not a bug record (serde's
/// message names the line, column and field).
pub fn read_result(dir: &Path, id: &str) -> Result<Option<BugRecord>, String> {
    let text = match std::fs::read_to_string(record::bug_dir(dir, id).join(RESULT_FILE)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| e.to_string())
}

/// Writes `result` as its bug's `result.json` in run folder `dir` (temporary file, fsync,
/// rename: a reader sees the old file or the whole new one).
///
/// # Errors
/// [`BatchError::File`].
pub fn write_result(dir: &Path, result: &BugRecord) -> Result<(), BatchError> {
    let folder = record::bug_dir(dir, &result.bug);
    std::fs::create_dir_all(&folder).map_err(|e| file_error(&folder)(e.to_string()))?;
    write_atomic(&folder.join(RESULT_FILE), &serde_json::to_string_pretty(result).expect("a BugRecord serializes"))
}

fn write_atomic(path: &Path, text: &str) -> Result<(), BatchError> {
    use std::io::Write;
    let tmp = path.with_extension("json.tmp");
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| file_error(path)(e.to_string()))
}

/// `f(0..n)` on `jobs` worker threads (at least 1), each index once; the results in index
/// order. Workers take the next index as they finish one (long and short bugs mix).
pub fn parallel<T: Send, F: Fn(usize) -> T + Sync>(n: usize, jobs: usize, f: F) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    let out = f(i);
                    results.lock().expect("not poisoned")[i] = Some(out);
                }
            });
        }
    });
    results.into_inner().expect("not poisoned").into_iter().map(|r| r.expect("every index ran")).collect()
}

/// Runs `job` on each of `todo` with `jobs` workers ([`parallel`]), in run folder `dir`:
/// each bug's folder is emptied and made first, `job(id, folder)` fills it and gives the
/// record, which is written last ([`write_result`]) and handed to `done` (for progress
/// lines). Returns the records in `todo`'s order.
///
/// # Errors
/// The first [`BatchError`] writing a result; the bugs not started by then are not run.
pub fn run_bugs<J, D>(dir: &Path, todo: &[String], jobs: usize, job: J, done: D) -> Result<Vec<BugRecord>, BatchError>
where
    J: Fn(&str, &Path) -> BugRecord + Sync,
    D: Fn(&BugRecord) + Sync,
{
    let failed = std::sync::atomic::AtomicBool::new(false);
    let outcomes = parallel(todo.len(), jobs, |i| {
        if failed.load(Ordering::SeqCst) {
            return None;
        }
        let folder = record::bug_dir(dir, &todo[i]);
        let _ = std::fs::remove_dir_all(&folder);
        let written = std::fs::create_dir_all(&folder).map_err(|e| file_error(&folder)(e.to_string())).and_then(|()| {
            let result = job(&todo[i], &folder);
            write_result(dir, &result).map(|()| result)
        });
        match &written {
            Ok(result) => done(result),
            Err(_) => failed.store(true, Ordering::SeqCst),
        }
        Some(written)
    });
    outcomes.into_iter().flatten().collect()
}

/// The run of run folder `dir` (its `run.json`).
///
/// # Errors
/// [`BatchError::File`]: missing, unreadable, or not a run record (serde's message names
/// the line, column and field).
pub fn read_run(dir: &Path) -> Result<RunRecord, BatchError> {
    let run_file = dir.join(RUN_FILE);
    let text = std::fs::read_to_string(&run_file)
        .map_err(|e| file_error(&run_file)(format!("{e} (is this a run folder?)")))?;
    serde_json::from_str(&text).map_err(|e| file_error(&run_file)(e.to_string()))
}

/// Merges the run folders of a sharded run (`--shard i/n`, one folder per shard) into `out`:
/// the shards must hold one run (every setting equal but the shard, the bugs and the start
/// time), and no bug may be in two of them. `out`'s `run.json` lists every shard's bugs (in
/// shard order) with no shard; every bug folder holding a `result.json` is copied (a bug a
/// shard has not finished is left for `--resume` on the merged folder). `out` must be new or
/// empty, and is locked ([`RunLock`]) while the merge writes it. Returns the merged run and
/// the number of bug folders copied.
///
/// # Errors
/// [`BatchError::Locked`] when another process holds `out`;
/// [`BatchError::File`] for an unreadable shard, a non-empty `out` or a failed copy;
/// [`BatchError::Shards`] for shards of different runs (naming the setting and the two
/// folders), a bug in two shards, or shards that do not cover `0..count` exactly once.
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<(RunRecord, usize), BatchError> {
    let mut runs = shards.iter().map(|d| Ok((d, read_run(d)?))).collect::<Result<Vec<_>, BatchError>>()?;
    runs.sort_by_key(|(_, r)| r.shard.map_or(0, |s| s.0));
    let Some((first_dir, first)) = runs.first().cloned() else {
        return Err(BatchError::File { path: out.to_path_buf(), reason: "no run folders to merge".into() });
    };
    let unsharded = |r: &RunRecord| RunRecord { shard: None, bugs: vec![], started_unix: 0, ..r.clone() };
    let mut merged = RunRecord { shard: None, ..first.clone() };
    merged.bugs.clear();
    let mut seen: Vec<(&String, &PathBuf)> = Vec::new();
    for (dir, run) in &runs {
        same_settings(dir, &unsharded(&first), &unsharded(run)).map_err(|e| match e {
            BatchError::Differs { key, stored, given, .. } => BatchError::Shards(format!(
                "{} and {} are not shards of one run: {key} is {stored} in {} and {given} in {}; merge the shard folders \
                 of one run",
                first_dir.display(),
                dir.display(),
                first_dir.display(),
                dir.display()
            )),
            other => other,
        })?;
        for bug in &run.bugs {
            if let Some((_, other)) = seen.iter().find(|(b, _)| *b == bug) {
                return Err(BatchError::Shards(format!(
                    "{bug} is in both {} and {}: merge the shard folders of one run",
                    other.display(),
                    dir.display()
                )));
            }
            seen.push((bug, dir));
            merged.bugs.push(bug.clone());
        }
        merged.started_unix = merged.started_unix.min(run.started_unix);
    }
    check_shards(&runs)?;
    std::fs::create_dir_all(out).map_err(|e| file_error(out)(e.to_string()))?;
    let _lock = RunLock::acquire(out)?;
    if out.read_dir().is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name() != LOCK_FILE))) {
        return Err(BatchError::File { path: out.to_path_buf(), reason: "not empty: merge into a new folder".into() });
    }
    let mut copied = 0;
    for (dir, run) in &runs {
        for bug in run.bugs.iter().filter(|b| load_result(dir, b).is_some()) {
            let (from, to) = (record::bug_dir(dir, bug), record::bug_dir(out, bug));
            copy_dir(&from, &to).map_err(|e| file_error(&from)(format!("copying to {}: {e}", to.display())))?;
            copied += 1;
        }
    }
    write_atomic(&out.join(RUN_FILE), &serde_json::to_string_pretty(&merged).expect("a RunRecord serializes"))?;
    Ok((merged, copied))
}

/// Checks that the shards' `shard` fields `(index, count)` share one count and cover
/// `0..count` exactly once.
fn check_shards(runs: &[(&PathBuf, RunRecord)]) -> Result<(), BatchError> {
    let mut count = None;
    for (dir, run) in runs {
        let Some((_, n)) = run.shard else {
            return Err(BatchError::Shards(format!(
                "{} is not a shard (its run.json has no shard): merge the folders of a run made with --shard i/n",
                dir.display()
            )));
        };
        match count {
            Some((m, first)) if m != n => {
                return Err(BatchError::Shards(format!(
                    "{} and {} are not shards of one run: shard count {m} in {} and {n} in {}",
                    Path::display(first),
                    dir.display(),
                    Path::display(first),
                    dir.display()
                )));
            }
            _ => count = Some((n, dir.as_path())),
        }
    }
    let Some((n, _)) = count else { return Ok(()) };
    let mut problems = Vec::new();
    for i in 0..n {
        let dirs: Vec<String> = runs
            .iter()
            .filter(|(_, r)| r.shard.is_some_and(|s| s.0 == i))
            .map(|(d, _)| d.display().to_string())
            .collect();
        match dirs.len() {
            0 => problems.push(format!("shard {i} of {n} is missing")),
            1 => {}
            _ => problems.push(format!("shard {i} of {n} is given {} times ({})", dirs.len(), dirs.join(", "))),
        }
    }
    for (dir, run) in runs {
        if let Some((i, _)) = run.shard.filter(|s| s.0 >= n) {
            problems.push(format!("{} holds shard {i}, outside 0..{n}", dir.display()));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(BatchError::Shards(format!(
            "the shards do not cover the run: {}; give every shard's folder once",
            problems.join("; ")
        )))
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Every bug's record in run folder `dir` for the bugs of `run` (those without a readable
/// `result.json` are left out).
#[must_use]
pub fn results(dir: &Path, run: &RunRecord) -> Vec<BugRecord> {
    run.bugs.iter().filter_map(|b| load_result(dir, b)).collect()
}

/// The bugs of a run folder sorted by what their `result.json` holds ([`read_results`]).
#[derive(Debug, Default)]
pub struct Results {
    /// The readable records, in the run's order.
    pub records: Vec<BugRecord>,
    /// The bugs with no `result.json` (not run yet, or killed mid-bug).
    pub missing: Vec<String>,
    /// The bugs whose `result.json` cannot be read or parsed: `(bug, the file, the error)`.
    pub unreadable: Vec<(String, PathBuf, String)>,
}

/// Every bug of `run` in run folder `dir`, with the bugs that have no result and those whose
/// result cannot be read named ([`Results`]).
#[must_use]
pub fn read_results(dir: &Path, run: &RunRecord) -> Results {
    let mut out = Results::default();
    for bug in &run.bugs {
        match read_result(dir, bug) {
            Ok(Some(r)) => out.records.push(r),
            Ok(None) => out.missing.push(bug.clone()),
            Err(e) => out.unreadable.push((bug.clone(), record::bug_dir(dir, bug).join(RESULT_FILE), e)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::Status;

    fn run(bugs: &[&str]) -> RunRecord {
        RunRecord {
            benchmark: "defects4j".into(),
            fixdex_version: "0".into(),
            started_unix: 1,
            strategy: "patterns".into(),
            localization: "perfect".into(),
            model: None,
            seed: 1,
            shard: None,
            bugs: bugs.iter().map(|s| (*s).to_string()).collect(),
            settings: serde_json::json!({"max_validations": 200}),
        }
    }

    fn record(bug: &str, status: Status) -> BugRecord {
        BugRecord { status, ..BugRecord::blank(bug, "Cli", "perfect") }
    }

    #[test]
    fn resume_redoes_only_bugs_without_a_finished_result() {
        let dir = tempfile::tempdir().unwrap();
        let r = run(&["Cli-1", "Cli-2", "Cli-3", "Cli-4"]);
        let todo = open(dir.path(), &r, false, false).unwrap();
        assert_eq!(todo.len(), 4);
        write_result(dir.path(), &record("Cli-1", Status::Finished)).unwrap();
        write_result(dir.path(), &record("Cli-2", Status::Infra)).unwrap();
        write_result(dir.path(), &record("Cli-3", Status::Error)).unwrap();
        // a killed bug: a folder with a log but no result
        std::fs::create_dir_all(record::bug_dir(dir.path(), "Cli-4")).unwrap();
        std::fs::write(record::bug_dir(dir.path(), "Cli-4").join("log.txt"), "half").unwrap();
        assert!(matches!(open(dir.path(), &r, false, false), Err(BatchError::Exists(_))));
        let later = RunRecord { started_unix: 99, ..r.clone() };
        assert_eq!(open(dir.path(), &later, true, false).unwrap(), ["Cli-3", "Cli-4"]);
        assert_eq!(open(dir.path(), &later, false, true).unwrap(), ["Cli-2", "Cli-3", "Cli-4"]);
        let other = RunRecord { settings: serde_json::json!({"max_validations": 100}), ..r };
        let err = open(dir.path(), &other, true, false).unwrap_err().to_string();
        assert!(err.contains("settings.max_validations") && err.contains("200") && err.contains("100"), "{err}");
    }

    #[test]
    fn an_option_group_an_earlier_version_recorded_is_no_setting_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let settings = serde_json::json!({"max_validations": 200, "index": "a.fdx", "RetrievalArgs": "index"});
        let earlier = RunRecord { settings, ..run(&["Cli-1"]) };
        open(dir.path(), &earlier, false, false).unwrap();
        let now = RunRecord { settings: serde_json::json!({"max_validations": 200, "index": "a.fdx"}), ..earlier };
        assert_eq!(open(dir.path(), &now, true, false).unwrap(), ["Cli-1"]);
        let other = RunRecord { settings: serde_json::json!({"max_validations": 200}), ..now };
        let err = open(dir.path(), &other, true, false).unwrap_err().to_string();
        assert!(err.contains("settings.index") && !err.contains("RetrievalArgs"), "{err}");
        assert!(is_group_id("RetrievalArgs") && !is_group_id("max_validations"));
        // The embedding model's folder, recorded by earlier versions (also from FIXDEX_MODEL).
        let with_model = serde_json::json!({"max_validations": 200, "model": "data/models/m"});
        let dir = tempfile::tempdir().unwrap();
        let earlier = RunRecord { settings: with_model, ..run(&["Cli-1"]) };
        open(dir.path(), &earlier, false, false).unwrap();
        let now = RunRecord { settings: serde_json::json!({"max_validations": 200}), ..earlier };
        assert_eq!(open(dir.path(), &now, true, false).unwrap(), ["Cli-1"]);
    }

    #[test]
    fn a_run_folder_another_process_holds_is_refused_at_once() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        std::fs::create_dir_all(&dir).unwrap();
        let r = run(&["Cli-1", "Cli-2"]);
        // Another process's lock: an flock on the folder's lock file through a file this
        // module did not open (as a second fixdex process would hold it).
        let other = engine::output::Lock::acquire(&dir.canonicalize().unwrap().join("")).unwrap();
        assert_eq!(other.path(), dir.canonicalize().unwrap().join(LOCK_FILE));
        for resume in [false, true] {
            let err = open(&dir, &r, resume, false).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, BatchError::Locked { held: true, .. }), "{msg}");
            assert!(msg.contains(&dir.display().to_string()) && msg.contains("another fixdex run"), "{msg}");
            assert!(msg.contains(&format!("pid {}", std::process::id())) && msg.contains(LOCK_FILE), "{msg}");
        }
        assert!(!dir.join(RUN_FILE).exists(), "nothing written while another run holds the folder");
        drop(other);
        // Free again: this process opens it, holds the lock file, and a second open in the
        // same process shares that lock; the lock file goes with the last holder.
        let opened = open(&dir, &r, false, false).unwrap();
        assert_eq!(opened, ["Cli-1", "Cli-2"]);
        assert_eq!(opened.lock.path(), dir.canonicalize().unwrap().join(LOCK_FILE));
        assert!(dir.join(LOCK_FILE).is_file());
        let again = open(&dir, &r, true, false).unwrap();
        assert!(engine::output::Lock::acquire(&dir.canonicalize().unwrap().join("")).is_err());
        drop((opened, again));
        assert!(!dir.join(LOCK_FILE).exists());
    }

    #[test]
    fn an_unreadable_result_is_moved_aside_and_redone() {
        let dir = tempfile::tempdir().unwrap();
        let r = run(&["Cli-1", "Cli-2", "Cli-3"]);
        drop(open(dir.path(), &r, false, false).unwrap());
        write_result(dir.path(), &record("Cli-1", Status::Finished)).unwrap();
        write_result(dir.path(), &record("Cli-2", Status::Finished)).unwrap();
        let bug2 = record::bug_dir(dir.path(), "Cli-2");
        std::fs::write(bug2.join(RESULT_FILE), "{\"bug\": \"Cli-2\", ").unwrap();
        std::fs::write(bug2.join("patch.diff"), "kept").unwrap();
        let read = read_results(dir.path(), &r);
        assert_eq!(read.records.len(), 1);
        assert_eq!(read.missing, ["Cli-3"]);
        assert_eq!((read.unreadable[0].0.as_str(), read.unreadable[0].1.clone()), ("Cli-2", bug2.join(RESULT_FILE)));
        assert!(read.unreadable[0].2.contains("EOF"), "{:?}", read.unreadable);
        let opened = open(dir.path(), &r, true, false).unwrap();
        assert_eq!(opened, ["Cli-2", "Cli-3"]);
        let (bug, aside, why) = &opened.unreadable[0];
        assert_eq!((bug.as_str(), aside.clone()), ("Cli-2", dir.path().join("bugs/Cli-2.corrupt")));
        assert!(why.contains("EOF"), "{why}");
        // Nothing deleted: the corrupt file and the rest of the bug's folder are kept aside.
        assert_eq!(std::fs::read_to_string(aside.join("patch.diff")).unwrap(), "kept");
        assert!(std::fs::read_to_string(aside.join(RESULT_FILE)).unwrap().starts_with("{\"bug\""));
        assert!(!bug2.exists());
        // A second corrupt result goes beside the first one.
        std::fs::create_dir_all(&bug2).unwrap();
        std::fs::write(bug2.join(RESULT_FILE), "not json").unwrap();
        drop(opened);
        let opened = open(dir.path(), &r, true, false).unwrap();
        assert_eq!(opened.unreadable[0].1, dir.path().join("bugs/Cli-2.corrupt.2"));
    }

    #[test]
    fn merge_locks_its_output() {
        let root = tempfile::tempdir().unwrap();
        let s0 = root.path().join("s0");
        open(&s0, &RunRecord { shard: Some((0, 1)), ..run(&["Cli-1"]) }, false, false).unwrap();
        let out = root.path().join("all");
        std::fs::create_dir_all(&out).unwrap();
        let other = engine::output::Lock::acquire(&out.canonicalize().unwrap().join("")).unwrap();
        let err = merge(&out, std::slice::from_ref(&s0)).unwrap_err().to_string();
        assert!(err.contains(&out.display().to_string()) && err.contains("another fixdex run"), "{err}");
        assert!(!out.join(RUN_FILE).exists());
        drop(other);
        // A lock file a killed merge left behind does not make the folder "not empty".
        std::fs::write(out.join(LOCK_FILE), "1").unwrap();
        merge(&out, &[s0]).unwrap();
        assert!(out.join(RUN_FILE).is_file() && !out.join(LOCK_FILE).exists());
    }

    #[test]
    fn merge_joins_shards_of_one_run_and_refuses_others() {
        let root = tempfile::tempdir().unwrap();
        let shard = |i: u32, bugs: &[&str]| {
            let dir = root.path().join(format!("s{i}"));
            let r = RunRecord { shard: Some((i, 2)), started_unix: 10 + u64::from(i), ..run(bugs) };
            open(&dir, &r, false, false).unwrap();
            for b in bugs.iter().take(1) {
                write_result(&dir, &record(b, Status::Finished)).unwrap();
                std::fs::create_dir_all(record::bug_dir(&dir, b).join("patches/1")).unwrap();
                std::fs::write(record::bug_dir(&dir, b).join("patches/1/patch.diff"), "d").unwrap();
            }
            dir
        };
        let (s0, s1) = (shard(0, &["Cli-1", "Cli-3"]), shard(1, &["Cli-2", "Cli-4"]));
        let out = root.path().join("all");
        let (merged, copied) = merge(&out, &[s1.clone(), s0.clone()]).unwrap();
        assert_eq!(merged.bugs, ["Cli-1", "Cli-3", "Cli-2", "Cli-4"]);
        assert_eq!((merged.shard, merged.started_unix, copied), (None, 10, 2));
        assert!(record::bug_dir(&out, "Cli-2").join("patches/1/patch.diff").exists());
        // The merged folder resumes as one run: the unfinished bugs are still to do.
        assert_eq!(open(&out, &merged, true, false).unwrap(), ["Cli-3", "Cli-4"]);
        assert!(matches!(merge(&out, &[s0.clone(), s1]), Err(BatchError::File { .. })));
        let other = root.path().join("other");
        open(
            &other,
            &RunRecord { shard: Some((1, 2)), settings: serde_json::json!({"max_validations": 5}), ..run(&["Cli-9"]) },
            false,
            false,
        )
        .unwrap();
        let err = merge(&root.path().join("x"), &[s0.clone(), other]).unwrap_err().to_string();
        assert!(err.contains("settings.max_validations") && err.contains("200") && err.contains("5"), "{err}");
        assert!(err.contains("/s0 and ") && err.contains("/other") && !err.contains("resume"), "{err}");
        let err = merge(&root.path().join("y"), &[s0.clone(), s0.clone()]).unwrap_err().to_string();
        assert!(err.contains("Cli-1") && err.contains("is in both"), "{err}");
        // Shard 0 of 2 alone: shard 1 is missing.
        let err = merge(&root.path().join("z"), std::slice::from_ref(&s0)).unwrap_err().to_string();
        assert!(err.contains("shard 1 of 2 is missing") && !err.contains("resume"), "{err}");
        assert!(!root.path().join("z").exists());
    }

    #[test]
    fn workers_run_every_bug_once_and_write_results_last() {
        let dir = tempfile::tempdir().unwrap();
        let todo: Vec<String> = (1..=9).map(|i| format!("Cli-{i}")).collect();
        std::fs::create_dir_all(record::bug_dir(dir.path(), "Cli-5")).unwrap();
        std::fs::write(record::bug_dir(dir.path(), "Cli-5").join("stale.diff"), "x").unwrap();
        let seen = Mutex::new(Vec::new());
        let records = run_bugs(
            dir.path(),
            &todo,
            3,
            |id, folder| {
                assert!(!folder.join(RESULT_FILE).exists() && !folder.join("stale.diff").exists());
                record(id, Status::Finished)
            },
            |r| seen.lock().unwrap().push(r.bug.clone()),
        )
        .unwrap();
        assert_eq!(records.iter().map(|r| r.bug.clone()).collect::<Vec<_>>(), todo);
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let mut want = todo.clone();
        want.sort();
        assert_eq!(seen, want);
        assert!(todo.iter().all(|b| load_result(dir.path(), b).is_some()));
    }
}
