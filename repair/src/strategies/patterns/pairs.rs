//! Two-edit candidates (issue 32, "multi-edit candidates"): two template edits of the
//! method made together, tried after every single edit, so they spend only the budget the
//! single edits leave, and, under perfect localization over two or more lines, the
//! candidates that change both its first and its last line before all others
//! (`super::Patterns`' order, [`covers`]).
//!
//! The pairs are made of the [`POOL`] single edits of highest score ([`super::order::scores`],
//! `p(t) / n(t)` × suspiciousness), any two that do not overlap, and are tried in descending
//! product of their scores (two independent edits, each as likely as the order says). Before
//! them come the pairs that make one change at two places ([`same_change`]), made of any two
//! edits, not only the pool's.
//!
//! The measurement behind the rule (`repair/examples/patterns_pairs.rs --localized`: edits
//! within the lines the fix changes, blank lines aside, as Defects4J's perfect localization
//! gives them; mined_git_history, gitbug_java, condefects and ManySStuBs4J of the shared
//! corpus, benchmarks never read). On split 0/4 (8,157 pairs, where [`POOL`] was chosen: 60
//! of 68 two-edit fixes are made of edits within the first 48) one template edit fixes 576
//! pairs and two fix 63 more. On split 1/5 (6,467 pairs, held out) one edit fixes 432 and
//! two 36 more; within 200 candidates the shipped order fixes 459 against the single edits'
//! 432: 27 pairs gained, none lost (McNemar p = 1.5e-8); the single-edit fix ranks earlier on
//! 8 pairs (a covering edit moved up) and later on 1 (by 56). Trying one change made at both
//! ends before two different changes moved the covering two-edit fixes' median rank from
//! about 50 to 6 (split 1/5: 17 of them, 9 one change made twice). Most two-edit fixes are one
//! change made at two places (`getOpt()` → `getKey()` in a condition and in the assignment
//! under it, Defects4J Cli-27), two sibling statements deleted, or two names or literals
//! exchanged (`0` → `1` and `1` → `0`).
//!
//! One change made twice also leads the pairs that do not cover the span (one line, or no
//! localization): on split 0/4, where the rule was tried, 12 of the 63 two-edit fixes are one
//! change made twice on one line; within 200 candidates 631 pairs are fixed against 627
//! without the rule (4 gained, none lost), and on the held-out split 1/5, 460 against 459 (1
//! gained, none lost; the single-edit fixes keep their rank, as pairs come after them); on
//! whole methods (no `--localized`, as QuixBugs' method location), split 1/5: 446 against 444
//! (3 gained, 1 lost, a two-different-edits fix pushed from rank 112 past 200). A small gain,
//! not a significant one; it costs no single edit its place.
//!
//! Nor does one change made twice on one line come before its single edits: a fix that could
//! make its change at a second place on its line usually makes it once. With `--localized`,
//! split 0/4: 43 single-edit fixes have such a twin and 12 fixes make the change at both
//! places; split 1/5: 19 against 2 (`patterns_pairs`' `twin_on_line`, at 32e2a97). Defects4J
//! JxPath-10 is one of the few (`computeValue` → `compute` at both arguments; the first
//! argument alone passes the tests).
//!
//! The covering pairs take at most half the budget: on Defects4J Cli-31 they took all 200
//! validations, so no single edit past the covering ones was tried. On the corpus the cap is
//! neutral (split 0/4: a single-edit fix at rank 12, pushed to 212, is back within 200, and a
//! covering pair at 122 drops out; split 1/5: a covering pair at 194 drops out, 459 fixed).

use super::order::tie_key;
use super::templates::{Edit, Template};
use crate::validate::Verdict;

/// Single edits (the best by score) that pairs are made of: at most `POOL · (POOL - 1) / 2`
/// pairs.
pub const POOL: usize = 48;

