//! `fixdex mine`: bug-fix pairs (BFPs) from a git history, one per modified method
//! (or per commit), in the project's corpus schema (`../shared/data/README.md`).
//!
//! [`mine`] walks the commits of a repository or bundle ([`repo::Source`]), keeps the
//! bug-fix commits by their message ([`select::judge`]: fix keywords, issue references; no
//! merges, reverts or housekeeping) that change at most [`MineOptions::max_files`] non-test
//! files, and pairs each modified method before and after the commit with tree-sitter spans
//! ([`actions::methods`], [`commit::changes`]): test files, generated files, renames
//! without changes, binary and non-UTF-8 files, files tree-sitter cannot parse and changes
//! of layout, comments or (Python) docstrings only are skipped, each counted by reason in [`MineStats`].
//! Commits are processed in parallel (rayon); the output order is the walk's
//! (newest first, topological), then path, then source order, whatever the thread count.
//!
//! The rules follow the mining of `../shared/data/mined_git_history.jsonl` (its README):
//! a change inside a lambda, an anonymous class or a nested function belongs to the
//! enclosing method; the parent commit is the buggy version.

pub mod commit;
pub mod license;
pub mod repo;
pub mod select;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use git2::{Oid, Repository, Sort};
use rayon::prelude::*;
use serde::Serialize;

use self::commit::MethodChange;
use self::repo::Source;
use self::select::{Evidence, Verdict};
use crate::{Error, Result};

/// Why a commit, a file or a method yielded no pair: the keys of [`MineStats`]' maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// A merge commit (more than one parent).
    Merge,
    /// The first commit of the history: no parent to compare with.
    RootCommit,
    /// A commit at a shallow clone's boundary: its parent is not in the clone.
    ShallowBoundary,
    /// The message reverts a commit.
    Revert,
    /// A housekeeping subject (typo, javadoc, formatting, CI, ...) without an issue reference.
    Housekeeping,
    /// No fix keyword and no issue reference in the message.
    NoFixEvidence,
    /// A subject announcing new work (`Add …`, `Implement …`) and no fix keyword.
    Feature,
    /// More non-test files changed than `--max-files`.
    TooManyFiles,
    /// No non-test source file changed (only build files, docs, data, tests).
    NoSourceChange,
    /// Source files changed, but none in Java or Python (a Go-only fix, say); as a file:
    /// a non-test source file in another language.
    UnsupportedLanguage,
    /// Source files changed, but no method's code changed (fields, imports, layout only).
    NoMethodChanged,
    /// More modified methods than `--max-methods` (a refactoring more than a fix).
    TooManyMethods,
    /// A test file.
    TestFile,
    /// A generated file.
    Generated,
    /// An added (or copied) file: no buggy version.
    AddedFile,
    /// A deleted file: no fixed version.
    DeletedFile,
    /// A rename without content change.
    RenameOnly,
    /// A symbolic link (its "content" is the target path), either version.
    Symlink,
    /// A file larger than `--max-file-bytes` (either version), skipped before it is read
    /// or parsed: a generated table, a minified bundle, a data file with a source suffix.
    TooLarge,
    /// A binary file.
    Binary,
    /// A file that is not UTF-8.
    NonUtf8,
    /// A file with a syntax error (either version).
    ParseError,
    /// A blob missing from the object database (a damaged or partial clone).
    MissingObject,
    /// A change libgit2 reports that is none of the above (type change, ...).
    Unsupported,
    /// A method whose change is layout, comments or docstrings only.
    LayoutOrCommentOnly,
    /// A method longer than `--max-method-bytes` on either side.
    MethodTooLong,
    /// A method only in the fixed version.
    MethodAdded,
    /// A method only in the buggy version.
    MethodRemoved,
}

