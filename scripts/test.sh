#!/usr/bin/env bash
# The project's test command (README "Quickstart", called by .ci/run).
#
# Installs the default model when missing (scripts/fetch-model.sh) and the test toolchains
# (scripts/setup-test-tools.sh: JDK, JUnit 4, pytest), builds the tests once, then runs every
# test of the workspace with cargo-nextest and the doctests with cargo test. When
# FIXDEX_SHARED is set (CI sets FIXDEX_SHARED=../shared), the `shared_*` tests on ../shared
# data run too, as their own phase, and fail when the data is missing; without it they are
# left out. Ends with a table of its phases and their wall times (scripts/phases.sh); under
# .ci/run the phases go into CI's table instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/phases.sh
phase_init
trap phase_table EXIT

phase "model fetch" scripts/fetch-model.sh
# JDK + JUnit 4 (Debian) and pytest (PyPI venv) for the repair harness tests.
phase "test tools" scripts/setup-test-tools.sh >"${TMPDIR:-/tmp}/fixdex-test-tools.$$"
export "$(tail -n 1 "${TMPDIR:-/tmp}/fixdex-test-tools.$$")"
rm -f "${TMPDIR:-/tmp}/fixdex-test-tools.$$"

shared_filter='test(/(^|::)shared_/)'
if cargo nextest --version >/dev/null 2>&1; then
  profile=default
  if [ -n "${FIXDEX_SHARED:-}" ]; then profile=ci; fi
  # The libraries', binaries' and integration tests' targets: not the examples, which are
  # measurements and tools built when run (`cargo run --example`; clippy checks them).
  targets=(--workspace --locked --lib --bins --tests)
  phase "test build" cargo nextest run "${targets[@]}" --profile "$profile" --no-run
  phase "workspace tests" cargo nextest run "${targets[@]}" --profile "$profile" -E "not $shared_filter"
  if [ -n "${FIXDEX_SHARED:-}" ]; then
    phase "shared_* suites" cargo nextest run "${targets[@]}" --profile ci -E "$shared_filter"
  fi
else
  echo "cargo-nextest not found; using cargo test" >&2
  targets=(--workspace --locked --lib --bins --tests)
  phase "test build" cargo test "${targets[@]}" --no-run
  phase "workspace tests" cargo test "${targets[@]}" -- --skip shared_
  if [ -n "${FIXDEX_SHARED:-}" ]; then
    phase "shared_* suites" cargo test "${targets[@]}" -- shared_
  fi
fi
phase "doctests" cargo test --workspace --locked --doc
