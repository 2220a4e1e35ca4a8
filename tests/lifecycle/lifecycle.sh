#!/usr/bin/env bash
# Start-up and shutdown under hygaspi-run, gaspi_run and mpirun:
#   failed init: a rank whose gaspi_proc_init fails part-way and then exits 0: its peers fail at once
#                (time measured) and hygaspi-run exits non-zero; under mpirun no rank hangs
#   child:       a program a rank starts with system() runs as a standalone 1-rank job
#   kill:        gaspi_proc_kill under gaspi_run does not end the job
#   kill -9:     kill -9 of hygaspi-run, and of its process group: the objects left behind are gone
#                after the next hygaspi-run start (/dev/shm counted before and after); kill -9 of
#                mpirun: the ranks end, and the next start removes their objects
#   squat:       squatted object names (tests/lifecycle/squat.c) are retried, and the job starts
# Usage: lifecycle.sh BUILD_DIR   (needs mpirun in PATH for the mpirun checks)
set -uo pipefail
B=${1:?usage: $0 BUILD_DIR}
RUN=$B/tools/hygaspi-run
PROG=$B/tests/lc_prog
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAST_MS=${HYGASPI_LIFECYCLE_FAST_MS:-5000} # "at once", with room for a loaded 2-CPU machine
passed=0 failed=0
check() { local name=$1; shift; if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi; }
objects_of() { ls /dev/shm 2>/dev/null | grep -c "^hygaspi-$1-" || true; }
owners_of() { ls /dev/shm 2>/dev/null | grep "^hygaspi-$1-" | sed -n 's/.*-p\([0-9]*\)$/\1/p' | sort -u; }
# Every INIT line of ranks other than 1 reports a failure within FAST_MS; prints the slowest.
peers_failed_fast() {  # OUTFILE NRANKS
  local lines slow
  lines=$(awk '$1 == "INIT" && $2 != 1' "$1")
  echo "     INIT lines (rank rc ms): $(tr '\n' ';' <<<"$lines")"
  [ "$(wc -l <<<"$lines")" = $(($2 - 1)) ] || return 1
  awk '$3 == 0 {bad = 1} END {exit bad}' <<<"$lines" || return 1
  slow=$(awk 'BEGIN {m = 0} $4 > m {m = $4} END {print int(m)}' <<<"$lines")
  echo "     slowest peer failed after $slow ms"
  [ "$slow" -lt "$FAST_MS" ]
}

# --- failed init under hygaspi-run ----------------------------------------------------------------
# --keep-going: the launcher would otherwise end the peers as soon as rank 1 exits, before they
# could report how long their init took; the exit code is still the first failure's.
"$RUN" --keep-going --timeout 60 -n 4 -- "$PROG" failinit 2>&1 | cat >"$TMP/out"
rc=${PIPESTATUS[0]}
grep -v '^INIT' "$TMP/out" | sed 's/^/     | /'
check "failinit (hygaspi-run): launcher exits non-zero" [ "$rc" != 0 ]
check "failinit (hygaspi-run): launcher names rank 1" grep -q "rank 1 exited with code 0 after its gaspi_proc_init failed" "$TMP/out"
check "failinit (hygaspi-run): every peer's init fails within ${FAST_MS} ms" peers_failed_fast "$TMP/out" 4

# --- a rank killed inside its init, after its peers mapped it ------------------------------------
# Ranks 1 and 2 wait in their init for rank 3, which starts only after they reported: they must
# fail at once, naming rank 0 (before, they waited for rank 3 and then named it).
mkdir -p "$TMP/die"
timeout -k 5 90 "$RUN" --keep-going --timeout 60 -n 4 -- "$PROG" dieininit "$TMP/die" 2>&1 | cat >"$TMP/out"
grep -v '^INIT' "$TMP/out" | sed 's/^/     | /'
check "dieininit: ranks 1 and 2 fail within ${FAST_MS} ms" \
  awk -v fast="$FAST_MS" '$1 == "INIT" && ($2 == 1 || $2 == 2) {n++; if ($3 == 0 || $4 >= fast) bad = 1}
                          END {exit bad || n != 2}' "$TMP/out"
