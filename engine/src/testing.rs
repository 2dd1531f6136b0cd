//! Test fixtures shared by the workspace (feature `testing`): a tiny in-memory BERT with a
//! tiny tokenizer, seeded random unit vectors, and synthetic bug-fix records.
//!
//! The tiny model has the real architecture (`embed::candle_bert::BertModel`, 2 layers, hidden 32,
//! mean pooling, L2 norm) with deterministic pseudo-random weights, so unit tests exercise
//! the real code path in milliseconds. Tests of embedding *quality* use the real model.

use std::collections::BTreeMap;

use crate::embed::candle_bert::{BertModel, Config, HiddenAct};
use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use tokenizers::Tokenizer;

use crate::embed::{Backend, BertEmbedder, CAUSE_MAX_TOKENS, Embedder, Pooling, RULE};
use crate::format::TextMeta;
use crate::{Record, Result, Space};

pub mod fuzz;

/// Words of the tiny vocabulary besides single characters.
const WORDS: &[&str] = &[
    "the", "for", "int", "if", "else", "return", "null", "none", "while", "def", "class", "public", "static", "void",
    "length", "len", "range", "loop", "index", "off", "by", "one", "bound", "array", "list", "string", "equals",
    "close", "file", "stream", "check", "zero", "negative", "swap",
];

/// Characters that get their own token (and a `##` continuation token).
const CHARS: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

/// Splitmix64: the seeded generator behind every fixture here.
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// The tiny tokenizer as Hugging Face JSON: BERT normaliser (lower case) and
/// pre-tokenizer, WordPiece over single characters, `##` continuations and [`WORDS`].
pub fn tiny_tokenizer_json() -> String {
    let mut vocab: BTreeMap<String, u32> = BTreeMap::new();
    let mut add = |t: String| {
        let n = vocab.len() as u32;
        vocab.entry(t).or_insert(n);
    };
    for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] {
        add(t.to_string());
    }
    for c in CHARS.chars().chain("(){}[];.,=<>+-*/!&|:'\"_".chars()) {
        add(c.to_string());
        add(format!("##{c}"));
    }
    for w in WORDS {
        add((*w).to_string());
    }
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}
    })
    .to_string()
}

/// The tiny model's configuration (2 layers, hidden 32, 4 heads, 128 positions).
pub fn tiny_config(vocab_size: usize) -> Config {
    Config {
        vocab_size,
        hidden_size: 32,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 64,
        hidden_act: HiddenAct::Gelu,
        max_position_embeddings: 128,
        ..Config::default()
    }
}

/// A deterministic tiny BERT embedder: dim 32, `max_seq_length` 64, mean pooling.
/// Every call returns a model with identical weights and identity.
///
/// # Panics
/// Never in practice: the fixture is self-consistent.
pub fn tiny_embedder() -> BertEmbedder {
    tiny_embedder_with_seed(7)
}

/// [`tiny_embedder`] with other weights: a different model identity, for mismatch tests.
///
/// # Panics
/// Never in practice: the fixture is self-consistent.
pub fn tiny_embedder_with_seed(seed: u64) -> BertEmbedder {
    tiny_parts(seed).0
}

fn tiny_parts(seed: u64) -> (BertEmbedder, VarMap, Config, String) {
    let json = tiny_tokenizer_json();
    let tokenizer = Tokenizer::from_bytes(json.as_bytes()).expect("tiny tokenizer parses");
    let config = tiny_config(tokenizer.get_vocab_size(true));
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    // Create the variables (candle's loader does), then give them deterministic values.
    BertModel::load(vb.clone(), &config).expect("tiny model builds");
    fill_deterministic(&varmap, seed);
    let sha = crate::embed::bert_fingerprint(&[json.as_bytes(), &seed.to_le_bytes()], Pooling::Mean, 64);
    let model =
        BertEmbedder::from_parts(&config, vb, tokenizer, "tiny-bert".into(), sha, Pooling::Mean, 64, Backend::Fast)
            .expect("tiny model builds");
    (model, varmap, config, json)
}

