//! Action suggestions: the repair actions of the top-k similar fixes, aggregated into a
//! ranked list of likely actions for the query (issue 11 item 2): "what should the fix
//! do?", which an agent reads before the fixes themselves.
//!
//! # Rule
//! Each hit votes for its primary label (the `action_label` column) with weight
//! `max(score, 0)`, its cosine similarity; hits labelled `OTHER` or never classified cast
//! no vote (they name no action). A kind's `share` is its weight over the total weight
//! (shares sum to 1 when any hit voted); kinds are ranked by share, ties by the best hit's
//! rank. This is a similarity-weighted k-nearest-neighbour vote (Dudani, "The
//! distance-weighted k-nearest-neighbor rule", IEEE SMC 1976) over the hits' labels.
//!
//! # With the index's label prior ([`suggest_with_prior`], what every answer uses)
//! Kind `k` scores `w_k + m · π_k`: `w_k` the vote above (summed positive cosines), `π_k`
//! the kind's share of the index's classified non-`OTHER` documents ([`ActionPrior`]) and
//! `m` = [`PRIOR_WEIGHT`] = 4 (in units of cosine); `share = (w_k + m · π_k) / (W + m)`
//! with `W` the total vote, so shares still sum to 1 and kinds no hit voted for come after
//! with their prior alone (support 0, no evidence). This is the vote under a Dirichlet
//! prior on the kind. `m` was fitted on 300 queries of a split of the action-retrieval
//! corpus disjoint from its evaluation queries (`scripts/fit-suggest.py`: grid 0 … 8 and
//! ∞, voters the top 10 of `--rank action`, argmax of action@1 then action@3): on the
//! held-out 300, action@1 0.197 [0.153, 0.243] and action@3 0.440 [0.383, 0.497] against
//! 0.170 and 0.300 for the raw vote. The constant prior alone scored 0.253 / 0.480 there:
//! the hits' labels add little to the base rates, so read a suggestion's share as a
//! probability and its evidence and examples as what to try. On the harness's 1,000
//! development queries (`scripts/action-suggest-eval.py`, `--rank action -k 10`):
//! action@1 0.250 [0.225, 0.277], action@3 0.531 [0.501, 0.561]; raw vote 0.243 / 0.371;
//! the most frequent labels 0.311 / 0.581.
//!
//! ```
//! use repair::retrieve::actions::FixActions;
//! use repair::retrieve::suggest::{Voter, suggest};
//!
//! let op = FixActions { action_label: "CHANGE_OPERATOR".into(), ..FixActions::default() };
//! let guard = FixActions { action_label: "ADD_GUARD".into(), ..FixActions::default() };
//! let hits = [
//!     Voter { id: "a", score: 0.9, actions: &guard },
//!     Voter { id: "b", score: 0.8, actions: &op },
//!     Voter { id: "c", score: 0.7, actions: &op },
//! ];
//! let s = suggest(&hits, 5);
//! assert_eq!(s[0].kind, "CHANGE_OPERATOR");
//! assert!((s[0].share - 0.625).abs() < 1e-6);
//! assert_eq!(s[0].evidence.len(), 2);
//! ```

use std::collections::BTreeMap;

use actions::Action;
use engine::Segments;
use serde::{Deserialize, Serialize};

use super::actions::FixActions;

/// Concrete actions kept per suggestion (distinct ones, from the best-ranked hits first).
pub const EXAMPLES: usize = 3;

/// Supporting hits listed per suggestion (the best-ranked ones); [`Suggestion::support`]
/// counts them all.
pub const EVIDENCE: usize = 10;

/// One hit as a voter: its id, cosine score in [-1, 1] and stored actions.
#[derive(Debug, Clone, Copy)]
pub struct Voter<'a> {
    /// Document id.
    pub id: &'a str,
    /// Similarity to the query (cosine, or a ranking score in [-1, 1]).
    pub score: f32,
    /// What the hit's fix did.
    pub actions: &'a FixActions,
}

/// One hit supporting a suggestion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Document id of the hit.
    pub id: String,
    /// 1-based rank of the hit in the answer.
    pub rank: usize,
    /// The hit's score.
    pub score: f32,
}

