//! `fixdex repair`: a repair strategy (`--strategy`, ReinFix by default) on one bug of a project
//! (repair::run::workflow).
//!
//! Prints the first plausible patch as a unified diff (or the whole report with `--json`)
//! and always writes the JSON report (`--report`); the report's warnings (tolerated failing
//! tests, model replies that were unusable and skipped) go to stderr. Exit codes: 0 a
//! plausible patch was found, or a `--trace-only` run went through (outcome `trace_only`,
//! the trace summary on stderr); 4 no plausible patch (search space, budget or time exhausted,
//! also after unusable model replies); 1 an error, including a failed pre-flight (the buggy
//! version does not build, or its tests pass) and a run in which no model reply was usable;
//! 2 a usage error (clap's, or another strategy's option).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use repair::fl::LineWeights;
use repair::retrieve::Exclusion;
use repair::run::bug::{Bug, Location};
use repair::run::report::Outcome;
use repair::run::workflow::Workflow;
use repair::strategies::Strategy;
use repair::tools::ToolError;
use repair::validate::{CommandSpec, Validator};

use super::llm_args::LlmArgs;
use super::sbfl_args::SbflArgs;
use super::workflow_args::{RetrievalArgs, RunArgs, StrategyArgs, run_config};

/// Arguments of `fixdex repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Project root (never modified: patches are tested in scratch copies).
    #[arg(long)]
    project: PathBuf,
    /// Test command, run with `sh -c` in the project copy; exit 0 = all tests pass (an empty
    /// one is refused, exit 2).
    #[arg(long, allow_hyphen_values = true, value_parser = super::shell_command)]
    test_cmd: String,
    /// A test that fails on the buggy version (repeatable; a substring of the failing test
    /// names, e.g. `GCD_TEST#test_1`): the pre-flight checks that it fails. With named tests,
    /// a patch is plausible when they pass and no test that passed before fails; other tests
    /// failing on the buggy version may keep failing (listed in the report, warned about).
    #[arg(long, allow_hyphen_values = true)]
    failing_test: Vec<String>,
    /// Build command run before the tests; a failure is a compile error (optional).
    #[arg(long, allow_hyphen_values = true)]
    build_cmd: Option<String>,
    /// Buggy file, relative to the project root (perfect fault localization; with --sbfl,
    /// restricts the SBFL ranking to this file). Required unless --sbfl.
    // Checked in `check_inputs`, not by clap, so that the error names every way to give the
    // fault location.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Buggy method or function in --file: `name`, `Owner.name`, or with its parameter types
    /// to pick one overload, `'parse(String, int)'` (whitespace, package qualifiers and type
    /// arguments aside; Python: parameter names). A name that several methods have is refused,
    /// listing them.
    #[arg(long, conflicts_with_all = ["lines", "sbfl"])]
    method: Option<String>,
    /// Buggy line range in --file, `START-END` (1-based, inclusive).
    #[arg(long, conflicts_with = "sbfl")]
    lines: Option<String>,
    #[command(flatten)]
    sbfl: SbflArgs,
    /// Corpus id of this bug: never retrieved (leakage control). Give it as the index stores
    /// it (e.g. `defects4j:Jsoup-41`): an id no record has is refused when a record has it in
    /// another form (exit 2, naming that form), else warned about (nothing is excluded).
    #[arg(long, allow_hyphen_values = true)]
    bug_id: Option<String>,
    /// Projects never retrieved (repeatable), by identity: `Closure` also excludes
    /// `google/closure-compiler` (the report's `retrieval.excluded_projects` lists the matches).
    #[arg(long, allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    exclude_project: Vec<String>,
    /// Limit per build or test run, seconds (at least 1).
    #[arg(long, default_value_t = 300, value_parser = super::positive_seconds)]
    test_timeout_s: u64,
    /// A file or folder of the project (relative path, repeatable) the run ignores: left out
    /// of the scratch copies, of what the internal tools list and read, and of the files
    /// UniDebugger's RepoFocus ranks. For benchmark
    /// trees that hold the fixed programs beside the buggy ones, e.g. QuixBugs'
    /// `correct_java_programs` and `correct_python_programs`, which would leak the fix.
    #[arg(long)]
    ignore: Vec<PathBuf>,
    #[command(flatten)]
    strategy: StrategyArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    retrieval: RetrievalArgs,
    #[command(flatten)]
    llm: LlmArgs,
    /// Where to write the JSON report (its folder must exist and be writable; checked
    /// before the run).
    #[arg(long, default_value = "fixdex-repair-report.json")]
    report: PathBuf,
    /// Print the report as JSON on stdout instead of the patch.
    #[arg(long)]
    json: bool,
}

