//! Transplanted fixes (issue 32, item 2): each retrieved similar fix whose fix is a small
//! edit is applied to the buggy method where it fits, its identifiers mapped to the method's,
//! and validated before any template edit. A template tool can only re-order its templates by
//! the neighbours; a neighbour whose fix is `if (x.size() > 0)` → `if (x != null && x.size() > 0)`,
//! `return a;` → `return a.clone();` or `foo(b, c)` → `foo(b, c, true)` brings the fix itself.
//!
//! # Rule
//! 1. **The neighbour's edit.** Its buggy and fixed code are cut into leaf tokens by
//!    tree-sitter (a string literal is one token, comments are none; a Java snippet inside a
//!    `class Fix { … }` wrapper as [`super::templates::snippet_edits`] parses it), and the
//!    common token prefix and suffix are stripped: what is left is one changed region, tokens
//!    `B` of the buggy code and `A` of the fixed. Kept only when it is small (at most
//!    [`MAX_CHANGED_TOKENS`] on each side, not both empty), in the bug's language, parses
//!    without error on both sides, and has at most [`SNIPPET_MAX_LINES`] lines. With
//!    [`Limits::regions`] above 1 (not the default, [`MAX_REGIONS`]: see "Several regions"
//!    below), a larger change is cut into the regions of the token diff (Myers, the `similar`
//!    crate), those fewer than [`CONTEXT`] equal tokens apart merged, and a fix of at most that
//!    many regions of at most [`MAX_CHANGED_TOKENS`] each (the same call changed at two places
//!    of a method, a guard added and a return changed) transplants as one candidate, every
//!    region applied (steps 2–4 per region).
//! 2. **The pattern**: `B` with up to [`CONTEXT`] tokens of the neighbour's buggy code on each
//!    side (so an insertion has an anchor). Its identifiers are placeholders, except the
//!    names of called methods and functions (an identifier followed by `(`, `x.size(`,
//!    `merge(`); keywords, literals and operators must match exactly. The replacement is `A`
//!    with the whitespace around it: an identifier of `A` that is a placeholder of the
//!    pattern becomes the method's name it was bound to, a called name stays as it is, and any
//!    other identifier must be one the method has (used or declared), or the neighbour does
//!    not transplant (`unknown identifier`).
//! 3. **Matching.** The pattern slides over the localized method's tokens (within
//!    `problem.lines`): exact tokens compare by text; a placeholder binds a method token of the
//!    same syntax kind (an `identifier`, a Java `type_identifier`), consistently (one
//!    neighbour name, one method name) and injectively. Context 3 first, then 2, 1, and 0
//!    tokens (0 only when `B` is not empty), the first that matches giving at most
//!    [`MAX_MATCHES_PER_FIX`] matches (exact ones first, then in source order). Its
//!    `fit = (context tokens matched + 1) / (2 × CONTEXT + 1)`, × [`RENAMED_FIT`] when a name
//!    was mapped to another (the `+ 1` keeps a context-free match above zero). A fix of
//!    several regions: each region's widest matching context, the regions' places in the
//!    neighbour's order (a token at least between two changed regions), names bound
//!    consistently across them; the fit is the mean of the regions'.
//! 4. **The candidate**: an [`Edit`] of [`Template::Transplant`] over the matched method
//!    tokens whose replacement is the method's own text with the changed region (the text
//!    between the context tokens) replaced by the neighbour's fixed text there, names mapped
//!    and lines re-indented from the neighbour's indentation to the method's; the method's
//!    whitespace outside the region stays. Its [`Edit::from`] is the neighbour's id: the
//!    provenance rides on the edit, so the search loop reports it with no side table. A
//!    candidate javac would refuse where the syntax tree can tell (a call its receiver's type
//!    does not have in the file, an expression that is not a statement, a parse error:
//!    [`super::templates::refused`]) is dropped before it costs a validation
//!    ([`TransplantRecord::refused`]); on the Defects4J transplant arm 171 of 234 validated
//!    transplants had not compiled.
//! 5. **Order**: by `max(score, 0) × fit` descending (ties: retrieval rank, then source
//!    position), the first of equal results only, at most [`MAX_TRANSPLANTS`]. They come
//!    after the template edits that make a neighbour's own edit exactly (tier 0 of
//!    [`super::order`]: a neighbour's fix reproduced token for token is a surer candidate than
//!    one adapted to the method) and before every other template edit, which keep their own
//!    order; an edit whose result an earlier one already made is dropped
//!    ([`then_templates`]). On the Defects4J arms (51 Cli and JxPath bugs, before the compile
//!    pre-check) the transplants, validated before every template edit, cost validations on 26
//!    bugs and fixed none the templates did not (`scripts/d4j-arms.sh`).
//!
//! # Where the transplants go (measured on the corpus)
//! `repair/examples/patterns_transplant.rs` replays every pair of two disjoint corpus splits
//! (FNV-1a(id) mod 5 = 0 to fit, = 1 to test; condefects, mined_git_history and gitbug_java;
//! ManySStuBs4J left out, its `unknown` project lets a commit's sibling hunks be a pair's
//! neighbours) through retrieval (the Defects4J arms' `code` index, own id and project left
//! out) and this module, with no test run; `scripts/patterns-transplant.py` reads it. On the
//! test split (4,757 pairs) one template edit fixes 360 pairs and a transplant 115, 43 of
//! them pairs no template edit fixes (12 of 2,322 mined_git_history Java pairs, the code
//! nearest Defects4J: 0.5 %). Within the 200-candidate budget the prior's order alone reaches
//! 317 pairs, transplants first 358. Per candidate, the first transplant is the fix 0.66 % of
//! the time on the fit split, as often as the likeliest template edits; transplants and
//! templates merged by those calibrated probabilities reached the same 358 and ranked the fix
//! later than transplants first on 43 pairs, earlier on 23 (sign test p = 0.019), so the
//! order above stays. Their cost is real: the pairs a template edit fixes rank later behind
//! the transplants (289 later, 96 earlier). Re-measured with the templates of issue 32's later
//! sessions (the same split and index, 2026-12-07): one template edit fixes 404 pairs, a
//! transplant 114, 30 of them pairs no template edit fixes; within 200 candidates the prior's
//! order reaches 354 pairs and transplants first 380 (earlier on 95, later on 322).
//!
//! # Several regions (measured, off)
//! The own-history arm of the Defects4J development set found 477 neighbours over the
//! 10-token limit, so fixes of up to 3 regions were tried (`Limits { regions: 3, .. }`). On
//! the corpus's test split (`patterns_transplant` with `FIXDEX_TRANSPLANT_REGIONS=3` against
//! `=1`, 4,757 pairs) they made 1,596 more candidates (37,497 → 39,093) and fixed no pair
//! more (114 either way), while the first fixing candidate came later on 63 pairs and earlier
//! on none (sign test p < 1e-18; `scripts/patterns-transplant.py --base`); on the 61 Cli and
//! JxPath bugs with the project's own history (first 30 validations) 5 bugs had a
//! several-region transplant, none plausible, and the same 14 bugs were plausible with the
//! same tiers. A neighbour whose fix spans several places rarely made the same change at the
//! same places of another method, so [`MAX_REGIONS`] is 1: one region, as before. A larger
//! region (`FIXDEX_TRANSPLANT_TOKENS=16`, with 3 regions) fixed 1 pair more than the default
//! and put 76 fixes later (1 earlier), so [`MAX_CHANGED_TOKENS`] stays 10.
//!
//! Deterministic: it depends only on the hits (their order and scores) and the file. A
//! neighbour with missing, empty or malformed snippets is skipped with its reason
//! ([`TransplantRecord::why`]); nothing here panics on bad input.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tree_sitter::{Node, Parser};

