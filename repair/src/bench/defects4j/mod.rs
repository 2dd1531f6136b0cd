//! The Defects4J harness, without Docker and without a Defects4J installation (issue 31).
//!
//! A bug is materialised the way Defects4J does it ([`workspace`]): the fixed revision from a
//! git repository or bundle of the upstream project (`git archive`), the buggy version by
//! applying Defects4J's `patches/<id>.src.patch` to a copy (the patch goes fixed → buggy), the
//! trigger, relevant and modified lists from the project's metadata folder ([`meta`]). Both
//! versions are compiled with plain `javac --release 8` against the jars the shipped table
//! names ([`deps`]), and tests run through fixdex's own small JUnit runner
//! (`FixdexJUnitRunner.java`, compiled once per JDK) with `TZ=America/Los_Angeles` and the
//! `en_US` locale, as Defects4J pins them.
//!
//! With an installed Defects4J (`--d4j-home`, [`installed`]), its `defects4j checkout`,
//! `compile` and `export` set the bug up instead; the gold check and validation stay these.
//!
//! The **gold check** ([`check`]) comes first: the fixed version compiles and passes its
//! trigger tests, the buggy version fails at least one. A bug that fails it is `infra`, never
//! unfixed. Its result is cached in the bug's work folder, keyed by everything it depends on.
//!
//! **Fast validation** ([`validation`]): a candidate recompiles only the source files it
//! changed, against the buggy version's classes, and runs the trigger tests first, then the
//! relevant test classes (minus the tests that fail on the fixed version) only when the
//! triggers pass, in one JVM.

pub mod check;
pub mod deps;
pub mod eval;
pub mod installed;
pub mod meta;
pub mod validation;
pub mod workspace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use check::Check;
pub use eval::Repairer;
pub use installed::Installed;
pub use meta::{BugId, BugMeta, Project};
pub use validation::{Localization, Prepared};

/// What can keep a Defects4J bug from being set up: each is `infra` for the bug (the run goes
/// on with the others) and names the bug's input that failed and what to do.
#[derive(Debug, thiserror::Error)]
pub enum D4jError {
    /// A metadata file is missing or malformed.
    #[error("Defects4J metadata {path}{}: {reason}", row.map(|r| format!(", row {r}")).unwrap_or_default())]
    Meta {
        /// The file (or folder).
        path: PathBuf,
        /// The 1-based row, for a malformed row.
        row: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// A bug selection (`--bugs`, `--bugs-file`) is malformed or selects nothing: a usage
    /// error.
    #[error("{reason}")]
    Selection {
        /// What is wrong, naming the item (and the file and line of a `--bugs-file`).
        reason: String,
    },
    /// A jar a project needs is missing.
    #[error("{project}: jar {jar} is missing: {hint}")]
    Jar {
        /// The project.
        project: String,
        /// The jar (a path, or a file name).
        jar: PathBuf,
        /// What to install or pass.
        hint: String,
    },
    /// The project's repository is missing, or lacks the revision.
    #[error("{bug}: {reason}")]
    Repo {
        /// The bug.
        bug: String,
        /// What is wrong and what to do.
        reason: String,
    },
    /// A tool (git, javac, java, tar) failed or could not be started.
    #[error("{bug}: {step} failed: {detail}")]
    Tool {
        /// The bug.
        bug: String,
        /// The step (`applying patches/3.src.patch`, `compiling the fixed version`).
        step: String,
        /// The tool's error output (its tail).
        detail: String,
    },
    /// A file of the work folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl D4jError {
    pub(crate) fn meta(path: &Path, reason: impl Into<String>) -> D4jError {
        D4jError::Meta { path: path.to_path_buf(), row: None, reason: reason.into() }
    }

    pub(crate) fn row(path: &Path, row: usize, reason: impl Into<String>) -> D4jError {
        D4jError::Meta { path: path.to_path_buf(), row: Some(row), reason: reason.into() }
    }

    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> D4jError + '_ {
        move |source| D4jError::Io { path: path.to_path_buf(), source }
    }

    /// The message for a line already headed by the bug's id (a run's `infra` reason, the
    /// progress line `Cli-32: infra: …`): [`D4jError::Repo`] and [`D4jError::Tool`] without
    /// their leading `BUG: `, every other error as its `Display`.
    #[must_use]
    pub fn detail(&self) -> String {
        match self {
            D4jError::Repo { reason, .. } => reason.clone(),
            D4jError::Tool { step, detail, .. } => format!("{step} failed: {detail}"),
            other => other.to_string(),
        }
    }
}

