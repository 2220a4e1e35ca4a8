#!/usr/bin/env bash
# Builds the benchmarks and runs them all in one go, then prints every ratio table and a combined
# HyGASPI-vs-Open-MPI summary for the collectives:
#   bench_shm      2 ranks   write_notify latency, gaspi_write bandwidth    vs raw shm / memcpy
#   bench_atomics  2 ranks   global atomics, alone and contended            vs std::atomic on shm
#   bench_passive  2 ranks   passive message round trip                     vs a raw shm slot exchange
#   bench_collectives / mpi_collectives at N = ${BENCH_RANKS:-2 4 8}: barrier, allreduce 8 B, 64 KiB
#   bench_mpi      under mpirun, every rank a node of its own (HYGASPI_NODE_SIZE=1): write, write_notify,
#                  fetch_add at 2 ranks; barrier, allreduce 8 B at 2 and 4 ranks (and 4 ranks as 2
#                  nodes of 2)                                  vs raw MPI RMA / collectives
#   bench_gasnet   GASNet-1: AM round trips, put/get, bulk, barrier at 2 ranks on a node and as 2 nodes
#                  (MPI path)                                   vs raw shm / MPI ping-pong, memcpy / MPI_Put
#   bench_mk       memory kinds, 2 ranks: device <-> device and host <-> device RMA through TM-pairs, and
#                  a staged put across nodes (MPI path)         vs raw CUDA driver calls (+ MPI_Put)
#   bench_gaspi_device  the same through GASPI device segments (gaspi_write/read + gaspi_wait)
#   bench_mpi      across two network-namespace hosts (scripts/multihost.sh --bench; root only): the
#                  same figures at 2 ranks, 1 per host, over TCP on a veth pair; barrier, allreduce at
#                  4 ranks as 2 hosts of 2                      vs raw MPI RMA / collectives
# Environment: BUILD_DIR (default build-bench), BUILD_TYPE (default Release), BENCH_RANKS,
# BENCH_SCALE (multiplies the collectives' fixed counts; default 1), BENCH_PIN (default 1).
# About 1 minute on 2 vCPUs once built. Logs of every run stay in $BUILD_DIR/bench-logs.
#
# Placement: mpirun binds each rank to a core when N <= cores and to the whole socket beyond;
# hygaspi-run binds nothing. Unbound spinning ranks that the scheduler puts on one core (likely
# on a busy 2-vCPU VM) turn 0.1 us barriers into 100 us ones, so with BENCH_PIN=1 every HyGASPI
# job of N <= cores ranks pins rank r to core r, as mpirun does, and the two columns compare
# like with like. Oversubscribed runs are also repeated with HYGASPI_SPIN=0, beside the default.
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR=${BUILD_DIR:-build-bench}
export BUILD_TYPE=${BUILD_TYPE:-Release}
ranks=${BENCH_RANKS:-2 4 8}
scale=${BENCH_SCALE:-1}

scripts/build.sh -DHYGASPI_BUILD_BENCH=ON -DHYGASPI_BUILD_TESTS=OFF >/dev/null
bin=$BUILD_DIR/bench
run=$BUILD_DIR/tools/hygaspi-run
logs=$BUILD_DIR/bench-logs
rm -rf "$logs"
mkdir -p "$logs"

mpirun_args=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)  # Open MPI refuses root without it
have_mpi=1
if ! command -v mpirun >/dev/null || [ ! -x "$bin/mpi_collectives" ]; then
  have_mpi=0
  echo "bench.sh: no mpirun or mpi_collectives; the Open MPI column stays empty" >&2
fi

