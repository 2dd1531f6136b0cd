//! What can go wrong in the retrieval pipeline: a leaf module, so every other file of
//! [`crate::retrieve`] (the index that follows its path, [`super::reload`], included) names
//! the error without importing the façade.

use std::path::PathBuf;

/// Errors of the retrieval pipeline and of the external-ingredient tool.
#[derive(Debug, thiserror::Error)]
pub enum RetrieveError {
    /// The engine refused the query or the index (model mismatch, missing space, a filter
    /// matching nothing, corrupt or damaged files).
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
