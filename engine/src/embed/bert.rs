//! [`BertEmbedder`]: a BERT-family encoder on candle (CPU), with mean or CLS pooling and
//! L2 normalisation.

use std::fmt;
use std::path::Path;

use bytes::Bytes;

use super::candle_bert::{BertModel, Config};
use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use sha2::{Digest, Sha256};
use tokenizers::Tokenizer;

use super::st_config::SentenceConfig;
use super::{Embedder, Encoder, MAX_FIELD_CHARS, ModelIdentity, Pooling, cut_chars, fingerprint_cache};
use crate::storage::{self, Load};
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
    /// [`BertModel`] (candle ops, ported from candle-transformers) with padded batches: the
    /// reference.
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
    /// Cost: the weights are memory-mapped (the file must not be rewritten in place while
    /// the model is loaded; install a new model by renaming it into place, as
    /// `scripts/fetch-model.sh` does); the fast backends view the embedding tables in the
    /// map and copy the projections once (about 45 MB for all-MiniLM-L6-v2), while the
    /// tokenizer is parsed on another thread. The model identity's SHA-256 covers all the
    /// weights; it is computed once and then taken from a cache keyed by the files' device,
    /// inode, size and times (`fingerprint_cache`), so an unchanged model is not hashed
    /// again. Warm page cache, all-MiniLM-L6-v2, 2-core VM: a process that starts, opens an
    /// index and loads the model takes about 43 ms (290 ms when the load read, copied and hashed
    /// all the weights).
    ///
    /// # Errors
    /// [`Error::Model`] naming the missing or invalid file and how to get the default model;
    /// [`Error::Candle`] when the weights are not a valid safetensors file or do not fit
    /// `config.json`.
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
        let open = |f: &str, load: Load| match storage::load_file(&dir.join(f), load) {
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Err(missing(f)),
            other => other,
        };
        let (config_bytes, config_id) = open(CONFIG_FILE, Load::Memory)?;
        let config: Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| Error::Model { path: dir.join(CONFIG_FILE), reason: format!("invalid JSON: {e}") })?;
        let st = SentenceConfig::read(dir)?;
        let (tok_bytes, tok_id) = open(TOKENIZER_FILE, Load::Memory)?;
        let (weights, weights_id) = open(WEIGHTS_FILE, Load::Mmap)?;
        let max_seq = st.max_seq_length.unwrap_or(config.max_position_embeddings);
        let name = dir.file_name().map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
        check_max_seq(&config, max_seq, &name)?;
        let key =
            fingerprint_cache::Key { files: [config_id, tok_id, weights_id], settings: settings(st.pooling, max_seq) };
        // The tokenizer parses on one thread while the other hashes (first load only) and
        // reads the weights.
        let (tokenizer, (sha, built)) = rayon::join(
            || {
                let tokenizer = Tokenizer::from_bytes(&tok_bytes).map_err(|e| Error::Model {
                    path: dir.join(TOKENIZER_FILE),
                    reason: format!("cannot parse tokenizer: {e}"),
                })?;
                prepare_tokenizer(tokenizer, &name)
            },
            || {
                rayon::join(
                    || {
                        fingerprint_cache::fingerprint(dir, &key, || {
                            fingerprint(&[&config_bytes, &tok_bytes, &weights], st.pooling, max_seq)
                        })
                    },
                    || build(&config, Weights::Mapped(&weights), st.pooling, backend),
                )
            },
        );
        let (tokenizer, cls_id, sep_id) = tokenizer?;
        let (model, encoder) = built?;
        let identity = ModelIdentity {
            name,
            sha256: sha,
            dim: config.hidden_size,
            pooling: st.pooling,
            max_seq_length: max_seq,
            cls_id,
            sep_id,
        };
        Ok(BertEmbedder { model, encoder, tokenizer, identity, device: Device::Cpu })
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
        tokenizer: Tokenizer,
        name: String,
        sha256: String,
        pooling: Pooling,
        max_seq_length: usize,
        backend: Backend,
    ) -> Result<BertEmbedder> {
        check_max_seq(config, max_seq_length, &name)?;
        let (tokenizer, cls_id, sep_id) = prepare_tokenizer(tokenizer, &name)?;
        let (model, encoder) = build(config, Weights::Candle(vb), pooling, backend)?;
        let identity = ModelIdentity { name, sha256, dim: config.hidden_size, pooling, max_seq_length, cls_id, sep_id };
        Ok(BertEmbedder { model, encoder, tokenizer, identity, device: Device::Cpu })
    }

    /// The forward pass of the reference [`BertModel`] on a padded batch.
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

