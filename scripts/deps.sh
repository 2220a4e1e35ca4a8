#!/usr/bin/env bash
# Installs the Debian 12 packages HyGASPI needs, only those that are missing.
set -euo pipefail
packages=(g++ gfortran cmake ninja-build pkg-config libboost-dev libhwloc-dev hwloc doctest-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin valgrind clang libclang-rt-14-dev)
packages+=(python3-matplotlib)  # scripts/plot_bench.py
packages+=(iproute2 util-linux)  # scripts/multihost.sh: ip netns, unshare
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
