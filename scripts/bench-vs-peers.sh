#!/usr/bin/env bash
# fixdex side by side with its peers, on identical inputs, in one run.
#
# ANN: fixdex vs hnswlib, FAISS IndexHNSWFlat and usearch (M=16, ef_construction=200, inner
#   product, 2 build threads; k=10, ef_search 16..256 at 1 and 2 threads, QPS = 1000 / wall
#   time of one batched call over all queries) on the real 20k x 384 set in
#   $SHARED/baselines/ann/; build throughput; load/open time. Full run only: a seeded
#   synthetic 1M x 384 set (numpy default_rng(1234)) for build, open time and RSS at scale,
#   built with a smaller ef_construction (printed) so that the run fits in 45 minutes.
#   Cold and warm starts on it (fixdex and hnswlib): a fresh process opens/loads the saved index and
#   runs one batched search at ef 16 then 64 (2 threads), first right after emptying the page cache
#   (root only; otherwise warm only), then again; keys qps_1m_ef{16,64}_{cold,warm}[_hnswlib] and
#   start_s_1m_{cold,warm}[_hnswlib] (open/load + the first search, seconds).
# Embedding: fixdex `bench embed` (f32, and `--backend bf16` when the CPU has avx512_bf16) vs
#   onnxruntime fp32 (own ONNX export, batches of 32 sorted by token count, 2 threads) and
#   sentence-transformers on $SHARED/baselines/reference/. fixdex's headline is the FASTER of its
#   backends whose cosine to the reference stays >= 0.999 on every row in the same run.
# Appends: `fixdex index --append` of 1,000 real records ($SHARED/data: manysstubs4j, then
#   codexglue_refinement) to a 20,000-record
#   index vs a rebuild of all 21,000 (quick: 100 to 2,000), process wall incl. model load, best of
#   2 rounds; keys append_s_1k_to_20k, rebuild_s_21k (full sizes only), append_s, rebuild_s,
#   append_over_rebuild (should be close to the records' ratio, 1/21).
# Products and peers run interleaved (A B A B ...), best of the rounds is reported, with CPU
# utilisation (CPU-seconds / wall) per figure. Prints a table of absolute figures and
# fixdex/peer ratios, then ONE JSON object as the very last line. Raw JSON lines:
# scratch/bench-vs-peers/results.jsonl; each carries `host` (below), `load1_start`/`load1` (the
# 1-minute load average at the call's start/end) and `others_cpu` (CPUs' worth of work other
# processes did during the call, /proc/stat); fixdex's and the peers' lines carry `cpu_util`
# and `threads` per measurement.
# Last-line keys (existing keys are stable; null where not measured):
#   qps_ratio_<peer>_<t>t, build_ratio_<peer>, open_ms_real, load_ms_*, *_1m, recall10, ef_chosen,
#     total_s, mode: as before (ratios fixdex/peer).
#   embed_snippets_per_s, embed_ratio_ort, embed_ratio_st, embed_cos_min: the headline backend's;
#     embed_headline_backend (= embed_backend): "f32" | "bf16"; embed_snippets_per_s_<b>,
#     embed_cos_min_<b>, embed_ratio_ort_<b>, embed_ratio_st_<b> for b in f32, bf16: each backend.
#   host: {cpu_model, vendor, logical_cpus, usable_cpus, arch, os, features: {avx2, fma, avx512f,
#     avx512_bf16, amx_bf16}} -- never compare figures across different hosts.
#   loadavg_start, loadavg_end: [1, 5, 15-minute load averages] at the start and end of the run.
#   util: {key: {program: CPU utilisation of the measurement behind that figure}}.
#   contended: the keys whose figure is contended; contention: {key: ["program: why", ...]}.
#     A measurement is contended when its utilisation < 0.8 x the threads it asked for (not for
#     opens), or when other processes used > (usable CPUs - threads + 0.5) CPUs during its call
#     (the load average at its start where /proc/stat is missing: the 1-minute average is not
#     used first because this benchmark's own previous calls keep it near 2 on 2 cores). The
#     tables mark contended figures with `*` ("measured under contention: not a result").
#   inconsistent: sentences, e.g. "hnswlib: headline QPS at 2 threads (...) < at 1 thread (...)".
#   results_valid: false when a last-line figure is contended or anything is inconsistent: do
#     not quote such a run.
#
# Usage: scripts/bench-vs-peers.sh [--quick] [--setup-only] [-- RUN_OPTIONS...]
#   --quick       real 20k set only, 200 snippets, no 1M set, 2 ANN rounds instead of 3 (~3 min
#                 once the venv exists, plus any cargo build); the 1M keys of the last line are null.
#   --setup-only  create/check the venv, the model, the fixdex binary and the ONNX export; stop.
#   -- ...        passed to scripts/peers/run.py (see its --help), e.g.
#                 `-- --synth-ef-construction 40 --synth-libs fixdex,hnswlib` or `-- --rounds 5`.
# Full-run choices for the 1M set (printed when it runs): M=16, ef_construction=16, one build
#   each of fixdex, hnswlib and usearch (not faiss, the slowest builder), ef_search 16/64/256 at
#   2 threads. Why 16, not 200: measured at 50k on this VM with another job on one core, then
#   extrapolated, the three 1M builds take ~11 min at 16 but ~30 min at 40 (usearch ~15, fixdex
#   ~11, hnswlib ~6), and far more at 200. Open time and RSS hardly depend on it.
# Rounds: ANN 3 (quick 2), embedding 2 (2,000 snippets; ST alone is ~1-2 min a pass).
# Timings on the shared 2-core VM: venv creation ~3 min; --quick ~3 min; full estimated
# ~25 min on a quiet machine, ~40 min when other jobs take one core (not counting cargo build).
# Disk: ~6 GB for the venv, ~7 GB for the 1M set and its three indexes under scratch/.
# Environment:
#   FIXDEX_SHARED  shared data folder (default: ../shared relative to the repo root)
#   FIXDEX_BIN     fixdex binary to use; when unset, `cargo build --release --locked` is run
#                  and the binary is taken from where cargo put it (scripts/fixdex-path.sh)
#   PYTHON         interpreter for the venv (default python3, >= 3.10)
# Needs: g++ (hnswlib builds from its sdist), network access to PyPI the first time (~6 GB:
# PyPI's torch is the CUDA build; it runs on the CPU). The venv scratch/peers-venv is reused
# when its packages import.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=0
setup_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --setup-only) setup_only=1 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