/// Writes the tiny model (seed 7) as a Hugging Face folder: `config.json`,
/// `tokenizer.json`, `model.safetensors`, and sentence-transformers files (mean pooling,
/// `max_seq_length` 64), so CLI tests can pass it with `--model`. Loading the folder gives
/// the same embeddings as [`tiny_embedder`] (a different identity: it hashes the files).
///
/// # Errors
/// I/O and safetensors errors.
pub fn write_tiny_model(dir: &std::path::Path) -> Result<()> {
    let (_, varmap, config, json) = tiny_parts(7);
    let io = |e| crate::Error::io(dir, e);
    std::fs::create_dir_all(dir.join("1_Pooling")).map_err(io)?;
    varmap.save(dir.join("model.safetensors"))?;
    std::fs::write(dir.join("tokenizer.json"), json).map_err(io)?;
    let cfg = serde_json::json!({
        "vocab_size": config.vocab_size, "hidden_size": config.hidden_size,
        "num_hidden_layers": config.num_hidden_layers, "num_attention_heads": config.num_attention_heads,
        "intermediate_size": config.intermediate_size, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "max_position_embeddings": config.max_position_embeddings, "type_vocab_size": config.type_vocab_size,
        "initializer_range": 0.02, "layer_norm_eps": config.layer_norm_eps, "pad_token_id": 0,
        "model_type": "bert"
    });
    std::fs::write(dir.join("config.json"), cfg.to_string()).map_err(io)?;
    std::fs::write(dir.join("sentence_bert_config.json"), r#"{"max_seq_length": 64}"#).map_err(io)?;
    std::fs::write(dir.join("1_Pooling/config.json"), r#"{"pooling_mode_mean_tokens": true}"#).map_err(io)?;
    Ok(())
}

/// Overwrites every variable with seeded values: LayerNorm weights 1, biases small.
fn fill_deterministic(varmap: &VarMap, seed: u64) {
    let data = varmap.data().lock().expect("varmap lock");
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    let mut rng = SplitMix(seed);
    for name in names {
        let var = &data[name];
        let shape = var.shape().clone();
        let vals: Vec<f32> = (0..shape.elem_count())
            .map(|_| if name.contains("LayerNorm") && name.ends_with("weight") { 1.0 } else { 0.5 * rng.next_f32() })
            .collect();
        let t = Tensor::from_vec(vals, shape, &Device::Cpu).expect("tensor");
        var.set(&t).expect("same shape");
    }
}

/// The [`TextMeta`] of an index built with the default rule.
pub fn text_meta() -> TextMeta {
    TextMeta { rule: RULE.into(), cause_max_tokens: CAUSE_MAX_TOKENS, cause_field: "root_cause".into() }
}

/// `n` seeded random unit vectors of `dim` floats, row-major.
pub fn random_unit_vectors(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix(seed);
    let mut v: Vec<f32> = (0..n * dim).map(|_| rng.next_f32()).collect();
    for row in v.chunks_exact_mut(dim) {
        crate::distance::normalize(row);
    }
    v
}

/// The repair-action columns of [`sample_records`] by `i % 4` (which fixes both the bug
/// and the language): what `actions::classify` gives for each (the indexer's tests check
/// that it still does). The Python records hold Java code, so they do not parse.
pub const SAMPLE_ACTIONS: [(&str, &str, &str); 4] = [
    (
        "CHANGE_LOOP_BOUND",
        "",
        r#"[{"kind":"CHANGE_LOOP_BOUND","before":"<=","after":"<","enclosing":"for_statement","field":"condition","buggy_lines":[1,1],"fixed_lines":[1,1]}]"#,
    ),
    ("OTHER", "parse error", "[]"),
    (
        "CHANGE_RETURN_VALUE",
        "",
        r#"[{"kind":"CHANGE_RETURN_VALUE","before":"","after":"","enclosing":"return_statement","field":null,"buggy_lines":[1,1],"fixed_lines":[1,1]}]"#,
    ),
    ("OTHER", "parse error", "[]"),
];

/// `n` synthetic, distinct bug-fix records alternating Java and Python over 3 projects,
/// with their repair actions ([`SAMPLE_ACTIONS`]).
pub fn sample_records(n: usize) -> Vec<Record> {
    const BUGS: [(&str, &str, &str); 4] = [
        (
            "for (int i = 0; i <= n; i++) sum += a[i];",
            "for (int i = 0; i < n; i++) sum += a[i];",
            "the loop bound is off by one",
        ),
        ("if (s == null) return s.length();", "if (s == null) return 0;", "null check returns the length of null"),
        ("return a - b;", "return b - a;", "swapped arguments in the subtraction"),
        ("stream.read(buf);", "try (stream) { stream.read(buf); }", "the stream is never closed"),
    ];
    (0..n)
        .map(|i| {
            let (bug, fix, cause) = BUGS[i % BUGS.len()];
            let (label, reason, actions) = SAMPLE_ACTIONS[i % SAMPLE_ACTIONS.len()];
            Record {
                id: format!("test:{i}"),
                source: "test".into(),
                project: format!("proj{}", i % 3),
                language: if i.is_multiple_of(2) { "java".into() } else { "python".into() },
                buggy_code: format!("int f{i}(int[] a, int n) {{ {bug} }}"),
                fixed_code: format!("int f{i}(int[] a, int n) {{ {fix} }}"),
                root_cause: format!("{cause} in f{i}"),
                description: format!("fix f{i}"),
                license: "MIT".into(),
                meta: String::new(),
                action_label: label.into(),
                action_reason: reason.into(),
                actions: actions.into(),
            }
        })
        .collect()
}

/// Embeds every record for `space` (code and root cause composed by the default rule),
/// returning `[n, dim]` row-major.
///
/// # Errors
/// As [`Embedder::embed_tokens`].
pub fn embed_records(model: &dyn Embedder, docs: &[Record], space: Space) -> Result<Vec<f32>> {
    let mut out = Vec::with_capacity(docs.len() * model.dim());
    for d in docs {
        out.extend(model.embed_query(space, &d.buggy_code, &d.root_cause)?);
    }
    Ok(out)
}
