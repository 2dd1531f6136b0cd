//! QuixBugs (Lin et al., 2017; github.com/jkoppel/QuixBugs): 40 programs in Java and Python,
//! each with a one-line defect, and their tests. This module discovers the programs, makes a
//! scratch copy per run, builds and tests one program with the real toolchains, and runs the
//! **ground-truth oracle**: the developer fix, applied through [`crate::patch`] like any model
//! patch, must make the program plausible, and the buggy program must fail.
//!
//! # Commands (run in a scratch copy of the benchmark root)
//! | lang | build | test |
//! | --- | --- | --- |
//! | Java | `javac -nowarn -encoding UTF-8 -d .fixdex-classes -cp $CP -sourcepath . java_testcases/junit/P_TEST.java` | `java -cp .fixdex-classes:$CP org.junit.runner.JUnitCore java_testcases.junit.P_TEST` |
//! | Python | `$PY -m py_compile python_programs/p.py` | `$PY -m pytest -q -p no:cacheprovider --timeout=T python_testcases/test_p.py` |
//!
//! `$CP` is JUnit 4 and Hamcrest (`FIXDEX_JUNIT_CP`, default Debian's
//! `/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar` from the `junit4` and
//! `libhamcrest-java` packages); `$PY` is `FIXDEX_PYTHON` or `python3`, with pytest and
//! pytest-timeout installed (both found and checked by [`crate::validate::toolchain`]). javac compiles
//! only what the test reaches through `-sourcepath`, and the scratch copy holds no `.class`
//! file, so the stale classes QuixBugs ships next to its sources can never be picked up.
//!
//! # Flaky programs
//! When a program's outcome is not the expected one (buggy passes, or fixed is not plausible),
//! that version is run `reruns` more times; if the verdicts differ between runs, the program
//! is reported as **flaky** and not counted against the oracle.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::fl::{CoverageSpec, FlReport, JavaTarget, PythonTarget, Target};
use crate::patch::Patch;
use crate::validate::scratch::{Scratch, ScratchError};
use crate::validate::toolchain::{self, ToolchainError};
use crate::validate::{CommandSpec, Validation, Validator, Verdict};

/// A QuixBugs language: Java (`java_programs/`, JUnit 4 tests in `java_testcases/junit/`) or
/// Python (`python_programs/`, pytest tests in `python_testcases/`). The crate's
/// [`Language`](crate::Language), under the name this module has always used.
pub use crate::Language as Lang;
/// The toolchain defaults and discovery, re-exported from [`crate::validate::toolchain`] where they live.
pub use crate::validate::toolchain::{DEFAULT_JUNIT_CP, python_from_env};

/// The lower bound of a calibrated Python per-test limit ([`Runner::per_test_limit`]): 2 s,
/// hundreds of times what a QuixBugs test takes, so that a loaded machine is never taken for
/// a hang.
pub const PER_TEST_FLOOR: Duration = Duration::from_secs(2);

/// The slowest `<testcase time="…">` of a JUnit XML report (pytest's `--junitxml`); `None`
/// when it has none.
fn slowest_test(xml: &str) -> Option<Duration> {
    xml.split("<testcase")
        .skip(1)
        .filter_map(|case| {
            let attrs = &case[..case.find('>')?];
            let at = attrs.find(" time=\"")? + " time=\"".len();
            let value = &attrs[at..at + attrs[at..].find('"')?];
            value.parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0)
        })
        .reduce(f64::max)
        .map(Duration::from_secs_f64)
}

