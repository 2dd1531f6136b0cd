//! RepoFocus's deterministic pre-ranking: which project files, besides the buggy one, a
//! bug most likely involves (../shared/papers/unidebugger.txt, "RepoFocus: analyzes project
//! folder structure, package declarations, and imported dependencies alongside error traces
//! to identify 2 to 6 suspected bug-related files"). [`pre_rank`] orders the project's Java
//! and Python source files by the signals below; a model then chooses among the top ones.
//!
//! # Signals and weights
//!
//! | signal | weight | why |
//! |---|---|---|
//! | stack frame in a project source file | 16 × 0.5^d | the code that ran when the test failed; `d` counts the project files nearer the throw point in that trace, since the fault is most often where the failure surfaced and less likely in each caller further out |
//! | class (module) under test of a failing test, same package (folder) | 6 | `FooTest` tests `Foo`, `test_foo.py` (`tests_foo.py`, `foo_test.py`) tests `foo.py` or a private `_foo.py` by convention; right most of the time, but says nothing of where in the call graph the fault is |
//! | the same, in another package | 3 | the naming still fits, the layout does not |
//! | named in a failing test method's body | 3 | what the failing test actually exercises |
//! | imported by (or, in Java, a same-package class used by) a failing test or the buggy file | 2 | a dependency, though a test file's imports also serve its passing tests |
//! | named by simple class name in the failure text (an exception type, a message) | 1 | weak: names in messages are often incidental |
//! | same package (folder) as the buggy file or a class under test | 1 | a tie-breaker: neighbours are more likely related than strangers |
//! | in a package a failing test or the buggy file wildcard-imports | 0.5 | a whole package is a vague dependency |
//!
//! A file's score is its strongest signal plus a quarter of its other signals (one per
//! kind, the strongest of each): agreeing signals break ties between files with equally
//! strong evidence, while the many weak signals a central class collects (imported by
//! every test, in every package listing) do not outrank a file the trace points at. Stack
//! frames take the strongest over traces, not the sum, so a caller every failing test
//! passes through does not outrank the one file a trace failed in.
//!
//! Frames of test files, and frames that map to no project file (JDK, JUnit, site-packages),
//! only serve to find the failing tests. Test files are never ranked, nor is the buggy file.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Folders the walk never enters (and a `target` that is a build output:
/// [`crate::tools::source::skipped_target`]).
const SKIP_DIRS: &[&str] = &[".git", "build", "node_modules", "__pycache__", ".venv", "venv"];
/// Weight of the project frame nearest the throw point in a trace.
const W_FRAME: f64 = 16.0;
/// Factor applied to a frame's weight per project file nearer the throw point.
const FRAME_DECAY: f64 = 0.5;
/// Class under test of a failing test, in the expected package (folder).
const W_UNDER_TEST: f64 = 6.0;
/// Class under test of a failing test found only in another package (folder).
const W_UNDER_TEST_ELSEWHERE: f64 = 3.0;
/// Named in the body of a failing test method.
const W_TEST_METHOD_USE: f64 = 3.0;
/// Imported (or used from the same Java package) by a failing test or the buggy file.
const W_IMPORT: f64 = 2.0;
/// Named by simple class name in the failure text.
const W_MENTION: f64 = 1.0;
/// In the same package (folder) as the buggy file or a class under test.
const W_PACKAGE: f64 = 1.0;
/// In a wildcard-imported package.
const W_WILDCARD: f64 = 0.5;
/// Share of a file's weaker signals added to its strongest one.
const CORROBORATION: f64 = 0.25;

/// A filter of project entries, `(path relative to the root, is a folder) → leave out`
/// (the shape of [`crate::validate::scratch::ScratchFilter`]).
pub type Skip<'a> = dyn Fn(&Path, bool) -> bool + Send + Sync + 'a;

/// What RepoFocus ranks from.
#[derive(Clone, Copy)]
pub struct FocusQuery<'a> {
    /// Project root.
    pub root: &'a Path,
    /// The buggy file (relative to root) when known: left out of the ranking (it is already
    /// in the prompt) but its imports, package and folder are signals.
    pub buggy_file: Option<&'a Path>,
    /// The failing tests' output: stack traces, assertion messages, test names.
    pub failure: &'a str,
    /// Names of the failing tests when known (`org.x.FooTest::testBar`, `FooTest#test_1`,
    /// `tests/test_foo.py::test_bar`), may be empty.
    pub failing_tests: &'a [String],
    /// Entries (relative path, is a folder) the run leaves out of its scratch copies
    /// ([`crate::validate::scratch::ScratchFilter`]): never ranked, nor walked into (e.g. QuixBugs'
    /// correct programs, which would leak the fix).
    pub skip: Option<&'a Skip<'a>>,
}

impl std::fmt::Debug for FocusQuery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FocusQuery")
            .field("root", &self.root)
            .field("buggy_file", &self.buggy_file)
            .field("failure", &self.failure)
            .field("failing_tests", &self.failing_tests)
            .field("skip", &self.skip.map(|_| "filter"))
            .finish()
    }
}

/// One ranked file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ranked {
    /// Path relative to the root, `/` separators.
    pub file: String,
    /// The strongest signal's weight plus a quarter of the others' (see the module docs);
    /// unitless, higher is more suspect, always > 0.
    pub score: f64,
    /// Why, human-readable (`stack frame NumberUtils.java:590`, `imported by the failing
    /// test OptionsTest`, `class under test of OptionsTest`), strongest kinds first.
    pub signals: Vec<String>,
}

