#!/usr/bin/env bash
# Sanitizer passes for CI: the suite under ASan+UBSan (node and hybrid paths, 1 to 4 ranks), and
# the tests that exercise the lock-free and multi-thread paths (notifications, queues, passive
# messages and their senders' turns, atomics and their GASPI_TEST retries, collectives, term waking blocked
# threads, the mixed stress test) under TSan. Every pass runs even when an earlier one fails; the script reports the time of
# each (build included) and of the whole, and fails if any pass failed.
# Usage: scripts/sanitize.sh [asan|tsan ...]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
# mr_rma up to 4 MiB instead of 64 (tests/mr/mr_rma.cpp): the same paths, a tenth of the time.
export MR_RMA_MAX_MIB=4
# The repeated init+term runs (tests/lifecycle/repeat.sh) 10 times instead of 50.
export REPEAT_COUNT=10

script_start=$(date +%s)
failed=()
report=()
# pass NAME COMMAND...: runs COMMAND, records its time and whether it failed.
pass() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  "$@" || rc=$?
  report+=("$name: $(($(date +%s) - start)) s$( ((rc == 0)) || echo " (FAILED, rc $rc)")")
  echo "sanitize: ${report[-1]}"
  ((rc == 0)) || failed+=("$name")
}

# The sanitizer builds use -g1, as the sanitizers' own documentation suggests: line tables are all
# a report's stack needs. The TSan build is at -O1, whose tests are the slow part of that pass. The
# ASan+UBSan build is at -Og: GCC's UBSan checks make -O1 compile slowly (a batch of the library took
# 21 s at -O1, 13 at -Og and 8 at -O0), and at -Og the build took 150 s instead of 211 while the
# tests took 88 s instead of 75 (at -O0: 127 s and 103 s).
flags=(-DHYGASPI_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
       "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
asan_flags=(-DHYGASPI_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-Og -g1 -DNDEBUG"
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-Og -g1 -DNDEBUG")
asan() {
  pass "asan build" env BUILD_DIR=build-asan scripts/build.sh -DHYGASPI_SANITIZE=address,undefined "${asan_flags[@]}"
  # Under mpirun, Open MPI's plugins leave allocations whose stacks LeakSanitizer cannot name (the
  # plugins are unloaded at exit), so the MPI runs check memory errors but not leaks; the shm runs
  # check both, over the same bridge and core code.
  # Two tests at a time: every multi-rank test oversubscribes the 2 cores anyway, and the CI budget
  # (.ci/run under 25 min) does not allow the serial run (about 12 min for mpi+hybrid alone).
  # Not the build checks (the consumer project, the lint tests), which run no library code, nor the
  # jobs of 4 to 32 ranks: the same code as at 2 ranks with more peers, which the plain and
  # contention passes run (195 of this pass's 403 test-seconds; the hybrid runs below are at 4).
  # Nor the compile-only tests (ranks_mix: code that must not compile) and the scenes that end a
  # job on purpose (exits, gn_exit, gn_crash, gn_rules: a fatal message, then the process is gone),
  # which the plain and contention passes run (83 of this pass's test-seconds).
  pass "asan shm+unit (leak checks)" \
    sh -c 'cd build-asan && ctest -j2 --no-tests=error --output-on-failure --timeout 600 -LE "mpi|hybrid|multihost" \
      -E "^consumer$|^lint\.|\.n(4|8|16|32)$|^unit\.ranks_mix|exits\.|gn_exit\.|gn_crash\.|gn_rules\."'
  # The hybrid path at 4 ranks (2 nodes of 2): every MPI transport path (AMs, windows, leader
  # collectives, remote atomics, the passive mailbox) runs between its two nodes, beside the node
  # paths. The pure MPI path (every rank alone on its node) adds the alone-on-a-node branches,
  # which the plain and contention passes run; under ASan it cost 144 of this pass's 450
  # test-seconds.
  # The programs that drive each MPI transport path once (RMA, notifications, queues, passive
  # mailbox, remote atomics, leader collectives, windows, threads; GASNet AMs, the extended API,
  # barriers, locks; GASNet-EX collectives, atomics, early AMs, NPAM, memory kinds; GASPI device
  # segments, and their transfers with another node's device memory left in flight; windows of
  # single segments; AMs between created endpoints): 25 of the 108 hybrid jobs;
  # the others repeat these paths with other programs.
  pass "asan hybrid (n4)" \
    sh -c 'cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest -j2 --no-tests=error --output-on-failure --timeout 600 -L "hybrid" \
      -R "^hybrid\.(mr_(rma|notify|queue|passive|atomics|collectives|segments|segment_windows|stress|threads|device)|gn_(am|extended|barrier|hsl)|gex_(ad|coll|early|npam|mk|ep_am)|mk_halo|dht|mr_device\.async|gex_mk\.async)\.n4$"'
}

# The TSan list: the tests whose ranks run several threads through the library (TSan sees the
# threads of one process; the peers' accesses to shared memory are other processes). All of it
# takes about a minute here.
#   mr_notify, mr_queue, mr_collectives: waits and posts from several threads;
#   mr_passive: several sending threads per rank taking turns on one ring (bridge/am_channel.cpp);
#   mr_atomics: threads hammering one word, and each thread's GASPI_TEST retry (exactly once);
#   mr_threads: GASPI_Threads.h; mr_stress: 2 threads per rank mixing every call;
#   mr_term_wakes: gaspi_proc_term while two threads are blocked in GASPI_BLOCK waits;
#   mpi.*, hybrid.*, mpi-progress.*: the same over the MPI control channel and its progress
#     thread. Every MPI call of the library goes through one (instrumented) lock, so Open MPI's
#     uninstrumented code gives TSan nothing to misread; tests/sanitizers/tsan.supp names the one
#     report from inside Open MPI;
#   failure.dead_wait.*, failure.dead_peer.*: waits, passive sends (a sender killed between
#     reserving its frame and publishing it) and the liveness watch while peers die. Only the survivors report: a
#     killed rank has nothing to say, and the launcher's exit code is what the scripts check.
#   mr_death_news (witness, killer, unseen): death notices across nodes, and the ring of TCP
#     connections (mpi_rma/ring_watch.hpp) looked at from waits and the progress thread at once.
#   shm.gn_am, gn_mixed, gn_hsl, gn_par, gn_loopback_par: the GASNet front end's rings, handlers
#     (loopback ones inside the request call), handler-safe locks and threads; gn_am also over MPI
#     (mpi at 2 and 4 ranks, hybrid at 4), where Open MPI's vader takes two locks of its own in
#     both orders (tests/sanitizers/tsan.supp says why that report is not ours); gn_par also over
#     MPI at 2 ranks: threads that poll and reply at once hand the preposted receives back
#     through one atomic word (mpi_rma/eager.hpp).
#   shm.gex_coll, mpi.gex_coll, shm.gn_barrier: collective operations recycled through each
#     thread's spares, their completion read without the collectives' lock, and the barrier's
#     one-thread-inside flag.
#   shm.mr_device.threads, mpi.mr_device.threads: threads transferring with device memory at once,
#     across nodes through the one queue of staged transfers that any thread (or the progress
#     thread) moves on.
# Not here: mr_rma (bulk copies, no threads; 80 s per run under TSan), the lifecycle tests (one
# thread per rank), mpi-progress.mr_passive (mpi-progress.mr_atomics covers the progress thread).
# mr_passive's check that a blocked receive uses under 100 ms of CPU in 500 ms is off under TSan,
# whose slowdown it would measure (107-122 ms under TSan, 26-88 ms without).
tsan_tests='^(shm\.mr_(notify|queue|passive|atomics|collectives|stress|threads|term_wakes|term_race)\.n(2|4)'
tsan_tests+='|mpi\.mr_(notify|passive|atomics|stress|term_wakes)\.n2|hybrid\.mr_(passive|atomics|stress)\.n4'
tsan_tests+='|mpi-progress\.mr_atomics\.n4|failure\.dead_(wait|peer)\..*|shm\.gn_(am|mixed|hsl|par|loopback_par)\.n(2|4)'
tsan_tests+='|mpi\.gn_am\.n(2|4)|hybrid\.gn_am\.n4|mpi\.gn_par\.n2|shm\.gex_ep_am\.n4|mpi\.mr_segment_windows\.n2'
tsan_tests+='|shm\.gex_coll\.n4|mpi\.gex_coll\.n2|shm\.gn_barrier\.n4|shm\.mr_device\.threads\.n2|mpi\.mr_device\.threads\.n2'
tsan_tests+='|hybrid\.mr_death_news\.witness\.n4|mpi\.mr_death_news\.killer\.n4|mpi\.mr_death_news\.unseen\.n4)$'
tsan_targets='hygaspi-run mr_notify mr_queue mr_passive mr_atomics mr_collectives mr_stress mr_threads mr_term_wakes mr_term_race'
tsan_targets+=' dead_wait mr_dead_peer gn_am gn_mixed gn_hsl gn_par gn_loopback_par gex_ep_am mr_segment_windows'
tsan_targets+=' gex_coll gn_barrier mr_device fake_cuda mr_death_news'
tsan() {
  # Only the programs of the TSan list (and the launcher): a third of the whole build's time.
  pass "tsan build" env BUILD_DIR=build-tsan BUILD_TARGETS="$tsan_targets" scripts/build.sh -DHYGASPI_SANITIZE=thread \
    "${flags[@]}"
  # HYGASPI_STRESS_SECONDS and GN_PAR_ROUNDS: a short budget keeps TSan's slowdown on mr_stress and
  # gn_par in bounds (gn_par's 40 rounds took 80 of the pass's test-seconds, 10 take 20). Two tests
  # at a time, as in the other passes: serially the list took 142 of CI's 1,500 seconds.
  pass "tsan tests" sh -c "cd build-tsan && TSAN_OPTIONS='halt_on_error=1 suppressions=$PWD/tests/sanitizers/tsan.supp' \
    HYGASPI_STRESS_SECONDS=2 GN_PAR_ROUNDS=10 \
    ctest -j2 --no-tests=error --output-on-failure --timeout 600 -R '$tsan_tests'"
}

passes=("$@")
((${#passes[@]})) || passes=(asan tsan)
for p in "${passes[@]}"; do
  case $p in
  asan | tsan) "$p" ;;
  *) echo "sanitize: unknown pass '$p' (asan, tsan)" >&2; exit 2 ;;
  esac
done
echo "sanitize: times"
printf '  %s\n' "${report[@]}"
echo "sanitize: total $(($(date +%s) - script_start)) s"
if ((${#failed[@]})); then
  echo "sanitize: FAILED: ${failed[*]}" >&2
  exit 1
fi
