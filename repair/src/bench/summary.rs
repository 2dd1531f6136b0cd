//! The numbers of a benchmark run, from its bugs' records ([`BugRecord`]): counts per
//! status and grading tier, overall and per project, with 95% confidence intervals; cost,
//! validations and time per bug; LLM calls, tokens and USD in all, per bug that ran and per
//! plausible bug; for a chain of strategies (`--strategy patterns,reinfix`), the bugs each
//! stage fixed and what each stage cost ([`StageTotals`]); plausible@k and correct@k where
//! patches were sampled.
//!
//! Counting follows issue 31: `plausible` counts every bug with a plausible patch, and each
//! of those is counted once more at its best tier, so `exact`, `ast` and `needs_review` are
//! disjoint and sum to `plausible`; `correct` = `exact` + `ast` (never "tests pass").
//! `infra` bugs (set-up or gold check failed) are kept apart and are not in the denominators
//! of the rates: a rate is over the bugs that ran (`finished` + `error`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bench::record::{BugRecord, Status, Tier};

/// Counts of one group of bugs (a project, or the whole run).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    /// Bugs with a record.
    pub total: usize,
    /// Bugs whose repair workflow went through.
    pub finished: usize,
    /// Bugs that could not be set up or failed the gold check.
    pub infra: usize,
    /// Bugs whose repair run broke.
    pub errors: usize,
    /// Bugs with at least one plausible patch.
    pub plausible: usize,
    /// Plausible bugs whose best patch is an exact match.
    pub exact: usize,
    /// Plausible bugs whose best patch is an AST match (not exact).
    pub ast: usize,
    /// Plausible bugs with no exact or AST match.
    pub needs_review: usize,
    /// `exact + ast`.
    pub correct: usize,
}

impl Counts {
    fn add(&mut self, r: &BugRecord) {
        self.total += 1;
        match r.status {
            Status::Finished => self.finished += 1,
            Status::Infra => self.infra += 1,
            Status::Error => self.errors += 1,
        }
        if r.plausible {
            self.plausible += 1;
            match r.best_tier.unwrap_or(Tier::NeedsReview) {
                Tier::Exact => self.exact += 1,
                Tier::Ast => self.ast += 1,
                Tier::NeedsReview => self.needs_review += 1,
            }
        }
        self.correct = self.exact + self.ast;
    }

    /// Bugs that ran (`finished + errors`): the denominator of the rates.
    #[must_use]
    pub fn ran(&self) -> usize {
        self.finished + self.errors
    }
}

