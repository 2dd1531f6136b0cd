//! Python per-test coverage: `coverage run -m pytest` with the embedded plugin
//! `fixdex_fl_plugin.py`, which names each test's dynamic context after its node id and
//! records outcomes; `coverage json --show-contexts` maps lines to contexts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use super::{FlError, Outcome, PythonTarget, Result, TestCoverage};

/// The plugin's source, written to the work folder and imported with `-p`.
const PLUGIN_SOURCE: &str = include_str!("fixdex_fl_plugin.py");
/// The plugin's module name.
const PLUGIN_MODULE: &str = "fixdex_fl_plugin";
/// The coverage.py rc file written to the work folder.
const RC_FILE: &str = "coveragerc";
/// coverage.py's data file.
const DATA_FILE: &str = "coverage.data";
/// The JSON report.
const JSON_FILE: &str = "coverage.json";
/// The plugin's outcomes file.
const OUTCOMES_FILE: &str = "outcomes.json";
/// pytest's exit code when tests ran and some failed.
const PYTEST_TESTS_FAILED: i32 = 1;
/// pytest's exit code when no test was collected.
const PYTEST_NO_TESTS: i32 = 5;

/// The part of `coverage json --show-contexts` read here.
#[derive(Debug, Deserialize)]
struct Report {
    files: BTreeMap<String, FileReport>,
}

/// One measured file: contexts (test node ids; `""` for import time) by line.
#[derive(Debug, Deserialize)]
struct FileReport {
    #[serde(default)]
    contexts: BTreeMap<String, Vec<String>>,
}

/// Check the interpreter, run the tests under coverage and read the per-test coverage.
pub(super) fn coverage(dir: &Path, work: &Path, t: &PythonTarget, timeout: Duration) -> Result<Vec<TestCoverage>> {
    check_python(&t.python, dir, timeout)?;
    let rc = work.join(RC_FILE);
    super::write_file(&rc, &rc_text(work, &t.sources))?;
    super::write_file(&work.join(format!("{PLUGIN_MODULE}.py")), PLUGIN_SOURCE)?;
    let outcomes = work.join(OUTCOMES_FILE);
    let env = [
        ("PYTHONPATH", python_path(work)),
        ("FIXDEX_FL_OUTCOMES", outcomes.to_string_lossy().into_owned()),
        ("PYTHONDONTWRITEBYTECODE", "1".into()),
    ];
    let py = t.python.to_string_lossy().into_owned();
    let rc_arg = format!("--rcfile={}", rc.display());
    let mut test = vec![py.clone(), "-m".into(), "coverage".into(), "run".into(), rc_arg.clone()];
    test.extend(["-m", "pytest", "-p", PLUGIN_MODULE].map(String::from));
    test.extend(t.pytest_args.iter().cloned());
    let out = super::run(&super::argv(test), dir, &env, timeout, &[PYTEST_TESTS_FAILED, PYTEST_NO_TESTS])?;
    if out.exit == crate::validate::process::Exit::Code(PYTEST_NO_TESTS) {
        return Err(FlError::NoTests);
    }
    let json = work.join(JSON_FILE);
    let report = [&py, "-m", "coverage", "json", &rc_arg, "--show-contexts", "-o", &json.to_string_lossy()];
    // coverage.py exits 1 ("No data to report.") when nothing was measured.
    super::run(&super::argv(report), dir, &env, timeout, &[1])?;
    let outcomes = parse_outcomes(&super::read_output(&outcomes)?, &outcomes)?;
    let contexts = if json.is_file() { parse_report(&super::read_output(&json)?, &json)? } else { BTreeMap::new() };
    Ok(join(outcomes, contexts))
}

/// Fail with [`FlError::MissingPythonModule`] unless `python` imports pytest and
/// coverage.py ≥ 5 (for `Coverage.current` and `switch_context`).
fn check_python(python: &Path, dir: &Path, timeout: Duration) -> Result<()> {
    let probe = "import pytest, coverage, sys; sys.exit(0 if coverage.version_info >= (5,) else \
                 'coverage ' + coverage.__version__ + ' is older than 5')";
    let command = super::argv([python.to_string_lossy().as_ref(), "-c", probe]);
    match crate::validate::process::run_command(&command, dir, &[], timeout) {
        Ok(out) if out.exit.success() => Ok(()),
        Ok(out) => Err(FlError::MissingPythonModule {
            python: python.to_path_buf(),
            detail: out.combined().lines().last().unwrap_or("").trim().to_string(),
        }),
        Err(e) => Err(FlError::MissingPythonModule { python: python.to_path_buf(), detail: e.to_string() }),
    }
}

