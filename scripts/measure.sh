#!/usr/bin/env bash
# Whole-benchmark measurements: each prints its figure and checks its threshold (exit 1 below
# it). CI runs a seeded sample of each (the `shared_*` suites, `FIXDEX_SAMPLE` programs per
# language, default 4); these run the whole set, which takes too long for every CI run.
#
#   scripts/measure.sh quixbugs-check   `fixdex eval quixbugs --check` on all 40 Java and 40
#                                       Python programs: every buggy version fails its tests,
#                                       every developer fix is plausible, none flaky (40/40/40)
#                                       (~4 min on 2 cores)
#   scripts/measure.sh probes           TraceRepair's auto probes on every program: >= 75 of 80
#                                       programs get probes, every one at least one, and >= 95 %
#                                       of the instrumented copies compile (~1.5 min)
#   scripts/measure.sh newer-templates  the patterns strategy fixes SIEVE, TO_BASE, flatten and
#                                       sieve with the developer's edit (~5 min)
#   scripts/measure.sh patterns         the patterns strategy on all 80 programs: every program it
#                                       fixed before (23 Java, 23 Python, listed in the check)
#                                       stays plausible, no error (README "Repairing a bug") (~1-2 h)
#   scripts/measure.sh embeddings       all 2,000 reference snippets embed with cosine >= 0.999 to
#                                       sentence-transformers (CI: every fourth) (~1 min)
#   scripts/measure.sh mine             `fixdex mine` recall on Defects4J Cli (>= 80 % of 39 bugs)
#                                       and BugsInPy tqdm (>= 80 % of 9); cheap, so CI runs it whole
#   scripts/measure.sh defects4j-check  `fixdex eval defects4j --check` on all 61 Cli + JxPath bugs
#                                       (../shared/repos bundles): all 61 pass the gold check
#                                       (~6 min on 2 cores, -j 2; cached in scratch/measure/d4j-work)
#   scripts/measure.sh defects4j-patterns  the patterns strategy (perfect localization, 50
#                                       validations) on all 61 bugs, without and with an index of
#                                       ../shared/data (built once into scratch/measure/index):
#                                       >= 5 plausible without the index (measured 6); the compare of the two
#                                       runs and report.html of each (~1.5 h plus the index build)
#   scripts/measure.sh defects4j-fixrank  each of the 12 Defects4J Cli + JxPath bugs whose developer
#                                       fix the templates made (--no-retrieval, perfect localization)
#                                       still has it within 200 candidates; no test run (CI: 4 of
#                                       them) (~5 min, setting the bugs up from git)
#   scripts/measure.sh defects4j-validation  seconds per candidate validation on Defects4J Cli
#                                       (patterns, perfect localization, 15 validations a bug,
#                                       -j 1): median over every validation <= 3 s, with its 95 %
#                                       interval; needs a quiet machine (measured 1.29 s on an
#                                       Intel Xeon, AVX-512, 2 vCPUs) (~11 min)
#   scripts/measure.sh all              all of the above, in that order
#
# The three-arm Defects4J measurement of issue 32 (templates / retrieval order / transplants,
# 200 validations a bug, McNemar and sign tests) is scripts/d4j-arms.sh: resumable shards,
# about 50 minutes a shard of 10 bugs on 2 cores.
#
# Needs ../shared (or FIXDEX_SHARED), the test tools (scripts/setup-test-tools.sh, run here)
# and builds what it runs with cargo (the dev profile, as the tests). Outputs go to
# scratch/measure/<name>/ (JSON summaries and per-program reports).
set -euo pipefail
cd "$(dirname "$0")/.."
export FIXDEX_SHARED=${FIXDEX_SHARED:-../shared}
shared=$FIXDEX_SHARED
[ -d "$shared/benchmarks/quixbugs" ] || { echo "error: $shared/benchmarks/quixbugs not found (set FIXDEX_SHARED)" >&2; exit 2; }
export "$(scripts/setup-test-tools.sh | tail -n 1)"
out=scratch/measure
quixbugs=$shared/benchmarks/quixbugs
truth=$shared/data/quixbugs.jsonl

fixdex_bin() {
  cargo build --locked --quiet >&2
  scripts/fixdex-path.sh dev
}

# The shared test named $1 on the whole benchmark, its output shown.
whole_test() {
  FIXDEX_SAMPLE=all cargo nextest run --workspace --locked --lib --bins --tests --profile ci --no-capture \
    -E "test(/(^|::)$1$/)"
}

