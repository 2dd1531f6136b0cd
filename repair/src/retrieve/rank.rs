//! Action-aware ranking of retrieved bug-fix pairs (issue 11 item 3): the dense cosine,
//! a lexical BM25 score over code tokens, and whether each hit's repair action *fits* the
//! query code, combined linearly over a candidate pool from the dense search.
//!
//! # Rankings
//! | `--rank` | score of a candidate |
//! | --- | --- |
//! | `dense` | its cosine similarity (the engine's order) |
//! | `hybrid` | `dense + w_bm25 · bm25` (RAP-Gen's hybrid retriever: dense and BM25 together, Wang et al., FSE 2023) |
//! | `action` | `hybrid + w_kind · [fit ≥ kind] + w_tokens · [fit = tokens] + w_vote · vote + w_prior · prior − w_other · [no action]` |
//!
//! with, per candidate: `bm25` its Okapi BM25 score (k1 = 1.2, b = 0.75; Robertson &
//! Zaragoza, "The probabilistic relevance framework: BM25 and beyond", 2009) for the
//! query's code terms, divided by the pool's best (so in [0, 1]); `fit` how its action
//! fits the query code ([`actions::Fit`]); `vote` the share of its label in the
//! suggestions of the top [`VOTE_DEPTH`] dense hits ([`super::suggest`]: a k-nearest-
//! neighbour vote, hits whose buggy code equals the query's excluded); `prior` the share
//! of its label among the index's classified non-`OTHER` documents; `[no action]` 1 for
//! a hit labelled `OTHER` or unclassified (its fix names no action to apply).
//!
//! Under every ranking, `dense` included, candidates whose buggy code duplicates the query
//! code come first (issue 29 item 3): the same code up to whitespace, then near-duplicates
//! by code alone ([`QueryCode::duplicate`], whatever the root causes say) or by cosine
//! ([`NEAR_DUPLICATE`]), each class in dense order; the same code fixed elsewhere is the
//! strongest ingredient there is, and no cause wording or action prior may bury it.
//!
//! The weights ([`Weights::FITTED`]) were fixed on a split of the action-retrieval
//! corpus that shares no project with the evaluation queries, with this project's own
//! labels as relevance (`scripts/fit-rank-weights.py`); nothing was learned on the
//! evaluation queries.
//!
//! Terms: identifiers split at `_` and camelCase humps, lower-cased, plus whole
//! identifiers and numbers; a term of one character is dropped.

use std::collections::HashMap;
use std::str::FromStr;

use actions::{ActionKind, Fit, Language, Shape};
use engine::{Record, SegmentHit, Segments};
use serde::{Deserialize, Serialize};

use super::actions::FixActions;
use super::suggest::{ActionPrior, Voter, suggest};

/// Dense hits whose labels vote for [`Features::vote`].
pub const VOTE_DEPTH: usize = 20;

/// Fewest dense candidates reranked, whatever `k`: a reranking needs room to move.
pub const MIN_POOL: usize = 100;

/// Cosine at or above which a candidate is a near-duplicate of the query: near-duplicates
/// come first, in dense order, under every ranking. The same code fixed elsewhere (a fork,
/// a backport, the bug itself when it is in the corpus) is the strongest ingredient there
/// is, and no action prior may bury it.
pub const NEAR_DUPLICATE: f32 = 0.95;

/// Token similarity ([`QueryCode::duplicate`]) at or above which a candidate's buggy code is
/// a near-duplicate of the query code, whatever either root cause says: 0.9, one token in
/// ten changed (a renamed type, a reformatted or slightly edited copy).
pub const NEAR_DUPLICATE_CODE: f32 = 0.9;

/// How a candidate's buggy code relates to the query code, by code alone (never by the
/// root causes): the ordering puts [`Duplicate::Same`] first, then [`Duplicate::Near`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Duplicate {
    /// Neither.
    #[default]
    None,
    /// A near-duplicate: code tokens at least [`NEAR_DUPLICATE_CODE`] alike, or (in the
    /// query's space) a cosine of at least [`NEAR_DUPLICATE`].
    Near,
    /// The same code, up to whitespace.
    Same,
}