/// `d` in seconds for pytest-timeout's `--timeout` (a float it accepts): `2`, `2.5`.
fn seconds(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// pytest's arguments for `program`'s test file: quiet (`-q`), then `extra` (`--exitfirst`,
/// `--correct`), no `.pytest_cache` written into the benchmark (`-p no:cacheprovider`), each
/// test limited to `per_test` (pytest-timeout's `--timeout`, seconds to the millisecond), and
/// the test file. Every pytest run of the benchmark is made of it: candidates, the correct
/// version's timing ([`Runner::per_test_limit`]) and SBFL's coverage runs ([`sbfl_spec`]).
fn pytest_args(program: &Program, per_test: Duration, extra: &[String]) -> Vec<String> {
    let mut args = vec!["-q".to_string()];
    args.extend(extra.iter().cloned());
    args.extend([
        "-p".into(),
        "no:cacheprovider".into(),
        format!("--timeout={}", seconds(per_test)),
        program.test.to_string_lossy().into_owned(),
    ]);
    args
}

/// The environment of every Python run of the benchmark: no `__pycache__` written into it.
fn no_bytecode() -> Vec<(OsString, OsString)> {
    vec![(OsString::from("PYTHONDONTWRITEBYTECODE"), OsString::from("1"))]
}

/// Support files of the Java benchmark that are not programs.
const JAVA_SUPPORT: &[&str] = &["Node", "WeightedEdge"];
/// Support files of the Python benchmark that are not programs.
const PYTHON_SUPPORT: &[&str] = &["node"];

/// Errors of the harness (not of the programs under test).
#[derive(Debug, thiserror::Error)]
pub enum QuixbugsError {
    /// The benchmark root lacks an expected folder.
    #[error("{root} is not a QuixBugs root: {missing} not found")]
    NotQuixbugs {
        /// The root given.
        root: PathBuf,
        /// The missing folder.
        missing: &'static str,
    },
    /// A toolchain is missing (javac/java, JUnit jars, Python with pytest).
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    /// The ground-truth file is unreadable or malformed.
    #[error("{path}:{line}: {reason}")]
    GroundTruth {
        /// The JSONL file.
        path: PathBuf,
        /// 1-based line, 0 for the whole file.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A requested program does not exist.
    #[error("unknown {lang} program `{name}` (known: {known})")]
    UnknownProgram {
        /// The language.
        lang: Lang,
        /// The name asked for.
        name: String,
        /// The known names.
        known: String,
    },
    /// Scratch copy failed.
    #[error(transparent)]
    Scratch(#[from] crate::validate::scratch::ScratchError),
    /// The validation machinery failed.
    #[error(transparent)]
    Validate(#[from] crate::validate::ValidateError),
    /// The instrumentation of a program failed after its probe sites were found.
    #[error("{program}: cannot instrument: {source}")]
    Probe {
        /// The program.
        program: String,
        /// Why.
        source: crate::strategies::tracerepair::probe::ProbeError,
    },
    /// Other I/O.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One benchmark program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Program {
    /// Name as in the benchmark (`BITCOUNT`, `bitcount`).
    pub name: String,
    /// Language.
    pub lang: Lang,
    /// Buggy source, relative to the root (`java_programs/BITCOUNT.java`).
    pub source: PathBuf,
    /// Test file, relative to the root.
    pub test: PathBuf,
}

/// Lists the programs of `lang` under `root` that have a test file, sorted by name.
pub fn discover(root: &Path, lang: Lang) -> Result<Vec<Program>, QuixbugsError> {
    let ext = lang.extension();
    let (dir, support) = match lang {
        Lang::Java => ("java_programs", JAVA_SUPPORT),
        Lang::Python => ("python_programs", PYTHON_SUPPORT),
    };
    let tests = match lang {
        Lang::Java => "java_testcases/junit",
        Lang::Python => "python_testcases",
    };
    for missing in [dir, tests] {
        if !root.join(missing).is_dir() {
            return Err(QuixbugsError::NotQuixbugs { root: root.to_path_buf(), missing });
        }
    }
    let read =
        std::fs::read_dir(root.join(dir)).map_err(|source| QuixbugsError::Io { path: root.join(dir), source })?;
    let mut programs = Vec::new();
    for entry in read {
        let path = entry.map_err(|source| QuixbugsError::Io { path: root.join(dir), source })?.path();
        if path.extension().and_then(|e| e.to_str()) != Some(ext) {
            continue;
        }
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
        if support.contains(&name.as_str()) || name.ends_with("_test") {
            continue;
        }
        let test = match lang {
            Lang::Java => PathBuf::from(format!("{tests}/{name}_TEST.java")),
            Lang::Python => PathBuf::from(format!("{tests}/test_{name}.py")),
        };
        if !root.join(&test).is_file() {
            continue;
        }
        programs.push(Program { source: PathBuf::from(format!("{dir}/{name}.{ext}")), name, lang, test });
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(programs)
}

/// The entries of a QuixBugs root that a scratch copy for `lang` leaves out: everything but
/// that language's sources and tests (no `.class` files, no correct programs).
pub fn scratch_filter(lang: Lang) -> crate::validate::scratch::ScratchFilter {
    std::sync::Arc::new(move |rel: &Path, is_dir: bool| {
        let top = rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned());
        let top = top.as_deref().unwrap_or("");
        match lang {
            Lang::Java => {
                if is_dir {
                    !(rel == Path::new("java_programs")
                        || rel == Path::new("java_testcases")
                        || rel == Path::new("java_testcases/junit"))
                } else {
                    !((top == "java_programs" || top == "java_testcases")
                        && rel.extension().is_some_and(|e| e == "java"))
                }
            }
            Lang::Python => {
                if is_dir {
                    !matches!(top, "python_programs" | "python_testcases" | "json_testcases")
                        || rel.components().count() > 1
                } else {
                    !(rel == Path::new("conftest.py")
                        || matches!(top, "python_programs" | "python_testcases" | "json_testcases"))
                }
            }
        }
    })
}

/// Builds and tests QuixBugs programs in scratch copies.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The benchmark root (read only).
    pub root: PathBuf,
    /// The language.
    pub lang: Lang,
    /// JUnit class path (Java).
    pub junit_cp: String,
    /// Python interpreter (Python).
    pub python: PathBuf,
    /// Wall-clock limit per build or test command.
    pub timeout: Duration,
    /// pytest-timeout's limit per Python test, seconds.
    pub per_test_timeout_s: u32,
}

impl Runner {
    /// A runner with the toolchains from the environment (`FIXDEX_JUNIT_CP`,
    /// `FIXDEX_PYTHON`), checked: errors name what is missing and how to install it.
    pub fn new(root: &Path, lang: Lang, timeout: Duration) -> Result<Runner, QuixbugsError> {
        let junit_cp = toolchain::junit_cp_from_env();
        let python = python_from_env().map_err(|(path, source)| QuixbugsError::Io { path, source })?;
        Runner::with_toolchain(root, lang, timeout, junit_cp, python)
    }

    /// A runner with an explicit JUnit class path (`:`-separated jars) and Python
    /// interpreter, checked like [`Runner::new`].
    pub fn with_toolchain(
        root: &Path,
        lang: Lang,
        timeout: Duration,
        junit_cp: String,
        python: PathBuf,
    ) -> Result<Runner, QuixbugsError> {
        let runner = Runner { root: root.to_path_buf(), lang, junit_cp, python, timeout, per_test_timeout_s: 10 };
        runner.check_toolchain()?;
        Ok(runner)
    }

    fn check_toolchain(&self) -> Result<(), ToolchainError> {
        match self.lang {
            Lang::Java => {
                toolchain::check_jdk()?;
                toolchain::check_class_path(&self.junit_cp)
            }
            Lang::Python => toolchain::check_pytest(&self.python),
        }
    }

    /// A scratch copy of the parts of the root this language needs: sources and tests only
    /// (no `.class` files, no correct programs, no other language).
    pub fn scratch(&self) -> Result<Scratch, QuixbugsError> {
        Ok(self.scratch_copy()?)
    }

    fn scratch_copy(&self) -> Result<Scratch, ScratchError> {
        let skip = scratch_filter(self.lang);
        Scratch::copy(&self.root, move |rel, is_dir| skip(rel, is_dir))
    }

    /// The build and test commands of `program`; Python's also with pytest's `--exitfirst`
    /// ([`Validator::fail_fast`]), each Python test limited to [`Runner::per_test_timeout_s`].
    pub fn validator(&self, program: &Program) -> Validator {
        self.validator_with(program, Duration::from_secs(u64::from(self.per_test_timeout_s)))
    }

    /// [`Runner::validator`] for a repair's candidates: Python's per-test limit is
    /// [`Runner::per_test_limit`], scaled from the correct version's slowest test, so that a
    /// candidate that keeps a test looping costs about 2 s, not 10 (on the whole Python set,
    /// 107 of 4,478 candidates hung, 1,100 s of 2,918 s of validation, 49 of them in `sqrt`,
    /// whose 10-minute wall they filled). Java as [`Runner::validator`]: most of QuixBugs'
    /// JUnit tests carry their own `@Test(timeout = 3000)` (32 of 41 test classes); the graph
    /// and linked-list ones do not, and are bounded by the candidate timeout alone.
    ///
    /// `factor` is the candidate timeout factor (`--candidate-timeout-factor`), which scales
    /// this limit as it scales the candidate timeout.
    pub fn repair_validator(&self, program: &Program, factor: f64) -> Validator {
        match self.lang {
            Lang::Java => self.validator(program),
            Lang::Python => self.validator_with(program, self.per_test_limit(program, factor)),
        }
    }

    /// Python: the per-test limit of `program`'s candidates, `max(PER_TEST_FLOOR, factor × t)`
    /// capped at [`Runner::per_test_timeout_s`], `factor` the candidate timeout factor (10 by
    /// default, [`crate::validate::DEFAULT_TIMEOUT_FACTOR`]; not positive: the cap), `t` the slowest
    /// test of the correct version (QuixBugs' own `pytest --correct`, run once in the
    /// benchmark root, which it leaves as it is: no cache, no bytecode, the JUnit XML in a
    /// temporary folder). [`Runner::per_test_timeout_s`] when that run fails, times out or reports no test (a root whose `conftest.py` has no
    /// `--correct`): the limit is never tighter than what the correct version was seen to need.
    pub fn per_test_limit(&self, program: &Program, factor: f64) -> Duration {
        let cap = Duration::from_secs(u64::from(self.per_test_timeout_s));
        if !crate::validate::scales(factor) {
            return cap;
        }
        let Ok(tmp) = tempfile::tempdir() else { return cap };
        let xml = tmp.path().join("correct.xml");
        let extra = ["--correct".to_string(), format!("--junitxml={}", xml.display())];
        let argv = self.pytest(pytest_args(program, cap, &extra));
        let passed = crate::validate::run_command(&CommandSpec::Argv(argv), &self.root, &no_bytecode(), self.timeout)
            .is_ok_and(|run| run.exit == crate::validate::Exit::Code(0));
        let slowest = std::fs::read_to_string(&xml).ok().filter(|_| passed).and_then(|x| slowest_test(&x));
        slowest.and_then(|t| crate::validate::scaled_limit(t, factor, PER_TEST_FLOOR)).map_or(cap, |d| d.min(cap))
    }

    /// `python -m pytest` with `args`, the runner's interpreter.
    fn pytest(&self, args: Vec<String>) -> Vec<String> {
        let mut argv = vec![self.python.to_string_lossy().into_owned(), "-m".into(), "pytest".into()];
        argv.extend(args);
        argv
    }

    fn validator_with(&self, program: &Program, per_test: Duration) -> Validator {
        let (build, test, fail_fast) = match self.lang {
            Lang::Java => {
                let class = format!("java_testcases.junit.{}_TEST", program.name);
                let build = vec![
                    "javac".into(),
                    "-nowarn".into(),
                    "-encoding".into(),
                    "UTF-8".into(),
                    "-d".into(),
                    ".fixdex-classes".into(),
                    "-cp".into(),
                    self.junit_cp.clone(),
                    "-sourcepath".into(),
                    ".".into(),
                    program.test.to_string_lossy().into_owned(),
                ];
                let test = vec![
                    "java".into(),
                    "-cp".into(),
                    format!(".fixdex-classes:{}", self.junit_cp),
                    "org.junit.runner.JUnitCore".into(),
                    class,
                ];
                (build, test, None)
            }
            Lang::Python => {
                let py = self.python.to_string_lossy().into_owned();
                let build = vec![py, "-m".into(), "py_compile".into(), program.source.to_string_lossy().into_owned()];
                let test = self.pytest(pytest_args(program, per_test, &[]));
                // pytest's --exitfirst: a candidate that keeps a hanging test costs one
                // per-test timeout, not one per hanging test case.
                let fast = self.pytest(pytest_args(program, per_test, &["--exitfirst".to_string()]));
                (build, test, Some(fast))
            }
        };
        Validator {
            build: Some(CommandSpec::Argv(build)),
            test: CommandSpec::Argv(test),
            fail_fast: fail_fast.map(CommandSpec::Argv),
            timeout: self.timeout,
            env: no_bytecode(),
            reference: None,
        }
    }

    /// Validate `program` in a fresh scratch copy after applying `patch` (if any).
    /// A patch that does not apply is returned as `Err(feedback)` inside the `Ok`.
    pub fn run(&self, program: &Program, patch: Option<&Patch>) -> Result<Result<Validation, String>, QuixbugsError> {
        let scratch = self.scratch()?;
        if let Some(patch) = patch
            && let Err(e) = patch.apply(scratch.root())
        {
            return Ok(Err(e.feedback()));
        }
        Ok(Ok(self.validator(program).validate(scratch.root())?))
    }
}

/// The method a repair of `program` starts from under SBFL: the top method of the program's
/// own file (every QuixBugs fault is there, and the workflow repairs that file; helpers such
/// as Node.java may rank higher when the failing tests run through them), by its bare name,
/// with the SBFL scores of that file's lines.
///
/// # Errors
/// SBFL failed ([`crate::fl::FlError`]) or ranked no method of the file, as a message.
pub fn localize(runner: &Runner, program: &Program) -> Result<(String, crate::fl::LineWeights), String> {
    let fl = sbfl(runner, program).map_err(|e| e.to_string())?;
    let file = program.source.to_string_lossy().replace('\\', "/");
    let found = crate::fl::Localized::of(&fl, Some(&file)).map_err(|_| format!("SBFL ranked no method of {file}"))?;
    let name = found.top.name.rsplit('.').next().unwrap_or(&found.top.name).to_string();
    Ok((name, found.weights))
}

/// SBFL fault localization of `program` ([`crate::fl`]), in a scratch copy of the benchmark
/// made like [`Runner::scratch`], with [`sbfl_spec`].
///
/// # Errors
/// As [`crate::fl::sbfl`]: missing JaCoCo jars or coverage.py, a failed build or test run,
/// no test, no failing test, no coverage, I/O.
///
/// # Example
/// ```no_run
/// use std::time::Duration;
/// use repair::bench::quixbugs::{self, Lang, Runner};
///
/// let root = std::path::Path::new("../shared/benchmarks/quixbugs");
/// let runner = Runner::new(root, Lang::Java, Duration::from_secs(120))?;
/// let program = quixbugs::select(quixbugs::discover(root, Lang::Java)?, &["GET_FACTORS".into()])?.remove(0);
/// let report = quixbugs::sbfl(&runner, &program)?;
/// println!("most suspicious method: {}", report.methods[0].name);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sbfl(runner: &Runner, program: &Program) -> Result<FlReport, crate::fl::FlError> {
    let scratch = runner.scratch_copy()?;
    crate::fl::sbfl_in(scratch.root(), &sbfl_spec(runner, program))
}

/// The coverage spec of `program`, from the runner's commands ([`Runner::validator`]): Java
/// builds with the runner's `javac` line and measures `java_programs.*` while running
/// `java_testcases.junit.P_TEST`; Python runs the runner's pytest options on the program's
/// test file and measures `python_programs`. The JaCoCo folder comes from
/// [`toolchain::jacoco_dir_from_env`].
pub fn sbfl_spec(runner: &Runner, program: &Program) -> CoverageSpec {
    let validator = runner.validator(program);
    let target = match runner.lang {
        Lang::Java => Target::Java(JavaTarget {
            build: validator.build,
            classes_dir: PathBuf::from(".fixdex-classes"),
            class_path: runner.junit_cp.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect(),
            test_classes: vec![format!("java_testcases.junit.{}_TEST", program.name)],
            includes: vec!["java_programs.*".into()],
            source_roots: vec![PathBuf::from(".")],
            jacoco_dir: toolchain::jacoco_dir_from_env(),
        }),
        Lang::Python => Target::Python(PythonTarget {
            python: runner.python.clone(),
            pytest_args: pytest_args(program, Duration::from_secs(u64::from(runner.per_test_timeout_s)), &[]),
            sources: vec![PathBuf::from("python_programs")],
        }),
    };
    CoverageSpec { target, timeout: runner.timeout }
}

/// Ground-truth fixes of QuixBugs: the `diff` field of `quixbugs.jsonl` (../shared/data),
/// keyed by the buggy file path (`meta.buggy_path`).
#[derive(Debug, Clone, Default)]
pub struct GroundTruth {
    diffs: std::collections::BTreeMap<PathBuf, String>,
    /// (record id, buggy method name) per buggy file.
    names: std::collections::BTreeMap<PathBuf, (String, String)>,
}

/// The location of a record's `meta.function` (`CLASS.method(types)` in Java, `function` in
/// Python): the name without its class, with the parameter list when there is one
/// (`SHORTEST_PATHS.shortest_paths(String,Map<List<String>,Integer>)` →
/// `shortest_paths(String,Map<List<String>,Integer>)`), as `fixdex repair --method` takes it.
#[must_use]
pub fn method_location(function: &str) -> String {
    let (head, params) = function.split_once('(').map_or((function, None), |(h, p)| (h, Some(p)));
    let name = head.rsplit('.').next().unwrap_or_default().trim();
    match params {
        Some(params) if !name.is_empty() => format!("{name}({params}"),
        _ => name.to_string(),
    }
}

impl GroundTruth {
    /// Reads `quixbugs.jsonl`: one JSON object per line with `diff` and `meta.buggy_path`.
    pub fn load(path: &Path) -> Result<GroundTruth, QuixbugsError> {
        let text = std::fs::read_to_string(path).map_err(|source| QuixbugsError::Io { path: path.into(), source })?;
        let mut diffs = std::collections::BTreeMap::new();
        let mut names = std::collections::BTreeMap::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let bad = |reason: String| QuixbugsError::GroundTruth { path: path.into(), line: i + 1, reason };
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(format!("invalid JSON: {e}")))?;
            let diff = v["diff"].as_str().ok_or_else(|| bad("field `diff` missing or not a string".into()))?;
            let buggy = v["meta"]["buggy_path"]
                .as_str()
                .ok_or_else(|| bad("field `meta.buggy_path` missing or not a string".into()))?;
            diffs.insert(PathBuf::from(buggy), diff.to_string());
            let method = method_location(v["meta"]["function"].as_str().unwrap_or_default());
            names.insert(PathBuf::from(buggy), (v["id"].as_str().unwrap_or_default().to_string(), method));
        }
        if diffs.is_empty() {
            return Err(QuixbugsError::GroundTruth { path: path.into(), line: 0, reason: "no record".into() });
        }
        Ok(GroundTruth { diffs, names })
    }

    /// The corpus id of `program`'s record (e.g. `quixbugs:java:BITCOUNT`), used to keep the
    /// bug out of its own retrieval results.
    pub fn id(&self, program: &Program) -> Option<&str> {
        self.names.get(&program.source).map(|(id, _)| id.as_str()).filter(|s| !s.is_empty())
    }

    /// The buggy method as a location (perfect function-level fault localization, as in
    /// ReinFix's evaluation), from `meta.function`: its name with the parameter types when
    /// the record gives them (`shortest_paths(String,Map<List<String>,Integer>)`, which
    /// picks that overload of SHORTEST_PATHS), [`method_location`].
    pub fn method(&self, program: &Program) -> Option<&str> {
        self.names.get(&program.source).map(|(_, m)| m.as_str()).filter(|s| !s.is_empty())
    }

    /// The developer fix of `program` as a unified diff.
    pub fn diff(&self, program: &Program) -> Option<&str> {
        self.diffs.get(&program.source).map(String::as_str)
    }

    /// The 1-based lines of `program`'s buggy file (`text`, its contents) that the developer
    /// fix removes or replaces: each hunk's context and removed lines are found in `text` by
    /// content (line numbers in the diff are not trusted). `None` without a ground-truth diff
    /// or when a hunk is not in `text`. O(hunks × file lines × hunk lines).
    pub fn buggy_lines(&self, program: &Program, text: &str) -> Option<Vec<u32>> {
        let text = text.replace("\r\n", "\n");
        let file: Vec<&str> = text.lines().collect();
        let mut lines = Vec::new();
        for hunk in self.diff(program)?.split("\n@@").skip(1) {
            let body: Vec<&str> =
                hunk.lines().skip(1).filter(|l| !l.starts_with('+') && !l.starts_with('\\')).collect();
            let old: Vec<&str> = body.iter().map(|l| l.get(1..).unwrap_or("")).collect();
            if old.is_empty() {
                continue; // a hunk with neither context nor removed lines replaces nothing
            }
            let at = file.windows(old.len()).position(|w| w == &old[..])?;
            let removed = body.iter().enumerate().filter(|(_, l)| l.starts_with('-'));
            lines.extend(removed.filter_map(|(i, _)| u32::try_from(at + i + 1).ok()));
        }
        Some(lines)
    }
}

