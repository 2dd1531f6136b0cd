//! Queries: top-k similar bug-fix pairs with a similarity threshold and filters.
//!
//! Every answer holds: scores are cosines in [-1, 1] (float rounding past ±1 is clamped,
//! and a stored vector that gives a non-finite score or one beyond ±1 by more than
//! [`SCORE_SLACK`] is refused as [`Error::DamagedVector`] instead of being ranked), and a
//! query is embedded by the rule its index recorded ([`Index::embed_query`]), after
//! [`check_query_text`] refused empty or invisible input.

use std::collections::HashSet;

use crate::embed::{Embedder, LineRange, Rule};
use crate::hnsw::{Candidate, DEFAULT_EF_SEARCH, Stored};
use crate::{Error, Index, Result, Space, exact, hnsw};

/// How far past ±1 a score may fall before it counts as damage rather than rounding:
/// `verify` accepts vectors whose squared norm is within 1e-3 of 1, so an intact index
/// gives |score| ≤ ‖query‖ · (1 + 5e-4).
pub const SCORE_SLACK: f32 = 1e-3;

/// Which documents a query may return.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Keep only these languages (any of them); empty = all.
    pub languages: Vec<String>,
    /// Keep only these projects (any of them, exact names); empty = all.
    pub projects: Vec<String>,
    /// Never return documents with these ids (leakage control: the bug under repair).
    pub exclude_ids: Vec<String>,
    /// Never return documents from these projects, matched by identity
    /// ([`crate::projects`]): `Closure` also excludes `google/closure-compiler`, and
    /// names compare case-insensitively, with or without `https://github.com/` or `.git`.
    pub exclude_projects: Vec<String>,
    /// Return documents with these ids even when [`Filter::exclude_projects`] drops their
    /// project (a project's own fixes from before the bug under repair: `fixdex eval
    /// defects4j --own-history`); the inclusion lists and [`Filter::exclude_ids`] still apply.
    pub keep_ids: Vec<String>,
}

impl Filter {
    /// Whether the filter lets every document through.
    pub fn is_empty(&self) -> bool {
        self == &Filter::default()
    }
}

/// Parameters of [`Index::search`].
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Vector space to search.
    pub space: Space,
    /// Number of hits wanted (≥ 1).
    pub k: usize,
    /// HNSW beam width (≥ 1); raised to `k` when smaller.
    pub ef_search: usize,
    /// Keep only hits with cosine similarity ≥ this value, in [-1, 1] (ReinFix eq. 4).
    pub threshold: Option<f32>,
    /// Exact brute-force search instead of HNSW.
    pub exact: bool,
    /// Traverse the graph with the space's int8 codes when it has them (the `ef`
    /// candidates are then reranked by exact f32 cosine); `false` always uses f32.
    pub int8: bool,
    /// Which documents may be returned.
    pub filter: Filter,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            space: Space::CodeCause,
            k: 5,
            ef_search: DEFAULT_EF_SEARCH,
            threshold: None,
            exact: false,
            int8: true,
            filter: Filter::default(),
        }
    }
}

impl SearchParams {
    /// Checks `k`, `ef_search` and `threshold`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the CLI flag.
    pub fn validate(&self) -> Result<()> {
        if self.k == 0 {
            return Err(Error::InvalidParameter { name: "-k", reason: "must be at least 1".into() });
        }
        if self.ef_search == 0 {
            return Err(Error::InvalidParameter { name: "--ef", reason: "must be at least 1".into() });
        }
        if let Some(t) = self.threshold
            && !(-1.0..=1.0).contains(&t)
        {
            return Err(Error::InvalidParameter {
                name: "--threshold",
                reason: format!("{t} is outside [-1, 1] (cosine similarity)"),
            });
        }
        Ok(())
    }
}

/// One search result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Document row; fetch it with [`Index::doc`].
    pub row: u32,
    /// Cosine similarity to the query, in [-1, 1], higher is closer.
    pub score: f32,
}

/// Refuses a query whose text `space` needs is blank ([`crate::text::is_blank`]): the
/// `code` and `code+cause` spaces need code, the `cause` space needs a root cause. Blank
/// text embeds like the empty string, so it would rank arbitrary documents. O(len).
///
/// # Errors
/// [`Error::EmptyQuery`] naming the space and the missing field.
pub fn check_query_text(space: Space, code: &str, cause: &str) -> Result<()> {
    let blank = match space {
        Space::Code | Space::CodeCause => crate::text::is_blank(code).then_some("code"),
        Space::Cause => crate::text::is_blank(cause).then_some("root cause"),
    };
    match blank {
        Some(what) => Err(Error::EmptyQuery { space, what }),
        None => Ok(()),
    }
}

