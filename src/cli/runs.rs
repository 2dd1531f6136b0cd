//! `fixdex eval report|compare|merge`: what is done with a run folder (`--run-dir` of
//! `fixdex eval defects4j` or `fixdex eval quixbugs`) after the run, with no test run:
//! re-grading and pages ([`repair::bench::report`]), the paired comparison of two runs
//! ([`repair::bench::compare`]), the merge of a sharded run's folders
//! ([`repair::bench::batch::merge`]). `--json` prints one JSON object on stdout.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use repair::bench::batch;
use repair::bench::compare::Comparison;
use repair::bench::record::BugRecord;
use repair::bench::report;
use repair::bench::summary::{self, Summary};

/// Arguments of `fixdex eval report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The run folder.
    run_dir: PathBuf,
    /// Where report.md and report.html go [default: the run folder].
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Keep the saved tiers (do not re-grade the kept patches, or write the new tiers back).
    #[arg(long)]
    no_regrade: bool,
    /// One JSON object on stdout: the summary, the pages' paths, the re-grading's changes.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fixdex eval compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Run A's folder.
    run_a: PathBuf,
    /// Run B's folder.
    run_b: PathBuf,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fixdex eval merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The merged run folder (new or empty).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The shards' run folders.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// The records of run folder `dir`, with warnings on stderr naming the run's bugs that have
/// no result (not run yet, or killed: `--resume` finishes them) and those whose result
/// cannot be read (with the file and the error: `--resume` moves it aside and redoes them).
fn records(dir: &Path) -> anyhow::Result<(repair::bench::record::RunRecord, Vec<BugRecord>)> {
    read_records(dir, false)
}

/// [`records`], where `running` says that a run holds the folder now (the bugs without a
/// result may be running, not killed).
fn read_records(dir: &Path, running: bool) -> anyhow::Result<(repair::bench::record::RunRecord, Vec<BugRecord>)> {
    let run = batch::read_run(dir)?;
    let read = batch::read_results(dir, &run);
    if !read.missing.is_empty() {
        eprintln!(
            "warning: {}: no result for {} of {} ({}): {}",
            dir.display(),
            summary::count(read.missing.len(), "bug"),
            run.bugs.len(),
            if running { "the run is still going" } else { "resume the run to finish them" },
            read.missing.join(", ")
        );
    }
    for (bug, file, why) in &read.unreadable {
        eprintln!(
            "warning: {}: {bug} has an unreadable result, left out ({why}); --resume keeps it aside and redoes the bug",
            file.display()
        );
    }
    Ok((run, read.records))
}