impl Skip {
    /// The reason's name in the `--json` stats.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Merge => "merge",
            Skip::RootCommit => "root_commit",
            Skip::ShallowBoundary => "shallow_boundary",
            Skip::Revert => "revert",
            Skip::Housekeeping => "housekeeping",
            Skip::NoFixEvidence => "no_fix_evidence",
            Skip::Feature => "feature",
            Skip::TooManyFiles => "too_many_files",
            Skip::NoSourceChange => "no_source_change",
            Skip::UnsupportedLanguage => "unsupported_language",
            Skip::NoMethodChanged => "no_method_changed",
            Skip::TooManyMethods => "too_many_methods",
            Skip::TestFile => "test_file",
            Skip::Generated => "generated",
            Skip::AddedFile => "added_file",
            Skip::DeletedFile => "deleted_file",
            Skip::RenameOnly => "rename_only",
            Skip::Symlink => "symlink",
            Skip::TooLarge => "too_large",
            Skip::Binary => "binary",
            Skip::NonUtf8 => "non_utf8",
            Skip::ParseError => "parse_error",
            Skip::MissingObject => "missing_object",
            Skip::Unsupported => "unsupported_change",
            Skip::LayoutOrCommentOnly => "layout_or_comment_only",
            Skip::MethodTooLong => "method_too_long",
            Skip::MethodAdded => "method_added",
            Skip::MethodRemoved => "method_removed",
        }
    }
}

/// Default of [`MineOptions::max_file_bytes`]: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: usize = 1 << 20;

/// One pair per modified method, or one per commit with all its methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Granularity {
    /// One pair per modified method (the default).
    #[default]
    Method,
    /// One pair per commit (and language): its methods joined by a blank line.
    Commit,
}

/// What to mine and how.
#[derive(Debug, Clone)]
pub struct MineOptions {
    /// Pair granularity.
    pub granularity: Granularity,
    /// Most changed non-test files (any type) of a selected commit (default 5).
    pub max_files: usize,
    /// Most modified methods of a selected commit (default 10).
    pub max_methods: usize,
    /// Longest method kept, bytes on either side (default 20,000), measured from the
    /// method's own start ([`actions::Method::bytes`]).
    pub max_method_bytes: usize,
    /// Largest source file read, bytes on either side of a commit (default 1 MiB): a
    /// larger one is skipped as `too_large` before its blob is loaded or parsed, which
    /// bounds a worker's memory and time per file (a 5 MB generated file cost 30 s and
    /// 1.7 GB to parse).
    pub max_file_bytes: usize,
    /// Only commits whose committer time is at or after this (Unix seconds).
    pub since: Option<i64>,
    /// Only commits whose committer time is before this (Unix seconds).
    pub until: Option<i64>,
    /// Only the first this many commits of the walk (newest first) within the dates; `None`:
    /// all. A sample of a large history, or a quick try.
    pub max_commits: Option<usize>,
    /// Start the walk at these refs or revisions (`master`, `origin/main`, a SHA); empty:
    /// every branch, remote branch and tag.
    pub branches: Vec<String>,
    /// The `project` field; default: the repository's name ([`Source::name`]).
    pub project: Option<String>,
    /// Also emit, per file, one pair of the changes outside its methods
    /// ([`commit::outside_hunks`]: field initialisers, module constants, added methods);
    /// default true.
    pub hunks: bool,
    /// Where a bundle's temporary repository is made (`fixdex mine` gives a folder it
    /// removes on Ctrl-C); default: the system's temporary folder.
    pub temp_parent: Option<std::path::PathBuf>,
}

impl Default for MineOptions {
    fn default() -> Self {
        MineOptions {
            granularity: Granularity::Method,
            max_files: 5,
            max_methods: 10,
            max_method_bytes: 20_000,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            since: None,
            until: None,
            max_commits: None,
            branches: Vec::new(),
            project: None,
            hunks: true,
            temp_parent: None,
        }
    }
}

/// One mined bug-fix pair, serialised as one corpus row (JSONL).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinedPair {
    /// `PROJECT:SHORTSHA:path:method` (method granularity) or `PROJECT:SHORTSHA` (commit).
    pub id: String,
    /// `mined:<repository name>`.
    pub source: String,
    /// The project name.
    pub project: String,
    /// `java` or `python`.
    pub language: String,
    /// The method(s) in the parent commit.
    pub buggy_code: String,
    /// The method(s) in the commit.
    pub fixed_code: String,
    /// The commit message, trimmed.
    pub description: String,
    /// Unified diff buggy → fixed of the method(s), headers `a/PATH` / `b/PATH`, line
    /// numbers relative to the method.
    pub diff: String,
    /// The repository's licence ([`license::recognise`]) or `unknown`.
    pub license: String,
    /// Provenance: `commit`, `parent`, `author_date` (RFC 3339), `path` / `paths`,
    /// `function` / `functions`, `granularity`, `functions_changed_in_commit`, `evidence`.
    pub meta: serde_json::Value,
}

