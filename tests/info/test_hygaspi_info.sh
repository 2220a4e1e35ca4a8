#!/usr/bin/env bash
# hygaspi-info prints every section, and every knob of the table in src/core/knobs.hpp (read from
# the source, so that a knob added there and missing from the output fails here), and the GASNet
# limits within what GASNet-1 guarantees a client [G1 §2.3], with the library of each thread mode.
# Usage: test_hygaspi_info.sh path/to/hygaspi-info path/to/src/core/knobs.hpp
set -euo pipefail
INFO=${1:?usage: $0 hygaspi-info knobs.hpp}
KNOBS=${2:?usage: $0 hygaspi-info knobs.hpp}
out=$("$INFO")
failed=0
need() {  # need DESCRIPTION FIXED-STRING
  if grep -qF -- "$2" <<<"$out"; then echo "ok   $1"; else echo "FAIL $1: no '$2'"; failed=1; fi
}
need "version line" "HyGASPI "
for section in "== Build" "== Environment knobs" "== Limits" "== GASNet" "== Memory kinds" "== Topology (hwloc)" "== MPI"; do
  need "section $section" "$section"
done
need "build type" "build type:"
need "sanitizers" "sanitizers:"
need "argument checks" "argument checks:"
names=$(sed -nE 's/.*knob::[a-z_]+\("([A-Z0-9_]+)".*/\1/p' "$KNOBS")
[ -n "$names" ] || { echo "FAIL no knob names found in $KNOBS"; exit 1; }
for name in $names; do
  need "knob $name" "  $name ("
done
for field in queue_num queue_size_max segment_max notification_num transfer_size_max; do
  need "limit $field" "  $field "
done
for count in packages "NUMA nodes" cores PUs; do
  if grep -qE "^  $count: +[1-9][0-9]*$" <<<"$out"; then echo "ok   topology $count"; else
    echo "FAIL topology $count"; failed=1; fi
done
# at_least NAME MIN: the GASNet section's line "  NAME: N" with N >= MIN.
at_least() {
  local n
  n=$(sed -nE "s/^  $1: +([0-9]+)\$/\1/p" <<<"$out")
  if [ -n "$n" ] && [ "$n" -ge "$2" ]; then echo "ok   GASNet $1 = $n"; else
    echo "FAIL GASNet $1: '${n}' is not at least $2"; failed=1; fi
}
at_least AMMaxArgs 16 # 2 * max(sizeof(int), sizeof(void *)) on LP64
at_least AMMaxMedium 512
at_least AMMaxLongRequest 512
at_least AMMaxLongReply 512
need "GASNet handler ranges" "  handlers:         0..127 implementation, 128..255 client"
page=$(sed -nE 's/^  GASNET_PAGESIZE: +([0-9]+)$/\1/p' <<<"$out")
if [ -n "$page" ] && [ "$page" -gt 0 ] && [ $((page & (page - 1))) -eq 0 ]; then echo "ok   GASNET_PAGESIZE $page"; else
  echo "FAIL GASNET_PAGESIZE '$page'"; failed=1; fi
for mode in seq parsync par; do
  if grep -qE "^    GASNET_${mode^^} +libgasnet-hygaspi-$mode\.so \(pkg-config gasnet-hygaspi-$mode, hygaspi-conduit/hygaspi-$mode\.mak\)$" <<<"$out"; then
    echo "ok   GASNet mode $mode"; else echo "FAIL GASNet mode $mode: no library line"; failed=1; fi
done
need "MPI library" "library:"
need "thread level" "MPI_THREAD_"
need "osc component" "OMPI_MCA_osc="
# Memory kinds through the driver HYGASPI_CUDA_LIBRARY names: none; the fake one (FAKE_CUDA, from
# ctest) with 3 devices, without unified addressing, and as the toolkit's stub.
need "host kind" "  HOST:             GEX_MK_HOST"
kinds() { HYGASPI_CUDA_LIBRARY=$1 HYGASPI_FAKE_CUDA=$2 "$INFO" | sed -n '/^== Memory kinds/,/^$/p'; }
k=$(kinds /nonexistent/libcuda.so.1 "")
grep -qE "^  CUDA_UVA: +none: cannot load /nonexistent/libcuda.so.1" <<<"$k" && echo "ok   no CUDA driver" ||
  { echo "FAIL no CUDA driver: $k"; failed=1; }
if [ -n "${FAKE_CUDA:-}" ]; then
  k=$(kinds "$FAKE_CUDA" devices=3)
  grep -qE "^  CUDA_UVA: +3 devices through .*libcuda.so.1 \(CUDA driver 13.0\)$" <<<"$k" &&
    [ "$(grep -c "unified addressing: served" <<<"$k")" = 3 ] && echo "ok   fake CUDA driver, 3 devices" ||
    { echo "FAIL fake CUDA driver: $k"; failed=1; }
  k=$(kinds "$FAKE_CUDA" nouva)
  grep -q "device 0: *no unified addressing: refused" <<<"$k" && echo "ok   no unified addressing" ||
    { echo "FAIL no unified addressing: $k"; failed=1; }
  k=$(kinds "$FAKE_CUDA" stub)
  grep -qE "^  CUDA_UVA: +none: cuInit: .*34" <<<"$k" && echo "ok   stub driver" || { echo "FAIL stub driver: $k"; failed=1; }
fi
"$INFO" --help | grep -q "usage: hygaspi-info" && echo "ok   --help" || { echo "FAIL --help"; failed=1; }
if "$INFO" --bogus >/dev/null 2>&1; then echo "FAIL unknown option accepted"; failed=1; else echo "ok   unknown option"; fi
exit $failed
