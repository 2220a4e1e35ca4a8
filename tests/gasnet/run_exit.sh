#!/usr/bin/env bash
# Runs a gn_exit scene and checks the job's exit code and that it ended within MAX seconds (the
# spec asks for "promptly"; we promise 1 s, and allow slack for a loaded 2-core machine).
# Usage: run_exit.sh EXPECTED_CODE MAX_SECONDS EXPECT_BYES[+] LAUNCHER... PROGRAM SCENE CODE
set -uo pipefail
expected=$1 max=$2 byes=$3
shift 3
start=$(date +%s%N)
out=$(timeout -k 5 60 "$@" 2>&1)
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "$out"
echo "run_exit: exit code $rc (expected $expected), ${elapsed_ms} ms"
[ "$rc" -eq "$expected" ] || { echo "run_exit: wrong exit code"; exit 1; }
[ "$elapsed_ms" -le $((max * 1000)) ] || { echo "run_exit: took longer than ${max} s"; exit 1; }
# Where every node ends together, before attach too, the job ends cleanly: no abort report.
case "${@: -2:1}" in
allpre | collective | gaspi | return)
  ! grep -q "MPI_ABORT" <<<"$out" || { echo "run_exit: the job ended by MPI_Abort"; exit 1; }
  ;;
esac
# ORIGIN (hygaspi-run only): the rank whose gasnet_exit ended the job, which the launcher must name,
# and no other rank's end may be reported as the cause.
if [ -n "${ORIGIN:-}" ]; then
  grep -q "^hygaspi-run: rank $ORIGIN ended the job with code $expected\$" <<<"$out" ||
    { echo "run_exit: the launcher did not name rank $ORIGIN as the one that ended the job"; exit 1; }
  ! grep "^hygaspi-run: rank " <<<"$out" | grep -qv "^hygaspi-run: rank $ORIGIN " ||
    { echo "run_exit: the launcher named another rank"; exit 1; }
fi
# The peers that gasnet_exit kills are part of the job's end: no report of a gaspi_proc_kill.
! grep -q "gaspi_proc_kill" <<<"$out" || { echo "run_exit: the launcher reported a gaspi_proc_kill"; exit 1; }
n=$(grep -c "^bye from" <<<"$out")
# "N+": at least N (a node that exits may still get the launcher's SIGTERM, which GASNet turns
# into SIGQUIT for the client's handler, before its own exit is through).
if [[ $byes == *+ ]]; then
  [ "$n" -ge "${byes%+}" ] || { echo "run_exit: $n 'bye' lines, expected at least ${byes%+}"; exit 1; }
else
  [ "$n" -eq "$byes" ] || { echo "run_exit: $n 'bye' lines, expected $byes"; exit 1; }
fi
echo "run_exit: OK"
