//! The order of the template candidates (issue 11 item 5): a prior over templates fitted on a
//! corpus split, the templates that reproduce similar historical fixes, and those fixes'
//! concrete edits say which candidates to validate first.
//!
//! # Rule (v3)
//! Each similar fix (a retrieved hit) is replayed through the templates: when one template edit
//! of its buggy code gives its fixed code, the hit is a [`HitEdit`] of that template with that
//! edit's tokens ([`super::templates::snippet_edits`], [`super::templates::fixing_edit`]). The
//! probability that template `t` makes the query's fix is estimated as
//! `p(t) = α · vote(t) + (1 − α) · prior(t)`, where `vote(t)` is the hits' cosine weight on `t`
//! over their total (0 without such hits) and `prior(t)` the add-one-smoothed share of `t`
//! among the pairs of a corpus split that one template edit fixes ([`TEMPLATE_FIXES`]). A
//! template with `n(t)` instances in the method gives each of them `p(t) / n(t)`: the order by
//! that, times the suspiciousness of the edit's line ([`LineWeights`]), minimises the
//! expected number of validations until the fix when exactly one instance is it (the classic
//! cost-aware search order: likeliest per unit of cost first), so a template with hundreds of
//! instances (identifiers) cannot spend the budget before a likely template with three.
//!
//! Edits that make a hit's own edit (same template, same tokens with whitespace removed: `<` →
//! `<=`, `0` → `1`) come first (tier 0), then every other edit (tier 1); within a tier by
//! `p(t) / n(t) × suspiciousness`, descending; ties keep the default order ([`Template::ALL`],
//! then source position), ties that hold in exact arithmetic included (`tie_key`: scores a
//! few rounding steps apart tie, so a refitted prior cannot flip them). Without retrieval (`--no-retrieval`, or no hit a template reproduces)
//! there is no tier 0 and `p(t)` is the prior alone: the fixed order of the ablation.
//! Deterministic: it depends only on the edits, the hits and the suspiciousness.
//!
//! # Where the numbers come from
//! `scripts/patterns-order.py` over `repair/examples/patterns_order.rs` ranks the fixing edit
//! of every pair one template edit fixes, with no test run, in two disjoint splits of the
//! shared corpus (FNV-1a(id) mod 5 = 0 to fit, = 1 to test; QuixBugs, Defects4J and BugsInPy
//! never read; the abstracted CodeXGLUE pairs left out, their `VAR_1` identifiers are nothing
//! fixdex repairs). On the fit split (420 pairs) α ∈ {0, 0.1, 0.25, 0.5, 0.75, 1} gave mean
//! log2 rank 3.96, **3.92**, 3.94, 3.94, 3.96, 4.11 (the default order: 4.75), so α = 0.1
//! ([`VOTE_WEIGHT`]). On the test split (367 pairs): median rank 13 [11, 18] vs 28 [23, 32] for
//! the default order, 208 pairs ranked earlier and 128 later (sign test p < 10⁻⁴); the prior
//! without the hits (the `--no-retrieval` order) 19 [15, 26]. On its AtCoder ConDefects pairs,
//! the nearest to QuixBugs, 23 vs 32 (default) and 33 (prior alone): there the hits' own edits
//! are what helps. Replaced rule v2 (the hits' action labels through a kind → template table,
//! mixed with the index's label shares), whose median on the test split was 33: labels say what
//! kind of edit a fix made, not whether a template reproduces it.
//!
//! **Prior v4 (issue 32).** With TBar's missing families added (24 templates), identifier
//! types read by scope and members' names left out of the identifier template, one template
//! edit fixes 547 pairs of the fit split (was 420) and 471 of the test split (was 367);
//! [`TEMPLATE_FIXES`] are the fit split's new counts (the literal template alone fixes 52, the
//! condition template 20, a moved statement 17). Refitted
//! without an index (`patterns_order` with no `--index`: the prior needs no retrieval), so
//! α = 0.1 is v3's, fitted with the 13 templates. On the test split the prior's order ranks
//! the fixing edit at median 30 [22, 36] (the default order: 37 [31, 50]; 247 pairs earlier
//! and 199 later, sign test p = 0.026), within the 200-candidate budget for 88 % of the 471
//! pairs; on its mined_git_history pairs (Apache and Google Java, the nearest to Defects4J),
//! 16 [11, 25].
//!
//! **Prior v5 (issue 32).** The delete template removes any statement of a block (an `if`
//! with its `else`, a loop, a jump; TBar FP15), not only a one-line call. One template edit
//! now fixes 568 pairs of the fit split (was 540 with the same code before it; the delete
//! template 54, was 26) and 485 of the test split (was 461); none is lost. The new fixes are
//! mostly a deleted `if` (19 of the test split's 24), in mined_git_history. [`TEMPLATE_FIXES`]
//! are the refitted counts. On the test split the prior's order ranks the fixing edit within
//! the 200-candidate budget for 437 of 485 pairs, where the v4 code reaches 412; the pairs
//! both fix rank a little later (median 28 → 31, 36 earlier and 235 later: the extra delete
//! candidates). Command: `patterns_order` with no `--index` on splits 0/5 and 1/5 of
//! manysstubs4j, condefects, mined_git_history and gitbug_java, then
//! `scripts/patterns-order.py --fit split0 --test split1`.
//!
//! **Prior v6 (issue 32).** With a name or an arithmetic expression replaced by a literal
//! ([`Template::ReplaceWithLiteral`], 27 templates), one template edit fixes 574 pairs of the
//! fit split (was 568; the new template 6) and 492 of the test split (was 485).
//! [`TEMPLATE_FIXES`] are the refitted counts. The prior's order ranks the fixing edit within
//! the 200-candidate budget for 442 test-split pairs (was 437: 5 gained, none lost); the pairs
//! both reach rank a little later (2 earlier, 32 later: the new candidates). Fitted the
//! other way round (on split 1, measured on split 0): 520 within 200 (was 515; 5 gained, none
//! lost). Together 10 gained and 0 lost, McNemar exact p = 0.002. Same commands as v5.
//!
//! **Prior v7 (issue 32).** With a jump made another ([`Template::MutateJump`], 28
//! templates), and the project-free template changes since v6 (more `String` methods for
//! [`Template::DifferentMethod`]: 22 fixes, was 19), one template edit fixes 582 pairs of the
//! fit split (the new template 5) and 497 of the test split (4 more than the same code without
//! it). Against that code, each fitted on its own fit split (`patterns_order` as v5 with the
//! code before and after, then `scripts/patterns-order.py --fit NEW0 --test NEW1 --against
//! OLD0 OLD1`, and the splits the other way round): the pairs ranked within 200 go 442 → 444
//! on the test split (3 gained, 1 lost) and 523 → 527 the other way round (5 gained, 1 lost):
//! 8 gained and 2 lost, McNemar exact p = 0.11 (not significant: the template is rare in the
//! corpus); 132 of the pairs both fix move, by a median of 2 ranks (the new candidates), 131
//! of them later.
//!
//! **Prior v8 (issue 32).** [`Template::ChangeUnaryOperator`] negates a condition as a
//! developer writes it (`(!status.isDir())`, was `(!(status.isDir()))`, equal to the fix only
//! up to parentheses) and negates an operand of `&&` / `||` that is a call, name or field
//! (`a != null && !a.isEmpty()`). One template edit fixes 597 pairs of the fit split (was
//! 582; that template 23, was 8) and 506 of the test split (was 497). Against v7's code and
//! prior (same commands): within 200, 444 → 453 on the test split (9 gained, 0 lost, McNemar
//! exact p = 0.004) and 527 → 541 the other way round (14 gained, 0 lost, p = 0.0001); the
//! rewritten negation alone gave 7 and 6 of them, the operand negation 2 and 8; 180 of the
//! pairs both fix move, by a median of 2 ranks (26 earlier).
//!
//! **Prior v9 (issue 32).** [`Template::ChangeOperand`] also drops an integer offset (`depth -
//! 1` → `depth`, `i < n - 1` → `i < n`), the inverse of its `± 1`: one template edit fixes
//! 616 pairs of the fit split (was 597; that template 54, was 35) and 533 of the test split
//! (was 506). Against v8's code and prior (same commands): within 200, 453 → 479 on the test
//! split (26 gained, 0 lost, McNemar exact p = 3e-8) and 541 → 559 the other way round (19
//! gained, 1 lost, p = 4e-5); on the test split 18 of the 26 are ConDefects'
//! AtCoder submissions and 7 ManySStuBs4J's; 89 of the pairs both fix move, by a median of 3 ranks.
//!
//! **Prior v10 (issue 32).** With Java's `a == b` between objects made `a.equals(b)`
//! ([`Template::ObjectEquality`], 29 templates): one template edit fixes 625 pairs of the fit
//! split (was 616; the new template 9) and 540 of the test split (was 533). Against v9's code
//! and prior (same commands): within 200, 479 → 486 on the test split (7 gained, 0 lost,
//! McNemar exact p = 0.016) and 559 → 568 the other way round (9 gained, 0 lost, p = 0.004);
//! only 19 of the pairs both fix move (by a median of 1 rank): the template rarely applies.
//!
//! **Prior v11 (issue 32).** With a used zero-argument call dropped (`e.getMessage()` → `e`;
//! [`Template::DropCall`], 30 templates): one template edit fixes 646 pairs of the fit split
//! (was 625; the new template 21) and 555 of the test split (was 540). Against v10's code and
//! prior (same commands): within 200, 486 → 501 on the test split (15 gained, 0 lost, McNemar
//! exact p = 6e-5) and 568 → 586 the other way round (21 gained, 3 lost, p = 3e-4); the pairs
//! both fix move later by a median of 2 ranks (256 and 297 of them: getters are common).
//!
//! **Prior v12 (issue 32).** [`Template::AddNullCheck`] writes its test as developers do
//! (`r != null && r.get(k) != null`, was `r != null && (r.get(k) != null)`: equal to the fix
//! only up to parentheses, so the corpus never counted it) and also before a boolean value
//! outside an `if` (`return in != null && in.markSupported()`, `boolean ok = m != null &&
//! …`). One template edit fixes 652 pairs of the fit split (was 646; that template 15, was 9)
//! and 560 of the test split (was 555). Against v11's code and prior (same commands): within
//! 200, 501 → 505 on the test split (4 gained, 0 lost) and 586 → 592 the other way round (6
//! gained, 0 lost): 10 gained and 0 lost, McNemar exact p = 0.002; 57 and 59 of the pairs
//! both fix move, by a median of 4 and 2 ranks.
//!
//! **Prior v13 (issue 32).** [`Template::ChangeOperand`] offsets an arithmetic operand
//! without parentheses (`a * 2 + 1 == b`, `f(sumA - sumB + 1)`, `-m + 1`; was `(a * 2) + 1`:
//! equal to the fix only up to parentheses); a shift or a ternary keeps them. One template
//! edit fixes 658 pairs of the fit split (was 652; that template 60, was 54) and 565 of the
//! test split (was 560). Against v12's code and prior (same commands): within 200, 505 → 509
//! on the test split (4 gained, 0 lost) and 592 → 597 the other way round (6 gained, 1
//! lost): 10 gained and 1 lost, McNemar exact p = 0.012; nearly all ConDefects' AtCoder
//! submissions. Tried and not kept, by the same measurement: offsetting products and
//! quotients in arguments (2 gained, 1 lost) and returned, assigned or initialised integer
//! values (`return pos` → `return pos + 1`: 4 gained, 4 lost; the extra candidates push
//! others out of the budget).
//!
//! **Prior v14 (issue 32).** With a cast removed (`(String) x.get(k)` → `x.get(k)`;
//! [`Template::RemoveCast`], 31 templates): one template edit fixes 672 pairs of the fit split
//! (was 658; the new template 14) and 576 of the test split (was 565). Against v13's code and
//! prior (same commands): within 200, 509 → 520 on the test split (11 gained, 0 lost,
//! McNemar exact p = 0.001) and 597 → 611 the other way round (14 gained, 0 lost, p =
//! 0.0001); 15 of the 25 gained are Apache Camel's (ManySStuBs4J), the other 10 from 8
//! projects (commons-lang, closure-compiler, jackson-databind, mockito, checkstyle,
//! activiti, …): without Camel still 10 gained, 0 lost. 48 and 46 of the pairs both fix
//! move, by a median of 1.5 and 1 ranks.
//!
//! **Prior v15 (issue 32).** With a jump a sibling branch ends with inserted where a branch
//! lacks it ([`Template::InsertMissedJump`], 32 templates; the missing `break` of a `switch`
//! group): one template edit still fixes 672 pairs of the fit split (the new template none),
//! so its count is 0 and the other shares only rescale (703 → 704). Its instances are rare
//! (a branch's last statement with a sibling ending in `break`, `continue` or `return`): over
//! all five splits of the corpus (`patterns_order` with no `--index`, the code before and
//! after), it fixes 1 pair (jackson-databind's `deserializeArray`, rank 101), 24 pairs move
//! later by a median of 1 rank, and 1 pair leaves the 200-candidate budget (ConDefects
//! abc321_c, 184 → 245): not the new edits but a tie. Its data-type edit and 61 operand
//! edits all score 1/704 in exact arithmetic; f32 had put the data-type edits first at 703
//! and puts them after at 704. Ties in exact arithmetic now keep the default order whatever
//! the denominators (`tie_key`, scores in f64; against the same code comparing f32 scores
//! bit for bit, 2 pairs earlier and none later). `scripts/patterns-order.py` reproduces
//! all 576 shipped ranks of the test split. Kept although the corpus gain is 1 pair: the edit is TBar's FP4 for jumps, it
//! costs little where it does not apply, and a fall-through `case` is a classic bug. It was
//! written after reading Defects4J Cli-17's miss (a `break` an `else if` lacks), so its gain
//! there (README) is optimistic.
//!
//! **Prior v16 (issue 32).** With a hash collection made insertion-ordered
//! ([`Template::OrderedCollection`]) and a NaN check after a `double`/`float` local
//! ([`Template::InsertNanChecker`]), 34 templates: one template edit still fixes 672 pairs of
//! the fit split and 576 of the test split (neither new template fixes one), so both counts
//! are 0 and the other shares only rescale (704 → 706). Against v15's code (same commands,
//! both ways round): 0 pairs gained or lost within 200 candidates; 1 pair of the 1,248 moves,
//! by 1 rank (manysstubs4j:18084, 532 → 533). The corpus cannot show their gain: its snippets
//! are methods, without the imports an ordered collection changes, and its `isNaN` fixes
//! mostly throw or return values the method never names. Both were written after reading
//! Defects4J misses (Cli-7's `HashSet`, JxPath-8's NaN comparison), so their gain there
//! (README) is optimistic; the sources in their docs are why they are general.
//!
//! **Prior v17 (issue 32).** A deleted `return`, `throw` or `raise` is its own template
//! ([`Template::DeleteExit`], 35 templates), so it no longer takes the share of any deleted
//! statement: 2 of the delete template's 54 fixes on the fit split delete an exit (two
//! `return;`), none of the test split's 48, while exits are 6 % of the deletion candidates
//! (928 of 15,204 in the two splits' pairs). Against v16's code (same commands, both ways round): within 200 candidates 520 → 520
//! on the test split (0 gained, 0 lost) and 611 → 610 the other way round (0 gained, 1 lost:
//! a numeral fix at rank 200 → 201, passed by other deletions, whose share per instance
//! grew); of the pairs both fix, 230 move, 188 of them earlier (by a median of 2 ranks; sign
//! test p < 10⁻²⁰): the fixing edit comes sooner. Chosen also because a plausible patch that
//! deletes an exit is rarely the fix (Tan et al., FSE 2016; Defects4J JxPath-20 and JxPath-22,
//! `docs/defects4j-needs-review.md`).