/// Verdict summary of one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunSummary {
    /// The verdict, or `None` when the patch did not apply.
    pub verdict: Option<Verdict>,
    /// Failing tests parsed from the output.
    pub failing_tests: usize,
    /// Wall time, milliseconds.
    pub wall_ms: u64,
    /// Why the patch did not apply, or the tail of the output when the outcome was unexpected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl RunSummary {
    fn of(r: &Result<Validation, String>, expected_plausible: bool) -> RunSummary {
        match r {
            Ok(v) => RunSummary {
                verdict: Some(v.verdict),
                failing_tests: v.failing_tests.len(),
                wall_ms: v.wall_ms,
                detail: (v.plausible() != expected_plausible).then(|| v.feedback(1500)),
            },
            Err(e) => RunSummary { verdict: None, failing_tests: 0, wall_ms: 0, detail: Some(e.clone()) },
        }
    }
}

/// The oracle check of one program.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProgramCheck {
    /// Program name.
    pub program: String,
    /// The buggy program's run (expected: not plausible).
    pub buggy: RunSummary,
    /// The ground-truth-patched program's run (expected: plausible).
    pub fixed: RunSummary,
    /// Verdicts differed between reruns of the same code.
    pub flaky: bool,
    /// Buggy failed and fixed is plausible.
    pub ok: bool,
}