use super::templates::{Edit, Original, SNIPPET_MAX_LINES, Template, one_line, squash};
use crate::Language;
use crate::retrieve::SimilarFix;

/// Most tokens changed on each side of a neighbour's fix (`B` and `A` of the module docs).
pub const MAX_CHANGED_TOKENS: usize = 10;

/// Most changed regions of one neighbour's fix transplanted together, when its changes span
/// more than [`MAX_CHANGED_TOKENS`] (module docs, step 1): 1, a single region, since several
/// gained nothing on the corpus split or Defects4J (module docs, "Several regions").
pub const MAX_REGIONS: usize = 1;

/// Most tokens a side between the common prefix and suffix of a fix whose regions are
/// sought (a bound on the token diff's cost, O((N + M) · D) for Myers).
pub const MAX_DIFF_TOKENS: usize = 200;

/// Most context tokens on each side of the changed region in a pattern.
pub const CONTEXT: usize = 3;

/// Most matches (candidates) per neighbour.
pub const MAX_MATCHES_PER_FIX: usize = 3;

/// Most transplanted candidates in all.
pub const MAX_TRANSPLANTS: usize = 30;

/// The fit of a match that maps a neighbour's name to another, relative to an exact one.
pub const RENAMED_FIT: f32 = 0.9;

/// What became of one retrieved neighbour (the report's `details.transplants`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransplantRecord {
    /// Document id of the neighbour.
    pub id: String,
    /// Its cosine similarity to the query.
    pub score: f32,
    /// The changed region of its buggy code, whitespace removed (when its edit was read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The changed region of its fixed code, whitespace removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Places of the method its edit was applied to (candidates made, before the
    /// deduplication and [`MAX_TRANSPLANTS`]).
    pub matched: usize,
    /// Matches dropped before validation because javac would refuse the result
    /// ([`super::templates::refused`]); not counted in `matched`.
    #[serde(skip_serializing_if = "is_zero")]
    pub refused: usize,
    /// Why it made no candidate: `too large`, `another language`, `unparsable`, `too long`,
    /// `empty snippet`, `no token change`, `no fit`, `unknown identifier`, `javac would
    /// refuse: …` (the first match's reason); `None` when `matched > 0`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The transplanted candidates for the method on lines `lines` (1-based, inclusive) of `text`
/// from the retrieved `fixes` (best first), in the order of the module docs, and one record
/// per neighbour. Empty when the file does not parse as `language`. O(fixes × (snippet length
/// + method tokens × pattern length)).
#[must_use]
pub fn transplants(
    fixes: &[SimilarFix],
    text: &str,
    language: Language,
    lines: (usize, usize),
) -> (Vec<Edit>, Vec<TransplantRecord>) {
    transplants_with(fixes, text, language, lines, Limits::DEFAULT)
}

/// [`transplants`] with other size limits on the neighbours' edits (the corpus measurement,
/// `repair/examples/patterns_transplant.rs`, compares them).
#[must_use]
pub fn transplants_with(
    fixes: &[SimilarFix],
    text: &str,
    language: Language,
    lines: (usize, usize),
    limits: Limits,
) -> (Vec<Edit>, Vec<TransplantRecord>) {
    let method = method_tokens(text, language, lines);
    let names: HashSet<&str> = method.iter().filter(|t| t.ident).map(|t| t.text(text)).collect();
    let original = Original::new(text, language);
    let mut records = Vec::new();
    // (key, retrieval rank, edit)
    let mut found: Vec<(f32, usize, Edit)> = Vec::new();
    for (rank, f) in fixes.iter().enumerate() {
        let mut record = TransplantRecord {
            id: f.id.clone(),
            score: f.score,
            before: None,
            after: None,
            matched: 0,
            refused: 0,
            why: None,
        };
        match Neighbour::read(f, language, limits) {
            Err(why) => record.why = Some(why),
            Ok(n) => {
                record.before = Some(squash(&n.region_text(Side::Buggy)));
                record.after = Some(squash(&n.region_text(Side::Fixed)));
                match n.apply(text, &method, &names) {
                    Err(why) => record.why = Some(why),
                    Ok(made) => {
                        let mut why = None;
                        let made: Vec<(f32, Edit)> = made
                            .into_iter()
                            .filter(|(_, e)| match compiles(original.as_ref(), text, e) {
                                Ok(()) => true,
                                Err(reason) => {
                                    record.refused += 1;
                                    why.get_or_insert(reason);
                                    false
                                }
                            })
                            .collect();
                        if made.is_empty() {
                            record.why = why.map(|w| format!("javac would refuse: {w}"));
                        }
                        record.matched = made.len();
                        let weight = f.score.max(0.0);
                        found.extend(made.into_iter().map(|(fit, e)| (weight * fit, rank, e)));
                    }
                }
            }
        }
        records.push(record);
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.start.cmp(&b.2.start)));
    let mut seen: HashSet<String> = HashSet::new();
    let local = Local::new(text, lines);
    let edits: Vec<Edit> =
        found.into_iter().map(|(_, _, e)| e).filter(|e| seen.insert(local.result(e))).take(MAX_TRANSPLANTS).collect();
    (edits, records)
}

