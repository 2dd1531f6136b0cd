//! Fault localization: spectrum-based (SBFL) ranking of suspicious lines and methods, the
//! input to repair when the user gives no perfect localization (issue 4, item 7).
//!
//! # Pipeline
//! 1. **Per-test coverage** in a scratch copy of the project ([`coverage_in`]):
//!    - *Java*: the JUnit 4 test classes run once, in one JVM, under the JaCoCo agent
//!      (`output=none`, `includes=` the project's classes). A small helper (`FixdexFl.java`,
//!      embedded in this crate, compiled by `javac` once into `$TMPDIR/fixdex-fl-java-<key>`
//!      next to the agent jar it extracts from `org.jacoco.agent.jar`) runs `JUnitCore`
//!      with a `RunListener` that resets the agent's execution data before each test and,
//!      after it, analyzes the data against the compiled classes with `org.jacoco.core`'s
//!      `Analyzer`: a line counts as covered when JaCoCo marks it partly or fully covered.
//!    - *Python*: `coverage run -m pytest` with a small pytest plugin (`fixdex_fl_plugin.py`,
//!      embedded) that switches coverage.py's dynamic context to each test's node id and
//!      records its outcome; `coverage json --show-contexts` then maps lines to tests. Each
//!      parametrized case is its own test.
//! 2. **Ochiai** ([`ochiai`]) over the spectra, per line, ranked ([`localize`]); methods
//!    (spans from tree-sitter) take the highest score of their lines.
//!
//! # Toolchains
//! Java needs a JDK and JaCoCo with ASM: Debian's `libjacoco-java` (0.8.6, which brings
//! `libasm-java`), looked up in `FIXDEX_JACOCO_DIR` (default `/usr/share/java`, see
//! [`JACOCO_JARS`]). Python needs pytest and coverage.py ≥ 5 (CI pins `coverage==7.17.5`) in
//! the interpreter (`FIXDEX_PYTHON`); both variables are read by [`crate::validate::toolchain`].
//! Missing pieces are reported by [`FlError`] with the command that installs them.
//!
//! # Limits
//! - SBFL ranks only what failing tests execute: a missing statement, or a fault in code no
//!   failing test reaches, is found at best through its neighbours.
//! - JaCoCo records a line only when a probe after it runs: a test that dies in an exception
//!   (a `StackOverflowError` from endless recursion, as in QuixBugs GCD) may cover nothing
//!   on the lines it ran; [`FlError::NoCoverage`] when no test covers anything.
//! - A JUnit test that times out leaves its thread running (JUnit 4 cannot stop it); lines it
//!   runs afterwards are attributed to the tests that follow. pytest-timeout's signal method
//!   stops the test itself.
//! - Lines run outside any test (imports, class initialization before the first test in
//!   Python; static initializers count for the first test that triggers them in Java) are not
//!   attributed, or are attributed to that first test.
//!
//! # Example
//! ```no_run
//! use std::path::PathBuf;
//! use std::time::Duration;
//! use repair::fl::{self, CoverageSpec, PythonTarget, Target};
//!
//! let target = Target::Python(PythonTarget {
//!     python: repair::validate::toolchain::python_from_env().map_err(|(_, e)| e)?,
//!     pytest_args: vec!["-q".into(), "tests".into()],
//!     sources: vec![PathBuf::from("src")],
//! });
//! let spec = CoverageSpec { target, timeout: Duration::from_secs(300) };
//! let report = fl::sbfl(std::path::Path::new("my-project"), &spec)?;
//! println!("most suspicious method: {}", report.methods[0].name);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod java;
mod methods;
mod python;
mod rank;
mod weights;

pub use weights::{LineWeights, Localized, NoMethod, top_method};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use rank::{localize, ochiai};

use crate::Language;
use crate::validate::process::{CommandSpec, Exit, RunOutput};
use crate::validate::scratch::Scratch;
/// Where the JaCoCo jars are looked up: toolchain discovery, re-exported from
/// [`crate::validate::toolchain`] where it lives.
pub use crate::validate::toolchain::{DEFAULT_JACOCO_DIR, JACOCO_DIR_ENV, jacoco_dir_from_env};