/// A proportion with its Wilson score 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    /// Successes / trials (0 for no trials).
    pub value: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl Rate {
    /// `successes` of `trials` with the Wilson score interval at 95% (z = 1.96; Wilson 1927,
    /// "Probable inference, the law of succession, and statistical inference"): unlike the
    /// normal approximation it stays inside [0, 1] and is usable for 0 or `trials` successes.
    #[must_use]
    pub fn wilson(successes: usize, trials: usize) -> Rate {
        if trials == 0 {
            return Rate { value: 0.0, low: 0.0, high: 0.0 };
        }
        let (k, n, z) = (successes as f64, trials as f64, 1.96_f64);
        let p = k / n;
        let denom = 1.0 + z * z / n;
        let centre = (p + z * z / (2.0 * n)) / denom;
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
        Rate { value: p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
    }

    /// `13.1% [6.8, 23.8]`; `n/a (no bug ran)` for a rate of no trials (its interval is
    /// [0, 0], which [`Rate::wilson`] gives only then).
    #[must_use]
    pub fn percent(&self) -> String {
        if self.value == 0.0 && self.low == 0.0 && self.high == 0.0 {
            return "n/a (no bug ran)".into();
        }
        format!("{:.1}% [{:.1}, {:.1}]", 100.0 * self.value, 100.0 * self.low, 100.0 * self.high)
    }
}

/// The unbiased estimator of pass@k (Chen et al. 2021, "Evaluating Large Language Models
/// Trained on Code", eq. 1): the chance that at least one of `k` patches drawn without
/// replacement from `n` sampled, `c` of them good, is good: `1 - C(n-c, k) / C(n, k)`.
/// `None` when fewer than `k` were sampled (or `k` is 0).
#[must_use]
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || n < k {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    // 1 - prod_{i = n-c+1}^{n} (1 - k / i), the numerically stable form.
    let fail: f64 = ((n - c + 1)..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - fail)
}

/// `n` and `noun`, plural unless `n` is 1: `count(1, "bug")` is `1 bug`, `count(3, "bug")`
/// is `3 bugs` (nouns with a plain `s` plural only).
#[must_use]
pub fn count<N: Copy + std::fmt::Display + TryInto<u64>>(n: N, noun: &str) -> String {
    if n.try_into().ok() == Some(1) { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The summary of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The whole run's counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// `plausible / ran`, with its 95% interval.
    pub plausible_rate: Rate,
    /// `correct / ran`, with its 95% interval.
    pub correct_rate: Rate,
    /// The `infra` bugs with their reasons.
    pub infra_bugs: Vec<(String, String)>,
    /// The `error` bugs with their reasons.
    pub error_bugs: Vec<(String, String)>,
    /// Counts per project, by name.
    pub projects: BTreeMap<String, Counts>,
    /// Candidate validations over all bugs.
    pub validations: usize,
    /// Median validations per bug that ran.
    pub validations_per_bug_median: Option<f64>,
    /// Median over bugs of their median validation time, seconds.
    pub validation_median_s: Option<f64>,
    /// Median validations up to the first plausible patch, over plausible bugs.
    pub first_plausible_validation_median: Option<f64>,
    /// Wall time of every bug together, seconds (more than the run's wall time with `-j N`).
    pub wall_s: f64,
    /// Median wall time per bug that ran, seconds.
    pub wall_s_per_bug_median: Option<f64>,
    /// LLM calls over all bugs.
    pub calls: u64,
    /// LLM tokens over all bugs.
    pub tokens: u64,
    /// Cost in USD over all bugs, when prices were known for every bug that ran (a bug
    /// without LLM calls costs 0).
    pub cost_usd: Option<f64>,
    /// `cost_usd / ran`.
    pub cost_usd_per_bug: Option<f64>,
    /// `calls / ran`; `None` when no bug ran.
    pub calls_per_bug: Option<f64>,
    /// `tokens / ran`; `None` when no bug ran.
    pub tokens_per_bug: Option<f64>,
    /// `calls / plausible`: what one plausible bug cost, the calls of the bugs left
    /// unfixed included; `None` without a plausible bug.
    pub calls_per_plausible: Option<f64>,
    /// `tokens / plausible`; `None` without a plausible bug.
    pub tokens_per_plausible: Option<f64>,
    /// `cost_usd / plausible`; `None` without a plausible bug or a known cost.
    pub cost_usd_per_plausible: Option<f64>,
    /// For a chain: plausible bugs by the stage that fixed them (every stage of the run's
    /// records, 0 included); absent for a single strategy.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fixed_by: BTreeMap<String, usize>,
    /// For a chain: each stage's totals, in stage order; absent for a single strategy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageTotals>,
    /// plausible@k and correct@k (k = 1, 5, 10) averaged over the bugs that sampled at least
    /// k patches, with how many such bugs; empty when no strategy sampled.
    pub at_k: Vec<AtK>,
}

/// One stage of a chain over a run ([`Summary::stages`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageTotals {
    /// The stage's strategy name.
    pub strategy: String,
    /// Bugs it ran on (the earlier stages left them without a plausible patch).
    pub ran: usize,
    /// Bugs it made plausible.
    pub fixed: usize,
    /// Candidates it built and tested.
    pub validations: usize,
    /// LLM calls it made.
    pub calls: u64,
    /// LLM tokens of those calls.
    pub tokens: u64,
    /// Their cost in USD; `None` when a call had no price.
    pub cost_usd: Option<f64>,
    /// `cost_usd / fixed`; `None` without a fix or a known cost.
    pub cost_usd_per_fix: Option<f64>,
    /// Its wall time over the bugs, seconds.
    pub wall_s: f64,
}

impl StageTotals {
    /// The totals of every stage in `records`, in the order the stages first appear.
    fn of(records: &[&BugRecord]) -> Vec<StageTotals> {
        let mut out: Vec<StageTotals> = Vec::new();
        for r in records {
            for s in &r.stages {
                let i = match out.iter().position(|t| t.strategy == s.strategy) {
                    Some(i) => i,
                    None => {
                        out.push(StageTotals {
                            strategy: s.strategy.clone(),
                            ran: 0,
                            fixed: 0,
                            validations: 0,
                            calls: 0,
                            tokens: 0,
                            cost_usd: Some(0.0),
                            cost_usd_per_fix: None,
                            wall_s: 0.0,
                        });
                        out.len() - 1
                    }
                };
                let t = &mut out[i];
                t.ran += 1;
                t.fixed += usize::from(r.plausible && r.fixed_by.as_deref() == Some(s.strategy.as_str()));
                t.validations += s.validations;
                t.calls += s.calls;
                t.tokens += s.tokens;
                t.cost_usd = t.cost_usd.zip(s.cost_usd).map(|(a, b)| a + b);
                t.wall_s += s.wall_s;
            }
        }
        for t in &mut out {
            t.cost_usd_per_fix = t.cost_usd.filter(|_| t.fixed > 0).map(|c| c / t.fixed as f64);
        }
        out
    }

    /// `patterns: ran on 10 bugs, fixed 3, 0 LLM calls, 0 tokens, $0.0000`.
    #[must_use]
    pub fn line(&self) -> String {
        let cost = self.cost_usd.map_or_else(|| "cost unknown".into(), |c| format!("${c:.4}"));
        let per_fix = self.cost_usd_per_fix.map(|c| format!(" (${c:.4} per fix)")).unwrap_or_default();
        format!(
            "{}: ran on {}, fixed {}, {}, {} LLM calls, {} tokens, {cost}{per_fix}",
            self.strategy,
            count(self.ran, "bug"),
            self.fixed,
            count(self.validations, "validation"),
            self.calls,
            self.tokens
        )
    }
}

/// plausible@k and correct@k over the bugs that sampled at least k patches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtK {
    /// k.
    pub k: usize,
    /// The bugs averaged over.
    pub bugs: usize,
    /// Mean plausible@k.
    pub plausible: f64,
    /// Mean correct@k (exact or AST match), RepairBench's AST@k.
    pub correct: f64,
}

