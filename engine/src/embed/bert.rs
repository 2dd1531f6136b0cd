//! [`BertEmbedder`]: a BERT-family encoder on candle (CPU), with mean or CLS pooling and
//! L2 normalisation.

use std::fmt;
use std::path::Path;

use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::Tokenizer;

use super::st_config::{SentenceConfig, read_json};
use super::{Embedder, Encoder, MAX_FIELD_CHARS, ModelIdentity, Pooling, cut_chars};
use crate::{Error, Result};

/// Files of a model folder that fixdex reads (besides the sentence-transformers ones).
pub const CONFIG_FILE: &str = "config.json";
/// The Hugging Face tokenizer definition.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The weights.
pub const WEIGHTS_FILE: &str = "model.safetensors";

/// Which implementation runs the forward pass. All use the same weights; `Fast` and
/// `Candle` agree to cosine > 0.99999, `FastBf16` stays above 0.999 (see [`super::bf16`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// [`super::Encoder`]: padding-free, fused kernels, faer GEMMs (the default).
    #[default]
    Fast,
    /// [`super::Encoder`] with the projections in bf16 ([`super::bf16`]): about 1.3× the
    /// throughput of `Fast`; needs AVX512_BF16 (load fails without it).
    FastBf16,
    /// candle-transformers' `BertModel` with padded batches: the reference.
    Candle,
}

/// A BERT sentence-embedding model on the CPU.
pub struct BertEmbedder {
    model: Option<BertModel>,
    encoder: Option<Encoder>,
    tokenizer: Tokenizer,
    identity: ModelIdentity,
    device: Device,
}

impl fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BertEmbedder").field("identity", &self.identity).finish_non_exhaustive()
    }
}

impl BertEmbedder {
    /// Loads a model folder: `config.json`, `tokenizer.json`, `model.safetensors`, and the
    /// sentence-transformers files when present (pooling, `max_seq_length`; see
    /// [`SentenceConfig`]). The tokenizer's own truncation and padding settings are
    /// removed (all-MiniLM-L6-v2 ships truncation 128 and fixed padding 128):
    /// [`super::compose()`] truncates and batches pad to their longest sequence.
    /// `max_seq_length` is the sentence-transformers value, else `max_position_embeddings`.
    ///
    /// Cost: reads the weights into memory (91 MB for all-MiniLM-L6-v2) and hashes them.
    ///
    /// # Errors
    /// [`Error::Model`] naming the missing or invalid file and how to get the default model.
    pub fn load(dir: &Path) -> Result<BertEmbedder> {
        BertEmbedder::load_with(dir, Backend::Fast)
    }

    /// [`BertEmbedder::load`] with a chosen [`Backend`].
    ///
    /// # Errors
    /// As [`BertEmbedder::load`].
    pub fn load_with(dir: &Path, backend: Backend) -> Result<BertEmbedder> {
        let missing = |f: &str| Error::Model {
            path: dir.to_path_buf(),
            reason: format!(
                "no {f}; a model folder needs config.json, tokenizer.json and model.safetensors \
                 (run scripts/fetch-model.sh to install the default model)"
            ),
        };
        let config: Config = read_json(dir, CONFIG_FILE)?.ok_or_else(|| missing(CONFIG_FILE))?;
        let st = SentenceConfig::read(dir)?;
        let read = |f: &str| match std::fs::read(dir.join(f)) {
            Ok(b) => Ok(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(missing(f)),
            Err(e) => Err(Error::io(dir.join(f), e)),
        };
        let (config_bytes, tok_bytes, weights) = (read(CONFIG_FILE)?, read(TOKENIZER_FILE)?, read(WEIGHTS_FILE)?);
        let tokenizer = Tokenizer::from_bytes(&tok_bytes).map_err(|e| Error::Model {
            path: dir.join(TOKENIZER_FILE),
            reason: format!("cannot parse tokenizer: {e}"),
        })?;
        let max_seq = st.max_seq_length.unwrap_or(config.max_position_embeddings);
        let name = dir.file_name().map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
        let sha = fingerprint(&[&config_bytes, &tok_bytes, &weights], st.pooling, max_seq);
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)?;
        BertEmbedder::from_parts(&config, vb, tokenizer, name, sha, st.pooling, max_seq, backend)
    }