/// What a mining run did, for `--json` and the summary.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MineStats {
    /// The repository or bundle path given.
    pub repository: String,
    /// Whether it was a bundle.
    pub bundle: bool,
    /// Whether it is a shallow clone (its oldest commits have no parent here).
    pub shallow: bool,
    /// Commits walked within `--since`/`--until`.
    pub commits_scanned: u64,
    /// Commits that passed the message, merge and file-count rules.
    pub commits_selected: u64,
    /// Selected commits that gave at least one pair.
    pub commits_with_pairs: u64,
    /// Pairs written.
    pub pairs: u64,
    /// Pairs dropped because an older commit gave the same pair (same language, buggy and
    /// fixed code): a fix cherry-picked or merged onto another branch.
    pub duplicate_pairs: u64,
    /// Commits not selected or without pairs, by reason.
    pub skipped_commits: BTreeMap<&'static str, u64>,
    /// Files of selected commits skipped, by reason.
    pub skipped_files: BTreeMap<&'static str, u64>,
    /// Methods of selected commits skipped, by reason.
    pub skipped_methods: BTreeMap<&'static str, u64>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// `commits_scanned / seconds`.
    pub commits_per_s: f64,
}

/// A selected commit's outcome.
#[derive(Debug)]
enum Outcome {
    Skipped(Skip),
    Mined { info: CommitInfo, changes: commit::Changes },
    Empty { skip: Skip, changes: commit::Changes },
}

/// What a row needs to know of its commit.
#[derive(Debug)]
struct CommitInfo {
    oid: Oid,
    parent: Oid,
    message: String,
    author_date: String,
    evidence: Evidence,
}

/// Mines the repository or bundle at `path`. `progress(done, total)` is called after each
/// commit (from worker threads).
///
/// # Errors
/// [`Error::File`] when `path` is not a repository or bundle, a `--branch` is unknown, or
/// libgit2 cannot read the history (a damaged repository); nothing is returned then.
pub fn mine(
    path: &Path,
    opts: &MineOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<MinedPair>, MineStats)> {
    let start = Instant::now();
    let source = Source::open(path, opts.temp_parent.as_deref())?;
    let repo = source.repo()?;
    let oids = walk(&repo, &source, opts)?;
    let context = RowContext {
        project: opts.project.clone().unwrap_or_else(|| source.name()),
        source: format!("mined:{}", source.name()),
        license: oids.first().and_then(|o| licence_at(&repo, *o)).unwrap_or_else(|| "unknown".into()),
    };
    let total = oids.len() as u64;
    let done = AtomicU64::new(0);
    let outcomes: Vec<Result<Outcome>> = oids
        .par_iter()
        .map_init(
            || source.repo(),
            |repo, oid| {
                let out = match repo {
                    Ok(repo) => mine_commit(repo, *oid, opts, &source),
                    Err(e) => Err(Error::File { path: source.given.clone(), reason: e.to_string() }),
                };
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                out
            },
        )
        .collect();
    let mut stats = MineStats {
        repository: path.display().to_string(),
        bundle: source.bundle,
        shallow: source.shallow,
        commits_scanned: total,
        ..MineStats::default()
    };
    let mut pairs = Vec::new();
    for outcome in outcomes {
        tally(outcome?, opts, &context, &mut stats, &mut pairs);
    }
    let (pairs, duplicates) = dedup(pairs);
    stats.duplicate_pairs = duplicates;
    stats.pairs = pairs.len() as u64;
    stats.seconds = start.elapsed().as_secs_f64();
    stats.commits_per_s = if stats.seconds > 0.0 { total as f64 / stats.seconds } else { 0.0 };
    Ok((pairs, stats))
}

