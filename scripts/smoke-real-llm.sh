#!/usr/bin/env bash
# Smoke test of `fixdex repair` against a real OpenAI-compatible server (issue 9): Gemma 3
# 270M under llama-cpp-python (scripts/setup-llm-server.sh), on QuixBugs Python `gcd` and
# Java `GCD`, under both chat formats in turn (chatml-function-calling: native tool calls;
# gemma: plain chat). Interop, not repair quality: a 270M base model is not expected to fix
# anything, but each run must finish its workflow with exit 0 or 4 and a complete report.
#
# Usage: scripts/smoke-real-llm.sh [--quixbugs DIR] [--venv DIR] [--fixdex BIN] [--out DIR]
#                                  [--port N] [--budget-s S] [--formats "F1 F2"] [--programs "python:gcd java:GCD"]
#                                  [--repair-args "--strategy tracerepair ..."]
#   --quixbugs  QuixBugs root [default: $FIXDEX_SHARED/benchmarks/quixbugs]
#   --venv      the server venv (setup-llm-server.sh installs it there when missing)
#               [default: $FIXDEX_LLM_VENV or scratch/llm-venv]
#   --fixdex    the binary [default: where `cargo build --locked` puts it: scripts/fixdex-path.sh dev]
#   --out       reports and logs [default: scratch/smoke-real-llm]; one report per run,
#               OUT/<format>-<program>.json, its stderr in OUT/<format>-<program>.log
#   --budget-s  wall budget per run, seconds [default: 900]: given as --max-wall-s, and the
#               process is killed 60 s after it
#   --repair-args  more `fixdex repair` arguments, split on spaces (e.g. `--strategy
#               tracerepair --rounds 1`) [default: none: ReinFix]
# Needs a JDK with JUnit 4 (Debian junit4, libhamcrest-java) and Python with pytest and
# pytest-timeout (FIXDEX_PYTHON, as scripts/setup-test-tools.sh prints it, or python3).
# `--ignore correct_java_programs --ignore correct_python_programs` and
# `--max-reply-tokens 512` are passed when the binary has those options (see `fixdex repair
# --help`). Prints one line per run: exit code, outcome, calls, tokens, the tool protocol
# and the choices received per request (`n/a` where the report has no such field).
# Exit status: 0 when every run exited 0 or 4 with a report, 1 otherwise, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
quixbugs=${FIXDEX_SHARED:+$FIXDEX_SHARED/benchmarks/quixbugs}
venv=${FIXDEX_LLM_VENV:-$root/scratch/llm-venv}
fixdex=
out=$root/scratch/smoke-real-llm
port=8089
budget_s=900
formats="chatml-function-calling gemma"
programs="python:gcd java:GCD"
repair_args_extra=
while [ $# -gt 0 ]; do
  case $1 in
    --quixbugs) quixbugs=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --fixdex) fixdex=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --budget-s) budget_s=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --repair-args) repair_args_extra=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$quixbugs" ] && [ -d "$quixbugs/java_programs" ] || {
  echo "error: no QuixBugs root: give --quixbugs DIR or set FIXDEX_SHARED" >&2; exit 2; }
[ -n "$fixdex" ] || fixdex=$("$root/scripts/fixdex-path.sh" dev)
[ -x "$fixdex" ] || { echo "error: $fixdex not found: run \`cargo build --locked\` or give --fixdex" >&2; exit 2; }
quixbugs=$(cd "$quixbugs" && pwd)
mkdir -p "$out"
: >"$out/summary.txt"
py=${FIXDEX_PYTHON:-python3}
cp=${FIXDEX_JUNIT_CP:-/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar}
url=http://127.0.0.1:$port/v1

"$root/scripts/setup-llm-server.sh" --venv "$venv" >&2

extra=()
if "$fixdex" repair --help 2>/dev/null | grep -q -- '--max-reply-tokens'; then
  extra+=(--max-reply-tokens 512)
fi
# shellcheck disable=SC2206 # split on spaces on purpose
if "$fixdex" repair --help 2>/dev/null | grep -q -- '--ignore'; then
  # The fixed programs beside the buggy ones would leak the fix (UniDebugger's RepoFocus).
  extra+=(--ignore correct_java_programs --ignore correct_python_programs)
fi
[ -z "$repair_args_extra" ] || extra+=($repair_args_extra)

server_pid=
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
trap stop_server EXIT

