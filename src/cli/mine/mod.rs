//! `fixdex mine`: bug-fix pairs from git histories ([`indexer::mine`]) into a corpus JSONL
//! file that `fixdex label` and `fixdex index` read.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use indexer::mine::{Granularity, MineOptions, MineStats, MinedPair};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use signals::{publish, remove_on_signal, wait_if_interrupted};

mod signals;

/// `fixdex mine` options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Git repositories (a work tree or a bare repository; the path itself, not a parent)
    /// or git bundles (`git bundle create X.bundle --all`).
    #[arg(required = true)]
    repos: Vec<PathBuf>,
    /// The corpus JSONL file to write (replaced only when mining succeeds).
    #[arg(short, long)]
    output: PathBuf,
    /// One pair per modified method, or one per commit with all its methods.
    #[arg(long, value_parser = ["method", "commit"], default_value = "method")]
    granularity: String,
    /// Skip commits that change more than this many non-test files (any type; at least 1).
    #[arg(long, default_value_t = 5, value_parser = crate::cli::index::at_least(1))]
    max_files: usize,
    /// Skip commits that modify more than this many methods (refactorings; at least 1).
    #[arg(long, default_value_t = 10, value_parser = crate::cli::index::at_least(1))]
    max_methods: usize,
    /// Skip methods longer than this many bytes (either version), counted from the
    /// method's own start.
    #[arg(long, default_value_t = 20_000)]
    max_method_bytes: usize,
    /// Skip source files larger than this many bytes (either version) before reading or
    /// parsing them, as `too_large` (generated tables, minified code).
    #[arg(long, default_value_t = indexer::mine::DEFAULT_MAX_FILE_BYTES)]
    max_file_bytes: usize,
    /// Only commits committed on or after this date (`2015-01-31` or RFC 3339).
    #[arg(long)]
    since: Option<String>,
    /// Only commits committed before this date (`2020-01-01` or RFC 3339).
    #[arg(long)]
    until: Option<String>,
    /// Only the newest this many commits of each repository's walk within the dates (at
    /// least 1) [default: all].
    #[arg(long, value_parser = crate::cli::index::at_least(1))]
    max_commits: Option<usize>,
    /// Walk from these branches, tags or commits (repeatable) [default: every branch,
    /// remote branch and tag].
    #[arg(long)]
    branch: Vec<String>,
    /// No pairs of the changes outside methods (by default each file with a substantive
    /// change outside its methods, e.g. a field initialiser, a module constant or an added
    /// method, also gives one pair of those hunks, `meta.granularity` `hunk`).
    #[arg(long)]
    no_hunks: bool,
    /// The `project` field [default: each repository's folder or bundle name].
    #[arg(long)]
    project: Option<String>,
    /// Print the statistics as one JSON object (an array with several repositories) on
    /// stdout; no progress bar.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// Runs `fixdex mine`.
///
/// # Errors
/// A repository that cannot be opened or read, a bad date, an output that cannot be written.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    check_inputs(args)?;
    let output = check_output(args)?;
    let mut opts = options(args)?;
    // A second run on the same output is refused (the last rename would win silently).
    let lock = super::lock_output("--output", &output)?;
    let tmp = temp_path(&output);
    let scratch = scratch_dir()?;
    opts.temp_parent = Some(scratch.path().to_path_buf());
    remove_on_signal(vec![scratch.path().to_path_buf(), tmp.clone(), lock.path().to_path_buf()])?;
    let all_stats = mine_or_remove(args, &opts, &tmp)?;
    publish(&tmp, &output)?;
    report(args, &all_stats)?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `--output` ([`super::check_output`]; no repository may be overwritten, nor a file
/// that is not JSON lines: [`super::check_replaces`]): the file to write.
fn check_output(args: &Args) -> anyhow::Result<PathBuf> {
    let inputs: Vec<&Path> = args.repos.iter().map(PathBuf::as_path).collect();
    let target = super::check_output("--output", &args.output, &inputs)?;
    super::check_replaces("--output", &args.output, engine::output::Kind::JsonLines, "the mined pairs")?;
    Ok(target)
}

/// The temporary folder for the bundles' repositories (removed when dropped).
fn scratch_dir() -> anyhow::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("fixdex-mine-").tempdir().context("cannot create a temporary folder")
}

/// [`mine_into`]; when it fails, the temporary output `tmp` is removed (after a signal's
/// clean-up, if one is under way).
fn mine_or_remove(args: &Args, opts: &MineOptions, tmp: &Path) -> anyhow::Result<Vec<MineStats>> {
    mine_into(args, opts, tmp).inspect_err(|_| {
        wait_if_interrupted();
        let _ = std::fs::remove_file(tmp);
    })
}