/// Where the weights of [`build`] come from.
enum Weights<'a> {
    /// Tensors already in candle.
    Candle(VarBuilder<'a>),
    /// The bytes of a safetensors file (memory-mapped).
    Mapped(&'a Bytes),
}

/// The model of `backend` over `weights`: candle's `BertModel` or the fast [`Encoder`].
fn build(
    config: &Config,
    weights: Weights<'_>,
    pooling: Pooling,
    backend: Backend,
) -> Result<(Option<BertModel>, Option<Encoder>)> {
    let bf16 = match backend {
        Backend::Fast => false,
        Backend::FastBf16 => true,
        Backend::Candle => {
            let vb = match weights {
                Weights::Candle(vb) => vb,
                Weights::Mapped(bytes) => VarBuilder::from_slice_safetensors(bytes, DType::F32, &Device::Cpu)?,
            };
            return Ok((Some(BertModel::load(vb, config)?), None));
        }
    };
    let encoder = match weights {
        Weights::Candle(vb) => Encoder::load(&vb, config, pooling, bf16)?,
        Weights::Mapped(bytes) => Encoder::load_safetensors(bytes, config, pooling, bf16)?,
    };
    Ok((None, Some(encoder)))
}

/// Refuses a `max_seq_length` outside `3..=max_position_embeddings`.
fn check_max_seq(config: &Config, max_seq_length: usize, name: &str) -> Result<()> {
    if max_seq_length > config.max_position_embeddings || max_seq_length < 3 {
        return Err(Error::Model {
            path: name.into(),
            reason: format!("max_seq_length {max_seq_length} is outside 3..={}", config.max_position_embeddings),
        });
    }
    Ok(())
}

/// The tokenizer without its own truncation and padding, and the ids of `[CLS]` and `[SEP]`.
fn prepare_tokenizer(mut tokenizer: Tokenizer, name: &str) -> Result<(Tokenizer, u32, u32)> {
    let special = |t: &str| {
        tokenizer
            .token_to_id(t)
            .ok_or_else(|| Error::Model { path: name.into(), reason: format!("tokenizer has no {t} token") })
    };
    let (cls_id, sep_id) = (special("[CLS]")?, special("[SEP]")?);
    tokenizer.with_truncation(None).map_err(|e| Error::Tokenizer(e.to_string()))?;
    tokenizer.with_padding(None);
    Ok((tokenizer, cls_id, sep_id))
}

/// The settings string that ends the fingerprint: `pooling=<p>;max_seq_length=<n>`.
fn settings(pooling: Pooling, max_seq_length: usize) -> String {
    format!("pooling={};max_seq_length={max_seq_length}", pooling.name())
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
    h.update(settings(pooling, max_seq_length));
    hex::encode(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: [&str; 3] = ["int x = 1;", "def f(a):\n    return a + 1", "the reader is never closed"];

    fn folder() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        engine::testing::write_tiny_model(d.path()).unwrap();
        d
    }

    /// The in-memory tiny model's embeddings of [`TEXTS`].
    fn reference() -> Vec<Vec<f32>> {
        use engine::embed::Embedder as _;
        engine::testing::tiny_embedder().embed_texts(&TEXTS).unwrap()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The memory-mapped folder load gives the in-memory model's embeddings (bit for bit on
    /// the fast backend) and the identity is the SHA-256 of the files, loaded twice.
    #[test]
    fn folder_load_matches_the_in_memory_model() {
        let d = folder();
        let reference = reference();
        let read = |f: &str| std::fs::read(d.path().join(f)).unwrap();
        let sha = fingerprint(&[&read(CONFIG_FILE), &read(TOKENIZER_FILE), &read(WEIGHTS_FILE)], Pooling::Mean, 64);
        for _ in 0..2 {
            let m = BertEmbedder::load(d.path()).unwrap();
            assert_eq!(m.embed_texts(&TEXTS).unwrap(), reference);
            assert_eq!(m.identity().sha256, sha);
            assert_eq!((m.identity().max_seq_length, m.identity().dim), (64, 32));
        }
        let candle = BertEmbedder::load_with(d.path(), Backend::Candle).unwrap();
        for (a, b) in candle.embed_texts(&TEXTS).unwrap().iter().zip(&reference) {
            assert!(cosine(a, b) > 0.99999);
        }
        if super::super::bf16::available() {
            let half = BertEmbedder::load_with(d.path(), Backend::FastBf16).unwrap();
            for (a, b) in half.embed_texts(&TEXTS).unwrap().iter().zip(&reference) {
                assert!(cosine(a, b) > 0.999);
            }
        }
    }

    /// Tensors at offsets that are not 4-byte aligned cannot be viewed in place: they are
    /// copied, with the same result.
    #[test]
    fn unaligned_weights_are_copied() {
        let d = folder();
        let path = d.path().join(WEIGHTS_FILE);
        let bytes = std::fs::read(&path).unwrap();
        let n = usize::try_from(u64::from_le_bytes(bytes[..8].try_into().unwrap())).unwrap();
        let mut out = ((n + 1) as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&bytes[8..8 + n]);
        out.push(b' ');
        out.extend_from_slice(&bytes[8 + n..]);
        assert_ne!((8 + n + 1) % 4, 0, "the data is misaligned");
        std::fs::write(&path, out).unwrap();
        let m = BertEmbedder::load(d.path()).unwrap();
        assert_eq!(m.embed_texts(&TEXTS).unwrap(), reference());
    }

    /// Missing and invalid files are named, with how to get the default model.
    #[test]
    fn missing_and_invalid_files_are_named() {
        for f in [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE] {
            let d = folder();
            std::fs::remove_file(d.path().join(f)).unwrap();
            let e = BertEmbedder::load(d.path()).unwrap_err().to_string();
            assert!(e.contains(&format!("no {f}")) && e.contains("scripts/fetch-model.sh"), "{e}");
        }
        let d = folder();
        std::fs::write(d.path().join(TOKENIZER_FILE), "{}").unwrap();
        let e = BertEmbedder::load(d.path()).unwrap_err().to_string();
        assert!(e.contains("cannot parse tokenizer"), "{e}");
        let d = folder();
        std::fs::write(d.path().join(CONFIG_FILE), "{").unwrap();
        let e = BertEmbedder::load(d.path()).unwrap_err().to_string();
        assert!(e.contains("config.json") && e.contains("invalid JSON"), "{e}");
        for bad in [&b""[..], b"not a safetensors file"] {
            let d = folder();
            std::fs::write(d.path().join(WEIGHTS_FILE), bad).unwrap();
            assert!(BertEmbedder::load(d.path()).is_err());
        }
    }
}
