#!/usr/bin/env bash
# Builds the library with every source file compiled on its own: the other builds compile it in
# unity batches (HYGASPI_UNITY_BUILD, for speed), where a file that forgot an include still
# compiles if a neighbour in its batch has it. About a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-nounity} BUILD_TARGETS=hygaspi scripts/build.sh -DHYGASPI_UNITY_BUILD=OFF \
  -DHYGASPI_BUILD_BENCH=OFF