/// A likely repair action for the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The action kind's JSON name (`CHANGE_OPERATOR`, `ADD_NULL_CHECK`, ...).
    pub kind: String,
    /// Its share of the similarity-weighted vote (with the prior: of the smoothed vote,
    /// module docs), in [0, 1].
    pub share: f32,
    /// How many hits voted for it (0: a kind suggested by the index's prior alone).
    pub support: usize,
    /// The best-ranked [`EVIDENCE`] hits that voted for it, best first.
    pub evidence: Vec<Evidence>,
    /// Up to [`EXAMPLES`] distinct concrete actions of this kind from those hits, with
    /// their tokens (`change operator < → <= in for condition`), best hit first.
    pub examples: Vec<Action>,
}

impl Suggestion {
    fn empty(kind: &str) -> Suggestion {
        Suggestion { kind: kind.to_string(), share: 0.0, support: 0, evidence: Vec::new(), examples: Vec::new() }
    }

    /// One line for people: `CHANGE_OPERATOR 0.62 (2 hits: a, b) e.g. change operator < → <=`
    /// (at most 3 ids, then `…`); a kind no hit voted for: `ADD_GUARD 0.05 (prior only)`.
    pub fn line(&self) -> String {
        if self.support == 0 {
            return format!("{} {:.2} (prior only)", self.kind, self.share);
        }
        let mut ids: Vec<&str> = self.evidence.iter().take(3).map(|e| e.id.as_str()).collect();
        if self.support > ids.len() {
            ids.push("…");
        }
        let n = self.support;
        let mut s =
            format!("{} {:.2} ({n} hit{}: {})", self.kind, self.share, if n == 1 { "" } else { "s" }, ids.join(", "));
        if let Some(first) = self.examples.first() {
            s.push_str(&format!(" e.g. {first}"));
        }
        s
    }
}

/// Ranks the actions of `hits` (best first, in answer order) by the rule in the module
/// docs and keeps the best `max` kinds. Empty when no hit names an action. O(hits ·
/// actions per hit).
pub fn suggest(hits: &[Voter<'_>], max: usize) -> Vec<Suggestion> {
    let (by_kind, total) = vote(hits);
    let mut out: Vec<Suggestion> = by_kind
        .into_values()
        .map(|(w, mut s)| {
            // No positive weight anywhere (all scores ≤ 0): shares by count instead.
            s.share = if total > 0.0 { w / total } else { 0.0 };
            s
        })
        .collect();
    if total <= 0.0 {
        let n: usize = out.iter().map(|s| s.support).sum();
        for s in &mut out {
            s.share = s.support as f32 / n.max(1) as f32;
        }
    }
    sort_and_cut(&mut out, max);
    out
}

/// The prior weight `m` of [`suggest_with_prior`], in units of cosine (module docs: fitted
/// on a corpus split by `scripts/fit-suggest.py`).
pub const PRIOR_WEIGHT: f32 = 4.0;

/// Ranks the actions of `hits` under the index's label prior (module docs: `w_k + m · π_k`
/// with `m` = [`PRIOR_WEIGHT`]) and keeps the best `max` kinds. Kinds of the prior that no
/// hit voted for are included with support 0 and no evidence; an empty prior gives the
/// raw vote's order. O(hits · actions per hit + kinds of the prior).
pub fn suggest_with_prior(hits: &[Voter<'_>], prior: &ActionPrior, max: usize) -> Vec<Suggestion> {
    if prior.shares.is_empty() {
        return suggest(hits, max);
    }
    let (mut by_kind, total) = vote(hits);
    for kind in prior.shares.keys() {
        by_kind.entry(kind.as_str()).or_insert_with(|| (0.0, Suggestion::empty(kind)));
    }
    let mut out: Vec<Suggestion> = by_kind
        .into_iter()
        .map(|(kind, (w, mut s))| {
            s.share = (w + PRIOR_WEIGHT * prior.share(kind)) / (total.max(0.0) + PRIOR_WEIGHT);
            s
        })
        .collect();
    sort_and_cut(&mut out, max);
    out
}

/// Best share first; ties to the kind whose best hit ranks higher (a kind with no hit
/// last), then by name.
fn sort_and_cut(out: &mut Vec<Suggestion>, max: usize) {
    let best = |s: &Suggestion| s.evidence.first().map_or(usize::MAX, |e| e.rank);
    out.sort_by(|a, b| b.share.total_cmp(&a.share).then(best(a).cmp(&best(b))).then(a.kind.cmp(&b.kind)));
    out.truncate(max);
}

/// Per kind, its summed positive score and its suggestion (support, evidence, examples;
/// share unset), and the total positive score.
fn vote<'h>(hits: &[Voter<'h>]) -> (BTreeMap<&'h str, (f32, Suggestion)>, f32) {
    let mut by_kind: BTreeMap<&str, (f32, Suggestion)> = BTreeMap::new();
    let mut total = 0.0f32;
    for (i, h) in hits.iter().enumerate() {
        let label = h.actions.action_label.as_str();
        if label.is_empty() || label == "OTHER" {
            continue;
        }
        let w = h.score.max(0.0);
        total += w;
        let entry = by_kind.entry(label).or_insert_with(|| (0.0, Suggestion::empty(label)));
        entry.0 += w;
        entry.1.support += 1;
        if entry.1.evidence.len() < EVIDENCE {
            entry.1.evidence.push(Evidence { id: h.id.to_string(), rank: i + 1, score: h.score });
        }
        for a in h.actions.actions.iter().filter(|a| a.kind.as_str() == label) {
            if entry.1.examples.len() < EXAMPLES && !entry.1.examples.contains(a) {
                entry.1.examples.push(a.clone());
            }
        }
    }
    (by_kind, total)
}

