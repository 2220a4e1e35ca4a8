#!/usr/bin/env bash
# Sanitizer passes for CI: the whole suite under ASan+UBSan, and the tests that exercise the
# lock-free paths (notifications, queues, passive ring, atomics, collectives, the mixed stress
# test) under TSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
BUILD_DIR=build-asan scripts/build.sh -DHYGASPI_SANITIZE=address,undefined -DHYGASPI_BUILD_BENCH=OFF
# Under mpirun, Open MPI's plugins leave allocations whose stacks LeakSanitizer cannot name (the
# plugins are unloaded at exit), so the MPI runs check memory errors but not leaks; the shm runs
# check both, over the same bridge and core code.
(cd build-asan && ctest --output-on-failure --timeout 600 -LE "mpi|hybrid|multihost")
(cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure --timeout 600 -L "mpi|hybrid")
BUILD_DIR=build-tsan scripts/build.sh -DHYGASPI_SANITIZE=thread -DHYGASPI_BUILD_BENCH=OFF
# mr_stress: 2 threads per rank mixing every call; a short budget keeps TSan's slowdown in bounds.
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 HYGASPI_STRESS_SECONDS=2 ctest --output-on-failure --timeout 600 \
  -R "^shm\.mr_(notify|queue|passive|atomics|collectives|stress|threads)\.n(2|4)")
