//! The retrieval pipeline, one query at a time: the steps the module docs of
//! [`crate::retrieve`] list, from the query text to a [`Retrieval`], and the corpus
//! statistics they read from the whole index ([`Corpus`]), built once per index served.

use std::sync::{Arc, Mutex, PoisonError};

use engine::embed::{Embedder, LineRange};
use engine::{Filter, Segments};

use super::error::RetrieveError;
use super::hits::{Retrieval, SUGGESTIONS, SimilarFix};
use super::params::{Exclusion, RetrieveParams};
use super::rank::{self, Candidate, CorpusStats, Rank, Weights};
use super::suggest::{self, ActionPrior, Suggestion, Voter};

/// One query: the buggy code, its root cause and, when known, its buggy lines (1-based,
/// relative to `code`).
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// The buggy code (a function or hunk); may be empty for the `cause` space.
    pub code: &'a str,
    /// The root cause, in words; may be empty for the `code` space.
    pub cause: &'a str,
    /// The buggy lines of `code`: an index built with rule `cause-first-window-v1` then
    /// embeds a long `code` as its signature plus the lines around these
    /// ([`engine::Index::query_lines`]).
    pub lines: Option<LineRange>,
}

/// A value built from one served index, kept with the index it describes.
type For<T> = Mutex<Option<(Arc<Segments>, Arc<T>)>>;

/// What the pipeline reads from the whole index, built on first use and rebuilt after a
/// reload: the ranking's statistics ([`CorpusStats`], at the first non-dense query) and the
/// suggestions' label prior ([`ActionPrior`], taken from the statistics when they were read).
/// `Send + Sync`; shared by every query of a [`super::Retriever`] and its clones.
#[derive(Debug, Default)]
pub struct Corpus {
    stats: For<CorpusStats>,
    prior: For<ActionPrior>,
}

impl Corpus {
    /// The ranking statistics of `index`, built once per index served (one pass over two
    /// columns of every document).
    ///
    /// # Errors
    /// A document batch cannot be decoded.
    pub fn stats(&self, index: &Arc<Segments>) -> Result<Arc<CorpusStats>, RetrieveError> {
        cached(&self.stats, index, CorpusStats::of)
    }

    /// The label prior of `index`, built once per index served: the statistics' when a
    /// non-dense query already read them, else one pass over the `action_label` column.
    ///
    /// # Errors
    /// A document batch cannot be decoded.
    pub fn prior(&self, index: &Arc<Segments>) -> Result<Arc<ActionPrior>, RetrieveError> {
        cached(&self.prior, index, |ix| match served(&self.stats, index) {
            Some(stats) => Ok(stats.action_prior().clone()),
            None => ActionPrior::of(ix),
        })
    }
}

/// Answers `query` on `index` with `model` under `exclusion` and `p` (the module docs of
/// [`crate::retrieve`]): each candidate's document is decoded once, by the search.
///
/// # Errors
/// [`RetrieveError::Engine`] for invalid parameters, a filter naming a language or project
/// the index lacks, a space it lacks, an empty query, or a corrupt document.
pub fn run(
    index: &Arc<Segments>,
    model: &dyn Embedder,
    corpus: &Corpus,
    exclusion: &Exclusion,
    query: Query<'_>,
    p: &RetrieveParams,
) -> Result<Retrieval, RetrieveError> {
    p.validate()?;
    let filter = checked_filter(index, p, exclusion)?;
    let params = p.engine(filter, index.len());
    let found = index.query_docs(model, (query.code, query.cause), query.lines, &params)?;
    let candidates = found.into_iter().map(|(h, d)| Candidate::new(h, d)).collect::<engine::Result<Vec<_>>>()?;
    let ranked = ranked(index, corpus, query.code, candidates, p)?;
    let (fixes, dropped_exact) = hits(ranked, query.code, p);
    let suggestions = suggestions(&fixes, &*corpus.prior(index)?);
    let (space, rank) = (p.space.name().to_string(), p.rank.name().to_string());
    let ef = (!params.exact).then_some(params.ef_search);
    Ok(Retrieval { space, fixes, dropped_exact, rank, suggestions, ef })
}

/// The engine filter of `p` and `exclusion`, its inclusion lists checked against `index`
/// (a name that matches nothing would silently give no hits).
fn checked_filter(index: &Segments, p: &RetrieveParams, exclusion: &Exclusion) -> Result<Filter, RetrieveError> {
    let filter = p.filter(exclusion);
    if !filter.languages.is_empty() || !filter.projects.is_empty() {
        index.resolve_filter(&filter)?;
    }
    Ok(filter)
}

/// The dense `candidates` in the order of `p.rank`.
fn ranked(
    index: &Arc<Segments>,
    corpus: &Corpus,
    code: &str,
    candidates: Vec<Candidate>,
    p: &RetrieveParams,
) -> Result<Vec<Candidate>, RetrieveError> {
    if p.rank == Rank::Dense || candidates.is_empty() {
        return Ok(rank::dense_order(code, candidates));
    }
    let stats = corpus.stats(index)?;
    Ok(rank::rerank(&stats, code, p.language, candidates, p.rank, &Weights::FITTED))
}