/// Summary of an oracle run over a language, the JSON of
/// `fixdex eval quixbugs --check --json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OracleSummary {
    /// Language.
    pub lang: Lang,
    /// Programs checked.
    pub total: usize,
    /// Buggy versions that were not plausible (compile error, failing test or timeout).
    pub buggy_failed: usize,
    /// Ground-truth-patched versions that were plausible.
    pub fixed_plausible: usize,
    /// Programs whose verdicts differed between reruns.
    pub flaky: Vec<String>,
    /// Programs that are neither ok nor flaky.
    pub failed_checks: Vec<String>,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Per-program details.
    pub programs: Vec<ProgramCheck>,
}

/// Run the ground-truth oracle on `programs` with `jobs` worker threads; `reruns` extra
/// runs of a version whose outcome was unexpected decide flakiness. `progress` is called
/// after each program with (done, total, check).
pub fn oracle(
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[Program],
    jobs: usize,
    reruns: usize,
    progress: &(dyn Fn(usize, usize, &ProgramCheck) + Sync),
) -> Result<OracleSummary, QuixbugsError> {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<ProgramCheck, QuixbugsError>>>> =
        Mutex::new((0..programs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(programs.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(program) = programs.get(i) else { break };
                    let r = check_program(runner, truth, program, reruns);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if let Ok(c) = &r {
                        progress(n, programs.len(), c);
                    }
                    results.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(r);
                }
            });
        }
    });
    let mut checks = Vec::with_capacity(programs.len());
    for r in results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        checks.push(r.expect("every program was run")?);
    }
    let not_plausible = |r: &RunSummary| r.verdict.is_some_and(|v| v != Verdict::Plausible);
    Ok(OracleSummary {
        lang: runner.lang,
        total: checks.len(),
        buggy_failed: checks.iter().filter(|c| not_plausible(&c.buggy)).count(),
        fixed_plausible: checks.iter().filter(|c| c.fixed.verdict == Some(Verdict::Plausible)).count(),
        flaky: checks.iter().filter(|c| c.flaky).map(|c| c.program.clone()).collect(),
        failed_checks: checks.iter().filter(|c| !c.ok && !c.flaky).map(|c| c.program.clone()).collect(),
        wall_s: start.elapsed().as_secs_f64(),
        programs: checks,
    })
}