/// The jars looked up in the JaCoCo folder: the agent (which carries `jacocoagent.jar`), its
/// runtime API (`RT`, `IAgent`, to compile the helper against), the analysis core, and the
/// three ASM jars the core needs.
pub const JACOCO_JARS: &[&str] = &[
    "org.jacoco.agent.jar",
    "org.jacoco.agent.rt.jar",
    "org.jacoco.core.jar",
    "asm.jar",
    "asm-commons.jar",
    "asm-tree.jar",
];

/// Folder inside the scratch copy where the helpers, the rc file and the raw coverage go.
pub const WORK_DIR: &str = ".fixdex-fl";

/// Errors of fault localization.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlError {
    /// A JaCoCo or ASM jar is missing.
    #[error(
        "{jar} not found: install JaCoCo and ASM (Debian: apt-get install libjacoco-java libasm-java) \
         or set {JACOCO_DIR_ENV} to a folder holding {}",
        JACOCO_JARS.join(", ")
    )]
    MissingJar {
        /// The jar looked for.
        jar: PathBuf,
    },
    /// The Python interpreter lacks coverage.py (≥ 5) or pytest.
    #[error(
        "`{python}` cannot import coverage (>= 5) and pytest: `{python} -m pip install coverage==7.17.5 pytest`, \
         or set FIXDEX_PYTHON to an interpreter that has them ({detail})"
    )]
    MissingPythonModule {
        /// The interpreter.
        python: PathBuf,
        /// What the interpreter printed.
        detail: String,
    },
    /// A command needed for coverage failed (javac/java missing, the build failed, the test
    /// runner crashed or timed out).
    #[error("`{command}` {exit}: {tail}")]
    Command {
        /// The command line.
        command: String,
        /// How it ended, in words.
        exit: String,
        /// The end of its output.
        tail: String,
    },
    /// No test ran (nothing collected, or every test skipped).
    #[error("no test ran: check the test classes / pytest arguments")]
    NoTests,
    /// Every test passed, so SBFL has nothing to localize.
    #[error("none of the {passed} tests failed: SBFL needs at least one failing test")]
    NoFailingTest {
        /// Passing tests.
        passed: usize,
    },
    /// Tests ran but no line of the measured sources was covered.
    #[error("tests ran but no line of the measured classes/sources was covered: {hint}")]
    NoCoverage {
        /// What to check.
        hint: String,
    },
    /// A coverage or outcome file is malformed.
    #[error("{path}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Scratch copy failed.
    #[error(transparent)]
    Scratch(#[from] crate::validate::scratch::ScratchError),
    /// A command could not be started.
    #[error(transparent)]
    Validate(#[from] crate::validate::process::ValidateError),
    /// Other I/O.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// `Result` with [`FlError`].
pub type Result<T> = std::result::Result<T, FlError>;

/// What to run to collect per-test coverage, and for how long.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoverageSpec {
    /// The language-specific commands.
    pub target: Target,
    /// Wall-clock limit of each command (build, test run, report), after which its process
    /// group is killed and [`FlError::Command`] returned.
    pub timeout: Duration,
}

/// The language-specific part of a [`CoverageSpec`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "lang")]
pub enum Target {
    /// JUnit 4 tests under JaCoCo.
    Java(JavaTarget),
    /// pytest tests under coverage.py.
    Python(PythonTarget),
}

impl Target {
    /// The language of the project this target measures; its name is the serde tag `lang`.
    pub fn language(&self) -> Language {
        match self {
            Target::Java(_) => Language::Java,
            Target::Python(_) => Language::Python,
        }
    }
}

/// Java: build, then run JUnit 4 test classes with the JaCoCo agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JavaTarget {
    /// Build command run first in the project copy; it must write the class files of the
    /// sources and tests under `classes_dir`.
    pub build: Option<CommandSpec>,
    /// Class-file folder, relative to the project root.
    pub classes_dir: PathBuf,
    /// Runtime class path besides `classes_dir`: JUnit 4, Hamcrest, libraries.
    pub class_path: Vec<PathBuf>,
    /// Fully qualified JUnit 4 test classes, run in this order.
    pub test_classes: Vec<String>,
    /// JaCoCo `includes` patterns of the classes under analysis (`java_programs.*`); tests
    /// and JUnit must not match. Empty means every class (JaCoCo's default `*`).
    pub includes: Vec<String>,
    /// Source roots relative to the project root (`.`, `src/main/java`), searched for
    /// `package/dirs/Source.java` to name covered files.
    pub source_roots: Vec<PathBuf>,
    /// Folder holding [`JACOCO_JARS`].
    pub jacoco_dir: PathBuf,
}