/// The median of `values` (the mean of the two middle ones for an even count).
#[must_use]
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 { values[n / 2] } else { f64::midpoint(values[n / 2 - 1], values[n / 2]) })
}

impl Summary {
    /// The summary of `records` (any order; one record per bug).
    #[must_use]
    pub fn of(records: &[BugRecord]) -> Summary {
        let mut counts = Counts::default();
        let mut projects: BTreeMap<String, Counts> = BTreeMap::new();
        for r in records {
            counts.add(r);
            projects.entry(r.project.clone()).or_default().add(r);
        }
        let ran: Vec<&BugRecord> = records.iter().filter(|r| r.status != Status::Infra).collect();
        let reasons = |status| {
            records
                .iter()
                .filter(|r| r.status == status)
                .map(|r| (r.bug.clone(), r.reason.clone().unwrap_or_default()))
                .collect::<Vec<_>>()
        };
        // A bug without LLM calls costs nothing, prices or not.
        let cost = |r: &&BugRecord| r.cost_usd.or((r.calls == 0).then_some(0.0));
        let cost_usd = if ran.iter().all(|r| cost(r).is_some()) && !ran.is_empty() {
            Some(ran.iter().filter_map(cost).sum::<f64>() + 0.0)
        } else {
            None
        };
        let per = |total: f64, n: usize| (n > 0).then(|| total / n as f64);
        let calls: u64 = records.iter().map(|r| r.calls).sum();
        let tokens: u64 = records.iter().map(|r| r.tokens).sum();
        let stages = StageTotals::of(&ran);
        let fixed_by = stages.iter().map(|t| (t.strategy.clone(), t.fixed)).collect();
        let at_k = [1, 5, 10]
            .into_iter()
            .filter_map(|k| {
                let rows: Vec<(f64, f64)> = ran
                    .iter()
                    .filter_map(|r| {
                        Some((
                            pass_at_k(r.sampled, r.sampled_plausible, k)?,
                            pass_at_k(r.sampled, r.sampled_correct, k)?,
                        ))
                    })
                    .collect();
                let n = rows.len();
                (n > 0).then(|| AtK {
                    k,
                    bugs: n,
                    plausible: rows.iter().map(|r| r.0).sum::<f64>() / n as f64,
                    correct: rows.iter().map(|r| r.1).sum::<f64>() / n as f64,
                })
            })
            .collect();
        Summary {
            plausible_rate: Rate::wilson(counts.plausible, counts.ran()),
            correct_rate: Rate::wilson(counts.correct, counts.ran()),
            infra_bugs: reasons(Status::Infra),
            error_bugs: reasons(Status::Error),
            projects,
            validations: records.iter().map(|r| r.validations).sum(),
            validations_per_bug_median: median(ran.iter().map(|r| r.validations as f64).collect()),
            validation_median_s: median(ran.iter().filter_map(|r| r.validation_median_s).collect()),
            first_plausible_validation_median: median(
                ran.iter().filter_map(|r| r.first_plausible_validation).map(|v| v as f64).collect(),
            ),
            wall_s: records.iter().map(|r| r.wall_s).sum(),
            wall_s_per_bug_median: median(ran.iter().map(|r| r.wall_s).collect()),
            calls,
            tokens,
            cost_usd_per_bug: cost_usd.map(|c| c / ran.len() as f64),
            calls_per_bug: per(calls as f64, ran.len()),
            tokens_per_bug: per(tokens as f64, ran.len()),
            calls_per_plausible: per(calls as f64, counts.plausible),
            tokens_per_plausible: per(tokens as f64, counts.plausible),
            cost_usd_per_plausible: cost_usd.and_then(|c| per(c, counts.plausible)),
            cost_usd,
            fixed_by,
            stages,
            at_k,
            counts,
        }
    }

