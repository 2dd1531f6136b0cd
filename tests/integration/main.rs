//! End-to-end tests of the `fixdex` binary: real processes, real files.

/// Issue 11: repair actions stored at index time, printed in hits, verified; v1 refused.
mod actions;
/// Issue 12: `index --append`, killed and completed; `compact`.
mod append;
/// Every bad input of issue 2 gets a clear error and loses nothing.
mod bad_inputs;
/// `fixdex index` / `search` / `inspect` / `verify` on good input, with the tiny model.
mod cli;
/// Running the binary, writing corpora and the tiny model folder.
mod common;
/// Issue 8, indexer side: outputs checked first, invisible and no-op rows, empty shards,
/// dedup memory.
mod indexer_hardening;
/// Issue 15: `fixdex label`: replayed, killed and resumed, mechanical, bad input.
mod label;
/// `fixdex mine` on git histories built by the tests: selection, skips, bundles, bad input.
mod mine;
/// Issue 29 items 1 and 2: one output check for every writer (devices, inputs, symbolic
/// links) and the output lock.
mod outputs;
/// Issue 29 item 3: the query's own code comes first under every ranking (real model).
mod ranking;
/// `fixdex repair` (replayed) and `fixdex eval quixbugs` (and the deprecated `bench
/// quixbugs`) on the minibugs fixture.
mod repair;
/// Issue 31 item 7: `fixdex eval report|compare|merge` on run folders; the HTML page in a
/// headless browser.
mod runs;
/// The quickstart path with the real model on the bundled sample corpus.
mod sample;
/// The scripts find the binary wherever cargo put it.
mod scripts;
/// Issue 12 item 5: `search --batch` and the model fingerprint cache.
mod search_batch;
/// Issue 8, search side: hyphen values, empty queries, damaged indexes, input caps, the
/// index's embedding rule, filters and project identity.
mod search_hardening;
/// `fixdex serve`: MCP over stdio and the HTTP API, as real sessions.
mod serve;
/// Sharded builds and manifests.
mod shards;
/// On ../shared data (FIXDEX_SHARED).
mod shared;
/// Issue 11 item 4: the window rule with the real model; `--embed-rule`, `--lines`.
mod window;