/// Python: `coverage run -m pytest ARGS` measuring `sources`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PythonTarget {
    /// Interpreter with pytest and coverage.py ≥ 5.
    pub python: PathBuf,
    /// pytest arguments (options and test files or node ids), run from the project root.
    pub pytest_args: Vec<String>,
    /// Folders or importable packages measured (coverage.py `[run] source`), relative to
    /// the project root; tests should not be among them. Empty measures everything run
    /// from the project root, tests included.
    pub sources: Vec<PathBuf>,
}

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Passed.
    Passed,
    /// Failed or raised an error (a timeout included).
    Failed,
    /// Skipped, ignored, assumption failed or xfail: left out of the spectra.
    Skipped,
}

/// The coverage of one test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCoverage {
    /// `pkg.Class#method` (JUnit, as [`crate::validate::test_output`] names failing tests) or the pytest
    /// node id (`tests/test_x.py::test_y[case]`).
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Covered lines (1-based) by file (project-relative, `/`-separated).
    pub covered: BTreeMap<String, BTreeSet<u32>>,
}

/// One test in a [`FlReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestOutcome {
    /// Test name, as in [`TestCoverage::name`].
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Lines it covered, over all files.
    pub covered_lines: usize,
}

/// Suspiciousness of one line. Counts are over the non-skipped tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineScore {
    /// Project-relative file, `/`-separated.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// Ochiai score in [0, 1], higher is more suspicious.
    pub score: f64,
    /// Failing tests that cover the line.
    pub ef: u32,
    /// Passing tests that cover the line.
    pub ep: u32,
    /// Failing tests that do not cover it.
    pub nf: u32,
    /// Passing tests that do not cover it.
    pub np: u32,
    /// 1 + the number of lines with a strictly higher score (best case in its tie group).
    pub rank: usize,
    /// Lines with exactly this score, itself included; the worst-case rank is
    /// `rank + ties - 1`.
    pub ties: usize,
}

/// Suspiciousness of one method: the highest score of the lines whose innermost enclosing
/// method (or function) it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodScore {
    /// Project-relative file, `/`-separated.
    pub file: String,
    /// `Class.method` (Java; constructors are named after their class) or `function` /
    /// `Class.method` (Python).
    pub name: String,
    /// 1-based first line of the declaration.
    pub start_line: u32,
    /// 1-based last line.
    pub end_line: u32,
    /// The best line's Ochiai score.
    pub score: f64,
    /// The best line (the first one in the file among equals).
    pub line: u32,
    /// 1 + the number of methods with a strictly higher score.
    pub rank: usize,
    /// Methods with exactly this score, itself included.
    pub ties: usize,
}

/// The result of SBFL: the tests, and the lines and methods ranked by suspiciousness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlReport {
    /// Formula used: `"ochiai"`.
    pub formula: String,
    /// Every test run, in run order (skipped ones included, but not counted).
    pub tests: Vec<TestOutcome>,
    /// Failing tests.
    pub failed: usize,
    /// Passing tests.
    pub passed: usize,
    /// Every line covered by at least one counted test, ranked: score descending, then file,
    /// then line ascending. Equal scores share a `rank` (see [`localize`]).
    pub lines: Vec<LineScore>,
    /// Methods holding a ranked line, ranked the same way (score, file, start line).
    pub methods: Vec<MethodScore>,
    /// Wall time of coverage collection and ranking, milliseconds (0 from [`localize`]
    /// alone).
    pub wall_ms: u64,
}

/// SBFL on `project`: copy it to a scratch folder, collect per-test coverage there with
/// `spec`, and rank lines and methods with Ochiai. The user's tree is only read.
///
/// # Errors
/// Missing toolchains ([`FlError::MissingJar`], [`FlError::MissingPythonModule`]), a failed
/// build or test run ([`FlError::Command`]), no test / no failing test / no coverage, and
/// I/O errors.
pub fn sbfl(project: &Path, spec: &CoverageSpec) -> Result<FlReport> {
    let scratch = Scratch::copy(project, |_, _| false)?;
    sbfl_in(scratch.root(), spec)
}