/// The project's Java and Python source files (not tests, not the buggy file), ranked best
/// first by the signals of the module docs; files with no signal are left out; ties by
/// path. Never fails: unreadable files and folders are skipped. Cost: one walk of the tree
/// (skipping `.git`, `target`, `build`, `node_modules`, `__pycache__`, `.venv`, `venv`)
/// plus reading the failing tests' files and the buggy file.
pub fn pre_rank(q: &FocusQuery<'_>) -> Vec<Ranked> {
    let tree = Tree::walk(q.root, q.skip);
    let buggy_rel = q.buggy_file.and_then(rel_string);
    let mut scores = Scores::new(&tree, buggy_rel.clone());
    let traces = traces(q.failure);
    let mut tests: Vec<TestRef> = q.failing_tests.iter().filter_map(|id| parse_test_id(id)).collect();
    tests.extend(test_names_in(q.failure));
    tests.extend(score_frames(&tree, &traces, &mut scores));
    for test in dedup(tests) {
        score_test(q.root, &tree, &test, &mut scores);
    }
    if let Some(rel) = buggy_rel {
        score_buggy_file(q.root, &tree, &rel, &mut scores);
    }
    score_mentions(&tree, q.failure, &mut scores);
    scores.ranked()
}

/// Whether a relative path (`/` or `\` separators) is a test file: under a `test`/`tests`
/// folder or one whose name ends in `testcases` (QuixBugs' `java_testcases`), or named
/// `*Test.java`, `*Tests.java`, `*TestCase.java`, `*_TEST.java` (QuixBugs), `Test*.java`,
/// `test_*.py`, `tests_*.py`, `*_test.py` or `conftest.py`.
pub fn is_test_file(rel: &str) -> bool {
    let rel = rel.replace('\\', "/");
    let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", &rel));
    dirs.split('/').any(|d| d == "test" || d == "tests" || d.ends_with("testcases")) || is_test_name(name)
}

/// Whether a file name follows a Java or Python test naming convention.
fn is_test_name(name: &str) -> bool {
    if let Some(stem) = name.strip_suffix(".java") {
        return ["Test", "Tests", "TestCase", "_TEST"].iter().any(|s| stem.ends_with(s)) || stem.starts_with("Test");
    }
    name.strip_suffix(".py")
        .is_some_and(|s| s.starts_with("test_") || s.starts_with("tests_") || s.ends_with("_test") || s == "conftest")
}

/// The Java and Python files of a project, found by one walk.
struct Tree {
    /// Relative paths, `/` separators.
    files: Vec<String>,
    /// Whether each file is a test file.
    tests: Vec<bool>,
    /// File name → indices of the files with that name.
    by_name: HashMap<String, Vec<usize>>,
    /// Relative path → index.
    by_path: HashMap<String, usize>,
}

impl Tree {
    /// Walks `root`, skipping [`SKIP_DIRS`], the entries `skip` names, and unreadable entries.
    fn walk(root: &Path, skip: Option<&Skip<'_>>) -> Tree {
        let mut tree = Tree { files: vec![], tests: vec![], by_name: HashMap::new(), by_path: HashMap::new() };
        let walker = walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name().into_iter();
        let skipped = |e: &walkdir::DirEntry| {
            let is_dir = e.file_type().is_dir();
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            (is_dir
                && (SKIP_DIRS.iter().any(|d| e.file_name() == *d)
                    || crate::tools::source::skipped_target(e.path(), e.depth() == 1)))
                || skip.is_some_and(|f| f(rel, is_dir))
        };
        let entries = walker.filter_entry(|e| !skipped(e));
        for entry in entries.flatten().filter(|e| e.file_type().is_file()) {
            let rel = entry.path().strip_prefix(root).ok().and_then(rel_string);
            if let Some(rel) = rel.filter(|r| r.ends_with(".java") || r.ends_with(".py")) {
                tree.add(rel);
            }
        }
        tree
    }

    /// Records one file.
    fn add(&mut self, rel: String) {
        let i = self.files.len();
        self.by_name.entry(file_name(&rel).to_string()).or_default().push(i);
        self.by_path.insert(rel.clone(), i);
        self.tests.push(is_test_file(&rel));
        self.files.push(rel);
    }

    /// Files whose path is `suffix` or ends with `/suffix`.
    fn with_suffix(&self, suffix: &str) -> Vec<usize> {
        let named = self.by_name.get(file_name(suffix)).map_or(&[][..], Vec::as_slice);
        named.iter().copied().filter(|&i| path_ends_with(&self.files[i], suffix)).collect()
    }

    /// Files with extension `ext` whose folder is `dir` or ends with `/dir`.
    fn in_dir(&self, dir: &str, ext: &str) -> Vec<usize> {
        let matches = |i: &usize| self.files[*i].ends_with(ext) && path_ends_with(parent(&self.files[*i]), dir);
        (0..self.files.len()).filter(matches).collect()
    }

    /// The files in the same folder as file `i`, with the same extension (`i` included).
    fn siblings(&self, i: usize) -> Vec<usize> {
        let (dir, ext) = (parent(&self.files[i]), extension(&self.files[i]));
        (0..self.files.len()).filter(|&j| parent(&self.files[j]) == dir && extension(&self.files[j]) == ext).collect()
    }

