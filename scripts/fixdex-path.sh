#!/usr/bin/env bash
# Prints the path of the `fixdex` binary that `cargo build --profile PROFILE` writes (default
# PROFILE: release), wherever cargo puts it: honours CARGO_TARGET_DIR, CARGO_BUILD_TARGET_DIR,
# `build.target-dir` in a cargo config (all through `cargo metadata`) and CARGO_BUILD_TARGET
# (a cross target adds `<triple>/`). Does not build. Used by every script that runs the binary
# (quickstart.sh, bench-vs-peers.sh), so none of them assumes ./target.
#   scripts/fixdex-path.sh            # .../target/release/fixdex
#   scripts/fixdex-path.sh dev        # .../target/debug/fixdex
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${1:-release}
case "$profile" in
  dev | test) dir=debug ;;
  bench) dir=release ;;
  *) dir=$profile ;;
esac
meta=$(cargo metadata --format-version 1 --no-deps --offline 2>/dev/null || cargo metadata --format-version 1 --no-deps)
target_dir=$(printf '%s' "$meta" | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
triple=${CARGO_BUILD_TARGET:+$CARGO_BUILD_TARGET/}
echo "$target_dir/$triple$dir/fixdex"
