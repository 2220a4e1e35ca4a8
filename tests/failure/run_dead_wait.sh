#!/usr/bin/env bash
# Runs tests/failure/dead_wait.cpp under a launcher. Passes only if rank 0 printed
# "SUCCESS dead_wait" and the launcher exited with EXPECTED_RC ("any": under mpirun Open MPI ends
# the job with an error soon after a rank dies, which the test accepts).
# Usage: run_dead_wait.sh EXPECTED_RC LAUNCHER [ARGS...]
set -uo pipefail
expect=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s%3N)
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
echo "run_dead_wait: launcher exit $rc after $(($(date +%s%3N) - t0)) ms"
status=0
if [ "$expect" != any ] && [ "$rc" != "$expect" ]; then
  echo "run_dead_wait: expected launcher exit code $expect, got $rc"
  status=1
fi
if ! grep -q "^SUCCESS dead_wait\$" "$out"; then
  echo "run_dead_wait: no 'SUCCESS dead_wait' line"
  status=1
fi
exit $status