    /// One line: `61 bugs: 20 plausible (5 exact, 3 ast, 12 needs review), 8 correct
    /// (13.1% [6.8, 23.8]), 0 infra, 0 errors; 1234 validations, median 0.9 s each; 420 LLM
    /// calls; $1.2345 ($0.0617 per plausible bug); fixed by patterns 12, reinfix 8` (the cost
    /// when known, the stages for a chain).
    #[must_use]
    pub fn line(&self) -> String {
        let c = &self.counts;
        let mut s = format!(
            "{}: {} plausible ({} exact, {} ast, {} needs review), {} correct ({}), {} infra, {}; {}",
            count(c.total, "bug"),
            c.plausible,
            c.exact,
            c.ast,
            c.needs_review,
            c.correct,
            self.correct_rate.percent(),
            c.infra,
            count(c.errors, "error"),
            count(self.validations, "validation")
        );
        if let Some(m) = self.validation_median_s {
            s.push_str(&format!(", median {m:.2} s each"));
        }
        if self.calls > 0 {
            s.push_str(&format!("; {}", count(usize::try_from(self.calls).unwrap_or(usize::MAX), "LLM call")));
        }
        if let Some(cost) = self.cost_usd {
            s.push_str(&format!("; ${cost:.4}"));
            if let Some(per) = self.cost_usd_per_plausible {
                s.push_str(&format!(" (${per:.4} per plausible bug)"));
            }
        }
        if !self.stages.is_empty() {
            let fixed: Vec<String> = self.stages.iter().map(|t| format!("{} {}", t.strategy, t.fixed)).collect();
            s.push_str(&format!("; fixed by {}", fixed.join(", ")));
        }
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A finished record of `bug` in `project`.
    pub(crate) fn record(bug: &str, project: &str, tier: Option<Tier>, validations: usize) -> BugRecord {
        BugRecord {
            status: Status::Finished,
            outcome: Some(if tier.is_some() { "plausible" } else { "budget_exhausted" }.into()),
            plausible: tier.is_some(),
            best_tier: tier,
            validations,
            validation_median_s: Some(1.0),
            first_plausible_validation: tier.map(|_| validations),
            wall_s: 2.0,
            ..BugRecord::blank(bug, project, "perfect")
        }
    }

    #[test]
    fn tiers_are_disjoint_and_sum_to_plausible() {
        let mut infra = record("Cli-9", "Cli", None, 0);
        infra.status = Status::Infra;
        infra.reason = Some("gold check: fixed version fails".into());
        let records = vec![
            record("Cli-1", "Cli", Some(Tier::Exact), 3),
            record("Cli-2", "Cli", Some(Tier::Ast), 5),
            record("Cli-3", "Cli", Some(Tier::NeedsReview), 7),
            record("Cli-4", "Cli", None, 200),
            record("JxPath-1", "JxPath", Some(Tier::Exact), 1),
            infra,
        ];
        let s = Summary::of(&records);
        let c = &s.counts;
        assert_eq!((c.total, c.finished, c.infra, c.errors), (6, 5, 1, 0));
        assert_eq!((c.plausible, c.exact, c.ast, c.needs_review, c.correct), (4, 2, 1, 1, 3));
        assert_eq!(c.exact + c.ast + c.needs_review, c.plausible);
        assert_eq!(s.projects["Cli"].correct, 2);
        assert_eq!(s.projects["JxPath"].total, 1);
        assert_eq!(s.infra_bugs, vec![("Cli-9".to_string(), "gold check: fixed version fails".to_string())]);
        assert_eq!(s.validations, 216);
        assert_eq!(s.validations_per_bug_median, Some(5.0));
        assert_eq!(s.first_plausible_validation_median, Some(4.0));
        assert!((s.correct_rate.value - 0.6).abs() < 1e-12);
        assert!(s.correct_rate.low < 0.6 && s.correct_rate.high > 0.6);
        assert!(
            s.line().starts_with("6 bugs: 4 plausible (2 exact, 1 ast, 1 needs review), 3 correct (60.0%"),
            "{}",
            s.line()
        );
    }

    #[test]
    fn the_line_agrees_in_number() {
        assert_eq!(
            (count(0, "bug"), count(1, "bug"), count(2, "shard")),
            ("0 bugs".into(), "1 bug".into(), "2 shards".into())
        );
        let line = Summary::of(&[record("Cli-1", "Cli", None, 1)]).line();
        assert!(line.starts_with("1 bug: ") && line.contains("0 errors; 1 validation,"), "{line}");
    }

    #[test]
    fn cost_per_plausible_bug_and_per_stage_of_a_chain() {
        use crate::bench::record::StageCost;
        let stage = |name: &str, outcome: &str, calls: u64, cost: f64| StageCost {
            strategy: name.into(),
            outcome: outcome.into(),
            validations: 2,
            calls,
            tokens: calls * 100,
            cost_usd: Some(cost),
            wall_s: 1.0,
        };
        let mut free = record("Cli-1", "Cli", Some(Tier::Exact), 2);
        free.fixed_by = Some("patterns".into());
        free.stages = vec![stage("patterns", "plausible", 0, 0.0)];
        let mut paid = record("Cli-2", "Cli", Some(Tier::Ast), 4);
        (paid.calls, paid.tokens, paid.cost_usd) = (3, 300, Some(0.03));
        paid.fixed_by = Some("reinfix".into());
        paid.stages = vec![stage("patterns", "exhausted", 0, 0.0), stage("reinfix", "plausible", 3, 0.03)];
        let mut unfixed = record("Cli-3", "Cli", None, 4);
        (unfixed.calls, unfixed.tokens, unfixed.cost_usd) = (5, 500, Some(0.05));
        unfixed.stages = vec![stage("patterns", "stopped", 0, 0.0), stage("reinfix", "exhausted", 5, 0.05)];
        let s = Summary::of(&[free, paid, unfixed]);
        assert_eq!((s.calls, s.tokens), (8, 800));
        assert!((s.cost_usd.unwrap() - 0.08).abs() < 1e-12, "a bug without calls costs 0: {s:?}");
        assert!((s.cost_usd_per_plausible.unwrap() - 0.04).abs() < 1e-12);
        assert_eq!((s.calls_per_plausible, s.tokens_per_plausible), (Some(4.0), Some(400.0)));
        assert_eq!(s.fixed_by, BTreeMap::from([("patterns".to_string(), 1), ("reinfix".to_string(), 1)]));
        let names: Vec<(&str, usize, usize)> = s.stages.iter().map(|t| (t.strategy.as_str(), t.ran, t.fixed)).collect();
        assert_eq!(names, [("patterns", 3, 1), ("reinfix", 2, 1)]);
        assert!((s.stages[1].cost_usd_per_fix.unwrap() - 0.08).abs() < 1e-12);
        assert_eq!(
            s.stages[0].line(),
            "patterns: ran on 3 bugs, fixed 1, 6 validations, 0 LLM calls, 0 tokens, $0.0000 ($0.0000 per fix)"
        );
        let line = s.line();
        assert!(
            line.ends_with("; 8 LLM calls; $0.0800 ($0.0400 per plausible bug); fixed by patterns 1, reinfix 1"),
            "{line}"
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["stages"][1]["strategy"], "reinfix");
        let single = serde_json::to_value(Summary::of(&[record("Cli-1", "Cli", None, 1)])).unwrap();
        assert!(single.get("stages").is_none() && single.get("fixed_by").is_none(), "{single:#}");
        assert_eq!(single["cost_usd"], 0.0, "no calls, no cost");
        assert!(single["cost_usd_per_plausible"].is_null());
    }

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), Table I: 81/263 -> 0.2553 .. 0.3662 (Wilson without correction).
        let r = Rate::wilson(81, 263);
        assert!((r.low - 0.2553).abs() < 5e-4 && (r.high - 0.3662).abs() < 5e-4, "{r:?}");
        // 0 of 10 -> 0 .. 0.2775.
        let r = Rate::wilson(0, 10);
        assert!(r.low == 0.0 && (r.high - 0.2775).abs() < 5e-4, "{r:?}");
        assert_eq!(r.percent(), "0.0% [0.0, 27.8]");
        // No trial: no rate.
        assert_eq!(Rate::wilson(0, 0).percent(), "n/a (no bug ran)");
        assert_eq!(Rate::wilson(1, 3).percent(), "33.3% [6.1, 79.2]");
    }

    #[test]
    fn pass_at_k_is_the_unbiased_estimator() {
        assert_eq!(pass_at_k(10, 0, 1), Some(0.0));
        assert!((pass_at_k(10, 3, 1).unwrap() - 0.3).abs() < 1e-12);
        // 1 - C(7,5)/C(10,5) = 1 - 21/252
        assert!((pass_at_k(10, 3, 5).unwrap() - (1.0 - 21.0 / 252.0)).abs() < 1e-12);
        assert_eq!(pass_at_k(10, 8, 5), Some(1.0));
        assert_eq!(pass_at_k(3, 1, 5), None);
        let mut sampled = record("Cli-1", "Cli", Some(Tier::Exact), 10);
        (sampled.sampled, sampled.sampled_plausible, sampled.sampled_correct) = (10, 3, 1);
        let s = Summary::of(&[sampled, record("Cli-2", "Cli", None, 10)]);
        assert_eq!(s.at_k.iter().map(|a| (a.k, a.bugs)).collect::<Vec<_>>(), [(1, 1), (5, 1), (10, 1)]);
        assert!((s.at_k[0].plausible - 0.3).abs() < 1e-12 && (s.at_k[0].correct - 0.1).abs() < 1e-12);
    }
}
