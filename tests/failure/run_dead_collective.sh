#!/usr/bin/env bash
# One rank of mr_dead_collective is killed (SIGKILL) while the others wait in a collective with
# GASPI_BLOCK (tests/mr/mr_dead_collective.cpp). Passes only if every survivor returned GASPI_ERROR
# within LIMIT_MS of the death (default 1000) plus the time the machine did not run it (its
# stall_ms, measured by a watchdog thread), ended with gaspi_proc_term, and the launcher exited
# 137 (128 + SIGKILL). Prints the worst time from the death to a survivor's return.
# Usage: run_dead_collective.sh HYGASPI_RUN PROGRAM MODE NRANKS [VICTIM] [LIMIT_MS]
set -uo pipefail
run=$1 prog=$2 mode=$3 n=$4
victim=${5:-$((n - 1))}
limit=${6:-1000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$run" --keep-going --timeout 60 -n "$n" -- "$prog" "$mode" "$victim" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
status=0
if [ "$rc" != 137 ]; then
  echo "run_dead_collective: expected launcher exit code 137, got $rc"
  status=1
fi
death=$(sed -n 's/^DEATH t_ns=\([0-9]*\)$/\1/p' "$out")
if [ -z "$death" ]; then
  echo "run_dead_collective: the victim printed no DEATH line"
  exit 1
fi
# rc=-1 is GASPI_ERROR.
summary=$(awk -v death="$death" -v limit="$limit" '
  /^RETURN rank / {
    split($5, t, "="); ms = (t[2] - death) / 1e6
    split($6, s, "="); stall = s[2] + 0
    ++returned
    if ($4 != "rc=-1") { ++wrong; print "run_dead_collective: wrong return code: " $0 > "/dev/stderr" }
    if (ms > limit + stall) { ++late; print "run_dead_collective: late: " $0 > "/dev/stderr" }
    if (ms > worst) { worst = ms; worst_stall = stall }
  }
  END { printf "%d %d %d %.1f %.1f\n", returned, wrong, late, worst, worst_stall }' "$out")
read -r returned wrong late worst worst_stall <<<"$summary"
echo "run_dead_collective: mode $mode, $n ranks, victim $victim: $returned of $((n - 1)) survivors returned," \
  "worst $worst ms after the death (that rank's machine stall $worst_stall ms; limit $limit ms + stall)," \
  "launcher exit $rc"
if [ "$returned" != $((n - 1)) ] || [ "$wrong" != 0 ]; then
  echo "run_dead_collective: not every survivor returned GASPI_ERROR"
  status=1
fi
if [ "$late" != 0 ]; then
  echo "run_dead_collective: a survivor returned later than $limit ms + its stall after the death"
  status=1
fi
if [ "$(grep -c 'gaspi_proc_term -> GASPI_SUCCESS' "$out")" != $((n - 1)) ]; then
  echo "run_dead_collective: not every survivor returned from gaspi_proc_term"
  status=1
fi
exit $status