/// Whitespace-insensitive form of code: its whitespace-separated words joined by one space.
/// Code equal under it is "the same code" ([`Duplicate::Same`]); the pipeline's exact-match
/// leakage filter drops such hits. O(code bytes).
pub fn normalize(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The query code, prepared once to compare with many candidates' buggy code.
#[derive(Debug, Clone)]
pub struct QueryCode {
    normalized: String,
    tokens: Vec<u64>,
    counts: HashMap<u64, u32>,
}

impl QueryCode {
    /// Prepares `code` (O(code bytes)).
    pub fn new(code: &str) -> QueryCode {
        let tokens: Vec<u64> = code_tokens(code).collect();
        let mut counts = HashMap::new();
        for &t in &tokens {
            *counts.entry(t).or_default() += 1;
        }
        QueryCode { normalized: normalize(code), tokens, counts }
    }

    /// How `buggy_code` relates to the query code: [`Duplicate::Same`] when equal up to
    /// whitespace (their token sequences equal), [`Duplicate::Near`] when the Dice
    /// coefficient of their token multisets (`2·|A∩B| / (|A|+|B|)`, tokens: identifiers,
    /// numbers and each other non-space character, case kept) is at least
    /// [`NEAR_DUPLICATE_CODE`]. O(|buggy_code|); an empty query code duplicates nothing.
    pub fn duplicate(&self, buggy_code: &str) -> Duplicate {
        if self.tokens.is_empty() {
            return Duplicate::None;
        }
        if normalize(buggy_code) == self.normalized {
            return Duplicate::Same;
        }
        let (qa, mut other) = (self.tokens.len(), 0usize);
        let mut left = self.counts.clone();
        let mut shared = 0usize;
        for t in code_tokens(buggy_code) {
            other += 1;
            if let Some(n) = left.get_mut(&t).filter(|n| **n > 0) {
                *n -= 1;
                shared += 1;
            }
        }
        if shared == qa && other == qa && code_tokens(buggy_code).eq(self.tokens.iter().copied()) {
            return Duplicate::Same;
        }
        let dice = 2.0 * shared as f32 / (qa + other) as f32;
        if dice >= NEAR_DUPLICATE_CODE { Duplicate::Near } else { Duplicate::None }
    }

    /// [`QueryCode::duplicate`], or [`Duplicate::Near`] for a candidate at cosine `dense` ≥
    /// [`NEAR_DUPLICATE`] in the query's space.
    pub fn class(&self, buggy_code: &str, dense: f32) -> Duplicate {
        let by_code = self.duplicate(buggy_code);
        if by_code == Duplicate::None && dense >= NEAR_DUPLICATE { Duplicate::Near } else { by_code }
    }
}

/// Lexical tokens of `code` as FNV-1a hashes of their exact text: each run of letters,
/// digits and `_`, and each other character that is not whitespace.
fn code_tokens(code: &str) -> impl Iterator<Item = u64> + '_ {
    let mut rest = code;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        let first = rest.chars().next()?;
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let end = if word(first) { rest.find(|c: char| !word(c)).unwrap_or(rest.len()) } else { first.len_utf8() };
        let (token, tail) = rest.split_at(end);
        rest = tail;
        Some(fnv(token))
    })
}

/// 64-bit FNV-1a of the UTF-8 of `s`.
pub(crate) fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// One dense candidate: the engine's hit, its stored pair (decoded once, by the search that
/// found it) and what its fix did; with its features once a ranking other than `dense`
/// scored it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The dense hit (its `score` stays the cosine).
    pub hit: SegmentHit,
    /// The stored pair.
    pub doc: Record,
    /// What its fix did.
    pub actions: FixActions,
    /// Its features ([`rerank`]); `None` in the `dense` order.
    pub features: Option<Features>,
}

impl Candidate {
    /// The candidate `hit` with its document `doc`, whose actions column is read here.
    ///
    /// # Errors
    /// [`engine::Error::Corrupt`] when the actions column cannot be read ([`FixActions::of`]).
    pub fn new(hit: SegmentHit, doc: Record) -> engine::Result<Candidate> {
        let actions = FixActions::of(&doc)?;
        Ok(Candidate { hit, doc, actions, features: None })
    }
}

