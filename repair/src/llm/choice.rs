//! [`ClientChoice`]: which chat client a run talks to (no model, a replay file, an endpoint,
//! or an endpoint whose exchanges are recorded), and [`RunClient`], the client it builds.
//! The binary maps its flags (`--llm-url`, `--llm-model`, `--replay`, `--record`) to a
//! choice; nothing else decides which client runs.

use std::path::{Path, PathBuf};

use super::{ChatClient, LlmError, NoModel, OpenAiClient, OpenAiConfig, RecordingClient, ReplayClient};
use crate::run::config::DEFAULT_CONTEXT_TOKENS;

/// Which chat client a run uses.
#[derive(Debug, Clone)]
pub enum ClientChoice {
    /// A strategy that needs no model: [`NoModel`], nothing is ever sent.
    NoModel,
    /// Answers replayed from recordings (JSONL, written by [`ClientChoice::Record`]).
    Replay {
        /// The recordings file.
        path: PathBuf,
        /// The model name to send (`--llm-model`), when given.
        model: Option<String>,
    },
    /// An OpenAI-compatible endpoint.
    Endpoint(OpenAiConfig),
    /// An endpoint whose every exchange is also written to `path` (for a later replay).
    Record {
        /// The endpoint.
        endpoint: OpenAiConfig,
        /// The recordings file to create (replaced).
        path: PathBuf,
    },
}

/// Why [`ClientChoice::build`] failed: the file of a replay or a recording, and the cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChoiceError {
    /// The recordings to replay cannot be read or are not recordings.
    #[error("reading recordings {}", path.display())]
    Replay {
        /// The recordings file.
        path: PathBuf,
        /// What went wrong ([`LlmError::Io`], [`LlmError::BadRecording`], ...).
        #[source]
        source: LlmError,
    },
    /// The recordings file cannot be created.
    #[error("creating {}", path.display())]
    Record {
        /// The recordings file.
        path: PathBuf,
        /// What went wrong ([`LlmError::Io`]).
        #[source]
        source: LlmError,
    },
}

/// The chat client of one run, as a [`ClientChoice`] built it, and the model name its
/// requests carry.
#[derive(Debug)]
pub struct RunClient {
    chat: Chat,
    /// Model name sent in the requests: the endpoint's, `--llm-model` when replaying, else
    /// empty.
    pub model: String,
}

/// The client itself, one kind per [`ClientChoice`].
#[derive(Debug)]
enum Chat {
    None(NoModel),
    Replay(ReplayClient),
    Endpoint(OpenAiClient),
    Recording(RecordingClient<OpenAiClient>),
}

impl ClientChoice {
    /// Builds the client: opens the replay file (read whole, O(bytes)), creates the
    /// recordings file, or configures the endpoint (no request is sent).
    ///
    /// # Errors
    /// [`ChoiceError::Replay`] when the recordings cannot be read or parsed,
    /// [`ChoiceError::Record`] when the recordings file cannot be created.
    pub fn build(self) -> Result<RunClient, ChoiceError> {
        match self {
            ClientChoice::NoModel => Ok(RunClient { chat: Chat::None(NoModel), model: String::new() }),
            ClientChoice::Replay { path, model } => replay(&path, model.unwrap_or_default()),
            ClientChoice::Endpoint(cfg) => {
                let model = cfg.model.clone();
                Ok(RunClient { chat: Chat::Endpoint(OpenAiClient::new(cfg)), model })
            }
            ClientChoice::Record { endpoint, path } => record(endpoint, path),
        }
    }
}

/// The client replaying the recordings at `path`, sending `model`.
fn replay(path: &Path, model: String) -> Result<RunClient, ChoiceError> {
    let client = ReplayClient::open(path).map_err(|source| ChoiceError::Replay { path: path.to_owned(), source })?;
    Ok(RunClient { chat: Chat::Replay(client), model })
}