start_server() { # $1 = chat format
  "$root/scripts/setup-llm-server.sh" --venv "$venv" serve --chat-format "$1" --port "$port" \
    >"$out/server-$1.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 180); do
    if curl -sf "$url/models" >/dev/null 2>&1; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 1
  done
  echo "error: the server ($1) did not come up; see $out/server-$1.log" >&2
  return 1
}

# The repair arguments for lang:name, one per line (QuixBugs' own build and test commands).
repair_args() {
  local lang=${1%%:*} name=${1#*:}
  if [ "$lang" = python ]; then
    printf '%s\n' --file "python_programs/$name.py" --method "$name" \
      --build-cmd "$py -m py_compile python_programs/$name.py" \
      --test-cmd "$py -m pytest -q -p no:cacheprovider --timeout=10 python_testcases/test_$name.py"
  else
    printf '%s\n' --file "java_programs/$name.java" --method "$(echo "$name" | tr '[:upper:]' '[:lower:]')" \
      --build-cmd "javac -nowarn -encoding UTF-8 -d .fixdex-classes -cp $cp -sourcepath . java_testcases/junit/${name}_TEST.java" \
      --test-cmd "java -cp .fixdex-classes:$cp org.junit.runner.JUnitCore java_testcases.junit.${name}_TEST"
  fi
}

# One summary line from a report (fields that the report lacks print as n/a).
summarize() { # $1 = report, $2 = exit code, $3 = label
  "$py" - "$1" "$2" "$3" <<'PY'
import json, sys
path, code, label = sys.argv[1:4]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{label}: exit {code}, no report ({e.__class__.__name__})")
    sys.exit(0)
def find(obj, names):
    """The first value under a key in `names`, searched depth-first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in names:
                return v
        for v in obj.values():
            hit = find(v, names)
            if hit is not None:
                return hit
    elif isinstance(obj, list):
        for v in obj:
            hit = find(v, names)
            if hit is not None:
                return hit
    return None
totals = r.get("llm") or {}  # the ledger's sums; the per-call records are in r["calls"]
calls = totals.get("calls", "n/a")
tokens = (totals["prompt_tokens"] + totals["completion_tokens"]) if "prompt_tokens" in totals else "n/a"
protocol = find(r, {"tool_protocol", "protocol"})
records = r.get("calls") if isinstance(r.get("calls"), list) else []
per_call = [c.get("choices", c.get("choices_received")) for c in records if isinstance(c, dict)]
choices = per_call if any(c is not None for c in per_call) else find(r, {"choices_per_request", "choices_received"})
err = (r.get("error") or "").splitlines()[0][:160] if r.get("error") else ""
d = r.get("details") if isinstance(r.get("details"), dict) else {}
trace = ""
if "probe" in d:  # TraceRepair: how far the run got and what the probes gave
    c = d["probe"].get("collected") or {}
    t = c.get("trace") or {}
    trace = (f", strategy {r.get('strategy')}: ended {d.get('ended')}, probes requested {c.get('requested')} "
             f"injected {c.get('injected')} rolled back {c.get('rolled_back')}, trace lines {t.get('lines')}, "
             f"rounds {len(d.get('rounds') or [])}, judge {'yes' if d.get('judge') else 'no'}")
print(f"{label}: exit {code}, outcome {r.get('outcome', 'n/a')}, calls {calls}, tokens {tokens}, "
      f"protocol {protocol if protocol is not None else 'n/a'}, choices {choices if choices is not None else 'n/a'}"
      + trace + (f", error: {err}" if err else ""))
PY
}

status=0
for format in $formats; do
  start_server "$format" || { status=1; continue; }
  for program in $programs; do
    label="$format ${program#*:}"
    report=$out/$format-${program#*:}.json
    rm -f "$report"
    mapfile -t parts < <(repair_args "$program")
    code=0
    timeout $((budget_s + 60)) "$fixdex" repair --project "$quixbugs" "${parts[@]}" \
      --llm-url "$url" --llm-model gemma-3-270m --max-wall-s "$budget_s" --test-timeout-s 60 \
      --report "$report" "${extra[@]}" >"$out/$format-${program#*:}.out" 2>"$out/$format-${program#*:}.log" || code=$?
    line=$(summarize "$report" "$code" "$label" || echo "$label: exit $code, report unreadable")
    echo "$line" | tee -a "$out/summary.txt"
    case $code in 0|4) [ -f "$report" ] || status=1 ;; *) status=1 ;; esac
  done
  stop_server
done
exit $status
