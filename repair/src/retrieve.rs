//! The external-ingredient tool: similar historical bug-fix pairs from a fixdex index
//! (ReinFix §3.2, eqs. 2–4: embed `buggy code ⊕ root cause`, rank the corpus by cosine
//! similarity, return the top `n` above a threshold with their fixes and root causes).
//!
//! # Leakage control
//! A [`Retriever`] carries an [`Exclusion`] fixed when it is made for a bug: the bug's own id,
//! optionally its project, never overridable by the model's tool arguments. Projects are
//! excluded by identity ([`engine::projects`]): excluding `Closure` also drops the mined
//! history of `google/closure-compiler`; [`Retriever::excluded_projects`] says what each
//! excluded name matched in the index. On top of that,
//! a hit whose buggy code equals the query code after whitespace normalisation is dropped
//! and counted ([`Retrieval::dropped_exact`]), following ReinFix §4.4 ("we use the exact
//! match strategy to filter out overlapping samples with those in benchmarks"): the same
//! benchmark bug can sit in a corpus under another dataset's id.
//!
//! Indexes of at most [`EXACT_BELOW`] documents are searched exactly (the scan costs well
//! under a millisecond there, and the answer is then independent of the graph).
//!
//! # An index replaced on disk
//! A retriever opened from a path ([`Retriever::open`], [`Retriever::open_with`]) follows
//! it ([`LiveIndex`]): before each query it checks that the files it read are still the ones
//! at the path, and opens the path anew when they are not, so a long `fixdex repair` run or
//! a `fixdex serve` session picks up a rebuilt index and never touches a replaced one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use engine::embed::{Embedder, LineRange};
use engine::{Filter, Load, ProjectMatch, SearchParams, Segments, Space};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::fix_actions::FixActions;
use crate::rank::{CorpusStats, Rank, Weights};
use crate::reload::{IndexStatus, LiveIndex};
use crate::suggest::{LabelPrior, Suggestion, Voter};
use crate::tools::ToolSpec;

/// Default number of similar fixes returned (top `n` of ReinFix eq. 4).
pub const DEFAULT_TOP_N: usize = 3;

/// Indexes with at most this many documents are searched exactly (brute force).
pub const EXACT_BELOW: usize = 10_000;

/// Errors of the external-ingredient tool.
#[derive(Debug, thiserror::Error)]
pub enum RetrieveError {
    /// The engine refused the query or the index (model mismatch, missing space, corrupt).
    #[error(transparent)]
    Engine(#[from] engine::Error),
    /// Bad tool arguments (model-facing).
    #[error("{0}")]
    Arguments(String),
    /// The index at the path changed on disk and the files now there cannot be served
    /// (truncated, half written, of another model); a later query looks again.
    #[error(
        "the index {path} changed on disk and cannot be served: {reason}; publish a complete index there by \
         writing it elsewhere and renaming it onto the path"
    )]
    Unavailable {
        /// The index file or manifest path.
        path: PathBuf,
        /// Why the files there cannot be opened.
        reason: String,
    },
}

/// Documents a retriever never returns: the bug under repair (by id) and, optionally,
/// whole projects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exclusion {
    /// Document ids never returned (e.g. `quixbugs:java:BITCOUNT`).
    pub ids: Vec<String>,
    /// Projects never returned (e.g. `QuixBugs`), by identity: a benchmark project name and
    /// its upstream repositories are one project (see [`engine::projects`]).
    pub projects: Vec<String>,
}

/// One similar fix, as given to the model and written to the repair report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimilarFix {
    /// 1-based rank.
    pub rank: usize,
    /// Cosine similarity to the query, in [-1, 1].
    pub score: f32,
    /// Document id.
    pub id: String,
    /// Upstream project.
    pub project: String,
    /// Language.
    pub language: String,
    /// Root cause (or its proxy, e.g. the commit message) stored with the pair.
    pub root_cause: String,
    /// The buggy code.
    pub buggy_code: String,
    /// The fixed code.
    pub fixed_code: String,
    /// Unified diff from buggy to fixed code.
    pub diff: String,
    /// What the fix did: `action_label`, `action_reason` and `actions` (flattened into the
    /// fix's JSON; empty for a document that was never classified).
    #[serde(flatten)]
    pub fix_actions: FixActions,
}

