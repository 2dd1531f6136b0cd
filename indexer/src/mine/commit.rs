//! One commit's modified methods before and after ([`changes`]): the per-commit work of
//! `fixdex mine`, run in parallel over commits.

use std::collections::{HashMap, HashSet};

use actions::{Language, Method};
use git2::{Delta, DiffOptions, Oid, Repository};

use super::select::{is_generated, is_test_path};
use super::{MineOptions, Skip};

/// One modified method: the same method (by [`Method::key`]) in the parent and in the
/// commit, with a change beyond layout and comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodChange {
    /// Path in the commit (`/`-separated).
    pub path: String,
    /// Path in the parent when the file was renamed with changes.
    pub old_path: Option<String>,
    /// The file's language.
    pub language: Language,
    /// [`Method::key`] in the commit; [`HUNKS_KEY`] for the changes outside methods.
    pub key: String,
    /// Whether this is the file's changes outside its methods ([`outside_hunks`]): hunks
    /// (3 lines of context) joined by a line `...`, as `meta.granularity == "hunk"` rows of
    /// `../shared/data` are.
    pub hunks: bool,
    /// The method in the parent: from the start of its first line to its end.
    pub buggy: String,
    /// The method in the commit.
    pub fixed: String,
}

/// What one commit gave: its modified methods, and the files and methods skipped on the way
/// (by reason, [`Skip`]).
#[derive(Debug, Default)]
pub struct Changes {
    /// The modified methods, file by file (libgit2's path order), in source order.
    pub methods: Vec<MethodChange>,
    /// A skip reason per file skipped.
    pub skipped_files: Vec<Skip>,
    /// A skip reason per method skipped.
    pub skipped_methods: Vec<Skip>,
}

/// The language of a path, by extension (`.java`, `.py`).
pub fn language_of(path: &str) -> Option<Language> {
    match extension(path) {
        Some("java") => Some(Language::Java),
        Some("py") => Some(Language::Python),
        _ => None,
    }
}

/// Extensions of source code in languages `fixdex mine` does not read (a commit that
/// changes only such files is skipped as `unsupported_language`, not `no_source_change`).
const OTHER_SOURCE_EXTENSIONS: [&str; 34] = [
    "go", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "js", "jsx", "mjs", "ts", "tsx", "rb", "rs", "kt", "kts",
    "scala", "swift", "php", "m", "mm", "lua", "pl", "r", "dart", "groovy", "clj", "ex", "exs", "erl", "hs", "ml",
];

/// Whether `path` is source code in a language other than Java and Python, by extension.
pub fn is_other_source(path: &str) -> bool {
    extension(path).is_some_and(|e| OTHER_SOURCE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The file name's extension, without the dot.
fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, ext)| ext)
}

/// A git path (bytes) as text, losslessly: UTF-8 is kept, a backslash is written `\\` and
/// each byte that is not part of valid UTF-8 is written `\xNN` (two lower-case hex digits),
/// so two paths that differ in such bytes (`X\xe9.java`, `X\xe8.java`) stay two paths,
/// and ids built from them stay unique. Paths of UTF-8 without backslashes are unchanged.
pub fn escape_path(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The files changed from `parent` to `commit`, renames detected.
fn diff<'r>(repo: &'r Repository, parent: Oid, commit: Oid) -> Result<git2::Diff<'r>, git2::Error> {
    let old = repo.find_commit(parent)?.tree()?;
    let new = repo.find_commit(commit)?.tree()?;
    let mut opts = DiffOptions::new();
    opts.ignore_submodules(true);
    let mut diff = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(&mut opts))?;
    diff.find_similar(Some(git2::DiffFindOptions::new().renames(true)))?;
    Ok(diff)
}

/// The number of changed files that are not tests (any file type), for `--max-files`.
pub fn non_test_files(diff: &git2::Diff<'_>) -> usize {
    diff.deltas().filter(|d| !delta_path(d).is_some_and(|p| is_test_path(&p))).count()
}

/// The delta's path ([`escape_path`]): the new one, or the old one of a deleted file.
fn delta_path(d: &git2::DiffDelta<'_>) -> Option<String> {
    d.new_file().path_bytes().or_else(|| d.old_file().path_bytes()).map(escape_path)
}