use std::collections::BTreeMap;

use crate::fl::LineWeights;

use serde::Serialize;

use super::templates::{Edit, Template, squash};
use crate::Language;
use crate::retrieve::SimilarFix;

/// The weight α of the hits' template vote against the prior (module docs).
pub const VOTE_WEIGHT: f32 = 0.1;

/// Pairs of the fit split (module docs, prior v17: 672 pairs) that each template fixes, in the
/// order of [`Template::ALL`]: the prior is `(count + 1) / (672 + 35)`. The last two,
/// [`Template::Transplant`] and [`Template::TwoEdits`], are 0: [`super::templates::edits`]
/// makes neither (transplants are ordered before every template edit, [`super::transplant`],
/// and two-edit candidates after, [`super::pairs`]); their add-one shares only scale the
/// others' by 705/707, which keeps their order.
pub const TEMPLATE_FIXES: [u32; Template::ALL.len()] = [
    137, 60, 100, 23, 11, 4, 22, 52, 7, 0, 15, 0, 52, 20, 10, 9, 1, 1, 12, 1, 0, 0, 17, 5, 6, 61, 9, 21, 14, 0, 0, 0,
    2, 0, 0,
];

/// `prior(t)` of the module docs, in (0, 1); the shares sum to 1.
#[must_use]
pub fn prior(t: Template) -> f32 {
    prior_f64(t) as f32
}

