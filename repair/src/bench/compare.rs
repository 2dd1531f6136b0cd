//! Two runs on the same bugs, compared pair by pair (`fixdex eval compare RUN_A RUN_B`):
//! the bugs each fixes that the other does not, McNemar's exact test on those discordant
//! pairs, and a sign test on the validations and the cost of the bugs both ran.
//!
//! Paired tests because both runs see the same bugs: the question is not whether 12/61 and
//! 9/61 differ as proportions but whether the bugs on which the runs disagree lean one way
//! (McNemar 1947, "Note on the sampling error of the difference between correlated
//! proportions"; exact form: a two-sided binomial test of the discordant pairs at p = 1/2).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bench::record::{BugRecord, Status};

/// How two runs differ on one verdict (plausible, or correct).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// Bugs with the verdict in both runs.
    pub both: usize,
    /// Bugs with the verdict in neither.
    pub neither: usize,
    /// Bugs with the verdict in run A only, by id.
    pub only_a: Vec<String>,
    /// Bugs with the verdict in run B only, by id.
    pub only_b: Vec<String>,
    /// McNemar's exact two-sided p-value on `only_a` against `only_b` (1 when none differ).
    pub p_value: f64,
}

/// A sign test of a per-bug number (validations, cost) over the bugs both runs finished.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignTest {
    /// Bugs where A's number is lower.
    pub a_lower: usize,
    /// Bugs where B's number is lower.
    pub b_lower: usize,
    /// Bugs with equal numbers (left out of the test, as the sign test does).
    pub ties: usize,
    /// Median of `A - B` over the bugs compared.
    pub median_difference: Option<f64>,
    /// The exact two-sided p-value (binomial at p = 1/2 over the untied bugs).
    pub p_value: f64,
}

/// The comparison of run A with run B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Bugs in both runs that ran (not `infra`) in both: the pairs compared.
    pub bugs: usize,
    /// Bugs of one run only, or `infra` in either: left out.
    pub left_out: Vec<String>,
    /// Plausible in A against B.
    pub plausible: Paired,
    /// Correct (exact or AST match) in A against B.
    pub correct: Paired,
    /// Validations per bug, over the bugs finished in both.
    pub validations: SignTest,
    /// Cost in USD per bug, over the bugs finished in both with a known cost; `None` when
    /// none has one.
    pub cost_usd: Option<SignTest>,
}

/// The exact two-sided binomial test at p = 1/2: the probability, under no difference, of a
/// split of `a + b` at least as uneven as `a` : `b` (`min(1, 2 P(X <= min(a, b)))`).
#[must_use]
pub fn binomial_two_sided(a: usize, b: usize) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    let k = a.min(b);
    // P(X <= k) for X ~ Bin(n, 1/2), in logs to stay finite for large n.
    let ln_half_n = n as f64 * 0.5_f64.ln();
    let mut ln_choose = 0.0_f64; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

impl Comparison {
    /// Compares the records of run A with those of run B, paired by bug id.
    #[must_use]
    pub fn of(a: &[BugRecord], b: &[BugRecord]) -> Comparison {
        let by_id = |rs: &[BugRecord]| rs.iter().map(|r| (r.bug.clone(), r.clone())).collect::<BTreeMap<_, _>>();
        let (a, b) = (by_id(a), by_id(b));
        let mut left_out = Vec::new();
        let mut pairs = Vec::new();
        for id in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
            match (a.get(id), b.get(id)) {
                (Some(x), Some(y)) if x.status != Status::Infra && y.status != Status::Infra => pairs.push((x, y)),
                _ => left_out.push(id.clone()),
            }
        }
        let paired = |verdict: &dyn Fn(&BugRecord) -> bool| {
            let mut p = Paired { both: 0, neither: 0, only_a: vec![], only_b: vec![], p_value: 1.0 };
            for (x, y) in &pairs {
                match (verdict(x), verdict(y)) {
                    (true, true) => p.both += 1,
                    (false, false) => p.neither += 1,
                    (true, false) => p.only_a.push(x.bug.clone()),
                    (false, true) => p.only_b.push(x.bug.clone()),
                }
            }
            p.p_value = binomial_two_sided(p.only_a.len(), p.only_b.len());
            p
        };
        let finished: Vec<_> =
            pairs.iter().filter(|(x, y)| x.status == Status::Finished && y.status == Status::Finished).collect();
        let validations = sign_test(finished.iter().map(|(x, y)| (x.validations as f64, y.validations as f64)));
        let costs: Vec<(f64, f64)> = finished.iter().filter_map(|(x, y)| Some((x.cost_usd?, y.cost_usd?))).collect();
        Comparison {
            bugs: pairs.len(),
            left_out,
            plausible: paired(&|r| r.plausible),
            correct: paired(&|r| r.plausible && r.best_tier.is_some_and(|t| t.correct())),
            validations,
            cost_usd: (!costs.is_empty()).then(|| sign_test(costs.into_iter())),
        }
    }

    /// The comparison as Markdown: a table of the two verdicts and the two sign tests, and
    /// the bugs unique to each run.
    #[must_use]
    pub fn markdown(&self, name_a: &str, name_b: &str) -> String {
        let mut s = format!("# {name_a} against {name_b}\n\n{} compared", super::summary::count(self.bugs, "bug"));
        if !self.left_out.is_empty() {
            s.push_str(&format!(
                " ({} left out: in one run only, or infra: {})",
                self.left_out.len(),
                self.left_out.join(", ")
            ));
        }
        s.push_str("\n\n| verdict | both | A only | B only | neither | McNemar exact p |\n|---|---|---|---|---|---|\n");
        for (name, p) in [("plausible", &self.plausible), ("correct", &self.correct)] {
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {:.4} |\n",
                p.both,
                p.only_a.len(),
                p.only_b.len(),
                p.neither,
                p.p_value
            ));
        }
        s.push_str(
            "\n| per bug | A lower | B lower | ties | median A - B | sign test p |\n|---|---|---|---|---|---|\n",
        );
        let mut sign = |name: &str, t: &SignTest| {
            let median = t.median_difference.map_or("-".to_string(), |m| format!("{m:.4}"));
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {median} | {:.4} |\n",
                t.a_lower, t.b_lower, t.ties, t.p_value
            ));
        };
        sign("validations", &self.validations);
        if let Some(c) = &self.cost_usd {
            sign("cost (USD)", c);
        }
        for (title, ids) in [
            (format!("Correct in {name_a} only"), &self.correct.only_a),
            (format!("Correct in {name_b} only"), &self.correct.only_b),
            (format!("Plausible in {name_a} only"), &self.plausible.only_a),
            (format!("Plausible in {name_b} only"), &self.plausible.only_b),
        ] {
            s.push_str(&format!("\n{title}: {}\n", if ids.is_empty() { "none".to_string() } else { ids.join(", ") }));
        }
        s
    }
}

