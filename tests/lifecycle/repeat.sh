#!/usr/bin/env bash
# Runs one multi-rank test program COUNT times in a row and passes only if every run passed
# (launcher exit 0 and "SUCCESS NAME"): short programs repeated turn timing windows into failures
# (the way the start-up and shutdown fixes were tested). Pin the whole job to one CPU with `taskset -c 0` in front of the
# launcher for the contention pass. Prints the number of passed runs and the time per run.
# Usage: repeat.sh NAME COUNT LAUNCHER [ARGS...]   (REPEAT_COUNT, when set, replaces COUNT: the
# sanitizer passes look for memory errors, which do not need 50 runs)
set -uo pipefail
name=$1 count=${REPEAT_COUNT:-$2}
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0
t0=$(date +%s%3N)
for ((i = 1; i <= count; i++)); do
  if "$@" >"$out" 2>&1 && grep -q "^SUCCESS $name\$" "$out"; then
    passed=$((passed + 1))
  else
    echo "repeat: $name: run $i failed:"
    tail -20 "$out"
  fi
done
t1=$(date +%s%3N)
echo "repeat: $name: $passed of $count runs passed, $(((t1 - t0) / count)) ms per run"
[ "$passed" = "$count" ]