/// The first and last lines (1-based) of `text` whose text `e` changes: its `original` and
/// `replacement` less their common prefix and suffix and the whitespace at the edges, so
/// that a statement moved below the next one changes both lines, `return a;` → `return b;`
/// only the line of `a`, and a deleted statement not the next line whose indentation goes
/// with it. An insertion changes the line it is made on.
#[must_use]
pub fn changed_lines(text: &str, e: &Edit) -> (usize, usize) {
    let (o, r) = (e.original.as_bytes(), e.replacement.as_bytes());
    let prefix = o.iter().zip(r).take_while(|(a, b)| a == b).count();
    let suffix = o[prefix..].iter().rev().zip(r[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let lines_to = |end: usize| text.get(e.start..end).map_or(0, |s| s.matches('\n').count());
    let (mut from, mut to) = (e.start + prefix, e.end - suffix);
    // Whitespace at the region's edges is layout, not a change of the line it is on (a
    // deleted statement takes the next line's indentation with it).
    let bytes = text.as_bytes();
    while from < to && bytes.get(from).is_some_and(u8::is_ascii_whitespace) {
        from += 1;
    }
    while to > from && bytes.get(to - 1).is_some_and(u8::is_ascii_whitespace) {
        to -= 1;
    }
    let first = e.line + lines_to(from);
    // The last changed byte's line (the point's own line for an insertion).
    (first, if to > from { e.line + lines_to(to - 1) } else { first })
}

/// Whether `e` (of `text`) changes both the first and the last line of `span` (1-based,
/// inclusive) and no line outside it ([`changed_lines`]).
#[must_use]
pub fn covers(text: &str, e: &Edit, span: (usize, usize)) -> bool {
    changed_lines(text, e) == span
}

/// The two-edit candidates of `edits` (of `text`, each with its score in `scores`, the same
/// length), at most `max`, and how many of them (the first ones) cover `ends`.
///
/// With `ends` (a span of two or more lines), first the pairs that cover it: one edit
/// changing its first line and one changing its last ([`changed_lines`]), among the
/// [`POOL`] best-scored edits on each, those that make one change at both places first, at
/// most `max / 2` of them (so that the single edits after them keep half the budget). Then
/// the pairs of any two edits that make one change at two places ([`same_change`]),
/// then every pair of the [`POOL`] best-scored edits. Each pair `(a, b)`, `a` ending where
/// or before `b` starts, is one [`Template::TwoEdits`] edit from `a.start` to `b.end` (the
/// text between them kept), summary `"A; B"`, line `a`'s; within each group in descending
/// product of the two scores (ties: source order). Pairs whose result is the same
/// text come once. Transplants are not paired.
#[must_use]
pub fn two_edits(
    text: &str,
    edits: &[Edit],
    scores: &[f64],
    max: usize,
    ends: Option<(usize, usize)>,
) -> (Vec<Edit>, usize) {
    let pairs = two_edits_with_parts(text, edits, scores, max, ends);
    (pairs.edits, pairs.covering)
}

/// The two-edit candidates of [`two_edits`], with the single edits each is made of.
#[derive(Debug, Clone, Default)]
pub struct Pairs {
    /// The pairs, in order ([`two_edits`]).
    pub edits: Vec<Edit>,
    /// For each of `edits`, the indexes in the single edits it was made of (first, second).
    pub parts: Vec<(usize, usize)>,
    /// How many of the first `edits` cover the ends.
    pub covering: usize,
}

/// [`two_edits`], with each pair's single edits ([`Pairs::parts`]), which [`Uncompiled`]
/// needs.
#[must_use]
pub fn two_edits_with_parts(
    text: &str,
    edits: &[Edit],
    scores: &[f64],
    max: usize,
    ends: Option<(usize, usize)>,
) -> Pairs {
    let best = |keep: &dyn Fn(&Edit) -> bool| {
        let mut pool: Vec<usize> =
            (0..edits.len()).filter(|&i| edits[i].template != Template::Transplant && keep(&edits[i])).collect();
        pool.sort_by(|&a, &b| tie_key(scores[b]).cmp(&tie_key(scores[a])).then(a.cmp(&b)));
        pool.truncate(POOL);
        pool
    };
    // What each edit changes, made once ([`change`]): pairs compare them.
    let changes: Vec<Change> = edits.iter().map(change).collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Pairs::default();
    if let Some((first, last)) = ends.filter(|(a, b)| b > a) {
        let starts = best(&|e| changed_lines(text, e).0 == first);
        let stops = best(&|e| changed_lines(text, e).1 == last);
        let mut pairs = Vec::new();
        for &a in &starts {
            for &b in &stops {
                if edits[a].end <= edits[b].start && a != b {
                    // One change made at both ends (Cli-27's `getOpt()` → `getKey()` twice) first:
                    // half the covering two-edit fixes of the corpus split.
                    let boost = if changes[a] == changes[b] { 1.0 } else { 0.0 };
                    pairs.push((boost + scores[a] * scores[b], a, b));
                }
            }
        }
        // At most half the budget: the single edits after them keep the other half.
        push_pairs(text, edits, pairs, max / 2, &mut seen, &mut out);
        out.covering = out.edits.len();
    }
    push_pairs(text, edits, same_changes(edits, &changes, scores), max, &mut seen, &mut out);
    let pool = best(&|_| true);
    let mut pairs = Vec::new();
    for (x, &i) in pool.iter().enumerate() {
        for &j in &pool[x + 1..] {
            let (a, b) = if edits[i].end <= edits[j].start {
                (i, j)
            } else if edits[j].end <= edits[i].start {
                (j, i)
            } else {
                continue;
            };
            pairs.push((scores[i] * scores[j], a, b));
        }
    }
    push_pairs(text, edits, pairs, max, &mut seen, &mut out);
    out
}

/// Every pair of non-overlapping edits of `edits` (each making `changes[i]`) that make one
/// change at two places ([`same_change`]), among all of them, not only the [`POOL`] best:
/// (product of scores, first, second). Transplants are not paired. O(edits) to group, then
/// the pairs within a group.
fn same_changes(edits: &[Edit], changes: &[Change], scores: &[f64]) -> Vec<(f64, usize, usize)> {
    // Ordered, so that pairs of equal score and place come in the same order on every run.
    let mut groups: std::collections::BTreeMap<&Change, Vec<usize>> = std::collections::BTreeMap::new();
    for i in (0..edits.len()).filter(|&i| edits[i].template != Template::Transplant) {
        groups.entry(&changes[i]).or_default().push(i);
    }
    let mut pairs = Vec::new();
    for group in groups.values() {
        for (x, &i) in group.iter().enumerate() {
            for &j in &group[x + 1..] {
                let (a, b) = if edits[i].start <= edits[j].start { (i, j) } else { (j, i) };
                if edits[a].end <= edits[b].start {
                    pairs.push((scores[a] * scores[b], a, b));
                }
            }
        }
    }
    pairs
}

/// What an edit changes, wherever it is made: its template, original and replacement,
/// whitespace aside.
type Change = (Template, String, String);

/// The change `e` makes ([`Change`]).
fn change(e: &Edit) -> Change {
    use super::templates::squash;
    (e.template, squash(&e.original), squash(&e.replacement))
}

/// Whether `a` and `b` make one change (the same template, original and replacement,
/// whitespace aside) at two places.
#[must_use]
pub fn same_change(a: &Edit, b: &Edit) -> bool {
    change(a) == change(b)
}

/// The validation order and how many candidates lead it for covering `ends`: with `ends`,
/// the single edits of `ordered` that change both its first and last line (in their
/// order), then the first `covering` of `pairs` (those that change both), then the other
/// single edits, then the other pairs; without, `ordered` then `pairs`. The measurement
/// behind it is in the module docs.
#[must_use]
pub fn ends_first<'e>(
    ordered: Vec<&'e Edit>,
    pairs: &'e [Edit],
    covering: usize,
    text: &str,
    ends: Option<(usize, usize)>,
) -> (Vec<&'e Edit>, usize) {
    let Some(span) = ends else { return (ordered.into_iter().chain(pairs).collect(), 0) };
    let (cover, rest): (Vec<&Edit>, Vec<&Edit>) = ordered.into_iter().partition(|e| covers(text, e, span));
    let lead = cover.len() + covering;
    (cover.into_iter().chain(&pairs[..covering]).chain(rest).chain(&pairs[covering..]).collect(), lead)
}

/// A single edit as the search knows it: its bytes and new text (two edits with equal keys
/// make one candidate).
type Key<'e> = (usize, usize, &'e str);

