#!/usr/bin/env bash
# The project's test command (README "Quickstart", called by .ci/run).
#
# Installs the default model when missing (scripts/fetch-model.sh) and the test toolchains
# (scripts/setup-test-tools.sh: JDK, JUnit 4, pytest), then runs every test of
# the workspace with cargo-nextest and the doctests with cargo test. When FIXDEX_SHARED is set
# (CI sets FIXDEX_SHARED=../shared), the `shared_*` tests on ../shared data run too, and fail
# when the data is missing; without it they are left out.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fetch-model.sh
# JDK + JUnit 4 (Debian) and pytest (PyPI venv) for the repair harness tests.
export "$(scripts/setup-test-tools.sh | tail -n 1)"

if cargo nextest --version >/dev/null 2>&1; then
  profile=default
  if [ -n "${FIXDEX_SHARED:-}" ]; then profile=ci; fi
  cargo nextest run --workspace --locked --profile "$profile"
else
  echo "cargo-nextest not found; using cargo test" >&2
  if [ -n "${FIXDEX_SHARED:-}" ]; then
    cargo test --workspace --locked --all-targets
  else
    cargo test --workspace --locked --all-targets -- --skip shared_
  fi
fi
cargo test --workspace --locked --doc