/// The modified methods of `commit` against `parent`, and the commit-level reason to skip
/// it, if any (`too_many_files`, `no_source_change`, `too_many_methods`,
/// `no_method_changed`).
///
/// # Errors
/// A libgit2 error reading the trees or blobs (a damaged repository).
pub fn changes(
    repo: &Repository,
    parent: Oid,
    commit: Oid,
    opts: &MineOptions,
) -> Result<(Changes, Option<Skip>), git2::Error> {
    let diff = diff(repo, parent, commit)?;
    if non_test_files(&diff) > opts.max_files {
        return Ok((Changes::default(), Some(Skip::TooManyFiles)));
    }
    let mut out = Changes::default();
    let (mut sources, mut others) = (0, 0);
    for delta in diff.deltas() {
        let Some(path) = delta_path(&delta) else { continue };
        let Some(language) = language_of(&path) else {
            if is_other_source(&path) && !is_test_path(&path) {
                others += 1;
                out.skipped_files.push(Skip::UnsupportedLanguage);
            }
            continue;
        };
        if is_test_path(&path) {
            out.skipped_files.push(Skip::TestFile);
            continue;
        }
        sources += 1;
        match file_changes(repo, &delta, &path, language, opts, &mut out) {
            Ok(()) => {}
            Err(skip) => out.skipped_files.push(skip),
        }
    }
    let skip = verdict(&out, (sources, others), opts);
    Ok((out, skip))
}

/// The commit-level skip, if any, from its changes and its numbers of Java/Python and of
/// other-language source files.
fn verdict(out: &Changes, (sources, others): (usize, usize), opts: &MineOptions) -> Option<Skip> {
    if sources == 0 && others > 0 {
        Some(Skip::UnsupportedLanguage)
    } else if sources == 0 {
        Some(Skip::NoSourceChange)
    } else if out.methods.is_empty() {
        Some(Skip::NoMethodChanged)
    } else if out.methods.len() > opts.max_methods {
        Some(Skip::TooManyMethods)
    } else {
        None
    }
}

/// Adds one source file's modified methods to `out`, or says why the file is skipped.
fn file_changes(
    repo: &Repository,
    delta: &git2::DiffDelta<'_>,
    path: &str,
    language: Language,
    opts: &MineOptions,
    out: &mut Changes,
) -> std::result::Result<(), Skip> {
    let link = |f: git2::DiffFile<'_>| f.mode() == git2::FileMode::Link;
    if link(delta.old_file()) || link(delta.new_file()) {
        return Err(Skip::Symlink);
    }
    match delta.status() {
        Delta::Added | Delta::Copied => return Err(Skip::AddedFile),
        Delta::Deleted => return Err(Skip::DeletedFile),
        Delta::Renamed if delta.old_file().id() == delta.new_file().id() => return Err(Skip::RenameOnly),
        Delta::Modified | Delta::Renamed => {}
        _ => return Err(Skip::Unsupported),
    }
    let old = text(repo, delta.old_file().id(), opts.max_file_bytes)?;
    let new = text(repo, delta.new_file().id(), opts.max_file_bytes)?;
    if is_generated(path, &new) {
        return Err(Skip::Generated);
    }
    let before = actions::methods(&old, language).map_err(|_| Skip::ParseError)?;
    let after = actions::methods(&new, language).map_err(|_| Skip::ParseError)?;
    let old_path = (delta.status() == Delta::Renamed).then(|| delta.old_file().path_bytes().map(escape_path)).flatten();
    let paired = pair_methods(&before, &after, &mut out.skipped_methods);
    for Paired { before: b, after: a, key } in &paired {
        if b.code_hash == a.code_hash {
            if old[b.bytes.clone()] != new[a.bytes.clone()] {
                out.skipped_methods.push(Skip::LayoutOrCommentOnly);
            }
            continue;
        }
        let (buggy, fixed) = (&old[b.bytes.clone()], &new[a.bytes.clone()]);
        if buggy.len().max(fixed.len()) > opts.max_method_bytes {
            out.skipped_methods.push(Skip::MethodTooLong);
            continue;
        }
        out.methods.push(MethodChange {
            path: path.to_string(),
            old_path: old_path.clone(),
            language,
            key: key.clone(),
            hunks: false,
            buggy: buggy.to_string(),
            fixed: fixed.to_string(),
        });
    }
    if opts.hunks
        && let Some((buggy, fixed)) = hunks_outside(&old, &new, language, &paired)
    {
        let key = HUNKS_KEY.to_string();
        out.methods.push(MethodChange { path: path.to_string(), old_path, language, key, hunks: true, buggy, fixed });
    }
    Ok(())
}