check "dieininit: their message names rank 0" grep -q "rank [12]\] gaspi_proc_init: rank 0 died" "$TMP/out"

# --- failed init under mpirun (rank 1 shares a node with rank 0; 2 and 3 on another) --------------
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
  timeout -k 5 60 mpirun --oversubscribe -np 4 -x HYGASPI_NODE_SIZE=2 "$PROG" failinit 2>&1 | cat >"$TMP/out"
  rc=${PIPESTATUS[0]}
  grep -v '^INIT' "$TMP/out" | sed 's/^/     | /'
  check "failinit (mpirun): no rank hangs (mpirun exit $rc, 124 = timeout)" [ "$rc" != 124 -a "$rc" != 137 ]
  check "failinit (mpirun): every other rank's init fails within ${FAST_MS} ms" peers_failed_fast "$TMP/out" 4
fi

# --- a child process does not join the job --------------------------------------------------------
"$RUN" --timeout 60 -n 2 -- "$PROG" child >"$TMP/out" 2>&1
rc=$?
sed 's/^/     | /' "$TMP/out"
check "child: job exits 0" [ "$rc" = 0 ]
check "child: the child ran as a standalone job" grep -q '^SOLO_OK$' "$TMP/out"
check "child: the job went on" grep -q '^SUCCESS lc_prog$' "$TMP/out"

# Under mpirun (every rank a node, and pairs): the child inherits mpirun's environment too, and
# must not call MPI_Init (Open MPI aborts it) nor take the rank's identity.
if command -v mpirun >/dev/null; then
  for size in 1 2; do
    timeout -k 5 60 mpirun --oversubscribe -np 2 -x HYGASPI_NODE_SIZE=$size "$PROG" child >"$TMP/out" 2>&1
    rc=$?
    sed 's/^/     | /' "$TMP/out"
    check "child (mpirun, node size $size): job exits 0" [ "$rc" = 0 ]
    check "child (mpirun, node size $size): the child ran as a standalone job" grep -q '^SOLO_OK$' "$TMP/out"
    check "child (mpirun, node size $size): the job went on" grep -q '^SUCCESS lc_prog$' "$TMP/out"
  done
fi

# --- gaspi_proc_kill under gaspi_run --------------------------------------------------------------
timeout -k 5 60 "$B/tools/gaspi_run" -n 4 "$B/tests/mr_dead_peer" kill 3 >"$TMP/out" 2>&1
rc=$?
grep -E '^hygaspi-run|gaspi_proc_kill|SUCCESS' "$TMP/out" | sed 's/^/     | /'
check "proc_kill (gaspi_run): job exits 0" [ "$rc" = 0 ]
check "proc_kill (gaspi_run): survivors finished" grep -q '^SUCCESS mr_dead_peer$' "$TMP/out"

# --- kill -9 of the launcher, and of its process group --------------------------------------------
kill9() {  # NAME GROUP(0|1)
  local name=$1 group=$2 pid job before after left owners
  if [ "$group" = 1 ]; then
    setsid "$RUN" -n 4 -- "$B/tests/shm_hold" hang >"$TMP/out" 2>&1 &
  else
    "$RUN" -n 4 -- "$B/tests/shm_hold" hang >"$TMP/out" 2>&1 &
  fi
  pid=$!
  for _ in $(seq 600); do [ "$(grep -c '^READY' "$TMP/out")" = 4 ] && break; sleep 0.05; done
  job=$(awk '$1 == "JOB" {print $2}' "$TMP/out" | sort -u)
  before=$(objects_of "$job")
  owners=$(owners_of "$job")
  if [ "$group" = 1 ]; then kill -9 -- "-$pid"; else kill -9 "$pid"; fi
  wait "$pid" 2>/dev/null
  # The ranks die with the launcher (PR_SET_PDEATHSIG); wait until every owner is gone.
  for _ in $(seq 200); do
    left=0; for o in $owners; do kill -0 "$o" 2>/dev/null && left=1; done
    [ "$left" = 0 ] && break; sleep 0.05
  done
  after=$(objects_of "$job")
  "$RUN" -n 1 -- true
  local swept; swept=$(objects_of "$job")
  echo "     $name: job $job: $before objects while it ran, $after after kill -9, $swept after the next start"
  check "$name: the ranks were ready and had objects" [ "${before:-0}" -gt 0 ]
  check "$name: the ranks died with the launcher" [ "$left" = 0 ]
  check "$name: the next hygaspi-run start removed every object of the killed job" [ "$swept" = 0 ]
}
kill9 "kill -9 launcher" 0
kill9 "kill -9 process group" 1

