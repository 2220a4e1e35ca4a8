#!/usr/bin/env bash
# Behaviour tests of hygaspi-run with plain shell programs as ranks: exit codes, --prefix output,
# the job's environment, killing the job on a failure / timeout / signal, and that nothing of the
# job stays in /dev/shm. Usage: test_launcher.sh path/to/hygaspi-run
set -euo pipefail

RUN=${1:?usage: $0 path/to/hygaspi-run}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# A sleep duration unique to this run, so that pgrep finds only our sleeps, even when other jobs
# run on the machine.
NAP="29.$$"
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1${2:+: $2}"; }
check() {  # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
# run_rc OUTFILE ERRFILE ARGS...: runs the launcher, prints its exit code, never trips set -e.
run_rc() {
  local out=$1 err=$2; shift 2
  local rc=0
  "$RUN" "$@" >"$out" 2>"$err" || rc=$?
  echo "$rc"
}
now_ms() { date +%s%3N; }
no_naps() { ! pgrep -f "sleep $NAP" >/dev/null; }
# Nothing of job $1 left in /dev/shm.
shm_clean() { [ -n "$1" ] && ! ls /dev/shm 2>/dev/null | grep -q "^hygaspi-$1-"; }

# --- success, exit code 0, environment ------------------------------------------------------
rc=$(run_rc "$TMP/out" "$TMP/err" -n 3 -- sh -c \
  'echo "$HYGASPI_RANK $HYGASPI_NRANKS $GASPI_RANK $GASPI_NRANKS $HYGASPI_JOB"')
check "all ranks succeed: exit 0" [ "$rc" = 0 ]
check "HYGASPI_/GASPI_RANK and NRANKS" \
  [ "$(cut -d' ' -f1-4 "$TMP/out" | sort | tr '\n' ,)" = "0 3 0 3,1 3 1 3,2 3 2 3," ]
job=$(awk '{print $5}' "$TMP/out" | sort -u)
check "HYGASPI_JOB: one id of 32 lower-case hex digits" \
  bash -c '[[ $(wc -l <<<"$1") = 1 && $1 =~ ^[0-9a-f]{32}$ ]]' _ "$job"
check "job block created and removed" shm_clean "$job"

# --- --prefix -----------------------------------------------------------------------------
rc=$(run_rc "$TMP/out" "$TMP/err" -n 3 --prefix -- sh -c \
  'echo "hi $HYGASPI_RANK"; echo "err $HYGASPI_RANK" >&2; printf "tail $HYGASPI_RANK"')
check "--prefix: exit 0" [ "$rc" = 0 ]
check "--prefix: stdout lines prefixed" \
  [ "$(grep '^\[[0-9]\] hi' "$TMP/out" | sort | tr '\n' ,)" = "[0] hi 0,[1] hi 1,[2] hi 2," ]
check "--prefix: stderr lines prefixed, on stderr" \
  [ "$(sort "$TMP/err" | tr '\n' ,)" = "[0] err 0,[1] err 1,[2] err 2," ]
check "--prefix: unfinished last line flushed" [ "$(grep -c '^\[[0-9]\] tail [0-9]$' "$TMP/out")" = 3 ]
rc=$(run_rc "$TMP/out" "$TMP/err" -p -n 1 -- sh -c 'echo a')
check "-p is --prefix" [ "$(cat "$TMP/out")" = "[0] a" ]

# --- a failing rank ends the job quickly, with its exit code --------------------------------
t0=$(now_ms)
rc=$(run_rc "$TMP/out" "$TMP/err" -n 3 -- sh -c \
  'echo $HYGASPI_JOB; if [ $HYGASPI_RANK = 1 ]; then exit 3; fi; sleep '"$NAP")
t1=$(now_ms)
check "failing rank: launcher exits with its code" [ "$rc" = 3 ]
check "failing rank: job killed within 2 s" [ $((t1 - t0)) -lt 2000 ]
check "failing rank: message names the rank" grep -q "rank 1 exited with code 3" "$TMP/err"
check "failing rank: no sleeps left" no_naps
check "failing rank: /dev/shm clean" shm_clean "$(sort -u "$TMP/out" | head -1)"

rc=$(run_rc "$TMP/out" "$TMP/err" -n 2 -- sh -c 'if [ $HYGASPI_RANK = 0 ]; then kill -SEGV $$; fi; sleep '"$NAP")
check "rank killed by a signal: 128+signo" [ "$rc" = 139 ]
check "rank killed by a signal: message" grep -q "rank 0 killed by signal SIGSEGV" "$TMP/err"
check "rank killed by a signal: no sleeps left" no_naps

# A rank that ignores SIGTERM gets SIGKILL after the grace period.
t0=$(now_ms)
rc=$(run_rc "$TMP/out" "$TMP/err" -n 2 -- sh -c \
  'if [ $HYGASPI_RANK = 0 ]; then exit 5; fi; trap "" TERM; sleep '"$NAP"'; sleep '"$NAP")
t1=$(now_ms)
check "SIGTERM ignored: SIGKILL after grace, exit 5" [ "$rc" = 5 ]
check "SIGTERM ignored: ends within 2 s" [ $((t1 - t0)) -lt 2000 ]
check "SIGTERM ignored: no sleeps left" no_naps

# --- exec failure ---------------------------------------------------------------------------
rc=$(run_rc "$TMP/out" "$TMP/err" -n 2 -- /nonexistent/hygaspi-prog)
check "exec failure: exit 127" [ "$rc" = 127 ]
check "exec failure: message" grep -q "cannot execute /nonexistent/hygaspi-prog" "$TMP/err"
# A file that is there but not executable: 126, as the shell says.
printf 'not a program\n' >"$TMP/notexec"
rc=$(run_rc "$TMP/out" "$TMP/err" -n 2 -- "$TMP/notexec")
check "exec failure, not executable: exit 126" [ "$rc" = 126 ]

# --- --timeout ------------------------------------------------------------------------------
t0=$(now_ms)
rc=$(run_rc "$TMP/out" "$TMP/err" --timeout 1 -n 2 -- sh -c 'echo $HYGASPI_JOB; sleep '"$NAP")
t1=$(now_ms)
check "--timeout: exit 124" [ "$rc" = 124 ]
check "--timeout: after about 1 s" [ $((t1 - t0)) -ge 900 -a $((t1 - t0)) -lt 2500 ]
check "--timeout: message" grep -q "timeout" "$TMP/err"
check "--timeout: no sleeps left" no_naps
check "--timeout: /dev/shm clean" shm_clean "$(sort -u "$TMP/out" | head -1)"

# --- signals to the launcher ----------------------------------------------------------------
for sig in INT TERM HUP; do
  "$RUN" -n 2 -- sh -c 'echo $HYGASPI_JOB; sleep '"$NAP" >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  for _ in $(seq 50); do [ -s "$TMP/out" ] && break; sleep 0.05; done
  sleep 0.1
  kill -s "$sig" "$pid"
  rc=0; wait "$pid" || rc=$?
  expect=$((128 + $(kill -l "$sig")))
  check "SIG$sig to the launcher: exit $expect" [ "$rc" = "$expect" ]
  check "SIG$sig to the launcher: no sleeps left" no_naps
  check "SIG$sig to the launcher: /dev/shm clean" shm_clean "$(sort -u "$TMP/out" | head -1)"
done

# --- /dev/shm objects left by ranks are removed ---------------------------------------------
rc=$(run_rc "$TMP/out" "$TMP/err" -n 2 -- sh -c \
  'touch /dev/shm/hygaspi-$HYGASPI_JOB-s$HYGASPI_RANK-0-1 /dev/shm/hygaspi-$HYGASPI_JOB-r$HYGASPI_RANK-1-0
   echo $HYGASPI_JOB; [ $HYGASPI_RANK = 1 ] && exit 1; exit 0')
job=$(sort -u "$TMP/out" | head -1)
check "leftover objects: exit 1" [ "$rc" = 1 ]
check "leftover objects: removed from /dev/shm" shm_clean "$job"

# --- --bind: rank r on core r % ncores / NUMA node r % nnuma ---------------------------------
cpus_of_ranks() { sort -n "$TMP/out" | cut -d' ' -f2 | tr '\n' ' '; }
unbound=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
rc=$(run_rc "$TMP/out" "$TMP/err" --bind none -n 2 -- sh -c 'echo $HYGASPI_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)')
check "--bind none: ranks keep the launcher's CPUs" [ "$rc" = 0 -a "$(cpus_of_ranks)" = "$unbound $unbound " ]
ncpus=$(nproc)
rc=$(run_rc "$TMP/out" "$TMP/err" --bind core -n 2 -- sh -c 'echo $HYGASPI_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)')
read -r cpu0 cpu1 <<<"$(cpus_of_ranks)"
echo "     --bind core -n 2: rank 0 on $cpu0, rank 1 on $cpu1 (launcher: $unbound)"
check "--bind core: exit 0" [ "$rc" = 0 ]
if [ "$ncpus" -ge 2 ]; then
  check "--bind core: the ranks' CPU sets differ" [ -n "$cpu0" -a "$cpu0" != "$cpu1" ]
  if [ "$(lscpu 2>/dev/null | awk -F: '/^Thread\(s\) per core/ {gsub(/ /, "", $2); print $2}')" = 1 ]; then
    check "--bind core: one CPU each (no SMT here)" bash -c '[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]' _ "$cpu0" "$cpu1"
  fi
fi
nodes_with_cpus=$(cat /sys/devices/system/node/node*/cpulist 2>/dev/null | grep -c . || true)
rc=$(run_rc "$TMP/out" "$TMP/err" --bind=numa -n 2 -- sh -c 'echo $HYGASPI_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)')
check "--bind numa: exit 0" [ "$rc" = 0 ]
if [ "$nodes_with_cpus" = 1 ]; then  # one NUMA node: both ranks get all of its CPUs
  check "--bind numa: one node, every rank on its CPUs" [ "$(cpus_of_ranks)" = "$unbound $unbound " ]
fi

# --- --keep-going: a failing rank does not end the job --------------------------------------
t0=$(now_ms)
rc=$(run_rc "$TMP/out" "$TMP/err" --keep-going -n 3 -- sh -c \
  'if [ $HYGASPI_RANK = 1 ]; then kill -KILL $$; fi; if [ $HYGASPI_RANK = 2 ]; then sleep 0.2; exit 4; fi
   sleep 0.5; echo "survivor $HYGASPI_RANK done"')
t1=$(now_ms)
check "--keep-going: exit code of the first failed rank (137)" [ "$rc" = 137 ]
check "--keep-going: the other ranks ran to their end" grep -q "survivor 0 done" "$TMP/out"
check "--keep-going: both failures reported" \
  bash -c 'grep -q "rank 1 killed by signal SIGKILL" "$1" && grep -q "rank 2 exited with code 4" "$1"' _ "$TMP/err"
check "--keep-going: no SIGTERM, the job ended with its last rank" [ $((t1 - t0)) -ge 450 ]
t0=$(now_ms)
rc=$(run_rc "$TMP/out" "$TMP/err" --keep-going --timeout 1 -n 2 -- sh -c \
  'if [ $HYGASPI_RANK = 1 ]; then exit 3; fi; sleep '"$NAP")
t1=$(now_ms)
check "--keep-going: --timeout still ends the job, exit code of the first failure (3)" \
  bash -c '[ "$1" = 3 ] && grep -q timeout "$2"' _ "$rc" "$TMP/err"
check "--keep-going: --timeout after about 1 s" [ $((t1 - t0)) -ge 900 -a $((t1 - t0)) -lt 2500 ]
check "--keep-going: no sleeps left" no_naps

# --- malformed command lines ----------------------------------------------------------------
for args in "" "-n 0 true" "-n 4097 true" "-n x true" "-n 2" "true" "--bogus -n 1 true" \
            "--timeout -n 1 true" "--timeout 0 -n 1 true" "--bind socket -n 1 true" "-n 1 --bind"; do
  # shellcheck disable=SC2086
  rc=$(run_rc "$TMP/out" "$TMP/err" $args)
  check "usage error for '$args': exit 2 with usage" bash -c '[ "$1" = 2 ] && grep -q usage "$2"' _ "$rc" "$TMP/err"
done
rc=$(run_rc "$TMP/out" "$TMP/err" --help)
check "--help: exit 0 with usage" bash -c '[ "$1" = 0 ] && grep -q usage "$2"' _ "$rc" "$TMP/out"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