cores=$(nproc)
failed=0
# gaspi N PROG ARGS...: a HyGASPI job of N ranks, pinned as mpirun would pin it.
gaspi() {
  local n=$1
  shift
  if [ "${BENCH_PIN:-1}" = 1 ] && [ "$n" -le "$cores" ]; then
    "$run" -n "$n" --timeout 120 -- sh -c 'exec taskset -c "$HYGASPI_RANK" "$0" "$@"' "$@"
  else
    "$run" -n "$n" --timeout 120 -- "$@"
  fi
}
# step LOG CMD...: runs CMD with its output shown and kept in $logs/LOG; a failure is counted,
# not fatal, so one broken benchmark still leaves the others' figures.
step() {
  local log=$logs/$1
  shift
  echo "==> $*"
  if ! "$@" 2>&1 | tee "$log"; then
    echo "bench.sh: FAILED: $*" >&2
    failed=1
  fi
  if grep -q '^ERROR' "$log"; then
    failed=1
  fi
}

step shm.log gaspi 2 "$bin/bench_shm" --benchmark_color=false
step atomics.log gaspi 2 "$bin/bench_atomics"
step passive.log gaspi 2 "$bin/bench_passive" --benchmark_color=false
for n in $ranks; do
  step "gaspi-$n.log" gaspi "$n" "$bin/bench_collectives" "$scale"
  if [ "$n" -gt "$cores" ]; then
    step "nospin-$n.log" env HYGASPI_SPIN=0 "$run" -n "$n" --timeout 120 -- "$bin/bench_collectives" "$scale"
  fi
  if [ $have_mpi = 1 ]; then
    step "mpi-$n.log" env OMPI_MCA_pml=ob1 timeout 120 mpirun "${mpirun_args[@]}" -np "$n" \
      "$bin/mpi_collectives" "$scale"
  fi
done

# The MPI transport: ranks on one host that are nodes of their own talk over MPI (bench_mpi.cpp).
internode_logs=()
if [ $have_mpi = 1 ] && [ -x "$bin/bench_mpi" ]; then
  # internode NAME NODE_SIZE N WHAT: bench_mpi under mpirun, N ranks, nodes of NODE_SIZE ranks.
  internode() {
    internode_logs+=("$1")
    step "$1.log" env OMPI_MCA_pml=ob1 HYGASPI_NODE_SIZE="$2" timeout 300 mpirun "${mpirun_args[@]}" \
      -x OMPI_MCA_pml -x HYGASPI_NODE_SIZE -np "$3" "$bin/bench_mpi" "$4" "$scale"
  }
  internode internode-2 1 2 all
  internode internode-4 1 4 coll
  internode internode-4x2 2 4 coll
fi
# The GASNet-1 front end (bench_gasnet.cpp): 2 ranks on one node, then as 2 nodes (MPI path).
if [ $have_mpi = 1 ] && [ -x "$bin/bench_gasnet" ]; then
  step gasnet-node.log env OMPI_MCA_pml=ob1 timeout 300 mpirun "${mpirun_args[@]}" -x OMPI_MCA_pml -np 2 \
    "$bin/bench_gasnet"
  step gasnet-mpi.log env OMPI_MCA_pml=ob1 HYGASPI_NODE_SIZE=1 timeout 300 mpirun "${mpirun_args[@]}" \
    -x OMPI_MCA_pml -x HYGASPI_NODE_SIZE -np 2 "$bin/bench_gasnet"
fi
# Memory kinds (bench_mk.cpp): device RMA beside the raw CUDA driver calls, 2 ranks of a node; on
# the GPU when hygaspi-info finds one, else on the fake driver of a test build (its figures are our
# overhead per operation beside the fake's own copy), else skipped.
mk_env=
if "$BUILD_DIR/tools/hygaspi-info" 2>/dev/null | grep -qE "^  CUDA_UVA: +[1-9][0-9]* devices? through"; then
  mk_env="HYGASPI_CUDA_LIBRARY=libcuda.so.1"
elif [ -f build/tests/fake_cuda/libcuda.so.1 ]; then
  mk_env="HYGASPI_CUDA_LIBRARY=$PWD/build/tests/fake_cuda/libcuda.so.1"