/// The answer of one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieval {
    /// Vector space searched.
    pub space: String,
    /// Hits, best first, at most `k`, all at or above the threshold.
    pub fixes: Vec<SimilarFix>,
    /// Hits dropped because their buggy code equals the query code (leakage control).
    pub dropped_exact: usize,
    /// The ranking used (`dense`, `hybrid`, `action`; [`crate::rank`]).
    #[serde(default = "default_rank_name")]
    pub rank: String,
    /// Likely repair actions for the query: the fixes' actions aggregated
    /// ([`crate::suggest`]), at most [`SUGGESTIONS`].
    #[serde(default)]
    pub suggestions: Vec<Suggestion>,
}

fn default_rank_name() -> String {
    "dense".into()
}

/// Most action suggestions in a [`Retrieval`].
pub const SUGGESTIONS: usize = 5;

/// Query parameters the model (or the workflow) may choose.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrieveParams {
    /// Vector space: `code+cause` (ReinFix), `code` (RAP-Gen style), `cause`.
    pub space: Space,
    /// Number of fixes (top `n`), ≥ 1.
    pub k: usize,
    /// Minimum cosine similarity in [-1, 1] (ReinFix eq. 4); `None` keeps all top `n`.
    pub threshold: Option<f32>,
    /// How the candidates are ranked ([`crate::rank`]). Default [`Rank::Dense`], the order
    /// the repair workflow's recorded model sessions were made with; `fixdex search` and
    /// `fixdex serve` choose theirs.
    pub rank: Rank,
    /// Language of the query code, for the action fit; `None`: the best dense hit's.
    pub language: Option<crate::Language>,
}

impl Default for RetrieveParams {
    fn default() -> Self {
        RetrieveParams { space: Space::CodeCause, k: DEFAULT_TOP_N, threshold: None, rank: Rank::Dense, language: None }
    }
}

/// The ranking statistics of one served index (kept with the index they describe).
type StatsFor = (Arc<Segments>, Arc<CorpusStats>);
type PriorFor = (Arc<Segments>, Arc<LabelPrior>);

