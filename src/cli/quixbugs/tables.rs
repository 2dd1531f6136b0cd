//! The tables and the `--check` run of `fixdex eval quixbugs` (rendering only: the
//! checks and the summaries come from [`repair::bench`]).

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use repair::bench::evaluation::{self, BugResult};
use repair::bench::quixbugs::{self, GroundTruth, Lang, OracleSummary, Program, ProgramCheck, RunSummary, Runner};
use repair::strategies::EvalTotals;
use repair::validate::Verdict;

/// `--check`: the developer fix on every program, with a progress bar; a table or JSON.
pub(super) fn check_programs(
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[Program],
    jobs: usize,
    reruns: usize,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let summary = check_with_bar(runner, truth, programs, jobs, reruns)?;
    if json {
        out!("{}", serde_json::to_string(&summary)?)?;
    } else {
        print_check_table(&summary, runner.lang)?;
        print_check_details(&summary);
    }
    Ok(if summary.failed_checks.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(crate::cli::exit::ERROR) })
}

/// [`quixbugs::oracle`] with a progress bar on stderr.
fn check_with_bar(
    runner: &Runner,
    truth: &GroundTruth,
    programs: &[Program],
    jobs: usize,
    reruns: usize,
) -> anyhow::Result<OracleSummary> {
    let bar = check_bar(programs.len(), runner.lang);
    let progress = |_: usize, _: usize, c: &ProgramCheck| {
        bar.set_message(c.program.clone());
        bar.inc(1);
    };
    let summary = quixbugs::oracle(runner, truth, programs, jobs, reruns, &progress)?;
    bar.finish_and_clear();
    Ok(summary)
}

/// The `--check` progress bar on stderr.
fn check_bar(len: usize, lang: Lang) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed}, ETA {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("quixbugs {lang}"));
    bar
}

/// The `--check` table: one row per program, then the summary line.
fn print_check_table(summary: &OracleSummary, lang: Lang) -> anyhow::Result<()> {
    out!("{:<28} {:<18} {:<18} {:>8}  check", "program", "buggy", "fixed (truth)", "time s")?;
    for c in &summary.programs {
        let secs = (c.buggy.wall_ms + c.fixed.wall_ms) as f64 / 1e3;
        let (buggy, fixed) = (verdict_name(&c.buggy), verdict_name(&c.fixed));
        out!("{:<28} {:<18} {:<18} {:>8.1}  {}", c.program, buggy, fixed, secs, check_name(c))?;
    }
    out!(
        "{} {lang} programs: buggy failed {}, fixed plausible {}, flaky {:?}, failed checks {:?}, wall {:.0} s",
        summary.total,
        summary.buggy_failed,
        summary.fixed_plausible,
        summary.flaky,
        summary.failed_checks,
        summary.wall_s
    )?;
    Ok(())
}

/// A run's verdict as the `--check` table shows it.
fn verdict_name(s: &RunSummary) -> String {
    match s.verdict {
        None => "patch-refused".to_string(),
        Some(Verdict::Plausible) => "plausible".to_string(),
        Some(Verdict::TestFailure) => format!("test-failure({})", s.failing_tests),
        Some(Verdict::CompileError) => "compile-error".to_string(),
        Some(Verdict::Timeout) => "timeout".to_string(),
        Some(v @ (Verdict::PatchRefused | Verdict::Duplicate)) => v.as_str().replace('_', "-"),
    }
}

/// A program's check as the `--check` table shows it.
fn check_name(c: &ProgramCheck) -> &'static str {
    match (c.flaky, c.ok) {
        (true, _) => "FLAKY",
        (false, true) => "ok",
        (false, false) => "FAILED",
    }
}

/// The details of every failed check, on stderr.
fn print_check_details(summary: &OracleSummary) {
    for c in summary.programs.iter().filter(|c| !c.ok) {
        for (what, r) in [("buggy", &c.buggy), ("fixed", &c.fixed)] {
            if let Some(d) = &r.detail {
                eprintln!("--- {} ({what}):\n{d}", c.program);
            }
        }
    }
}

/// The evaluation table: one row per bug, the summary line, then each error's message.
pub(super) fn print_llm_table(
    bugs: &[BugResult],
    counts: &evaluation::Counts,
    totals: Option<&EvalTotals>,
    lang: Lang,
    synthetic: bool,
) -> anyhow::Result<()> {
    out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8}", "program", "outcome", "cands", "calls", "tokens", "time s")?;
    for b in bugs {
        let outcome = evaluation::outcome_name(b.outcome);
        out!("{:<28} {:<20} {:>6} {:>6} {:>9} {:>8.1}", b.program, outcome, b.candidates, b.calls, b.tokens, b.wall_s)?;
    }
    out!("{}", summary_line(counts, lang, synthetic))?;
    out!("{}", evaluation::Costs::of(bugs).line())?;
    if let Some(t) = totals {
        out!("{}", t.line)?;
    }
    print_errors(bugs)
}

/// Each error's message.
fn print_errors(bugs: &[BugResult]) -> anyhow::Result<()> {
    for b in bugs {
        if let Some(e) = &b.error {
            out!("error: {}: {e}", b.program)?;
        }
    }
    Ok(())
}

/// The evaluation's summary line.
fn summary_line(counts: &evaluation::Counts, lang: Lang, synthetic: bool) -> String {
    let trace_only = match counts.trace_only {
        0 => String::new(),
        n => format!(", {n} trace only (no patch sought)"),
    };
    format!(
        "{}: {} plausible, {} no plausible patch, {}{trace_only}{}",
        crate::cli::count(counts.total, &format!("{lang} program")),
        counts.plausible,
        counts.no_plausible,
        crate::cli::count(counts.errors, "error"),
        if synthetic { " (SYNTHETIC answers: not repair results)" } else { "" }
    )
}
