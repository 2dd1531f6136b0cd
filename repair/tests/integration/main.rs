//! Integration tests of the repair crate, one module per area.

/// The ReinFix workflow end to end on minibugs with scripted answers.
mod agent;
/// Strategy chains (`--strategy patterns,reinfix`): free before paid, per-stage costs.
mod chain;
/// Helpers shared by the workflow, harness and replay tests.
mod common;
/// The Defects4J harness on a project written in Defects4J's layout: git, javac, JUnit,
/// the gold check, a repair into a run folder, resume, bad inputs.
mod defects4j;
/// Failure text in prompts: repeated frames folded, exceptions and assertions kept
/// (issue 9), on projects the tests write.
mod failure;
/// `repair::fl`: SBFL (Ochiai) with real JaCoCo/JUnit and coverage.py/pytest runs.
mod fl;
/// Fuzz tests: any model answer, tool call or tool argument never panics the parsers
/// (issue 8); the patch round trips.
mod fuzz;
/// `repair::label`: root causes written into a corpus, resumable through its cache.
mod label;
/// `repair::llm`: HTTP client against a local server, scripted faults, tool-call
/// validation and text fallback, record/replay.
mod llm;
/// Patches from model answers applied to project trees: formats, refusals, all-or-nothing.
mod patch;
/// The `patterns` strategy: retrieval-guided order against the default one, on minibugs.
mod patterns;
/// The QuixBugs harness on the minibugs fixture: real javac/JUnit and pytest runs.
mod quixbugs;
/// A strategy from outside the crate registered with its options, report and summary.
mod registry;
/// The workflow under the strict replay client, with real patches and real tests.
mod replay;
/// RepoFocus's pre-ranking of bug-related files on written Java and Python projects.
mod repofocus;
/// The external-ingredient tool (`search_similar_fixes`) over a real index file.
mod retrieve;
/// Tests on ../shared data (run by CI with FIXDEX_SHARED set; they fail when it is unset).
mod shared;
/// The strategy seam: a strategy from outside the crate, exit paths, the registry.
mod strategies;
/// The internal-ingredient tools on the fixture project, QuixBugs and error cases.
mod tools;
/// TraceRepair (issue 13) under the strict replay client: probes, rollback, the 10 MB
/// guard, the debate and the judge, with real builds and tests.
mod tracerepair;
/// UniDebugger: the escalation L1 → L2 → L3 → reflection under the strict replay client.
mod unidebugger;