/// The dense candidates (best first) with those whose buggy code duplicates `code`
/// ([`QueryCode::class`]) moved first: `Same`, then `Near`, each in dense order, then the
/// rest in dense order. The `dense` ranking's order. O(candidates · code).
pub fn dense_order(code: &str, mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    let query = QueryCode::new(code);
    // Stable: equal classes keep the dense order.
    candidates.sort_by_cached_key(|c| std::cmp::Reverse(query.class(&c.doc.buggy_code, c.hit.score)));
    candidates
}

/// A ranking of the candidates (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rank {
    /// Cosine similarity only.
    Dense,
    /// Cosine plus BM25.
    Hybrid,
    /// Hybrid plus action fit, vote and prior.
    Action,
}

impl Rank {
    /// Every ranking's name, for help and errors.
    pub const NAMES: [&str; 3] = ["dense", "hybrid", "action"];

    /// The ranking's name.
    pub fn name(self) -> &'static str {
        match self {
            Rank::Dense => "dense",
            Rank::Hybrid => "hybrid",
            Rank::Action => "action",
        }
    }
}

impl FromStr for Rank {
    type Err = String;

    /// `dense`, `hybrid` or `action`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "dense" => Ok(Rank::Dense),
            "hybrid" => Ok(Rank::Hybrid),
            "action" => Ok(Rank::Action),
            _ => Err(format!("unknown ranking {s:?}: use one of {}", Rank::NAMES.join(", "))),
        }
    }
}

/// Weights of the linear score (module docs). Dense has weight 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    /// Of the pool-normalised BM25 score.
    pub bm25: f32,
    /// Of "the hit's action kind fits the query code".
    pub fit_kind: f32,
    /// Of "its concrete tokens occur there too".
    pub fit_tokens: f32,
    /// Of the label's share of the top dense hits' vote.
    pub vote: f32,
    /// Of the label's share among the index's labelled documents.
    pub prior: f32,
    /// Subtracted for a hit without an action (`OTHER`, unclassified).
    pub no_action: f32,
}

impl Weights {
    /// The weights `--rank action` uses, fitted as the module docs say.
    ///
    /// Fitted by `scripts/fit-rank-weights.py --space code --queries 600 --without prior`
    /// (coordinate ascent over 0–2 on 300 training queries; P@5 by this project's labels,
    /// fit half 0.164, held-out half 0.151 [0.119, 0.189] against dense 0.064 [0.050,
    /// 0.079]). The prior is left out: with it the fit puts all weight on the prior
    /// (P@5 0.216 held-out), which ranks every query's candidates by how common their
    /// action is, whatever the query; the vote carries the query-specific signal.
    pub const FITTED: Weights =
        Weights { bm25: 0.5, fit_kind: 0.2, fit_tokens: 0.0, vote: 2.0, prior: 0.0, no_action: 0.2 };

    /// `hybrid`: BM25 only.
    pub fn hybrid(self) -> Weights {
        Weights { bm25: self.bm25, fit_kind: 0.0, fit_tokens: 0.0, vote: 0.0, prior: 0.0, no_action: 0.0 }
    }
}

/// Corpus statistics the ranking needs: BM25 document frequencies and lengths, and the
/// label distribution. One pass over two columns of every document of the segments
/// (O(corpus code bytes)); build once per process (a server keeps it). Terms are kept as
/// 64-bit FNV-1a hashes of their text (a collision merges two terms' counts: at 10⁶
/// distinct terms the chance of any is about 3·10⁻⁸).
#[derive(Debug, Clone, Default)]
pub struct CorpusStats {
    df: HashMap<u64, u32>,
    docs: usize,
    avg_len: f32,
    /// Share of each label among classified non-`OTHER` documents.
    prior: ActionPrior,
}