/// `Err(why)` when the language's compiler would refuse `text` (read as `original`; `None`:
/// not readable, nothing refused) with `e` applied ([`super::templates::refused`]).
fn compiles(original: Option<&Original<'_>>, text: &str, e: &Edit) -> Result<(), String> {
    let (Some(before), Some(after)) = (text.get(..e.start), text.get(e.end..)) else {
        return Err("the edit's span is outside the file".into());
    };
    let candidate = format!("{before}{}{after}", e.replacement);
    match original.and_then(|o| o.refused(&candidate, e.start..e.start + e.replacement.len())) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The first `lead` of `templates` (already in their order: the edits that make a
/// neighbour's own edit), then `transplants`, then the rest of `templates`, less any edit
/// whose result on the localized lines `lines` of `text` an earlier edit made (module docs,
/// step 5).
#[must_use]
pub fn then_templates<'e>(
    transplants: &'e [Edit],
    templates: impl IntoIterator<Item = &'e Edit>,
    lead: usize,
    text: &str,
    lines: (usize, usize),
) -> Vec<&'e Edit> {
    let templates: Vec<&Edit> = templates.into_iter().collect();
    if transplants.is_empty() {
        return templates;
    }
    let (head, tail) = templates.split_at(lead.min(templates.len()));
    let local = Local::new(text, lines);
    let mut made: HashSet<String> = head.iter().map(|e| local.result(e)).collect();
    let mut out = head.to_vec();
    for e in transplants.iter().chain(tail.iter().copied()) {
        if made.insert(local.result(e)) {
            out.push(e);
        }
    }
    out
}

/// The localized lines of a file, to compare edits by their result.
struct Local<'t> {
    text: &'t str,
    from: usize,
    to: usize,
}

impl<'t> Local<'t> {
    fn new(text: &'t str, lines: (usize, usize)) -> Local<'t> {
        Local { text, from: line_start(text, lines.0), to: line_start(text, lines.1 + 1) }
    }

    /// The localized lines after `e` (the edit's own text when it reaches outside them).
    fn result(&self, e: &Edit) -> String {
        match (self.text.get(self.from.min(e.start)..e.start), self.text.get(e.end..self.to.max(e.end))) {
            (Some(a), Some(b)) => format!("{a}{}{b}", e.replacement),
            _ => format!("{}..{}:{}", e.start, e.end, e.replacement),
        }
    }
}

/// Byte offset of 1-based `line` in `text` (its length past the last line).
fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1)
}

/// One leaf token: bytes `start..end` of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token {
    start: usize,
    end: usize,
    /// The tree-sitter node kind (its id in the grammar).
    kind: u16,
    /// An identifier (a name a placeholder may stand for).
    ident: bool,
}

impl Token {
    fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or("")
    }
}

/// Node kinds kept whole as one token though they have children (string literals).
const WHOLE: &[&str] = &["string", "string_literal", "character_literal", "text_block", "template_string"];

/// Node kinds that are names.
const IDENTS: &[&str] = &["identifier", "type_identifier", "field_identifier"];

/// The leaf tokens of `tree`'s root whose rows satisfy `keep` (comments and zero-width
/// missing nodes left out), in source order.
fn leaves(root: Node<'_>, keep: &dyn Fn(Node<'_>) -> bool) -> Vec<Token> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind().contains("comment") {
            continue;
        }
        if n.child_count() == 0 || WHOLE.contains(&n.kind()) {
            if n.end_byte() > n.start_byte() && keep(n) {
                out.push(Token {
                    start: n.start_byte(),
                    end: n.end_byte(),
                    kind: n.kind_id(),
                    ident: IDENTS.contains(&n.kind()),
                });
            }
            continue;
        }
        let mut cursor = n.walk();
        let kids: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// The tokens of the method on lines `lines` of `text` (what [`super::templates::edits`]
/// edits); empty when the file does not parse.
fn method_tokens(text: &str, language: Language, lines: (usize, usize)) -> Vec<Token> {
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else { return Vec::new() };
    leaves(tree.root_node(), &|n| n.start_position().row + 1 >= lines.0 && n.end_position().row < lines.1)
}

/// The tokens of a snippet as a corpus record holds it (offsets in `code`); `Err` with the
/// reason when it is empty, too long or does not parse.
fn snippet_tokens(code: &str, language: Language) -> Result<Vec<Token>, String> {
    const JAVA_HEAD: &str = "class Fix {\n";
    if code.trim().is_empty() {
        return Err("empty snippet".into());
    }
    if code.lines().count() > SNIPPET_MAX_LINES {
        return Err(format!("too long (over {SNIPPET_MAX_LINES} lines)"));
    }
    let (text, head) = match language {
        Language::Java => (format!("{JAVA_HEAD}{code}\n}}\n"), JAVA_HEAD.len()),
        Language::Python => (format!("{code}\n"), 0),
    };
    let mut parser = Parser::new();
    parser.set_language(&language.grammar()).map_err(|e| format!("unparsable ({e})"))?;
    let tree = parser.parse(&text, None).ok_or("unparsable")?;
    if tree.root_node().has_error() {
        return Err("unparsable".into());
    }
    let end = head + code.len();
    let tokens = leaves(tree.root_node(), &|n| n.start_byte() >= head && n.end_byte() <= end);
    Ok(tokens.into_iter().map(|t| Token { start: t.start - head, end: t.end - head, ..t }).collect())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Buggy,
    Fixed,
}

/// The size limits of the neighbours' edits that transplant ([`transplants_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most tokens changed on each side of one changed region.
    pub tokens: usize,
    /// Most changed regions of one fix transplanted together (1: a fix whose changes span
    /// more than `tokens` does not transplant).
    pub regions: usize,
}

impl Limits {
    /// What [`transplants`] uses: [`MAX_CHANGED_TOKENS`] and [`MAX_REGIONS`].
    pub const DEFAULT: Limits = Limits { tokens: MAX_CHANGED_TOKENS, regions: MAX_REGIONS };
}

/// One changed region of a neighbour's fix: its buggy tokens `b0..b0 + b` became its fixed
/// tokens `a0..a0 + a`; `left` and `right` unchanged tokens lie between it and the previous and
/// next region (or the snippet's ends): what its pattern may take as context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    b0: usize,
    b: usize,
    a0: usize,
    a: usize,
    left: usize,
    right: usize,
}