impl Index {
    /// Embeds `code` and `cause` with `model` for `params.space` and searches. The model
    /// must be the one the index was built with. The buggy lines are unknown; see
    /// [`Index::query_lines`].
    ///
    /// # Errors
    /// As [`Index::embed_query`] and [`Index::search`].
    pub fn query(&self, model: &dyn Embedder, code: &str, cause: &str, params: &SearchParams) -> Result<Vec<Hit>> {
        self.query_lines(model, (code, cause), None, params)
    }

    /// [`Index::query`] for a query whose buggy lines `lines` (1-based, relative to
    /// `code`) are known: an index composed by `cause-first-window-v1` then embeds the
    /// window around them ([`crate::embed::window`]); `None` is [`Index::query`].
    ///
    /// # Errors
    /// As [`Index::embed_query`] and [`Index::search`].
    pub fn query_lines(
        &self,
        model: &dyn Embedder,
        (code, cause): (&str, &str),
        lines: Option<LineRange>,
        params: &SearchParams,
    ) -> Result<Vec<Hit>> {
        params.validate()?;
        let v = self.embed_query_lines(model, params.space, (code, cause), lines)?;
        self.search(&v, params)
    }

    /// The query vector for `code` and `cause` in `space`, composed the way this index
    /// composed its documents: its recorded rule and root-cause budget
    /// ([`crate::format::TextMeta`]), not the build's defaults. `dim` floats, unit norm.
    /// The buggy lines are unknown; see [`Index::embed_query_lines`].
    ///
    /// # Errors
    /// [`Error::ModelMismatch`] for another model, [`Error::NoSuchSpace`] for a space the
    /// index lacks, [`Error::EmptyQuery`] for blank text ([`check_query_text`]),
    /// [`Error::UnknownRule`] for an index composed by a rule this build does not know;
    /// otherwise as [`Embedder::embed_tokens`].
    pub fn embed_query(&self, model: &dyn Embedder, space: Space, code: &str, cause: &str) -> Result<Vec<f32>> {
        self.embed_query_lines(model, space, (code, cause), None)
    }

    /// [`Index::embed_query`] with the query's buggy lines `lines` (1-based, relative to
    /// `code`) when known: used by `cause-first-window-v1`, ignored by `cause-first-v1`.
    ///
    /// # Errors
    /// As [`Index::embed_query`].
    pub fn embed_query_lines(
        &self,
        model: &dyn Embedder,
        space: Space,
        (code, cause): (&str, &str),
        lines: Option<LineRange>,
    ) -> Result<Vec<f32>> {
        self.check_model(model)?;
        self.vectors(space)?;
        check_query_text(space, code, cause)?;
        let text = &self.meta().text;
        let rule = Rule::from_recorded(&text.rule)
            .ok_or_else(|| Error::UnknownRule { rule: text.rule.clone(), known: Rule::KNOWN })?;
        let ids = model.compose_by_rule(rule, space, (code, cause), lines, text.cause_max_tokens)?;
        Ok(model.embed_tokens(&[&ids])?.remove(0))
    }

    /// Refuses `model` unless it is the model the index was built with (same SHA-256).
    ///
    /// # Errors
    /// [`Error::ModelMismatch`].
    pub fn check_model(&self, model: &dyn Embedder) -> Result<()> {
        let (want, got) = (&self.meta().model, model.identity());
        if want.sha256 != got.sha256 {
            return Err(Error::ModelMismatch {
                // `chars`, not a byte slice: the hash comes from the file, maybe damaged.
                index: format!("{}@{}", want.name, want.sha256.chars().take(12).collect::<String>()),
                loaded: got.short(),
            });
        }
        Ok(())
    }