    /// The project file a Python frame's path names: the longest path-suffix match.
    fn python_file(&self, path: &str) -> Option<usize> {
        let named = self.by_name.get(file_name(path))?;
        let overlap = |i: &usize| {
            let rel = &self.files[*i];
            if path_ends_with(path, rel) {
                rel.len()
            } else if path_ends_with(rel, path) {
                path.len()
            } else {
                0
            }
        };
        named.iter().copied().filter(|i| overlap(i) > 0).max_by_key(|i| (overlap(i), std::cmp::Reverse(*i)))
    }
}

/// Which kind of evidence a signal is; indexes [`Evidence::best`].
#[derive(Debug, Clone, Copy)]
enum Kind {
    Frame,
    UnderTest,
    TestMethodUse,
    Import,
    Mention,
    Package,
}

impl Kind {
    /// How many signal texts of this kind a file keeps: one neighbourhood says it all.
    fn max_texts(self) -> usize {
        match self {
            Kind::Package | Kind::Mention => 1,
            _ => 3,
        }
    }
}

/// The number of [`Kind`]s.
const KINDS: usize = 6;

/// What was found about one file.
#[derive(Debug, Default)]
struct Evidence {
    /// The strongest weight of each kind.
    best: [f64; KINDS],
    /// (kind, text) of every distinct signal.
    signals: Vec<(usize, String)>,
}

impl Evidence {
    /// Strongest weight plus [`CORROBORATION`] times the rest.
    fn score(&self) -> f64 {
        let top = self.best.iter().copied().fold(0.0, f64::max);
        top + CORROBORATION * (self.best.iter().sum::<f64>() - top)
    }
}

/// Evidence per ranked file; test files and the buggy file are never recorded.
struct Scores<'t> {
    tree: &'t Tree,
    excluded: Option<String>,
    by_file: HashMap<usize, Evidence>,
}

impl<'t> Scores<'t> {
    /// Empty scores over `tree`, leaving out `excluded` (a relative path).
    fn new(tree: &'t Tree, excluded: Option<String>) -> Self {
        Scores { tree, excluded, by_file: HashMap::new() }
    }

    /// Records a signal for file `i` unless it is a test or the excluded file.
    fn add(&mut self, i: usize, kind: Kind, weight: f64, signal: String) {
        if self.tree.tests[i] || self.excluded.as_deref() == Some(self.tree.files[i].as_str()) {
            return;
        }
        let evidence = self.by_file.entry(i).or_default();
        let best = &mut evidence.best[kind as usize];
        *best = best.max(weight);
        let same_kind = evidence.signals.iter().filter(|(k, _)| *k == kind as usize).count();
        if same_kind < kind.max_texts() && !evidence.signals.iter().any(|(_, s)| *s == signal) {
            evidence.signals.push((kind as usize, signal));
        }
    }

    /// Best first, ties by path.
    fn ranked(self) -> Vec<Ranked> {
        let mut out: Vec<Ranked> = self.by_file.into_iter().map(|(i, e)| ranked(&self.tree.files[i], e)).collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.file.cmp(&b.file)));
        out
    }
}

/// One [`Ranked`] from its evidence, signals ordered by kind.
fn ranked(file: &str, mut e: Evidence) -> Ranked {
    let score = e.score();
    e.signals.sort_by_key(|(kind, _)| *kind);
    Ranked { file: file.to_string(), score, signals: e.signals.into_iter().map(|(_, s)| s).collect() }
}

/// Where a stack frame points.
#[derive(Debug, Clone, PartialEq)]
enum Frame {
    /// `at pkg.Cls$Inner.method(Cls.java:12)`.
    Java {
        /// `pkg/Cls.java`.
        suffix: String,
        /// `pkg.Cls` (outer class).
        class: String,
        method: String,
        /// `Cls.java:12`.
        label: String,
    },
    /// `File "x/y.py", line 12, in f` or pytest's `x/y.py:12: in f`.
    Python { path: String, func: String, label: String },
}

/// The stack traces in `failure`, each ordered from the frame nearest the throw point out:
/// Java frames in runs of consecutive `at` lines (top first), Python frames grouped by
/// traceback or test section (printed outermost first, so reversed).
fn traces(failure: &str) -> Vec<Vec<Frame>> {
    let (mut out, mut java, mut python) = (vec![], vec![], vec![]);
    for line in failure.lines() {
        if let Some(frame) = java_frame(line) {
            java.push(frame);
            continue;
        }
        flush(&mut out, &mut java, false);
        if let Some(frame) = python_frame(line) {
            python.push(frame);
        } else if starts_section(line) {
            flush(&mut out, &mut python, true);
        }
    }
    flush(&mut out, &mut java, false);
    flush(&mut out, &mut python, true);
    out
}

/// Moves `frames` into `out` as one trace, reversed when asked.
fn flush(out: &mut Vec<Vec<Frame>>, frames: &mut Vec<Frame>, reverse: bool) {
    if frames.is_empty() {
        return;
    }
    let mut trace = std::mem::take(frames);
    if reverse {
        trace.reverse();
    }
    out.push(trace);
}

/// Whether a line starts a new Python traceback or test section.
fn starts_section(line: &str) -> bool {
    let t = line.trim();
    let starts =
        ["Traceback (most recent call last)", "During handling", "The above exception", "--- ", "FAILED ", "ERROR "];
    starts.iter().any(|s| t.starts_with(s)) || t.starts_with("===") || (t.starts_with("__") && t.ends_with("__"))
}