/// The changed regions between a fix's buggy tokens `bt` (of `buggy`) and fixed tokens `ft`
/// (of `fixed`), module docs step 1: the common token prefix and suffix stripped, one region
/// when what is left is within `limits.tokens` on each side; otherwise the regions of the
/// token diff of what is left (Myers, `similar`; at most [`MAX_DIFF_TOKENS`] a side), those
/// fewer than [`CONTEXT`] equal tokens apart merged, when there are at most `limits.regions`
/// of them, each within `limits.tokens`. `Err` with the reason.
fn regions(bt: &[Token], buggy: &str, ft: &[Token], fixed: &str, limits: Limits) -> Result<Vec<Region>, String> {
    let bx: Vec<&str> = bt.iter().map(|t| t.text(buggy)).collect();
    let fx: Vec<&str> = ft.iter().map(|t| t.text(fixed)).collect();
    let prefix = bx.iter().zip(&fx).take_while(|(x, y)| x == y).count();
    let room = bx.len().min(fx.len()) - prefix;
    let suffix = bx.iter().rev().zip(fx.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    let (b, a) = (bx.len() - prefix - suffix, fx.len() - prefix - suffix);
    if b == 0 && a == 0 {
        return Err("no token change".into());
    }
    if b <= limits.tokens && a <= limits.tokens {
        return Ok(vec![Region { b0: prefix, b, a0: prefix, a, left: prefix, right: suffix }]);
    }
    let too_large = || {
        if limits.regions > 1 {
            format!("too large ({b} → {a} tokens; at most {} in each of {} regions)", limits.tokens, limits.regions)
        } else {
            format!("too large ({b} → {a} tokens; at most {})", limits.tokens)
        }
    };
    if limits.regions < 2 || b > MAX_DIFF_TOKENS || a > MAX_DIFF_TOKENS {
        return Err(too_large());
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &bx[prefix..prefix + b], &fx[prefix..prefix + a]);
    // (old start, old end, new start, new end) within the middle.
    let mut spans: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in ops {
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        match spans.last_mut() {
            Some(last) if o.start - last.1 < CONTEXT => {
                last.1 = o.end;
                last.3 = n.end;
            }
            _ => spans.push((o.start, o.end, n.start, n.end)),
        }
    }
    if spans.is_empty()
        || spans.len() > limits.regions
        || spans.iter().any(|s| s.1 - s.0 > limits.tokens || s.3 - s.2 > limits.tokens)
    {
        return Err(too_large());
    }
    Ok(spans
        .iter()
        .enumerate()
        .map(|(i, s)| Region {
            b0: prefix + s.0,
            b: s.1 - s.0,
            a0: prefix + s.2,
            a: s.3 - s.2,
            left: if i == 0 { prefix + s.0 } else { s.0 - spans[i - 1].1 },
            right: spans.get(i + 1).map_or(b - s.1 + suffix, |next| next.0 - s.1),
        })
        .collect())
}

/// A neighbour's fix as its changed token regions (module docs, step 1).
struct Neighbour<'f> {
    id: &'f str,
    buggy: &'f str,
    fixed: &'f str,
    bt: Vec<Token>,
    ft: Vec<Token>,
    regions: Vec<Region>,
}

