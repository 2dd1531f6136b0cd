# Phase timing for .ci/run and scripts/test.sh (sourced, never run).
#
#   phase_init            start a phase log, unless FIXDEX_PHASE_LOG already names one (then
#                         the caller's table gets our phases: test.sh's phases land in CI's table)
#   phase NAME CMD ARG..  run CMD; append "NAME<TAB>seconds<TAB>ok|FAILED (exit N)" to the log;
#                         return CMD's exit status (so `set -e` stops the script at a failure)
#   phase_table           print the log as a table with the total; called from an EXIT trap, so
#                         a failed phase still shows the table up to and including itself
#
# CMD must be a program or script, not a shell function: under `phase ... || ...` bash turns
# `set -e` off inside functions, and a failing step inside one would go unnoticed.

phase_init() {
  if [ -n "${FIXDEX_PHASE_LOG:-}" ]; then
    PHASE_OWNER=0
  else
    FIXDEX_PHASE_LOG=$(mktemp "${TMPDIR:-/tmp}/fixdex-phases.XXXXXX")
    export FIXDEX_PHASE_LOG
    PHASE_OWNER=1
  fi
  PHASE_T0=$(date +%s)
}

phase() {
  local name=$1 t0 rc=0 status=ok
  shift
  t0=$(date +%s)
  echo "=== phase: $name ($(date -u +%H:%M:%SZ)) ===" >&2
  "$@" || rc=$?
  [ "$rc" -eq 0 ] || status="FAILED (exit $rc)"
  printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - t0))" "$status" >>"$FIXDEX_PHASE_LOG"
  return "$rc"
}

# Prints the table (only in the script that started the log) and removes the log.
phase_table() {
  local rc=$?
  [ "${PHASE_OWNER:-0}" -eq 1 ] || return "$rc"
  [ -f "$FIXDEX_PHASE_LOG" ] || return "$rc"
  {
    echo
    echo "phase                           wall (s)   wall (m:s)  status"
    echo "------------------------------  --------  ----------  ------"
    awk -F'\t' '{ printf "%-30s  %8d  %7d:%02d  %s\n", $1, $2, int($2 / 60), $2 % 60, $3 }' "$FIXDEX_PHASE_LOG"
    local total=$(($(date +%s) - PHASE_T0))
    printf '%-30s  %8d  %7d:%02d  %s\n' "total" "$total" $((total / 60)) $((total % 60)) \
      "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")"
  } >&2
  rm -f "$FIXDEX_PHASE_LOG"
  return "$rc"
}