impl CorpusStats {
    /// Reads the `buggy_code` and `action_label` columns of every document of `index`.
    ///
    /// # Errors
    /// [`engine::Error::Corrupt`] when a document batch cannot be decoded.
    pub fn of(index: &Segments) -> engine::Result<CorpusStats> {
        let mut s = CorpusStats::default();
        let (mut total_len, mut labels) = (0usize, HashMap::<String, usize>::new());
        let mut seen = std::collections::HashSet::new();
        for ix in index.indexes() {
            ix.docs()?.for_each_fields(["buggy_code", "action_label"], |_, [code, label]| {
                seen.clear();
                for t in term_hashes(code) {
                    total_len += 1;
                    if seen.insert(t) {
                        *s.df.entry(t).or_default() += 1;
                    }
                }
                if !label.is_empty() && label != "OTHER" {
                    *labels.entry(label.to_string()).or_default() += 1;
                }
                s.docs += 1;
                Ok(())
            })?;
        }
        s.avg_len = total_len as f32 / s.docs.max(1) as f32;
        s.prior = ActionPrior::from_counts(labels);
        Ok(s)
    }

    /// Okapi BM25 of the document with term counts `doc` (and `len` terms) for the
    /// distinct `query` terms ([`query_terms`]), summed in their order; 0 for an empty query.
    fn bm25(&self, query: &[u64], doc: &HashMap<u64, u32>, len: usize) -> f32 {
        const K1: f32 = 1.2;
        const B: f32 = 0.75;
        let n = self.docs as f32;
        query
            .iter()
            .filter_map(|t| doc.get(t).map(|&tf| (t, tf as f32)))
            .map(|(t, tf)| {
                let df = self.df.get(t).copied().unwrap_or(0) as f32;
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len as f32 / self.avg_len.max(1.0)))
            })
            .sum()
    }

    /// Share of `label` among the index's labelled non-`OTHER` documents, 0 when unseen.
    pub fn prior(&self, label: &str) -> f32 {
        self.prior.share(label)
    }

    /// The label shares read in the same pass: [`ActionPrior::of`] without a second one.
    pub fn action_prior(&self) -> &ActionPrior {
        &self.prior
    }
}

/// Term counts of `code` and its number of terms (module docs).
fn term_counts(code: &str) -> (HashMap<u64, u32>, usize) {
    let mut counts = HashMap::new();
    let mut n = 0;
    for t in term_hashes(code) {
        *counts.entry(t).or_default() += 1;
        n += 1;
    }
    (counts, n)
}

/// The code terms of `code`, in order (module docs): each identifier or number lower-cased,
/// then, when it has several, its parts.
pub fn terms(code: &str) -> impl Iterator<Item = String> + '_ {
    words(code).flat_map(|word| {
        let mut out = vec![word.to_lowercase()];
        let parts = split_identifier(word);
        if parts.len() > 1 {
            out.extend(parts.into_iter().map(|(a, b)| word[a..b].to_lowercase()));
        }
        out.into_iter().filter(|t| t.chars().count() > 1)
    })
}

/// [`terms`] as FNV-1a hashes of their lower-cased text, without allocating a string per
/// term.
fn term_hashes(code: &str) -> impl Iterator<Item = u64> + '_ {
    words(code).flat_map(|word| {
        let parts = split_identifier(word);
        let whole = std::iter::once((0, word.len()));
        let parts = if parts.len() > 1 { parts } else { Vec::new() };
        whole
            .chain(parts)
            .filter(move |&(a, b)| word[a..b].chars().nth(1).is_some())
            .map(move |(a, b)| fnv_lower(&word[a..b]))
    })
}

fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// 64-bit FNV-1a of the lower-cased UTF-8 of `s`.
fn fnv_lower(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buf = [0u8; 4];
    for c in s.chars().flat_map(char::to_lowercase) {
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Byte ranges of the parts of an identifier: `parseHTTPRequest_now` → `parse`, `HTTP`,
/// `Request`, `now` (split at `_`, at a lower-or-digit → upper step, and before the last
/// upper of an upper run followed by a lower).
fn split_identifier(word: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next_lower = chars.get(i + 1).is_some_and(|n| n.1.is_lowercase());
        let prev = i.checked_sub(1).map(|p| chars[p].1);
        let boundary = c == '_'
            || (c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()))
            || (c.is_uppercase() && prev.is_some_and(char::is_uppercase) && next_lower);
        if boundary && let Some(s) = start.take() {
            parts.push((s, at));
        }
        if c != '_' && start.is_none() {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// Per-candidate features (module docs), reported by `fixdex search --json` with each hit
/// of a ranking other than `dense`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Features {
    /// Cosine similarity.
    pub dense: f32,
    /// BM25 over the pool's best, in [0, 1].
    pub bm25: f32,
    /// How the hit's action fits the query code.
    pub fit: Fit,
    /// The hit label's share of the top dense hits' vote, in [0, 1].
    pub vote: f32,
    /// The hit label's share among the index's labelled documents, in [0, 1].
    pub prior: f32,
    /// The hit names no action (`OTHER` or unclassified).
    pub no_action: bool,
    /// Whether the hit's buggy code duplicates the query code ([`QueryCode::class`]):
    /// duplicates come first under every ranking.
    pub duplicate: Duplicate,
}

impl Features {
    /// The score under `rank` with `w`.
    pub fn score(&self, rank: Rank, w: &Weights) -> f32 {
        match rank {
            Rank::Dense => self.dense,
            Rank::Hybrid => self.dense + w.bm25 * self.bm25,
            Rank::Action => {
                let fit = |level: Fit| if self.fit >= level { 1.0 } else { 0.0 };
                self.dense
                    + w.bm25 * self.bm25
                    + w.fit_kind * fit(Fit::Kind)
                    + w.fit_tokens * fit(Fit::Tokens)
                    + w.vote * self.vote
                    + w.prior * self.prior
                    - if self.no_action { w.no_action } else { 0.0 }
            }
        }
    }
}

/// Dense hits to fetch for a ranking that returns `k`: at least [`MIN_POOL`], under every
/// ranking (`dense` too moves duplicates of the query code first, [`dense_order`]).
pub fn pool_size(_rank: Rank, k: usize) -> usize {
    k.max(MIN_POOL)
}

/// Reranks the dense `candidates` (best first) for the query `code` in `lang` (`None`: the
/// best candidate's language; the shape of code in a language without a grammar is empty,
/// so no action fits) and returns them in the new order, best first, each with its
/// features: duplicates of the query code ([`QueryCode::class`]: the same code, then
/// near-duplicates by code alone or by cosine [`NEAR_DUPLICATE`]) first, each class in
/// dense order, then the rest by score. A stable sort: equal scores keep the dense order.
/// O(candidates · code).
pub fn rerank(
    stats: &CorpusStats,
    code: &str,
    lang: Option<Language>,
    candidates: Vec<Candidate>,
    rank: Rank,
    w: &Weights,
) -> Vec<Candidate> {
    let lang = lang.or_else(|| candidates.first().and_then(|c| c.doc.language.parse().ok()));
    let shape = lang.map(|l| Shape::of(code, l)).unwrap_or_default();
    let bm25 = bm25_scores(stats, code, &candidates);
    let query = QueryCode::new(code);
    let votes = votes(&query, &candidates);
    let scoring = Scoring { stats, shape: &shape, query: &query, votes: &votes };
    let scored: Vec<(f32, Candidate)> = candidates
        .into_iter()
        .zip(bm25)
        .map(|(mut c, bm25)| {
            let features = scoring.features(&c, bm25);
            c.features = Some(features);
            (features.score(rank, w), c)
        })
        .collect();
    sorted(scored)
}

/// The candidates, each with its `score`, in the reranked order: duplicate classes first,
/// each by cosine, then the rest by score (a stable sort).
fn sorted(mut scored: Vec<(f32, Candidate)>) -> Vec<Candidate> {
    scored.sort_by(|(sa, a), (sb, b)| {
        let (ka, kb) = (order_key(a, *sa), order_key(b, *sb));
        kb.0.cmp(&ka.0).then(kb.1.total_cmp(&ka.1))
    });
    scored.into_iter().map(|(_, c)| c).collect()
}

/// What the features of every candidate of one query are computed from.
struct Scoring<'a> {
    stats: &'a CorpusStats,
    shape: &'a Shape,
    query: &'a QueryCode,
    votes: &'a HashMap<String, f32>,
}

impl Scoring<'_> {
    /// The features of `c`, whose pool-normalised BM25 score is `bm25`.
    fn features(&self, c: &Candidate, bm25: f32) -> Features {
        let label = c.actions.action_label.as_str();
        Features {
            dense: c.hit.score,
            bm25,
            fit: fit(self.shape, &c.actions),
            vote: self.votes.get(label).copied().unwrap_or(0.0),
            prior: self.stats.prior(label),
            no_action: label.is_empty() || label == "OTHER",
            duplicate: self.query.class(&c.doc.buggy_code, c.hit.score),
        }
    }
}

