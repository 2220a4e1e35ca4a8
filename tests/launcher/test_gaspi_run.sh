#!/usr/bin/env bash
# gaspi_run (GPI-2's launcher interface): -n alone and a machinefile naming this host run the
# ranks under hygaspi-run; bad arguments are refused. Usage: test_gaspi_run.sh BUILD_DIR PROGRAM
set -uo pipefail
run=$1/tools/gaspi_run prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { if eval "$2"; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi; }

"$run" -n 2 "$prog" >"$tmp/a" 2>&1
check "-n 2 runs the program" "grep -q '^SUCCESS' '$tmp/a'"
printf 'localhost\nlocalhost\n# a comment\nlocalhost\n' >"$tmp/machines"
"$run" -m "$tmp/machines" "$prog" >"$tmp/b" 2>&1
check "a machinefile of this host runs one rank per line" "grep -q '^SUCCESS' '$tmp/b'"
"$run" -m "$tmp/machines" -n 2 "$prog" >"$tmp/c" 2>&1
check "-n limits the ranks taken from the machinefile" "grep -q '^SUCCESS' '$tmp/c'"
"$run" -m "$tmp/machines" -n 5 "$prog" >/dev/null 2>&1
check "-n beyond the machinefile is refused" "[ $? -eq 2 ]"
"$run" -n zero "$prog" >/dev/null 2>&1
check "a malformed -n is refused" "[ $? -eq 2 ]"
"$run" -m "$tmp/none" "$prog" >/dev/null 2>&1
check "a missing machinefile is refused" "[ $? -eq 2 ]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
