#!/usr/bin/env bash
# Configures and builds into ${BUILD_DIR:-build}. Extra arguments go to cmake; BUILD_TARGETS (a
# space-separated list) builds only those targets and what they need; HYGASPI_WERROR=ON (set by
# .ci/run) makes every warning an error.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} \
  ${HYGASPI_WERROR:+-DHYGASPI_WERROR=$HYGASPI_WERROR} "$@" >/dev/null
# shellcheck disable=SC2086 # a list of target names
ninja -C "$build" ${BUILD_TARGETS:-}