/// The file's changes outside the paired methods ([`outside_hunks`]), when it changed
/// there beyond layout and comments.
fn hunks_outside(old: &str, new: &str, language: Language, paired: &[Paired<'_>]) -> Option<(String, String)> {
    if !outline_changed(old, new, language, paired) {
        return None;
    }
    let old_spans: Vec<(usize, usize)> = paired.iter().map(|p| p.before.lines).collect();
    let new_spans: Vec<(usize, usize)> = paired.iter().map(|p| p.after.lines).collect();
    outside_hunks(old, new, &old_spans, &new_spans)
}

/// Whether the file changed outside the paired methods beyond layout and comments
/// ([`actions::outline_hash`]).
fn outline_changed(old: &str, new: &str, language: Language, paired: &[Paired<'_>]) -> bool {
    let old_skip: Vec<std::ops::Range<usize>> = paired.iter().map(|p| p.before.bytes.clone()).collect();
    let new_skip: Vec<std::ops::Range<usize>> = paired.iter().map(|p| p.after.bytes.clone()).collect();
    match (actions::outline_hash(old, language, &old_skip), actions::outline_hash(new, language, &new_skip)) {
        (Ok(a), Ok(b)) => a != b,
        _ => false,
    }
}

/// The key of a file's changes outside its methods.
pub const HUNKS_KEY: &str = "<hunks>";

/// The hunks of `old` → `new` (3 lines of context) with a substantive change outside the
/// methods present in both versions (`old_spans`, `new_spans`: their 1-based line ranges):
/// a field initialiser, a module-level constant, an added or removed method. A change is
/// substantive unless its lines are all blank, comments or imports, or it only changes
/// layout. Returns the buggy and fixed texts, hunks joined by a line `...`; `None` when no
/// hunk qualifies.
pub fn outside_hunks(
    old: &str,
    new: &str,
    old_spans: &[(usize, usize)],
    new_spans: &[(usize, usize)],
) -> Option<(String, String)> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let (old_in, new_in) = (in_spans(old_lines.len(), old_spans), in_spans(new_lines.len(), new_spans));
    let outside =
        |mut range: std::ops::Range<usize>, inside: &[bool]| range.all(|i| !inside.get(i).copied().unwrap_or(false));
    // A deadline keeps a huge rewritten file from a long exact diff (the result is then
    // coarser, never wrong).
    let diff = similar::TextDiff::configure().timeout(std::time::Duration::from_secs(2)).diff_lines(old, new);
    let (mut buggy, mut fixed) = (Vec::new(), Vec::new());
    for group in diff.grouped_ops(3) {
        let keep = group.iter().any(|op| {
            op.tag() != similar::DiffTag::Equal
                && outside(op.old_range(), &old_in)
                && outside(op.new_range(), &new_in)
                && substantive(&old_lines[op.old_range()], &new_lines[op.new_range()])
        });
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        if keep {
            buggy.push(old_lines[first.old_range().start..last.old_range().end].concat());
            fixed.push(new_lines[first.new_range().start..last.new_range().end].concat());
        }
    }
    (!buggy.is_empty()).then(|| (buggy.join("...\n"), fixed.join("...\n")))
}

/// For each of `n` lines (0-based), whether it lies in one of `spans` (1-based, inclusive).
fn in_spans(n: usize, spans: &[(usize, usize)]) -> Vec<bool> {
    let mut inside = vec![false; n];
    for &(a, b) in spans {
        for flag in inside.iter_mut().take(b.min(n)).skip(a.saturating_sub(1)) {
            *flag = true;
        }
    }
    inside
}

/// Whether replacing `old` lines by `new` lines changes code: not only blank, comment or
/// import lines, and not only layout.
fn substantive(old: &[&str], new: &[&str]) -> bool {
    let code = |lines: &[&str]| -> String {
        lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| {
                !(l.is_empty()
                    || ["//", "/*", "*", "#", "import ", "from ", "package "].iter().any(|p| l.starts_with(p)))
            })
            .flat_map(|l| l.chars().filter(|c| !c.is_whitespace()))
            .collect()
    };
    let (a, b) = (code(old), code(new));
    a != b
}