/// One element of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Element<'f> {
    /// Must be this text.
    Exact(&'f str),
    /// A neighbour's name, bound to a method token of this kind (id).
    Hole(&'f str, u16),
}

/// One place a region's pattern matches the method: at method token `at`, with `l` and `r`
/// context tokens, binding the neighbour's names to the method's by `bind`.
#[derive(Debug, Clone)]
struct Match<'f, 't> {
    at: usize,
    l: usize,
    r: usize,
    bind: HashMap<&'f str, &'t str>,
}

impl Match<'_, '_> {
    /// `(context tokens matched + 1) / (2 × CONTEXT + 1)` (module docs, step 3).
    fn fit(&self) -> f32 {
        (self.l + self.r + 1) as f32 / (2 * CONTEXT + 1) as f32
    }
}

/// One match per region, in the regions' order.
type Combo<'f, 't> = Vec<Match<'f, 't>>;

/// Most matches per region kept to combine with the other regions' (a fix of several regions).
const MAX_MATCHES_PER_REGION: usize = 8;

impl<'f> Neighbour<'f> {
    /// The neighbour's edit, or why it has none that transplants.
    fn read(f: &'f SimilarFix, language: Language, limits: Limits) -> Result<Neighbour<'f>, String> {
        match Language::from_name(&f.language) {
            Some(l) if l == language => {}
            _ => {
                return Err(format!("another language ({})", if f.language.is_empty() { "none" } else { &f.language }));
            }
        }
        let bt = snippet_tokens(&f.buggy_code, language)?;
        let ft = snippet_tokens(&f.fixed_code, language)?;
        let regions = regions(&bt, &f.buggy_code, &ft, &f.fixed_code, limits)?;
        Ok(Neighbour { id: &f.id, buggy: &f.buggy_code, fixed: &f.fixed_code, bt, ft, regions })
    }

    fn side(&self, s: Side) -> (&'f str, &[Token]) {
        match s {
            Side::Buggy => (self.buggy, &self.bt),
            Side::Fixed => (self.fixed, &self.ft),
        }
    }

    /// The changed regions' text on side `s` (their tokens, with the whitespace between
    /// them), joined by ` … `.
    fn region_text(&self, s: Side) -> String {
        let (text, t) = self.side(s);
        let one = |g: &Region| {
            let (from, n) = if s == Side::Buggy { (g.b0, g.b) } else { (g.a0, g.a) };
            if n == 0 { "" } else { text.get(t[from].start..t[from + n - 1].end).unwrap_or("") }
        };
        self.regions.iter().map(one).collect::<Vec<_>>().join(" … ")
    }

    /// Whether the token at `i` on side `s` is followed by `(` (a called name).
    fn called(&self, s: Side, i: usize) -> bool {
        let (text, t) = self.side(s);
        t.get(i + 1).is_some_and(|n| n.text(text) == "(")
    }

    /// Region `g`'s pattern with `l` context tokens on the left and `r` on the right.
    fn pattern(&self, g: &Region, l: usize, r: usize) -> Vec<Element<'f>> {
        (g.b0 - l..g.b0 + g.b + r)
            .map(|i| {
                let t = self.bt[i];
                if t.ident && !self.called(Side::Buggy, i) {
                    Element::Hole(t.text(self.buggy), t.kind)
                } else {
                    Element::Exact(t.text(self.buggy))
                }
            })
            .collect()
    }

    /// Region `g`'s matches on the method with `c` context tokens a side (fewer where the
    /// region has fewer); empty when that `(l, r)` is in `tried` (which it joins) or nothing
    /// matches. A region that changes no buggy token needs context.
    fn matches_at<'t>(
        &self,
        g: &Region,
        c: usize,
        tried: &mut Vec<(usize, usize)>,
        text: &'t str,
        method: &[Token],
    ) -> Vec<Match<'f, 't>> {
        let (l, r) = (c.min(g.left), c.min(g.right));
        if (l + r == 0 && g.b == 0) || tried.contains(&(l, r)) {
            return Vec::new();
        }
        tried.push((l, r));
        find(&self.pattern(g, l, r), text, method).into_iter().map(|(at, bind)| Match { at, l, r, bind }).collect()
    }

    /// The candidates on the method's tokens `method` of `text` (which uses `names`), each
    /// with its fit; `Err` with the reason when there is none. One region: the widest
    /// context that matches with names the method has. Several: each region's widest context
    /// that matches, combined in order (each region after the previous one, names bound
    /// consistently), the combination's fit the mean of its regions'.
    fn apply(&self, text: &str, method: &[Token], names: &HashSet<&str>) -> Result<Vec<(f32, Edit)>, String> {
        let mut why: Option<String> = None;
        if let [g] = self.regions[..] {
            let mut tried = Vec::new();
            for c in (0..=CONTEXT).rev() {
                let found = self.matches_at(&g, c, &mut tried, text, method);
                match self.edits(found.into_iter().map(|m| vec![m]).collect(), text, method, names) {
                    Ok(made) if !made.is_empty() => return Ok(made),
                    Ok(_) => {}
                    Err(w) => {
                        why.get_or_insert(w);
                    }
                }
            }
            return Err(why.unwrap_or_else(|| "no fit".into()));
        }
        let mut each: Vec<Vec<Match<'_, '_>>> = Vec::new();
        for (i, g) in self.regions.iter().enumerate() {
            let mut tried = Vec::new();
            let found =
                (0..=CONTEXT).rev().map(|c| self.matches_at(g, c, &mut tried, text, method)).find(|m| !m.is_empty());
            match found {
                Some(mut m) => {
                    m.truncate(MAX_MATCHES_PER_REGION);
                    each.push(m);
                }
                None => return Err(format!("no fit (region {} of {})", i + 1, self.regions.len())),
            }
        }
        let mut combos = Vec::new();
        self.combine(&each, &mut Vec::new(), &mut combos);
        if combos.is_empty() {
            return Err("no fit (the regions' places are out of order)".into());
        }
        let made = self.edits(combos, text, method, names)?;
        if made.is_empty() { Err("no fit".into()) } else { Ok(made) }
    }

    /// Every combination of one match per region from `each` (region `i`'s matches), each
    /// region's changed tokens after the previous one's with a token between them, into
    /// `out` (at most `MAX_MATCHES_PER_REGION²`).
    fn combine<'t>(&self, each: &[Vec<Match<'f, 't>>], partial: &mut Combo<'f, 't>, out: &mut Vec<Combo<'f, 't>>) {
        let i = partial.len();
        if i == each.len() {
            out.push(partial.clone());
            return;
        }
        for m in &each[i] {
            if out.len() >= MAX_MATCHES_PER_REGION * MAX_MATCHES_PER_REGION {
                return;
            }
            if let Some(prev) = partial.last() {
                let g = &self.regions[i - 1];
                if m.at + m.l < prev.at + prev.l + g.b + 1 {
                    continue;
                }
            }
            partial.push(m.clone());
            self.combine(each, partial, out);
            partial.pop();
        }
    }

    /// The edits of `combos` whose names bind consistently and injectively and that bring no
    /// name the method lacks, exact ones (no name mapped) first, then in source order, at
    /// most [`MAX_MATCHES_PER_FIX`]; `Err` naming an unknown identifier when none is left.
    fn edits<'t>(
        &self,
        combos: Vec<Combo<'f, 't>>,
        text: &str,
        method: &[Token],
        names: &HashSet<&str>,
    ) -> Result<Vec<(f32, Edit)>, String> {
        let mut why = None;
        let mut kept: Vec<(Combo<'f, 't>, HashMap<&'f str, &'t str>)> = Vec::new();
        for combo in combos {
            let Some(bind) = merged(&combo) else { continue };
            if let Some(u) = self.unknown(&bind, names) {
                why.get_or_insert(format!("unknown identifier `{u}`"));
                continue;
            }
            kept.push((combo, bind));
        }
        if kept.is_empty() {
            return why.map_or(Ok(Vec::new()), Err);
        }
        kept.sort_by_key(|(combo, bind)| (bind.iter().any(|(k, v)| k != v), combo[0].at));
        Ok(kept
            .iter()
            .take(MAX_MATCHES_PER_FIX)
            .filter_map(|(combo, bind)| {
                let renamed = bind.iter().any(|(k, v)| k != v);
                let fit = combo.iter().map(Match::fit).sum::<f32>() / combo.len() as f32;
                let e = self.edit(text, method, combo, bind)?;
                Some((if renamed { fit * RENAMED_FIT } else { fit }, e))
            })
            .collect())
    }

    /// The first identifier of the fixed regions that is neither bound by `bind`, a called
    /// name, nor a name the method has.
    fn unknown(&self, bind: &HashMap<&'f str, &str>, names: &HashSet<&str>) -> Option<&'f str> {
        self.regions.iter().flat_map(|g| g.a0..g.a0 + g.a).find_map(|i| {
            let t = self.ft[i];
            let name = t.text(self.fixed);
            let fine = !t.ident || self.called(Side::Fixed, i) || bind.contains_key(name) || names.contains(name);
            (!fine).then_some(name)
        })
    }

    /// Where region `g` matched as `m` changes the method: the pattern's bytes `start..end`,
    /// the changed bytes `from..to` within them, and the neighbour's fixed text for them,
    /// names mapped by `bind` and re-indented to the method.
    fn place(
        &self,
        g: &Region,
        m: &Match<'f, '_>,
        text: &str,
        method: &[Token],
        bind: &HashMap<&'f str, &str>,
    ) -> Option<Placed> {
        let (b, a, ft) = (g.b, g.a, &self.ft);
        let (at, l, r) = (m.at, m.l, m.r);
        let len = l + b + r;
        let (start, end) = (method.get(at)?.start, method.get(at + len - 1)?.end);
        // The changed region in the method: between the context tokens, or the changed
        // tokens themselves where a side has no context.
        let from = if l > 0 { method[at + l - 1].end } else { method[at].start };
        let to = if r > 0 {
            method[at + l + b].start
        } else if b > 0 {
            method[at + l + b - 1].end
        } else {
            from
        };
        // The same region in the neighbour's fixed code.
        let p = g.a0;
        let nf = if l > 0 {
            ft[p - 1].end
        } else if a > 0 {
            ft[p].start
        } else {
            ft.get(p).map_or(self.fixed.len(), |t| t.start)
        };
        let nt = if r > 0 {
            ft[p + a].start
        } else if a > 0 {
            ft[p + a - 1].end
        } else {
            nf
        };
        if nf > nt || from > to {
            return None;
        }
        // The neighbour's text there, names mapped.
        let mut new = String::new();
        let mut pos = nf;
        for t in &ft[p..p + a] {
            new.push_str(self.fixed.get(pos..t.start)?);
            let name = t.text(self.fixed);
            new.push_str(bind.get(name).copied().filter(|_| t.ident).unwrap_or(name));
            pos = t.end;
        }
        new.push_str(self.fixed.get(pos..nt)?);
        let new = reindent(&new, indent_at(self.fixed, nf), indent_at(text, from));
        Some(Placed { start, end, from, to, new })
    }

    /// The edit of `combo` (one match per region; names bound by `bind`): from the first
    /// pattern's start to the last one's end, each changed region replaced.
    fn edit(&self, text: &str, method: &[Token], combo: &Combo<'f, '_>, bind: &HashMap<&'f str, &str>) -> Option<Edit> {
        let placed: Vec<Placed> =
            self.regions.iter().zip(combo).map(|(g, m)| self.place(g, m, text, method, bind)).collect::<Option<_>>()?;
        let start = placed.iter().map(|p| p.start).min()?;
        let end = placed.iter().map(|p| p.end).max()?;
        let mut replacement = String::new();
        let mut pos = start;
        let mut said = Vec::new();
        for p in &placed {
            replacement.push_str(text.get(pos..p.from)?);
            replacement.push_str(&p.new);
            pos = p.to;
            let (was, now) = (one_line(&text[p.from..p.to]), one_line(&p.new));
            said.push(match (was.is_empty(), now.is_empty()) {
                (true, _) => format!("insert {now}"),
                (_, true) => format!("delete {was}"),
                _ => format!("{was} → {now}"),
            });
        }
        replacement.push_str(text.get(pos..end)?);
        let first = placed.first()?.from;
        Some(Edit {
            template: Template::Transplant,
            start,
            end,
            original: text[start..end].to_string(),
            replacement,
            line: text[..first].matches('\n').count() + 1,
            summary: format!("{} (from {})", said.join("; "), self.id),
            from: Some(self.id.to_string()),
        })
    }
}

