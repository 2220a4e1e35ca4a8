#!/usr/bin/env bash
# Runs the multi-rank tests on two "hosts" on this machine: two network namespaces joined by a veth
# pair (10.199.0.1/24 and 10.199.0.2/24, addresses that exist inside those namespaces only), each
# with its own hostname. mpirun starts in the first namespace and reaches the second through
# scripts/netns-rsh, so 4 ranks run as 2 nodes of 2: shared memory inside a node, TCP (Open MPI
# ob1/tcp, one-sided through osc/pt2pt) between the nodes. Nothing leaves the machine: the only
# interfaces inside the namespaces are lo and the veth ends, and there is no route elsewhere.
#
# Usage: scripts/multihost.sh BUILD_DIR [TEST ...]
#        scripts/multihost.sh BUILD_DIR --bench
#   TEST: a program name under BUILD_DIR/tests (default: every mr_* program there except mr_rma,
#   whose 1 B..64 MiB sweep between every pair takes minutes over veth + osc/pt2pt; name it to run it).
#   --bench: instead of the tests, the MPI-path benchmark across the two hosts, each figure beside raw
#   MPI: BUILD_DIR/bench/bench_mpi all with 2 ranks, one per host (p2p, atomics,
#   collectives), then bench_mpi coll with 4 ranks as 2 nodes of 2; prints both tables. Real nodes
#   (HYGASPI_NODE_SIZE unset), so every rank-0 -> peer figure crosses the veth over TCP.
# Knobs: HYG_MH_TIMEOUT (seconds per test, default 120), HYG_MH_BUDGET (seconds for all tests,
# default 540, under ctest's 600: a test that would start past it is reported as not run, so the
# script always gets to tear down), HYG_MH_MPIRUN_ARGS (extra mpirun arguments), HYG_MH_VERBOSE=1
# (print every test's output, not only a failing one's). With --bench: HYG_MH_BENCH_TIMEOUT (seconds
# per bench_mpi run, default 300), HYG_MH_BENCH_SCALE (bench_mpi's scale, default 1).
# Needs root (ip netns); without it, or where namespaces cannot be made, prints
# "multihost: skipped: <reason>" and exits 0.
set -uo pipefail

skip() { echo "multihost: skipped: $*"; exit 0; }

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [TEST ... | --bench]" >&2
  exit 2