/// Exit code when no plausible patch was found.
pub const NO_PATCH: u8 = 4;

/// Runs `fixdex repair`.
pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    check_inputs(a)?;
    let (file, location, fault_localization, weights) = locate(a)?;
    let retriever = retriever(a)?;
    let strategy = a.strategy.strategy()?;
    a.retrieval.warn_without_index();
    if let (Some(r), Some(path)) = (&retriever, &a.retrieval.index) {
        super::model::check_space(
            r,
            path,
            strategy.as_ref(),
            a.retrieval.params()?.space,
            a.retrieval.space.is_some(),
        )?;
    }
    let client = a.llm.client_for(strategy.as_ref())?;
    let config = run_config(&a.llm, &a.retrieval, &a.run, &client, strategy.as_ref())?;
    let prices = a.llm.prices(&client.model);
    let bug =
        Bug { id: a.bug_id.clone(), root: a.project.clone(), file, location, failing_tests: a.failing_test.clone() };
    let mut workflow = Workflow::new(client.get(), retriever, validator(a), config).with_weights(weights);
    if !a.ignore.is_empty() {
        let ignored = a.ignore.clone();
        workflow =
            workflow.with_scratch_filter(std::sync::Arc::new(move |rel, _| ignored.iter().any(|p| rel.starts_with(p))));
    }
    let mut report = workflow.with_strategy(a.strategy.strategy()?).with_prices(prices).run(&bug);
    report.fault_localization = fault_localization;
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(&a.report, &json).with_context(|| format!("writing the report {}", a.report.display()))?;
    // A run that asked the model nothing (a chain whose free stage made the bug plausible)
    // took no other path than recorded: it needed none of the recordings.
    client.finish(report.outcome.went_through() && report.llm.calls > 0)?;
    print_result(a, strategy.as_ref(), &report, &json)?;
    Ok(exit_code(report.outcome))
}

/// The retriever of `--index`, the bug's id and `--exclude-project` kept out (projects that
/// match nothing are warned about; a `--bug-id` that names no record, [`super::search::check_ids`]).
fn retriever(a: &Args) -> anyhow::Result<Option<repair::retrieve::Retriever>> {
    let exclusion = Exclusion {
        ids: a.bug_id.iter().cloned().collect(),
        projects: a.exclude_project.clone(),
        keep_ids: Vec::new(),
    };
    let Some(path) = a.retrieval.index.as_deref() else { return Ok(None) };
    let r = super::model::open_retriever(path, a.retrieval.model.as_deref(), exclusion)?;
    super::search::warn_unmatched(&r.excluded_projects());
    super::search::check_ids(&r, "--bug-id")?;
    Ok(Some(r))
}

/// Checks, before any work, the output files and that `--file` is a file of the project.
fn check_inputs(a: &Args) -> anyhow::Result<()> {
    if a.file.is_none() && !a.sbfl.sbfl {
        return Err(super::exit::Usage(
            "give the fault location: --file F with --method NAME or --lines START-END (perfect localization), \
             or --sbfl (spectrum-based, optionally restricted to --file F)"
                .into(),
        )
        .into());
    }
    let buggy = a.file.as_ref().map(|f| a.project.join(f));
    let inputs: Vec<&std::path::Path> =
        buggy.iter().map(PathBuf::as_path).chain(a.retrieval.index.as_deref()).collect();
    super::check_output("--report", &a.report, &inputs)?;
    super::check_replaces("--report", &a.report, engine::output::Kind::Report, "the repair report")?;
    a.llm.check_outputs(&inputs)?;
    if !a.project.is_dir() {
        bail!("--project {} is not a folder", a.project.display());
    }
    a.ignore.iter().try_for_each(|p| check_ignored(a, p))?;
    match &a.file {
        Some(file) if !is_file_under(&a.project, file) => {
            bail!("--file {} is not a file under --project {}", file.display(), a.project.display())
        }
        _ => Ok(()),
    }
}

