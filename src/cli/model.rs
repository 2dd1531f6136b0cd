//! Finding and loading the embedding model.

use std::path::{Path, PathBuf};

use anyhow::Context;
use engine::embed::{BertEmbedder, DEFAULT_MODEL_DIR};

/// Resolves the model folder: `--model` / `FIXDEX_MODEL` when given, else
/// `data/models/all-MiniLM-L6-v2` under the current directory, else the same path under the
/// repository that holds the running binary (`target/<profile>/fixdex`).
pub fn resolve(arg: Option<&Path>) -> PathBuf {
    if let Some(p) = arg {
        return p.to_path_buf();
    }
    let local = PathBuf::from(DEFAULT_MODEL_DIR);
    if local.is_dir() {
        return local;
    }
    let from_exe =
        std::env::current_exe().ok().and_then(|exe| exe.ancestors().nth(3).map(|root| root.join(DEFAULT_MODEL_DIR)));
    from_exe.filter(|p| p.is_dir()).unwrap_or(local)
}

/// Opens the index or manifest at `index` with the model from `--model` (see [`resolve`])
/// and a fixed exclusion: the external-ingredient tool of `repair`, `eval quixbugs` and
/// `serve`.
///
/// # Errors
/// The model or index error, with the path named.
pub fn open_retriever(
    index: &Path,
    model: Option<&Path>,
    exclusion: repair::retrieve::Exclusion,
) -> anyhow::Result<repair::retrieve::Retriever> {
    open_retriever_with(index, model, exclusion, engine::Load::Mmap)
}

/// Refuses the index at `path` (opened as `retriever`) when it lacks a vector space
/// `strategy` searches (its [`repair::strategies::Strategy::retrieval_spaces`] of the
/// configured `space`: every stage's for a chain), naming the spaces it has and how to build
/// the missing one. `given`: whether the user gave `--space`; a given space the strategy
/// does not search is warned about (`--strategy patterns` searches `code`).
///
/// # Errors
/// The index lacks one of the spaces.
pub fn check_space(
    retriever: &repair::retrieve::Retriever,
    path: &Path,
    strategy: &dyn repair::strategies::Strategy,
    space: engine::Space,
    given: bool,
) -> anyhow::Result<()> {
    let has = retriever.spaces();
    let searched = strategy.retrieval_spaces(space);
    // A `--space` given that the strategy does not search is said (the default is not).
    if given && !searched.contains(&space) {
        let names: Vec<&str> = searched.iter().map(|s| s.name()).collect();
        let what = if names.is_empty() { "no space".to_string() } else { format!("the {} space", names.join(", ")) };
        eprintln!("warning: --strategy {} searches {what}: --space {} is not used", strategy.name(), space.name());
    }
    let Some(wanted) = searched.into_iter().find(|w| !has.contains(&w.name())) else {
        return Ok(());
    };
    anyhow::bail!(
        "index {} has the space{} {} but --strategy {} searches the {} space: build an index with it \
         (`fixdex index CORPUS -o INDEX --spaces {}`, or several: --spaces {},{})",
        path.display(),
        if has.len() == 1 { "" } else { "s" },
        has.join(", "),
        strategy.name(),
        wanted.name(),
        wanted.name(),
        has.first().copied().unwrap_or("code+cause"),
        wanted.name()
    )
}

/// [`open_retriever`] with the index files held as `load` says (`serve --load`).
///
/// # Errors
/// The model or index error, with the path named.
pub fn open_retriever_with(
    index: &Path,
    model: Option<&Path>,
    exclusion: repair::retrieve::Exclusion,
    load: engine::Load,
) -> anyhow::Result<repair::retrieve::Retriever> {
    let model = load_with(&resolve(model), false)?;
    repair::retrieve::Retriever::open_with(index, std::sync::Arc::new(model), exclusion, load)
        .with_context(|| format!("opening index {}", index.display()))
}

/// Loads the model at `dir`.
///
/// # Errors
/// The engine's model error, with the folder named.
pub fn load(dir: &Path) -> anyhow::Result<BertEmbedder> {
    load_with(dir, false)
}

/// Loads the model at `dir`, with bf16 projections when `bf16` (see
/// `engine::embed::Backend::FastBf16`).
///
/// # Errors
/// The engine's model error (including a CPU without AVX512_BF16), with the folder named.
pub fn load_with(dir: &Path, bf16: bool) -> anyhow::Result<BertEmbedder> {
    let backend = if bf16 { engine::embed::Backend::FastBf16 } else { engine::embed::Backend::Fast };
    BertEmbedder::load_with(dir, backend).with_context(|| {
        // An installed or copied binary has no repository beside it ([`resolve`]): say how to
        // point at the model (a new user's finding).
        let hint = if dir == Path::new(DEFAULT_MODEL_DIR) && !dir.is_dir() {
            format!(
                " (the default, {DEFAULT_MODEL_DIR} under the current folder or the repository that built \
                 this binary, is not there: give --model DIR or set FIXDEX_MODEL=DIR)"
            )
        } else {
            String::new()
        };
        format!("loading the embedding model from {}{hint}", dir.display())
    })
}
