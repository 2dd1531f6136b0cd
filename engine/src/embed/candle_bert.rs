//! The reference BERT encoder: Hugging Face's `BertModel` (embeddings + encoder, no pooler)
//! in candle ops, and its `config.json`.
//!
//! Ported from candle-transformers 0.11.1 (`models/bert.rs`, MIT OR Apache-2.0,
//! github.com/huggingface/candle) with what fixdex does not use left out (the pooler and
//! the masked-LM head, tracing spans, dropout, which is the identity at inference): the
//! mathematics and the weight names are unchanged, so its output is that crate's to the
//! last bit. fixdex keeps its own copy because candle-transformers, which holds every model
//! candle supports, cost about a tenth of the workspace's compile time for these 200 lines.
//! It is [`super::Backend::Candle`], the reference the fast [`super::encoder::Encoder`] is
//! checked against.

use candle_core::{D, DType, Device, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The activation of the intermediate layer (`hidden_act` in `config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenAct {
    /// GELU with the error function (`gelu`).
    Gelu,
    /// GELU's tanh approximation (`gelu_approximate`).
    GeluApproximate,
    /// ReLU (`relu`).
    Relu,
}

impl HiddenAct {
    fn forward(self, xs: &Tensor) -> Result<Tensor> {
        match self {
            HiddenAct::Gelu => xs.gelu_erf(),
            HiddenAct::GeluApproximate => xs.gelu(),
            HiddenAct::Relu => xs.relu(),
        }
    }
}

/// Position embeddings (`position_embedding_type`): only `absolute` exists in BERT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PositionEmbeddingType {
    /// Learned absolute positions.
    #[default]
    Absolute,
}

/// A BERT `config.json` (the fields of Hugging Face's `BertConfig`; others are ignored).
/// Sizes are counts (tokens, dimensions, layers, heads).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Config {
    /// Tokens in the vocabulary.
    pub vocab_size: usize,
    /// Width of the hidden states (the embedding dimension).
    pub hidden_size: usize,
    /// Encoder layers.
    pub num_hidden_layers: usize,
    /// Attention heads per layer (`hidden_size` must be a multiple).
    pub num_attention_heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate_size: usize,
    /// Feed-forward activation.
    pub hidden_act: HiddenAct,
    /// Training-time dropout (unused at inference).
    pub hidden_dropout_prob: f64,
    /// Longest sequence the position table holds, in tokens.
    pub max_position_embeddings: usize,
    /// Token-type (segment) ids.
    pub type_vocab_size: usize,
    /// Training-time initialisation scale (unused).
    pub initializer_range: f64,
    /// Epsilon of every LayerNorm.
    pub layer_norm_eps: f64,
    /// Id of the padding token.
    pub pad_token_id: usize,
    /// Position embedding kind.
    #[serde(default)]
    pub position_embedding_type: PositionEmbeddingType,
    /// Decoder cache flag (unused by an encoder).
    #[serde(default)]
    pub use_cache: bool,
    /// Classifier dropout (unused).
    pub classifier_dropout: Option<f64>,
    /// `model_type`, also a possible prefix of the weight names (`bert.`).
    pub model_type: Option<String>,
}

impl Default for Config {
    /// BERT-base's configuration.
    fn default() -> Self {
        Self {
            vocab_size: 30522,
            hidden_size: 768,
            num_hidden_layers: 12,
            num_attention_heads: 12,
            intermediate_size: 3072,
            hidden_act: HiddenAct::Gelu,
            hidden_dropout_prob: 0.1,
            max_position_embeddings: 512,
            type_vocab_size: 2,
            initializer_range: 0.02,
            layer_norm_eps: 1e-12,
            pad_token_id: 0,
            position_embedding_type: PositionEmbeddingType::Absolute,
            use_cache: true,
            classifier_dropout: None,
            model_type: Some("bert".to_string()),
        }
    }
}

/// Word + token-type + position embeddings, then LayerNorm.
#[derive(Debug, Clone)]
struct Embeddings {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(vb: &VarBuilder<'_>, c: &Config) -> Result<Self> {
        Ok(Self {
            word: embedding(c.vocab_size, c.hidden_size, vb.pp("word_embeddings"))?,
            position: embedding(c.max_position_embeddings, c.hidden_size, vb.pp("position_embeddings"))?,
            token_type: embedding(c.type_vocab_size, c.hidden_size, vb.pp("token_type_embeddings"))?,
            norm: layer_norm(c.hidden_size, c.layer_norm_eps, vb.pp("LayerNorm"))?,
        })
    }

    fn forward(&self, input_ids: &Tensor, token_type_ids: &Tensor) -> Result<Tensor> {
        let (_batch, seq_len) = input_ids.dims2()?;
        let embeddings = (self.word.forward(input_ids)? + self.token_type.forward(token_type_ids)?)?;
        let positions: Vec<u32> = (0..seq_len as u32).collect();
        let positions = Tensor::new(&positions[..], input_ids.device())?;
        let embeddings = embeddings.broadcast_add(&self.position.forward(&positions)?)?;
        self.norm.forward(&embeddings)
    }
}

/// Multi-head self-attention (`attention.self`).
#[derive(Debug, Clone)]
struct SelfAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    heads: usize,
    head_size: usize,
}

impl SelfAttention {
    fn load(vb: &VarBuilder<'_>, c: &Config) -> Result<Self> {
        let head_size = c.hidden_size / c.num_attention_heads;
        let all = c.num_attention_heads * head_size;
        Ok(Self {
            query: linear(c.hidden_size, all, vb.pp("query"))?,
            key: linear(c.hidden_size, all, vb.pp("key"))?,
            value: linear(c.hidden_size, all, vb.pp("value"))?,
            heads: c.num_attention_heads,
            head_size,
        })
    }

    /// `[batch, seq, heads · head]` → `[batch, heads, seq, head]`.
    fn split_heads(&self, xs: &Tensor) -> Result<Tensor> {
        let mut shape = xs.dims().to_vec();
        shape.pop();
        shape.extend([self.heads, self.head_size]);
        xs.reshape(shape.as_slice())?.transpose(1, 2)?.contiguous()
    }

    fn forward(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let q = self.split_heads(&self.query.forward(hidden)?)?;
        let k = self.split_heads(&self.key.forward(hidden)?)?;
        let v = self.split_heads(&self.value.forward(hidden)?)?;
        let scores = (q.matmul(&k.t()?)? / (self.head_size as f64).sqrt())?;
        let probs = candle_nn::ops::softmax(&scores.broadcast_add(mask)?, D::Minus1)?;
        probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.flatten_from(D::Minus2)
    }
}

/// A dense layer, then LayerNorm over it plus the residual (`attention.output`, `output`).
#[derive(Debug, Clone)]
struct DenseNorm {
    dense: Linear,
    norm: LayerNorm,
}

impl DenseNorm {
    fn load(vb: &VarBuilder<'_>, input: usize, c: &Config) -> Result<Self> {
        Ok(Self {
            dense: linear(input, c.hidden_size, vb.pp("dense"))?,
            norm: layer_norm(c.hidden_size, c.layer_norm_eps, vb.pp("LayerNorm"))?,
        })
    }

    fn forward(&self, hidden: &Tensor, residual: &Tensor) -> Result<Tensor> {
        self.norm.forward(&(self.dense.forward(hidden)? + residual)?)
    }
}

/// One encoder layer: attention, then the feed-forward block.
#[derive(Debug, Clone)]
struct Layer {
    attention: SelfAttention,
    attention_out: DenseNorm,
    intermediate: Linear,
    act: HiddenAct,
    out: DenseNorm,
}

impl Layer {
    fn load(vb: &VarBuilder<'_>, c: &Config) -> Result<Self> {
        Ok(Self {
            attention: SelfAttention::load(&vb.pp("attention").pp("self"), c)?,
            attention_out: DenseNorm::load(&vb.pp("attention").pp("output"), c.hidden_size, c)?,
            intermediate: linear(c.hidden_size, c.intermediate_size, vb.pp("intermediate").pp("dense"))?,
            act: c.hidden_act,
            out: DenseNorm::load(&vb.pp("output"), c.intermediate_size, c)?,
        })
    }

    fn forward(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let attended = self.attention_out.forward(&self.attention.forward(hidden, mask)?, hidden)?;
        let inner = self.act.forward(&self.intermediate.forward(&attended)?)?;
        self.out.forward(&inner, &attended)
    }
}

/// Hugging Face's `BertModel` without its pooler: token ids in, last hidden states out.
#[derive(Debug, Clone)]
pub struct BertModel {
    embeddings: Embeddings,
    layers: Vec<Layer>,
    /// The device the weights live on.
    pub device: Device,
}

impl BertModel {
    /// Loads the weights under `vb`: `embeddings.*` and `encoder.layer.N.*`, optionally
    /// behind a `bert.` prefix or one named by `config.model_type`.
    ///
    /// # Errors
    /// candle's error naming the first missing tensor or wrong shape.
    pub fn load(vb: VarBuilder<'_>, config: &Config) -> Result<Self> {
        let vb = if vb.contains_tensor("bert") { vb.pp("bert") } else { vb };
        let load = |vb: &VarBuilder<'_>| -> Result<(Embeddings, Vec<Layer>)> {
            let embeddings = Embeddings::load(&vb.pp("embeddings"), config)?;
            let layers = (0..config.num_hidden_layers)
                .map(|i| Layer::load(&vb.pp("encoder").pp(format!("layer.{i}")), config))
                .collect::<Result<Vec<_>>>()?;
            Ok((embeddings, layers))
        };
        let (embeddings, layers) = match (load(&vb), &config.model_type) {
            (Ok(parts), _) => parts,
            (Err(err), Some(prefix)) => load(&vb.pp(prefix)).map_err(|_| err)?,
            (Err(err), None) => return Err(err),
        };
        Ok(Self { embeddings, layers, device: vb.device().clone() })
    }

    /// The last hidden states `[batch, seq, hidden_size]` of `input_ids` `[batch, seq]`
    /// (u32), with `token_type_ids` of the same shape and `attention_mask` (1 for a token,
    /// 0 for padding; all ones when `None`).
    ///
    /// # Errors
    /// candle's shape and dtype errors.
    pub fn forward(
        &self,
        input_ids: &Tensor,
        token_type_ids: &Tensor,
        attention_mask: Option<&Tensor>,
    ) -> Result<Tensor> {
        let mut hidden = self.embeddings.forward(input_ids, token_type_ids)?;
        let mask = match attention_mask {
            Some(mask) => mask.clone(),
            None => input_ids.ones_like()?,
        };
        let mask = extended_attention_mask(&mask, hidden.dtype())?;
        for layer in &self.layers {
            hidden = layer.forward(&hidden, &mask)?;
        }
        Ok(hidden)
    }
}

/// `[batch, seq]` (or `[batch, seq, seq]`) 1/0 mask → an additive mask broadcastable over
/// the heads: 0 where attended, `f32::MIN` where masked (as `torch.finfo(dtype).min`).
fn extended_attention_mask(mask: &Tensor, dtype: DType) -> Result<Tensor> {
    let mask = match mask.rank() {
        3 => mask.unsqueeze(1)?,
        2 => mask.unsqueeze(1)?.unsqueeze(1)?,
        _ => candle_core::bail!("Wrong shape for input_ids or attention_mask"),
    };
    let mask = mask.to_dtype(dtype)?;
    (mask.ones_like()? - &mask)?.broadcast_mul(&Tensor::try_from(f32::MIN)?.to_device(mask.device())?.to_dtype(dtype)?)
}