/// The endpoint `cfg`, its exchanges recorded into `path`.
fn record(cfg: OpenAiConfig, path: PathBuf) -> Result<RunClient, ChoiceError> {
    let model = cfg.model.clone();
    let client = RecordingClient::create(OpenAiClient::new(cfg), &path);
    let client = client.map_err(|source| ChoiceError::Record { path, source })?;
    Ok(RunClient { chat: Chat::Recording(client), model })
}

impl RunClient {
    /// The client, to hand to the workflow, the labeller or the evaluation.
    pub fn get(&self) -> &dyn ChatClient {
        match &self.chat {
            Chat::None(c) => c,
            Chat::Replay(c) => c,
            Chat::Endpoint(c) => c,
            Chat::Recording(c) => c,
        }
    }

    /// The strict replay check ([`ReplayClient::finish`]): `Ok` unless this client replays
    /// and some recordings were never asked for.
    ///
    /// # Errors
    /// [`LlmError::ReplayUnused`] naming the file, the count and the first keys.
    pub fn unused_recordings(&self) -> Result<(), LlmError> {
        match &self.chat {
            Chat::Replay(c) => c.finish(),
            _ => Ok(()),
        }
    }

    /// The context window in tokens: `llm_context` (`--llm-context`) when given, else the
    /// server's model list ([`ChatClient::context_length`], one `GET /models`), else
    /// [`DEFAULT_CONTEXT_TOKENS`].
    pub fn context_tokens(&self, llm_context: Option<u64>) -> u64 {
        llm_context.or_else(|| self.get().context_length().map(u64::from)).unwrap_or(DEFAULT_CONTEXT_TOKENS)
    }

    /// The model name: [`Self::model`], else the one the client describes (a replay file's
    /// recordings); `None` when neither names one.
    pub fn model_name(&self) -> Option<String> {
        let from_client = Some(self.model.clone()).filter(|m| !m.is_empty());
        from_client.or_else(|| self.get().describe().model).filter(|m| !m.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_model_answers_nothing_and_names_no_model() {
        let client = ClientChoice::NoModel.build().unwrap();
        assert_eq!(client.get().describe().kind, "none");
        assert_eq!(client.model_name(), None);
        assert!(client.unused_recordings().is_ok());
        assert_eq!(client.context_tokens(None), DEFAULT_CONTEXT_TOKENS);
        assert_eq!(client.context_tokens(Some(4096)), 4096);
    }

    #[test]
    fn a_missing_replay_file_is_named() {
        let path = PathBuf::from("/nonexistent/recordings.jsonl");
        let err = ClientChoice::Replay { path, model: None }.build().unwrap_err();
        assert_eq!(err.to_string(), "reading recordings /nonexistent/recordings.jsonl");
        assert!(matches!(err, ChoiceError::Replay { source: LlmError::Io { .. }, .. }));
    }

    #[test]
    fn an_empty_replay_file_replays_with_the_model_given() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        std::fs::write(&path, "").unwrap();
        let client = ClientChoice::Replay { path, model: Some("m".into()) }.build().unwrap();
        assert_eq!(client.get().describe().kind, "replay");
        assert_eq!(client.model_name().as_deref(), Some("m"));
        assert!(client.unused_recordings().is_ok());
    }

    #[test]
    fn an_endpoint_sends_its_model_and_a_record_file_is_created() {
        let cfg = endpoint();
        let client = ClientChoice::Endpoint(cfg.clone()).build().unwrap();
        assert_eq!((client.get().describe().kind, client.model.as_str()), ("openai", "tiny"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        let recording = ClientChoice::Record { endpoint: cfg, path: path.clone() }.build().unwrap();
        assert_eq!(recording.get().describe().kind, "recording");
        assert!(path.exists());
        let bad = ClientChoice::Record { endpoint: endpoint(), path: dir.path().join("no/such/dir.jsonl") };
        assert!(matches!(bad.build().unwrap_err(), ChoiceError::Record { .. }));
    }

    /// An endpoint nothing listens on (no request is sent by these tests).
    fn endpoint() -> OpenAiConfig {
        OpenAiConfig::new("http://127.0.0.1:9/v1", "tiny", None)
    }
}
