//! The retrieval-guided order of the template candidates (issue 11 item 5): the actions of
//! similar historical fixes ([`crate::suggest`]) say which templates to try first, and their
//! concrete tokens which instances.
//!
//! # Rule
//! Every edit gets a tier and a score:
//! 1. **concrete** (tier 0): the edit replaces the tokens of an example action of a suggestion
//!    whose kind maps to the edit's template with that action's tokens (the text with
//!    whitespace removed: `<` → `<=`, `0` → `1`), e.g. the operator a hit changed to;
//! 2. **suggested** (tier 1): the edit's template realises a suggested kind ([`templates_for`]),
//!    and it is among the template's best `⌈action score · budget⌉` edits ([`quota`]; budget:
//!    the search's validation limit), so that a kind with a small share cannot spend the whole
//!    budget on a template with many instances (identifiers: hundreds);
//! 3. **rest** (tier 2): every other edit.
//!
//! Within tiers 0 and 1, edits go by `action score × suspiciousness`, descending, where the
//! action score of a template is `Σ share(kind) × w`, over the suggestions whose kind maps
//! to the template, `w` = 1 for the kind's first template and ½ for the others, and the
//! suspiciousness is the weight of the edit's line ([`Suspiciousness`]). Ties, and the
//! whole of tier 2, keep the default order ([`Template::ALL`], then source position). The
//! order is deterministic: it depends only on the edits, the suggestions and the weights.
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

/// The action score of each template under `suggestions` (see the module docs); templates
/// no suggestion maps to are absent.
#[must_use]
pub fn template_scores(suggestions: &[Suggestion]) -> BTreeMap<Template, f32> {
    let mut out = BTreeMap::new();
    for s in suggestions {
        for (i, t) in templates_for(&s.kind).iter().enumerate() {
            let w = if i == 0 { 1.0 } else { 0.5 };
            *out.entry(*t).or_insert(0.0) += s.share * w;
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

    /// The name the report gives: `uniform` or `sbfl`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Suspiciousness::Uniform => "uniform",
            Suspiciousness::Sbfl(_) => "sbfl",
        }
    }
}

/// The tier-1 places of a template with action score `score` in a search of `budget`
/// validations: `⌈score · budget⌉`, at least 1.
#[must_use]
pub fn quota(score: f32, budget: usize) -> usize {
    if budget == usize::MAX {
        return usize::MAX;
    }
    ((f64::from(score) * budget as f64).ceil() as usize).max(1)
}

/// Where an edit stands in the retrieval-guided order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// 0 concrete, 1 suggested, 2 rest (see the module docs).
    pub tier: u8,
    /// Action score × suspiciousness (0 in tier 2).
    pub score: f32,
}

/// The tier and score of `edit` under `suggestions` (scores from [`template_scores`]).
#[must_use]
pub fn rank(edit: &Edit, suggestions: &[Suggestion], scores: &BTreeMap<Template, f32>, sus: &Suspiciousness) -> Rank {
    let Some(score) = scores.get(&edit.template).copied().filter(|s| *s > 0.0) else {
        return Rank { tier: 2, score: 0.0 };
    };
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let (before, after) = (squash(&edit.original), squash(&edit.replacement));
    let concrete = suggestions.iter().filter(|s| templates_for(&s.kind).contains(&edit.template)).any(|s| {
        s.examples.iter().any(|a| !a.after.is_empty() && squash(&a.before) == before && squash(&a.after) == after)
    });
    Rank { tier: if concrete { 0 } else { 1 }, score: score * sus.weight(edit.line) }
}