/// `pairs` without the repeats of a pair (same language, buggy and fixed code): the oldest
/// commit's row is kept (the walk is newest first), the order is otherwise unchanged.
fn dedup(pairs: Vec<MinedPair>) -> (Vec<MinedPair>, u64) {
    let mut seen = std::collections::HashSet::new();
    let mut keep = vec![false; pairs.len()];
    for (i, p) in pairs.iter().enumerate().rev() {
        keep[i] = seen.insert((p.language.as_str(), p.buggy_code.as_str(), p.fixed_code.as_str()));
    }
    let dropped = keep.iter().filter(|k| !**k).count() as u64;
    let kept = pairs.into_iter().zip(keep).filter_map(|(p, k)| k.then_some(p)).collect();
    (kept, dropped)
}

fn tally(
    outcome: Outcome,
    opts: &MineOptions,
    context: &RowContext,
    stats: &mut MineStats,
    pairs: &mut Vec<MinedPair>,
) {
    let count_parts = |changes: &commit::Changes, stats: &mut MineStats| {
        stats.commits_selected += 1;
        for s in &changes.skipped_files {
            *stats.skipped_files.entry(s.as_str()).or_default() += 1;
        }
        for s in &changes.skipped_methods {
            *stats.skipped_methods.entry(s.as_str()).or_default() += 1;
        }
    };
    match outcome {
        Outcome::Skipped(skip) => {
            *stats.skipped_commits.entry(skip.as_str()).or_default() += 1;
        }
        Outcome::Empty { skip, changes } => {
            count_parts(&changes, stats);
            *stats.skipped_commits.entry(skip.as_str()).or_default() += 1;
        }
        Outcome::Mined { info, changes } => {
            count_parts(&changes, stats);
            stats.commits_with_pairs += 1;
            pairs.extend(rows(&info, &changes.methods, opts.granularity, context));
        }
    }
}

/// The commits to mine, in walk order (topological, newest first), within the dates, at most
/// [`MineOptions::max_commits`].
fn walk(repo: &Repository, source: &Source, opts: &MineOptions) -> Result<Vec<Oid>> {
    let fail = |e: git2::Error| Error::File {
        path: source.given.clone(),
        reason: format!("cannot walk the history: {}", e.message()),
    };
    let mut walk = repo.revwalk().map_err(fail)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).map_err(fail)?;
    if opts.branches.is_empty() {
        for glob in ["refs/heads/*", "refs/remotes/*", "refs/tags/*"] {
            walk.push_glob(glob).map_err(fail)?;
        }
        if repo.head().is_ok() {
            walk.push_head().map_err(fail)?;
        }
    } else {
        for name in &opts.branches {
            let commit = repo.revparse_single(name).and_then(|o| o.peel_to_commit()).map_err(|e| Error::File {
                path: source.given.clone(),
                reason: format!("--branch {name}: {}", e.message()),
            })?;
            walk.push(commit.id()).map_err(fail)?;
        }
    }
    let mut oids = Vec::new();
    for oid in walk {
        if opts.max_commits.is_some_and(|m| oids.len() >= m) {
            break;
        }
        let oid = oid.map_err(fail)?;
        let time = repo.find_commit(oid).map_err(fail)?.time().seconds();
        if opts.since.is_none_or(|s| time >= s) && opts.until.is_none_or(|u| time < u) {
            oids.push(oid);
        }
    }
    Ok(oids)
}