# kill -9 of mpirun (hybrid: two nodes of two ranks, every rank holding segments): every rank ends
# (Open MPI's, not ours: a rank whose mpirun is gone aborts), and the objects named after the
# ranks' pids are gone after the next HyGASPI process starts on the host.
if command -v mpirun >/dev/null; then
  mpirun --oversubscribe -np 4 -x HYGASPI_NODE_SIZE=2 "$B/tests/shm_hold" hang >"$TMP/out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ "$(grep -c '^READY' "$TMP/out")" = 4 ] && break; sleep 0.05; done
  ranks=$(pgrep -P "$pid")
  # An orphan's exit leaves a zombie until init reaps it: that one has ended.
  running() { local state; state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$state" != Z ]; }
  rank_objects() { local r; for r in $ranks; do ls /dev/shm | grep -c -- "^hygaspi-.*-p$r$"; done | awk '{s += $1} END {print s + 0}'; }
  before=$(rank_objects)
  t0=$(date +%s%3N)
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  for _ in $(seq 400); do
    left=0; for r in $ranks; do running "$r" && left=1; done
    [ "$left" = 0 ] && break; sleep 0.025
  done
  took=$(($(date +%s%3N) - t0))
  "$B/tests/mr_init_term" >/dev/null 2>&1 # a 1-rank job: its start sweeps objects of dead pids
  after=$(rank_objects)
  echo "     kill -9 mpirun: ranks $(echo $ranks), $before objects, ranks gone after $took ms, $after objects after the next start"
  check "kill -9 mpirun: 4 ranks were ready and held objects" [ "$(wc -w <<<"$ranks")" = 4 -a "$before" -gt 0 ]
  check "kill -9 mpirun: every rank ended within ${FAST_MS} ms" [ "$left" = 0 -a "$took" -le "$FAST_MS" ]
  check "kill -9 mpirun: the next start removed every object of the ranks" [ "$after" = 0 ]
fi

# --- squatted names -------------------------------------------------------------------------------
squat=$B/tests/liblc_squat.so
"$RUN" --timeout 60 -n 2 -- env LD_PRELOAD="$squat" HYGASPI_TEST_SQUAT=3 "$B/tests/mr_init_term" >"$TMP/out" 2>&1
rc=$?
sed 's/^/     | /' "$TMP/out"
check "squat: job exits 0" [ "$rc" = 0 ]
check "squat: names were squatted" grep -q '^SQUATTED hygaspi-' "$TMP/out"
check "squat: the job started anyway" grep -q '^SUCCESS mr_init_term$' "$TMP/out"
for n in $(awk '$1 == "SQUATTED" {print $2}' "$TMP/out"); do rm -f "/dev/shm/$n"; done
# The names carry a random part that no other user can read: a segment's name ends in
# -<16 hex digits>-p<pid>, and rank 0's three segments (its two and the engine's message inbox)
# differ in it.
"$RUN" -n 2 -- "$B/tests/shm_hold" hang >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(grep -c '^READY' "$TMP/out")" = 2 ] && break; sleep 0.05; done
job=$(awk '$1 == "JOB" {print $2}' "$TMP/out" | sort -u)
ls /dev/shm | grep "^hygaspi-$job-s0-" >"$TMP/names"
kill -INT "$pid"; wait "$pid" 2>/dev/null
sed 's/^/     | /' "$TMP/names"
check "names: segment names end in a 64-bit random part and the owner's pid" \
  bash -c '[ "$(grep -cE -- "-[0-9a-f]{16}-p[0-9]+$" "$1")" = 3 ]' _ "$TMP/names"
check "names: the random parts differ" bash -c '[ "$(sed -E "s/.*-([0-9a-f]{16})-p[0-9]+$/\1/" "$1" | sort -u | wc -l)" = 3 ]' _ "$TMP/names"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
