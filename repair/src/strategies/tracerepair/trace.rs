//! Trace collection with rollback (TraceRepair's Phase 1 after the injection): the
//! instrumented copy is built and the failing tests run; when the copy does not compile the
//! probe set is cut and retried, a bounded number of times, and when nothing compiles the
//! workflow goes on with an empty trace (the static fallback), which the report records.
//!
//! How the copy is built and run is the caller's ([`collect`] takes it as a closure: the
//! strategy runs it through the session's validation in a scratch copy); this module owns
//! the retry policy and the record of it.

use super::probe::{self, Site, Trace};
use crate::bug::Problem;
use crate::language::Language;
use crate::patch::{Patch, unified_diff};
use crate::session::{Session, Stop};
use crate::validate::Verdict;

/// Attempts at most: all sites, then the first half of them, then the first quarter.
pub const MAX_ATTEMPTS: usize = 3;

/// What one run of an instrumented copy gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunResult {
    /// The copy did not compile (Java) or import (Python).
    CompileError,
    /// The tests ran; their stdout and stderr, as captured (pytest shows a failing test's
    /// stderr in its stdout report, JUnit's goes to stderr: both are read).
    Ran(String),
}

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
    /// True when no instrumented copy compiled: the workflow continues without a trace.
    pub static_fallback: bool,
}

/// Instruments `text` with `sites`, runs it with `run`, and on a compile error retries with
/// the first half of the sites (at most [`MAX_ATTEMPTS`] copies in all).
///
/// # Errors
/// What `run` returns as an error (the machinery failed, not the copy).
pub fn collect<E>(
    text: &str,
    lang: Language,
    sites: &[Site],
    mut run: impl FnMut(&str) -> Result<RunResult, E>,
) -> Result<Collected, E> {
    let mut keep = sites.len();
    let mut attempts = 0;
    while attempts < MAX_ATTEMPTS && keep > 0 {
        attempts += 1;
        let Ok(copy) = probe::instrument(text, lang, &sites[..keep]) else { break };
        match run(&copy.source)? {
            RunResult::Ran(output) => {
                return Ok(Collected {
                    trace: Trace::from_stderr(&output),
                    requested: sites.len(),
                    injected: keep,
                    rolled_back: sites.len() - keep,
                    attempts,
                    static_fallback: false,
                });
            }
            RunResult::CompileError => keep /= 2,
        }
    }
    Ok(Collected::fallback(sites.len(), attempts))
}

impl Collected {
    /// The static fallback after `attempts` copies: an empty trace, every one of the
    /// `requested` sites rolled back.
    fn fallback(requested: usize, attempts: usize) -> Collected {
        Collected {
            trace: Trace::from_stderr(""),
            requested,
            injected: 0,
            rolled_back: requested,
            attempts,
            static_fallback: true,
        }
    }
}

/// [`collect`] for `problem` through `session`, with the `--probe auto` sites of the method
/// holding the buggy code's first line ([`probe::auto_sites`]): each copy is the buggy
/// file replaced by its instrumented text, built and tested in a scratch copy exactly as a
/// candidate patch is ([`Session`]'s validation, the project's own commands); a
/// compile-error verdict is a [`RunResult::CompileError`], any other verdict gives the test
/// run's captured stdout and stderr. A file that cannot be read or parsed, or a method
/// without probe sites, is the static fallback (nothing run).
///
/// # Errors
/// [`Stop`] when the scratch copy or the commands cannot be run.
pub fn collect_in_session(session: &Session<'_>, problem: &Problem) -> Result<Collected, Stop> {
    let bug = &problem.bug;
    let (Some(lang), Ok(text)) = (problem.language, std::fs::read_to_string(bug.root.join(&bug.file))) else {
        return Ok(Collected::fallback(0, 0));
    };
    let Ok(sites) = probe::auto_sites(&text, lang, problem.lines.0) else { return Ok(Collected::fallback(0, 0)) };
    if sites.sites.is_empty() {
        return Ok(Collected::fallback(0, 0));
    }
    collect(&text, lang, &sites.sites, |source| {
        let Ok(patch) = Patch::parse(&unified_diff(&bug.file, &text, source), None) else {
            return Ok(RunResult::CompileError);
        };
        match session.validate(bug, Some(&patch)).map_err(Stop::from)? {
            Err(_refused) => Ok(RunResult::CompileError),
            Ok((_, v)) if v.verdict == Verdict::CompileError => Ok(RunResult::CompileError),
            Ok((_, v)) => Ok(RunResult::Ran(v.test.map(|t| t.combined()).unwrap_or_default())),
        }
    })
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
                return Ok(RunResult::CompileError);
            }
            let dir = tempfile::tempdir()?;
            std::fs::write(dir.path().join("m.py"), source)?;
            let out = std::process::Command::new("python3").arg("m.py").current_dir(dir.path()).output()?;
            Ok(RunResult::Ran(format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )))
        }
    }

    #[test]
    fn a_copy_that_compiles_gives_the_whole_trace() {
        let sites = probe::auto_sites(PY, Language::Python, 2).unwrap().sites;
        assert_eq!(sites.len(), 4);
        let c = collect(PY, Language::Python, &sites, python_run(usize::MAX)).unwrap();
        assert_eq!((c.requested, c.injected, c.rolled_back, c.attempts, c.static_fallback), (4, 4, 0, 1, false));
        assert_eq!(c.trace.text, "L2 s=11\nL3 m=5\n");
    }

    #[test]
    fn compile_errors_roll_back_half_the_probes_then_fall_back() {
        let sites = probe::auto_sites(PY, Language::Python, 2).unwrap().sites;
        // Four probes refused, two accepted: the second copy runs.
        let c = collect(PY, Language::Python, &sites, python_run(2)).unwrap();
        assert_eq!((c.injected, c.rolled_back, c.attempts, c.static_fallback), (2, 2, 2, false));
        assert_eq!(c.trace.text, "L2 s=11\nL3 m=5\n");
        // Nothing compiles: three copies, then the static fallback with an empty trace.
        let c = collect(PY, Language::Python, &sites, python_run(0)).unwrap();
        assert_eq!((c.injected, c.rolled_back, c.attempts, c.static_fallback), (0, 4, 3, true));
        assert!(c.trace.is_empty());
        // The machinery's own errors pass through.
        let err = collect(PY, Language::Python, &sites, |_| Err::<RunResult, _>("no sandbox")).unwrap_err();
        assert_eq!(err, "no sandbox");
    }
}