fi
build=$(cd "$1" 2>/dev/null && pwd) || { echo "multihost: no build directory '$1'" >&2; exit 2; }
shift
bench=0
if [ "${1:-}" = --bench ]; then
  [ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR --bench (no test names with it)" >&2; exit 2; }
  bench=1
  shift
  [ -x "$build/bench/bench_mpi" ] ||
    { echo "multihost: no $build/bench/bench_mpi (configure with HYGASPI_BUILD_BENCH=ON and MPI)" >&2; exit 2; }
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
agent=$here/netns-rsh

[ "$(id -u)" -eq 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip >/dev/null || skip "no 'ip' command (iproute2)"
command -v unshare >/dev/null || skip "no 'unshare' command (util-linux)"
mpirun=$(command -v mpirun) || skip "no mpirun"

tests=("$@")
if [ $bench -eq 0 ] && [ ${#tests[@]} -eq 0 ]; then
  for f in "$build"/tests/mr_*; do
    # mr_rma is slow over veth; mr_dead_peer and mr_dead_collective need hygaspi-run --keep-going
    # (Open MPI aborts the job) and arguments; mr_left_then_killed needs a mode, mpirun
    # --enable-recovery and a node layout of its own (tests/CMakeLists.txt).
    case $(basename "$f") in mr_rma | mr_dead_peer | mr_dead_collective | mr_left_then_killed) continue ;; esac
    [ -f "$f" ] && [ -x "$f" ] && tests+=("$(basename "$f")")
  done
fi
[ $bench -eq 1 ] || [ ${#tests[@]} -gt 0 ] || { echo "multihost: no test programs in $build/tests" >&2; exit 1; }

export HYG_NS_A=hyg-$$-a HYG_NS_B=hyg-$$-b
export HYG_HOST_A=hyg-$$-host-a HYG_HOST_B=hyg-$$-host-b
veth_a=hygv$$a veth_b=hygv$$b   # at most 15 characters
work=$(mktemp -d)

torn_down=0 child=
teardown() {
  [ "$torn_down" -eq 1 ] && return
  torn_down=1
  local ns pid
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null   # the running test's timeout process
  for ns in "$HYG_NS_A" "$HYG_NS_B"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null   # removes the veth pair with it
  done
  ip link del "$veth_a" 2>/dev/null  # only if setup stopped before moving it into a namespace
  rm -rf "$work"
}
trap teardown EXIT
trap 'teardown; exit 130' INT
trap 'teardown; exit 143' TERM

err=$(ip netns add "$HYG_NS_A" 2>&1) || { rm -rf "$work"; trap - EXIT; skip "ip netns add failed: $err"; }
if ! err=$(ip netns add "$HYG_NS_B" 2>&1); then
  teardown; trap - EXIT; skip "ip netns add failed: $err"
fi
setup() {
  ip link add "$veth_a" type veth peer name "$veth_b" &&
  ip link set "$veth_a" netns "$HYG_NS_A" && ip link set "$veth_b" netns "$HYG_NS_B" &&
  ip -n "$HYG_NS_A" link set "$veth_a" name mpi0 && ip -n "$HYG_NS_B" link set "$veth_b" name mpi0 &&
  ip -n "$HYG_NS_A" addr add 10.199.0.1/24 dev mpi0 && ip -n "$HYG_NS_B" addr add 10.199.0.2/24 dev mpi0 &&
  ip -n "$HYG_NS_A" link set lo up && ip -n "$HYG_NS_B" link set lo up &&
  ip -n "$HYG_NS_A" link set mpi0 up && ip -n "$HYG_NS_B" link set mpi0 up
}
if ! err=$(setup 2>&1); then
  teardown; trap - EXIT; skip "veth setup failed: $err"
fi

printf '10.199.0.1 slots=2\n10.199.0.2 slots=2\n' > "$work/hostfile"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
limit=${HYG_MH_TIMEOUT:-120}
budget_end=$(( $(date +%s) + ${HYG_MH_BUDGET:-540} ))
read -r -a extra <<< "${HYG_MH_MPIRUN_ARGS:-}"

# launch LIMIT LOG NP HOSTFILE PROG ARGS...: mpirun from host A with NP ranks placed by HOSTFILE,
# output to LOG, killed after LIMIT seconds; sets rc. Runs in the background and waits, so that
# INT/TERM run the trap at once, not after the job; afterwards kills whatever the job left behind.
launch() {
  local lim=$1 log=$2 np=$3 hosts=$4 ns pid
  shift 4
  timeout -k 10 "$lim" ip netns exec "$HYG_NS_A" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$HYG_HOST_A" \
    "$mpirun" -np "$np" --hostfile "$hosts" --bind-to none \
      --mca plm_rsh_agent "$agent" --mca oob_tcp_if_include mpi0 --mca btl_tcp_if_include mpi0 \
      --mca btl self,vader,tcp --mca pml ob1 "${extra[@]}" "$@" > "$log" 2>&1 &
  child=$!
  wait "$child"
  rc=$?
  child=
  # A killed job can leave a daemon or rank behind in either namespace.
  for ns in "$HYG_NS_A" "$HYG_NS_B"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
}

if [ $bench -eq 1 ]; then
  printf '10.199.0.1 slots=1\n10.199.0.2 slots=1\n' > "$work/hostfile1"
  blimit=${HYG_MH_BENCH_TIMEOUT:-300}
  bscale=${HYG_MH_BENCH_SCALE:-1}
  export OMPI_MCA_pml=ob1   # as --mca pml ob1 says; set here too so that bench_mpi's header shows it
  unset HYGASPI_NODE_SIZE   # real nodes: the two namespace hosts
  echo "multihost: $HYG_HOST_A (10.199.0.1, netns $HYG_NS_A) + $HYG_HOST_B (10.199.0.2, netns $HYG_NS_B): bench_mpi"
  failed=0
  # what NP HOSTFILE LABEL
  for run in "all 2 $work/hostfile1 2 ranks, 1 per host" "coll 4 $work/hostfile 4 ranks, 2 per host"; do
    read -r what np hosts label <<< "$run"
    log=$work/bench-$what-$np.log
    echo
    echo "==> bench_mpi $what $bscale: $label"
    start=$(date +%s%N)
    launch "$blimit" "$log" "$np" "$hosts" "$build/bench/bench_mpi" "$what" "$bscale"
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    cat "$log"
    why=""
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      why="timed out after ${blimit} s"
    elif [ "$rc" -ne 0 ]; then
      why="mpirun exited with $rc"
    elif grep -q '^ERROR' "$log"; then
      why="an ERROR line"
    elif ! grep -q '^figure (median of 5)' "$log"; then
      why="no table"
    fi
    if [ -n "$why" ]; then
      echo "FAIL bench_mpi $what, $np ranks ($((ms / 1000)) s): $why"
      failed=$((failed + 1))
    else
      echo "(bench_mpi $what, $np ranks: $((ms / 1000)) s)"
    fi
  done
  echo "multihost: bench $([ $failed -eq 0 ] && echo done || echo "$failed failed")"
  [ "$failed" -eq 0 ]
  exit
fi

echo "multihost: $HYG_HOST_A (10.199.0.1, netns $HYG_NS_A) + $HYG_HOST_B (10.199.0.2, netns $HYG_NS_B), 2 ranks each"
passed=0 failed=0
for t in "${tests[@]}"; do
  prog=$build/tests/$t
  if [ ! -x "$prog" ]; then
    echo "FAIL $t (no program $prog)"
    failed=$((failed + 1)); continue
  fi
  left=$(( budget_end - $(date +%s) ))
  if [ "$left" -lt 15 ]; then
    echo "FAIL $t: not run (HYG_MH_BUDGET spent)"
    failed=$((failed + 1)); continue
  fi
  this_limit=$(( left - 12 < limit ? left - 12 : limit ))
  log=$work/$t.log
  start=$(date +%s%N)
  # mr_interop and mr_finalize start MPI themselves, so the library cannot choose the one-sided
  # component: pass the setting its error message names (osc/pt2pt works across TCP hosts here).
  osc=()
  case $t in mr_interop | mr_finalize) osc=(-x OMPI_MCA_osc=sm,rdma,pt2pt) ;; esac
  launch "$this_limit" "$log" 4 "$work/hostfile" "${osc[@]}" "$prog"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  secs=$((ms / 1000)).$(( ms % 1000 / 100 ))
  why=""
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    why="timed out after ${this_limit} s"
  elif [ "$rc" -ne 0 ]; then
    why="mpirun exited with $rc"
  elif ! grep -q "^SUCCESS $t\$" "$log"; then
    why="no 'SUCCESS $t' line"
  fi
  if [ -z "$why" ]; then
    echo "PASS $t ($secs s)"
    [ "${HYG_MH_VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$log"
    passed=$((passed + 1))
  else
    echo "FAIL $t ($secs s): $why; last lines:"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "multihost: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
