#!/usr/bin/env bash
# Runs one multi-rank test under a launcher and passes only if the launcher exits 0, rank 0
# printed "SUCCESS <name>" (a program that silently does nothing must not pass), and no rank
# printed a "FAIL rank" line (mr_util.hpp) or a sanitizer's report: mpirun --enable-recovery exits
# 0 whatever its ranks' exit codes, so another rank's failure shows only in the output.
# Usage: run_mr.sh NAME LAUNCHER [LAUNCHER ARGS...] -- PROGRAM
set -uo pipefail
name=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "run_mr: $name: launcher exited with $rc"
  exit 1
fi
if ! grep -q "^SUCCESS $name\$" "$out"; then
  echo "run_mr: $name: no 'SUCCESS $name' line"
  exit 1
fi
if grep -q "^FAIL rank " "$out"; then
  echo "run_mr: $name: a rank failed a check"
  exit 1
fi
if grep -q "WARNING: ThreadSanitizer\|ERROR: AddressSanitizer" "$out"; then
  echo "run_mr: $name: a rank's sanitizer reported"
  exit 1
fi