/// An index (or manifest of segments) with its embedding model and a fixed exclusion.
/// Clones (and [`Retriever::with_exclusion`]) share the index and its reloads.
#[derive(Clone)]
pub struct Retriever {
    index: Arc<LiveIndex>,
    model: Arc<dyn Embedder>,
    exclusion: Exclusion,
    /// The ranking's corpus statistics of the index last served, built at its first
    /// non-dense query (one pass over its documents) and rebuilt after a reload.
    stats: Arc<Mutex<Option<StatsFor>>>,
    /// The label prior of the suggestions ([`crate::suggest::suggest_with_prior`]) of the
    /// index last served, built at its first query and rebuilt after a reload.
    prior: Arc<Mutex<Option<PriorFor>>>,
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
        Ok(Retriever {
            index: Arc::new(LiveIndex::fixed(index)),
            model,
            exclusion,
            stats: Arc::default(),
            prior: Arc::default(),
            rank: Rank::Dense,
        })
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
        Ok(Retriever {
            index: Arc::new(index),
            model,
            exclusion,
            stats: Arc::default(),
            prior: Arc::default(),
            rank: Rank::Dense,
        })
    }

    /// Which index is served (path, load, generation, files) and whether the files now at
    /// its path can be served; reloads them when they changed (see [`LiveIndex::status`]).
    pub fn status(&self) -> IndexStatus {
        self.index.status(self.model.as_ref())
    }

    /// The same index and model with another exclusion (one retriever per bug).
    pub fn with_exclusion(&self, exclusion: Exclusion) -> Retriever {
        Retriever {
            index: Arc::clone(&self.index),
            model: Arc::clone(&self.model),
            exclusion,
            stats: Arc::clone(&self.stats),
            prior: Arc::clone(&self.prior),
            rank: self.rank,
        }
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
        self.index.current(self.model.as_ref()).map(|index| resolve(&index, &self.exclusion)).unwrap_or_default()
    }

    /// Top fixes for `code` and `cause` (ReinFix eqs. 2–4), after the exclusion and the
    /// exact-match leakage filter.
    ///
    /// # Errors
    /// [`RetrieveError::Engine`] for invalid parameters (`k` = 0, threshold outside
    /// [-1, 1]), a space the index lacks, or a corrupt document;
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
        // Ask for more than k: exact matches of the query code are dropped afterwards.
        let params = SearchParams {
            space: p.space,
            k: p.k.saturating_mul(2).saturating_add(4).max(p.k),
            threshold: p.threshold,
            // Small indexes are scanned exactly: as fast as HNSW there, and deterministic.
            exact: index.len() <= EXACT_BELOW,
            filter: Filter {
                exclude_ids: self.exclusion.ids.clone(),
                exclude_projects: self.exclusion.projects.clone(),
                ..Filter::default()
            },
            ..SearchParams::default()
        };
        if p.k == 0 {
            return Err(engine::Error::InvalidParameter { name: "k", reason: "must be at least 1".into() }.into());
        }
        let mut params = params;
        params.k = crate::rank::pool_size(p.rank, params.k);
        let hits = index.query_lines(self.model.as_ref(), (code, cause), lines, &params)?;
        let ranked = self.ranked(&index, code, hits, p)?;
        let query_code = normalize(code);
        let mut fixes = Vec::with_capacity(p.k);
        let mut dropped_exact = 0;
        for (h, d, fix_actions) in ranked {
            if !query_code.is_empty() && normalize(&d.buggy_code) == query_code {
                dropped_exact += 1;
                continue;
            }
            if fixes.len() == p.k {
                continue;
            }
            let diff = crate::patch::labelled_diff("buggy", "fixed", &d.buggy_code, &d.fixed_code);
            fixes.push(SimilarFix {
                rank: fixes.len() + 1,
                score: h.score,
                id: d.id,
                project: d.project,
                language: d.language,
                root_cause: if d.root_cause.is_empty() { d.description } else { d.root_cause },
                buggy_code: d.buggy_code,
                fixed_code: d.fixed_code,
                diff,
                fix_actions,
            });
        }
        let suggestions = self.suggestions(&index, &fixes)?;
        let rank = p.rank.name().to_string();
        Ok(Retrieval { space: p.space.name().to_string(), fixes, dropped_exact, rank, suggestions })
    }

    /// The dense `hits` with their documents and actions, in the order of `p.rank`.
    fn ranked(
        &self,
        index: &Arc<Segments>,
        code: &str,
        hits: Vec<engine::SegmentHit>,
        p: &RetrieveParams,
    ) -> Result<Vec<(engine::SegmentHit, engine::Record, FixActions)>, RetrieveError> {
        if p.rank == Rank::Dense || hits.is_empty() {
            return Ok(crate::rank::dense_order(index, code, hits)?);
        }
        let stats = self.stats_for(index)?;
        let r = crate::rank::rerank(index, &stats, code, p.language, &hits, p.rank, &Weights::FITTED)?;
        Ok(r.into_iter().map(|r| (r.hit, r.doc, r.actions)).collect())
    }

    /// The ranking statistics of `index`, built once per index served.
    fn stats_for(&self, index: &Arc<Segments>) -> Result<Arc<CorpusStats>, RetrieveError> {
        cached(&self.stats, index, CorpusStats::of)
    }

    /// The label prior of the index served now ([`crate::suggest::suggest_with_prior`]),
    /// built once per index (one pass over its `action_label` column).
    ///
    /// # Errors
    /// The index cannot be (re)loaded, or a document batch cannot be decoded.
    pub fn label_prior(&self) -> Result<Arc<LabelPrior>, RetrieveError> {
        let index = self.index.current(self.model.as_ref())?;
        self.prior_for(&index)
    }

    /// The action suggestions of `fixes` under the label prior of `index`.
    fn suggestions(&self, index: &Arc<Segments>, fixes: &[SimilarFix]) -> Result<Vec<Suggestion>, RetrieveError> {
        let voters: Vec<Voter<'_>> =
            fixes.iter().map(|f| Voter { id: &f.id, score: f.score, actions: &f.fix_actions }).collect();
        Ok(crate::suggest::suggest_with_prior(&voters, &*self.prior_for(index)?, SUGGESTIONS))
    }

    /// The suggestions' label prior of `index`, built once per index served: taken from the
    /// ranking statistics when a non-dense query already read them, else one pass of its own.
    fn prior_for(&self, index: &Arc<Segments>) -> Result<Arc<LabelPrior>, RetrieveError> {
        cached(&self.prior, index, |ix| {
            let stats = self.stats.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match stats.as_ref() {
                Some((served, stats)) if Arc::ptr_eq(served, index) => Ok(stats.label_prior().clone()),
                _ => LabelPrior::of(ix),
            }
        })
    }

    /// The tool as served (MCP, HTTP): its `space` lists the spaces of the index served last
    /// (default `code+cause` when it has it, else its first), and no argument outside the
    /// schema is allowed (`additionalProperties: false`). O(index files): no reload.
    pub fn spec(&self) -> ToolSpec {
        tool_spec_for(&self.index.served().spaces)
    }

    /// Runs the tool on JSON arguments (see [`Retriever::spec`]).
    ///
    /// # Errors
    /// [`RetrieveError::Arguments`] with a model-facing message for missing or invalid
    /// arguments, including code (or, for the `cause` space, a root cause) that is empty or
    /// only invisible characters; otherwise as [`Retriever::search`].
    pub fn call(&self, args: &Value) -> Result<Retrieval, RetrieveError> {
        let arg = |name: &str| args.get(name).filter(|v| !v.is_null());
        let text = |name: &str| -> Result<String, RetrieveError> {
            arg(name)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| RetrieveError::Arguments(format!("argument `{name}` (a string) is required")))
        };
        let code = text("code")?;
        let cause = text("root_cause")?;
        let spaces = self.index.served().spaces;
        let space = default_space(&spaces).parse().unwrap_or_default();
        let mut p = RetrieveParams { rank: self.rank, space, ..RetrieveParams::default() };
        if let Some(k) = arg("k") {
            p.k = k
                .as_u64()
                .or_else(|| k.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64))
                .filter(|&k| (1..=20).contains(&k))
                .ok_or_else(|| RetrieveError::Arguments(format!("`k` must be an integer in 1..=20, got {k}")))?
                as usize;
        }
        if let Some(t) = arg("threshold") {
            let t = t
                .as_f64()
                .filter(|t| (-1.0..=1.0).contains(t))
                .ok_or_else(|| RetrieveError::Arguments(format!("`threshold` must be a number in [-1, 1], got {t}")))?;
            p.threshold = Some(t as f32);
        }
        if let Some(s) = arg("space") {
            let name = s.as_str().unwrap_or_default();
            let known = name.parse::<Space>().ok();
            p.space = known.filter(|sp| spaces.contains(&sp.name())).ok_or_else(|| {
                let why =
                    if known.is_some() { format!("the index has no vector space `{name}`; ") } else { String::new() };
                RetrieveError::Arguments(format!("{why}`space` must be one of {}; got {s}", spaces.join(", ")))
            })?;
        }
        let lines = match arg("lines") {
            None => None,
            Some(v) => Some(line_range(v, &code)?),
        };
        self.search_lines(&code, &cause, lines, &p).map_err(|e| match e {
            RetrieveError::Engine(e @ engine::Error::EmptyQuery { .. }) => RetrieveError::Arguments(e.to_string()),
            e => e,
        })
    }
}