/// Writes the developer's version of `program` (its buggy file under `root` with the
/// ground-truth diff applied) to `out/<source>` (`out/java_programs/BITCOUNT.java`): what a
/// run folder keeps under `fixed/` to grade patches against ([`crate::bench::keep`]).
///
/// # Errors
/// No ground-truth diff for the program, a diff that does not parse or apply, or a file that
/// cannot be copied; the message names the program's file.
pub fn keep_developer_version(truth: &GroundTruth, program: &Program, root: &Path, out: &Path) -> Result<(), String> {
    let src = &program.source;
    let diff = truth.diff(program).ok_or_else(|| format!("no ground-truth diff for {}", src.display()))?;
    crate::bench::keep::copy(&root.join(src), &out.join(src))?;
    let patch = Patch::parse(diff, Some(src)).map_err(|e| format!("{}: ground-truth diff: {e}", src.display()))?;
    patch.apply(out).map(|_| ()).map_err(|e| format!("{}: applying the ground-truth diff: {e}", src.display()))
}

/// The oracle check of one program: buggy must fail, the ground truth applied through the
/// patch path must be plausible; unexpected outcomes are rerun to detect flakiness.
pub fn check_program(
    runner: &Runner,
    truth: &GroundTruth,
    program: &Program,
    reruns: usize,
) -> Result<ProgramCheck, QuixbugsError> {
    let buggy = runner.run(program, None)?;
    let fixed = match truth.diff(program) {
        None => Err(format!("no ground-truth record for {}", program.source.display())),
        Some(diff) => match Patch::parse(diff, Some(&program.source)) {
            Ok(patch) => runner.run(program, Some(&patch))?,
            Err(e) => Err(e.feedback()),
        },
    };
    let verdict = |r: &Result<Validation, String>| r.as_ref().ok().map(|v| v.verdict);
    let mut flaky = false;
    let buggy_plausible = verdict(&buggy) == Some(Verdict::Plausible);
    if buggy_plausible {
        for _ in 0..reruns {
            flaky |= verdict(&runner.run(program, None)?) != verdict(&buggy);
        }
    }
    let fixed_plausible = verdict(&fixed) == Some(Verdict::Plausible);
    if !fixed_plausible
        && fixed.is_ok()
        && let Some(diff) = truth.diff(program)
        && let Ok(patch) = Patch::parse(diff, Some(&program.source))
    {
        for _ in 0..reruns {
            flaky |= verdict(&runner.run(program, Some(&patch))?) != verdict(&fixed);
        }
    }
    Ok(ProgramCheck {
        program: program.name.clone(),
        buggy: RunSummary::of(&buggy, false),
        fixed: RunSummary::of(&fixed, true),
        flaky,
        ok: !buggy_plausible && buggy.is_ok() && fixed_plausible,
    })
}