/// Parses `at pkg.Cls$Inner.method(Cls.java:12)` (module prefixes like `java.base/` and
/// `Unknown Source` allowed); `None` for other lines and non-Java sources.
fn java_frame(line: &str) -> Option<Frame> {
    let (target, paren) = line.trim_start().strip_prefix("at ")?.split_once('(')?;
    let paren = paren.split_once(')')?.0;
    let (class, method) = target.rsplit('/').next()?.rsplit_once('.')?;
    let outer = class.split('$').next()?;
    if outer.is_empty() || !outer.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        return None;
    }
    let (package, simple) = outer.rsplit_once('.').unwrap_or(("", outer));
    let (file, line_no) = paren.split_once(':').map_or((paren, None), |(f, n)| (f, Some(n)));
    let file = match file {
        f if f.ends_with(".java") => f.to_string(),
        f if f.contains('.') => return None,
        _ => format!("{simple}.java"),
    };
    let label = line_no.map_or_else(|| file.clone(), |n| format!("{file}:{n}"));
    let suffix = if package.is_empty() { file } else { format!("{}/{file}", package.replace('.', "/")) };
    Some(Frame::Java { suffix, class: outer.to_string(), method: method.to_string(), label })
}

/// Parses `File "x/y.py", line 12, in f` and pytest's `x/y.py:12: in f` (or
/// `x/y.py:12: ValueError`); `None` for other lines and installed packages' files.
fn python_frame(line: &str) -> Option<Frame> {
    let t = line.trim();
    let (path, line_no, func) = match t.strip_prefix("File \"") {
        Some(rest) => {
            let (path, rest) = rest.split_once('"')?;
            let rest = rest.strip_prefix(", line ")?;
            let (n, func) = rest.split_once(", in ").unwrap_or((rest, ""));
            (path, n, func)
        }
        None => {
            let (path, rest) = t.split_at(t.find(".py:")? + 3);
            let (n, tail) = rest[1..].split_once(':')?;
            (path, n, tail.trim().strip_prefix("in ").unwrap_or(""))
        }
    };
    let installed = ["site-packages", "dist-packages"].iter().any(|s| path.contains(s));
    if installed || !path.ends_with(".py") || path.contains(char::is_whitespace) || !is_number(line_no) {
        return None;
    }
    let path = path.replace('\\', "/");
    let label = format!("{}:{line_no}", file_name(&path));
    Some(Frame::Python { path: path.trim_start_matches("./").to_string(), func: func.trim().to_string(), label })
}

/// Scores the project source files the traces name and returns the test files they name
/// (as failing tests).
fn score_frames(tree: &Tree, traces: &[Vec<Frame>], scores: &mut Scores<'_>) -> Vec<TestRef> {
    let mut tests = vec![];
    for trace in traces {
        let mut seen: Vec<usize> = vec![];
        for frame in trace {
            for i in frame_files(tree, frame) {
                if tree.tests[i] {
                    tests.push(frame_test(tree, i, frame));
                } else if !seen.contains(&i) {
                    let weight = W_FRAME * FRAME_DECAY.powi(i32::try_from(seen.len()).unwrap_or(i32::MAX));
                    scores.add(i, Kind::Frame, weight, format!("stack frame {}", frame_label(frame)));
                    seen.push(i);
                }
            }
        }
    }
    tests
}

/// The project files a frame points at.
fn frame_files(tree: &Tree, frame: &Frame) -> Vec<usize> {
    match frame {
        Frame::Java { suffix, .. } => tree.with_suffix(suffix),
        Frame::Python { path, .. } => tree.python_file(path).into_iter().collect(),
    }
}

/// A frame's `File.java:12` label.
fn frame_label(frame: &Frame) -> &str {
    match frame {
        Frame::Java { label, .. } | Frame::Python { label, .. } => label,
    }
}

/// The failing test a frame in test file `i` stands for.
fn frame_test(tree: &Tree, i: usize, frame: &Frame) -> TestRef {
    match frame {
        Frame::Java { class, method, .. } => TestRef::Java { class: class.clone(), method: Some(method.clone()) },
        Frame::Python { func, .. } => {
            TestRef::Python { path: tree.files[i].clone(), method: Some(func.clone()).filter(|f| !f.is_empty()) }
        }
    }
}

/// A failing test, by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum TestRef {
    /// `pkg.FooTest` (or `FooTest`) and the test method.
    Java { class: String, method: Option<String> },
    /// `tests/test_foo.py` and the test function.
    Python { path: String, method: Option<String> },
}

/// Parses `org.x.FooTest::testBar`, `FooTest#test_1`, `testBar(org.x.FooTest)`-style
/// names' parts, and `tests/test_foo.py::TestX::test_bar[1]`; `None` when it is neither.
fn parse_test_id(id: &str) -> Option<TestRef> {
    let id = id.trim();
    let method = |m: &str| Some(m.split(['[', '(']).next().unwrap_or(m).to_string()).filter(|m| !m.is_empty());
    if let Some(end) = id.find(".py").filter(|&e| id[e + 3..].is_empty() || id[e + 3..].starts_with("::")) {
        let tail = id[end + 3..].rsplit("::").next().unwrap_or("");
        return Some(TestRef::Python {
            path: id[..end + 3].trim_start_matches("./").to_string(),
            method: method(tail),
        });
    }
    let (class, tail) = id.split_once("::").or_else(|| id.split_once('#')).unwrap_or((id, ""));
    let java_name = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '$';
    let valid = !class.is_empty() && class.chars().all(java_name) && !class.starts_with('.');
    valid.then(|| TestRef::Java { class: class.to_string(), method: method(tail) })
}

