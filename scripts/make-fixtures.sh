#!/usr/bin/env bash
# Regenerates the committed test fixture of the current format version. Only run it on
# purpose: the golden index of a released format version must stay byte-for-byte what that
# version wrote.
#   engine/tests/data/index_v2.fdx   format v2 index, tiny model, 40 records with repair actions, 2 spaces
#   engine/tests/data/index_v1.fdx   format v1 (fixdex 0.1.0, commit b12e676), no longer
#                                    writable; kept as the fixture of a refused old version
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --locked -q -p fixdex-engine --features testing --example make_fixture -- engine/tests/data/index_v2.fdx
