//! Embedding: given code and a root cause, what unit vector represents them?
//!
//! [`Embedder`] is the one interface; [`BertEmbedder`] is the candle implementation for
//! BERT-family sentence-embedding models in Hugging Face folder format (design decision 1),
//! loaded from one place ([`BertEmbedder::load`]). [`compose()`] turns a record's root cause
//! and buggy code into one token sequence under a documented budget (design decision 2).
//!
//! Shapes: token sequences are `u32` ids including `[CLS]` … `[SEP]`, at most
//! `max_seq_length` long; a batch of `b` sequences yields `b` vectors of `dim` f32,
//! L2-normalised, so the inner product of two embeddings is their cosine similarity.

mod bert;
pub mod bf16;
pub mod calibrate;
pub mod candle_bert;
mod compose;
mod encoder;
mod fingerprint_cache;
pub mod kernels;
mod st_config;
pub mod window;

pub use bert::{Backend, BertEmbedder, fingerprint as bert_fingerprint};
pub use candle_bert::{Config as BertConfig, HiddenAct};
pub use compose::{CAUSE_MAX_TOKENS, MAX_FIELD_CHARS, RULE, compose, cut_chars};
pub use encoder::Encoder;
pub use st_config::{Pooling, SentenceConfig};
pub use window::{LineRange, Rule, WINDOW_RULE};

use crate::format::ModelMeta;
use crate::{Result, Space};

/// Environment variable that names the model folder when `--model` is not given.
pub const MODEL_ENV: &str = "FIXDEX_MODEL";
/// Default model folder, relative to the working directory (where `scripts/fetch-model.sh`
/// installs all-MiniLM-L6-v2).
pub const DEFAULT_MODEL_DIR: &str = "data/models/all-MiniLM-L6-v2";

/// Identity and settings of a loaded model; stored in the index and compared at query time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelIdentity {
    /// Folder name, e.g. `all-MiniLM-L6-v2`.
    pub name: String,
    /// SHA-256 (hex) over config.json, tokenizer.json and the weights, then the settings
    /// string `pooling=<p>;max_seq_length=<n>`.
    pub sha256: String,
    /// Floats per embedding (the model's hidden size).
    pub dim: usize,
    /// How token states become one vector.
    pub pooling: Pooling,
    /// Maximum tokens per input, including `[CLS]` and `[SEP]`.
    pub max_seq_length: usize,
    /// Id of `[CLS]`.
    pub cls_id: u32,
    /// Id of `[SEP]`.
    pub sep_id: u32,
}

impl ModelIdentity {
    /// `name@sha256[..12]`, as error messages print it.
    pub fn short(&self) -> String {
        format!("{}@{}", self.name, &self.sha256[..self.sha256.len().min(12)])
    }

    /// The metadata recorded in an index.
    pub fn to_meta(&self) -> ModelMeta {
        ModelMeta {
            name: self.name.clone(),
            sha256: self.sha256.clone(),
            dim: self.dim,
            pooling: self.pooling.name().to_string(),
            max_seq_length: self.max_seq_length,
        }
    }
}

/// A sentence-embedding model: tokenizer plus encoder plus pooling.
///
/// Implementations must be deterministic: the same tokens give the same vector (up to
/// floating-point reassociation across batch shapes, far below cosine 1e-6).
pub trait Embedder: Send + Sync {
    /// The model's identity and settings.
    fn identity(&self) -> &ModelIdentity;

    /// Token ids of `text` without special tokens, after cutting it to
    /// [`MAX_FIELD_CHARS`] characters.
    ///
    /// # Errors
    /// [`crate::Error::Tokenizer`] when the tokenizer fails.
    fn tokenize(&self, text: &str) -> Result<Vec<u32>>;

    /// [`Embedder::tokenize`] over many texts (in parallel where the tokenizer can).
    ///
    /// # Errors
    /// [`crate::Error::Tokenizer`] when the tokenizer fails.
    fn tokenize_batch(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        texts.iter().map(|t| self.tokenize(t)).collect()
    }

