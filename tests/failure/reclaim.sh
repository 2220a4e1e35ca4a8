#!/usr/bin/env bash
# Stale shm objects: an object named after a process that no longer exists (what a crashed job
# under mpirun leaves) is removed by the next HyGASPI process on the host; an object of a live
# process is kept, and one of a zombie is removed.
# Usage: reclaim.sh PROGRAM (a 1-rank GASPI program that succeeds alone)
set -uo pipefail
prog=$1
true &
dead=$!
wait "$dead"  # a pid that no longer exists
job=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
stale=/dev/shm/hygaspi-$job-s0-3-1-p$dead
live=/dev/shm/hygaspi-$job-s1-3-1-p$$
# A zombie: a child of a process that never waits, which is what a rank orphaned by kill -9 of
# mpirun is until init reaps it. Its objects are stale too.
# Python, since SIGCHLD may come ignored (ctest), and then the kernel reaps at once.
exec 3< <(python3 -c '
import os, signal, time
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
child = os.fork()
if child == 0:
    os._exit(0)
print(child, os.getpid(), flush=True)
time.sleep(30)' 2>/dev/null)
read -r zombie parent <&3
state() { awk '{print $3}' /proc/"$1"/stat 2>/dev/null; }
for _ in $(seq 200); do [ "$(state "$zombie")" = Z ] && break; sleep 0.01; done
zombie_state=$(state "$zombie")
zombie_obj=/dev/shm/hygaspi-$job-s2-3-1-p$zombie
head -c 4096 /dev/zero >"$stale"
head -c 4096 /dev/zero >"$live"
head -c 4096 /dev/zero >"$zombie_obj"
chmod 600 "$stale" "$live" "$zombie_obj"
"$prog" >/dev/null 2>&1
rc=$?
kill "$parent" 2>/dev/null
exec 3<&-
passed=0 failed=0
if [ $rc -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL program exited $rc"; fi
if [ ! -e "$stale" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL stale object kept"; fi
if [ -e "$live" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL live object removed"; fi
if [ "$zombie_state" = Z ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL no zombie to test with"; fi
if [ ! -e "$zombie_obj" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL a zombie's object kept"; fi
rm -f "$stale" "$live" "$zombie_obj"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
