#!/usr/bin/env bash
# Runs a command and passes only if it exits 0 and its output (stdout and stderr) holds every
# given text as a fixed string. Usage: expect_output.sh TEXT... -- COMMAND [ARGS...]
set -uo pipefail
texts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do texts+=("$1"); shift; done
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "expect_output: command exited with $rc"; exit 1; }
for t in "${texts[@]}"; do
  grep -qF -- "$t" "$out" || { echo "expect_output: no '$t' in the output"; exit 1; }
done