/// The indexes of `edits` (given in the default order) in the retrieval-guided order, with
/// each suggested template's tier-1 edits capped at its quota for a search of `budget`
/// validations (see the module docs; `usize::MAX`: no cap). O(e log e) for e edits.
#[must_use]
pub fn order(edits: &[Edit], suggestions: &[Suggestion], sus: &Suspiciousness, budget: usize) -> Vec<usize> {
    let scores = template_scores(suggestions);
    let mut ranks: Vec<Rank> = edits.iter().map(|e| rank(e, suggestions, &scores, sus)).collect();
    // The quota: a template's best tier-1 edits keep their place, the others join tier 2.
    let mut by_score: Vec<usize> = (0..edits.len()).filter(|&i| ranks[i].tier == 1).collect();
    by_score.sort_by(|&a, &b| ranks[b].score.partial_cmp(&ranks[a].score).unwrap_or(Ordering::Equal));
    let mut used: BTreeMap<Template, usize> = BTreeMap::new();
    for i in by_score {
        let t = edits[i].template;
        let quota = quota(scores.get(&t).copied().unwrap_or(0.0), budget);
        let n = used.entry(t).or_default();
        if *n >= quota {
            ranks[i] = Rank { tier: 2, score: 0.0 };
        }
        *n += 1;
    }
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

    #[test]
    fn concrete_tokens_first_then_suggested_templates_by_share_then_the_default_order() {
        let s = vec![
            suggestion("CHANGE_IDENTIFIER", 0.5, vec![]),
            suggestion("CHANGE_OPERATOR", 0.3, vec![action(ActionKind::ChangeOperator, "<", "<=")]),
            suggestion("CHANGE_LITERAL", 0.2, vec![]),
        ];
        let o = order(&edits(), &s, &Suspiciousness::Uniform, usize::MAX);
        // `<` → `<=` (concrete), the identifier (0.5), the other operator (0.3), then the
        // unsuggested templates in the default order.
        assert_eq!(o, vec![1, 5, 0, 2, 3, 4]);
    }

    #[test]
    fn secondary_templates_weigh_half_and_no_suggestion_keeps_the_default_order() {
        // CHANGE_NUMERAL 0.6: numerals 0.6, operands 0.3; DELETE_STATEMENT 0.4.
        let s = vec![suggestion("CHANGE_NUMERAL", 0.6, vec![]), suggestion("DELETE_STATEMENT", 0.4, vec![])];
        let scores = template_scores(&s);
        assert_eq!(scores.get(&Template::ChangeOperand), Some(&0.3));
        assert_eq!(order(&edits(), &s, &Suspiciousness::Uniform, usize::MAX), vec![3, 4, 2, 0, 1, 5]);
        assert_eq!(order(&edits(), &[], &Suspiciousness::Uniform, usize::MAX), vec![0, 1, 2, 3, 4, 5]);
        // Kinds no template realises change nothing.
        let other = vec![suggestion("ADD_METHOD_CALL", 1.0, vec![])];
        assert_eq!(order(&edits(), &other, &Suspiciousness::Uniform, usize::MAX), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_small_share_gets_a_small_quota_of_the_budget() {
        let mut many: Vec<Edit> = vec![edit(Template::ChangeOperator, 0, "<", "<=", 1)];
        many.extend((0..30).map(|i| edit(Template::ChangeIdentifier, 10 + i, "a", "b", 2)));
        let s = vec![suggestion("CHANGE_IDENTIFIER", 0.25, vec![]), suggestion("CHANGE_LITERAL", 0.75, vec![])];
        assert_eq!(quota(0.25, 20), 5);
        assert_eq!(quota(0.01, 20), 1);
        // Budget 20: five identifier edits, then the default order (the operator, the rest).
        let o = order(&many, &s, &Suspiciousness::Uniform, 20);
        assert_eq!(&o[..7], &[1, 2, 3, 4, 5, 0, 6]);
        assert_eq!(o.len(), 31);
    }

    #[test]
    fn sbfl_scores_reorder_within_a_suggested_template() {
        let s = vec![suggestion("CHANGE_OPERATOR", 1.0, vec![]), suggestion("CHANGE_NUMERAL", 0.5, vec![])];
        // Line 5 (the numeral) is the most suspicious: 0.5 × 1 beats 1 × 0.1 (line 3 has no score).
        let sus = Suspiciousness::Sbfl(BTreeMap::from([(5, 0.8), (6, 0.4)]));
        assert!((sus.weight(5) - 1.0).abs() < 1e-6 && (sus.weight(6) - 0.55).abs() < 1e-6);
        assert!((sus.weight(3) - 0.1).abs() < 1e-6);
        assert_eq!(order(&edits(), &s, &sus, usize::MAX), vec![3, 0, 1, 2, 4, 5]);
        assert_eq!(sus.name(), "sbfl");
    }
}
