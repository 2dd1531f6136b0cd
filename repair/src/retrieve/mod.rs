//! The one retrieval pipeline: similar historical bug-fix pairs from a fixdex index, the
//! external repair ingredients of ReinFix (../shared/papers/reinfix.txt §3.2, eqs. 2–4:
//! embed `buggy code ⊕ root cause`, rank the corpus by cosine similarity, keep the top `n`
//! above a threshold with their fixes and root causes). `fixdex search` (one query or
//! `--batch`), `fixdex serve` (the tool `search_similar_fixes`) and the repair workflow
//! (the report's `retrieved` list, the prompts' similar fixes) all call it through a
//! [`Retriever`], and all get the same hits ([`SimilarFix`]).
//!
//! # The pipeline ([`pipeline::run`])
//! | step | shape | source |
//! | --- | --- | --- |
//! | options | [`RetrieveParams`] (space, `k`, threshold, [`Rank`], filters, `ef`, exact, detail) | the CLI flags, a `--batch` line, tool arguments ([`tool::arguments`]) or the workflow's config |
//! | embed + dense search | the query's vector, then a pool of at least [`rank::MIN_POOL`] hits (2k + 4 before that floor when the leakage filter is on), one per document id, each with its document decoded **once** ([`engine::Segments::query_docs`]) | ReinFix eqs. 2–3 |
//! | exclusion | the [`Exclusion`] fixed on the retriever (ids, projects by identity) plus the query's inclusion lists, inside the engine's filter | ReinFix §4.4 (leakage) |
//! | repair actions | each document's stored actions read once into typed [`actions::FixActions`] | `fixdex index` ([`::actions::classify`]) |
//! | rank | duplicates of the query code first, then [`Rank`]: dense, hybrid (+ BM25) or action (+ fit, vote, prior), [`rank`] | issue 11, 29; RAP-Gen's hybrid |
//! | leakage filter | hits whose buggy code equals the query code (whitespace aside) dropped and counted, when [`RetrieveParams::drop_exact`] | ReinFix §4.4 (exact match) |
//! | hits | the top `k` as [`SimilarFix`] (with optional detail fields) | — |
//! | suggestions | the hits' action labels voted under the index's label prior, [`suggest`] | Dudani 1976, issue 11 |
//!
//! The answer is a [`Retrieval`]; [`render_as`] writes it for a model. The whole-index
//! statistics the ranking and the suggestions read ([`pipeline::Corpus`]) are built once per
//! index served and shared by a retriever's clones.
//!
//! # Errors
//! Every step returns [`RetrieveError`]: [`RetrieveError::Engine`] for bad options, a space
//! or a filter name the index lacks, an empty query, or corrupt files;
//! [`RetrieveError::Arguments`] for bad tool arguments; [`RetrieveError::Unavailable`] when
//! the index was replaced on disk by files that cannot be served.
//!
//! # Leakage control
//! A [`Retriever`] carries an [`Exclusion`] fixed when it is made for a bug: the bug's own id,
//! optionally its project, never overridable by the model's tool arguments. Projects are
//! excluded by identity ([`engine::projects`]): excluding `Closure` also drops the mined
//! history of `google/closure-compiler`; [`Retriever::excluded_projects`] says what each
//! excluded name matched in the index, and [`Retriever::excluded_ids`] whether each excluded
//! id names a record ([`ids`]: an id in the wrong form, `Jsoup-41` for
//! `defects4j:Jsoup-41`, would exclude nothing).
//!
//! # An index replaced on disk
//! A retriever opened from a path ([`Retriever::open`], [`Retriever::open_with`]) follows
//! it ([`reload::LiveIndex`]): before each query it checks that the files it read are still
//! the ones at the path, and opens the path anew when they are not, so a long `fixdex repair`
//! run or a `fixdex serve` session picks up a rebuilt index and never touches a replaced one.
//!
//! # Modules
//! Arrows go one way: this façade uses every other file; [`pipeline`] uses [`rank`],
//! [`suggest`], [`actions`], [`hits`], [`params`] and [`error`]; [`rank`] uses [`suggest`]
//! and [`actions`]; [`reload`] and [`ids`] use only [`error`]; nothing uses this file.

pub mod actions;
pub mod error;
pub mod hits;
pub mod ids;
pub mod params;
pub mod pipeline;
pub mod rank;
pub mod reload;
pub mod suggest;
pub mod tool;

use std::path::Path;
use std::sync::Arc;

use engine::embed::{Embedder, LineRange};
use engine::{Filter, Load, ProjectMatch, Segments};
use serde_json::Value;

