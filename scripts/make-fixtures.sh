#!/usr/bin/env bash
# Regenerates the committed test fixtures. Only run it on purpose: the golden index of a
# released format version must stay byte-for-byte what that version wrote.
#   engine/tests/data/index_v1.fdx   format v1 index, tiny model, 40 records, 2 spaces
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --locked -q -p fixdex-engine --features testing --example make_fixture -- engine/tests/data/index_v1.fdx
