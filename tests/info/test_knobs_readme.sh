#!/usr/bin/env bash
# README.md's knob table is the one hygaspi-info --knobs-markdown prints from the table kKnobs
# (src/core/knobs.hpp): a knob added, removed or changed there without its README row fails here.
# Usage: test_knobs_readme.sh path/to/hygaspi-info path/to/README.md
set -euo pipefail
INFO=${1:?usage: $0 hygaspi-info README.md}
README=${2:?usage: $0 hygaspi-info README.md}
# The first block of table lines after the heading "## Environment knobs".
readme_table=$(awk '/^## Environment knobs$/ { in_section = 1; next }
                    in_section && /^\|/ { print; in_table = 1; next }
                    in_table { exit }' "$README")
[ -n "$readme_table" ] || { echo "FAIL no table under '## Environment knobs' in $README"; exit 1; }
if diff -u <(printf '%s\n' "$readme_table") <("$INFO" --knobs-markdown) \
     --label "README.md" --label "hygaspi-info --knobs-markdown"; then
  echo "ok   README.md's knob table matches the table ($(($(wc -l <<<"$readme_table") - 2)) knobs)"
else
  echo "FAIL README.md's knob table differs (paste 'hygaspi-info --knobs-markdown' into it)"
  exit 1
fi