/// The sort key of a reranked candidate with `score`: its duplicate class, then its cosine
/// within a duplicate class, else its score.
fn order_key(c: &Candidate, score: f32) -> (Duplicate, f32) {
    match c.features.map_or(Duplicate::None, |f| f.duplicate) {
        Duplicate::None => (Duplicate::None, score),
        d => (d, c.hit.score),
    }
}

/// Each candidate's BM25 score for the query `code`'s terms, over the pool's best (in
/// [0, 1]; all 0 when none shares a term).
/// The distinct term hashes of query `code`, ascending: BM25 sums over them in this order,
/// so a score is the same bits in every run (a `HashMap`'s order changes between runs, and
/// a near tie under `--rank hybrid` or `action` could flip with the last bit).
fn query_terms(code: &str) -> Vec<u64> {
    let mut terms: Vec<u64> = term_counts(code).0.into_keys().collect();
    terms.sort_unstable();
    terms
}

fn bm25_scores(stats: &CorpusStats, code: &str, candidates: &[Candidate]) -> Vec<f32> {
    let query_terms = query_terms(code);
    let bm25: Vec<f32> = candidates
        .iter()
        .map(|c| {
            let (counts, len) = term_counts(&c.doc.buggy_code);
            stats.bm25(&query_terms, &counts, len)
        })
        .collect();
    let best = bm25.iter().copied().fold(0.0f32, f32::max);
    bm25.into_iter().map(|b| if best > 0.0 { b / best } else { 0.0 }).collect()
}

/// Each label's share of the vote of the top [`VOTE_DEPTH`] dense candidates whose buggy
/// code is not the query's (up to whitespace).
fn votes(query: &QueryCode, candidates: &[Candidate]) -> HashMap<String, f32> {
    let voters: Vec<Voter<'_>> = candidates
        .iter()
        .filter(|c| normalize(&c.doc.buggy_code) != query.normalized)
        .take(VOTE_DEPTH)
        .map(|c| Voter { id: &c.doc.id, score: c.hit.score, actions: &c.actions })
        .collect();
    suggest(&voters, usize::MAX).into_iter().map(|s| (s.kind, s.share)).collect()
}

