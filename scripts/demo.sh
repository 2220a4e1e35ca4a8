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
# The memory-kinds demos: a halo exchange in GPU memory, through GASNet-EX and through GASPI
# device segments. On a machine whose CUDA driver serves a device they run there; elsewhere on the
# project's fake driver (tests/fake_cuda), and say so.
if build/tools/hygaspi-info 2>/dev/null | grep -qE "^  CUDA_UVA: +[1-9][0-9]* devices? through"; then
  echo "mk_halo, mk_halo_gaspi: on the GPU"
else
  echo "mk_halo, mk_halo_gaspi: no CUDA device here, so on the fake CUDA driver (device memory emulated in host memory)"
  export HYGASPI_CUDA_LIBRARY=build/tests/fake_cuda/libcuda.so.1
fi
build/tools/hygaspi-run --timeout 120 -n 4 -- build/examples/mk_halo
build/tools/hygaspi-run --timeout 120 -n 4 -- build/examples/mk_halo_gaspi
