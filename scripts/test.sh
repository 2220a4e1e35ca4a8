#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (unit, launcher, and every
# multi-rank test with 1, 2 and 4 ranks under hygaspi-run with a timeout).
# TEST_JOBS tests at a time (default: one per CPU). Every multi-rank test oversubscribes the CPUs
# anyway and must pass with a neighbour (the contention pass pins whole jobs to one CPU); serially
# the suite took 280 s of the 20-minute CI budget on a 2-CPU machine. The few tests that measure
# their own timing relative to an idle CPU are RUN_SERIAL.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 600 -j"${TEST_JOBS:-$(nproc)}" "$@"