/// Where a Defects4J run finds its inputs and keeps its work.
#[derive(Debug, Clone)]
pub struct Harness {
    /// The metadata folder: one folder per project (`--d4j-meta`, Defects4J's
    /// `framework/projects`).
    pub meta: PathBuf,
    /// The upstream repository of each project (`--repo Cli=PATH`): a work tree, a bare
    /// repository or a bundle.
    pub repos: BTreeMap<String, PathBuf>,
    /// Folders whose jars add to or override the table's (`--jars`).
    pub jars: Vec<PathBuf>,
    /// Folders holding the jars Defects4J ships (default: `lib/` beside the metadata folder).
    pub lib_dirs: Vec<PathBuf>,
    /// The Debian jar folder ([`deps::java_dir`]).
    pub java_dir: PathBuf,
    /// The work folder: repositories cloned from bundles, one folder per bug (its checkouts,
    /// classes and cached gold check).
    pub work: PathBuf,
    /// Wall-clock limit of one test run of the gold check.
    pub test_timeout: Duration,
    /// An installed Defects4J that checks out, builds and exports bugs instead of fixdex's
    /// own set-up (`--d4j-home`, [`installed`]); `repos`, `jars` and the jar table are then
    /// unused.
    pub installed: Option<Installed>,
}

impl Harness {
    /// A harness over metadata folder `meta`, work folder `work` (both made absolute: builds
    /// and test runs start in other folders), the jars `lib/` beside `meta` and the Debian
    /// folder; no repositories yet.
    #[must_use]
    pub fn new(meta: &Path, work: &Path) -> Harness {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let (meta, work) = (&absolute(meta), &absolute(work));
        let lib = meta.parent().map(|p| p.join("lib")).into_iter().filter(|d| d.is_dir()).collect();
        Harness {
            meta: meta.to_path_buf(),
            repos: BTreeMap::new(),
            jars: Vec::new(),
            lib_dirs: lib,
            java_dir: deps::java_dir(),
            work: work.to_path_buf(),
            test_timeout: Duration::from_secs(300),
            installed: None,
        }
    }