/// [`prior`] in f64, as [`order`] compares scores.
fn prior_f64(t: Template) -> f64 {
    let total: u32 = TEMPLATE_FIXES.iter().sum::<u32>() + Template::ALL.len() as u32;
    let i = Template::ALL.iter().position(|x| *x == t).unwrap_or(0);
    f64::from(TEMPLATE_FIXES[i] + 1) / f64::from(total)
}

/// A similar fix that one template edit reproduces.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HitEdit {
    /// Document id of the hit.
    pub id: String,
    /// Its cosine similarity to the query, in [-1, 1].
    pub score: f32,
    /// The template whose edit makes its fix.
    pub template: Template,
    /// The replaced text, whitespace removed.
    pub before: String,
    /// The new text, whitespace removed.
    pub after: String,
    /// `<` → `<=`, for the report.
    pub summary: String,
}

/// The hits among `fixes` that one template edit reproduces, in hit order. O(hits × edits
/// × method length).
#[must_use]
pub fn hit_edits(fixes: &[SimilarFix]) -> Vec<HitEdit> {
    fixes
        .iter()
        .filter_map(|f| {
            let language = Language::from_name(&f.language)?;
            let edits = super::templates::snippet_edits(&f.buggy_code, language);
            let e = &edits[super::templates::fixing_edit(&f.buggy_code, &f.fixed_code, &edits)?];
            Some(HitEdit {
                id: f.id.clone(),
                score: f.score,
                template: e.template,
                before: squash(&e.original),
                after: squash(&e.replacement),
                summary: e.summary.clone(),
            })
        })
        .collect()
}

