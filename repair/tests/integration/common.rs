//! Helpers shared by the workflow, harness and replay tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use repair::llm::{ChatResponse, Choice, Message, Script, Usage};
use repair::quixbugs::{Lang, Runner};

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
