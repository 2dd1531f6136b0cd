#!/usr/bin/env bash
# Writes the seed inputs of the cargo-fuzz targets into fuzz/seeds/TARGET/ (committed, small):
# the valid inputs that the in-CI fuzz tests damage, written by those tests themselves
# (`fuzz_seeds_*`, with FIXDEX_FUZZ_SEEDS set), plus the golden index fixture.
# Uses the main workspace's test build, not the fuzz build. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf fuzz/seeds
export FIXDEX_FUZZ_SEEDS="$PWD/fuzz/seeds"
cargo test -p fixdex-engine -p fixdex-indexer -p fixdex-repair --test integration -- fuzz::fuzz_seeds_
cp engine/tests/data/index_v2.fdx fuzz/seeds/index_bytes/
du -sh fuzz/seeds/*