/// Look up programs by name (case-insensitive), in the order named, each once (`GCD,gcd`
/// runs GCD once: a program counted twice would skew the totals); an empty `names` selects
/// all.
///
/// # Errors
/// [`QuixbugsError::UnknownProgram`] for a name no program has, listing the known ones.
pub fn select(programs: Vec<Program>, names: &[String]) -> Result<Vec<Program>, QuixbugsError> {
    if names.is_empty() {
        return Ok(programs);
    }
    let mut seen: Vec<String> = Vec::new();
    names
        .iter()
        .filter(|n| {
            let key = n.to_ascii_uppercase();
            let first = !seen.contains(&key);
            seen.push(key);
            first
        })
        .map(|n| {
            programs.iter().find(|p| p.name.eq_ignore_ascii_case(n)).cloned().ok_or_else(|| {
                QuixbugsError::UnknownProgram {
                    lang: programs.first().map_or(Lang::Java, |p| p.lang),
                    name: n.clone(),
                    known: programs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                }
            })
        })
        .collect()
}

/// A seeded sample of `n` of `programs` (all of them when `n >= programs.len()`), kept in
/// their given order (discovery order: by name).
///
/// The sample is a partial Fisher–Yates shuffle driven by `fastrand`'s WyRand seeded with
/// `seed`, so the same `(programs, n, seed)` gives the same sample on every platform. A
/// whole-benchmark run is a measurement (`scripts/measure.sh`); a sample is the cheap check
/// that still fails when the machinery breaks (CI runs a few programs per language).
pub fn sample(programs: Vec<Program>, n: usize, seed: u64) -> Vec<Program> {
    if n >= programs.len() {
        return programs;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut order: Vec<usize> = (0..programs.len()).collect();
    for i in 0..n {
        let j = rng.usize(i..order.len());
        order.swap(i, j);
    }
    let mut keep = order[..n].to_vec();
    keep.sort_unstable();
    let mut programs: Vec<Option<Program>> = programs.into_iter().map(Some).collect();
    keep.into_iter().filter_map(|i| programs[i].take()).collect()
}

/// TraceRepair's automatic probes (`--probe auto`,
/// [`auto_sites`](crate::strategies::tracerepair::probe::auto_sites)) on one QuixBugs program:
/// how many probes the method holding the first buggy line got, and whether the instrumented
/// copy compiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeCheck {
    /// The program.
    pub program: String,
    /// The language.
    pub lang: Lang,
    /// Probes placed.
    pub probes: usize,
    /// Places that would have been probed but cannot take a statement.
    pub skipped: usize,
    /// Whether the instrumented copy compiles (`javac` with the other QuixBugs classes on the
    /// source path) or byte-compiles (`python -m py_compile`).
    pub compiled: bool,
}