/// The space a call without `space` searches: `code+cause` when the index has it, else its
/// first (`spaces` in canonical order).
fn default_space<'a>(spaces: &[&'a str]) -> &'a str {
    let code_cause = Space::CodeCause.name();
    if spaces.contains(&code_cause) { code_cause } else { spaces.first().copied().unwrap_or(code_cause) }
}

/// `search_similar_fixes` offering `spaces` (canonical order) as its `space` argument, with
/// no argument outside the schema (`additionalProperties: false`).
fn tool_spec_for(spaces: &[&str]) -> ToolSpec {
    let default = default_space(spaces);
    ToolSpec {
        name: "search_similar_fixes".into(),
        description: "Search a corpus of historical bug-fix pairs for fixes similar to the given buggy code \
                      and its root cause (ReinFix external repair ingredients). Returns the top matches with \
                      their similarity score, root cause, what each fix did (its repair actions, e.g. \
                      `change operator < → <= in for condition`) and the fix as a unified diff. The bug under \
                      repair is never returned."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "The buggy code (a function or hunk)."},
                "root_cause": {"type": "string", "description": "One or two sentences: why the code is wrong."},
                "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Number of fixes (default 3)."},
                "threshold": {"type": "number", "minimum": -1, "maximum": 1,
                              "description": "Minimum cosine similarity (optional)."},
                "space": {"type": "string", "enum": spaces,
                          "description": format!("What to match on (default {default}).")},
                "lines": {"type": "string",
                          "description": "The buggy lines of `code`, `A-B` or `A` (1-based, optional): a long \
                                          function is then matched around them."}
            },
            "required": ["code", "root_cause"],
            "additionalProperties": false
        }),
    }
}