/// One commit's outcome. Errors name the path the user gave (a bundle's temporary
/// repository is gone by the time they are read).
fn mine_commit(repo: &Repository, oid: Oid, opts: &MineOptions, source: &Source) -> Result<Outcome> {
    let shallow = source.shallow;
    let damaged =
        |e: git2::Error| Error::File { path: source.given.clone(), reason: format!("commit {oid}: {}", e.message()) };
    let commit = repo.find_commit(oid).map_err(damaged)?;
    let parent = match commit.parent_count() {
        0 if shallow => return Ok(Outcome::Skipped(Skip::ShallowBoundary)),
        0 => return Ok(Outcome::Skipped(Skip::RootCommit)),
        1 => commit.parent_id(0).map_err(damaged)?,
        _ => return Ok(Outcome::Skipped(Skip::Merge)),
    };
    let message = String::from_utf8_lossy(commit.message_bytes()).trim().to_string();
    let evidence = match select::judge(&message) {
        Verdict::Fix(e) => e,
        Verdict::Skip(skip) => return Ok(Outcome::Skipped(skip)),
    };
    let info = CommitInfo { oid, parent, author_date: author_date(&commit), message, evidence };
    Ok(match commit::changes(repo, parent, oid, opts).map_err(damaged)? {
        (_, Some(Skip::TooManyFiles)) => Outcome::Skipped(Skip::TooManyFiles),
        (changes, Some(skip)) => Outcome::Empty { skip, changes },
        (changes, None) => Outcome::Mined { info, changes },
    })
}

/// The author date as RFC 3339 in the author's offset (`2008-07-26T13:01:02+01:00`).
fn author_date(commit: &git2::Commit<'_>) -> String {
    let t = commit.author().when();
    let offset = jiff::tz::Offset::from_seconds(t.offset_minutes() * 60).unwrap_or(jiff::tz::Offset::UTC);
    jiff::Timestamp::from_second(t.seconds()).map(|ts| ts.display_with_offset(offset).to_string()).unwrap_or_default()
}

/// The licence stated by a licence file at the root of `oid`'s tree.
fn licence_at(repo: &Repository, oid: Oid) -> Option<String> {
    let tree = repo.find_commit(oid).ok()?.tree().ok()?;
    tree.iter().find_map(|entry| {
        let name = entry.name().ok()?.to_ascii_lowercase();
        if !license::FILE_PREFIXES.iter().any(|p| name.starts_with(p)) {
            return None;
        }
        let blob = repo.find_blob(entry.id()).ok()?;
        license::recognise(&String::from_utf8_lossy(blob.content()))
    })
}

/// The fields every row of a repository shares.
#[derive(Debug)]
struct RowContext {
    project: String,
    source: String,
    license: String,
}

/// The rows of one mined commit.
fn rows(info: &CommitInfo, methods: &[MethodChange], granularity: Granularity, context: &RowContext) -> Vec<MinedPair> {
    let rows = Rows { info, context, short: info.oid.to_string()[..12].to_string() };
    let meta = serde_json::json!({
        "commit": info.oid.to_string(),
        "parent": info.parent.to_string(),
        "author_date": info.author_date,
        "functions_changed_in_commit": methods.iter().filter(|m| !m.hunks).count(),
        "evidence": info.evidence,
    });
    match granularity {
        Granularity::Method => methods.iter().map(|m| rows.method(m, meta.clone())).collect(),
        Granularity::Commit => {
            let mut languages: Vec<&str> = methods.iter().map(lang_name).collect();
            languages.sort_unstable();
            languages.dedup();
            let several = languages.len() > 1;
            languages.iter().map(|lang| rows.commit(methods, lang, several, meta.clone())).collect()
        }
    }
}

/// Builds the rows of one commit ([`rows`]).
struct Rows<'a> {
    info: &'a CommitInfo,
    context: &'a RowContext,
    /// The commit's SHA, first 12 hex digits.
    short: String,
}

