//! fixdex indexer.