pub use error::RetrieveError;
pub use hits::{FixStyle, Retrieval, SUGGESTIONS, SimilarFix, render, render_as};
pub use ids::IdMatch;
pub use params::{DEFAULT_TOP_N, EXACT_BELOW, Exclusion, RetrieveParams};
pub use pipeline::Query;
pub use rank::Rank;

use pipeline::Corpus;
use reload::{IndexStatus, LiveIndex};
use suggest::ActionPrior;

use crate::tools::ToolSpec;

/// An index (or manifest of segments) with its embedding model and a fixed exclusion: the
/// pipeline's entry point. Clones (and [`Retriever::with_exclusion`]) share the index, its
/// reloads and its corpus statistics.
#[derive(Clone)]
pub struct Retriever {
    index: Arc<LiveIndex>,
    model: Arc<dyn Embedder>,
    exclusion: Exclusion,
    /// The ranking statistics and label prior of the index last served.
    corpus: Arc<Corpus>,
    /// The ranking of tool calls ([`Retriever::call`]).
    rank: Rank,
}

impl std::fmt::Debug for Retriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retriever")
            .field("documents", &self.index.served().documents)
            .field("model", &self.model.identity().short())
            .field("exclusion", &self.exclusion)
            .finish()
    }
}

impl Retriever {
    /// A retriever over `index` as it is (never reloaded) with `model`, which must be the
    /// index's model.
    ///
    /// # Errors
    /// [`engine::Error::ModelMismatch`] when `model` is not the index's model.
    pub fn new(index: Arc<Segments>, model: Arc<dyn Embedder>, exclusion: Exclusion) -> Result<Self, RetrieveError> {
        if let Some(first) = index.indexes().first() {
            first.check_model(model.as_ref())?;
        }
        Ok(Retriever::over(LiveIndex::fixed(index), model, exclusion))
    }

    /// Opens the index or manifest at `path` memory-mapped (O(1) per segment) with `model`;
    /// the retriever follows the path (see the module docs).
    ///
    /// # Errors
    /// As [`Segments::open`] and [`Retriever::new`].
    pub fn open(path: &Path, model: Arc<dyn Embedder>, exclusion: Exclusion) -> Result<Self, RetrieveError> {
        Retriever::open_with(path, model, exclusion, Load::Mmap)
    }

    /// Opens the index or manifest at `path` with its files held as `load` says
    /// ([`Load::Memory`]: O(total bytes) time and RAM, and no rewrite of the files in place
    /// can crash the process); the retriever follows the path (see the module docs).
    ///
    /// # Errors
    /// As [`Segments::open_with`] and [`Retriever::new`].
    pub fn open_with(
        path: &Path,
        model: Arc<dyn Embedder>,
        exclusion: Exclusion,
        load: Load,
    ) -> Result<Self, RetrieveError> {
        let index = LiveIndex::open(path, load, model.as_ref())?;
        Ok(Retriever::over(index, model, exclusion))
    }

    fn over(index: LiveIndex, model: Arc<dyn Embedder>, exclusion: Exclusion) -> Retriever {
        Retriever { index: Arc::new(index), model, exclusion, corpus: Arc::default(), rank: Rank::Dense }
    }

    /// Which index is served (path, load, generation, files) and whether the files now at
    /// its path can be served; reloads them when they changed (see [`LiveIndex::status`]).
    pub fn status(&self) -> IndexStatus {
        self.index.status(self.model.as_ref())
    }

    /// The index served now (the files at its path, reloaded when they changed:
    /// [`LiveIndex::current`]), for a caller that checks or identifies what is searched
    /// (`eval`'s `fixdex verify` pass and `run.json`'s content id) without opening the path
    /// again.
    ///
    /// # Errors
    /// [`RetrieveError::Unavailable`] when the files now at the path cannot be opened.
    pub fn segments(&self) -> Result<Arc<Segments>, RetrieveError> {
        self.index.current(self.model.as_ref())
    }

    /// The same index, model and corpus statistics with another exclusion (one retriever per
    /// bug, or per `--batch` line). O(exclusion).
    pub fn with_exclusion(&self, exclusion: Exclusion) -> Retriever {
        Retriever { exclusion, ..self.clone() }
    }

