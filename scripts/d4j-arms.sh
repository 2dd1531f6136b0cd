#!/usr/bin/env bash
# Issue 32 item 4: the patterns strategy on the Defects4J development set (Cli + JxPath, 61
# bugs), perfect localization, 200 validations and 10 minutes a bug, in three arms:
#
#   templates   --no-retrieval: the templates in the fitted prior's order
#   ordered     --index --no-transplant: the templates ordered by the similar fixes
#   transplant  --index: the similar fixes' own edits transplanted, then the ordered templates
#
# The bugs are split into SHARDS shards by position (`--shard i/SHARDS`: every SHARDS-th bug,
# so each shard mixes both projects) and the three arms run shard by shard, so a run cut
# short still leaves paired results on the same bugs. Each arm × shard is a resumable run
# folder under scratch/measure/d4j-arms/ARM/shard-I; rerun the script to go on.
#
# The index (space `code`) is of ../shared/data without QuixBugs (another benchmark's
# programs) and CodeXGLUE refinement (abstracted code, `VAR_1`/`METHOD_2`: nothing to
# transplant); `eval defects4j` leaves the bug's own project out of retrieval.
#
# After each shard it prints, over the shards finished so far, each arm's summary and the
# paired comparisons (`fixdex eval compare`: McNemar's exact test on the bugs fixed, sign test
# on validations), and writes them to scratch/measure/d4j-arms/compare-*.md. Targets (issue
# 32): plausible on >= 30 % of the bugs, exact or AST match on >= 18 %, and an arm with
# retrieval fixing more bugs or needing fewer validations than `templates`, p < 0.05.
#
#   scripts/d4j-arms.sh [SHARDS [FIRST [LAST]]]   (default 6 shards, all of them; -j 2;
#                                                  FIXDEX_BIN=PATH runs that binary;
#                                                  ARMS="templates ordered" runs those arms only;
#                                                  OUT=DIR writes there, not scratch/measure/d4j-arms)
#
# About 25 minutes a shard of 10 bugs (all three arms) on 2 cores: 2 h 28 min for the 61 bugs at
# fe676a2 (8 plausible in every arm, 0 exact; see issue 32's notes). The transplant arm alone
# at a978540: 92 min (AMD EPYC, 2 vCPU), 13 plausible, 5 correct, as the templates arm.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${FIXDEX_SHARED:-../shared}
[ -d "$shared/benchmarks/defects4j/projects" ] || { echo "error: $shared/benchmarks/defects4j not found (set FIXDEX_SHARED)" >&2; exit 2; }
export "$(scripts/setup-test-tools.sh | tail -n 1)"
shards=${1:-6}
first=${2:-0}
last=${3:-$((shards - 1))}
# shellcheck disable=SC2206
arms=(${ARMS:-templates ordered transplant})
for arm in "${arms[@]}"; do
  case $arm in templates | ordered | transplant) ;; *) echo "error: ARMS: unknown arm '$arm' (templates, ordered, transplant)" >&2; exit 2 ;; esac
done
out=${OUT:-scratch/measure/d4j-arms}
index=scratch/measure/index/d4j-arms-code.fdx
# FIXDEX_BIN: a frozen binary, so that a rebuild while the arms run does not change them.
if [ -n "${FIXDEX_BIN:-}" ]; then
  bin=$FIXDEX_BIN
else
  cargo build --locked --quiet >&2
  bin=$(scripts/fixdex-path.sh dev)
fi
mkdir -p "$out" "$(dirname "$index")"
# Only the retrieval arms read the index.
if [ ! -f "$index" ] && [[ " ${arms[*]} " =~ " ordered " || " ${arms[*]} " =~ " transplant " ]]; then
  corpus=()
  for f in "$shared"/data/*.jsonl; do
    case $(basename "$f") in quixbugs.jsonl | codexglue_refinement.jsonl) ;; *) corpus+=("$f") ;; esac
  done
  "$bin" index "${corpus[@]}" -o "$index" --spaces code --on-error skip --precision auto --json >"$out/index.json"
fi

d4j=(--d4j-meta "$shared/benchmarks/defects4j/projects" --repo "Cli=$shared/repos/commons-cli.bundle"
  --repo "JxPath=$shared/repos/commons-jxpath.bundle" --work-dir scratch/measure/d4j-work)
arm_args() {
  case $1 in
    templates) echo --no-retrieval ;;
    ordered) echo --index "$index" --no-transplant ;;
    transplant) echo --index "$index" ;;
  esac
}

for ((s = first; s <= last; s++)); do
  for arm in "${arms[@]}"; do
    run=$out/$arm/shard-$s
    mkdir -p "$out/$arm"
    resume=()
    [ -f "$run/run.json" ] && resume=(--resume)
    echo "== shard $s/$shards, arm $arm" >&2
    # shellcheck disable=SC2046
    "$bin" eval defects4j --strategy patterns --localization perfect --max-validations 200 "${d4j[@]}" -j 2 \
      --shard "$s/$shards" --run-dir "$run" "${resume[@]}" $(arm_args "$arm") --json >"$run.json" || true
  done
done

# The finished shards of each arm as one run folder (what `eval merge` makes of a whole
# run), so `eval report` and `eval compare` see every bug run so far.
python3 - "$out" "${arms[@]}" <<'PY'
import json, os, sys
out, arms = sys.argv[1], sys.argv[2:]
def finished(run):
    try:
        rec = json.load(open(os.path.join(run, "run.json")))
    except (OSError, ValueError):
        return None, []
    done = [b for b in rec["bugs"] if os.path.exists(os.path.join(run, "bugs", b, "result.json"))]
    return rec, done
common = None
per_arm = {}
for arm in arms:
    shards = sorted(d for d in os.listdir(os.path.join(out, arm)) if d.startswith("shard-") and os.path.isdir(os.path.join(out, arm, d)))
    bugs, rec = {}, None
    for d in shards:
        r, done = finished(os.path.join(out, arm, d))
        rec = rec or r
        for b in done:
            bugs[b] = os.path.abspath(os.path.join(out, arm, d, "bugs", b))
    per_arm[arm] = (rec, bugs)
    common = set(bugs) if common is None else common & set(bugs)
for arm, (rec, bugs) in per_arm.items():
    if rec is None:
        continue
    merged = os.path.join(out, arm, "merged")
    os.makedirs(os.path.join(merged, "bugs"), exist_ok=True)
    for b in os.listdir(os.path.join(merged, "bugs")):
        os.unlink(os.path.join(merged, "bugs", b))
    order = sorted(common, key=lambda b: (b.split("-")[0], int(b.split("-")[1])))
    for b in order:
        os.symlink(bugs[b], os.path.join(merged, "bugs", b))
    rec = dict(rec, bugs=order, shard=None)
    json.dump(rec, open(os.path.join(merged, "run.json"), "w"), indent=2)
print(f"{len(common or [])} bugs finished in every arm", file=sys.stderr)
PY

for arm in "${arms[@]}"; do
  echo "== $arm" >&2
  "$bin" eval report "$out/$arm/merged" --json >"$out/$arm.summary.json" || true
  "$bin" eval report "$out/$arm/merged" >&2 || true
done
for ((i = 0; i < ${#arms[@]}; i++)); do
  for ((j = i + 1; j < ${#arms[@]}; j++)); do
    a=${arms[i]} b=${arms[j]}
    "$bin" eval compare "$out/$a/merged" "$out/$b/merged" | tee "$out/compare-$a-$b.md"
  done
done