/// Failing test names printed in the failure text: Defects4J's `--- pkg.FooTest::testBar`,
/// pytest's `FAILED tests/test_foo.py::test_bar - …`, JUnit's `testBar(pkg.FooTest)`.
fn test_names_in(failure: &str) -> Vec<TestRef> {
    failure.lines().filter_map(test_name_in).collect()
}

/// The failing test one line names, if any.
fn test_name_in(line: &str) -> Option<TestRef> {
    let t = line.trim();
    let prefixed = ["--- ", "FAILED ", "ERROR "].iter().find_map(|p| t.strip_prefix(p));
    if let Some(rest) = prefixed {
        return parse_test_id(rest.split_whitespace().next()?);
    }
    let t = t.strip_prefix("Testcase: ").unwrap_or(t);
    let t = t.split_once(") ").filter(|(n, _)| is_number(n)).map_or(t, |(_, rest)| rest);
    let (method, rest) = t.split_once('(')?;
    let (class, after) = rest.split_once(')')?;
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !plain(method) || !class.contains('.') || !(after.is_empty() || after.starts_with(':')) {
        return None;
    }
    parse_test_id(&format!("{class}::{method}"))
}

/// `tests` without repeats, first occurrence kept.
fn dedup(tests: Vec<TestRef>) -> Vec<TestRef> {
    let mut seen = HashSet::new();
    tests.into_iter().filter(|t| seen.insert(t.clone())).collect()
}

/// A failing test resolved against the tree.
#[derive(Debug)]
struct FocusTest {
    /// `FooTest` or `tests/test_foo.py`, for signal texts.
    label: String,
    /// The test's file, when found.
    file: Option<usize>,
    method: Option<String>,
    /// Source file names the test is named after (`Foo.java`, `foo.py`).
    under_test: Vec<String>,
    /// The folder suffix those are expected in (`org/pkg`; `pkg` for `tests/pkg/test_foo.py`).
    expected_dir: String,
}

/// Resolves a test name: finds its file and the names of the files it tests.
fn focus_test(tree: &Tree, test: &TestRef) -> FocusTest {
    match test {
        TestRef::Java { class, method } => {
            let outer = class.split('$').next().unwrap_or(class);
            let (package, simple) = outer.rsplit_once('.').unwrap_or(("", outer));
            let dir = package.replace('.', "/");
            let found = tree.with_suffix(&join(&dir, &format!("{simple}.java")));
            let file = found.iter().copied().find(|&i| tree.tests[i]).or(found.first().copied());
            let under_test = java_under_test(simple).into_iter().map(|n| format!("{n}.java")).collect();
            FocusTest { label: simple.to_string(), file, method: method.clone(), under_test, expected_dir: dir }
        }
        TestRef::Python { path, method } => {
            let file = tree.python_file(path);
            let dir = parent(path).split('/').filter(|d| !matches!(*d, "test" | "tests" | ".")).collect::<Vec<_>>();
            let under_test = python_under_test(file_name(path));
            FocusTest { label: path.clone(), file, method: method.clone(), under_test, expected_dir: dir.join("/") }
        }
    }
}

/// `FooTest`, `FooTests`, `FooTestCase`, `TestFoo`, QuixBugs' `FOO_TEST` → `Foo` (`FOO`);
/// nothing for other names.
fn java_under_test(simple: &str) -> Option<String> {
    let suffixed = ["TestCase", "Tests", "Test", "_TEST"].iter().find_map(|s| simple.strip_suffix(s));
    let prefixed = || simple.strip_prefix("Test").filter(|r| r.starts_with(|c: char| c.is_uppercase()));
    suffixed.or_else(prefixed).filter(|n| !n.is_empty()).map(str::to_string)
}

/// `test_foo.py`, `tests_foo.py` (nose-era projects such as tqdm), `foo_test.py` →
/// `foo.py` and `_foo.py` (a private module holding what the package exports as `foo`,
/// as tqdm's `_tqdm.py` and `_main.py`); nothing for other names.
fn python_under_test(name: &str) -> Vec<String> {
    let Some(stem) = name.strip_suffix(".py") else { return vec![] };
    let base = ["test_", "tests_"].iter().find_map(|p| stem.strip_prefix(p)).or_else(|| stem.strip_suffix("_test"));
    base.filter(|b| !b.is_empty() && !b.starts_with('_'))
        .map_or(vec![], |b| vec![format!("{b}.py"), format!("_{b}.py")])
}

/// Scores what one failing test points at: the files it tests, their packages, its imports
/// and what its failing method names.
fn score_test(root: &Path, tree: &Tree, test: &TestRef, scores: &mut Scores<'_>) {
    let mut focus = focus_test(tree, test);
    let content = focus.file.and_then(|i| std::fs::read_to_string(root.join(&tree.files[i])).ok());
    if let (Some(content), true) = (&content, focus.expected_dir.is_empty()) {
        focus.expected_dir = java_package(content).unwrap_or_default().replace('.', "/");
    }
    score_under_test(tree, &focus, scores);
    let (Some(i), Some(content)) = (focus.file, content) else { return };
    let bindings = bindings(tree, i, &content);
    let who = format!("the failing test {}", focus.label);
    score_bindings(&bindings, &identifiers(&content), &who, scores);
    let body = focus.method.as_deref().and_then(|m| method_body(&content, m, tree.files[i].ends_with(".py")));
    if let (Some(body), Some(method)) = (body, &focus.method) {
        let used = identifiers(body);
        let signal = format!("used in the failing test {}.{method}", focus.label);
        for (_, files, _) in bindings.iter().filter(|(name, ..)| used.contains(name.as_str())) {
            files.iter().for_each(|&f| scores.add(f, Kind::TestMethodUse, W_TEST_METHOD_USE, signal.clone()));
        }
    }
}