/// The first `p.k` ranked candidates as hits, after the exact-match leakage filter when
/// `p.drop_exact`, and how many it dropped.
fn hits(ranked: Vec<Candidate>, code: &str, p: &RetrieveParams) -> (Vec<SimilarFix>, usize) {
    let query = rank::normalize(code);
    let mut fixes = Vec::with_capacity(p.k.min(ranked.len()));
    let mut dropped = 0;
    for c in ranked {
        if p.drop_exact && !query.is_empty() && rank::normalize(&c.doc.buggy_code) == query {
            dropped += 1;
        } else if fixes.len() < p.k {
            fixes.push(hit(fixes.len() + 1, c, p.detail));
        }
    }
    (fixes, dropped)
}

/// Candidate `c` as the hit at 1-based `rank`, with the optional fields when `detail`.
fn hit(rank: usize, c: Candidate, detail: bool) -> SimilarFix {
    let Candidate { hit, doc: d, actions, features } = c;
    let diff = crate::patch::labelled_diff("buggy", "fixed", &d.buggy_code, &d.fixed_code);
    let root_cause = if d.root_cause.is_empty() { d.description.clone() } else { d.root_cause };
    let some = |v: String| Some(v).filter(|_| detail);
    SimilarFix {
        rank,
        score: hit.score,
        id: d.id,
        project: d.project,
        language: d.language,
        root_cause,
        buggy_code: d.buggy_code,
        fixed_code: d.fixed_code,
        diff,
        source: some(d.source),
        description: some(d.description),
        license: some(d.license),
        meta: detail.then(|| serde_json::from_str(&d.meta).unwrap_or(serde_json::Value::Null)),
        action: actions.line().filter(|_| detail),
        features: features.filter(|_| detail),
        fix_actions: actions,
    }
}

/// The action suggestions of `fixes` under `prior`.
fn suggestions(fixes: &[SimilarFix], prior: &ActionPrior) -> Vec<Suggestion> {
    let voters: Vec<Voter<'_>> =
        fixes.iter().map(|f| Voter { id: &f.id, score: f.score, actions: &f.fix_actions }).collect();
    suggest::suggest_with_prior(&voters, prior, SUGGESTIONS)
}

/// The value in `slot` when it was built for this very `index`.
fn served<T>(slot: &For<T>, index: &Arc<Segments>) -> Option<Arc<T>> {
    let slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    slot.as_ref().filter(|(ix, _)| Arc::ptr_eq(ix, index)).map(|(_, v)| Arc::clone(v))
}

/// The value `build` made for `index`, from `slot` when it was made for this very index.
fn cached<T>(
    slot: &For<T>,
    index: &Arc<Segments>,
    build: impl FnOnce(&Segments) -> engine::Result<T>,
) -> Result<Arc<T>, RetrieveError> {
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((served, value)) = slot.as_ref()
        && Arc::ptr_eq(served, index)
    {
        return Ok(Arc::clone(value));
    }
    let value = Arc::new(build(index)?);
    *slot = Some((Arc::clone(index), Arc::clone(&value)));
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::SegmentHit;

    fn candidates(n: usize) -> Vec<Candidate> {
        let docs = engine::testing::sample_records(n);
        let hit = |row: usize| SegmentHit { segment: 0, row: row as u32, score: 0.9 - row as f32 / 100.0 };
        docs.into_iter().enumerate().map(|(row, d)| Candidate::new(hit(row), d).unwrap()).collect()
    }

    fn keys(fix: &SimilarFix) -> Vec<String> {
        serde_json::to_value(fix).unwrap().as_object().unwrap().keys().cloned().collect()
    }

    /// The report's hits (detail off) have exactly the report's fields, so its bytes stay
    /// as recorded; `fixdex search --json` (detail on) adds the optional ones.
    #[test]
    fn detail_fields_only_when_asked() {
        let mut report = keys(&hit(1, candidates(1).remove(0), false));
        report.sort();
        let want = [
            "action_label",
            "action_reason",
            "actions",
            "buggy_code",
            "diff",
            "fixed_code",
            "id",
            "language",
            "project",
            "rank",
            "root_cause",
            "score",
        ];
        assert_eq!(report, want);
        let search = keys(&hit(1, candidates(1).remove(0), true));
        for extra in ["source", "description", "license", "meta", "action"] {
            assert!(search.iter().any(|k| k == extra), "{extra} missing from {search:?}");
        }
        assert!(!search.iter().any(|k| k == "features"), "dense candidates have no features");
    }

    /// The leakage filter drops (and counts) the query's own code only when asked; either
    /// way at most `k` hits, ranked from 1.
    #[test]
    fn exact_matches_are_dropped_only_with_drop_exact() {
        let c = candidates(4);
        let code = c[1].doc.buggy_code.clone();
        let p = RetrieveParams { k: 2, ..RetrieveParams::default() };
        let (fixes, dropped) = hits(c.clone(), &code, &p);
        assert_eq!(dropped, 1);
        assert!(fixes.iter().all(|f| f.buggy_code != code));
        assert_eq!(fixes.iter().map(|f| f.rank).collect::<Vec<_>>(), [1, 2]);
        let keep = RetrieveParams { drop_exact: false, ..p };
        let (fixes, dropped) = hits(c, &code, &keep);
        assert_eq!((dropped, fixes.len()), (0, 2));
        assert_eq!(fixes[1].buggy_code, code);
    }
}