impl Rows<'_> {
    fn row(
        &self,
        id: String,
        language: &str,
        code: (String, String),
        diff: String,
        meta: serde_json::Value,
    ) -> MinedPair {
        MinedPair {
            id,
            source: self.context.source.clone(),
            project: self.context.project.clone(),
            language: language.to_string(),
            buggy_code: code.0,
            fixed_code: code.1,
            description: self.info.message.clone(),
            diff,
            license: self.context.license.clone(),
            meta,
        }
    }

    /// One method's row (or one file's hunks row).
    fn method(&self, m: &MethodChange, mut meta: serde_json::Value) -> MinedPair {
        meta["granularity"] = if m.hunks { "hunk" } else { "function" }.into();
        meta["path"] = m.path.clone().into();
        if let Some(old) = &m.old_path {
            meta["old_path"] = old.clone().into();
        }
        if !m.hunks {
            meta["function"] = m.key.clone().into();
        }
        let id = format!("{}:{}:{}:{}", self.context.project, self.short, m.path, m.key);
        self.row(id, lang_name(m), (m.buggy.clone(), m.fixed.clone()), method_diff(m), meta)
    }

    /// The commit's row for one language: its methods joined by a blank line.
    fn commit(&self, methods: &[MethodChange], lang: &str, several: bool, mut meta: serde_json::Value) -> MinedPair {
        let ms: Vec<&MethodChange> = methods.iter().filter(|m| lang_name(m) == lang).collect();
        meta["granularity"] = "commit".into();
        let paths: std::collections::BTreeSet<&str> = ms.iter().map(|m| m.path.as_str()).collect();
        meta["paths"] = paths.into_iter().collect::<Vec<_>>().into();
        meta["functions"] = ms.iter().map(|m| format!("{}:{}", m.path, m.key)).collect::<Vec<_>>().into();
        let (project, short) = (&self.context.project, &self.short);
        let id = if several { format!("{project}:{short}:{lang}") } else { format!("{project}:{short}") };
        let join = |f: fn(&MethodChange) -> &str| ms.iter().map(|m| f(m)).collect::<Vec<_>>().join("\n\n");
        let diff = ms.iter().map(|m| method_diff(m)).collect::<String>();
        self.row(id, lang, (join(|m| &m.buggy), join(|m| &m.fixed)), diff, meta)
    }
}

fn lang_name(m: &MethodChange) -> &'static str {
    match m.language {
        actions::Language::Java => "java",
        actions::Language::Python => "python",
    }
}

/// The method's unified diff (3 lines of context), line numbers relative to the method.
/// Both sides are diffed with a final newline (a method's text ends at its last character),
/// so no `\ No newline at end of file` marks appear.
fn method_diff(m: &MethodChange) -> String {
    let old = m.old_path.as_deref().unwrap_or(&m.path);
    let line_end = |s: &str| if s.ends_with('\n') { s.to_string() } else { format!("{s}\n") };
    similar::TextDiff::from_lines(&line_end(&m.buggy), &line_end(&m.fixed))
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{old}"), &format!("b/{}", m.path))
        .to_string()
}

/// Why [`parse_date`] refused a `--since` / `--until` value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DateError {
    /// Neither an RFC 3339 time nor a civil date or date-time.
    #[error("not a date (2015-01-31) or RFC 3339 time: {0}")]
    NotADate(jiff::Error),
    /// A civil date-time that has no UTC timestamp (out of range).
    #[error("{0}")]
    OutOfRange(jiff::Error),
}

/// Unix seconds of `2015-01-31` (midnight UTC), a time without offset (`2015-01-31T08:00`,
/// UTC) or an RFC 3339 time: the bounds of [`MineOptions::since`] and
/// [`MineOptions::until`]. (A civil date parse would accept a date-time and drop its time.)
///
/// # Errors
/// [`DateError::NotADate`] for text that is none of those, [`DateError::OutOfRange`] for a
/// date-time outside the timestamp range.
pub fn parse_date(text: &str) -> std::result::Result<i64, DateError> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts.as_second());
    }
    let datetime: jiff::civil::DateTime = text.parse().map_err(DateError::NotADate)?;
    Ok(jiff::tz::Offset::UTC.to_timestamp(datetime).map_err(DateError::OutOfRange)?.as_second())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_times_and_offsets_give_unix_seconds() {
        assert_eq!(parse_date("2015-01-31").unwrap(), 1_422_662_400);
        assert_eq!(parse_date("2015-01-31T08:00").unwrap(), 1_422_662_400 + 8 * 3600);
        assert_eq!(parse_date("2015-01-31T08:00:00+01:00").unwrap(), 1_422_662_400 + 7 * 3600);
        let err = parse_date("yesterday").unwrap_err();
        assert!(matches!(err, DateError::NotADate(_)));
        assert!(err.to_string().starts_with("not a date (2015-01-31) or RFC 3339 time: "));
    }
}