/// Where one region of a neighbour's fix lands in the method ([`Neighbour::place`]).
struct Placed {
    start: usize,
    end: usize,
    from: usize,
    to: usize,
    new: String,
}

/// The bindings of `combo`'s matches as one, when they agree (one method name per neighbour
/// name and the reverse).
fn merged<'f, 't>(combo: &[Match<'f, 't>]) -> Option<HashMap<&'f str, &'t str>> {
    let mut bind: HashMap<&'f str, &'t str> = HashMap::new();
    let mut taken: HashMap<&'t str, &'f str> = HashMap::new();
    for m in combo {
        for (k, v) in &m.bind {
            if *bind.entry(k).or_insert(v) != *v || *taken.entry(v).or_insert(k) != *k {
                return None;
            }
        }
    }
    Some(bind)
}

/// Every place `pattern` matches among `method`'s tokens of `text`, with the names it binds
/// (consistently and injectively).
fn find<'f, 't>(pattern: &[Element<'f>], text: &'t str, method: &[Token]) -> Vec<(usize, HashMap<&'f str, &'t str>)> {
    if pattern.is_empty() || pattern.len() > method.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    'at: for at in 0..=method.len() - pattern.len() {
        let mut bind: HashMap<&'f str, &'t str> = HashMap::new();
        let mut taken: HashMap<&'t str, &'f str> = HashMap::new();
        for (e, t) in pattern.iter().zip(&method[at..]) {
            let got = t.text(text);
            match e {
                Element::Exact(want) => {
                    if *want != got {
                        continue 'at;
                    }
                }
                Element::Hole(name, kind) => {
                    if !t.ident || t.kind != *kind {
                        continue 'at;
                    }
                    let same = *bind.entry(name).or_insert(got) == got && *taken.entry(got).or_insert(name) == *name;
                    if !same {
                        continue 'at;
                    }
                }
            }
        }
        out.push((at, bind));
    }
    out
}