/// Instruments `program` with
/// [`auto_sites`](crate::strategies::tracerepair::probe::auto_sites) at the method or function
/// holding the first line that differs from its correct version (`correct_java_programs/`,
/// `correct_python_programs/`) and compiles the instrumented copy under `scratch` (a folder
/// the caller owns and may reuse between programs).
///
/// `Ok(None)` when the program has no correct version, or no differing line lies inside a
/// method (the package lines differ too: they are passed over). Cost: one `javac` (about a
/// second) or one `py_compile`. The rate over all programs is the reliability TraceRepair
/// (Ye et al., 2025) reports as 93.8 % on Defects4J; `scripts/measure.sh probes` measures it
/// on every program, the shared test on a sample.
///
/// # Errors
/// [`QuixbugsError::Io`] when a source cannot be read or the scratch folder written, or
/// when `javac` / Python cannot be started.
pub fn probe_check(root: &Path, program: &Program, scratch: &Path) -> Result<Option<ProbeCheck>, QuixbugsError> {
    use crate::strategies::tracerepair::probe;
    let read = |path: PathBuf| std::fs::read_to_string(&path).map_err(|source| QuixbugsError::Io { path, source });
    let text = read(root.join(&program.source))?;
    let (dir, file) =
        (program.source.parent().unwrap_or(Path::new("")), program.source.file_name().unwrap_or_default());
    let correct = root.join(format!("correct_{}", dir.display())).join(file);
    if !correct.is_file() {
        return Ok(None);
    }
    let fixed = read(correct)?;
    let mut differs = text.lines().zip(fixed.lines()).enumerate().filter(|(_, (a, b))| a.trim() != b.trim());
    let Some(sites) = differs.find_map(|(i, _)| probe::auto_sites(&text, program.lang, i + 1).ok()) else {
        return Ok(None);
    };
    let out = probe::instrument(&text, program.lang, &sites.sites)
        .map_err(|source| QuixbugsError::Probe { program: program.name.clone(), source })?;
    let compiled = compile_instrumented(root, program, &out.source, scratch)?;
    Ok(Some(ProbeCheck {
        program: program.name.clone(),
        lang: program.lang,
        probes: sites.sites.len(),
        skipped: sites.skipped,
        compiled,
    }))
}

