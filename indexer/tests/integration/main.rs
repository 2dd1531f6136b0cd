mod corpus;
/// Fuzz tests: damaged JSONL, Parquet and Arrow corpora never panic the readers (issue 8).
mod fuzz;
