#!/usr/bin/env bash
# The main job: install what is missing, build, and run the heat-equation demo on 4 ranks with the
# embedded single-node launcher. The demo checks its own result against a serial run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
build/tools/hygaspi-run --timeout 120 -n 4 -- build/examples/heat1d
# The GASNet-1 demo: a distributed hash table on active messages, on the same launcher.
build/tools/hygaspi-run --timeout 120 -n 4 -- build/examples/dht | tail -n 1
# The GASNet-EX demo: the heat equation with halos as active messages, checked against a serial run.
build/tools/hygaspi-run --timeout 120 -n 4 -- build/examples/ex_heat
