//! Adding a strategy is its own code plus one registry line (issue 30): a strategy defined
//! here, outside the crate, registers itself with [`Registry::with`], gets its own options
//! through the clap machinery the binary uses ([`Registry::augment`], [`Registry::build`]),
//! runs through the [`Workflow`] on a minibugs program, and writes its own report section,
//! stderr line and evaluation summary; no file of the crate names it.

use crate::common::sum_to;

use repair::bench::evaluation::BugResult;
use repair::bench::quixbugs::{self, Lang};
use repair::llm::ScriptedClient;
use repair::patch::{Change, Splice};
use repair::run::bug::Problem;
use repair::run::config::RunConfig;
use repair::run::report::{Details, Outcome, RepairReport};
use repair::run::session::{Place, Session, Stop};
use repair::run::workflow::Workflow;
use repair::strategies::{Entry, EvalTotals, Registry, Strategy, entry};
use repair::validate::Verdict;
use serde_json::json;

/// Widen's options, under their own heading.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Strategy widen")]
struct WidenArgs {
    /// What `range(a, b)` becomes `range(a, b + N)` with.
    #[arg(long, default_value_t = 1)]
    widen_by: usize,
}

/// A model-free strategy: each `range(a, b)` of the buggy code becomes `range(a, b + by)`.
struct Widen {
    by: usize,
}

/// Widen's report section.
#[derive(Debug, Clone, serde::Serialize)]
struct WidenSection {
    by: usize,
    tried: usize,
}

fn widen_entry() -> Box<dyn Entry> {
    entry::<WidenArgs>("widen", "widen every range by --widen-by", |a| {
        if a.widen_by == 0 {
            return Err("--widen-by 0 changes nothing".into());
        }
        Ok(Box::new(Widen { by: a.widen_by }))
    })
}

impl Strategy for Widen {
    fn name(&self) -> &'static str {
        "widen"
    }

    fn needs_model(&self) -> bool {
        false
    }

    fn repair(&self, problem: &Problem, session: &mut Session<'_>) -> Result<(), Stop> {
        let code = &problem.source;
        let ranges = code.match_indices("range(").filter_map(|(at, _)| Some(at + code[at..].find(')')?));
        for (choice, close) in ranges.enumerate() {
            let widen = Splice { span: close..close, text: format!(" + {}", self.by) };
            let place = Place { attempt: 1, suggestion: 1, choice };
            let what = format!("range(..{})", widen.text);
            let rec = session.validate_patch(problem, place, &what, &Change::Splices(vec![widen]))?;
            session.report.details = Details::new(WidenSection { by: self.by, tried: choice + 1 });
            if session.push_candidate(rec) {
                break;
            }
        }
        Ok(())
    }

    fn report_line(&self, report: &RepairReport) -> Option<String> {
        let s = report.details.get::<WidenSection>()?;
        Some(format!("widened by {}: {} tried", s.by, s.tried))
    }

    fn eval_bug(&self, report: &RepairReport) -> Option<(&'static str, serde_json::Value)> {
        Some(("widened", json!(report.details.get::<WidenSection>()?.tried)))
    }

    fn eval_totals(&self, bugs: usize, reports: &[&RepairReport]) -> Option<EvalTotals> {
        let tried: usize = reports.iter().filter_map(|r| r.details.get::<WidenSection>()).map(|s| s.tried).sum();
        Some(EvalTotals {
            key: "widened",
            totals: json!({"bugs": bugs, "tried": tried}),
            line: format!("widened: {tried}"),
        })
    }
}

/// The command the binary's repair options make, as a test sees it.
fn command(registry: &Registry) -> clap::Command {
    registry.augment(clap::Command::new("fixdex-repair").no_binary_name(true))
}

/// The registry with Widen gives `--strategy widen` and `--widen-by` under Widen's heading,
/// builds Widen from them, and refuses Widen's option with another strategy and the
/// options Widen refuses together.
#[test]
fn issue_30_a_strategy_from_outside_gets_its_options() {
    let registry = Registry::builtin().with(widen_entry());
    let help = command(&registry).render_long_help().to_string();
    assert!(help.contains("Strategy widen:") && help.contains("--widen-by"), "{help}");
    assert!(help.contains("widen every range by --widen-by"), "{help}");
    let parse = |args: &[&str]| command(&registry).try_get_matches_from(args).unwrap();
    let widen = registry.build(&parse(&["--strategy", "widen", "--widen-by", "2"])).unwrap();
    assert_eq!(widen.name(), "widen");
    assert!(!widen.needs_model());
    let err = registry.build(&parse(&["--strategy", "patterns", "--widen-by", "2"])).err().unwrap();
    assert_eq!(err.to_string(), "--widen-by applies to --strategy widen, not patterns");
    let err = registry.build(&parse(&["--strategy", "widen", "--passes", "2"])).err().unwrap();
    assert_eq!(err.to_string(), "--passes applies to --strategy unidebugger, not widen");
    let err = registry.build(&parse(&["--strategy", "widen", "--widen-by", "0"])).err().unwrap();
    assert_eq!(err.to_string(), "--strategy widen: --widen-by 0 changes nothing");
    assert!(Registry::builtin().by_name("widen").is_err(), "only the registry it was added to knows it");
}

/// Widen, built from its options, repairs minibugs' Python `sum_to` through the workflow;
/// its report section, stderr line and evaluation summary are its own.
#[test]
fn issue_30_a_strategy_from_outside_reports_and_summarises_itself() {
    let registry = Registry::builtin().with(widen_entry());
    let matches = command(&registry).try_get_matches_from(["--strategy", "widen"]).unwrap();
    let strategy = registry.build(&matches).unwrap();
    let (bug, validator) = sum_to();
    let client = ScriptedClient::new(Vec::new());
    let report = Workflow::new(&client, None, validator, RunConfig::default())
        .with_strategy(registry.build(&matches).unwrap())
        .with_scratch_filter(quixbugs::scratch_filter(Lang::Python))
        .run(&bug);
    assert_eq!((report.outcome, report.strategy.as_str()), (Outcome::Plausible, "widen"), "{report:#?}");
    assert_eq!(report.candidates.iter().map(|c| c.verdict).collect::<Vec<_>>(), [Verdict::Plausible]);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["details"], json!({"by": 1, "tried": 1}));
    assert_eq!(json["config"]["attempts"], 3, "a strategy without a search space reports the default one");
    assert_eq!(strategy.report_line(&report).as_deref(), Some("widened by 1: 1 tried"));
    let bug = BugResult::from_report("sum_to", "sum_to", &report).with_section(strategy.eval_bug(&report));
    assert_eq!(serde_json::to_value(&bug).unwrap()["widened"], 1);
    let totals = strategy.eval_totals(2, &[&report]).unwrap();
    assert_eq!(
        (totals.key, totals.totals, totals.line.as_str()),
        ("widened", json!({"bugs": 2, "tried": 1}), "widened: 1")
    );
}
