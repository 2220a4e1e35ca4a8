#!/usr/bin/env bash
# Jobs that end badly leave nothing in /dev/shm, and the launcher ends within about a second of
# the failure: a rank SIGKILLs itself with segments allocated, SIGINT to the launcher while every
# rank waits, and --timeout 1. Only this job's objects are counted (hygaspi-<job>-*, the job id
# printed by the ranks), since other jobs may run on the machine at the same time.
# Usage: shm_cleanup.sh HYGASPI_RUN SHM_HOLD
set -uo pipefail
RUN=${1:?usage: $0 HYGASPI_RUN SHM_HOLD}
PROG=${2:?usage: $0 HYGASPI_RUN SHM_HOLD}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=4
LATE_MS=${HYGASPI_FAILURE_LATE_MS:-1500}  # "within about a second": 1 s grace + scheduling slack
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1${2:+: $2}"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
now_ms() { date +%s%3N; }
job_of() { awk '$1 == "JOB" {print $2}' "$1" | sort -u; }
objects_of() { [ -n "$1" ] && ls /dev/shm 2>/dev/null | grep -c "^hygaspi-$1-" || true; }
# The job had objects while it ran (as every rank saw them), and has none now.
check_clean() {  # NAME OUTFILE
  local name=$1 out=$2 job
  job=$(job_of "$out")
  check "$name: one job id printed by the ranks" bash -c '[[ $(wc -l <<<"$1") = 1 && $1 =~ ^[0-9a-f]{32}$ ]]' _ "$job"
  local during
  during=$(awk '$1 == "OBJECTS" {print $3}' "$out" | sort -n | tail -1)
  echo "     $name: job $job had ${during:-?} /dev/shm objects while it ran; $(objects_of "$job") left"
  check "$name: the ranks saw objects of the job in /dev/shm" [ "${during:-0}" -gt 0 ]
  check "$name: no object of the job left in /dev/shm" [ "$(objects_of "$job")" = 0 ]
}

# --- a rank SIGKILLs itself with segments allocated -------------------------------------------
rc=0
"$RUN" -n $N -- "$PROG" crash >"$TMP/out" 2>"$TMP/err" || rc=$?
t_end=$(now_ms)
t_crash=$(awk '$1 == "CRASH_AT" {print $2}' "$TMP/out")
check "crash: launcher exits 137 (rank killed by SIGKILL)" [ "$rc" = 137 ]
check "crash: the message names the rank" grep -q "rank 1 killed by signal SIGKILL" "$TMP/err"
if [ -n "$t_crash" ]; then
  echo "     crash: launcher ended $((t_end - t_crash)) ms after the crash"
  check "crash: launcher ends within ${LATE_MS} ms of the crash" [ $((t_end - t_crash)) -lt "$LATE_MS" ]
else
  fail "crash: CRASH_AT line"
fi
check_clean crash "$TMP/out"

# --- SIGINT to the launcher while every rank waits ---------------------------------------------
"$RUN" -n $N -- "$PROG" hang >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 600); do [ "$(grep -c '^READY' "$TMP/out")" = $N ] && break; sleep 0.05; done
check "SIGINT: every rank got ready" [ "$(grep -c '^READY' "$TMP/out")" = $N ]
job=$(job_of "$TMP/out")
check "SIGINT: the job's objects exist before the interrupt" [ "$(objects_of "$job")" -gt 0 ]
t0=$(now_ms)
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
t1=$(now_ms)
echo "     SIGINT: launcher ended $((t1 - t0)) ms after the interrupt"
check "SIGINT: launcher exits 130" [ "$rc" = 130 ]
check "SIGINT: launcher ends within ${LATE_MS} ms" [ $((t1 - t0)) -lt "$LATE_MS" ]
check_clean SIGINT "$TMP/out"

# --- --timeout 1 --------------------------------------------------------------------------------
t0=$(now_ms)
rc=0
"$RUN" --timeout 1 -n $N -- "$PROG" hang >"$TMP/out" 2>"$TMP/err" || rc=$?
t1=$(now_ms)
echo "     --timeout 1: launcher ended $((t1 - t0)) ms after it started"
check "--timeout 1: exit 124" [ "$rc" = 124 ]
check "--timeout 1: every rank got ready before the timeout" [ "$(grep -c '^READY' "$TMP/out")" = $N ]
check "--timeout 1: ends within 1 s + ${LATE_MS} ms" [ $((t1 - t0)) -lt $((1000 + LATE_MS)) ]
check_clean "--timeout 1" "$TMP/out"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
