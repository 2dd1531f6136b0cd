//! Failure text in prompts (issue 9, fault 6): a test that recurses forever prints hundreds
//! of identical frames; the prompt must still show the exception and the failing assertion.
//! The projects are written here (QuixBugs layout, real javac/JUnit and pytest runs); the same
//! check on QuixBugs' own GCD is `shared_issue_9_java_gcd_prompt_keeps_the_exception`.

use std::path::Path;
use std::time::Duration;

use repair::bench::quixbugs::{self, Lang, Runner};
use repair::llm::{Script, ScriptedClient};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::workflow::Workflow;

/// QuixBugs' buggy GCD in Java: `gcd(a % b, b)` never reaches `b == 0`.
const JAVA_GCD: &str = "package java_programs;\n\npublic class GCD {\n    public static int gcd(int a, int b) {\n        if (b == 0) {\n            return a;\n        } else {\n            return gcd(a % b, b);\n        }\n    }\n}\n";

const JAVA_GCD_TEST: &str = "package java_testcases.junit;\n\npublic class GCD_TEST {\n    @org.junit.Test(timeout = 3000)\n    public void test_0() throws java.lang.Exception {\n        int result = java_programs.GCD.gcd(35, 21);\n        org.junit.Assert.assertEquals(7, result);\n    }\n\n    @org.junit.Test(timeout = 3000)\n    public void test_1() throws java.lang.Exception {\n        int result = java_programs.GCD.gcd(21, 35);\n        org.junit.Assert.assertEquals(7, result);\n    }\n}\n";

/// Mutual recursion in Python: `even` and `odd` call each other forever (a 2-function cycle,
/// which pytest cannot shorten: the locals change on every call).
const PY_PARITY: &str = "def even(n):\n    return True if n == 0 else odd(n + 1)\n\n\ndef odd(n):\n    return False if n == 0 else even(n + 1)\n";

const PY_PARITY_TEST: &str =
    "from python_programs.even import even\n\n\ndef test_even():\n    assert even(4) is True\n";

/// Writes the recursing projects into `dir` (QuixBugs layout) and returns `dir`.
pub fn write_recursing_projects(dir: &Path) -> &Path {
    let files = [
        ("java_programs/GCD.java", JAVA_GCD),
        ("java_testcases/junit/GCD_TEST.java", JAVA_GCD_TEST),
        ("python_programs/__init__.py", ""),
        ("python_programs/even.py", PY_PARITY),
        ("python_testcases/__init__.py", ""),
        ("python_testcases/test_even.py", PY_PARITY_TEST),
    ];
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The first prompt of a workflow run on `name` in `root` (the root-cause request, which
/// carries the failure text); the scripted model answers once, then the run stops.
pub fn first_prompt(root: &Path, lang: Lang, name: &str, method: &str) -> String {
    let mut runner = Runner::new(root, lang, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    runner.per_test_timeout_s = 10;
    let program = quixbugs::discover(root, lang).unwrap().into_iter().find(|p| p.name == name).unwrap();
    let bug = Bug {
        id: None,
        root: root.to_path_buf(),
        file: program.source.clone(),
        location: Location::Method(method.into()),
        failing_tests: Vec::new(),
    };
    let client = ScriptedClient::new(vec![Script::text("ROOT CAUSE: the recursion never reaches its base case")]);
    let config = RunConfig {
        model: "test-model".into(),
        budget: repair::llm::Budget { max_calls: Some(1), max_tokens: None, max_micro_usd: None },
        ..RunConfig::default()
    };
    Workflow::new(&client, None, runner.validator(&program), config)
        .with_scratch_filter(quixbugs::scratch_filter(lang))
        .run(&bug);
    let requests = client.requests();
    let first = requests.first().expect("the workflow asked the model");
    first.messages.iter().filter_map(|m| m.content.as_deref()).collect::<Vec<_>>().join("\n")
}

/// The longest run of identical consecutive lines in `text`.
pub fn longest_run(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    lines.chunk_by(|a, b| a == b).map(<[&str]>::len).max().unwrap_or(0)
}

/// Fault 6 (Java): the buggy GCD's JUnit run prints 1,024 identical frames per test; the
/// prompt keeps `java.lang.StackOverflowError`, folds the frames and names the tests.
#[test]
fn issue_9_java_infinite_recursion_prompt_keeps_the_exception() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = first_prompt(write_recursing_projects(dir.path()), Lang::Java, "GCD", "gcd");
    assert!(prompt.contains("java.lang.StackOverflowError"), "{prompt}");
    assert!(prompt.contains("more identical frames"), "{prompt}");
    assert!(prompt.contains("test_1(java_testcases.junit.GCD_TEST)"), "{prompt}");
    assert!(longest_run(&prompt) < 3, "repeated frames were not folded:\n{prompt}");
}

/// Fault 6 (Python): mutual recursion prints ~1,000 frames of a 6-line cycle; the prompt
/// keeps the test's `> assert` line (cut off with the head of the ~116 KB output on today's main)
/// and the `E   RecursionError` line, and folds the cycle.
#[test]
fn issue_9_python_infinite_recursion_prompt_keeps_the_assertion() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = first_prompt(write_recursing_projects(dir.path()), Lang::Python, "even", "even");
    assert!(prompt.contains(">       assert even(4) is True"), "{prompt}");
    assert!(prompt.lines().any(|l| l.starts_with("E ") && l.contains("RecursionError: maximum recursion")), "{prompt}");
    assert!(prompt.contains("more repeats of the"), "{prompt}");
}