/// A blob's text, or why it has none (`too_large`: over `max_bytes`, found from the
/// object's header before it is read; `binary`, `non_utf8`).
fn text(repo: &Repository, id: Oid, max_bytes: usize) -> std::result::Result<String, Skip> {
    let (size, _) = repo.odb().and_then(|odb| odb.read_header(id)).map_err(|_| Skip::MissingObject)?;
    if size > max_bytes {
        return Err(Skip::TooLarge);
    }
    let blob = repo.find_blob(id).map_err(|_| Skip::MissingObject)?;
    if blob.is_binary() {
        return Err(Skip::Binary);
    }
    String::from_utf8(blob.content().to_vec()).map_err(|_| Skip::NonUtf8)
}

/// The top-level (not nested) methods of one version with their keys: [`Method::key`],
/// and `KEY#2`, `KEY#3`, ... for the second and later methods with the same key (a Python
/// property's getter and setter, a function defined in both branches of an `if`).
fn keyed(methods: &[Method]) -> Vec<(String, &Method)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    methods
        .iter()
        .filter(|m| !m.nested)
        .map(|m| {
            let key = m.key();
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            (if *n == 1 { key } else { format!("{key}#{n}") }, m)
        })
        .collect()
}

/// The methods of the two versions that are the same method, with the key in the fixed
/// version: equal [`keyed`] keys, then, for the rest, equal owners and name when that is
/// unique on both sides (a Java parameter list that changed). Nested methods are left out
/// (their change is the enclosing method's). Methods only in one version are counted as
/// `method_added` / `method_removed`.
fn pair_methods<'m>(before: &'m [Method], after: &'m [Method], skipped: &mut Vec<Skip>) -> Vec<Paired<'m>> {
    let (before, after) = (keyed(before), keyed(after));
    let by_key: HashMap<&str, &Method> = before.iter().map(|(k, m)| (k.as_str(), *m)).collect();
    let mut pairs = Vec::new();
    let mut used: HashSet<&str> = HashSet::new();
    let mut unmatched_after = Vec::new();
    for (key, a) in &after {
        match by_key.get(key.as_str()) {
            Some(b) => {
                used.insert(key.as_str());
                pairs.push(Paired { before: b, after: a, key: key.clone() });
            }
            None => unmatched_after.push((key, *a)),
        }
    }
    let loose = |m: &Method| (m.owners.clone(), m.name.clone());
    for (key, a) in &unmatched_after {
        let candidates: Vec<&(String, &Method)> =
            before.iter().filter(|(k, b)| !used.contains(k.as_str()) && loose(b) == loose(a)).collect();
        let alone = unmatched_after.iter().filter(|(_, x)| loose(x) == loose(a)).count() == 1;
        if let ([(bk, b)], true) = (candidates.as_slice(), alone) {
            used.insert(bk.as_str());
            pairs.push(Paired { before: b, after: a, key: (*key).clone() });
        } else {
            skipped.push(Skip::MethodAdded);
        }
    }
    skipped.extend(before.iter().filter(|(k, _)| !used.contains(k.as_str())).map(|_| Skip::MethodRemoved));
    pairs.sort_by_key(|p| p.after.bytes.start);
    pairs
}

/// A method in both versions ([`pair_methods`]).
#[derive(Debug)]
struct Paired<'m> {
    before: &'m Method,
    after: &'m Method,
    /// The key in the fixed version ([`keyed`]).
    key: String,
}