/// `vote(t)` of the module docs: each hit's `max(score, 0)` on its template over the
/// total; empty without hits (or when no score is positive).
#[must_use]
pub fn template_vote(hits: &[HitEdit]) -> BTreeMap<Template, f32> {
    let mut out = BTreeMap::new();
    for h in hits {
        *out.entry(h.template).or_insert(0.0) += h.score.max(0.0);
    }
    let total: f32 = out.values().sum();
    if total <= 0.0 {
        return BTreeMap::new();
    }
    out.values_mut().for_each(|v| *v /= total);
    out
}

/// `p(t)` of every template under `hits` (module docs); every template has `p(t) > 0`. In
/// f32 for the report: the f64 probabilities [`scores`] uses, cast.
#[must_use]
pub fn template_probabilities(hits: &[HitEdit]) -> BTreeMap<Template, f32> {
    probabilities_f64(hits).into_iter().map(|(t, p)| (t, p as f32)).collect()
}

/// `p(t)` = `a · vote(t) + (1 - a) · prior(t)` of every template under `hits`, in f64 from
/// the fitted counts (`a` = [`VOTE_WEIGHT`] with hits that vote, else 0), as [`scores`]
/// uses it.
fn probabilities_f64(hits: &[HitEdit]) -> BTreeMap<Template, f64> {
    let vote = template_vote(hits);
    let a = if vote.is_empty() { 0.0 } else { f64::from(VOTE_WEIGHT) };
    let p = |t: &Template| a * f64::from(vote.get(t).copied().unwrap_or(0.0)) + (1.0 - a) * prior_f64(*t);
    Template::ALL.iter().map(|t| (*t, p(t))).collect()
}