    /// Top-`k` documents by cosine similarity between `query` (`dim` floats, unit norm)
    /// and the vectors of `params.space`, best first, passing the filter and threshold.
    ///
    /// HNSW search visits about `ef_search · log n` nodes; when a filter leaves fewer than
    /// `k` hits reachable, it falls back to an exact scan of the allowed documents, so a
    /// filter never hides a match. `exact` scans all `n` vectors (O(n · dim)).
    ///
    /// Scores are clamped to [-1, 1]; a returned candidate whose score is not finite or
    /// lies beyond ±‖query‖ by more than [`SCORE_SLACK`] fails the search (checked before
    /// the threshold, so damage is never hidden by it).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for bad parameters or a query that is not finite,
    /// [`Error::DimensionMismatch`] for a query of the wrong length, [`Error::NoSuchSpace`]
    /// when the space is absent, [`Error::DamagedVector`] when a stored vector is damaged,
    /// [`Error::DamagedIndex`] when a neighbour list the graph search read, or (with a
    /// filter) a per-document table, is damaged ([`Index::check_tables`]): the answer would
    /// silently lack hits.
    pub fn search(&self, query: &[f32], params: &SearchParams) -> Result<Vec<Hit>> {
        params.validate()?;
        if query.len() != self.dim() {
            return Err(Error::DimensionMismatch { expected: self.dim(), got: query.len() });
        }
        if !query.iter().all(|x| x.is_finite()) {
            return Err(Error::InvalidParameter { name: "query", reason: "the query vector is not finite".into() });
        }
        let vectors = self.vectors(params.space)?;
        let allowed = self.allowed_set(&params.filter)?;
        let allow = |r: u32| allowed.as_ref().is_none_or(|a| a[r as usize]);
        let mut cands = if params.exact {
            exact::top_k(vectors, self.dim(), query, params.k, &allow)
        } else {
            let graph = self.graph(params.space)?;
            let ef = params.ef_search.max(params.k);
            let damaged = |d: hnsw::GraphDamage| self.damaged_graph(params.space, d);
            let mut c = match self.codes(params.space)?.filter(|_| params.int8) {
                None => hnsw::search(&graph, vectors, self.dim(), query, ef, &allow).map_err(damaged)?,
                Some((codes, scales)) => {
                    let weights = crate::quant::query_weights(scales, query);
                    let stored = Stored::I8 { codes, weights: &weights };
                    let approx = hnsw::search_stored(&graph, stored, self.dim(), ef, &allow).map_err(damaged)?;
                    rescore(approx, vectors, self.dim(), query)
                }
            };
            if c.len() < params.k && allowed.is_some() {
                c = exact::top_k(vectors, self.dim(), query, params.k, &allow);
            }
            c
        };
        cands.truncate(params.k);
        self.check_scores(&mut cands, params.space, query)?;
        Ok(to_hits(cands, params.threshold))
    }

    /// The error for damage a graph search met.
    fn damaged_graph(&self, space: Space, d: hnsw::GraphDamage) -> Error {
        let what = format!("the {space} graph's neighbour list of node {} is out of range", d.node);
        Error::DamagedIndex { path: self.path().map(std::path::Path::to_path_buf), what }
    }

    /// Refuses scores no stored unit vector can give and clamps rounding into [-1, 1].
    fn check_scores(&self, cands: &mut [Candidate], space: Space, query: &[f32]) -> Result<()> {
        let bound = crate::distance::dot(query, query).sqrt() * (1.0 + SCORE_SLACK);
        for c in cands {
            if !c.score.is_finite() || c.score.abs() > bound {
                let path = self.path().map(std::path::Path::to_path_buf);
                return Err(Error::DamagedVector { path, space, row: c.node, score: c.score });
            }
            c.score = c.score.clamp(-1.0, 1.0);
        }
        Ok(())
    }

    /// Resolves a filter into one flag per document, or `None` when it allows everything.
    /// O(n) over the per-document tables.
    fn allowed_set(&self, f: &Filter) -> Result<Option<Vec<bool>>> {
        if f.is_empty() {
            return Ok(None);
        }
        self.check_tables()?;
        let langs: HashSet<u8> = self
            .meta()
            .languages
            .iter()
            .enumerate()
            .filter(|(_, l)| f.languages.iter().any(|w| w.eq_ignore_ascii_case(l)))
            .map(|(i, _)| i as u8)
            .collect();
        let keep_p: HashSet<u32> = f.projects.iter().filter_map(|p| self.project_index(p)).collect();
        let drop_p: HashSet<u32> = f.exclude_projects.iter().flat_map(|p| self.same_projects(p)).collect();
        let (dl, dp) = (self.doc_languages(), self.doc_projects());
        let included = |r: usize| {
            (f.languages.is_empty() || langs.contains(&dl[r])) && (f.projects.is_empty() || keep_p.contains(&dp[r]))
        };
        let mut allowed: Vec<bool> = (0..self.len()).map(|r| included(r) && !drop_p.contains(&dp[r])).collect();
        for id in &f.keep_ids {
            if let Some(r) = self.find_id(id)? {
                allowed[r as usize] = included(r as usize);
            }
        }
        for id in &f.exclude_ids {
            if let Some(r) = self.find_id(id)? {
                allowed[r as usize] = false;
            }
        }
        Ok(Some(allowed))
    }
}

/// Replaces estimated scores by exact f32 cosines and sorts best first.
fn rescore(mut cands: Vec<Candidate>, vectors: &[f32], dim: usize, query: &[f32]) -> Vec<Candidate> {
    for c in &mut cands {
        c.score = crate::distance::dot_dispatch(query, &vectors[c.node as usize * dim..][..dim]);
    }
    cands.sort_unstable_by(|a, b| b.cmp(a));
    cands
}

fn to_hits(cands: Vec<Candidate>, threshold: Option<f32>) -> Vec<Hit> {
    cands
        .into_iter()
        .filter(|c| threshold.is_none_or(|t| c.score >= t))
        .map(|c| Hit { row: c.node, score: c.score })
        .collect()
}
