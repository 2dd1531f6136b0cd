//! Issue 32, item 3, "free before paid": `--strategy patterns,reinfix` runs the model-free
//! templates first and ReinFix only on a bug they leave without a plausible patch, built by
//! the registry from the command line the binary parses, through the workflow on real
//! programs and tests; the report says which stage fixed the bug and what each cost.

use std::time::Duration;

use crate::common::{choices, sum_to};

use repair::bench::quixbugs::{self, Lang};
use repair::llm::{ChatClient, Price, PriceTable, ReplayClient, Script, ScriptedClient};
use repair::run::bug::{Bug, Location};
use repair::run::config::RunConfig;
use repair::run::report::{Outcome, RepairReport};
use repair::run::workflow::Workflow;
use repair::strategies::{Registry, Strategy};
use repair::validate::{CommandSpec, Validator};
use serde_json::json;

/// The strategy the registry builds from `args`, as `fixdex repair` parses them.
fn build(args: &[&str]) -> Result<Box<dyn Strategy>, String> {
    let registry = Registry::builtin();
    let cmd = registry.augment(clap::Command::new("fixdex-repair").no_binary_name(true));
    let matches = cmd.try_get_matches_from(args).map_err(|e| e.to_string())?;
    registry.build(&matches).map_err(|e| e.to_string())
}

/// `strategy` on `bug` with `client`, model `scripted` priced at $1 / $10 per million
/// tokens; QuixBugs' scratch filter for a minibugs program (`quixbugs`).
fn repair(
    strategy: Box<dyn Strategy>,
    client: &dyn ChatClient,
    bug: &Bug,
    validator: Validator,
    quixbugs: bool,
) -> RepairReport {
    let price = Price { input_usd_per_mtok: 1.0, output_usd_per_mtok: 10.0 };
    let prices = PriceTable([("scripted".to_string(), price)].into());
    let config = RunConfig { model: "scripted".into(), ..RunConfig::default() };
    let workflow = Workflow::new(client, None, validator, config).with_strategy(strategy).with_prices(prices);
    let workflow =
        if quixbugs { workflow.with_scratch_filter(quixbugs::scratch_filter(Lang::Python)) } else { workflow };
    workflow.run(bug)
}

/// (a) On minibugs' Python `sum_to`, which a template fixes (`range(1, n)` → `range(1, n +
/// 1)`), the chain ends after `patterns`: ReinFix never runs, and the replayed client, which
/// holds no recording (any request would fail the run), is never asked.
#[test]
fn issue_32_patterns_then_reinfix_asks_no_model_when_patterns_fixes_the_bug() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let replay = ReplayClient::open(&empty).unwrap();
    let strategy = build(&["--strategy", "patterns,reinfix"]).unwrap();
    assert_eq!((strategy.name(), strategy.needs_model()), ("patterns,reinfix", true));
    let (bug, validator) = sum_to();
    let report = repair(strategy, &replay, &bug, validator, true);
    assert_eq!((report.outcome, report.strategy.as_str()), (Outcome::Plausible, "patterns,reinfix"), "{report:#?}");
    assert_eq!(report.llm.calls, 0);
    replay.finish().unwrap();
    let d = report.details.json();
    assert_eq!(d["fixed_by"], "patterns", "{d:#}");
    let stages = d["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 1, "ReinFix did not run: {d:#}");
    assert_eq!((stages[0]["strategy"].as_str(), stages[0]["outcome"].as_str()), (Some("patterns"), Some("plausible")));
    assert_eq!((stages[0]["calls"].as_u64(), stages[0]["usd"].as_f64()), (Some(0), Some(0.0)));
    assert!(stages[0]["validations"].as_u64().is_some_and(|v| v >= 1), "{d:#}");
    assert_eq!(stages[0]["details"]["order"], "prior", "patterns' own section is kept: {d:#}");
    assert!(report.patch.as_deref().is_some_and(|p| p.contains("+    for i in range(1, n + 1):")), "{report:#?}");
}

/// A Python project whose bug no template fixes: `greet` must add the name.
fn greet() -> (tempfile::TempDir, Bug, Validator) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("greet.py"), "def greet(name):\n    return \"Hello\"\n").unwrap();
    let bug = Bug {
        id: None,
        root: dir.path().to_path_buf(),
        file: "greet.py".into(),
        location: Location::Method("greet".into()),
        failing_tests: Vec::new(),
    };
    let test = "python3 -c 'from greet import greet; assert greet(\"x\") == \"Hello x\", greet(\"x\")'";
    let validator = Validator {
        build: None,
        test: CommandSpec::Shell(test.into()),
        timeout: Duration::from_secs(30),
        env: Vec::new(),
        reference: None,
        fail_fast: None,
    };
    (dir, bug, validator)
}

