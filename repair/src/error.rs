//! The crate-level error: what can end a repair run (or a step of one) besides the model's
//! answers, each kind typed by the module it comes from.

use std::path::PathBuf;

use crate::llm::LlmError;
use crate::patch::PatchError;
use crate::retrieve::RetrieveError;
use crate::tools::ToolError;
use crate::validate::ValidateError;
use crate::validate::scratch::ScratchError;

/// Errors of the repair machinery: the endpoint, the project's files, the scratch copies,
/// the test commands, retrieval and the tools. A patch the model wrote that does not apply
/// is not an error of the run: it is a [`crate::validate::Verdict::PatchRefused`]
/// candidate ([`Refusal`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The chat endpoint (transport, HTTP status, budget, deadline, malformed replies).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// Starting or waiting for a build or test command.
    #[error(transparent)]
    Validate(#[from] ValidateError),
    /// Copying the project into a scratch folder.
    #[error(transparent)]
    Scratch(#[from] ScratchError),
    /// The index of similar fixes.
    #[error(transparent)]
    Retrieve(#[from] RetrieveError),
    /// An internal-ingredient tool (also used to find the buggy method).
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// Reading a file of the project.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The fault location does not fit the file: a line range outside it, or a method
    /// whose span cannot be read.
    #[error("{0}")]
    Location(String),
    /// The run's wall-clock limit was reached.
    #[error("wall-clock limit of {limit_s} s reached")]
    WallClock {
        /// The limit, seconds.
        limit_s: u64,
    },
    /// A strategy's limit on validations (tested candidates) was reached.
    #[error("validation budget of {} reached", crate::bench::summary::count(*.limit, "candidate"))]
    ValidationBudget {
        /// The limit.
        limit: usize,
    },
    /// Every model request of the run was degraded ([`crate::run::report::Degraded`]).
    #[error("no reply of the model was usable ({requests} requests); the last: {last}")]
    NoUsableReply {
        /// Degraded requests.
        requests: usize,
        /// The last one's reason.
        last: String,
    },
}

/// Results of this crate's run-level operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a candidate patch was refused before its tests ran: the model-facing feedback (what
/// [`PatchError::feedback`] says, or why a cut-off answer holds no complete edit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl From<PatchError> for Refusal {
    fn from(e: PatchError) -> Self {
        Refusal(e.feedback())
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