measure_quixbugs_check() {
  local bin; bin=$(fixdex_bin)
  mkdir -p "$out/quixbugs-check"
  for lang in java python; do
    local json=$out/quixbugs-check/$lang.json
    "$bin" eval quixbugs --check --root "$quixbugs" --ground-truth "$truth" --lang "$lang" --json >"$json" || true
    python3 - "$json" "$lang" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
figure = (s["total"], s["buggy_failed"], s["fixed_plausible"])
print(f"QuixBugs {sys.argv[2]}: {figure[0]} programs, {figure[1]} buggy fail, {figure[2]} fixes plausible, "
      f"flaky {s['flaky']}; threshold 40/40/40, none flaky")
if figure != (40, 40, 40) or s["flaky"]:
    print(f"FAIL: {s['failed_checks']}")
    sys.exit(1)
PY
  done
}

measure_patterns() {
  local bin; bin=$(fixdex_bin)
  for lang in java python; do
    local dir=$out/patterns/$lang
    mkdir -p "$dir"
    "$bin" eval quixbugs --root "$quixbugs" --ground-truth "$truth" --lang "$lang" --strategy patterns \
      --report-dir "$dir/reports" --json >"$dir/summary.json" || true
    python3 - "$dir/summary.json" "$lang" <<'PY'
import json, sys
# The programs the patterns strategy makes plausible today (Java since 39337e8, Python at
# 095fea5): a change must keep every one (issue 32: "QuixBugs must not lose a program it
# fixes today"), not only the count.
FIXED = {
    "java": "BITCOUNT BUCKETSORT DEPTH_FIRST_SEARCH DETECT_CYCLE FIND_FIRST_IN_SORTED FIND_IN_SORTED FLATTEN GCD "
            "GET_FACTORS HANOI KNAPSACK LEVENSHTEIN MERGESORT NEXT_PALINDROME NEXT_PERMUTATION PASCAL "
            "POSSIBLE_CHANGE QUICKSORT RPN_EVAL SHORTEST_PATH_LENGTHS SIEVE TOPOLOGICAL_ORDERING TO_BASE",
    "python": "bitcount bucketsort depth_first_search detect_cycle find_first_in_sorted find_in_sorted flatten gcd "
              "get_factors hanoi knapsack lcs_length levenshtein minimum_spanning_tree next_palindrome "
              "next_permutation pascal possible_change quicksort rpn_eval shortest_path_lengths sieve to_base",
}
lang = sys.argv[2]
s = json.load(open(sys.argv[1]))
fixed = {p["program"] for p in s["programs"] if p.get("outcome") == "plausible"}
need = FIXED[lang].split()
lost = sorted(set(need) - fixed)
gained = sorted(fixed - set(need))
print(f"patterns on QuixBugs {lang}: {s['plausible']} of {s['total']} plausible, {s['errors']} errors; "
      f"threshold: the {len(need)} programs fixed before, no error; lost {lost or 'none'}, gained {gained or 'none'}")
if lost or s["errors"]:
    sys.exit(1)
PY
  done
}

d4j_args() {
  echo --d4j-meta "$shared/benchmarks/defects4j/projects" --repo "Cli=$shared/repos/commons-cli.bundle" \
    --repo "JxPath=$shared/repos/commons-jxpath.bundle" --work-dir "$out/d4j-work"
}

measure_defects4j_check() {
  local bin; bin=$(fixdex_bin)
  mkdir -p "$out/defects4j-check"
  local json=$out/defects4j-check/check.json
  # shellcheck disable=SC2046
  "$bin" eval defects4j --check $(d4j_args) -j 2 --json >"$json" || true
  python3 - "$json" <<'PY'
import json, statistics, sys
s = json.load(open(sys.argv[1]))
secs = [b["seconds"] for b in s["bugs"]]
print(f"Defects4J gold check: {s['passed']} of {s['total']} pass, median {statistics.median(secs):.1f} s per bug "
      f"(uncached); threshold 61/61")
if s["total"] != 61 or s["passed"] != 61:
    print(f"FAIL: {s['infra']}")
    sys.exit(1)
PY
}

