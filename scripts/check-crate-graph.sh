#!/usr/bin/env bash
# Checks the layer rules of DESIGN.md: engine and actions depend on no workspace crate;
# indexer and repair may depend on engine and actions, never on each other. Exit 1 on a
# violation.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
meta = json.load(sys.stdin)
members = {p["name"] for p in meta["packages"]}
deps = {p["name"]: {d["name"] for d in p["dependencies"] if d["name"] in members and d["kind"] is None}
        for p in meta["packages"]}
rules = {"fixdex-engine": set(), "fixdex-actions": set(),
         "fixdex-indexer": {"fixdex-engine", "fixdex-actions"}, "fixdex-repair": {"fixdex-engine", "fixdex-actions"}}
bad = [f"{p} depends on {sorted(deps[p] - allowed)}" for p, allowed in rules.items() if deps.get(p, set()) - allowed]
print("\n".join(bad) or "crate graph ok: " + ", ".join(f"{p} -> {sorted(d)}" for p, d in sorted(deps.items())))
sys.exit(1 if bad else 0)
'
