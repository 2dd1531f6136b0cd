//! Trace collection with rollback (TraceRepair's Phase 1 after the injection): the
//! instrumented copy is built and the failing tests run; when the copy does not compile the
//! probe set is cut and retried, a bounded number of times, and when nothing compiles the
//! workflow goes on with an empty trace (the static fallback), which the report records.
//!
//! The rollback is adjusted to the error (the seed paper's "retries with adjusted
//! parameters"): the probes whose statements sit on a line the compiler names
//! (`File.java:12: error`, Python's `File "f.py", line 12`) are dropped; when the output names
//! none of them, the first half of the probes is kept.
//!
//! How the copy is built and run is the caller's ([`collect`] takes it as a closure: the
//! strategy runs it through the session's validation in a scratch copy); this module owns
//! the retry policy and the record of it.

use super::probe::{self, Site, Trace};
use crate::Language;
use crate::patch::{Change, Splice};
use crate::run::bug::Problem;
use crate::run::session::{Session, Stop};
use crate::validate::Verdict;

/// Copies built at most: all sites, then at most two rollbacks.
pub const MAX_ATTEMPTS: usize = 3;

/// What one run of an instrumented copy gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunResult {
    /// The copy did not compile (Java) or import (Python); the compiler's output.
    CompileError(String),
    /// The tests ran.
    Ran {
        /// Their stdout and stderr, as captured (pytest shows a failing test's stderr in its
        /// stdout report, JUnit's goes to stderr: both are read); a tail is enough.
        output: String,
        /// Bytes the run wrote in all (before any tail was cut).
        output_bytes: u64,
    },
}

/// One rollback after a copy that did not compile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rollback {
    /// Probe sites dropped.
    pub dropped: usize,
    /// `compiler`: the probes on the lines the compiler named; `halving`: the second half
    /// (the output named no probe line).
    pub by: &'static str,
    /// The lines of the instrumented copy the compiler named (empty for `halving`).
    pub lines: Vec<usize>,
    /// The start of the compiler's output (at most [`MESSAGE_CHARS`] characters), so that a
    /// failure the probes did not cause can be seen.
    pub message: String,
}

/// Characters of a compiler message a [`Rollback`] keeps.
pub const MESSAGE_CHARS: usize = 600;

/// The record of trace collection, for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Collected {
    /// The trace (empty in the static fallback).
    pub trace: Trace,
    /// Probe sites requested.
    pub requested: usize,
    /// Probe sites in the copy that ran (0 in the static fallback).
    pub injected: usize,
    /// Probe sites dropped by rollbacks after compile errors.
    pub rolled_back: usize,
    /// Copies built (1 when the first compiled).
    pub attempts: usize,
    /// Each rollback, in order.
    pub rollbacks: Vec<Rollback>,
    /// Bytes the test run wrote in all (stdout and stderr, probes included; 0 when nothing
    /// ran): with the guard hit, more than [`probe::MAX_TRACE_BYTES`].
    pub output_bytes: u64,
    /// True when no instrumented copy compiled: the workflow continues without a trace.
    pub static_fallback: bool,
    /// The failing tests of the instrumented run, when they differ from the buggy
    /// version's (both lists known): the probes may have changed what the program does, and
    /// the trace may mislead. Empty when they agree or cannot be compared.
    pub tests_differ: Vec<String>,
}

/// Instruments `text` (the file `file_name`, as compilers name it) with `sites`, runs it
/// with `run`, and on a compile error rolls back the probes the compiler named (or half of
/// them) and retries, at most [`MAX_ATTEMPTS`] copies in all.
///
/// # Errors
/// What `run` returns as an error (the machinery failed, not the copy).
pub fn collect<E>(
    text: &str,
    file_name: &str,
    lang: Language,
    sites: &[Site],
    mut run: impl FnMut(&str) -> Result<RunResult, E>,
) -> Result<Collected, E> {
    let mut keep: Vec<Site> = sites.to_vec();
    let (mut attempts, mut rollbacks) = (0, Vec::new());
    while attempts < MAX_ATTEMPTS && !keep.is_empty() {
        attempts += 1;
        let Ok(copy) = probe::instrument(text, lang, &keep) else { break };
        match run(&copy.source)? {
            RunResult::Ran { output, output_bytes } => {
                return Ok(Collected {
                    trace: Trace::from_stderr(&output),
                    requested: sites.len(),
                    injected: keep.len(),
                    rolled_back: sites.len() - keep.len(),
                    attempts,
                    rollbacks,
                    output_bytes,
                    static_fallback: false,
                    tests_differ: Vec::new(),
                });
            }
            RunResult::CompileError(output) => {
                let lines = named_lines(&output, file_name);
                let message: String = output.trim().chars().take(MESSAGE_CHARS).collect();
                let hit: Vec<bool> =
                    copy.spans.iter().map(|(a, b)| lines.iter().any(|l| (a..=b).contains(&l))).collect();
                let before = keep.len();
                if hit.iter().any(|h| *h) {
                    let mut i = 0;
                    keep.retain(|_| {
                        i += 1;
                        !hit[i - 1]
                    });
                    rollbacks.push(Rollback { dropped: before - keep.len(), by: "compiler", lines, message });
                } else {
                    keep.truncate(before / 2);
                    rollbacks.push(Rollback {
                        dropped: before - keep.len(),
                        by: "halving",
                        lines: Vec::new(),
                        message,
                    });
                }
            }
        }
    }
    Ok(Collected::fallback(sites.len(), attempts, rollbacks))
}

