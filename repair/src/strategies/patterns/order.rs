//! The retrieval-guided order of the template candidates (issue 11 item 5): the actions of
//! similar historical fixes ([`crate::suggest`]), mixed with how often each action fixes a
//! bug in the whole index (the prior), say which templates to try first, and the hits'
//! concrete tokens which instances.
//!
//! # Rule
//! The probability that template `t` makes the fix is estimated as
//! `p(t) = ½ · vote(t) + ½ · prior(t)`, where `vote(t) = Σ share(kind) · w` over the
//! suggestions whose kind maps to `t` (the table below; `w` = 1 for the kind's first
//! template and ½ for the others) and `prior(t)` is the same sum over the index's label
//! shares ([`crate::rank::CorpusStats::prior`]). The vote alone is noisy (its action@1 on the
//! harness is below the constant prior's, README "Ranking and action suggestions"), the
//! prior alone is the same for every bug; the mixture weight ½ is fixed, not fitted.
//! A template with `n(t)` instances in the method gives each of them `p(t) / n(t)`: the order
//! by that, times the suspiciousness of the edit's line ([`Suspiciousness`]), is the one that
//! minimises the expected number of validations until the fix when exactly one instance is
//! it (the classic cost-aware search order: try the likeliest per unit of cost first), so a
//! template with hundreds of instances (identifiers) cannot spend the budget before a likely
//! template with three.
//!
//! Every edit gets a tier:
//! 1. **concrete** (tier 0): the edit replaces the tokens of an example action of a suggestion
//!    whose kind maps to the edit's template with that action's tokens (the text with
//!    whitespace removed: `<` → `<=`, `0` → `1`), e.g. the operator a hit changed to;
//! 2. **scored** (tier 1): `p(t) > 0`;
//! 3. **rest** (tier 2): every other edit.
//!
//! Within tiers 0 and 1, edits go by `p(t) / n(t) × suspiciousness`, descending. Ties, and the
//! whole of tier 2, keep the default order ([`Template::ALL`], then source position). The
//! order is deterministic: it depends only on the edits, the suggestions, the prior and the
//! weights.
//!
//! # Action kinds → templates
//! | action kind | templates (first: weight 1, others ½) |
//! |---|---|
//! | `CHANGE_OPERATOR` | ChangeOperator |
//! | `CHANGE_UNARY_OPERATOR` | ChangeUnaryOperator |
//! | `CHANGE_OPERAND` | ChangeOperand, ChangeIdentifier, SwapOperands |
//! | `CHANGE_LOOP_BOUND` | ChangeOperand, ChangeOperator, ChangeNumeral |
//! | `CHANGE_NUMERAL` | ChangeNumeral, ChangeOperand |
//! | `CHANGE_IDENTIFIER` | ChangeIdentifier |
//! | `SWAP_ARGUMENTS` | SwapArguments, SwapOperands |
//! | `DIFFERENT_METHOD_SAME_ARGS` | DifferentMethod |
//! | `CHANGE_CALLER` | ChangeIdentifier |
//! | `MORE_SPECIFIC_IF`, `LESS_SPECIFIC_IF` | ChangeOperator, AddNullCheck, ChangeUnaryOperator |
//! | `ADD_NULL_CHECK` | AddNullCheck, AddGuard |
//! | `ADD_GUARD` | AddGuard, AddNullCheck, ChangeUnaryOperator |
//! | `WRAP_TRY_CATCH` | WrapTryCatch |
//! | `DELETE_STATEMENT` | DeleteStatement |
//! | `REMOVE_METHOD_CALL` | UnwrapCall, DeleteStatement |
//! | `CHANGE_RETURN_VALUE` | ChangeOperand, ChangeNumeral, ChangeIdentifier, UnwrapCall |
//! | any other (`CHANGE_LITERAL`, `ADD_METHOD_CALL`, `INSERT_STATEMENT`, …) | none: no template realises it |

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::suggest::Suggestion;

use super::templates::{Edit, Template};