/// The key of `e` ([`Key`]).
fn key(e: &Edit) -> Key<'_> {
    (e.start, e.end, e.replacement.as_str())
}

/// The single edits that did not compile on their own, and the two-edit candidates made of
/// one of them, which the search skips unvalidated.
///
/// On the Defects4J development set (Cli and JxPath, 61 bugs, the templates arm of
/// 2026-12-06), 756 of the 2,039 pairs validated did not compile; 682 of them held an edit
/// that had not compiled alone, against 9 pairs with such an edit that compiled (none
/// plausible): a pair rarely mends its part's compile error (`scripts/pair-compile-errors.py`
/// on the run folder). An edit's verdict is known only once it has been validated, so a
/// pair validated before its parts (the covering pairs lead under perfect localization) is
/// never skipped.
#[derive(Debug, Default)]
pub struct Uncompiled<'e> {
    /// Each pair's two parts, by the pair's key.
    parts: std::collections::HashMap<Key<'e>, [Key<'e>; 2]>,
    /// The single edits validated with [`Verdict::CompileError`].
    failed: std::collections::HashSet<Key<'e>>,
}

impl<'e> Uncompiled<'e> {
    /// Knows the parts of `pairs` (single edits of `edits`, [`two_edits_with_parts`]).
    #[must_use]
    pub fn new(edits: &'e [Edit], pairs: &'e Pairs) -> Self {
        let parts = pairs
            .edits
            .iter()
            .zip(&pairs.parts)
            .map(|(p, &(a, b))| (key(p), [key(&edits[a]), key(&edits[b])]))
            .collect();
        Uncompiled { parts, failed: std::collections::HashSet::new() }
    }