/// Where an edit stands in the order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// 0: it makes a hit's own edit; 1: every other edit (module docs).
    pub tier: u8,
    /// `p(t) / n(t)` × suspiciousness, in f64 ([`order`]).
    pub score: f64,
}

/// Whether `edit` makes the edit of one of `hits` (same template, same tokens with
/// whitespace removed): tier 0 of the module docs.
#[must_use]
pub fn concrete(edit: &Edit, hits: &[HitEdit]) -> bool {
    let (before, after) = (squash(&edit.original), squash(&edit.replacement));
    hits.iter().any(|h| h.template == edit.template && h.before == before && h.after == after)
}

/// `n(t)` of the module docs: each template's edits among `edits`.
fn instances(edits: &[Edit]) -> BTreeMap<Template, usize> {
    let mut count: BTreeMap<Template, usize> = BTreeMap::new();
    for e in edits {
        *count.entry(e.template).or_default() += 1;
    }
    count
}

/// The indexes of `edits` (given in the default order) in the order of the module docs
/// under `hits` (empty: the prior's order, no tier 0) and `sus`. O(e log e + e · h) for e
/// edits and h hits.
#[must_use]
pub fn order(edits: &[Edit], hits: &[HitEdit], sus: &LineWeights) -> Vec<usize> {
    let ranks: Vec<Rank> = scores(edits, hits, sus)
        .into_iter()
        .zip(edits)
        .map(|(score, e)| Rank { tier: if concrete(e, hits) { 0 } else { 1 }, score })
        .collect();
    let mut idx: Vec<usize> = (0..edits.len()).collect();
    // A stable sort: equal keys keep the default order.
    idx.sort_by(|&a, &b| {
        let (ra, rb) = (ranks[a], ranks[b]);
        ra.tier.cmp(&rb.tier).then_with(|| tie_key(rb.score).cmp(&tie_key(ra.score)))
    });
    idx
}