/// The templates that realise the action kind `kind` (its JSON name), the most direct
/// first (see the module's table); empty for a kind no template realises.
#[must_use]
pub fn templates_for(kind: &str) -> &'static [Template] {
    use Template::*;
    match kind {
        "CHANGE_OPERATOR" => &[ChangeOperator],
        "CHANGE_UNARY_OPERATOR" => &[ChangeUnaryOperator],
        "CHANGE_OPERAND" => &[ChangeOperand, ChangeIdentifier, SwapOperands],
        "CHANGE_LOOP_BOUND" => &[ChangeOperand, ChangeOperator, ChangeNumeral],
        "CHANGE_NUMERAL" => &[ChangeNumeral, ChangeOperand],
        "CHANGE_IDENTIFIER" => &[ChangeIdentifier],
        "SWAP_ARGUMENTS" => &[SwapArguments, SwapOperands],
        "DIFFERENT_METHOD_SAME_ARGS" => &[DifferentMethod],
        "CHANGE_CALLER" => &[ChangeIdentifier],
        "MORE_SPECIFIC_IF" | "LESS_SPECIFIC_IF" => &[ChangeOperator, AddNullCheck, ChangeUnaryOperator],
        "ADD_NULL_CHECK" => &[AddNullCheck, AddGuard],
        "ADD_GUARD" => &[AddGuard, AddNullCheck, ChangeUnaryOperator],
        "WRAP_TRY_CATCH" => &[WrapTryCatch],
        "DELETE_STATEMENT" => &[DeleteStatement],
        "REMOVE_METHOD_CALL" => &[UnwrapCall, DeleteStatement],
        "CHANGE_RETURN_VALUE" => &[ChangeOperand, ChangeNumeral, ChangeIdentifier, UnwrapCall],
        _ => &[],
    }
}

/// The vote of the suggestions for each template, `vote(t)` of the module docs; templates
/// no suggestion maps to are absent.
#[must_use]
pub fn template_scores(suggestions: &[Suggestion]) -> BTreeMap<Template, f32> {
    spread(suggestions.iter().map(|s| (s.kind.as_str(), s.share)))
}

/// `Σ share(kind) · w` per template over `(kind, share)` pairs, `w` = 1 for the kind's first
/// template and ½ for the others (the module's table).
fn spread<'k>(shares: impl Iterator<Item = (&'k str, f32)>) -> BTreeMap<Template, f32> {
    let mut out = BTreeMap::new();
    for (kind, share) in shares {
        for (i, t) in templates_for(kind).iter().enumerate() {
            let w = if i == 0 { 1.0 } else { 0.5 };
            *out.entry(*t).or_insert(0.0) += share * w;
        }
    }
    out
}

/// How suspicious each line of the localized code is, a weight in (0, 1].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Suspiciousness {
    /// Perfect localization: every line of the method weighs 1 (the fault is somewhere in
    /// it, and nothing says where).
    #[default]
    Uniform,
    /// SBFL line scores (Ochiai, [`crate::fl`]) of the buggy file, by 1-based line: a line
    /// weighs `0.1 + 0.9 · score / max`, `max` the highest score among the given lines; a
    /// line without a score weighs 0.1 (SBFL cannot see a missing statement).
    Sbfl(BTreeMap<usize, f64>),
}

impl Suspiciousness {
    /// The weight of 1-based `line`.
    #[must_use]
    pub fn weight(&self, line: usize) -> f32 {
        match self {
            Suspiciousness::Uniform => 1.0,
            Suspiciousness::Sbfl(scores) => {
                let max = scores.values().copied().fold(0.0f64, f64::max);
                let s = scores.get(&line).copied().unwrap_or(0.0);
                if max > 0.0 { (0.1 + 0.9 * s / max) as f32 } else { 1.0 }
            }
        }
    }

    /// The most suspicious line within `lines` (1-based, inclusive), the first of equals;
    /// `None` for uniform suspiciousness or when no line there has a score.
    #[must_use]
    pub fn top_line(&self, lines: (usize, usize)) -> Option<usize> {
        let Suspiciousness::Sbfl(scores) = self else { return None };
        let mut best: Option<(usize, f64)> = None;
        for (line, s) in scores.range(lines.0..=lines.1) {
            if *s > 0.0 && best.is_none_or(|(_, b)| *s > b) {
                best = Some((*line, *s));
            }
        }
        best.map(|(line, _)| line)
    }

    /// The name the report gives: `uniform` or `sbfl`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Suspiciousness::Uniform => "uniform",
            Suspiciousness::Sbfl(_) => "sbfl",
        }
    }
}

