#!/usr/bin/env bash
# Installs what the repair tests run for real (scripts/test.sh calls this; so does .ci/run):
#   - a JDK and JUnit 4 + Hamcrest from Debian (packages default-jdk-headless, junit4,
#     libhamcrest-java) and JaCoCo for fault localization (libjacoco-java, which brings
#     libasm-java), when missing: with apt-get as root, or through sudo;
#   - the Debian packages of every Defects4J project's jars, from the table fixdex ships
#     (repair/src/bench/defects4j/deps.json: `fixdex eval defects4j` compiles against them);
#   - a headless Chromium (chromium-headless-shell) that renders `fixdex eval report`'s HTML page
#     in a test;
#   - a Python venv with pytest, pytest-timeout and coverage.py from PyPI in scratch/pytest-venv.
# Prints `FIXDEX_PYTHON=<venv python>` as its last line; scripts/test.sh exports it.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -f /usr/share/java/junit4.jar ] || need+=(junit4)
[ -f /usr/share/java/hamcrest-core.jar ] || need+=(libhamcrest-java)
[ -f /usr/share/java/org.jacoco.core.jar ] || [ -n "${FIXDEX_JACOCO_DIR:-}" ] || need+=(libjacoco-java)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
# Defects4J: the packages of every project's jars, not only the projects the tests use.
for pkg in $("${PYTHON:-python3}" -c 'import json, sys
print(" ".join(sorted({p for r in json.load(open(sys.argv[1]))["projects"].values() for p in r["debian_packages"]})))' \
    repair/src/bench/defects4j/deps.json); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ] && [ -z "${FIXDEX_JUNIT_CP:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "error: missing Debian packages ${need[*]}: install them (apt-get install ${need[*]}) or set FIXDEX_JUNIT_CP" >&2
    exit 1
  fi
  echo "installing ${need[*]} (apt-get)" >&2
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

venv=scratch/pytest-venv
if ! "$venv/bin/python" -c "import pytest, pytest_timeout, coverage" >/dev/null 2>&1; then
  echo "creating $venv (pytest, pytest-timeout, coverage)" >&2
  rm -rf "$venv"
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check pytest==8.4.2 pytest-timeout==2.4.0 coverage==7.17.5 >&2
fi
echo "FIXDEX_PYTHON=$PWD/$venv/bin/python"
