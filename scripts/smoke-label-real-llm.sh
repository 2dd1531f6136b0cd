#!/usr/bin/env bash
# Smoke test of `fixdex label` against a real OpenAI-compatible server (issue 15): Gemma 3
# 270M under llama-cpp-python (scripts/setup-llm-server.sh, chat format gemma), on N rows
# mined by `fixdex mine` from a git history. Interop, not quality: every row must get a
# root cause from the model (`meta.root_cause_source` `model:gemma-3-270m`), the run must
# exit 0, and a second run must answer every row from the cache without a call.
#
# Usage: scripts/smoke-label-real-llm.sh [--repo REPO_OR_BUNDLE] [--rows N] [--venv DIR]
#                                        [--fixdex BIN] [--out DIR] [--port N]
#   --repo    what to mine [default: $FIXDEX_SHARED/repos/commons-cli.bundle]
#   --rows    how many mined rows to label: the first N method rows [default: 20]
#   --venv    the server venv [default: $FIXDEX_LLM_VENV or scratch/llm-venv]
#   --fixdex  the binary [default: scripts/fixdex-path.sh dev]
#   --out     files and logs [default: scratch/smoke-label-real-llm]
# Prints the label summary (JSON) of both runs and five root causes. Exit 0 on success, 1
# otherwise, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
repo=${FIXDEX_SHARED:+$FIXDEX_SHARED/repos/commons-cli.bundle}
rows=20
venv=${FIXDEX_LLM_VENV:-$root/scratch/llm-venv}
fixdex=
out=$root/scratch/smoke-label-real-llm
port=8091
while [ $# -gt 0 ]; do
  case $1 in
    --repo) repo=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --fixdex) fixdex=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    *) echo "usage: $0 [--repo R] [--rows N] [--venv DIR] [--fixdex BIN] [--out DIR] [--port N]" >&2; exit 2 ;;
  esac
done
[ -n "$repo" ] || { echo "error: give --repo, or set FIXDEX_SHARED" >&2; exit 2; }
[ -n "$fixdex" ] || fixdex=$("$root/scripts/fixdex-path.sh" dev)
mkdir -p "$out"
rm -f "$out/labelled.jsonl" "$out/labelled.jsonl.cache"
url=http://127.0.0.1:$port/v1

"$fixdex" mine "$repo" -o "$out/mined.jsonl" --quiet
python3 - "$out/mined.jsonl" "$out/input.jsonl" "$rows" <<'EOF'
import json, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [l for l in open(src) if json.loads(l)["meta"]["granularity"] == "function"][:n]
open(dst, "w").writelines(rows)
print(f"{len(rows)} rows to label", file=sys.stderr)
EOF

"$root/scripts/setup-llm-server.sh" --venv "$venv" >&2
"$root/scripts/setup-llm-server.sh" --venv "$venv" serve --chat-format gemma --port "$port" >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true; wait $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 180); do
  curl -sf "$url/models" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { echo "error: the server did not start; see $out/server.log" >&2; exit 1; }
  sleep 1
done

label() {
  "$fixdex" label "$out/input.jsonl" -o "$out/labelled.jsonl" --llm-url "$url" --llm-model gemma-3-270m \
    --concurrency 1 --max-reply-tokens 128 --llm-timeout 120 --json
}
status=0
first=$(label) || status=$?
echo "first run (exit $status): $first"
second=$(label) || status=$?
echo "second run (exit $status): $second"
python3 - "$out/labelled.jsonl" "$rows" "$second" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want, second = int(sys.argv[2]), json.loads(sys.argv[3])
labelled = [r for r in rows if r.get("root_cause") and r["meta"].get("root_cause_source") == "model:gemma-3-270m"]
for r in labelled[:5]:
    print(f"- {r['id']}: {r['root_cause']}")
ok = len(rows) == want and len(labelled) == want and second["calls"] == 0 and second["from_cache"] == want
print(f"{len(labelled)}/{len(rows)} rows labelled by the model; second run: {second['calls']} calls, {second['from_cache']} from the cache")
sys.exit(0 if ok else 1)
EOF
exit $status