/// Where an edit stands in the retrieval-guided order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// 0 concrete, 1 scored, 2 rest (see the module docs).
    pub tier: u8,
    /// `p(t) / n(t)` × suspiciousness (0 in tier 2).
    pub score: f32,
}

/// `p(t)` of every template under `suggestions` and the index's label shares `prior`
/// (kind → share; see the module docs); templates with `p(t) = 0` are absent.
#[must_use]
pub fn template_probabilities(suggestions: &[Suggestion], prior: &BTreeMap<String, f32>) -> BTreeMap<Template, f32> {
    let vote = template_scores(suggestions);
    let base = spread(prior.iter().map(|(k, v)| (k.as_str(), *v)));
    let mut out = BTreeMap::new();
    for t in Template::ALL {
        let p = 0.5 * vote.get(&t).copied().unwrap_or(0.0) + 0.5 * base.get(&t).copied().unwrap_or(0.0);
        if p > 0.0 {
            out.insert(t, p);
        }
    }
    out
}

/// Whether `edit` makes a concrete action of a suggestion whose kind maps to its template.
fn concrete(edit: &Edit, suggestions: &[Suggestion]) -> bool {
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let (before, after) = (squash(&edit.original), squash(&edit.replacement));
    suggestions.iter().filter(|s| templates_for(&s.kind).contains(&edit.template)).any(|s| {
        s.examples.iter().any(|a| !a.after.is_empty() && squash(&a.before) == before && squash(&a.after) == after)
    })
}

/// The indexes of `edits` (given in the default order) in the retrieval-guided order under
/// `suggestions` and the index's label shares `prior` (see the module docs). O(e log e) for
/// e edits.
#[must_use]
pub fn order(
    edits: &[Edit],
    suggestions: &[Suggestion],
    prior: &BTreeMap<String, f32>,
    sus: &Suspiciousness,
) -> Vec<usize> {
    let p = template_probabilities(suggestions, prior);
    let mut count: BTreeMap<Template, usize> = BTreeMap::new();
    for e in edits {
        *count.entry(e.template).or_default() += 1;
    }
    let ranks: Vec<Rank> = edits
        .iter()
        .map(|e| match p.get(&e.template) {
            Some(pt) => {
                let per = pt / count[&e.template] as f32 * sus.weight(e.line);
                Rank { tier: if concrete(e, suggestions) { 0 } else { 1 }, score: per }
            }
            None => Rank { tier: 2, score: 0.0 },
        })
        .collect();
    let mut idx: Vec<usize> = (0..edits.len()).collect();
    // A stable sort: equal keys keep the default order.
    idx.sort_by(|&a, &b| {
        let (ra, rb) = (ranks[a], ranks[b]);
        ra.tier.cmp(&rb.tier).then_with(|| rb.score.partial_cmp(&ra.score).unwrap_or(Ordering::Equal))
    });
    idx
}

#[cfg(test)]
mod tests {
    use actions::{Action, ActionKind};

    use super::*;
    use crate::suggest::Evidence;

    fn edit(template: Template, start: usize, original: &str, replacement: &str, line: usize) -> Edit {
        Edit {
            template,
            start,
            end: start + original.len(),
            original: original.into(),
            replacement: replacement.into(),
            line,
            summary: String::new(),
        }
    }

    fn suggestion(kind: &str, share: f32, examples: Vec<Action>) -> Suggestion {
        let evidence = vec![Evidence { id: format!("{kind}-hit"), rank: 1, score: share }];
        Suggestion { kind: kind.into(), share, support: 1, evidence, examples }
    }

    fn action(kind: ActionKind, before: &str, after: &str) -> Action {
        Action {
            kind,
            before: before.into(),
            after: after.into(),
            enclosing: "for_statement".into(),
            field: Some("condition".into()),
            buggy_lines: (1, 1),
            fixed_lines: (1, 1),
        }
    }

    /// The default order of a small method's edits: operators, operands, numerals, deletes,
    /// identifiers.
    fn edits() -> Vec<Edit> {
        vec![
            edit(Template::ChangeOperator, 10, "<", ">", 3),
            edit(Template::ChangeOperator, 10, "<", "<=", 3),
            edit(Template::ChangeOperand, 12, "n", "n + 1", 3),
            edit(Template::ChangeNumeral, 30, "0", "1", 5),
            edit(Template::DeleteStatement, 40, "log(x);", "", 6),
            edit(Template::ChangeIdentifier, 50, "a", "b", 7),
        ]
    }