/// `--ignore p` names a path under the project that does not hold the buggy file.
fn check_ignored(a: &Args, p: &std::path::Path) -> anyhow::Result<()> {
    if p.is_absolute() || !a.project.join(p).exists() {
        bail!(
            "--ignore {} is not a path under --project {} (give it relative to the project)",
            p.display(),
            a.project.display()
        );
    }
    if a.file.as_ref().is_some_and(|f| f.starts_with(p)) {
        bail!("--ignore {} holds the buggy --file", p.display());
    }
    Ok(())
}

/// Whether `project/file` is a file inside `project` (after resolving `..` and links).
fn is_file_under(project: &std::path::Path, file: &std::path::Path) -> bool {
    match (project.canonicalize(), project.join(file).canonicalize()) {
        (Ok(root), Ok(path)) => path.is_file() && path.starts_with(root),
        _ => false,
    }
}

/// The buggy file and location: `--file` with `--method` or `--lines`, or SBFL (whose
/// summary goes into the report, and whose line scores weigh the patterns strategy's
/// candidates).
fn locate(a: &Args) -> anyhow::Result<(PathBuf, Location, Option<serde_json::Value>, LineWeights)> {
    let given = || a.file.clone().expect("check_inputs: --file without --sbfl");
    match (&a.method, &a.lines, a.sbfl.sbfl) {
        (Some(m), None, false) => {
            Ok((check_method(a, given(), m)?, Location::Method(m.clone()), None, LineWeights::Uniform))
        }
        (None, Some(l), false) => {
            let location = parse_lines(l)?;
            check_lines(&a.project, &given(), l, &location)?;
            Ok((given(), location, None, LineWeights::Uniform))
        }
        (None, None, true) => sbfl(a),
        _ => Err(super::exit::Usage(
            "give the fault location: --method NAME or --lines START-END (with --file), or --sbfl".into(),
        )
        .into()),
    }
}

/// `file` when `--method m` names exactly one method there ([`repair::tools::resolve_method`]);
/// refuses a name that several methods have, listing them, and one that none has.
fn check_method(a: &Args, file: PathBuf, m: &str) -> anyhow::Result<PathBuf> {
    match repair::tools::resolve_method(&a.project, &file, m) {
        Ok(_) => Ok(file),
        Err(ToolError::AmbiguousMethod { path, candidates, example, .. }) => {
            let hint =
                example.map_or("give its lines as --lines START-END".into(), |e| format!("give one as --method '{e}'"));
            bail!("--method {m} is ambiguous in {path}: {}; {hint}", candidates.join(", "))
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("--method {m}"))),
    }
}

/// `--lines START-END` as a location; a malformed or empty range is a usage error (exit 2).
fn parse_lines(l: &str) -> anyhow::Result<Location> {
    let usage = |why: &str| anyhow::Error::new(super::exit::Usage(format!("--lines {l}: {why}, e.g. 12-30")));
    let (s, e) = l.split_once('-').ok_or_else(|| usage("must be START-END"))?;
    let number = |t: &str, name: &str| {
        t.trim().parse::<usize>().map_err(|_| usage(&format!("{name} `{}` is not a line number", t.trim())))
    };
    let (start, end) = (number(s, "START")?, number(e, "END")?);
    if start == 0 || end < start {
        return Err(usage("lines are 1-based and START must not be after END"));
    }
    Ok(Location::Lines(start, end))
}