/// The line numbers a compiler's `output` gives for `file_name`: `NAME:12:` (javac) and
/// `NAME", line 12` (Python), in order, without duplicates.
fn named_lines(output: &str, file_name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    if file_name.is_empty() {
        return out;
    }
    for (at, _) in output.match_indices(file_name) {
        let rest = &output[at + file_name.len()..];
        let digits = rest.strip_prefix(':').or_else(|| rest.strip_prefix("\", line "));
        let n: String = digits.unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = n.parse::<usize>()
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    out
}

impl Collected {
    /// The static fallback after `attempts` copies: an empty trace, every one of the
    /// `requested` sites rolled back.
    #[must_use]
    pub fn fallback(requested: usize, attempts: usize, rollbacks: Vec<Rollback>) -> Collected {
        Collected {
            trace: Trace::from_stderr(""),
            requested,
            injected: 0,
            rolled_back: requested,
            attempts,
            rollbacks,
            output_bytes: 0,
            static_fallback: true,
            tests_differ: Vec::new(),
        }
    }
}

/// [`collect`] for `problem` through `session` with `sites` (of the buggy file's text,
/// [`Problem::source`]; [`probe::auto_sites`] or [`probe::named_sites`]): each copy is the
/// buggy file replaced by its instrumented text (one [`Splice`] of the whole text), built
/// and tested in a scratch copy exactly as a candidate patch is ([`Session`]'s validation,
/// the project's own commands); a compile-error verdict is a
/// [`RunResult::CompileError`] with the build's (or test run's) output, any other verdict
/// gives the test run's captured stdout and stderr. No sites or no language: the static
/// fallback (nothing run).
///
/// # Errors
/// [`Stop`] when the scratch copy or the commands cannot be run.
pub fn collect_in_session(session: &Session<'_>, problem: &Problem, sites: &[Site]) -> Result<Collected, Stop> {
    let text = problem.source.as_str();
    let bug = &problem.bug;
    let Some(lang) = problem.language.filter(|_| !sites.is_empty()) else {
        return Ok(Collected::fallback(sites.len(), 0, Vec::new()));
    };
    let file_name = bug.file.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let mut failing: Option<Vec<String>> = None;
    let mut collected = collect(text, &file_name, lang, sites, |source| {
        let copy = Change::Splices(vec![Splice::whole(text.len(), source.to_owned())]);
        let output = |r: &Option<crate::validate::RunOutput>| r.as_ref().map(|t| t.combined()).unwrap_or_default();
        match session.validate_change(problem, &copy).map_err(Stop::from)? {
            Err(refused) => Ok::<_, Stop>(RunResult::CompileError(refused.0)),
            Ok((_, v)) if v.verdict == Verdict::CompileError => {
                Ok(RunResult::CompileError(format!("{}{}", output(&v.build), output(&v.test))))
            }
            Ok((_, v)) => {
                failing = v.failing_tests_known().then(|| v.failing_tests.clone());
                Ok(RunResult::Ran {
                    output: output(&v.test),
                    output_bytes: v.test.as_ref().map_or(0, |t| t.output_bytes),
                })
            }
        }
    })?;
    let known = session.report.preflight.as_ref().is_some_and(|p| p.failing_tests_known);
    if let Some(mut now) = failing.filter(|_| known) {
        let p = &problem.plausibility;
        let mut was: Vec<String> = p.bug_tests.iter().chain(&p.preexisting_failures).cloned().collect();
        now.sort();
        was.sort();
        if now != was {
            collected.tests_differ = now;
        }
    }
    Ok(collected)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "def mid(a, b):\n    s = a + b\n    m = s // 2\n    if m < 0:\n        m = 0\n    return m\n\nprint(mid(3, 8))\n";

    /// A real run: python3 on the copy; a "compile error" when the copy holds more than
    /// `max_probes` probes (a stand-in for a probe javac refuses).
    fn python_run(max_probes: usize) -> impl FnMut(&str) -> Result<RunResult, std::io::Error> {
        move |source: &str| {
            if source.matches("_fixdex_emit('").count() > max_probes {
                return Ok(RunResult::CompileError(String::new()));
            }
            let dir = tempfile::tempdir()?;
            std::fs::write(dir.path().join("m.py"), source)?;
            let out = std::process::Command::new("python3").arg("m.py").current_dir(dir.path()).output()?;
            let output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            Ok(RunResult::Ran { output_bytes: output.len() as u64, output })
        }
    }

    #[test]
    fn a_copy_that_compiles_gives_the_whole_trace() {
        let sites = probe::auto_sites(PY, Language::Python, 2).unwrap().sites;
        assert_eq!(sites.len(), 4);
        let c = collect(PY, "m.py", Language::Python, &sites, python_run(usize::MAX)).unwrap();
        assert_eq!((c.requested, c.injected, c.rolled_back, c.attempts, c.static_fallback), (4, 4, 0, 1, false));
        assert_eq!(c.trace.text, "L2 s=11\nL3 m=5\n");
    }

    #[test]
    fn compile_errors_roll_back_half_the_probes_then_fall_back() {
        let sites = probe::auto_sites(PY, Language::Python, 2).unwrap().sites;
        // Four probes refused, two accepted: the second copy runs.
        let c = collect(PY, "m.py", Language::Python, &sites, python_run(2)).unwrap();
        assert_eq!((c.injected, c.rolled_back, c.attempts, c.static_fallback), (2, 2, 2, false));
        assert_eq!(c.trace.text, "L2 s=11\nL3 m=5\n");
        // Nothing compiles: three copies, then the static fallback with an empty trace.
        let c = collect(PY, "m.py", Language::Python, &sites, python_run(0)).unwrap();
        assert_eq!((c.injected, c.rolled_back, c.attempts, c.static_fallback), (0, 4, 3, true));
        assert!(c.trace.is_empty());
        // The machinery's own errors pass through.
        let err = collect(PY, "m.py", Language::Python, &sites, |_| Err::<RunResult, _>("no sandbox")).unwrap_err();
        assert_eq!(err, "no sandbox");
    }

    /// A real javac names the line of a probe that reads a variable before its declaration:
    /// that probe alone is rolled back and the second copy runs.
    #[test]
    fn the_probe_javac_names_is_rolled_back() {
        let java = "public class M {\n    static int f(int n) {\n        int total = 0;\n        for (int i = 0; i < n; i++) {\n            total += i;\n        }\n        return total;\n    }\n    public static void main(String[] a) { System.out.println(f(4)); }\n}\n";
        let req = |line, v: &str| probe::ProbeRequest { line, vars: vec![v.to_string()] };
        let sites = probe::named_sites(java, Language::Java, 3, &[req(3, "total"), req(5, "i")]).unwrap().sites;
        assert_eq!(sites.len(), 4, "{sites:?}");
        let dir = tempfile::tempdir().unwrap();
        let c = collect(java, "M.java", Language::Java, &sites, |source| {
            std::fs::write(dir.path().join("M.java"), source)?;
            let javac = std::process::Command::new("javac").arg("M.java").current_dir(dir.path()).output()?;
            if !javac.status.success() {
                return Ok::<_, std::io::Error>(RunResult::CompileError(String::from_utf8_lossy(&javac.stderr).into()));
            }
            let run = std::process::Command::new("java").args(["-cp", ".", "M"]).current_dir(dir.path()).output()?;
            let output = String::from_utf8_lossy(&run.stderr).into_owned();
            Ok(RunResult::Ran { output_bytes: output.len() as u64, output })
        })
        .unwrap();
        assert_eq!((c.attempts, c.injected, c.rolled_back, c.static_fallback), (2, 3, 1, false), "{c:?}");
        assert_eq!((c.rollbacks[0].by, c.rollbacks[0].dropped), ("compiler", 1));
        assert!(c.trace.text.starts_with("L3 total=0\nL5 before: i=0\nL5 i=0\n"), "{}", c.trace.text);
        assert_eq!(named_lines("M.java:3: error: x\nM.java:3: y\n  File \"M.java\", line 9\n", "M.java"), [3, 9]);
    }
}