    fn prior(pairs: &[(&str, f32)]) -> BTreeMap<String, f32> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), *v)).collect()
    }

    #[test]
    fn concrete_tokens_first_then_probability_per_instance_then_the_default_order() {
        let s = vec![
            suggestion("CHANGE_IDENTIFIER", 0.5, vec![]),
            suggestion("CHANGE_OPERATOR", 0.3, vec![action(ActionKind::ChangeOperator, "<", "<=")]),
            suggestion("CHANGE_LITERAL", 0.2, vec![]),
        ];
        // p: identifier ½·0.5 = 0.25 (one instance), operator ½·0.3 = 0.15 (two: 0.075 each).
        let o = order(&edits(), &s, &BTreeMap::new(), &Suspiciousness::Uniform);
        // `<` → `<=` (concrete), the identifier, the other operator, then the unscored
        // templates in the default order.
        assert_eq!(o, vec![1, 5, 0, 2, 3, 4]);
    }

    #[test]
    fn the_prior_is_mixed_in_and_secondary_templates_weigh_half() {
        // Vote: numerals ½·0.6, operands ½·½·0.6; prior: deletes ½·1.0 (one instance).
        let s = vec![suggestion("CHANGE_NUMERAL", 0.6, vec![])];
        let p = template_probabilities(&s, &prior(&[("DELETE_STATEMENT", 1.0)]));
        assert!((p[&Template::ChangeNumeral] - 0.3).abs() < 1e-6 && (p[&Template::ChangeOperand] - 0.15).abs() < 1e-6);
        assert!((p[&Template::DeleteStatement] - 0.5).abs() < 1e-6);
        assert!(!p.contains_key(&Template::ChangeOperator));
        let o = order(&edits(), &s, &prior(&[("DELETE_STATEMENT", 1.0)]), &Suspiciousness::Uniform);
        assert_eq!(o, vec![4, 3, 2, 0, 1, 5]);
        // Kinds no template realises change nothing.
        let other = vec![suggestion("ADD_METHOD_CALL", 1.0, vec![])];
        assert_eq!(order(&edits(), &other, &BTreeMap::new(), &Suspiciousness::Uniform), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_template_with_many_instances_waits_for_a_likely_one_with_few() {
        let mut many: Vec<Edit> = vec![edit(Template::ChangeOperator, 0, "<", "<=", 1)];
        many.extend((0..30).map(|i| edit(Template::ChangeIdentifier, 10 + i, "a", "b", 2)));
        // Identifiers 0.75 of the vote but 30 instances (0.0125 each); the operator only
        // in the prior, 0.2 (0.1 for its one instance).
        let s = vec![suggestion("CHANGE_IDENTIFIER", 0.75, vec![])];
        let o = order(&many, &s, &prior(&[("CHANGE_OPERATOR", 0.2)]), &Suspiciousness::Uniform);
        assert_eq!(o[0], 0);
        assert_eq!(&o[1..4], &[1, 2, 3]);
        assert_eq!(o.len(), 31);
    }

    #[test]
    fn sbfl_scores_reorder_within_a_suggested_template() {
        let s = vec![suggestion("CHANGE_OPERATOR", 1.0, vec![]), suggestion("CHANGE_NUMERAL", 0.5, vec![])];
        // Line 5 (the numeral) is the most suspicious: ½·0.5 × 1 beats ½·1 / 2 × 0.1 for
        // each operator (line 3 has no score).
        let sus = Suspiciousness::Sbfl(BTreeMap::from([(5, 0.8), (6, 0.4)]));
        assert!((sus.weight(5) - 1.0).abs() < 1e-6 && (sus.weight(6) - 0.55).abs() < 1e-6);
        assert!((sus.weight(3) - 0.1).abs() < 1e-6);
        assert_eq!(order(&edits(), &s, &BTreeMap::new(), &sus), vec![3, 0, 1, 2, 4, 5]);
        assert_eq!(sus.name(), "sbfl");
        assert_eq!(sus.top_line((1, 10)), Some(5));
        assert_eq!(sus.top_line((6, 10)), Some(6));
        assert_eq!(sus.top_line((7, 10)), None);
        assert_eq!(Suspiciousness::Uniform.top_line((1, 10)), None);
    }
}
