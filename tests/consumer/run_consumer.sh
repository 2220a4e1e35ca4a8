#!/usr/bin/env bash
# Builds tests/consumer/consumer.c the way a user would, from outside the tree, against HyGASPI
# installed into a temporary prefix, and runs each build on 2 ranks with the installed launcher:
#   install layout (headers, libhygaspi with soname links, libGPI2 links, .pc files, package)
#   cc $(pkg-config --cflags --libs GPI2)      (-lGPI2, as with GPI-2)
#   cc $(pkg-config --cflags --libs hygaspi)   (-lhygaspi)
#   cc ... -lGPI2-dbg                           (GPI-2's checking variant: the same library)
#   cc ... -L BUILD_DIR/src -lGPI2              (the build tree's links, without installing)
#   cmake find_package(HyGASPI) + HyGASPI::gaspi
# Usage: run_consumer.sh BUILD_DIR    Prints "N passed, M failed"; exit 0 only if none failed.
set -uo pipefail
build=$(cd "${1:?usage: run_consumer.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hygaspi-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cc=${CC:-cc}
cflags=(-std=c11 -Wall -Wextra -pedantic -Werror -O2)
passed=0
failed=0

ok() { echo "PASS: $*"; passed=$((passed + 1)); }
ko() { echo "FAIL: $*"; failed=$((failed + 1)); }

# run_app NAME BINARY: 2 ranks under the installed launcher; both ranks must report the data
# from their neighbour and rank 0 must print the SUCCESS line.
run_app() {
  local name=$1 bin=$2 out=$tmp/$1.out
  "$prefix/bin/hygaspi-run" -n 2 --timeout 60 -- "$bin" >"$out" 2>&1
  local rc=$?
  sed "s/^/    /" "$out"
  if [ $rc -ne 0 ]; then
    ko "$name: launcher exited with $rc"
  elif ! grep -q '^SUCCESS consumer$' "$out"; then
    ko "$name: no 'SUCCESS consumer' line"
  elif [ "$(grep -c 'consumer: got 4096 bytes and notification' "$out")" -ne 2 ]; then
    ko "$name: not every rank got its neighbour's data"
  elif ! grep -q '^\[rank 1\] consumer: rank 1 of 2, GPI-2 1.6.0 interface' "$out"; then
    ko "$name: no gaspi_printf line from rank 1"
  else
    ok "$name"
  fi
}

# needs_hygaspi NAME BINARY: the program records libhygaspi's soname, whatever name it linked.
needs_hygaspi() {
  if readelf -d "$2" | grep -q 'NEEDED.*\[libhygaspi\.so\.[0-9]*\]'; then
    ok "$1: NEEDED libhygaspi.so.N"
  else
    ko "$1: NEEDED entries: $(readelf -d "$2" | grep NEEDED | tr -s ' ' | tr '\n' ' ')"
  fi
}

echo "== cmake --install $build --prefix $prefix"
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  ko "cmake --install"
  echo "$passed passed, $failed failed"
  exit 1
fi
ok "cmake --install"

missing=()
for f in include/GASPI.h include/GASPI_types.h include/GASPI_Ext.h include/PGASPI.h include/GASPI_Threads.h \
         include/GPI2_VERSION.h bin/hygaspi-run lib/pkgconfig/hygaspi.pc lib/pkgconfig/GPI2.pc \
         lib/cmake/HyGASPI/HyGASPIConfig.cmake lib/cmake/HyGASPI/HyGASPIConfigVersion.cmake \
         lib/cmake/HyGASPI/HyGASPITargets.cmake; do
  [ -f "$prefix/$f" ] || missing+=("$f")
done
soname=$(readelf -d "$prefix"/lib/libhygaspi.so 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -L "$prefix/lib/$soname" ] && [ -f "$prefix/lib/$soname" ] || missing+=("lib/SONAME link ($soname)")
for l in libhygaspi.so libGPI2.so libGPI2-dbg.so; do
  [ "$(readlink "$prefix/lib/$l")" = "$([ $l = libhygaspi.so ] && echo "$soname" || echo libhygaspi.so)" ] &&
    [ -f "$prefix/lib/$l" ] || missing+=("lib/$l (a relative link)")
done
if ((${#missing[@]})); then ko "install layout: missing or wrong: ${missing[*]}"; else ok "install layout"; fi
(cd "$prefix" && find . ! -type d | sort | sed 's/^/    /')

# The exported package must not drag the library's private dependencies or the build tree along.
if grep -E -n 'Boost|Threads|find_dependency|/src/|'"$build" "$prefix"/lib/cmake/HyGASPI/*.cmake; then
  ko "CMake package mentions private dependencies or the build tree"
else
  ok "CMake package is self-contained"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
for pc in GPI2 hygaspi; do
  echo "== pkg-config $pc: $(pkg-config --cflags --libs $pc)"
  # shellcheck disable=SC2046
  if $cc "${cflags[@]}" "$here/consumer.c" -o "$tmp/app-$pc" $(pkg-config --cflags --libs $pc) \
      -Wl,-rpath,"$(pkg-config --variable=libdir $pc)"; then
    needs_hygaspi "pkg-config $pc" "$tmp/app-$pc"
    run_app "pkg-config $pc" "$tmp/app-$pc"
  else
    ko "pkg-config $pc: build"
  fi
done
if [ "$(pkg-config --modversion GPI2)" = 1.6.0 ]; then ok "GPI2.pc version 1.6.0"; else ko "GPI2.pc version"; fi

echo "== -lGPI2-dbg"
if $cc "${cflags[@]}" "$here/consumer.c" -o "$tmp/app-dbg" -I"$prefix/include" -L"$prefix/lib" \
    -lGPI2-dbg -Wl,-rpath,"$prefix/lib"; then
  run_app "-lGPI2-dbg" "$tmp/app-dbg"
else
  ko "-lGPI2-dbg: build"
fi

echo "== build tree: -L$build/src -lGPI2"
if $cc "${cflags[@]}" "$here/consumer.c" -o "$tmp/app-tree" -I"$here/../../include" -L"$build/src" \
    -lGPI2 -Wl,-rpath,"$build/src"; then
  run_app "build tree -lGPI2" "$tmp/app-tree"
else
  ko "build tree -lGPI2: build"
fi

echo "== find_package(HyGASPI)"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if cmake -S "$here" -B "$tmp/cb" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
     >"$tmp/cb.log" 2>&1 && cmake --build "$tmp/cb" >>"$tmp/cb.log" 2>&1; then
  needs_hygaspi "find_package" "$tmp/cb/app"
  run_app "find_package(HyGASPI)" "$tmp/cb/app"
else
  sed "s/^/    /" "$tmp/cb.log"
  ko "find_package(HyGASPI): configure or build"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