/// The share of each action label among an index's classified non-`OTHER` documents
/// (`action_label` column): the `π` of [`suggest_with_prior`]. Empty for an index with no
/// classified document (then suggestions are the raw vote).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionPrior {
    shares: BTreeMap<String, f32>,
}

impl ActionPrior {
    /// Reads the `action_label` column of every document of `index`: one pass, O(documents);
    /// build once per process (a server keeps it).
    ///
    /// # Errors
    /// [`engine::Error::Corrupt`] when a document batch cannot be decoded.
    pub fn of(index: &Segments) -> engine::Result<ActionPrior> {
        let mut counts = BTreeMap::<String, usize>::new();
        for ix in index.indexes() {
            ix.docs()?.for_each_fields(["action_label"], |_, [label]| {
                if !label.is_empty() && label != "OTHER" {
                    *counts.entry(label.to_string()).or_default() += 1;
                }
                Ok(())
            })?;
        }
        Ok(ActionPrior::from_counts(counts))
    }

    /// Shares from label counts (`OTHER` and empty labels ignored).
    pub fn from_counts<S: Into<String>>(counts: impl IntoIterator<Item = (S, usize)>) -> ActionPrior {
        let counts: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(l, c)| (l.into(), c))
            .filter(|(l, c)| !l.is_empty() && l != "OTHER" && *c > 0)
            .collect();
        let n: usize = counts.iter().map(|(_, c)| c).sum();
        ActionPrior { shares: counts.into_iter().map(|(l, c)| (l, c as f32 / n.max(1) as f32)).collect() }
    }

    /// The share of `label`, in [0, 1]; 0 when unseen.
    pub fn share(&self, label: &str) -> f32 {
        self.shares.get(label).copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fa(label: &str) -> FixActions {
        FixActions { action_label: label.into(), ..FixActions::default() }
    }

    #[test]
    fn other_and_unclassified_hits_do_not_vote() {
        let (o, u, g) = (fa("OTHER"), fa(""), fa("ADD_GUARD"));
        let hits = [
            Voter { id: "o", score: 0.99, actions: &o },
            Voter { id: "u", score: 0.98, actions: &u },
            Voter { id: "g", score: 0.2, actions: &g },
        ];
        let s = suggest(&hits, 5);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].kind.as_str(), s[0].share), ("ADD_GUARD", 1.0));
        assert_eq!(s[0].evidence, vec![Evidence { id: "g".into(), rank: 3, score: 0.2 }]);
        assert_eq!(s[0].support, 1);
        assert!(suggest(&hits[..2], 5).is_empty());
    }

    #[test]
    fn ties_go_to_the_better_ranked_hit_and_max_cuts() {
        let (a, b, c) = (fa("CHANGE_NUMERAL"), fa("ADD_GUARD"), fa("SWAP_ARGUMENTS"));
        let hits = [
            Voter { id: "1", score: 0.5, actions: &b },
            Voter { id: "2", score: 0.5, actions: &a },
            Voter { id: "3", score: 0.1, actions: &c },
        ];
        let s = suggest(&hits, 2);
        assert_eq!(s.iter().map(|s| s.kind.as_str()).collect::<Vec<_>>(), ["ADD_GUARD", "CHANGE_NUMERAL"]);
        let sum: f32 = suggest(&hits, 9).iter().map(|s| s.share).sum();
        assert!((sum - 1.0).abs() < 1e-6);
    }

    /// The prior pulls a thin vote towards the index's base rates: one hit at cosine 0.5
    /// for a rare kind loses to a kind that is 80 % of the index, and every kind of the
    /// prior is listed, the unvoted ones as `prior only`; shares still sum to 1.
    #[test]
    fn the_prior_smooths_a_thin_vote() {
        let rare = fa("SWAP_ARGUMENTS");
        let prior = ActionPrior::from_counts([("ADD_GUARD", 80), ("SWAP_ARGUMENTS", 20), ("OTHER", 500)]);
        assert_eq!(prior.share("ADD_GUARD"), 0.8);
        assert_eq!(prior.share("OTHER"), 0.0);
        let hits = [Voter { id: "r", score: 0.5, actions: &rare }];
        let s = suggest_with_prior(&hits, &prior, 5);
        let kinds: Vec<&str> = s.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds, ["ADD_GUARD", "SWAP_ARGUMENTS"]);
        // (0 + 4 · 0.8) / (0.5 + 4) and (0.5 + 4 · 0.2) / 4.5.
        assert!((s[0].share - 3.2 / 4.5).abs() < 1e-6, "{s:?}");
        assert!((s[1].share - 1.3 / 4.5).abs() < 1e-6, "{s:?}");
        assert_eq!((s[0].support, s[0].line()), (0, "ADD_GUARD 0.71 (prior only)".to_string()));
        assert_eq!(s[1].evidence[0].id, "r");
        // A strong vote still wins: ten hits at 0.6.
        let many: Vec<Voter<'_>> = (0..10).map(|_| Voter { id: "r", score: 0.6, actions: &rare }).collect();
        assert_eq!(suggest_with_prior(&many, &prior, 1)[0].kind, "SWAP_ARGUMENTS");
        // No classified document: the raw vote.
        assert_eq!(suggest_with_prior(&hits, &ActionPrior::default(), 5), suggest(&hits, 5));
    }

    #[test]
    fn evidence_is_capped_and_support_counts_all() {
        let g = fa("ADD_GUARD");
        let ids: Vec<String> = (0..25).map(|i| format!("h{i}")).collect();
        let hits: Vec<Voter<'_>> = ids.iter().map(|id| Voter { id, score: 0.5, actions: &g }).collect();
        let s = suggest(&hits, 5);
        assert_eq!((s[0].support, s[0].evidence.len()), (25, EVIDENCE));
        assert_eq!(s[0].evidence[0].id, "h0");
        assert!(s[0].line().starts_with("ADD_GUARD 1.00 (25 hits: h0, h1, h2, …)"), "{}", s[0].line());
    }

    #[test]
    fn negative_scores_fall_back_to_counts_and_examples_are_distinct() {
        let c = actions::classify("int f() { return a < b; }", "int f() { return a <= b; }", actions::Language::Java);
        let op = FixActions { action_label: c.label.as_str().into(), action_reason: None, actions: c.actions };
        let hits = [Voter { id: "x", score: -0.3, actions: &op }, Voter { id: "y", score: -0.4, actions: &op }];
        let s = suggest(&hits, 5);
        assert_eq!(s[0].share, 1.0);
        assert_eq!(s[0].examples.len(), 1, "{:?}", s[0].examples);
        assert!(
            s[0].line().starts_with("CHANGE_OPERATOR 1.00 (2 hits: x, y) e.g. change operator < → <="),
            "{}",
            s[0].line()
        );
    }
}