shared=${FIXDEX_SHARED:-$root/../shared}
[ -d "$shared/baselines" ] || { echo "error: $shared/baselines not found (set FIXDEX_SHARED)" >&2; exit 1; }
shared=$(cd "$shared" && pwd)
venv=$root/scratch/peers-venv
work=$root/scratch/bench-vs-peers
model=$root/data/models/all-MiniLM-L6-v2
onnx=$root/scratch/peers-onnx/model.onnx
mkdir -p "$work"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TOKENIZERS_PARALLELISM=true
# The model is read from $model only: no model hub access at run time.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 TRANSFORMERS_VERBOSITY=error

# Versions = the anchors' (shared/baselines/RESULTS.md, "Versions").
pins=(torch==2.15.0 sentence-transformers==6.2.0 transformers==5.24.0 tokenizers==0.23.3
      onnxruntime==1.32.0 onnx==1.23.2 onnxscript==0.7.2 faiss-cpu==1.15.1 usearch==2.26.6)
imports="import numpy, hnswlib, faiss, usearch, onnxruntime, onnx, onnxscript, torch, transformers, tokenizers, sentence_transformers"

setup_venv() {
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$imports" 2>/dev/null; then
    echo "venv: reusing $venv"
    return
  fi
  echo "venv: creating $venv (torch is ~5 GB with its CUDA wheels; several minutes)"
  "${PYTHON:-python3}" -m venv "$venv"
  local pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
  "${pip[@]}" numpy==2.4.6 pybind11==3.1.0 setuptools wheel
  # hnswlib has no cp311 wheel: build the sdist against the numpy/pybind11 just installed.
  "${pip[@]}" --no-build-isolation hnswlib==0.8.0
  "${pip[@]}" "${pins[@]}"
  "$venv/bin/python" -c "$imports"
}

setup_venv
[ -f "$model/model.safetensors" ] || scripts/fetch-model.sh "$model"

if [ -n "${FIXDEX_BIN:-}" ]; then
  fixdex=$FIXDEX_BIN
else
  cargo build --release --locked
  fixdex=$(scripts/fixdex-path.sh release)
fi
"$fixdex" bench --help >/dev/null || { echo "error: $fixdex has no 'bench' command (stale build?)" >&2; exit 1; }

py=$venv/bin/python
if [ ! -s "$onnx" ]; then
  "$py" scripts/peers/export_onnx.py --model-dir "$model" --out "$onnx"
fi
[ "$setup_only" = 1 ] && { echo "setup done"; exit 0; }

mode=()
[ "$quick" = 1 ] && mode=(--quick)
exec "$py" scripts/peers/run.py "${mode[@]}" --fixdex "$fixdex" --shared "$shared" \
  --model-dir "$model" --onnx "$onnx" --work "$work" "$@"