/// Scores the files a test is named after, and their packages (folders).
fn score_under_test(tree: &Tree, focus: &FocusTest, scores: &mut Scores<'_>) {
    for name in &focus.under_test {
        let found = tree.by_name.get(name).map_or(&[][..], Vec::as_slice);
        for &i in found.iter().filter(|&&i| !tree.tests[i]) {
            let here = path_ends_with(parent(&tree.files[i]), &focus.expected_dir);
            let (weight, where_) = if here { (W_UNDER_TEST, "") } else { (W_UNDER_TEST_ELSEWHERE, " (other package)") };
            let what = if name.ends_with(".py") { "module" } else { "class" };
            scores.add(i, Kind::UnderTest, weight, format!("{what} under test of {}{where_}", focus.label));
            score_package(tree, i, &format!("the {what} under test {}", file_name(&tree.files[i])), scores);
        }
    }
}

/// Scores the files in the same folder (and language) as file `i`.
fn score_package(tree: &Tree, i: usize, whose: &str, scores: &mut Scores<'_>) {
    for j in tree.siblings(i) {
        scores.add(j, Kind::Package, W_PACKAGE, format!("same package as {whose}"));
    }
}

/// Scores the buggy file's imports, the same-package classes it uses, and its package.
fn score_buggy_file(root: &Path, tree: &Tree, rel: &str, scores: &mut Scores<'_>) {
    let Some(&i) = tree.by_path.get(rel) else { return };
    score_package(tree, i, "the buggy file", scores);
    if let Ok(content) = std::fs::read_to_string(root.join(rel)) {
        score_bindings(&bindings(tree, i, &content), &identifiers(&content), "the buggy file", scores);
    }
}

/// Scores Java source files named (by simple class name) outside the stack frames of the
/// failure text: exception types, messages.
fn score_mentions(tree: &Tree, failure: &str, scores: &mut Scores<'_>) {
    let text: Vec<&str> = failure.lines().filter(|l| java_frame(l).is_none() && python_frame(l).is_none()).collect();
    let text = text.join("\n");
    let mut names: Vec<&str> = identifiers(&text).into_iter().collect();
    names.sort_unstable();
    for name in names.into_iter().filter(|n| n.starts_with(|c: char| c.is_uppercase())) {
        for &i in tree.by_name.get(&format!("{name}.java")).map_or(&[][..], Vec::as_slice) {
            scores.add(i, Kind::Mention, W_MENTION, format!("named in the failure text ({name})"));
        }
    }
}

/// How a file binds a name to project files.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Binding {
    /// An explicit import.
    Import,
    /// A wildcard import (`import pkg.*;`, `from m import *`).
    Wildcard,
    /// A Java class of the file's own package: a dependency only where the file names it.
    SamePackage,
}

/// (bound name, files, how) for the imports of file `i` (and, in Java, its package).
fn bindings(tree: &Tree, i: usize, content: &str) -> Vec<(String, Vec<usize>, Binding)> {
    if tree.files[i].ends_with(".py") {
        python_bindings(tree, &tree.files[i], content)
    } else {
        java_bindings(tree, i, content)
    }
}

/// Scores bindings at file level for `who` (`the failing test FooTest`, `the buggy file`).
fn score_bindings(
    bindings: &[(String, Vec<usize>, Binding)],
    used: &HashSet<&str>,
    who: &str,
    scores: &mut Scores<'_>,
) {
    for (name, files, how) in bindings {
        let (weight, signal) = match how {
            Binding::Import => (W_IMPORT, format!("imported by {who}")),
            Binding::Wildcard => (W_WILDCARD, format!("wildcard-imported by {who}")),
            Binding::SamePackage if used.contains(name.as_str()) => (W_IMPORT, format!("used by {who} (same package)")),
            Binding::SamePackage => continue,
        };
        files.iter().for_each(|&f| scores.add(f, Kind::Import, weight, signal.clone()));
    }
}

/// Java imports (`import a.b.C;`, `import static a.b.C.m;`, `import a.b.*;`) and the
/// classes of the file's own package.
fn java_bindings(tree: &Tree, i: usize, content: &str) -> Vec<(String, Vec<usize>, Binding)> {
    let mut out = vec![];
    for import in content.lines().filter_map(|l| l.trim().strip_prefix("import ")) {
        let name = import.trim_start_matches("static ").trim_end_matches(';').trim();
        let package = name.strip_suffix(".*").map(|p| tree.in_dir(&p.replace('.', "/"), ".java"));
        match package {
            Some(files) if !files.is_empty() => out.extend(class_bindings(tree, &files, Binding::Wildcard)),
            _ => out.extend(java_import(tree, name.trim_end_matches(".*"))),
        }
    }
    let package = java_package(content).filter(|p| !p.is_empty());
    let own = package.map_or_else(|| tree.siblings(i), |p| tree.in_dir(&p.replace('.', "/"), ".java"));
    let own: Vec<usize> = own.into_iter().filter(|&j| j != i).collect();
    out.extend(class_bindings(tree, &own, Binding::SamePackage));
    out
}

