#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz (at -O1 -g1, as libFuzzer's and
# the sanitizers' documentation suggest) and runs each for a fixed
# budget, FUZZ_SECONDS (default 20) per target, on a scratch copy of its seed corpus. Any crash,
# sanitizer report, broken invariant, leak or hang (an input running past 10 s) fails the script;
# libFuzzer leaves the input as build-fuzz/fuzz-run/<target>/crash-* (or leak-, timeout-), and
# `build-fuzz/fuzz/<target> <that file>` replays it.
# Usage: scripts/fuzz.sh [target...]   (default: every fuzz_* target)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
BUILD_DIR=build-fuzz
root=$PWD
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHYGASPI_FUZZ=ON -DHYGASPI_BUILD_TESTS=OFF -DHYGASPI_BUILD_BENCH=OFF \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  ${HYGASPI_WERROR:+-DHYGASPI_WERROR=$HYGASPI_WERROR} >/dev/null
cmake --build "$BUILD_DIR" --target fuzzers
targets=("$@")
if ((${#targets[@]} == 0)); then
  for dir in tests/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
failed=()
for t in "${targets[@]}"; do
  work="$BUILD_DIR/fuzz-run/$t"
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp tests/fuzz/corpus/"$t"/* "$work/corpus/"
  echo "fuzz: $t for ${FUZZ_SECONDS:-20} s"
  if ! (cd "$work" && "$root/$BUILD_DIR/fuzz/$t" -max_total_time="${FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
          -max_len=4096 -print_final_stats=1 corpus >log 2>&1); then
    tail -n 40 "$work/log"
    failed+=("$t")
  else
    grep -E "^(stat::number_of_executed_units|stat::new_units_added)" "$work/log" | sed "s/^/  /"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (inputs under $BUILD_DIR/fuzz-run/<target>/)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${FUZZ_SECONDS:-20} s without a failure"