    /// Embeds complete sequences (`[CLS] … [SEP]`, each at most `max_seq_length` ids):
    /// `[b, seq]` u32 in, `b` × `dim` f32 out, L2-normalised. Sequences are padded to the
    /// longest in the batch, so callers should group similar lengths.
    ///
    /// # Errors
    /// [`crate::Error::Candle`] when inference fails; [`crate::Error::InvalidParameter`]
    /// for an empty or over-long sequence.
    fn embed_tokens(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>>;

    /// Floats per embedding.
    fn dim(&self) -> usize {
        self.identity().dim
    }

    /// Embeds one query for `space` from buggy code and root cause, following [`compose()`]
    /// with the default cause budget [`CAUSE_MAX_TOKENS`]. To query an index, use
    /// [`crate::Index::embed_query`], which follows the budget the index recorded.
    ///
    /// # Errors
    /// As [`Embedder::tokenize`] and [`Embedder::embed_tokens`].
    fn embed_query(&self, space: Space, code: &str, cause: &str) -> Result<Vec<f32>> {
        self.embed_query_with(space, code, cause, CAUSE_MAX_TOKENS)
    }

    /// [`Embedder::embed_query`] with a cause budget of `cause_max_tokens` tokens (the
    /// `cause_max_tokens` an index records in its [`crate::format::TextMeta`]).
    ///
    /// # Errors
    /// As [`Embedder::tokenize`] and [`Embedder::embed_tokens`].
    fn embed_query_with(&self, space: Space, code: &str, cause: &str, cause_max_tokens: usize) -> Result<Vec<f32>> {
        let ids = self.compose_text_with(space, code, cause, cause_max_tokens)?;
        Ok(self.embed_tokens(&[&ids])?.remove(0))
    }

    /// The token sequence [`compose()`] makes for `space` from `code` and `cause` with the
    /// default cause budget.
    ///
    /// # Errors
    /// As [`Embedder::tokenize`].
    fn compose_text(&self, space: Space, code: &str, cause: &str) -> Result<Vec<u32>> {
        self.compose_text_with(space, code, cause, CAUSE_MAX_TOKENS)
    }

    /// [`Embedder::compose_text`] with a cause budget of `cause_max_tokens` tokens.
    ///
    /// # Errors
    /// As [`Embedder::tokenize`].
    fn compose_text_with(&self, space: Space, code: &str, cause: &str, cause_max_tokens: usize) -> Result<Vec<u32>> {
        let (code, cause) = (self.tokenize(code)?, self.tokenize(cause)?);
        Ok(compose(space, &code, &cause, self.identity(), cause_max_tokens))
    }

    /// The token sequence `rule` makes for `space` from `code` and `cause` with a cause
    /// budget of `cause_max_tokens` tokens, `lines` being the buggy lines of `code` when
    /// known (see the rules in [`compose()`]'s module; `cause-first-v1` ignores `lines`).
    ///
    /// # Errors
    /// As [`Embedder::tokenize`].
    fn compose_by_rule(
        &self,
        rule: Rule,
        space: Space,
        (code, cause): (&str, &str),
        lines: Option<LineRange>,
        cause_max_tokens: usize,
    ) -> Result<Vec<u32>> {
        let (code_ids, cause_ids) = (self.tokenize(code)?, self.tokenize(cause)?);
        let code_ids = match (rule, lines) {
            (Rule::CauseFirstWindow, Some(l)) if space != Space::Cause => {
                let w = self.identity().max_seq_length;
                let budget = window::code_budget(space, cause_ids.len(), w, cause_max_tokens);
                window::window_code(code, &code_ids, l, budget, &|t| self.tokenize(t))?
            }
            _ => code_ids,
        };
        Ok(compose(space, &code_ids, &cause_ids, self.identity(), cause_max_tokens))
    }

    /// Embeds plain texts as sentence-transformers does (`[CLS] text [SEP]`, truncated to
    /// `max_seq_length`): the path checked against the reference embeddings.
    ///
    /// # Errors
    /// As [`Embedder::tokenize`] and [`Embedder::embed_tokens`].
    fn embed_texts(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let ids = self.tokenize_batch(texts)?;
        let seqs: Vec<Vec<u32>> = ids.iter().map(|t| compose(Space::Code, t, &[], self.identity(), 0)).collect();
        let refs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
        self.embed_tokens(&refs)
    }
}