fi
if [ -n "$mk_env" ] && [ -x "$bin/bench_mk" ]; then
  # bench_mk through GASNet-EX, bench_gaspi_device through GASPI device segments.
  for b in mk gaspi_device; do
    step $b.log env "$mk_env" "$run" -n 2 --timeout 300 -- "$bin/bench_$b"
    if [ $have_mpi = 1 ]; then
      step $b-staged.log env "$mk_env" OMPI_MCA_pml=ob1 HYGASPI_NODE_SIZE=1 timeout 300 mpirun "${mpirun_args[@]}" \
        -x OMPI_MCA_pml -x HYGASPI_NODE_SIZE -x HYGASPI_CUDA_LIBRARY -np 2 "$bin/bench_$b" staged
    fi
  done
else
  echo "bench.sh: memory-kinds bench skipped: no CUDA device and no fake driver (build the tests: scripts/build.sh)"
fi
# The same across two "hosts" (network namespaces, scripts/multihost.sh): needs root and ip netns.
multihost_log=
if [ $have_mpi = 0 ] || [ ! -x "$bin/bench_mpi" ]; then
  echo "bench.sh: multihost bench skipped: no mpirun or bench_mpi"
elif [ "$(id -u)" != 0 ]; then
  echo "bench.sh: multihost bench skipped: not root (network namespaces need CAP_SYS_ADMIN)"
else
  multihost_log=multihost
  step multihost.log env HYG_MH_BENCH_SCALE="$scale" scripts/multihost.sh "$BUILD_DIR" --bench  # prints why if skipped
fi

echo
echo "================================ summary ================================"
for log in shm atomics "${internode_logs[@]}"; do
  sed -n '/^bench_mpi:/p; /^figure/,$p' "$logs/$log.log"
  echo
done
if [ -n "$multihost_log" ]; then
  echo "across two namespace hosts (scripts/multihost.sh --bench):"
  sed -n '/^multihost: skipped/p; /^==> bench_mpi/,/^(bench_mpi/p; /^FAIL/p' "$logs/$multihost_log.log"
  echo
fi
# Rows look like "    4 | barrier          |   2000 |    263.803"; join them on (N, op).
cat "$logs"/gaspi-*.log >"$logs/gaspi-rows" 2>/dev/null || true
cat "$logs"/mpi-*.log >"$logs/mpi-rows" 2>/dev/null || true
awk -F'|' '
  function trim(s) { gsub(/^ +| +$/, "", s); return s }
  $1 ~ /^ *[0-9]+ *$/ && NF == 4 {
    key = trim($1) SUBSEP trim($2)
    if (FILENAME ~ /mpi-rows$/) mpi[key] = trim($4); else { gaspi[key] = trim($4); order[++n] = key }
  }
  END {
    printf "%3s | %-16s | %12s | %12s | %s\n", "N", "op", "HyGASPI µs", "Open MPI µs", "ratio (HyGASPI / Open MPI)"
    for (i = 1; i <= n; ++i) {
      split(order[i], k, SUBSEP)
      m = (order[i] in mpi) ? mpi[order[i]] : ""
      r = (m != "" && m > 0) ? sprintf("%.2f", gaspi[order[i]] / m) : "-"
      printf "%3s | %-16s | %12.3f | %12s | %s\n", k[1], k[2], gaspi[order[i]], (m == "" ? "-" : sprintf("%.3f", m)), r
    }
  }' "$logs/gaspi-rows" "$logs/mpi-rows"
echo "(collectives: slowest rank's time / fixed count; N > $cores cores is oversubscribed;"
echo " HyGASPI pinned rank r -> core r when N <= $cores: BENCH_PIN=${BENCH_PIN:-1})"
if ls "$logs"/nospin-*.log >/dev/null 2>&1; then
  echo
  echo "oversubscribed HyGASPI with HYGASPI_SPIN=0 (wait by sched_yield at once):"
  grep -h '^ *[0-9]* |' "$logs"/nospin-*.log
fi
# Every figure beside its floor as CSV (path,figure,ours,floor,unit,floor_name), for
# scripts/plot_bench.py (which draws docs/bench.png from these logs) and other tools.
python3 scripts/plot_bench.py --logs "$logs" --png "" --csv "$logs/summary.csv" || true
exit $failed
