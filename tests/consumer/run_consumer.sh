#!/usr/bin/env bash
# Builds tests/consumer/consumer.c the way a user would, from outside the tree, against HyGASPI
# installed into a temporary prefix, and runs each build on 2 ranks with the installed launcher:
#   install layout (headers, libhygaspi with soname links, libGPI2 links, .pc files, package)
#   cc $(pkg-config --cflags --libs GPI2)      (-lGPI2, as with GPI-2)
#   cc $(pkg-config --cflags --libs hygaspi)   (-lhygaspi)
#   cc ... -lGPI2-dbg                           (GPI-2's checking variant: the same library)
#   cc ... -L BUILD_DIR/src -lGPI2              (the build tree's links, without installing)
#   cc $(pkg-config --cflags --libs GPI2) with PKG_CONFIG_PATH=BUILD_DIR/pkgconfig (uninstalled)
#   cmake find_package(HyGASPI) + HyGASPI::gaspi
# and gasnet_client.c, a GASNet-1 client, as a GASNet user builds one (each binary runs alone, a
# 1-node job, and on 2 nodes under hygaspi-run):
#   $GASNET_CC/$GASNET_LD and flags from pkg-config --variable=GASNET_* gasnet-hygaspi-par
#   $GASNET_LD -o x x.o $GASNET_LIBS, without GASNET_LDFLAGS (as GASNet's GASNET_LIBS allows), from
#   the .pc file and from the makefile fragment; GASNET_CFLAGS/GASNET_CXXFLAGS carry an -O level
#   cc $(pkg-config --cflags --libs gasnet-hygaspi-par)
#   a Makefile that includes include/hygaspi-conduit/hygaspi-par.mak, also from a moved install, and
#   one that includes BUILD_DIR/hygaspi-conduit/hygaspi-par.mak (uninstalled, as GASNet's build tree)
#   -DGASNET_SEQ linked with gasnet-hygaspi-par fails to link; with gasnet-hygaspi-seq it links
#   cmake find_package(HyGASPI) + HyGASPI::gasnet-hygaspi-par
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

