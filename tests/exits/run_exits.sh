#!/usr/bin/env bash
# Runs one scene of tests/exits/gaspi_exits.cpp and checks what a user would see.
# Usage: run_exits.sh CHECK... -- LAUNCHER ARGS...
#   rc=N          the launcher exits with N;  rc=nonzero: with anything but 0 and 124 (timeout)
#   survivors=N   at least N "SURVIVOR <rank> <rc> <ms>" lines, each with GASPI_ERROR (-1) within
#                 FAST_MS (the death is seen within a second; the rest is room for a loaded CI box)
#   gone          "VICTIM_GONE <ms>" within FAST_MS: the victim's exit waited for nobody
#   success=NAME  a "SUCCESS NAME" line
#   max_s=S       the whole run took at most S seconds
set -uo pipefail
checks=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do checks+=("$1"); shift; done
shift
FAST_MS=${FAST_MS:-3000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s%3N)
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
took=$(($(date +%s%3N) - t0))
echo "run_exits: launcher exit $rc after $took ms"
status=0
fail() { echo "run_exits: FAIL: $*"; status=1; }
for c in "${checks[@]}"; do
  case $c in
    rc=nonzero) [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "expected a failing exit code, got $rc" ;;
    rc=*) [ "$rc" = "${c#rc=}" ] || fail "expected exit code ${c#rc=}, got $rc" ;;
    survivors=*)
      lines=$(awk '$1 == "SURVIVOR"' "$out")
      [ "$(grep -c . <<<"$lines")" -ge "${c#survivors=}" ] || fail "fewer than ${c#survivors=} SURVIVOR lines"
      awk -v fast="$FAST_MS" '$3 != -1 || $4 > fast {bad = 1} END {exit bad}' <<<"$lines" ||
        fail "a survivor did not get GASPI_ERROR within $FAST_MS ms" ;;
    gone) awk -v fast="$FAST_MS" '$1 == "VICTIM_GONE" && $2 <= fast {ok = 1} END {exit !ok}' "$out" ||
            fail "the victim's process did not end within $FAST_MS ms" ;;
    success=*) grep -q "^SUCCESS ${c#success=}\$" "$out" || fail "no 'SUCCESS ${c#success=}' line" ;;
    max_s=*) [ "$took" -le $((${c#max_s=} * 1000)) ] || fail "took $took ms, more than ${c#max_s=} s" ;;
    *) echo "run_exits: unknown check $c"; exit 2 ;;
  esac
done
exit $status
