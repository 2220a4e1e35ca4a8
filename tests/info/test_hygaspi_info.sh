#!/usr/bin/env bash
# hygaspi-info prints every section, and every knob of the table in src/core/knobs.hpp (read from
# the source, so that a knob added there and missing from the output fails here).
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
for section in "== Build" "== Environment knobs" "== Limits" "== Topology (hwloc)" "== MPI"; do
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
need "MPI library" "library:"
need "thread level" "MPI_THREAD_"
need "osc component" "OMPI_MCA_osc="
"$INFO" --help | grep -q "usage: hygaspi-info" && echo "ok   --help" || { echo "FAIL --help"; failed=1; }
if "$INFO" --bogus >/dev/null 2>&1; then echo "FAIL unknown option accepted"; failed=1; else echo "ok   unknown option"; fi
exit $failed