/// Runs `fixdex eval report`.
///
/// A folder a run holds now (its lock, [`batch::RunLock`]) is reported as it stands, not
/// re-graded: its results are the run's to write. An `--out-dir` that exists and is no folder
/// is refused before anything is read or written.
pub fn report(a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let out = out_dir(a)?;
    // A run folder first (no lock file is made in another folder); its lock is then held
    // while the results are re-graded and written back, so no run starts meanwhile.
    batch::read_run(&a.run_dir)?;
    let (_lock, running) = lock_unless_running(&a.run_dir);
    let regrade = !a.no_regrade && !running;
    let (run, mut records) = read_records(&a.run_dir, running)?;
    let (changed, problems) = if regrade { regrade_all(&a.run_dir, &mut records)? } else { (0, Vec::new()) };
    for p in &problems {
        eprintln!("warning: {p}");
    }
    let (md, html) = (out.join("report.md"), out.join("report.html"));
    std::fs::write(&md, report::markdown(&run, &records)).with_context(|| format!("writing {}", md.display()))?;
    std::fs::write(&html, report::html(&run, &records)).with_context(|| format!("writing {}", html.display()))?;
    let summary = Summary::of(&records);
    if a.json {
        let v = serde_json::json!({
            "run_dir": a.run_dir, "markdown": md, "html": html, "regraded": regrade,
            "regraded_patches_changed": regrade.then_some(changed),
            "regrade_problems": problems, "running": running, "summary": summary,
        });
        out!("{v}")?;
    } else {
        out!("{}", summary.line())?;
        if !regrade {
            let why = if running { "the run is still going" } else { "--no-regrade" };
            out!("not re-graded ({why}: the saved tiers); wrote {} and {}", md.display(), html.display())?;
        } else {
            let tiers = summary::count(changed, "patch tier");
            out!("re-graded: {tiers} changed; wrote {} and {}", md.display(), html.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `eval report` writes its pages, made if missing: `--out-dir`, else the run folder.
/// Called before anything is re-graded, so a bad `--out-dir` writes nothing.
///
/// # Errors
/// A run folder that is a file (with no `--out-dir`); an `--out-dir` that exists and is not
/// a folder, or that cannot be made (under a file, in `/proc`, a dangling link).
fn out_dir(a: &ReportArgs) -> anyhow::Result<PathBuf> {
    if a.out_dir.is_none() && a.run_dir.exists() && !a.run_dir.is_dir() {
        anyhow::bail!(
            "{}: not a folder: give a run folder (`--run-dir` of `eval defects4j` or `eval quixbugs`)",
            a.run_dir.display()
        );
    }
    let out = a.out_dir.clone().unwrap_or_else(|| a.run_dir.clone());
    let refuse = |why: String| {
        anyhow::anyhow!(
            "--out-dir {}: {why}: give a folder for report.md and report.html (made if missing)",
            out.display()
        )
    };
    if out.exists() && !out.is_dir() {
        return Err(refuse("not a folder".into()));
    }
    if a.out_dir.is_some() {
        std::fs::create_dir_all(&out).map_err(|e| refuse(format!("cannot be made ({e})")))?;
    }
    Ok(out)
}

/// Run folder `dir`'s lock, held by this process until dropped, and whether another process
/// (a run still going) holds it instead, said on stderr. A lock that cannot be made for
/// another reason (a read-only folder) is neither.
fn lock_unless_running(dir: &Path) -> (Option<batch::RunLock>, bool) {
    match batch::RunLock::acquire(dir) {
        Ok(lock) => (Some(lock), false),
        Err(batch::BatchError::Locked { reason, held: true, .. }) => {
            eprintln!(
                "warning: {} is in use ({reason}): this report covers the bugs finished so far, and is not \
                 re-graded (run `eval report` again when the run ends)",
                dir.display()
            );
            (None, true)
        }
        Err(_) => (None, false),
    }
}

/// Re-grades every record of run folder `dir` from its kept files, writing back those whose
/// tiers changed: how many patch tiers changed, and the problems met.
///
/// # Errors
/// A changed result cannot be written.
fn regrade_all(dir: &Path, records: &mut [BugRecord]) -> anyhow::Result<(usize, Vec<String>)> {
    let (mut changed, mut problems) = (0, Vec::new());
    for rec in records {
        let (n, p) = report::regrade(dir, rec);
        if n > 0 {
            batch::write_result(dir, rec)?;
        }
        changed += n;
        problems.extend(p);
    }
    Ok((changed, problems))
}

/// Runs `fixdex eval compare`.
pub fn compare(a: &CompareArgs) -> anyhow::Result<ExitCode> {
    let (run_a, ra) = records(&a.run_a)?;
    let (run_b, rb) = records(&a.run_b)?;
    let (da, db) = (a.run_a.display(), a.run_b.display());
    if run_a.benchmark != run_b.benchmark {
        anyhow::bail!(
            "cannot compare {da} with {db}: {da} is a {} run and {db} a {} run (compare runs of one benchmark)",
            run_a.benchmark,
            run_b.benchmark
        );
    }
    let same = |x: &std::path::Path, y: &std::path::Path| matches!((x.canonicalize(), y.canonicalize()), (Ok(p), Ok(q)) if p == q);
    if same(&a.run_a, &a.run_b) {
        eprintln!("warning: {da} and {db} are the same run folder: every bug ties (compare two runs)");
    }
    let c = Comparison::of(&ra, &rb);
    if c.bugs == 0 {
        anyhow::bail!(
            "cannot compare {da} with {db}: no bug ran in both (they share no bug with a result that is not infra)"
        );
    }
    if a.json {
        out!("{}", serde_json::json!({"run_a": a.run_a, "run_b": a.run_b, "comparison": c}))?;
    } else {
        out!("{}", c.markdown(&a.run_a.display().to_string(), &a.run_b.display().to_string()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `fixdex eval merge`.
pub fn merge(a: &MergeArgs) -> anyhow::Result<ExitCode> {
    let (run, copied) = batch::merge(&a.out, &a.shards)?;
    let todo = run.bugs.len() - copied;
    if a.json {
        out!("{}", serde_json::json!({"out": a.out, "bugs": run.bugs.len(), "copied": copied, "unfinished": todo}))?;
    } else {
        out!(
            "merged {} into {}: {}, {copied} with a result",
            summary::count(a.shards.len(), "shard"),
            a.out.display(),
            summary::count(run.bugs.len(), "bug")
        )?;
        if todo > 0 {
            out!(
                "{} without a result: finish them with --resume --run-dir {}",
                summary::count(todo, "bug"),
                a.out.display()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