    /// The vector spaces the served index has, canonical order (`code+cause`, `code`,
    /// `cause`: [`engine::Space::name`]).
    #[must_use]
    pub fn spaces(&self) -> Vec<&'static str> {
        self.index.served().spaces
    }

    /// The same retriever ranking tool calls ([`Retriever::call`]) by `rank` (default
    /// [`Rank::Dense`]).
    #[must_use]
    pub fn with_rank(mut self, rank: Rank) -> Retriever {
        self.rank = rank;
        self
    }

    /// The exclusion in force.
    pub fn exclusion(&self) -> &Exclusion {
        &self.exclusion
    }

    /// What each of [`Exclusion::projects`] matched in the index now served, in order: the
    /// project names it drops (an empty list: it drops nothing there; all empty while the index
    /// cannot be served). O(projects in the index).
    pub fn excluded_projects(&self) -> Vec<ProjectMatch> {
        let Ok(index) = self.index.current(self.model.as_ref()) else { return Vec::new() };
        let filter = Filter { exclude_projects: self.exclusion.projects.clone(), ..Filter::default() };
        index.resolve_filter(&filter).unwrap_or_default()
    }

    /// The distinct project names of the index served now (every segment's), sorted.
    ///
    /// # Errors
    /// The index cannot be (re)loaded.
    pub fn project_names(&self) -> Result<Vec<String>, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        let mut names: Vec<String> =
            index.indexes().iter().flat_map(|ix| ix.project_names().map(String::from)).collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Every document of `project` in the index served now, matched by identity as
    /// [`Exclusion::projects`] matches it ([`engine::Segments::project_docs`]).
    ///
    /// # Errors
    /// The index cannot be (re)loaded, a project table is damaged or a document cannot be
    /// decoded.
    pub fn project_docs(&self, project: &str) -> Result<Vec<engine::Record>, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        Ok(index.project_docs(project)?)
    }

    /// What each of [`Exclusion::ids`] names in the index served now, in order
    /// ([`ids::match_ids`]): whether a record has it, and when none does, the ids that are
    /// it in another form. O(log n) per id found; one pass over the stored ids when one is
    /// not.
    ///
    /// # Errors
    /// The index cannot be (re)loaded, or a document batch cannot be decoded.
    pub fn excluded_ids(&self) -> Result<Vec<IdMatch>, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        ids::match_ids(&index, &self.exclusion.ids)
    }

    /// Top fixes for `code` and `cause` (ReinFix eqs. 2–4), after the exclusion and, when
    /// `p` says so, the exact-match leakage filter.
    ///
    /// # Errors
    /// [`RetrieveError::Engine`] for invalid parameters (`k` = 0, threshold outside
    /// [-1, 1]), a space or filter name the index lacks, or a corrupt document;
    /// [`RetrieveError::Unavailable`] when the index changed on disk and the new files
    /// cannot be opened.
    pub fn search(&self, code: &str, cause: &str, p: &RetrieveParams) -> Result<Retrieval, RetrieveError> {
        self.search_lines(code, cause, None, p)
    }

    /// [`Retriever::search`] for code whose buggy lines `lines` (1-based, relative to
    /// `code`) are known: an index built with rule `cause-first-window-v1` then embeds a
    /// long `code` as its signature plus the lines around these
    /// ([`engine::Index::query_lines`]); `None` is [`Retriever::search`].
    ///
    /// # Errors
    /// As [`Retriever::search`].
    pub fn search_lines(
        &self,
        code: &str,
        cause: &str,
        lines: Option<LineRange>,
        p: &RetrieveParams,
    ) -> Result<Retrieval, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        let query = Query { code, cause, lines };
        pipeline::run(&index, self.model.as_ref(), &self.corpus, &self.exclusion, query, p)
    }

    /// The label prior of the index served now ([`suggest::suggest_with_prior`]), built
    /// once per index (one pass over its `action_label` column).
    ///
    /// # Errors
    /// The index cannot be (re)loaded, or a document batch cannot be decoded.
    pub fn action_prior(&self) -> Result<Arc<ActionPrior>, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        self.corpus.prior(&index)
    }

    /// The tool as served (MCP, HTTP): its `space` lists the spaces of the index served last
    /// (default `code+cause` when it has it, else its first), and no argument outside the
    /// schema is allowed (`additionalProperties: false`). O(index files): no reload.
    pub fn spec(&self) -> ToolSpec {
        tool::spec(&self.index.served().spaces)
    }

    /// Runs the tool on JSON arguments (see [`Retriever::spec`]), ranked by the retriever's
    /// ranking ([`Retriever::with_rank`]).
    ///
    /// # Errors
    /// [`RetrieveError::Arguments`] with a model-facing message for missing or invalid
    /// arguments, including code (or, for the `cause` space, a root cause) that is empty or
    /// only invisible characters; otherwise as [`Retriever::search`].
    pub fn call(&self, args: &Value) -> Result<Retrieval, RetrieveError> {
        let a = tool::arguments(args, &self.index.served().spaces, self.rank)?;
        self.search_lines(&a.code, &a.root_cause, a.lines, &a.params).map_err(|e| match e {
            RetrieveError::Engine(e @ engine::Error::EmptyQuery { .. }) => RetrieveError::Arguments(e.to_string()),
            e => e,
        })
    }
}