/// The rc file: relative file names, the measured sources, the data file in `work`, and
/// `work` itself (the pytest plugin fixdex writes there) never measured.
fn rc_text(work: &Path, sources: &[std::path::PathBuf]) -> String {
    let mut rc = String::from("[run]\nrelative_files = True\nbranch = False\n");
    rc.push_str(&format!("data_file = {}\n", work.join(DATA_FILE).display()));
    rc.push_str(&format!("omit =\n    {}/*\n    */{}/*\n", work.display(), super::WORK_DIR));
    if !sources.is_empty() {
        rc.push_str("source =\n");
        for s in sources {
            rc.push_str(&format!("    {}\n", s.display()));
        }
    }
    rc
}

/// `work` ahead of any inherited `PYTHONPATH`, so `-p fixdex_fl_plugin` imports.
fn python_path(work: &Path) -> String {
    match std::env::var("PYTHONPATH") {
        Ok(old) if !old.is_empty() => format!("{}:{old}", work.display()),
        _ => work.to_string_lossy().into_owned(),
    }
}

/// The plugin's `[[node id, outcome], ...]` list, in run order.
fn parse_outcomes(text: &str, path: &Path) -> Result<Vec<(String, Outcome)>> {
    serde_json::from_str(text).map_err(|e| FlError::Parse { path: path.to_path_buf(), reason: e.to_string() })
}

/// Covered lines by context, then by file.
type Contexts = BTreeMap<String, BTreeMap<String, BTreeSet<u32>>>;

/// Invert the report's `file → line → contexts` into `context → file → lines`.
fn parse_report(text: &str, path: &Path) -> Result<Contexts> {
    let report: Report =
        serde_json::from_str(text).map_err(|e| FlError::Parse { path: path.to_path_buf(), reason: e.to_string() })?;
    let mut contexts = Contexts::new();
    for (file, f) in report.files {
        for (line, names) in f.contexts {
            let line: u32 = line
                .parse()
                .map_err(|_| FlError::Parse { path: path.to_path_buf(), reason: format!("{file}: line `{line}`") })?;
            for name in names.into_iter().filter(|n| !n.is_empty()) {
                contexts.entry(name).or_default().entry(file.clone()).or_default().insert(line);
            }
        }
    }
    Ok(contexts)
}

/// One [`TestCoverage`] per test outcome, with the lines of its context.
fn join(outcomes: Vec<(String, Outcome)>, mut contexts: Contexts) -> Vec<TestCoverage> {
    outcomes
        .into_iter()
        .map(|(name, outcome)| {
            let covered = contexts.remove(&name).unwrap_or_default();
            TestCoverage { name, outcome, covered }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_contexts_are_inverted_per_test() {
        let report = r#"{"files": {"p/a.py": {"executed_lines": [1, 2, 3],
            "contexts": {"1": [""], "2": ["t.py::a", "t.py::b"], "3": ["t.py::b"]}}}}"#;
        let contexts = parse_report(report, Path::new("c.json")).unwrap();
        let outcomes =
            parse_outcomes(r#"[["t.py::a", "passed"], ["t.py::b", "failed"], ["t.py::c", "skipped"]]"#, Path::new("o"))
                .unwrap();
        let tests = join(outcomes, contexts);
        assert_eq!(tests.len(), 3);
        assert_eq!(tests[0].covered["p/a.py"], BTreeSet::from([2]));
        assert_eq!((tests[1].outcome, &tests[1].covered["p/a.py"]), (Outcome::Failed, &BTreeSet::from([2, 3])));
        assert!(tests[2].covered.is_empty());
        assert!(parse_outcomes(r#"[["x", "weird"]]"#, Path::new("o")).is_err());
    }

    #[test]
    fn rc_names_sources_and_data_file() {
        let rc = rc_text(Path::new("/w"), &["src".into(), "lib/pkg".into()]);
        assert_eq!(
            rc,
            "[run]\nrelative_files = True\nbranch = False\ndata_file = /w/coverage.data\nomit =\n    /w/*\n    */.fixdex-fl/*\n\
             source =\n    src\n    lib/pkg\n"
        );
    }
}