/// One binding per Java file, named by its class.
fn class_bindings(tree: &Tree, files: &[usize], how: Binding) -> Vec<(String, Vec<usize>, Binding)> {
    files.iter().map(|&j| (file_name(&tree.files[j]).trim_end_matches(".java").to_string(), vec![j], how)).collect()
}

/// `a.b.C` (or `a.b.C.Inner`, `a.b.C.member`) → the file of the outermost class found.
fn java_import(tree: &Tree, name: &str) -> Option<(String, Vec<usize>, Binding)> {
    let parts: Vec<&str> = name.split('.').collect();
    let bound = (*parts.last()?).to_string();
    (1..=parts.len()).rev().take(3).find_map(|n| {
        let files = tree.with_suffix(&format!("{}.java", parts[..n].join("/")));
        (!files.is_empty()).then(|| (bound.clone(), files, Binding::Import))
    })
}

/// The `package a.b;` declaration's name.
fn java_package(content: &str) -> Option<String> {
    let line = content.lines().map(str::trim).find(|l| l.starts_with("package "))?;
    Some(line["package ".len()..].trim_end_matches(';').trim().to_string())
}

/// Python imports of the file at `rel`: `import a.b [as x]`, `from a.b import c [as d]`,
/// `from . import c`, resolved to `a/b.py`, `a/b/__init__.py` or `a/b/c.py` under the root
/// or `src/` (relative imports: under the file's folder).
fn python_bindings(tree: &Tree, rel: &str, content: &str) -> Vec<(String, Vec<usize>, Binding)> {
    let mut out = vec![];
    for line in content.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("import ") {
            for (module, alias) in import_items(rest) {
                let bound = alias.unwrap_or_else(|| module.split('.').next().unwrap_or(module));
                out.extend(python_module(tree, rel, module).map(|f| (bound.to_string(), vec![f], Binding::Import)));
            }
        } else if let Some((module, names)) = line.strip_prefix("from ").and_then(|r| r.split_once(" import ")) {
            out.extend(from_import(tree, rel, module.trim(), names));
        }
    }
    out
}

/// The bindings of one `from module import names` line.
fn from_import(tree: &Tree, rel: &str, module: &str, names: &str) -> Vec<(String, Vec<usize>, Binding)> {
    let mut out = vec![];
    for (name, alias) in import_items(names.trim_matches(|c| c == '(' || c == ')' || c == '\\')) {
        let how = if name == "*" { Binding::Wildcard } else { Binding::Import };
        let submodule = format!("{}{}{name}", module, if module.ends_with('.') { "" } else { "." });
        let file = python_module(tree, rel, &submodule).or_else(|| python_module(tree, rel, module));
        out.extend(file.map(|f| (alias.unwrap_or(name).to_string(), vec![f], how)));
    }
    out
}

/// `a.b as x, c` → [(`a.b`, Some(`x`)), (`c`, None)].
fn import_items<'l>(list: &'l str) -> Vec<(&'l str, Option<&'l str>)> {
    let item = |s: &'l str| {
        let mut words = s.split_whitespace();
        let name = words.next()?;
        Some((name, words.nth(1).filter(|_| s.contains(" as "))))
    };
    list.split('#').next().unwrap_or("").split(',').filter_map(item).collect()
}

/// The project file of a dotted (possibly relative) module name.
fn python_module(tree: &Tree, rel: &str, module: &str) -> Option<usize> {
    let dots = module.len() - module.trim_start_matches('.').len();
    let path = module[dots..].replace('.', "/");
    let bases: Vec<String> = if dots == 0 {
        vec![String::new(), "src".to_string()]
    } else {
        let mut dir: Vec<&str> = parent(rel).split('/').filter(|p| !p.is_empty()).collect();
        dir.truncate(dir.len().saturating_sub(dots - 1));
        vec![dir.join("/")]
    };
    let candidates = |base: &String| {
        let stem = join(base, &path);
        [format!("{stem}.py"), join(&stem, "__init__.py")]
    };
    bases.iter().flat_map(candidates).find_map(|c| tree.by_path.get(c.trim_start_matches('/')).copied())
}

/// The body of the test method `name`: Java from `void name(` to its closing brace,
/// Python the lines indented under `def name(`.
fn method_body<'c>(content: &'c str, name: &str, python: bool) -> Option<&'c str> {
    if python { python_body(content, name) } else { java_body(content, name) }
}

/// Braces matched from the `{` after `void name(`; braces in strings and comments count.
fn java_body<'c>(content: &'c str, name: &str) -> Option<&'c str> {
    let start = content.find(&format!("void {name}("))?;
    let open = start + content[start..].find('{')?;
    let mut depth = 0usize;
    for (k, c) in content[open..].char_indices() {
        depth = match c {
            '{' => depth + 1,
            '}' if depth == 1 => return Some(&content[open..=open + k]),
            '}' => depth - 1,
            _ => depth,
        };
    }
    Some(&content[open..])
}

/// The lines after `def name(` indented deeper than it.
fn python_body<'c>(content: &'c str, name: &str) -> Option<&'c str> {
    let def = format!("def {name}(");
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut offset = 0;
    let mut start: Option<(usize, usize)> = None;
    for line in content.split_inclusive('\n') {
        match start {
            None if line.trim_start().trim_start_matches("async ").starts_with(&def) => {
                start = Some((offset, indent(line)));
            }
            Some((from, depth)) if !line.trim().is_empty() && indent(line) <= depth => {
                return Some(&content[from..offset]);
            }
            _ => {}
        }
        offset += line.len();
    }
    start.map(|(from, _)| &content[from..])
}

