//! sentence-transformers settings read from a model folder: pooling and `max_seq_length`.

use std::path::Path;

use serde::Deserialize;

use crate::{Error, Result};

/// How the token states of the last layer become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean over the non-padding tokens (`pooling_mode_mean_tokens`).
    Mean,
    /// The `[CLS]` token's state (`pooling_mode_cls_token`).
    Cls,
}

impl Pooling {
    /// `mean` or `cls`.
    pub fn name(self) -> &'static str {
        match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        }
    }
}

/// The sentence-transformers configuration of a model folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentenceConfig {
    /// Pooling mode.
    pub pooling: Pooling,
    /// Maximum tokens per input including special tokens; `None` when the folder does not say.
    pub max_seq_length: Option<usize>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    path: String,
}

#[derive(Deserialize, Default)]
struct PoolingFile {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(Deserialize)]
struct BertFile {
    max_seq_length: Option<usize>,
}

impl SentenceConfig {
    /// Reads `modules.json`, the Pooling module's `config.json` (default path `1_Pooling/`)
    /// and `sentence_bert_config.json` from `dir`. A folder without these files gets mean
    /// pooling (sentence-transformers' default) and no explicit `max_seq_length`.
    ///
    /// # Errors
    /// [`Error::Model`] for unreadable JSON or a pooling mode other than mean or CLS.
    pub fn read(dir: &Path) -> Result<SentenceConfig> {
        let pooling_dir = read_json::<Vec<Module>>(dir, "modules.json")?
            .and_then(|mods| mods.into_iter().find(|m| m.kind.ends_with(".Pooling")))
            .map_or_else(|| "1_Pooling".to_string(), |m| m.path);
        let pooling_file = format!("{pooling_dir}/config.json");
        let pooling = match read_json::<PoolingFile>(dir, &pooling_file)? {
            None => Pooling::Mean,
            Some(p) => pooling_mode(dir, &p)?,
        };
        let max_seq_length = read_json::<BertFile>(dir, "sentence_bert_config.json")?.and_then(|b| b.max_seq_length);
        Ok(SentenceConfig { pooling, max_seq_length })
    }
}

fn pooling_mode(dir: &Path, p: &PoolingFile) -> Result<Pooling> {
    match (p.pooling_mode_mean_tokens, p.pooling_mode_cls_token) {
        (true, false) if !p.pooling_mode_max_tokens && !p.pooling_mode_mean_sqrt_len_tokens => Ok(Pooling::Mean),
        (false, true) if !p.pooling_mode_max_tokens && !p.pooling_mode_mean_sqrt_len_tokens => Ok(Pooling::Cls),
        _ => Err(Error::Model {
            path: dir.to_path_buf(),
            reason: "unsupported pooling mode: fixdex supports exactly one of mean or CLS pooling".into(),
        }),
    }
}

/// Parses `dir/name` as JSON; `Ok(None)` when the file does not exist.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>> {
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| Error::Model { path: path.clone(), reason: format!("invalid JSON: {e}") }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pooling_and_length() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("1_Pooling")).unwrap();
        std::fs::write(
            d.path().join("modules.json"),
            r#"[{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"}]"#,
        )
        .unwrap();
        std::fs::write(d.path().join("1_Pooling/config.json"), r#"{"pooling_mode_cls_token": true}"#).unwrap();
        std::fs::write(d.path().join("sentence_bert_config.json"), r#"{"max_seq_length": 300}"#).unwrap();
        let c = SentenceConfig::read(d.path()).unwrap();
        assert_eq!(c, SentenceConfig { pooling: Pooling::Cls, max_seq_length: Some(300) });
    }

    #[test]
    fn defaults_and_unsupported_modes() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            SentenceConfig::read(d.path()).unwrap(),
            SentenceConfig { pooling: Pooling::Mean, max_seq_length: None }
        );
        std::fs::create_dir(d.path().join("1_Pooling")).unwrap();
        std::fs::write(d.path().join("1_Pooling/config.json"), r#"{"pooling_mode_max_tokens": true}"#).unwrap();
        let e = SentenceConfig::read(d.path()).unwrap_err();
        assert!(e.to_string().contains("unsupported pooling"), "{e}");
    }
}