/// Mines every repository into the temporary output `tmp` (flushed and synced): the
/// statistics of each.
fn mine_into(args: &Args, opts: &MineOptions, tmp: &Path) -> anyhow::Result<Vec<MineStats>> {
    let file = std::fs::File::create(tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let mut all_stats = Vec::new();
    for repo in &args.repos {
        let (pairs, stats) = mine_one(repo, opts, args.quiet || args.json)?;
        write_pairs(&mut out, &pairs).with_context(|| format!("cannot write {}", tmp.display()))?;
        all_stats.push(stats);
    }
    out.flush()?;
    out.get_ref().sync_all()?;
    Ok(all_stats)
}

/// Refuses a repository given twice (every id would repeat), and a `--project` that is
/// empty or given with several repositories.
fn check_inputs(args: &Args) -> anyhow::Result<()> {
    if args.project.is_some() && args.repos.len() > 1 {
        anyhow::bail!("--project names one project: give one repository, or leave it out to use each one's name");
    }
    refuse_repeats(&args.repos)?;
    if args.project.as_deref().is_some_and(|p| p.trim().is_empty()) {
        anyhow::bail!("--project: give a name (it starts every id)");
    }
    Ok(())
}

/// Refuses a repository given twice (by its canonical path).
fn refuse_repeats(repos: &[PathBuf]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    for repo in repos {
        if !seen.insert(std::fs::canonicalize(repo).unwrap_or_else(|_| repo.clone())) {
            anyhow::bail!("{} is given twice: its pairs (and ids) would repeat", repo.display());
        }
    }
    Ok(())
}

/// The mining options from the flags.
///
/// # Errors
/// A bad `--since` / `--until`, or `--until` not after `--since`.
fn options(args: &Args) -> anyhow::Result<MineOptions> {
    let (since, until) = date_range(args)?;
    Ok(MineOptions {
        granularity: if args.granularity == "commit" { Granularity::Commit } else { Granularity::Method },
        max_files: args.max_files,
        max_methods: args.max_methods,
        max_method_bytes: args.max_method_bytes,
        max_file_bytes: args.max_file_bytes,
        since,
        until,
        max_commits: args.max_commits,
        branches: args.branch.clone(),
        project: args.project.clone(),
        hunks: !args.no_hunks,
        temp_parent: None,
    })
}

/// `--since` and `--until` in Unix seconds.
///
/// # Errors
/// A value that is not a date or time; `--until` not after `--since`.
fn date_range(args: &Args) -> anyhow::Result<(Option<i64>, Option<i64>)> {
    let since = args.since.as_deref().map(|d| parse_date("--since", d)).transpose()?;
    let until = args.until.as_deref().map(|d| parse_date("--until", d)).transpose()?;
    if let (Some(s), Some(u)) = (since, until)
        && u <= s
    {
        anyhow::bail!(
            "--until {} is not after --since {}: no commit can match",
            args.until.as_deref().unwrap_or(""),
            args.since.as_deref().unwrap_or("")
        );
    }
    Ok((since, until))
}

/// Unix seconds of the date or time `text` given with `flag` ([`indexer::mine::parse_date`]).
fn parse_date(flag: &str, text: &str) -> anyhow::Result<i64> {
    indexer::mine::parse_date(text).map_err(|e| crate::cli::exit::Usage(format!("{flag} {text:?}: {e}")).into())
}

/// `OUTPUT.tmp-PID`, beside the output: where the pairs are written before the rename.
fn temp_path(output: &Path) -> PathBuf {
    let mut name = output.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".tmp-{}", std::process::id()));
    output.with_file_name(name)
}

/// The progress bar of mining `repo` on stderr (a hidden one when `hidden`).
fn bar(repo: &Path, hidden: bool) -> ProgressBar {
    let bar =
        if hidden { ProgressBar::hidden() } else { ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()) };
    let style = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} commits {per_sec} ETA {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(format!("mining {}", repo.display()));
    bar
}

/// Mines one repository ([`indexer::mine::mine`]) with a progress bar; warns about a
/// shallow clone unless `hidden`.
fn mine_one(repo: &Path, opts: &MineOptions, hidden: bool) -> anyhow::Result<(Vec<MinedPair>, MineStats)> {
    let bar = bar(repo, hidden);
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let result = indexer::mine::mine(repo, opts, &progress);
    bar.finish_and_clear();
    let (pairs, stats) = result?;
    if stats.shallow && !hidden {
        warn_shallow(repo);
    }
    Ok((pairs, stats))
}

/// The warning on stderr that `repo` is a shallow clone.
fn warn_shallow(repo: &Path) {
    eprintln!(
        "warning: {} is a shallow clone: its oldest commits have no parent here and are skipped (`git fetch --unshallow` for the whole history)",
        repo.display()
    );
}

/// Writes `pairs` as JSON lines.
fn write_pairs(out: &mut impl Write, pairs: &[MinedPair]) -> anyhow::Result<()> {
    for p in pairs {
        serde_json::to_writer(&mut *out, p)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The statistics: one JSON object (an array for several repositories) on stdout with
/// `--json`, else lines on stderr.
fn report(args: &Args, stats: &[MineStats]) -> anyhow::Result<()> {
    if args.json {
        return print_json(stats);
    }
    stats.iter().for_each(print_stats);
    eprintln!("wrote {}", args.output.display());
    Ok(())
}

/// The statistics as one JSON object on stdout (an array for several repositories).
fn print_json(stats: &[MineStats]) -> anyhow::Result<()> {
    let v = if stats.len() == 1 { serde_json::to_value(&stats[0])? } else { serde_json::to_value(stats)? };
    out!("{}", serde_json::to_string(&v)?)?;
    Ok(())
}

/// One repository's statistics on stderr: the counts, then the skipped ones by reason.
fn print_stats(s: &MineStats) {
    let shallow = if s.shallow { " (shallow clone: its oldest commits were skipped)" } else { "" };
    eprintln!(
        "{}{shallow}: {} commits scanned in {:.1} s ({:.0} commits/s), {} selected, {} with pairs, {} pairs",
        s.repository, s.commits_scanned, s.seconds, s.commits_per_s, s.commits_selected, s.commits_with_pairs, s.pairs
    );
    print_skipped(s);
}

/// The skipped commits, files and methods of `s` by reason, one line each kind, on stderr.
fn print_skipped(s: &MineStats) {
    for (what, map) in [("commits", &s.skipped_commits), ("files", &s.skipped_files), ("methods", &s.skipped_methods)] {
        if !map.is_empty() {
            let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k} {v}")).collect();
            eprintln!("  skipped {what}: {}", parts.join(", "));
        }
    }
}