measure_defects4j_patterns() {
  local bin; bin=$(fixdex_bin)
  local dir=$out/defects4j-patterns index=$out/index/shared.fdx
  mkdir -p "$dir" "$(dirname "$index")"
  [ -f "$index" ] || "$bin" index "$shared"/data/*.jsonl -o "$index" --spaces code --on-error skip --json >"$dir/index.json"
  for variant in no-index index; do
    local extra=()
    [ "$variant" = index ] && extra=(--index "$index")
    local run=$dir/$variant resume=()
    [ -f "$run/run.json" ] && resume=(--resume)
    # shellcheck disable=SC2046
    "$bin" eval defects4j --strategy patterns --localization perfect --max-validations 50 $(d4j_args) -j 2 \
      --run-dir "$run" "${resume[@]}" "${extra[@]}" --json >"$dir/$variant.json" || true
    "$bin" eval report "$run" >&2
  done
  "$bin" eval compare "$dir/no-index" "$dir/index" | tee "$dir/compare.md"
  python3 - "$dir/no-index.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(f"patterns on Defects4J Cli + JxPath: {s['plausible']} plausible, {s['correct']} correct of {s['total']}, "
      f"{s['infra']} infra, {s['errors']} errors; threshold >= 5 plausible, no infra")
if s["plausible"] < 5 or s["infra"]:
    sys.exit(1)
PY
}

measure_defects4j_validation() {
  local bin; bin=$(fixdex_bin)
  local dir=$out/defects4j-validation
  mkdir -p "$dir"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (a timing counts only on a quiet machine); CPU: $(lscpu | sed -n 's/^Model name: *//p')" >&2
  local resume=()
  [ -f "$dir/run/run.json" ] && resume=(--resume)
  # shellcheck disable=SC2046
  "$bin" eval defects4j --strategy patterns --localization perfect --max-validations 15 --bugs Cli \
    $(d4j_args) -j 1 --run-dir "$dir/run" "${resume[@]}" --json >"$dir/run.json" || true
  python3 - "$dir/run" <<'PY'
import glob, json, math, sys
times = sorted(c["wall_ms"] / 1000 for f in glob.glob(sys.argv[1] + "/bugs/*/report.json")
               for c in json.load(open(f)).get("candidates", [])
               if c.get("wall_ms") is not None and c.get("verdict") not in (None, "not_applied", "apply_failed"))
n = len(times)
if n == 0:
    print("FAIL: no validation ran")
    sys.exit(1)
median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
# distribution-free 95 % interval of the median: binomial order statistics
lo, hi = max(math.floor(n / 2 - 0.98 * math.sqrt(n)), 0), min(math.ceil(n / 2 + 1 + 0.98 * math.sqrt(n)), n - 1)
print(f"Defects4J Cli validation: {n} validations, median {median:.2f} s [95% CI {times[lo]:.2f}, {times[hi]:.2f}], "
      f"p90 {times[int(0.9 * n)]:.2f} s; threshold median <= 3 s")
if median > 3.0:
    sys.exit(1)
PY
}

measure() {
  echo "=== measure: $1 ===" >&2
  case "$1" in
    quixbugs-check) measure_quixbugs_check ;;
    probes) whole_test shared_tracerepair_auto_probes_compile_on_quixbugs ;;
    newer-templates) whole_test shared_patterns_repairs_quixbugs_with_the_newer_templates ;;
    patterns) measure_patterns ;;
    embeddings) whole_test shared_embeddings_match_sentence_transformers_reference ;;
    mine) whole_test shared_mine_defects4j_cli_rate && whole_test shared_mine_bugsinpy_tqdm_rate ;;
    defects4j-check) measure_defects4j_check ;;
    defects4j-patterns) measure_defects4j_patterns ;;
    defects4j-fixrank) whole_test shared_defects4j_template_fixes_stay_within_budget ;;
    defects4j-validation) measure_defects4j_validation ;;
    *) echo "error: unknown measurement '$1' (quixbugs-check, probes, newer-templates, embeddings, patterns, mine, defects4j-check, defects4j-patterns, defects4j-fixrank, defects4j-validation, all)" >&2; exit 2 ;;
  esac
}

[ $# -ge 1 ] || { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2; }
for name in "$@"; do
  if [ "$name" = all ]; then
    for m in quixbugs-check probes newer-templates embeddings patterns mine defects4j-check defects4j-patterns defects4j-fixrank defects4j-validation; do measure "$m"; done
  else
    measure "$name"
  fi
done
