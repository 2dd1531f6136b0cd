/// Issue 12 item 2: appends, segments and compaction.
mod append;
mod corpus;
/// Fuzz tests: damaged JSONL, Parquet and Arrow corpora never panic the readers (issue 8).
mod fuzz;
/// Issue 11 item 4: the window rule at build time and query time.
mod window;