    /// Builds an embedder from parts: used by [`BertEmbedder::load`] and by the tiny test
    /// model in `engine::testing`.
    ///
    /// # Errors
    /// [`Error::Candle`] when the weights do not fit `config`; [`Error::Model`] when the
    /// tokenizer lacks `[CLS]`/`[SEP]` or `max_seq_length` exceeds the position embeddings.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        config: &Config,
        vb: VarBuilder<'_>,
        mut tokenizer: Tokenizer,
        name: String,
        sha256: String,
        pooling: Pooling,
        max_seq_length: usize,
        backend: Backend,
    ) -> Result<BertEmbedder> {
        let bad = |reason: String| Error::Model { path: name.clone().into(), reason };
        if max_seq_length > config.max_position_embeddings || max_seq_length < 3 {
            return Err(bad(format!(
                "max_seq_length {max_seq_length} is outside 3..={}",
                config.max_position_embeddings
            )));
        }
        let special = |t: &str| tokenizer.token_to_id(t).ok_or_else(|| bad(format!("tokenizer has no {t} token")));
        let (cls_id, sep_id) = (special("[CLS]")?, special("[SEP]")?);
        tokenizer.with_truncation(None).map_err(|e| Error::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(None);
        let (model, encoder) = match backend {
            Backend::Fast => (None, Some(Encoder::load(&vb, config, pooling, false)?)),
            Backend::FastBf16 => (None, Some(Encoder::load(&vb, config, pooling, true)?)),
            Backend::Candle => (Some(BertModel::load(vb, config)?), None),
        };
        let identity = ModelIdentity { name, sha256, dim: config.hidden_size, pooling, max_seq_length, cls_id, sep_id };
        Ok(BertEmbedder { model, encoder, tokenizer, identity, device: Device::Cpu })
    }

    /// The forward pass of candle-transformers' `BertModel` on a padded batch.
    fn forward(&self, model: &BertModel, batch: &[&[u32]]) -> Result<Tensor> {
        let (b, len) = (batch.len(), batch.iter().map(|s| s.len()).max().unwrap_or(0));
        let mut ids = vec![0u32; b * len];
        let mut mask = vec![0f32; b * len];
        for (i, seq) in batch.iter().enumerate() {
            ids[i * len..i * len + seq.len()].copy_from_slice(seq);
            mask[i * len..i * len + seq.len()].iter_mut().for_each(|m| *m = 1.0);
        }
        let ids = Tensor::from_vec(ids, (b, len), &self.device)?;
        let mask = Tensor::from_vec(mask, (b, len), &self.device)?;
        let types = ids.zeros_like()?;
        let hidden = model.forward(&ids, &types, Some(&mask))?; // [b, len, dim]
        let pooled = match self.identity.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let m = mask.unsqueeze(2)?; // [b, len, 1]
                let sum = hidden.broadcast_mul(&m)?.sum(1)?; // [b, dim]
                sum.broadcast_div(&m.sum(1)?)?
            }
        };
        let norm = pooled.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
        Ok(pooled.broadcast_div(&norm)?)
    }
}

impl Embedder for BertEmbedder {
    fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self
            .tokenizer
            .encode(cut_chars(text, MAX_FIELD_CHARS), false)
            .map_err(|e| Error::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    fn tokenize_batch(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        let cut: Vec<&str> = texts.iter().map(|t| cut_chars(t, MAX_FIELD_CHARS)).collect();
        let encs = self.tokenizer.encode_batch(cut, false).map_err(|e| Error::Tokenizer(e.to_string()))?;
        Ok(encs.iter().map(|e| e.get_ids().to_vec()).collect())
    }

    fn embed_tokens(&self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(s) = batch.iter().find(|s| s.is_empty() || s.len() > self.identity.max_seq_length) {
            return Err(Error::InvalidParameter {
                name: "sequence",
                reason: format!("length {} is outside 1..={} tokens", s.len(), self.identity.max_seq_length),
            });
        }
        match (&self.encoder, &self.model) {
            (Some(enc), _) => Ok(enc.embed(batch)),
            (None, Some(model)) => Ok(self.forward(model, batch)?.to_vec2::<f32>()?),
            (None, None) => unreachable!("from_parts sets one backend"),
        }
    }
}

/// SHA-256 over the given file contents (each length-prefixed) and the settings string.
pub fn fingerprint(parts: &[&[u8]], pooling: Pooling, max_seq_length: usize) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.update(format!("pooling={};max_seq_length={max_seq_length}", pooling.name()));
    hex::encode(h.finalize())
}
