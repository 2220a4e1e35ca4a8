#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (unit, launcher, and every
# multi-rank test with 1, 2 and 4 ranks under hygaspi-run with a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 600 "$@"