    /// The default work folder: `$XDG_CACHE_HOME/fixdex/defects4j`, else
    /// `~/.cache/fixdex/defects4j`, else a folder under the temporary directory.
    #[must_use]
    pub fn default_work() -> PathBuf {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir);
        cache.join("fixdex").join("defects4j")
    }

    /// The bugs `spec` names (`Cli-1,Cli-5..9,JxPath`: single bugs, ranges of numbers and
    /// whole projects), in the order given, without repeats; deprecated numbers in a range
    /// are passed over, a single one is an error.
    ///
    /// # Errors
    /// [`D4jError::Selection`] for a malformed item, an unknown project, an unknown or
    /// deprecated bug, a range that selects no bug, or a `spec` that names none;
    /// [`D4jError::Meta`] for metadata that cannot be read.
    pub fn select(&self, spec: &str) -> Result<Vec<BugId>, D4jError> {
        let items: Vec<(&str, String)> = spec
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|i| (i, format!("--bugs item `{i}`")))
            .collect();
        if items.is_empty() {
            return Err(D4jError::Selection {
                reason: format!("--bugs `{spec}` names no bug: write Cli-1,Cli-5..9,JxPath"),
            });
        }
        self.select_items(&items)
    }

    /// The bugs of `items` (each with how to name it in an error).
    fn select_items(&self, items: &[(&str, String)]) -> Result<Vec<BugId>, D4jError> {
        let mut out: Vec<BugId> = Vec::new();
        let mut projects: BTreeMap<String, Project> = BTreeMap::new();
        for (item, named) in items {
            let item = *item;
            let bad = |reason: String| D4jError::Selection { reason: format!("{named}: {reason}") };
            let (head, upper) = match item.split_once("..") {
                Some((h, u)) => (h, Some(u.parse::<u32>().map_err(|_| bad("the end of a range is a number".into()))?)),
                None => (item, None),
            };
            let whole = !head.contains('-');
            let name = if whole { head.to_string() } else { head.parse::<BugId>().map_err(bad)?.project };
            if !projects.contains_key(&name) {
                let project = match Project::open(&self.meta, &name) {
                    // An unknown project is a selection error (exit 2), unreadable metadata not.
                    Err(e) if !self.meta.join(&name).is_dir() => return Err(bad(e.to_string())),
                    opened => opened?,
                };
                projects.insert(name.clone(), project);
            }
            let project = &projects[&name];
            let ids: Vec<BugId> = if whole {
                project.ids()
            } else {
                let first = head.parse::<BugId>().map_err(bad)?;
                match upper {
                    None => {
                        // An unknown or deprecated number is a selection error (exit 2); damaged
                        // metadata of an active bug stays a metadata error.
                        if !project.ids().contains(&first) {
                            let why = project.bug(first.number).err().map_or_else(String::new, |e| e.to_string());
                            return Err(bad(why));
                        }
                        project.bug(first.number)?;
                        vec![first]
                    }
                    Some(u) => {
                        let ids: Vec<BugId> =
                            project.ids().into_iter().filter(|b| (first.number..=u).contains(&b.number)).collect();
                        if ids.is_empty() {
                            return Err(bad(if u < first.number {
                                "the range is empty: write it low..high".into()
                            } else {
                                "the range holds no active bug".into()
                            }));
                        }
                        ids
                    }
                }
            };
            for id in ids {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        Ok(out)
    }

    /// The bugs listed in `path` (one spec item per line, `#` comments).
    ///
    /// # Errors
    /// [`D4jError::Selection`] for a file that cannot be read or lists no bug, and
    /// [`Harness::select`]'s errors (naming the file and line).
    pub fn select_file(&self, path: &Path) -> Result<Vec<BugId>, D4jError> {
        // A byte-order mark opening the file (Windows editors) is not part of the first id;
        // a UTF-16 file is named as such.
        // A file that is missing, unreadable or in another encoding is a bad selection, as a
        // bad id in it is (a usage error that names the flag).
        let text = engine::text::read_utf8(path)
            .map_err(|e| D4jError::Selection { reason: format!("--bugs-file {}: {e}", path.display()) })?;
        let mut items = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for item in line.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                items.push((item, format!("--bugs-file {}, line {}: `{item}`", path.display(), i + 1)));
            }
        }
        if items.is_empty() {
            return Err(D4jError::Selection { reason: format!("--bugs-file {} lists no bug", path.display()) });
        }
        self.select_items(&items)
    }

    /// Materialises, builds and gold-checks `id` (cached), and returns what a repair of it
    /// needs.
    ///
    /// # Errors
    /// [`D4jError`] for every input that fails (the bug is then `infra`). A failed gold check
    /// is not an error: it is in [`Prepared::check`].
    pub fn prepare(&self, id: &BugId) -> Result<Prepared, D4jError> {
        let project = Project::open(&self.meta, &id.project)?;
        if let Some(installed) = &self.installed {
            return workspace::prepare_installed(self, installed, project.bug_without_layout(id.number)?);
        }
        let meta = project.bug(id.number)?;
        let jars = deps::resolve(&id.project, &self.java_dir, &self.lib_dirs, &self.jars)?;
        workspace::prepare(self, meta, jars)
    }

    /// The commits of `meta`'s project from before its fix: every ancestor of the fixed
    /// revision's parents in the project's `--repo` (`git rev-list REV^@`), as full hashes.
    /// What a developer fixing the bug had in the project's history, and nothing later:
    /// `fixdex eval defects4j --own-history` keeps the index's fixes of the bug's project
    /// made by these commits ([`history_ids`]). O(commits).
    ///
    /// # Errors
    /// [`D4jError::Repo`] when the project has no `--repo` (an installed Defects4J's
    /// checkouts carry no history), it lacks the revision or it is a shallow clone (whose
    /// history is cut short); [`D4jError::Tool`] when `git` fails.
    pub fn history(&self, meta: &BugMeta) -> Result<std::collections::HashSet<String>, D4jError> {
        workspace::history(self, meta)
    }
}

/// The ids of `docs` (the index's documents of a bug's project,
/// [`crate::retrieve::Retriever::project_docs`]) whose `meta.commit` is in `history`
/// ([`Harness::history`]): the project's fixes from before the bug, in the order given. A
/// document without a full commit hash in its metadata (a Defects4J or ManySStuBs4J record)
/// is never kept: nothing says when it was made. Records mined by `fixdex mine` and the
/// shared corpus's `mined_git_history` carry `meta.commit`.
#[must_use]
pub fn history_ids(docs: &[engine::Record], history: &std::collections::HashSet<String>) -> Vec<String> {
    docs.iter().filter(|d| commit_of(d).is_some_and(|c| history.contains(&c))).map(|d| d.id.clone()).collect()
}

/// The full commit hash (40 hex digits, lower case) in `doc`'s `meta.commit`, if any: what
/// [`history_ids`] compares with the history; an abbreviated or malformed one is `None`.
#[must_use]
pub fn commit_of(doc: &engine::Record) -> Option<String> {
    let meta: serde_json::Value = serde_json::from_str(&doc.meta).ok()?;
    let c = meta.get("commit")?.as_str()?;
    (c.len() == 40 && c.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))).then(|| c.to_string())
}