/// SBFL in `dir` itself, which must be a disposable copy: the build writes there and the
/// helpers and raw coverage go to `dir/`[`WORK_DIR`]. Errors as [`sbfl`].
pub fn sbfl_in(dir: &Path, spec: &CoverageSpec) -> Result<FlReport> {
    let start = Instant::now();
    let tests = coverage_in(dir, spec)?;
    let mut report = localize(dir, &tests)?;
    report.wall_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

/// Per-test coverage of the tests of `spec`, run in `dir` (a disposable copy; see
/// [`sbfl_in`]), in run order.
///
/// # Errors
/// As [`sbfl`], except that a run without failing tests is fine here.
pub fn coverage_in(dir: &Path, spec: &CoverageSpec) -> Result<Vec<TestCoverage>> {
    let dir = std::path::absolute(dir).map_err(|source| FlError::Io { path: dir.to_path_buf(), source })?;
    let dir = dir.as_path();
    let work = dir.join(WORK_DIR);
    std::fs::create_dir_all(&work).map_err(|source| FlError::Io { path: work.clone(), source })?;
    match &spec.target {
        Target::Java(t) => java::coverage(dir, &work, t, spec.timeout),
        Target::Python(t) => python::coverage(dir, &work, t, spec.timeout),
    }
}

/// Run `command` in `dir` with extra `env`; a failure (exit code not 0 nor in `ok_codes`,
/// signal, timeout) becomes [`FlError::Command`].
fn run(
    command: &CommandSpec,
    dir: &Path,
    env: &[(&str, String)],
    timeout: Duration,
    ok_codes: &[i32],
) -> Result<RunOutput> {
    let env: Vec<_> = env.iter().map(|(k, v)| ((*k).into(), v.into())).collect();
    let out = crate::validate::process::run_command(command, dir, &env, timeout)?;
    match out.exit {
        Exit::Code(c) if c == 0 || ok_codes.contains(&c) => Ok(out),
        exit => Err(command_error(&out, exit)),
    }
}

/// An argument vector command.
fn argv(args: impl IntoIterator<Item = impl Into<String>>) -> CommandSpec {
    CommandSpec::Argv(args.into_iter().map(Into::into).collect())
}

/// `:`-joined class path.
fn class_path<'a>(parts: impl IntoIterator<Item = &'a Path>) -> String {
    parts.into_iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>().join(":")
}

/// [`FlError::Command`] for a finished run.
fn command_error(out: &RunOutput, exit: Exit) -> FlError {
    let exit = match exit {
        Exit::Code(c) => format!("exited with {c}"),
        Exit::Signal(s) => format!("was killed by signal {s}"),
        Exit::TimedOut => format!("timed out after {} ms", out.wall_ms),
    };
    FlError::Command { command: out.command.clone(), exit, tail: tail(&out.failure_text()) }
}

/// `text` condensed to at most 2000 characters ([`crate::validate::condense::condense`]: repeated frames
/// folded, exception lines kept, then the end), trimmed.
fn tail(text: &str) -> String {
    crate::validate::condense::condense(text.trim(), 2000)
}

/// Read a file that a helper was expected to write.
fn read_output(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| FlError::Io { path: path.to_path_buf(), source })
}

/// Write a file into the work folder.
fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|source| FlError::Io { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serde tag of a target is its language's name.
    #[test]
    fn target_tag_is_the_language_name() {
        let python = Target::Python(PythonTarget { python: "python3".into(), pytest_args: vec![], sources: vec![] });
        let java = Target::Java(JavaTarget {
            build: None,
            classes_dir: "classes".into(),
            class_path: vec![],
            test_classes: vec![],
            includes: vec![],
            source_roots: vec![],
            jacoco_dir: DEFAULT_JACOCO_DIR.into(),
        });
        for target in [python, java] {
            assert_eq!(serde_json::to_value(&target).unwrap()["lang"], target.language().as_str());
        }
    }
}