/// Writes `source` as `program`'s file under `scratch` (emptied first, so no earlier
/// program's instrumented file shadows the benchmark's) and compiles it; true on success.
fn compile_instrumented(root: &Path, program: &Program, source: &str, scratch: &Path) -> Result<bool, QuixbugsError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| QuixbugsError::Io { path, source }
    };
    for old in [scratch.join("src"), scratch.join("out")] {
        match std::fs::remove_dir_all(&old) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&old)(e)),
            _ => {}
        }
    }
    let file = scratch.join("src").join(&program.source);
    std::fs::create_dir_all(file.parent().unwrap_or(scratch)).map_err(io(scratch))?;
    std::fs::write(&file, source).map_err(io(&file))?;
    let mut cmd = match program.lang {
        Lang::Java => {
            let mut cmd = std::process::Command::new("javac");
            let sourcepath = std::env::join_paths([scratch.join("src"), root.to_path_buf()])
                .map_err(|e| QuixbugsError::Io { path: root.to_path_buf(), source: std::io::Error::other(e) })?;
            cmd.args(["-nowarn", "-encoding", "UTF-8", "-d"]).arg(scratch.join("out")).arg("-sourcepath");
            cmd.arg(sourcepath).arg(&file);
            cmd
        }
        Lang::Python => {
            let python = toolchain::python_from_env().map_err(|(path, source)| QuixbugsError::Io { path, source })?;
            let mut cmd = std::process::Command::new(python);
            cmd.args(["-m", "py_compile"]).arg(&file);
            cmd
        }
    };
    let out = cmd.output().map_err(io(Path::new(if program.lang == Lang::Java { "javac" } else { "python" })))?;
    Ok(out.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_function_becomes_a_location_with_its_parameter_types() {
        assert_eq!(
            method_location("SHORTEST_PATHS.shortest_paths(String,Map<List<String>,Integer>)"),
            "shortest_paths(String,Map<List<String>,Integer>)"
        );
        assert_eq!(method_location("GCD.gcd(int,int)"), "gcd(int,int)");
        assert_eq!(method_location("Node.getValue()"), "getValue()");
        assert_eq!(method_location("sum_to"), "sum_to");
        assert_eq!(method_location(""), "");
    }
}
