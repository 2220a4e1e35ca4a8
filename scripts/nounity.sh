#!/usr/bin/env bash
# Builds the library with every source file compiled on its own: the other builds compile it in
# unity batches (HYGASPI_UNITY_BUILD, for speed), where a file that forgot an include still
# compiles if a neighbour in its batch has it. Without the precompiled standard headers too, which
# would hide a missing standard include the same way, and at -O0 without debug information: the
# check is that each source compiles, and code generation took half the time. About 100 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-nounity} BUILD_TARGETS=hygaspi scripts/build.sh -DHYGASPI_UNITY_BUILD=OFF \
  -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DHYGASPI_BUILD_BENCH=OFF \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0 -g0" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g0"