/// The indentation (leading spaces and tabs) of the line holding byte `at` of `text`.
fn indent_at(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `s` with each line's indentation moved from under `from` to under `to` (a line indented
/// less than `from` loses as much from `to`, as far as it has).
fn reindent(s: &str, from: &str, to: &str) -> String {
    if from == to || !s.contains('\n') {
        return s.to_string();
    }
    let mut out = String::new();
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            let body = line.trim_start_matches([' ', '\t']);
            let ind = &line[..line.len() - body.len()];
            if let Some(extra) = ind.strip_prefix(from) {
                out.push_str(to);
                out.push_str(extra);
            } else if from.starts_with(ind) {
                let less = from.len() - ind.len();
                out.push_str(&to[..to.len().saturating_sub(less)]);
            } else {
                out.push_str(ind);
            }
            out.push_str(body);
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::templates::testing::apply;
    use super::*;
    use crate::retrieve::actions::FixActions;

    fn fix(id: &str, score: f32, language: &str, buggy: &str, fixed: &str) -> SimilarFix {
        SimilarFix {
            rank: 1,
            score,
            id: id.into(),
            project: "p".into(),
            language: language.into(),
            root_cause: String::new(),
            buggy_code: buggy.into(),
            fixed_code: fixed.into(),
            diff: String::new(),
            fix_actions: FixActions::default(),
            source: None,
            description: None,
            license: None,
            meta: None,
            action: None,
            features: None,
        }
    }

    fn all_lines(text: &str) -> (usize, usize) {
        (1, text.lines().count())
    }

    const SHOP: &str = "class Shop {\n    boolean hasAny(List<Item> list) {\n        if (list.size() > 0) {\n            \
                        return true;\n        }\n        return false;\n    }\n}\n";

    #[test]
    fn a_null_check_insertion_is_transplanted_with_renaming() {
        let n = fix(
            "mined:count",
            0.8,
            "java",
            "int count(List<String> items) {\n    if (items.size() > 0) {\n        return items.size();\n    }\n    return 0;\n}",
            "int count(List<String> items) {\n    if (items != null && items.size() > 0) {\n        return items.size();\n    }\n    return 0;\n}",
        );
        let (edits, records) = transplants(&[n], SHOP, Language::Java, (2, 7));
        assert_eq!(edits.len(), 1, "{records:#?}");
        let e = &edits[0];
        assert_eq!((e.template, e.from.as_deref(), e.line), (Template::Transplant, Some("mined:count"), 3));
        assert!(apply(SHOP, e).contains("        if (list != null && list.size() > 0) {\n"), "{e:#?}");
        // Nothing else changes.
        assert_eq!(apply(SHOP, e).replace("list != null && ", ""), SHOP);
        let r = &records[0];
        assert_eq!((r.before.as_deref(), r.after.as_deref()), (Some(""), Some("!=null&&items")));
        assert_eq!((r.matched, r.why.as_deref()), (1, None));
        assert_eq!(e.summary, "insert != null && list (from mined:count)");
    }

    #[test]
    fn an_added_argument_and_a_clone_are_transplanted() {
        let text = "class Tree {\n    void graft(Tree a, Tree b) {\n        merge(a, b);\n        a.rebalance();\n    }\n\
                    \x20   int[] copy(int[] arr) {\n        return arr;\n    }\n}\n";
        let n = fix(
            "mined:merge",
            0.7,
            "java",
            "Node copy(Node src, Node dst) {\n    merge(src, dst);\n    return dst;\n}",
            "Node copy(Node src, Node dst) {\n    merge(src, dst, true);\n    return dst;\n}",
        );
        let (edits, records) = transplants(&[n], text, Language::Java, (2, 5));
        assert_eq!(edits.len(), 1, "{records:#?}");
        assert!(apply(text, &edits[0]).contains("        merge(a, b, true);\n        a.rebalance();"), "{edits:#?}");
        assert_eq!((records[0].before.as_deref(), records[0].after.as_deref()), (Some(""), Some(",true")));
        // `clone` is a called name: it needs no counterpart in the method.
        let n = fix(
            "mined:clone",
            0.7,
            "java",
            "int[] values(int[] xs) {\n    return xs;\n}",
            "int[] values(int[] xs) {\n    return xs.clone();\n}",
        );
        let (edits, _) = transplants(&[n], text, Language::Java, (6, 8));
        assert_eq!(edits.len(), 1);
        assert!(apply(text, &edits[0]).contains("        return arr.clone();\n"), "{edits:#?}");
        // A called name the receiver's type does not have: javac would refuse, no candidate.
        let n = fix(
            "mined:trim",
            0.7,
            "java",
            "int[] values(int[] xs) {\n    return xs;\n}",
            "int[] values(int[] xs) {\n    return xs.trim();\n}",
        );
        let (edits, records) = transplants(&[n], text, Language::Java, (6, 8));
        assert!(edits.is_empty(), "{edits:#?}");
        assert_eq!((records[0].matched, records[0].refused), (0, 1));
        assert_eq!(records[0].why.as_deref(), Some("javac would refuse: no call `trim` on a int[] in the file"));
    }

    #[test]
    fn a_changed_operator_is_transplanted_only_where_its_context_fits() {
        let text = "def find_last(values, target):\n    k = len(values) - 1\n    if target > 0:\n        \
                    pass\n    while k > 0:\n        if values[k] == target:\n            return k\n        \
                    k -= 1\n    return None\n";
        let n = fix(
            "mined:last",
            0.6,
            "python",
            "def last_index(xs, x):\n    i = len(xs) - 1\n    while i > 0:\n        if xs[i] == x:\n            \
             return i\n        i -= 1\n    return -1\n",
            "def last_index(xs, x):\n    i = len(xs) - 1\n    while i >= 0:\n        if xs[i] == x:\n            \
             return i\n        i -= 1\n    return -1\n",
        );
        let (edits, records) = transplants(&[n], text, Language::Python, all_lines(text));
        assert_eq!(edits.len(), 1, "{records:#?}");
        let out = apply(text, &edits[0]);
        assert!(out.contains("    while k >= 0:\n") && out.contains("    if target > 0:\n"), "{out}");
        assert_eq!(edits[0].line, 5);
        assert_eq!((records[0].before.as_deref(), records[0].after.as_deref()), (Some(">"), Some(">=")));
    }

    #[test]
    fn a_statement_insertion_is_reindented_to_the_method() {
        let text = "class K:\n    def close(self, conn):\n        conn.flush()\n        conn.shutdown()\n";
        let n = fix(
            "mined:stream",
            0.5,
            "python",
            "def end(s):\n  s.flush()\n  s.shutdown()\n",
            "def end(s):\n  s.flush()\n  s.sync()\n  s.shutdown()\n",
        );
        let (edits, records) = transplants(&[n], text, Language::Python, (2, 4));
        assert_eq!(edits.len(), 1, "{records:#?}");
        let out = apply(text, &edits[0]);
        assert_eq!(
            out,
            "class K:\n    def close(self, conn):\n        conn.flush()\n        conn.sync()\n        conn.shutdown()\n"
        );
    }

    #[test]
    fn no_transplant_for_unknown_names_large_edits_other_languages_or_bad_snippets() {
        let unknown = fix(
            "mined:offset",
            0.9,
            "java",
            "boolean any(List<String> items) {\n    if (items.size() > 0) {\n        return true;\n    }\n    return false;\n}",
            "boolean any(List<String> items) {\n    if (items.size() > offset) {\n        return true;\n    }\n    return false;\n}",
        );
        let large = fix(
            "mined:large",
            0.9,
            "java",
            "int f(int a) {\n    return a;\n}",
            "int f(int a) {\n    if (a < 0) {\n        throw new IllegalArgumentException(\"a\");\n    }\n    return a;\n}",
        );
        let python = fix("mined:py", 0.9, "python", "def f(x):\n    return x\n", "def f(x):\n    return x + 1\n");
        let broken = fix("mined:broken", 0.9, "java", "int f( {", "int f() { return 1; }");
        let empty = fix("mined:empty", 0.9, "java", "", "");
        let same = fix("mined:same", 0.9, "java", "int f() { return 1; }", "int f() {\n  return 1; // one\n}");
        let unknown_language = fix("mined:c", 0.9, "", "x", "y");
        let none = [unknown, large, python, broken, empty, same, unknown_language];
        let (edits, records) = transplants(&none, SHOP, Language::Java, (2, 7));
        assert!(edits.is_empty(), "{edits:#?}");
        let why: Vec<&str> = records.iter().map(|r| r.why.as_deref().unwrap_or("")).collect();
        assert_eq!(why[0], "unknown identifier `offset`");
        assert!(why[1].starts_with("too large"), "{why:?}");
        assert_eq!(why[2], "another language (python)");
        assert_eq!(why[3], "unparsable");
        assert_eq!(why[4], "empty snippet");
        assert_eq!(why[5], "no token change");
        assert_eq!(why[6], "another language (none)");
        assert!(records.iter().all(|r| r.matched == 0));
        // A small edit whose context is nowhere in the method.
        let elsewhere = fix("mined:x", 0.9, "java", "int f() {\n    return 2;\n}", "int f() {\n    return 3;\n}");
        let (edits, records) = transplants(&[elsewhere], SHOP, Language::Java, (2, 7));
        assert!(edits.is_empty());
        assert_eq!(records[0].why.as_deref(), Some("no fit"));
        // A file that does not parse as the language gives no transplant and no panic.
        let (edits, _) = transplants(&none, "}}}", Language::Java, (1, 1));
        assert!(edits.is_empty());
    }

    #[test]
    fn transplants_come_first_by_score_times_fit_then_the_templates_without_duplicates() {
        let text = "def total(xs, n):\n    s = 0\n    for i in range(0, n):\n        s += xs[i]\n    return s\n";
        // High similarity, but only its one-token context fits (`range(1, m)`, `m)` → `m + 1)`
        // would need `1`): fit (1 + 1 + 1) / 7, renamed.
        let loose = fix(
            "mined:loose",
            0.9,
            "python",
            "def f(m):\n    return [k for k in range(1, m)]\n",
            "def f(m):\n    return [k for k in range(1, m + 1)]\n",
        );
        // Lower similarity, exact full context: fit 1.
        let tight = fix(
            "mined:tight",
            0.5,
            "python",
            "def g(xs, n):\n    s = 0\n    for i in range(0, n):\n        s += xs[i]\n    return s\n",
            "def g(xs, n):\n    s = 0\n    for i in range(0, n):\n        s += xs[i] * 2\n    return s\n",
        );
        // The same result as `loose`'s, less similar: dropped as a duplicate.
        let again = fix(
            "mined:again",
            0.2,
            "python",
            "def h(n):\n    for i in range(0, n):\n        pass\n",
            "def h(n):\n    for i in range(0, n + 1):\n        pass\n",
        );
        let (edits, records) = transplants(&[loose, tight, again], text, Language::Python, all_lines(text));
        let from: Vec<&str> = edits.iter().filter_map(|e| e.from.as_deref()).collect();
        assert_eq!(from, ["mined:tight", "mined:loose"], "{records:#?}");
        assert!(apply(text, &edits[0]).contains("s += xs[i] * 2\n"));
        // One context token fits twice (`n)`): in the signature, `def total(xs, n + 1):` does
        // not parse and is dropped before validation.
        assert!(apply(text, &edits[1]).contains("range(0, n + 1)"), "{edits:#?}");
        assert_eq!((records[0].matched, records[0].refused), (1, 1), "{records:#?}");
        // `again` fits the same two places with `, n) :`; the one kept is `loose`'s result.
        assert_eq!((records[2].matched, records[2].refused), (1, 1), "{records:#?}");
        // A template edit with a transplant's result is dropped; the rest keep their order.
        let same = Edit {
            template: Template::ChangeOperand,
            start: text.rfind("n):").unwrap(),
            end: text.rfind("n):").unwrap() + 1,
            original: "n".into(),
            replacement: "n + 1".into(),
            line: 3,
            summary: String::new(),
            from: None,
        };
        let other = Edit { replacement: "n - 1".into(), ..same.clone() };
        let templates = [same, other];
        let all = then_templates(&edits, &templates, 0, text, all_lines(text));
        assert_eq!(all.len(), 3);
        assert_eq!(all[2].replacement, "n - 1");
        // A template edit that makes a neighbour's own edit (the lead) comes first, and the
        // transplant with its result is the one dropped.
        let all = then_templates(&edits, &templates, 1, text, all_lines(text));
        let order: Vec<(Template, &str)> = all.iter().map(|e| (e.template, e.replacement.as_str())).collect();
        assert_eq!(order.len(), 3, "{all:#?}");
        assert_eq!((order[0], order[2]), ((Template::ChangeOperand, "n + 1"), (Template::ChangeOperand, "n - 1")));
        assert_eq!((all[1].template, all[1].from.as_deref()), (Template::Transplant, Some("mined:tight")));
        // Without transplants, the templates as they were.
        assert_eq!(then_templates(&[], &templates, 1, text, all_lines(text)).len(), 2);
    }

    #[test]
    fn a_fix_of_several_regions_is_transplanted_where_they_fit_in_order() {
        // The same call changed at two places 21 tokens apart: one region would be 23 tokens.
        let neighbour = |id: &str| {
            fix(
                id,
                0.7,
                "java",
                "String name(Option o) {\n    String s = o.getOpt();\n    if (s == null) {\n        log(\"none\");\n    }\n    return prefix + o.getOpt();\n}",
                "String name(Option o) {\n    String s = o.getKey();\n    if (s == null) {\n        log(\"none\");\n    }\n    return prefix + o.getKey();\n}",
            )
        };
        let text = "class C {\n    String label(Option opt) {\n        String v = opt.getOpt();\n        if (v == null) {\n            \
                    v = \"\";\n        }\n        return v + opt.getOpt();\n    }\n    String key(Option other) {\n        return other.getKey();\n    }\n}\n";
        let three = Limits { regions: 3, ..Limits::DEFAULT };
        let (edits, records) = transplants_with(&[neighbour("mined:two")], text, Language::Java, (2, 8), three);
        assert_eq!(edits.len(), 1, "{records:#?}");
        let fixed = apply(text, &edits[0]);
        assert_eq!(fixed, text.replace("opt.getOpt()", "opt.getKey()"), "{edits:#?}");
        assert_eq!(edits[0].line, 3);
        assert!(edits[0].summary.starts_with("getOpt → getKey; getOpt → getKey (from mined:two)"), "{edits:#?}");
        let r = &records[0];
        assert_eq!(
            (r.before.as_deref(), r.after.as_deref(), r.matched),
            (Some("getOpt…getOpt"), Some("getKey…getKey"), 1)
        );
        // With one region at most (the default), the fix is too large to transplant.
        let (edits, records) = transplants(&[neighbour("mined:two")], text, Language::Java, (2, 8));
        assert!(edits.is_empty());
        assert_eq!(records[0].why.as_deref(), Some("too large (23 → 23 tokens; at most 10)"));
        // The second region's place comes before the first's in this method: no fit.
        let swapped = "class C {\n    String label(Option opt) {\n        log(w + opt.getOpt());\n        String v = opt.getOpt();\n    }\n}\n";
        let (edits, records) = transplants_with(&[neighbour("mined:two")], swapped, Language::Java, (2, 5), three);
        // Only the context-free places are left: `+ opt.getOpt()` first, then `= opt.getOpt()`
        // would be in order, but the first region's widest fit (`= o .`) is on line 4.
        assert!(edits.is_empty(), "{edits:#?}");
        assert_eq!(records[0].why.as_deref(), Some("no fit (the regions' places are out of order)"));
        // One place only: both regions fit it, and a fix of two places is not made at one.
        let once = "class C {\n    String label(Option opt) {\n        String v = opt.getOpt();\n        return v;\n    }\n}\n";
        let (_, records) = transplants_with(&[neighbour("mined:two")], once, Language::Java, (2, 5), three);
        assert_eq!(records[0].why.as_deref(), Some("no fit (the regions' places are out of order)"));
        // No place at all.
        let none = "class C {\n    String label(Option opt) {\n        return opt.getKey();\n    }\n}\n";
        let (_, records) = transplants_with(&[neighbour("mined:two")], none, Language::Java, (2, 4), three);
        assert_eq!(records[0].why.as_deref(), Some("no fit (region 1 of 2)"));
        // Four places changed far apart: more regions than the limit.
        let four = fix(
            "mined:four",
            0.7,
            "java",
            "void f() {\n    a(1); b(0, 0, 0); c(1); d(0, 0, 0); e(1); g(0, 0, 0); h(1);\n}",
            "void f() {\n    a(2); b(0, 0, 0); c(2); d(0, 0, 0); e(2); g(0, 0, 0); h(2);\n}",
        );
        let (edits, records) = transplants_with(&[four], text, Language::Java, (2, 8), three);
        assert!(edits.is_empty());
        assert_eq!(records[0].why.as_deref(), Some("too large (43 → 43 tokens; at most 10 in each of 3 regions)"));
    }
}
