#!/usr/bin/env bash
# One rank of mr_dead_peer dies; the survivors must handle it (tests/mr/mr_dead_peer.cpp). Passes
# only if the launcher exits with the code that the death implies, the lowest survivor printed
# "SUCCESS mr_dead_peer", and the job ended in bounded time.
# Usage: run_dead_peer.sh HYGASPI_RUN PROGRAM MODE NRANKS EXPECTED_RC [VICTIM] [LAUNCHER OPTIONS...]
#   MODE sigkill: the victim raise(SIGKILL)s itself -> 137 (128 + SIGKILL); needs --keep-going, or
#                 the launcher would SIGTERM the survivors
#   MODE exit0:   the victim _exit(0)s without gaspi_proc_term -> 1: the launcher marks it dead and
#                 lets the survivors run on (no --keep-going needed), but the job failed
#   MODE kill:    gaspi_proc_kill by the lowest survivor -> 0: an intended death is no failure, and
#                 the job goes on without --keep-going (as with GPI-2)
set -uo pipefail
run=$1 prog=$2 mode=$3 n=$4 expect=$5
victim=${6:-$((n - 1))}
shift 5; [ $# -gt 0 ] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s%3N)
"$run" "$@" --timeout 60 -n "$n" -- "$prog" "$mode" "$victim" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
t1=$(date +%s%3N)
echo "run_dead_peer: mode $mode, $n ranks, victim $victim: launcher exit $rc after $((t1 - t0)) ms"
status=0
if [ "$rc" != "$expect" ]; then
  echo "run_dead_peer: expected launcher exit code $expect, got $rc"
  status=1
fi
if ! grep -q "^SUCCESS mr_dead_peer\$" "$out"; then
  echo "run_dead_peer: no 'SUCCESS mr_dead_peer' line"
  status=1
fi
if [ "$(grep -c 'gaspi_proc_term -> GASPI_SUCCESS' "$out")" != $((n - 1)) ]; then
  echo "run_dead_peer: not every survivor returned from gaspi_proc_term"
  status=1
fi
exit $status