/// The identifiers (letters, digits, `_`) in `text`.
fn identifiers(text: &str) -> HashSet<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|t| !t.is_empty()).collect()
}

/// A relative path as a `/`-separated string; `None` when it is not UTF-8.
fn rel_string(path: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = path.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.into_iter().filter(|p| *p != ".").collect::<Vec<_>>().join("/"))
}

/// Whether `path` is `suffix` or ends with `/suffix` (an empty suffix always matches).
fn path_ends_with(path: &str, suffix: &str) -> bool {
    suffix.is_empty() || path == suffix || path.strip_suffix(suffix).is_some_and(|p| p.ends_with('/'))
}

/// The folder part of a `/`-separated path (`""` at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The extension of a path's file name, with its dot (`.java`), or `""`.
fn extension(path: &str) -> &str {
    let name = file_name(path);
    name.rfind('.').map_or("", |k| &name[k..])
}

/// The last component of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `dir/name`, or `name` when `dir` is empty.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// Whether `s` is a non-empty run of ASCII digits.
fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_skips_a_build_output_target_but_not_a_package_named_target() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in ["pom.xml", "src/main/java/org/x/target/Aim.java", "target/generated-sources/Gen.java"] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), "class C {}").unwrap();
        }
        assert_eq!(Tree::walk(root, None).files, ["src/main/java/org/x/target/Aim.java"]);
    }

    #[test]
    fn test_files_are_recognised_by_folder_and_name() {
        for rel in [
            "src/test/org/x/Foo.java",
            "a/FooTest.java",
            "TestFoo.java",
            "FooTests.java",
            "test_a.py",
            "p/a_test.py",
            "p/tests_a.py",
        ] {
            assert!(is_test_file(rel), "{rel}");
        }
        assert!(is_test_file("conftest.py") && is_test_file("tests\\util.py"));
        for rel in ["src/java/org/x/Foo.java", "pkg/testing.py", "contest.py", "src/Attest.java"] {
            assert!(!is_test_file(rel), "{rel}");
        }
    }

    #[test]
    fn java_frames_map_inner_classes_and_module_prefixes_to_files() {
        let frame = java_frame("\tat app//org.x.Outer$Inner.run(Outer.java:12)").unwrap();
        let Frame::Java { suffix, class, method, label } = frame else { panic!("not Java") };
        assert_eq!(
            (suffix.as_str(), class.as_str(), method.as_str(), label.as_str()),
            ("org/x/Outer.java", "org.x.Outer", "run", "Outer.java:12")
        );
        let Some(Frame::Java { suffix, .. }) = java_frame("at org.x.Cls.m(Unknown Source)") else { panic!() };
        assert_eq!(suffix, "org/x/Cls.java");
        assert_eq!(java_frame("at org.x.K.m(K.kt:3)"), None);
        assert_eq!(java_frame("expected:<at foo(bar)>"), None);
    }

    #[test]
    fn python_traces_are_reversed_so_the_deepest_frame_comes_first() {
        let failure = "Traceback (most recent call last):\n  File \"/abs/tests/test_a.py\", line 3, in test_x\n    f()\n  File \"/abs/pkg/a.py\", line 9, in f\n    raise ValueError\nValueError\n";
        let found = traces(failure);
        assert_eq!(found.len(), 1);
        assert_eq!(frame_label(&found[0][0]), "a.py:9");
        let pytest = "tests/test_a.py:3: in test_x\n    f()\npkg/a.py:9: ValueError\n";
        assert_eq!(frame_label(&traces(pytest)[0][0]), "a.py:9");
    }

    #[test]
    fn test_names_are_read_in_every_printed_form() {
        let java = |c: &str, m: &str| TestRef::Java { class: c.into(), method: Some(m.into()) };
        assert_eq!(test_name_in("--- org.x.FooTest::testBar"), Some(java("org.x.FooTest", "testBar")));
        assert_eq!(test_name_in("1) testBar(org.x.FooTest)"), Some(java("org.x.FooTest", "testBar")));
        assert_eq!(parse_test_id("FooTest#test_1"), Some(java("FooTest", "test_1")));
        let py = TestRef::Python { path: "tests/test_a.py".into(), method: Some("test_b".into()) };
        assert_eq!(test_name_in("FAILED tests/test_a.py::TestA::test_b[1] - AssertionError"), Some(py));
        assert_eq!(test_name_in("expected:<1> but was:<2>"), None);
    }

    #[test]
    fn names_under_test_follow_the_conventions() {
        assert_eq!(java_under_test("OptionsTest").as_deref(), Some("Options"));
        assert_eq!(java_under_test("TestOptions").as_deref(), Some("Options"));
        assert_eq!(java_under_test("Testament"), None);
        for name in ["test_util.py", "util_test.py", "tests_util.py"] {
            assert_eq!(python_under_test(name), ["util.py", "_util.py"], "{name}");
        }
        assert!(python_under_test("testing.py").is_empty() && python_under_test("test_.py").is_empty());
    }

    #[test]
    fn import_items_keep_aliases() {
        assert_eq!(import_items("a.b as x, c  # note"), vec![("a.b", Some("x")), ("c", None)]);
    }
}