/// How the label of `actions` fits the query code's `shape`: the best fit of the label's own
/// actions; a label given for the whole fix (a try-catch made of inserted statements) fits
/// by its kind.
fn fit(shape: &Shape, actions: &FixActions) -> Fit {
    let label = actions.action_label.as_str();
    let own = actions.actions.iter().filter(|a| a.kind.as_str() == label).map(|a| shape.fit(a)).max();
    own.or_else(|| ActionKind::from_name(label).map(|k| if shape.fits_kind(k) { Fit::Kind } else { Fit::None }))
        .unwrap_or(Fit::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_terms() {
        let parts = |w: &'static str| split_identifier(w).into_iter().map(|(a, b)| &w[a..b]).collect::<Vec<_>>();
        assert_eq!(parts("parseHTTPRequest_now"), ["parse", "HTTP", "Request", "now"]);
        assert_eq!(parts("x2Value"), ["x2", "Value"]);
        assert_eq!(parts("__init__"), ["init"]);
        let t: Vec<String> = terms("if (node.getName() == null) i++;").collect();
        assert_eq!(t, ["if", "node", "getname", "get", "name", "null"]);
        let h: Vec<u64> = term_hashes("if (node.getName() == null) i++;").collect();
        assert_eq!(h, t.iter().map(|t| fnv_lower(t)).collect::<Vec<_>>(), "hashes are of the same terms");
        assert_eq!(fnv_lower("GetName"), fnv_lower("getname"));
    }

    #[test]
    fn ranks_parse_and_scores_order() {
        assert_eq!("action".parse::<Rank>(), Ok(Rank::Action));
        assert!("bm25".parse::<Rank>().unwrap_err().contains("dense, hybrid, action"));
        let f = Features {
            dense: 0.5,
            bm25: 1.0,
            fit: Fit::Tokens,
            vote: 0.5,
            prior: 0.2,
            no_action: false,
            duplicate: Duplicate::None,
        };
        let w = Weights::FITTED;
        assert_eq!(f.score(Rank::Dense, &w), 0.5);
        assert!(f.score(Rank::Hybrid, &w) > 0.5);
        let none = Features { fit: Fit::None, no_action: true, ..f };
        assert!(none.score(Rank::Action, &w) < f.score(Rank::Action, &w));
    }

    #[test]
    fn duplicates_by_code_alone() {
        let q = QueryCode::new("int add(int a, int b) { return a - b; }");
        assert_eq!(q.duplicate("int add(int a, int b) {\n    return a - b;\n}\n"), Duplicate::Same);
        assert_eq!(q.duplicate("int add(int a,int b){return a-b;}"), Duplicate::Same);
        assert_eq!(q.duplicate("long add(int a, int b) { return a - b; }"), Duplicate::Near);
        assert_eq!(q.duplicate("int add(int a, int b) { return a + b + 1; }"), Duplicate::None);
        assert_eq!(q.duplicate(""), Duplicate::None);
        assert_eq!(q.class("int sum(int[] xs) { return 0; }", 0.96), Duplicate::Near);
        assert_eq!(q.class("int sum(int[] xs) { return 0; }", 0.5), Duplicate::None);
        assert_eq!(QueryCode::new("  ").duplicate("  "), Duplicate::None);
        assert!(Duplicate::Same > Duplicate::Near && Duplicate::Near > Duplicate::None);
    }

    #[test]
    fn bm25_prefers_rare_shared_terms() {
        let mut s = CorpusStats { docs: 100, avg_len: 10.0, ..CorpusStats::default() };
        s.df.insert(fnv_lower("common"), 90);
        s.df.insert(fnv_lower("rare"), 2);
        let q = vec![fnv_lower("common"), fnv_lower("rare")];
        let doc = |t: &str| (HashMap::from([(fnv_lower(t), 1u32)]), 10);
        let (rare, n) = doc("rare");
        let (common, _) = doc("common");
        assert!(s.bm25(&q, &rare, n) > 5.0 * s.bm25(&q, &common, n));
        assert_eq!(s.bm25(&[], &rare, n), 0.0);
    }

    /// A query's terms come in one order in every run (each `HashMap` has its own order), so
    /// its BM25 scores are the same bits.
    #[test]
    fn bm25_query_terms_come_in_one_order() {
        let code: String = (0..60).map(|i| format!("term{i} ")).collect();
        let q = query_terms(&code);
        assert_eq!(q.len(), 60);
        assert!(q.is_sorted());
        let mut s = CorpusStats { docs: 1000, avg_len: 40.0, ..CorpusStats::default() };
        let mut doc = HashMap::new();
        for (i, t) in q.iter().enumerate() {
            s.df.insert(*t, 1 + (i as u32 * 37) % 900);
            doc.insert(*t, 1 + (i as u32 * 7) % 5);
        }
        let want = s.bm25(&q, &doc, 90).to_bits();
        for _ in 0..20 {
            let again = query_terms(&code);
            assert_eq!(again, q);
            assert_eq!(s.bm25(&again, &doc, 90).to_bits(), want);
        }
    }
}