fn sign_test(pairs: impl Iterator<Item = (f64, f64)>) -> SignTest {
    let diffs: Vec<f64> = pairs.map(|(x, y)| x - y).collect();
    let a_lower = diffs.iter().filter(|d| **d < 0.0).count();
    let b_lower = diffs.iter().filter(|d| **d > 0.0).count();
    SignTest {
        a_lower,
        b_lower,
        ties: diffs.len() - a_lower - b_lower,
        median_difference: crate::bench::summary::median(diffs),
        p_value: binomial_two_sided(a_lower, b_lower),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::Tier;
    use crate::bench::summary::tests::record;

    #[test]
    fn binomial_matches_hand_computed_values() {
        assert_eq!(binomial_two_sided(0, 0), 1.0);
        // 0 : 5 -> 2 * (1/32)
        assert!((binomial_two_sided(0, 5) - 0.0625).abs() < 1e-12);
        // 1 : 9 -> 2 * (1 + 10) / 1024
        assert!((binomial_two_sided(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(binomial_two_sided(4, 4), 1.0);
        assert!(binomial_two_sided(0, 2000) < 1e-300 || binomial_two_sided(0, 2000) == 0.0);
    }

    #[test]
    fn discordant_pairs_and_left_out_bugs() {
        let a = vec![
            record("Cli-1", "Cli", Some(Tier::Exact), 3),
            record("Cli-2", "Cli", Some(Tier::NeedsReview), 4),
            record("Cli-3", "Cli", None, 200),
            record("Cli-4", "Cli", Some(Tier::Ast), 10),
            record("Cli-7", "Cli", None, 1),
        ];
        let mut infra = record("Cli-4", "Cli", None, 0);
        infra.status = Status::Infra;
        let b = vec![
            record("Cli-1", "Cli", Some(Tier::Exact), 9),
            record("Cli-2", "Cli", None, 200),
            record("Cli-3", "Cli", Some(Tier::Exact), 50),
            infra,
            record("Cli-8", "Cli", None, 1),
        ];
        let c = Comparison::of(&a, &b);
        assert_eq!(c.bugs, 3);
        assert_eq!(c.left_out, ["Cli-4", "Cli-7", "Cli-8"]);
        assert_eq!(
            (c.plausible.both, c.plausible.only_a.clone(), c.plausible.only_b.clone()),
            (1, vec!["Cli-2".to_string()], vec!["Cli-3".to_string()])
        );
        assert_eq!(
            (c.correct.both, c.correct.only_a.len(), c.correct.only_b.clone()),
            (1, 0, vec!["Cli-3".to_string()])
        );
        assert_eq!((c.validations.a_lower, c.validations.b_lower, c.validations.ties), (2, 1, 0));
        assert_eq!(c.validations.median_difference, Some(-6.0));
        assert!(c.cost_usd.is_none());
        let md = c.markdown("patterns", "patterns+index");
        assert!(
            md.contains("| correct | 1 | 0 | 1 | 1 |") && md.contains("Correct in patterns+index only: Cli-3"),
            "{md}"
        );
    }
}