    /// Notes the verdict of validating `e`: a single edit that did not compile.
    pub fn record(&mut self, e: &'e Edit, verdict: Verdict) {
        if verdict == Verdict::CompileError && e.template != Template::TwoEdits {
            self.failed.insert(key(e));
        }
    }

    /// Whether `e` is a pair one of whose edits did not compile alone.
    #[must_use]
    pub fn skips(&self, e: &Edit) -> bool {
        e.template == Template::TwoEdits
            && self.parts.get(&key(e)).is_some_and(|parts| parts.iter().any(|k| self.failed.contains(k)))
    }
}

/// Appends `pairs` (key, first, second) to `out` as [`Template::TwoEdits`] edits in
/// descending product, skipping results already `seen`, until `out` holds `max`.
fn push_pairs(
    text: &str,
    edits: &[Edit],
    mut pairs: Vec<(f64, usize, usize)>,
    max: usize,
    seen: &mut std::collections::HashSet<(usize, usize, String)>,
    out: &mut Pairs,
) {
    // Products equal in exact arithmetic tie ([`tie_key`]) and keep source order.
    pairs.sort_by(|x, y| {
        tie_key(y.0)
            .cmp(&tie_key(x.0))
            .then((edits[x.1].start, edits[x.2].start).cmp(&(edits[y.1].start, edits[y.2].start)))
    });
    for (_, a, b) in pairs {
        if out.edits.len() >= max {
            return;
        }
        let (ea, eb) = (&edits[a], &edits[b]);
        let Some(between) = text.get(ea.end..eb.start) else { continue };
        let replacement = format!("{}{between}{}", ea.replacement, eb.replacement);
        if !seen.insert((ea.start, eb.end, replacement.clone())) {
            continue;
        }
        out.parts.push((a, b));
        out.edits.push(Edit {
            template: Template::TwoEdits,
            start: ea.start,
            end: eb.end,
            original: text[ea.start..eb.end].to_string(),
            replacement,
            line: ea.line,
            summary: format!("{}; {}", ea.summary, eb.summary),
            from: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;
    use crate::fl::LineWeights;
    use crate::strategies::patterns::{order, templates};

    /// Defects4J Cli-27's buggy method (OptionGroup.setSelected, with the file's other call
    /// of `getKey`), localized as perfect localization gives it (lines 13-15): the
    /// developer's fix makes one change at two places, which no single edit makes and one
    /// pair does.
    const CLI_27: &str = "class OptionGroup {
    private Map optionMap = new HashMap();
    private String selected;
    public OptionGroup addOption(Option option) {
        optionMap.put(option.getKey(), option);
        return this;
    }
    public void setSelected(Option option) throws AlreadySelectedException {
        if (option == null) {
            selected = null;
            return;
        }
        if (selected == null || selected.equals(option.getOpt()))
        {
            selected = option.getOpt();
        }
        else
        {
            throw new AlreadySelectedException(this, option);
        }
    }
}
";

    /// Whether pair `p` makes one change twice, by its summary (`"A; A"`).
    fn twice(p: &Edit) -> bool {
        p.summary.split_once("; ").is_some_and(|(a, b)| a == b)
    }

    /// Two pairs whose products are equal in exact arithmetic but a rounding step apart in
    /// floats (`1/704` as `2/704/2` and as `3/704/3`) tie and come in source order, as the
    /// single edits' order does ([`order::tie_key`]).
    #[test]
    fn products_equal_in_exact_arithmetic_keep_source_order() {
        let text = "int a = 1; int b = 2; int c = 3; int d = 4;";
        let edit = |at: usize| Edit {
            template: Template::ChangeNumeral,
            start: at,
            end: at + 1,
            original: text[at..=at].into(),
            replacement: "0".into(),
            line: 1,
            summary: format!("{} → 0", &text[at..=at]),
            from: None,
        };
        let edits: Vec<Edit> = [8, 19, 30, 41].into_iter().map(edit).collect();
        let (x, y) = (2.0f64 / 704.0 / 2.0, 3.0f64 / 704.0 / 3.0);
        assert!(x * 0.5 != y * 0.5, "the floats differ");
        // The later pair (c, d) has the larger float product; the tie keeps (a, b) first.
        let (early, late) = if x > y { (y, x) } else { (x, y) };
        let mut out = Pairs::default();
        push_pairs(text, &edits, vec![(late * 0.5, 2, 3), (early * 0.5, 0, 1)], 2, &mut Default::default(), &mut out);
        assert_eq!(out.parts, [(0, 1), (2, 3)]);
        assert_eq!(out.edits.iter().map(|e| e.summary.as_str()).collect::<Vec<_>>(), ["1 → 0; 2 → 0", "3 → 0; 4 → 0"]);
        // A real difference still orders them.
        let mut out = Pairs::default();
        push_pairs(text, &edits, vec![(0.5, 2, 3), (0.25, 0, 1)], 2, &mut Default::default(), &mut out);
        assert_eq!(out.edits[0].summary, "3 → 0; 4 → 0");
    }

    #[test]
    fn the_pair_that_makes_cli_27s_fix_is_a_candidate() {
        let edits = templates::edits(CLI_27, Language::Java, (13, 15));
        let fixed = CLI_27.replace("option.getOpt()", "option.getKey()");
        assert_eq!(templates::fixing_edit(CLI_27, &fixed, &edits), None, "no single edit fixes it");
        let scores = order::scores(&edits, &[], &LineWeights::Uniform);
        let (pairs, _) = two_edits(CLI_27, &edits, &scores, usize::MAX, None);
        let at = templates::fixing_edit(CLI_27, &fixed, &pairs).expect("a pair makes the fix");
        assert_eq!(pairs[at].template, Template::TwoEdits);
        assert_eq!(pairs[at].summary, "getOpt → getKey; getOpt → getKey");
        // Without the span's ends (no localization), one change made twice still leads the
        // pairs: only such pairs come before the fix.
        assert!(pairs[..=at].iter().all(twice), "{:?}", pairs[..=at].iter().map(|p| &p.summary).collect::<Vec<_>>());
        assert!(at < 10, "{at}");
        // Every pair is two disjoint edits, made as their two edits would make them.
        for p in &pairs {
            let (a, b) = p.summary.split_once("; ").unwrap();
            assert!(!a.is_empty() && !b.is_empty());
            assert!(p.end > p.start && p.original == CLI_27[p.start..p.end]);
        }
        assert!(pairs.len() <= POOL * (POOL - 1) / 2);
    }

    /// Each pair's parts are the two single edits that make it, and once one of them has not
    /// compiled alone, every pair holding it is skipped, and no other.
    #[test]
    fn a_pair_is_skipped_once_one_of_its_edits_did_not_compile_alone() {
        let edits = templates::edits(CLI_27, Language::Java, (13, 15));
        let scores = order::scores(&edits, &[], &LineWeights::Uniform);
        let two = two_edits_with_parts(CLI_27, &edits, &scores, 200, Some((13, 15)));
        assert_eq!(two.edits.len(), two.parts.len());
        assert!(two.edits.len() > 10, "{}", two.edits.len());
        for (p, &(a, b)) in two.edits.iter().zip(&two.parts) {
            // Made as its two edits would make it: `a`, then `b` on the result.
            let (ea, eb) = (&edits[a], &edits[b]);
            assert!(ea.end <= eb.start, "{p:?}");
            let shift = ea.replacement.len() as isize - (ea.end - ea.start) as isize;
            let after_a = ea.applied(CLI_27);
            let eb_moved = Edit {
                start: (eb.start as isize + shift) as usize,
                end: (eb.end as isize + shift) as usize,
                ..eb.clone()
            };
            assert_eq!(p.applied(CLI_27), eb_moved.applied(&after_a), "{p:?}");
            assert_eq!(p.summary, format!("{}; {}", ea.summary, eb.summary));
        }
        let mut uncompiled = Uncompiled::new(&edits, &two);
        assert!(!two.edits.iter().any(|p| uncompiled.skips(p)), "nothing failed yet");
        let (a, _) = two.parts[0];
        // A test failure, or a pair's own compile error, marks nothing.
        uncompiled.record(&edits[a], Verdict::TestFailure);
        uncompiled.record(&two.edits[0], Verdict::CompileError);
        assert!(!two.edits.iter().any(|p| uncompiled.skips(p)));
        // A single edit that did not compile: the pairs that hold it, and only those.
        uncompiled.record(&edits[a], Verdict::CompileError);
        let skipped: Vec<bool> = two.edits.iter().map(|p| uncompiled.skips(p)).collect();
        let holding: Vec<bool> = two.parts.iter().map(|&(x, y)| x == a || y == a).collect();
        assert_eq!(skipped, holding);
        assert!(skipped.iter().any(|s| *s) && !skipped.iter().all(|s| *s), "{skipped:?}");
        // Single edits are never skipped.
        assert!(!edits.iter().any(|e| uncompiled.skips(e)));
    }

    /// With the span's ends, the pairs that change line 13 and line 15 come first, one change
    /// made at both before two different ones, and the fix is among the first of them.
    #[test]
    fn pairs_that_cover_the_span_come_first() {
        let edits = templates::edits(CLI_27, Language::Java, (13, 15));
        let fixed = CLI_27.replace("option.getOpt()", "option.getKey()");
        let scores = order::scores(&edits, &[], &LineWeights::Uniform);
        let (pairs, covering) = two_edits(CLI_27, &edits, &scores, 200, Some((13, 15)));
        assert!(covering > 0 && pairs.len() <= 200);
        assert!(pairs[..covering].iter().all(|p| covers(CLI_27, p, (13, 15))));
        let at = templates::fixing_edit(CLI_27, &fixed, &pairs).expect("a pair makes the fix");
        assert!(at < covering, "the fix covers the span: {at} of {covering}");
        // One change made at both ends comes before two different changes.
        assert!(pairs[..=at].iter().all(twice), "{:?}", pairs[..=at].iter().map(|p| &p.summary).collect::<Vec<_>>());
        assert!(at < 10, "{at}");
        // They take at most half the budget: the single edits keep the rest.
        let (few, lead) = two_edits(CLI_27, &edits, &scores, 10, Some((13, 15)));
        assert!(covering > 5, "more covering pairs than half of 10: {covering}");
        assert_eq!((lead, few.len()), (5, 10));
        // A one-line span has no ends to cover.
        assert_eq!(two_edits(CLI_27, &edits, &scores, 200, Some((13, 13))).1, 0);
    }

    #[test]
    fn the_best_pair_comes_first_and_max_is_kept() {
        let text = "class A { int f(int a, int b) { if (a < b) { return a + 1; } return b - 1; } }\n";
        let edits = templates::edits(text, Language::Java, (1, 1));
        let scores = order::scores(&edits, &[], &LineWeights::Uniform);
        let (pairs, covering) = two_edits(text, &edits, &scores, 10, None);
        assert_eq!(covering, 0);
        assert_eq!(pairs.len(), 10);
        // The oracle: the disjoint pair of highest product over all edits, one change made
        // twice before two different changes.
        let mut best = ((0u8, 0.0f64), String::new());
        for (i, a) in edits.iter().enumerate() {
            for (j, b) in edits.iter().enumerate() {
                let key = (u8::from(same_change(a, b)), scores[i] * scores[j]);
                if a.end <= b.start && i != j && key > best.0 {
                    let out = format!(
                        "{}{}{}{}{}",
                        &text[..a.start],
                        a.replacement,
                        &text[a.end..b.start],
                        b.replacement,
                        &text[b.end..]
                    );
                    best = (key, out);
                }
            }
        }
        assert_eq!(best.0.0, 1, "the snippet has one change to make twice (`1` → `2`)");
        assert_eq!(pairs[0].applied(text), best.1);
        let results: std::collections::HashSet<String> = pairs.iter().map(|p| p.applied(text)).collect();
        assert_eq!(results.len(), pairs.len(), "no two pairs make the same text");
    }

    /// Defects4J Cli-32: the developer deleted the loop on lines 5-9 (perfect localization
    /// 5-9); that deletion changes exactly those lines, and a pair that negates the loop's
    /// condition and deletes its body does not reach line 9.
    #[test]
    fn changed_lines_skip_the_layout_around_an_edit() {
        let text = "class H {\n    int f(String text, int pos) {\n        char c;\n        pos = 1;\n        while ((pos <= text.length()) && ((c = text.charAt(pos)) != ' ')\n               && (c != '\\n'))\n        {\n            ++pos;\n        }        \n        return pos;\n    }\n}\n";
        let edits = templates::edits(text, Language::Java, (5, 9));
        let whole = edits
            .iter()
            .find(|e| e.template == Template::DeleteStatement && e.original.trim_start().starts_with("while"))
            .expect("the loop's deletion");
        assert_eq!(changed_lines(text, whole), (5, 9));
        assert!(covers(text, whole, (5, 9)));
        let body = edits
            .iter()
            .find(|e| e.template == Template::DeleteStatement && e.original.trim_start().starts_with("++pos"))
            .unwrap();
        assert_eq!(changed_lines(text, body), (8, 8));
        let scores = order::scores(&edits, &[], &LineWeights::Uniform);
        let (pairs, covering) = two_edits(text, &edits, &scores, 200, Some((5, 9)));
        assert!(pairs[..covering].iter().all(|p| covers(text, p, (5, 9))));
        assert!(pairs.iter().filter(|p| p.summary.contains("delete ++pos")).all(|p| !covers(text, p, (5, 9))));
    }
}
