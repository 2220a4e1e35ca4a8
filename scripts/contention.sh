#!/usr/bin/env bash
# CI contention pass: the multi-rank suite (ctest labels shm, mpi, hybrid) once more with
# every rank of every job pinned to one CPU, so that timing windows (a rank preempted between two
# steps of a protocol) turn into failures instead of passing by luck.
#
# taskset sets the mask of ctest, and every launcher and rank inherits it. hygaspi-run binds
# nothing. mpirun binds rank k to core k when the ranks fit the cores (np 2 on this 2-CPU
# machine), which would take that rank out of the mask: hwloc_base_binding_policy=none is
# mpirun's --bind-to none. The pass first checks the mask of the ranks under both launchers.
#
# The suite is dealt out over the CPUs (CONTENTION_CPUS): one ctest per CPU, pinned to it, takes
# every k-th test. Each job still has one CPU for all its ranks, and the pass takes half the time
# on a 2-CPU machine (333 s serially on one CPU, measured on the CI kind of machine).
#
# Usage: scripts/contention.sh [extra ctest arguments, e.g. -R mr_rma]
# Environment: BUILD_DIR (default build, built by scripts/build.sh), CONTENTION_CPUS (default:
#              every CPU this process may use, at most 4), CONTENTION_LABELS (default
#              '^(shm|mpi|hybrid)$'), CONTENTION_EXCLUDE (a ctest -E regex; default: the tests
#              that pin their jobs to CPU 0 themselves, which the plain pass has run just so, and
#              the jobs of 8 to 32 ranks: the plain pass already runs those 4 to 16 ranks to a CPU,
#              so their ranks are preempted between any two steps there; 24% of this pass's time;
#              and the pure MPI path's 4-rank jobs: its 2-rank jobs stay, and the hybrid path's
#              4-rank jobs cross MPI between their two nodes; 18% of the pass); and the hybrid
#              mr_term_race, whose 4 ranks of 4 threads that all call MPI take minutes on one CPU.
# mr_rma copies up to 4 MiB here instead of 64 (tests/mr/mr_rma.cpp): the same protocol steps.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
read -r -a cpus <<<"${CONTENTION_CPUS:-$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
  awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); ++c) print c }' | head -4 | tr '\n' ' ')}"
labels=${CONTENTION_LABELS:-'^(shm|mpi|hybrid)$'}
export OMPI_MCA_hwloc_base_binding_policy=none

# Every rank of a 2-rank job, under each launcher, must see exactly the one CPU.
mpirun_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1)
show_mask='sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
for cpu in "${cpus[@]}"; do
  masks=$(taskset -c "$cpu" "$build"/tools/hygaspi-run -n 2 -- sh -c "$show_mask"
          env "${mpirun_env[@]}" taskset -c "$cpu" mpirun -np 2 sh -c "$show_mask")
  if [ "$(sort -u <<<"$masks")" != "$cpu" ] || [ "$(wc -l <<<"$masks")" -ne 4 ]; then
    echo "contention: ranks are not pinned to CPU $cpu; their masks:"
    echo "$masks"
    exit 1
  fi
done
echo "contention: every rank runs on its one CPU (hygaspi-run and mpirun checked on CPUs ${cpus[*]})"

cd "$build"
start=$(date +%s)
exclude=(-E "${CONTENTION_EXCLUDE-lifecycle\.init_term|\.pinned\.|\.n(8|16|32)\$|^mpi\..*\.n4\$|^hybrid\.mr_term_race}")
export MR_RMA_MAX_MIB=${MR_RMA_MAX_MIB:-4}
[ -n "${exclude[1]}" ] || exclude=()
pids=()
for k in "${!cpus[@]}"; do
  cpu=${cpus[$k]}
  # -I start,end,stride: this CPU's share of the test numbers; each ctest keeps its own log.
  taskset -c "$cpu" ctest -L "$labels" "${exclude[@]}" -I "$((k + 1)),,${#cpus[@]}" --output-on-failure \
    --timeout 600 --output-log "Testing/contention-cpu$cpu.log" "$@" 2>&1 | sed -u "s/^/[cpu $cpu] /" &
  pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do
  wait "$pid" || rc=1
done
echo "contention: ctest -L '$labels' dealt over CPUs ${cpus[*]} took $(($(date +%s) - start)) s"
exit "$rc"
