#!/usr/bin/env bash
# gaspi_run (GPI-2's launcher interface): -n alone and a machinefile naming this host run the
# ranks under hygaspi-run; bad arguments are refused. Usage: test_gaspi_run.sh BUILD_DIR PROGRAM
set -uo pipefail
run=$(cd "$1" && pwd)/tools/gaspi_run prog=$2
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
# GPI-2's rank environment: the machinefile's absolute path, the master host, the socket.
env_of() { "$run" "$@" sh -c 'echo "ENV $GASPI_RANK $GASPI_NRANKS $GASPI_MASTER $GASPI_SOCKET $GASPI_MFILE"'; }
(cd "$tmp" && env_of -m machines -n 2) >"$tmp/e1" 2>&1
check "GPI-2's environment with -m (absolute GASPI_MFILE)" \
  "[ \$(grep -c '^ENV [01] 2 localhost 0 $tmp/machines\$' '$tmp/e1') = 2 ]"
env_of -n 2 >"$tmp/e2" 2>&1
mfile=$(sed -n 's/^ENV 0 2 [^ ]* 0 //p' "$tmp/e2")
check "GPI-2's environment with -n alone (a machinefile of this host)" \
  "[ \$(grep -c '^ENV [01] 2 $(hostname) 0 /' '$tmp/e2') = 2 ] && [ -n '$mfile' ] && [ ! -e '$mfile' ]"
"$run" -m "$tmp/machines" -n 5 "$prog" >/dev/null 2>&1
check "-n beyond the machinefile is refused" "[ $? -eq 2 ]"
"$run" -n zero "$prog" >/dev/null 2>&1
check "a malformed -n is refused" "[ $? -eq 2 ]"
"$run" -m "$tmp/none" "$prog" >/dev/null 2>&1
check "a missing machinefile is refused" "[ $? -eq 2 ]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
