#!/usr/bin/env bash
# Smoke test of `fixdex eval defects4j` with a model (issue 31): ReinFix on a few Defects4J
# bugs against a real OpenAI-compatible server, Gemma 3 270M under llama-cpp-python
# (scripts/setup-llm-server.sh, chat format chatml-function-calling). It shows that the model
# path works end to end through the harness (gold check, localization, ReAct, retrieval,
# validation, the run folder, grading), not repair quality: a 270M base model is not expected
# to fix Defects4J bugs. Each bug must end `finished` (not `error`) with a report.
#
# Usage: scripts/smoke-d4j-llm.sh [--bugs Cli-11,Cli-18,JxPath-10] [--venv DIR] [--fixdex BIN]
#                                 [--out DIR] [--port N] [--budget-s S] [--index IDX]
#   --bugs      the bugs [default: Cli-11,Cli-18,JxPath-10]
#   --out       the run folder [default: scratch/smoke-d4j-llm] (replaced)
#   --budget-s  wall budget per bug, seconds [default: 600] (--max-wall-s)
#   --index     an index for ReinFix's retrieval [default: none: --no-retrieval is not
#               ReinFix's; without an index it repairs from the root cause alone]
# Needs FIXDEX_SHARED (../shared) for the Defects4J metadata and bundles, the test tools
# (scripts/setup-test-tools.sh) and the server venv (installed when missing).
# Exit status: 0 when every bug finished (not `error`), 1 otherwise, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${FIXDEX_SHARED:-$root/../shared}
bugs=Cli-11,Cli-18,JxPath-10
venv=${FIXDEX_LLM_VENV:-$root/scratch/llm-venv}
fixdex=
out=$root/scratch/smoke-d4j-llm
port=8089
budget_s=600
index=
while [ $# -gt 0 ]; do
  case $1 in
    --bugs) bugs=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --fixdex) fixdex=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --budget-s) budget_s=$2; shift 2 ;;
    --index) index=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -d "$shared/benchmarks/defects4j/projects" ] || { echo "error: no $shared/benchmarks/defects4j: set FIXDEX_SHARED" >&2; exit 2; }
[ -n "$fixdex" ] || fixdex=$("$root/scripts/fixdex-path.sh" dev)
[ -x "$fixdex" ] || { echo "error: $fixdex not found: run \`cargo build --locked\` or give --fixdex" >&2; exit 2; }
url=http://127.0.0.1:$port/v1

"$root/scripts/setup-llm-server.sh" --venv "$venv" >&2
server_pid=
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap stop_server EXIT
mkdir -p "$(dirname "$out")"
rm -rf "$out"
"$root/scripts/setup-llm-server.sh" --venv "$venv" serve --chat-format chatml-function-calling --port "$port" \
  >"$out.server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 180); do
  curl -sf "$url/models" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { echo "error: the server died; see $out.server.log" >&2; exit 1; }
  sleep 1
done

retrieval=()
[ -z "$index" ] || retrieval=(--index "$index")
code=0
"$fixdex" eval defects4j --strategy reinfix --localization perfect --bugs "$bugs" \
  --d4j-meta "$shared/benchmarks/defects4j/projects" --repo "Cli=$shared/repos/commons-cli.bundle" \
  --repo "JxPath=$shared/repos/commons-jxpath.bundle" --run-dir "$out" -j 1 \
  --llm-url "$url" --llm-model gemma-3-270m --max-wall-s "$budget_s" --max-reply-tokens 512 \
  "${retrieval[@]}" --json >"$out.json" 2>"$out.log" || code=$?
python3 - "$out.json" "$code" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
try:
    s = json.load(open(path))
except Exception as e:
    print(f"exit {code}, no summary: {e}")
    sys.exit(1)
for b in s["bugs"]:
    print(f"{b['bug']}: {b['status']}, outcome {b['outcome']}, calls {b['calls']}, tokens {b['tokens']}, "
          f"validations {b['validations']}, plausible {b['plausible']}, tier {b['best_tier']}, {b['wall_s']:.0f} s"
          + (f", reason: {b['reason']}" if b.get("reason") else ""))
bad = [b["bug"] for b in s["bugs"] if b["status"] == "error"]
print(f"exit {code}; {len(s['bugs'])} bugs, errors: {bad or 'none'}")
sys.exit(1 if bad or len(s["bugs"]) == 0 else 0)
PY
