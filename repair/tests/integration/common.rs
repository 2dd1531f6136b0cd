//! Helpers shared by the workflow, harness and replay tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use repair::bench::quixbugs::{Lang, Runner};
use repair::llm::{ChatResponse, Choice, Message, Script, Usage};

/// The QuixBugs-shaped fixture written by this project.
pub fn minibugs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minibugs")
}

/// `$FIXDEX_SHARED/<rel>`, asserted to exist; a relative `FIXDEX_SHARED` is taken from the
/// workspace root (where `.ci/run` runs) when it is not found from the package directory
/// cargo runs tests in. Panics (the `shared_*` tests fail, never skip) when it is unset.
pub fn shared_path(rel: &str) -> PathBuf {
    let dir = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    let from_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&dir);
    let dir = if dir.is_dir() { dir } else { from_root };
    let path = dir.join(rel);
    assert!(path.exists(), "{} is missing: FIXDEX_SHARED must name the shared folder holding {rel}", path.display());
    path
}

/// Programs per language in the shared suites' QuixBugs samples
/// (`repair::bench::quixbugs::sample`): `FIXDEX_SAMPLE` when set (a number, or `all` for the
/// whole benchmark, as `scripts/measure.sh` runs them), else 4.
pub fn sample_size() -> usize {
    match std::env::var("FIXDEX_SAMPLE").as_deref() {
        Err(_) => 4,
        Ok("all") => usize::MAX,
        Ok(n) => n.parse().expect("FIXDEX_SAMPLE: a number of programs per language, or `all`"),
    }
}

/// The seed of the shared suites' samples (QuixBugs programs, Defects4J bugs):
/// `FIXDEX_SAMPLE_SEED` when set (to try others), else 28. Prints `what` (the sample, as the
/// test draws it) with the size and seed.
pub fn sample_seed(what: &str) -> u64 {
    let seed = std::env::var("FIXDEX_SAMPLE_SEED").map_or(28, |s| s.parse().expect("FIXDEX_SAMPLE_SEED: an integer"));
    let size = match sample_size() {
        usize::MAX => "all".to_string(),
        n => n.to_string(),
    };
    eprintln!("{what}: FIXDEX_SAMPLE {size}, seed {seed} (FIXDEX_SAMPLE, FIXDEX_SAMPLE_SEED)");
    seed
}

/// A runner over minibugs with a 60 s command limit and 3 s per pytest test.
pub fn runner(lang: Lang) -> Runner {
    let mut r = Runner::new(&minibugs(), lang, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    r.per_test_timeout_s = 3;
    r
}

/// `answers` as the choices of one response (the `n` candidates of a patch request), with
/// the given (prompt, completion) token usage.
pub fn choices(answers: &[&str], usage: (u64, u64)) -> Script {
    Script::Respond(ChatResponse {
        id: None,
        model: "scripted".into(),
        choices: answers
            .iter()
            .enumerate()
            .map(|(i, a)| Choice {
                index: u32::try_from(i).expect("few choices"),
                message: Message::assistant(*a),
                finish_reason: Some("stop".into()),
            })
            .collect(),
        usage: Some(Usage { prompt_tokens: usage.0, completion_tokens: usage.1 }),
        transport: Default::default(),
    })
}

/// Minibugs' Python `sum_to` as a bug located at its method, and its validator.
pub fn sum_to() -> (repair::run::bug::Bug, repair::validate::Validator) {
    use repair::bench::quixbugs;
    let p = quixbugs::discover(&minibugs(), Lang::Python).unwrap().into_iter().find(|p| p.name == "sum_to").unwrap();
    let bug = repair::run::bug::Bug {
        id: None,
        root: minibugs(),
        file: p.source.clone(),
        location: repair::run::bug::Location::Method("sum_to".into()),
        failing_tests: Vec::new(),
    };
    (bug, runner(Lang::Python).validator(&p))
}