/// A usage error (exit 2) when `--lines` ends past the end of `file` (in `project`): a
/// new user's `--lines 1000-1001` on a 26-line file ran the pre-flight and ended in error.
/// A file that cannot be read is left to the run, which names it.
fn check_lines(project: &std::path::Path, file: &std::path::Path, l: &str, location: &Location) -> anyhow::Result<()> {
    let Location::Lines(_, end) = *location else { return Ok(()) };
    let Ok(text) = std::fs::read_to_string(project.join(file)) else { return Ok(()) };
    let n = text.lines().count();
    if end > n {
        let lines = crate::cli::count(n, "line");
        return Err(super::exit::Usage(format!("--lines {l}: {} has {lines}", file.display())).into());
    }
    Ok(())
}

/// The validator running `--build-cmd` and `--test-cmd`.
fn validator(a: &Args) -> Validator {
    Validator {
        build: a.build_cmd.clone().map(CommandSpec::Shell),
        test: CommandSpec::Shell(a.test_cmd.clone()),
        timeout: Duration::from_secs(a.test_timeout_s),
        env: Vec::new(),
        reference: None,
        fail_fast: None,
    }
}

/// The patch (or the report with `--json`) on stdout; the warnings and a one-line summary
/// on stderr.
fn print_result(
    a: &Args,
    strategy: &dyn Strategy,
    report: &repair::run::report::RepairReport,
    json: &str,
) -> anyhow::Result<()> {
    if a.json {
        out!("{json}")?;
    } else if let Some(p) = &report.patch {
        out!("{p}")?;
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if let Some(line) = strategy.report_line(report) {
        eprintln!("{line}");
    }
    eprintln!("{}", summary_line(report, &a.report));
    Ok(())
}

/// `OUTCOME: N candidates tried (V validated[, P plausible]), C LLM calls, T tokens, S s[; error]
/// [; SYNTHETIC ...] (report: PATH)`: V leaves out the duplicates and refused patches, which
/// cost no test run; P, the plausible candidates, is given when there is more than one
/// (`--all`).
fn summary_line(report: &repair::run::report::RepairReport, path: &std::path::Path) -> String {
    let validated = report.candidates.iter().filter(|c| c.verdict.validated()).count();
    let plausible = report.candidates.iter().filter(|c| c.verdict == repair::validate::Verdict::Plausible).count();
    let plausible = if plausible > 1 { format!(", {plausible} plausible") } else { String::new() };
    format!(
        "{}: {} tried ({validated} validated{plausible}), {}, {} tokens, {:.1} s{}{} (report: {})",
        report.outcome.as_str(),
        crate::cli::count(report.candidates.len(), "candidate"),
        crate::cli::count(report.llm.calls, "LLM call"),
        report.llm.tokens(),
        report.wall_s,
        report.error.as_ref().map(|e| format!("; {e}")).unwrap_or_default(),
        if report.synthetic { "; SYNTHETIC answers: not a repair result" } else { "" },
        path.display()
    )
}

/// The exit code of an outcome (see the module docs).
fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Plausible | Outcome::TraceOnly => ExitCode::SUCCESS,
        Outcome::NoPlausiblePatch | Outcome::BudgetExhausted | Outcome::Timeout => ExitCode::from(NO_PATCH),
        Outcome::PreflightFailed | Outcome::Error => ExitCode::from(super::exit::ERROR),
    }
}

/// SBFL on the project (in a scratch copy): the top-ranked method (in `--file` when given)
/// as `(file, line range, summary for the report, the SBFL scores of that file's lines)`.
fn sbfl(a: &Args) -> anyhow::Result<(PathBuf, Location, Option<serde_json::Value>, LineWeights)> {
    let timeout = Duration::from_secs(a.test_timeout_s);
    let found = a.sbfl.localize(&a.project, a.build_cmd.as_deref(), a.file.as_deref(), timeout)?;
    let (first, last) = found.lines();
    Ok((PathBuf::from(&found.file), Location::Lines(first, last), Some(found.summary), found.weights))
}