/// The `lines` argument: `A-B` or `A`, 1-based, within `code`.
fn line_range(v: &Value, code: &str) -> Result<LineRange, RetrieveError> {
    let bad = |why: String| {
        RetrieveError::Arguments(format!("`lines` must be `A-B` or `A` (1-based lines of `code`): {why}"))
    };
    let r: LineRange =
        v.as_str().ok_or_else(|| bad(format!("got {v}")))?.parse().map_err(|e: engine::Error| bad(e.to_string()))?;
    let n = code.lines().count();
    if r.last > n {
        return Err(bad(format!("{r} is past the code's {n} lines")));
    }
    Ok(r)
}

/// The project names each excluded project matches in `index`.
fn resolve(index: &Segments, exclusion: &Exclusion) -> Vec<ProjectMatch> {
    let filter = Filter { exclude_projects: exclusion.projects.clone(), ..Filter::default() };
    index.resolve_filter(&filter).unwrap_or_default()
}

/// Whitespace-insensitive form of code for the exact-match leakage filter (also keeps such
/// hits out of the ranking's vote, [`crate::rank`]).
pub(crate) fn normalize(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How a list of similar fixes is written for a model ([`render_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixStyle {
    /// The answer of the `search_similar_fixes` tool: each fix with its score (3
    /// decimals), id and project; "No similar fix above the threshold." for none; when the
    /// budget runs out after the first fix, a note says how many were left out.
    Tool,
    /// The similar-fix section of a repair prompt (ReinFix's suggestion prompt): each fix
    /// with its score (2 decimals: replays stay stable under tiny floating-point
    /// differences between machines); `""` for none; whole fixes that do not fit are left
    /// out silently.
    Prompt,
}

/// Model-facing text of a retrieval: each fix with its score, root cause, repair actions
/// (`Action: change operator < → <= in for condition`, [`FixActions::line`]; no line for a
/// document never classified) and diff (buggy → fixed), cut to `max_chars` characters (whole fixes are dropped from the end;
/// `style` says what else is written).
#[must_use]
pub fn render_as(r: &Retrieval, max_chars: usize, style: FixStyle) -> String {
    if r.fixes.is_empty() {
        return match style {
            FixStyle::Tool => "No similar fix above the threshold.".into(),
            FixStyle::Prompt => String::new(),
        };
    }
    let mut out = String::new();
    for (i, f) in r.fixes.iter().enumerate() {
        let cause = if f.root_cause.trim().is_empty() { "(none recorded)" } else { f.root_cause.trim() };
        let head = match style {
            FixStyle::Tool => {
                format!("Similar fix {} (similarity {:.3}, {}, project {})", f.rank, f.score, f.id, f.project)
            }
            FixStyle::Prompt => format!("Fix {} (similarity {:.2})", f.rank, f.score),
        };
        let action = f.fix_actions.line().map_or(String::new(), |a| format!("Action: {a}\n"));
        let block = format!("### {head}\nRoot cause: {cause}\n{action}```diff\n{}```\n", f.diff);
        if out.len() + block.len() > max_chars {
            if style == FixStyle::Tool && i > 0 {
                out.push_str(&format!("[{} more similar fixes left out for length]\n", r.fixes.len() - i));
                break;
            }
            if style == FixStyle::Prompt {
                break;
            }
        }
        out.push_str(&block);
    }
    out
}

/// [`render_as`] in the tool's style ([`FixStyle::Tool`]).
#[must_use]
pub fn render(r: &Retrieval, max_chars: usize) -> String {
    render_as(r, max_chars, FixStyle::Tool)
}

/// The value `build` made for `index`, from `cache` when it was made for this very index.
fn cached<T>(
    cache: &Mutex<Option<(Arc<Segments>, Arc<T>)>>,
    index: &Arc<Segments>,
    build: impl FnOnce(&Segments) -> engine::Result<T>,
) -> Result<Arc<T>, RetrieveError> {
    let mut cache = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((served, value)) = cache.as_ref()
        && Arc::ptr_eq(served, index)
    {
        return Ok(Arc::clone(value));
    }
    let value = Arc::new(build(index)?);
    *cache = Some((Arc::clone(index), Arc::clone(&value)));
    Ok(value)
}
