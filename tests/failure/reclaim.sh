#!/usr/bin/env bash
# Stale shm objects: an object named after a process that no longer exists (what a crashed job
# under mpirun leaves) is removed by the next HyGASPI process on the host; an object of a live
# process is kept. Usage: reclaim.sh PROGRAM (a 1-rank GASPI program that succeeds alone)
set -uo pipefail
prog=$1
true &
dead=$!
wait "$dead"  # a pid that no longer exists
job=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
stale=/dev/shm/hygaspi-$job-s0-3-1-p$dead
live=/dev/shm/hygaspi-$job-s1-3-1-p$$
head -c 4096 /dev/zero >"$stale"
head -c 4096 /dev/zero >"$live"
chmod 600 "$stale" "$live"
"$prog" >/dev/null 2>&1
rc=$?
passed=0 failed=0
if [ $rc -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL program exited $rc"; fi
if [ ! -e "$stale" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL stale object kept"; fi
if [ -e "$live" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL live object removed"; fi
rm -f "$stale" "$live"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
