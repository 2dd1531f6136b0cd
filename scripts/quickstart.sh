#!/usr/bin/env bash
# The README's first command: fetch the model, build fixdex, index the bundled sample corpus
# and run an example search. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fetch-model.sh
cargo build --release --locked
# Where cargo put the binary (CARGO_TARGET_DIR, a cargo config's build.target-dir, ...).
fixdex=$(scripts/fixdex-path.sh release)
mkdir -p data/indexes
"$fixdex" index data/sample/sample.jsonl -o data/indexes/sample.fdx --spaces code+cause,code
"$fixdex" inspect data/indexes/sample.fdx
echo
echo "== example search: a resource leak in Java (data/sample/queries/ResourceLeak.java) =="
"$fixdex" search data/indexes/sample.fdx \
  --code data/sample/queries/ResourceLeak.java \
  --cause "The BufferedReader is never closed, so every call leaks a file handle until the process runs out of descriptors." \
  -k 3