/// Each edit's score in the order of the module docs, `p(t) / n(t)` × the suspiciousness of
/// its line under `hits` and `sus`: one per edit of `edits`, in (0, 1], computed in f64 from
/// the fitted counts (the prior is not first rounded to f32). [`order`] and the two-edit
/// candidates ([`super::pairs`]) compare them, and products of them, by [`tie_key`], so
/// that scores equal in exact arithmetic tie. O(e + h) for e edits and h hits.
#[must_use]
pub fn scores(edits: &[Edit], hits: &[HitEdit], sus: &LineWeights) -> Vec<f64> {
    let p = probabilities_f64(hits);
    let count = instances(edits);
    edits.iter().map(|e| p[&e.template] / count[&e.template] as f64 * f64::from(sus.weight(e.line))).collect()
}

/// `score` with its last 20 mantissa bits rounded away (a relative step of 2^-32, about
/// 2e-10), as a key that orders like the score: scores equal in exact arithmetic but a few
/// rounding steps apart (`(60 + 1) / 704 / 61` and `(12 + 1) / 704 / 13`, both `1 / 704`)
/// then tie, and keep the default order, as the module docs say ties do, instead of an
/// order that flips with the last bit of a refitted prior. f64 scores carry a few units in
/// the last place (about 1e-15) of error against a step of 2e-10, so an exact tie falls
/// across a step about once in 10^5 (in f32 with an 8-bit step, as first written, about
/// once in a few hundred). Scores are finite and non-negative; a NaN sorts last.
#[must_use]
pub fn tie_key(score: f64) -> u64 {
    if score.is_nan() {
        return 0;
    }
    let bits = score.max(0.0).to_bits();
    // Round half up on the dropped bits; the sign bit is 0, so the `u64` order is the `f64`
    // order.
    bits.saturating_add(1 << 19) & !((1 << 20) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(template: Template, start: usize, original: &str, replacement: &str, line: usize) -> Edit {
        Edit {
            template,
            start,
            end: start + original.len(),
            original: original.into(),
            replacement: replacement.into(),
            line,
            summary: String::new(),
            from: None,
        }
    }

    fn hit(id: &str, score: f32, template: Template, before: &str, after: &str) -> HitEdit {
        HitEdit {
            id: id.into(),
            score,
            template,
            before: before.into(),
            after: after.into(),
            summary: format!("{before} → {after}"),
        }
    }

    /// A small method's edits in the default order: operators, operands, numerals, deletes,
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
    fn the_prior_is_the_fitted_shares_and_sums_to_one() {
        let total: f32 = Template::ALL.iter().map(|t| prior(*t)).sum();
        assert!((total - 1.0).abs() < 1e-5);
        assert!((prior(Template::ChangeOperator) - 138.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::AddGuard) - 1.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::MutateJump) - 6.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::InsertMissedJump) - 1.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::OrderedCollection) - 1.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::InsertNanChecker) - 1.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::DeleteExit) - 3.0 / 707.0).abs() < 1e-6);
        assert!((prior(Template::DeleteStatement) - 53.0 / 707.0).abs() < 1e-6);
        // Without hits p(t) is the prior, and every template has one.
        let p = template_probabilities(&[]);
        assert_eq!(p.len(), Template::ALL.len());
        assert!((p[&Template::ChangeNumeral] - prior(Template::ChangeNumeral)).abs() < 1e-6);
    }

    #[test]
    fn scores_equal_in_exact_arithmetic_tie_and_keep_the_default_order() {
        // 61 / 703 / 61 and 13 / 703 / 13 are both 1 / 703 (the change-operand and data-type
        // shares of prior v14 over 61 and 13 instances), but floats round them apart (in
        // f32, the data-type edits of condefects abc321_c went first).
        let (a, b) = (61.0f32 / 703.0 / 61.0, 13.0f32 / 703.0 / 13.0);
        assert_ne!(a.to_bits(), b.to_bits());
        let (a, b) = (61.0f64 / 703.0 / 61.0, 13.0f64 / 703.0 / 13.0);
        assert_eq!(tie_key(a), tie_key(b));
        // Ties at large instance counts, which an 8-bit step in f32 split (5 / 704 / 271 and
        // 15 / 704 / 813; found by the fresh-user pass).
        let (a, b) = (5.0f64 / 704.0 / 271.0, 15.0f64 / 704.0 / 813.0);
        assert_eq!(tie_key(a), tie_key(b));
        assert_eq!(tie_key(a * 0.9 / 7.0), tie_key(b * 0.9 / 7.0));
        assert!(tie_key(1.0 / 703.0) > tie_key(1.0 / 704.0));
        assert!(tie_key(0.5) > tie_key(0.25) && tie_key(0.25) > tie_key(0.0));
        assert_eq!(tie_key(f64::NAN), 0);
        // Through `order`: 13 data-type edits at 13 / 704 and one missed jump at 1 / 704 are
        // 1 / 704 each and stay in the default order (f32 put the jump first).
        let mut all: Vec<Edit> = (0..13).map(|i| edit(Template::MutateDataType, 100 + i, "int", "long", 3)).collect();
        all.push(edit(Template::InsertMissedJump, 300, "", "break;", 4));
        assert_eq!(order(&all, &[], &LineWeights::Uniform), (0..14).collect::<Vec<usize>>());
    }

    #[test]
    fn without_hits_the_prior_per_instance_orders() {
        // Numeral 0.149, operator 0.204 / 2 each, identifier 0.092, operand and delete 0.081
        // each (a tie: `Template::ALL`'s order, operand first).
        assert_eq!(order(&edits(), &[], &LineWeights::Uniform), vec![3, 0, 1, 5, 2, 4]);
    }

    #[test]
    fn a_hits_own_edit_first_then_the_vote_mixed_with_the_prior() {
        let hits = vec![
            hit("a", 0.9, Template::DeleteStatement, "log(x);", ""),
            hit("b", 0.6, Template::ChangeOperator, "<", "<="),
            hit("c", -0.2, Template::ChangeIdentifier, "x", "y"),
        ];
        let v = template_vote(&hits);
        assert!(
            (v[&Template::DeleteStatement] - 0.6).abs() < 1e-6 && (v[&Template::ChangeOperator] - 0.4).abs() < 1e-6
        );
        assert_eq!(v[&Template::ChangeIdentifier], 0.0);
        let p = template_probabilities(&hits);
        let want = VOTE_WEIGHT * 0.6 + (1.0 - VOTE_WEIGHT) * prior(Template::DeleteStatement);
        assert!((p[&Template::DeleteStatement] - want).abs() < 1e-6);
        // Tier 0: the delete (p 0.143) and `<` → `<=` (0.249 / 2); then the rest by p / n:
        // numeral 0.153, the other operator 0.125, identifier 0.094, operand 0.055.
        assert!(concrete(&edits()[1], &hits) && !concrete(&edits()[0], &hits));
        assert_eq!(order(&edits(), &hits, &LineWeights::Uniform), vec![4, 1, 3, 0, 5, 2]);
        // Tokens compare without whitespace.
        let spaced = [hit("d", 0.5, Template::ChangeOperand, "n", "n+1")];
        assert!(concrete(&edits()[2], &spaced));
        assert_eq!(order(&edits(), &spaced, &LineWeights::Uniform)[0], 2);
    }

    #[test]
    fn a_template_with_many_instances_waits_for_a_likely_one_with_few() {
        let mut many: Vec<Edit> = vec![edit(Template::ChangeOperator, 0, "<", "<=", 1)];
        many.extend((0..30).map(|i| edit(Template::ChangeIdentifier, 10 + i, "a", "b", 2)));
        many.push(edit(Template::DeleteStatement, 50, "f();", "", 3));
        let o = order(&many, &[], &LineWeights::Uniform);
        // Operator 0.233; delete 0.093; each identifier 0.105 / 30.
        assert_eq!(&o[..3], &[0, 31, 1]);
        assert_eq!(o.len(), 32);
    }

    #[test]
    fn sbfl_scores_reorder_within_and_across_templates() {
        // Line 5 (the numeral) is the most suspicious: 0.170 × 1 beats 0.233 / 2 × 0.1 for
        // each operator (line 3 has no score).
        let sus = LineWeights::Sbfl(BTreeMap::from([(5, 0.8), (6, 0.4)]));
        assert!((sus.weight(5) - 1.0).abs() < 1e-6 && (sus.weight(6) - 0.55).abs() < 1e-6);
        assert!((sus.weight(3) - 0.1).abs() < 1e-6);
        assert_eq!(order(&edits(), &[], &sus), vec![3, 4, 0, 1, 5, 2]);
        assert_eq!(sus.name(), "sbfl");
        assert_eq!(sus.top_line((1, 10)), Some(5));
        assert_eq!(sus.top_line((6, 10)), Some(6));
        assert_eq!(sus.top_line((7, 10)), None);
        assert_eq!(LineWeights::Uniform.top_line((1, 10)), None);
    }
}
