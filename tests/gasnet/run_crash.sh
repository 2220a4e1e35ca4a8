#!/usr/bin/env bash
# Runs a gn_crash scene and checks that the crash ended the whole job promptly: the launcher exits
# nonzero within MAX_MS of the crash (the victim's CRASH_AT record, or the moment this script
# SIGKILLs the launcher), no process of the job is left (every node recorded its pid), and no
# /dev/shm object of the job is left: hygaspi-<job>-* when hygaspi-run printed a job id, and every
# object named after one of the job's pids ("...-p<pid>"). Other jobs may run at the same time, so
# only this job's names count.
# Usage: run_crash.sh MAX_MS NODES self|recovery|launcher LAUNCHER... PROGRAM SCENE
#   self      the victim SIGKILLs itself; the launcher must exit nonzero
#   recovery  as self under mpirun --enable-recovery, which exits 0 whatever its ranks' codes: a
#             survivor must say that it ends the job for the dead node
#   launcher  this script SIGKILLs the launcher once every node printed READY
set -uo pipefail
max_ms=$1 nodes=$2 mode=$3
shift 3
out=$(mktemp)
GN_CRASH_DIR=$(mktemp -d) # the nodes' records (gn_crash.c), which mpirun's output may lose
export GN_CRASH_DIR
trap 'rm -rf "$out" "$GN_CRASH_DIR"' EXIT
records() { cat "$GN_CRASH_DIR"/"$1".* 2>/dev/null; }
now_ms() { date +%s%3N; }
fail=0
bad() { echo "run_crash: $*"; fail=1; }

if [ "$mode" = self ] || [ "$mode" = recovery ]; then
  timeout -k 5 60 "$@" >"$out" 2>&1
  rc=$?
  t_end=$(now_ms)
  t_crash=$(records CRASH_AT | awk '{print $2}' | head -1)
else
  timeout -k 5 60 "$@" >"$out" 2>&1 &
  pid=$!
  # The launcher is timeout's child; our SIGKILL goes to it, not to timeout.
  for _ in $(seq 600); do
    [ "$(records READY | wc -l)" = "$nodes" ] && break
    sleep 0.05
  done
  [ "$(records READY | wc -l)" = "$nodes" ] || bad "not every node got ready"
  launcher=$(pgrep -P "$pid" | head -1)
  t_crash=$(now_ms)
  [ -n "$launcher" ] && kill -KILL "$launcher"
  wait "$pid"
  rc=$?
  t_end=$(now_ms)
fi
cat "$out"

pids=$(records PID | awk '{print $3}')
job=$(records JOB | awk '{print $2}' | sort -u)
[ "$(wc -w <<<"$pids")" = "$nodes" ] || bad "$(wc -w <<<"$pids") PID records, expected $nodes"
if [ "$mode" = recovery ]; then
  grep -q "died without gasnet_exit; ending the job" "$out" || bad "no survivor ended the job for the dead node"
  # Every survivor knows of the death and exits: none has to end the others with MPI_Abort.
  grep -q "MPI_ABORT was invoked" "$out" && bad "a survivor ended the job with MPI_Abort"
else
  [ "$rc" -ne 0 ] || bad "the launcher exited 0"
fi
[ "$rc" -ne 124 ] || bad "the job ran into timeout(1)'s limit"
grep -q "returned from the wait" "$out" && bad "a node returned from its wait"
if [ -n "${t_crash:-}" ]; then
  echo "run_crash: launcher exit $rc, $((t_end - t_crash)) ms after the crash"
  [ $((t_end - t_crash)) -le "$max_ms" ] || bad "the job ended more than $max_ms ms after the crash"
else
  bad "no CRASH_AT record"
fi

# No process of the job is left: each pid gone or a zombie (its parent, maybe init, reaps it) by
# the deadline (a launcher SIGKILLed leaves its ranks to PR_SET_PDEATHSIG).
alive() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$s" != Z ]; }
deadline=$((t_crash + max_ms))
for p in $pids; do
  while alive "$p" && [ "$(now_ms)" -le "$deadline" ]; do sleep 0.02; done
  if alive "$p"; then
    bad "process $p of the job is still running: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
    kill -KILL "$p" 2>/dev/null
  fi
done

# No object of the job in /dev/shm.
shopt -s nullglob
left=()
[ -n "$job" ] && left+=(/dev/shm/hygaspi-"$job"-*)
for p in $pids; do left+=(/dev/shm/hygaspi-*-p"$p"); done
if [ ${#left[@]} -ne 0 ]; then
  bad "objects of the job left in /dev/shm: ${left[*]}"
  rm -f "${left[@]}"
fi
echo "run_crash: objects of the job seen by the nodes: $(records OBJECTS | awk '{s += $3} END {print s + 0}'), left: ${#left[@]}"
[ "$fail" = 0 ] && echo "run_crash: OK"
exit $fail
