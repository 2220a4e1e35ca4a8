#!/usr/bin/env bash
# CI contention pass (issue 9): the multi-rank suite (ctest labels shm, mpi, hybrid) once more with
# every rank of every job pinned to one CPU, so that timing windows (a rank preempted between two
# steps of a protocol) turn into failures instead of passing by luck.
#
# taskset sets the mask of ctest, and every launcher and rank inherits it. hygaspi-run binds
# nothing. mpirun binds rank k to core k when the ranks fit the cores (np 2 on this 2-CPU
# machine), which would take that rank out of the mask: hwloc_base_binding_policy=none is
# mpirun's --bind-to none. The pass first checks the mask of the ranks under both launchers.
#
# Usage: scripts/contention.sh [extra ctest arguments, e.g. -R mr_rma]
# Environment: BUILD_DIR (default build, built by scripts/build.sh), CONTENTION_CPU (default 0),
#              CONTENTION_LABELS (default '^(shm|mpi|hybrid)$'), CONTENTION_EXCLUDE (a ctest -E
#              regex, default none; e.g. 'mr_rma' drops the bulk-data tests, a third of the time).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cpu=${CONTENTION_CPU:-0}
labels=${CONTENTION_LABELS:-'^(shm|mpi|hybrid)$'}
export OMPI_MCA_hwloc_base_binding_policy=none

# Every rank of a 2-rank job, under each launcher, must see exactly the one CPU.
mpirun_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1)
show_mask='sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
masks=$(taskset -c "$cpu" "$build"/tools/hygaspi-run -n 2 -- sh -c "$show_mask"
        env "${mpirun_env[@]}" taskset -c "$cpu" mpirun -np 2 sh -c "$show_mask")
if [ "$(sort -u <<<"$masks")" != "$cpu" ] || [ "$(wc -l <<<"$masks")" -ne 4 ]; then
  echo "contention: ranks are not pinned to CPU $cpu; their masks:"
  echo "$masks"
  exit 1
fi
echo "contention: every rank runs on CPU $cpu only (hygaspi-run and mpirun checked)"

cd "$build"
start=$(date +%s)
rc=0
exclude=()
[ -z "${CONTENTION_EXCLUDE:-}" ] || exclude=(-E "$CONTENTION_EXCLUDE")
taskset -c "$cpu" ctest -L "$labels" "${exclude[@]}" --output-on-failure --timeout 600 "$@" || rc=$?
echo "contention: ctest -L '$labels' pinned to CPU $cpu took $(($(date +%s) - start)) s"
exit "$rc"