# run_gasnet NAME BINARY NODES MODE: NODES = 1 runs the binary alone (a standalone 1-node job),
# else under the installed launcher; every node must print its line and node 0 the SUCCESS line.
run_gasnet() {
  local name="$1 ($3 nodes)" bin=$2 nodes=$3 mode=$4 out=$tmp/gasnet.out
  [ "$nodes" = 1 ] && name="$1 (1 node)"
  if [ "$nodes" = 1 ]; then
    timeout 60 "$bin" >"$out" 2>&1
  else
    "$prefix/bin/hygaspi-run" -n "$nodes" --timeout 60 -- "$bin" >"$out" 2>&1
  fi
  local rc=$?
  sed "s/^/    /" "$out"
  local lines
  lines=$(grep -cE "^gasnet_client: node [0-9]+ of $nodes \(hygaspi, $mode\): AM round trip, put/get and barrier OK$" "$out")
  if [ $rc -ne 0 ]; then
    ko "$name: exited with $rc"
  elif ! grep -q '^SUCCESS gasnet_client$' "$out"; then
    ko "$name: no 'SUCCESS gasnet_client' line"
  elif [ "$lines" -ne "$nodes" ]; then
    ko "$name: $lines of $nodes nodes printed their line"
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
         include/GPI2_VERSION.h include/gasnet.h include/gasnet_tools.h \
         include/hygaspi-conduit/hygaspi-{seq,parsync,par}.mak lib/pkgconfig/gasnet-hygaspi-{seq,parsync,par}.pc \
         lib/libgasnet-hygaspi-{seq,parsync,par}.so bin/hygaspi-run lib/pkgconfig/hygaspi.pc lib/pkgconfig/GPI2.pc \
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

echo "== build tree: pkg-config GPI2 from $build/pkgconfig"
tree_pc() { PKG_CONFIG_PATH=$build/pkgconfig pkg-config "$@"; }
if $cc "${cflags[@]}" "$here/consumer.c" -o "$tmp/app-tree-pc" $(tree_pc --cflags --libs GPI2) \
    -Wl,-rpath,"$(tree_pc --variable=libdir GPI2)"; then
  run_app "build tree pkg-config GPI2" "$tmp/app-tree-pc"
else
  ko "build tree pkg-config GPI2: build"
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

# --- GASNet ---------------------------------------------------------------------------------------
gcflags=(-std=c11 -Wall -Wextra -pedantic -Werror -O2)
for mode in seq parsync par; do
  MODE=${mode^^}
  bad=()
  for v in GASNET_CC GASNET_CXX GASNET_LD GASNET_CPPFLAGS GASNET_CFLAGS GASNET_CXXFLAGS GASNET_LDFLAGS GASNET_LIBS; do
    [ -n "$(pkg-config --variable=$v gasnet-hygaspi-$mode)" ] || bad+=("$v empty")
  done
  [[ " $(pkg-config --variable=GASNET_CPPFLAGS gasnet-hygaspi-$mode) " == *" -DGASNET_$MODE "* ]] || bad+=(GASNET_CPPFLAGS)
  [[ " $(pkg-config --cflags gasnet-hygaspi-$mode) " == *" -DGASNET_$MODE "* ]] || bad+=(Cflags)
  [[ " $(pkg-config --libs gasnet-hygaspi-$mode) " == *" -lgasnet-hygaspi-$mode -lhygaspi "* ]] || bad+=(Libs)
  [ "$(realpath "$(pkg-config --variable=includedir gasnet-hygaspi-$mode)")" = "$(realpath "$prefix/include")" ] ||
    bad+=(includedir)
  if ((${#bad[@]})); then ko "gasnet-hygaspi-$mode.pc: ${bad[*]}"; else ok "gasnet-hygaspi-$mode.pc variables"; fi
done

gasnet_var() { pkg-config --variable="$1" gasnet-hygaspi-par; }
# has_opt_level FLAGS: FLAGS name an optimisation level above -O0 (-O, -O1..-O3, -Os, -Ofast, -Og).
has_opt_level() { [[ " $1 " =~ \ -O([1-3]|s|fast|g|z)?\  ]]; }
# has_link_words LIBS DIR: LIBS alone can link against DIR: -LDIR, an rpath to it, -lm.
has_link_words() { [[ " $1 " == *" -L$2 "* && " $1 " == *"-rpath,$2 "* && " $1 " == *" -lm "* ]]; }
echo "== pkg-config --variable=GASNET_* gasnet-hygaspi-par"
# shellcheck disable=SC2046 # the flags are lists
if $(gasnet_var GASNET_CC) $(gasnet_var GASNET_CPPFLAGS) $(gasnet_var GASNET_CFLAGS) "${gcflags[@]}" \
     -c "$here/gasnet_client.c" -o "$tmp/gasnet_client.o" &&
   $(gasnet_var GASNET_LD) $(gasnet_var GASNET_LDFLAGS) -o "$tmp/gasnet-pcvars" "$tmp/gasnet_client.o" \
     $(gasnet_var GASNET_LIBS); then
  needs_hygaspi "GASNET_* variables" "$tmp/gasnet-pcvars"
  run_gasnet "GASNET_* variables" "$tmp/gasnet-pcvars" 1 PAR
  run_gasnet "GASNET_* variables" "$tmp/gasnet-pcvars" 2 PAR
else
  ko "GASNET_* variables: build"
fi
for v in GASNET_CFLAGS GASNET_CXXFLAGS; do
  if has_opt_level "$(gasnet_var $v)"; then ok "gasnet-hygaspi-par.pc $v has an -O level: $(gasnet_var $v)"
  else ko "gasnet-hygaspi-par.pc $v has no -O level: '$(gasnet_var $v)'"; fi
done
echo "== \$GASNET_LD -o x x.o \$GASNET_LIBS (no GASNET_LDFLAGS): $(gasnet_var GASNET_LIBS)"
if ! has_link_words "$(gasnet_var GASNET_LIBS)" "$(pkg-config --variable=libdir gasnet-hygaspi-par)"; then
  ko "gasnet-hygaspi-par.pc GASNET_LIBS lacks -L, the rpath or -lm: '$(gasnet_var GASNET_LIBS)'"
# shellcheck disable=SC2046
elif [ -f "$tmp/gasnet_client.o" ] &&
   $(gasnet_var GASNET_LD) -o "$tmp/gasnet-libsonly" "$tmp/gasnet_client.o" $(gasnet_var GASNET_LIBS); then
  needs_hygaspi "GASNET_LIBS alone" "$tmp/gasnet-libsonly"
  run_gasnet "GASNET_LIBS alone" "$tmp/gasnet-libsonly" 1 PAR
  run_gasnet "GASNET_LIBS alone" "$tmp/gasnet-libsonly" 2 PAR
else
  ko "GASNET_LIBS alone: link"
fi

echo "== pkg-config --cflags --libs gasnet-hygaspi-par"
# shellcheck disable=SC2046
if $cc "${gcflags[@]}" "$here/gasnet_client.c" -o "$tmp/gasnet-pc" $(pkg-config --cflags --libs gasnet-hygaspi-par) \
    -Wl,-rpath,"$prefix/lib"; then
  run_gasnet "pkg-config --cflags --libs" "$tmp/gasnet-pc" 2 PAR
else
  ko "pkg-config --cflags --libs gasnet-hygaspi-par: build"
fi

# A GASNet-EX client (examples/ex_heat.c) with the same variables: gasnetex.h is installed beside
# gasnet.h and needs nothing else.
echo "== GASNet-EX client (examples/ex_heat.c) with the GASNET_* variables"
# shellcheck disable=SC2046
if $(gasnet_var GASNET_CC) $(gasnet_var GASNET_CPPFLAGS) $(gasnet_var GASNET_CFLAGS) "${gcflags[@]}" \
     -c "$here/../../examples/ex_heat.c" -o "$tmp/ex_heat.o" &&
   $(gasnet_var GASNET_LD) -o "$tmp/ex_heat" "$tmp/ex_heat.o" $(gasnet_var GASNET_LIBS); then
  "$prefix/bin/hygaspi-run" -n 2 --timeout 60 -- "$tmp/ex_heat" >"$tmp/ex_heat.out" 2>&1
  rc=$?
  sed "s/^/    /" "$tmp/ex_heat.out"
  if [ $rc -eq 0 ] && grep -q '^ex_heat: 2 ranks, 8192 cells, 500 steps: correct' "$tmp/ex_heat.out"; then
    ok "GASNet-EX client: builds and runs on 2 ranks"
  else
    ko "GASNet-EX client: exited with $rc or computed a wrong result"
  fi
else
  ko "GASNet-EX client: build"
fi

# A GASNet client's Makefile: only the fragment's variables. `make vars` shows what they became.
mkdir -p "$tmp/mk"
cat >"$tmp/mk/Makefile" <<'MAKEFILE'
include $(PREFIX)/include/hygaspi-conduit/hygaspi-par.mak
gasnet_client: gasnet_client.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ gasnet_client.o $(GASNET_LIBS)
gasnet_client_libs: gasnet_client.o
	$(GASNET_LD) -o $@ gasnet_client.o $(GASNET_LIBS)
gasnet_client.o: $(SRC)
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) $(EXTRA_CFLAGS) -c $(SRC) -o $@
vars:
	@echo "CPPFLAGS=$(GASNET_CPPFLAGS)"
	@echo "LDFLAGS=$(GASNET_LDFLAGS)"
	@echo "CFLAGS=$(GASNET_CFLAGS)"
	@echo "CXXFLAGS=$(GASNET_CXXFLAGS)"
	@echo "LIBS=$(GASNET_LIBS)"
MAKEFILE
# make_client NAME PREFIX: builds with the fragment under PREFIX, into $tmp/mk/gasnet_client.
# Also links gasnet_client_libs with GASNET_LIBS alone, and checks the flags' -O level.
make_client() {
  rm -f "$tmp/mk/gasnet_client" "$tmp/mk/gasnet_client_libs" "$tmp/mk/gasnet_client.o"
  make -s -C "$tmp/mk" PREFIX="$2" SRC="$here/gasnet_client.c" EXTRA_CFLAGS="${gcflags[*]}" vars gasnet_client \
    gasnet_client_libs >"$tmp/mk.log" 2>&1
  local rc=$?
  sed "s/^/    /" "$tmp/mk.log"
  if [ $rc -ne 0 ]; then
    ko "$1: make"
    return 1
  elif ! grep -qxF "CPPFLAGS=-DGASNET_PAR -I$2/include" "$tmp/mk.log" ||
       ! grep -qF -- "-L$2/lib -Wl,-rpath,$2/lib" "$tmp/mk.log"; then
    ko "$1: the fragment's flags do not name $2"
    return 1
  elif ! has_opt_level "$(sed -n 's/^CFLAGS=//p' "$tmp/mk.log")" ||
       ! has_opt_level "$(sed -n 's/^CXXFLAGS=//p' "$tmp/mk.log")"; then
    ko "$1: GASNET_CFLAGS or GASNET_CXXFLAGS without an -O level"
    return 1
  elif ! has_link_words "$(sed -n 's/^LIBS=//p' "$tmp/mk.log")" "$2/lib"; then
    ko "$1: GASNET_LIBS lacks -L$2/lib, its rpath or -lm"
    return 1
  fi
  ok "$1: make"
}
echo "== Makefile: include hygaspi-conduit/hygaspi-par.mak"
if make_client "hygaspi-par.mak" "$prefix"; then
  run_gasnet "hygaspi-par.mak" "$tmp/mk/gasnet_client" 1 PAR
  run_gasnet "hygaspi-par.mak" "$tmp/mk/gasnet_client" 2 PAR
  run_gasnet "hygaspi-par.mak, GASNET_LIBS alone" "$tmp/mk/gasnet_client_libs" 1 PAR
fi

# The build tree's fragment names the build's libraries and the source tree's headers.
echo "== Makefile: include $build/hygaspi-conduit/hygaspi-par.mak"
mkdir -p "$tmp/mkt"
printf 'include %s/hygaspi-conduit/hygaspi-par.mak\ngasnet_client: %s\n\t$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -o $@ $< $(GASNET_LIBS)\n' \
  "$build" "$here/gasnet_client.c" >"$tmp/mkt/Makefile"
if make -s -C "$tmp/mkt" gasnet_client >"$tmp/mkt.log" 2>&1; then
  ok "build tree hygaspi-par.mak: make"
  run_gasnet "build tree hygaspi-par.mak" "$tmp/mkt/gasnet_client" 2 PAR
else
  sed "s/^/    /" "$tmp/mkt.log"
  ko "build tree hygaspi-par.mak: make"
fi

# The fragment and the .pc files find a moved installation from their own place.
echo "== moved install tree"
moved=$tmp/moved
cp -a "$prefix" "$moved"
if make_client "moved hygaspi-par.mak" "$moved"; then
  if readelf -d "$tmp/mk/gasnet_client" | grep -E 'R(UN)?PATH' | grep -qF "$moved/lib"; then
    ok "moved hygaspi-par.mak: rpath"
  else
    ko "moved hygaspi-par.mak: rpath $(readelf -d "$tmp/mk/gasnet_client" | grep -E 'R(UN)?PATH')"
  fi
  run_gasnet "moved hygaspi-par.mak" "$tmp/mk/gasnet_client" 1 PAR
  run_gasnet "moved hygaspi-par.mak, GASNET_LIBS alone" "$tmp/mk/gasnet_client_libs" 1 PAR
fi
if [ "$(PKG_CONFIG_PATH=$moved/lib/pkgconfig pkg-config --variable=GASNET_LDFLAGS gasnet-hygaspi-par |
        sed -E 's|.*-L([^ ]*).*|\1|' | xargs realpath)" = "$(realpath "$moved/lib")" ]; then
  ok "moved gasnet-hygaspi-par.pc"
else
  ko "moved gasnet-hygaspi-par.pc: GASNET_LDFLAGS $(PKG_CONFIG_PATH=$moved/lib/pkgconfig pkg-config \
      --variable=GASNET_LDFLAGS gasnet-hygaspi-par)"
fi
rm -rf "$moved"

# gasnet.h names gasnet_init after the mode: a SEQ client links only with the SEQ library.
echo "== -DGASNET_SEQ against gasnet-hygaspi-par and gasnet-hygaspi-seq"
if $cc "${gcflags[@]}" -DGASNET_SEQ -I"$prefix/include" -c "$here/gasnet_client.c" -o "$tmp/seq.o"; then
  # shellcheck disable=SC2046
  if $cc -o "$tmp/gasnet-mismatch" "$tmp/seq.o" $(pkg-config --libs gasnet-hygaspi-par) >"$tmp/mismatch.log" 2>&1; then
    ko "-DGASNET_SEQ linked with gasnet-hygaspi-par"
  elif grep -q 'gasnet_init_GASNET_SEQ' "$tmp/mismatch.log"; then
    ok "-DGASNET_SEQ with gasnet-hygaspi-par: link fails (undefined gasnet_init_GASNET_SEQ)"
  else
    sed "s/^/    /" "$tmp/mismatch.log"
    ko "-DGASNET_SEQ with gasnet-hygaspi-par: link fails, but not for gasnet_init_GASNET_SEQ"
  fi
  # shellcheck disable=SC2046
  if $cc -o "$tmp/gasnet-seq" "$tmp/seq.o" $(pkg-config --libs gasnet-hygaspi-seq) -Wl,-rpath,"$prefix/lib"; then
    ok "-DGASNET_SEQ with gasnet-hygaspi-seq: links"
    run_gasnet "gasnet-hygaspi-seq" "$tmp/gasnet-seq" 1 SEQ
  else
    ko "-DGASNET_SEQ with gasnet-hygaspi-seq: link"
  fi
else
  ko "-DGASNET_SEQ: compile"
fi

if [ -x "$tmp/cb/gasnet_app" ]; then
  run_gasnet "find_package HyGASPI::gasnet-hygaspi-par" "$tmp/cb/gasnet_app" 2 PAR
else
  ko "find_package HyGASPI::gasnet-hygaspi-par: not built"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