/// (b) On a bug the templates cannot fix, `patterns` searches to its end, then ReinFix (built
/// from its own options, `--attempts 1 --suggestions 1 --patches 1`) runs on the same
/// session and fixes it; each stage's calls, tokens and USD are recorded apart, the stage's
/// own sections are kept, and the run's totals are theirs.
#[test]
fn issue_32_reinfix_runs_after_patterns_and_each_stage_has_its_cost() {
    let strategy =
        build(&["--strategy", "patterns,reinfix", "--attempts", "1", "--suggestions", "1", "--patches", "1"]).unwrap();
    let client = ScriptedClient::new(vec![
        Script::text("ROOT CAUSE: greet returns a constant and never uses the name.").with_usage(1000, 50),
        Script::text("SUGGESTION 1: append the name to the greeting.").with_usage(1000, 50),
        choices(
            &["<<<<<<< SEARCH\n    return \"Hello\"\n=======\n    return \"Hello \" + name\n>>>>>>> REPLACE"],
            (1000, 100),
        ),
    ]);
    let (_dir, bug, validator) = greet();
    let report = repair(strategy, &client, &bug, validator, false);
    assert_eq!(report.outcome, Outcome::Plausible, "{report:#?}");
    assert_eq!(client.requests().len(), 3, "root cause, suggestion, patch");
    let d = report.details.json();
    assert_eq!(d["fixed_by"], "reinfix", "{d:#}");
    let (patterns, reinfix) = (&d["stages"][0], &d["stages"][1]);
    assert_eq!((patterns["strategy"].as_str(), patterns["outcome"].as_str()), (Some("patterns"), Some("exhausted")));
    assert_eq!((patterns["calls"].as_u64(), patterns["tokens"].as_u64()), (Some(0), Some(0)));
    assert_eq!(patterns["usd"].as_f64(), Some(0.0));
    assert!(patterns["details"]["generated"].is_object(), "patterns' own section: {d:#}");
    assert_eq!((reinfix["strategy"].as_str(), reinfix["outcome"].as_str()), (Some("reinfix"), Some("plausible")));
    assert_eq!((reinfix["calls"].as_u64(), reinfix["tokens"].as_u64()), (Some(3), Some(3200)));
    assert_eq!(reinfix["validations"], 1);
    let usd = reinfix["usd"].as_f64().unwrap();
    assert!((usd - (3000.0 + 200.0 * 10.0) / 1e6).abs() < 1e-12, "{usd}");
    assert_eq!((report.llm.calls, report.llm.tokens()), (3, 3200), "the run's totals are the stages'");
    assert!(report.patch.as_deref().is_some_and(|p| p.contains("+    return \"Hello \" + name")), "{report:#?}");
    assert_eq!(report.config.search.attempts, 1, "the report's search space is ReinFix's");

    let chain = build(&["--strategy", "patterns,reinfix"]).unwrap();
    let line = chain.report_line(&report).unwrap();
    assert!(
        line.starts_with("chain patterns,reinfix: fixed by reinfix (stage 2 of 2)\n  patterns: exhausted, "),
        "{line}"
    );
    assert!(line.contains("\n  reinfix: plausible, 1 validation, 3 LLM calls, 3200 tokens, $0.0050, "), "{line}");
    let (key, bug) = chain.eval_bug(&report).unwrap();
    assert_eq!((key, &bug["fixed_by"], &bug["stages"][1]["calls"]), ("chain", &json!("reinfix"), &json!(3)));
    let totals = chain.eval_totals(1, &[&report]).unwrap();
    assert_eq!(totals.totals["fixed_by"], json!({"patterns": 0, "reinfix": 1}));
    assert!(
        totals.line.starts_with("chain patterns,reinfix: fixed by patterns 0, reinfix 1 of 1 bugs"),
        "{}",
        totals.line
    );
}

/// (c) A name the registry does not know is refused naming it; so is a name given twice.
/// (d) The options of every stage are accepted, another strategy's are still refused.
#[test]
fn issue_32_a_chain_refuses_unknown_repeated_and_foreign_names() {
    let err = |args: &[&str]| build(args).err().unwrap_or_else(|| panic!("{args:?} was accepted"));
    assert_eq!(
        err(&["--strategy", "patterns,nope"]),
        "unknown strategy \"nope\" (known: reinfix, patterns, tracerepair, unidebugger)"
    );
    assert_eq!(
        err(&["--strategy", "patterns,reinfix,patterns"]),
        "--strategy patterns,reinfix,patterns: patterns is named twice: a chain runs each strategy once"
    );
    assert!(err(&["--strategy", "patterns,"]).contains("an empty name"));
    assert_eq!(
        err(&["--strategy", "patterns,reinfix", "--passes", "2"]),
        "--passes applies to --strategy unidebugger, not patterns,reinfix"
    );
    // A single unknown name is still clap's error, listing the names.
    assert!(err(&["--strategy", "nope"]).contains("[possible values: reinfix, patterns, tracerepair, unidebugger]"));
    let chain =
        build(&["--strategy", "patterns,reinfix", "--no-retrieval", "--max-validations", "5", "--attempts", "1"]);
    let chain = chain.unwrap();
    assert_eq!(chain.search_space().attempts, 1);
    // `patterns --no-retrieval` searches nothing; reinfix the configured space.
    assert_eq!(chain.retrieval_spaces(engine::Space::CodeCause), [engine::Space::CodeCause]);
    assert!(chain.searches());
    let searching = build(&["--strategy", "patterns,reinfix"]).unwrap();
    assert_eq!(searching.retrieval_spaces(engine::Space::CodeCause), [engine::Space::Code, engine::Space::CodeCause]);
    let alone = build(&["--strategy", "patterns", "--no-retrieval"]).unwrap();
    assert!(!alone.searches() && alone.retrieval_spaces(engine::Space::Code).is_empty());
    let by_name = Registry::builtin().by_name("unidebugger,patterns").unwrap();
    assert_eq!((by_name.name(), by_name.default_max_calls()), ("unidebugger,patterns", 60));
    let trace_only = err(&["--strategy", "patterns,tracerepair", "--trace-only"]);
    assert!(trace_only.contains("tracerepair seeks no patch"), "{trace_only}");
}
