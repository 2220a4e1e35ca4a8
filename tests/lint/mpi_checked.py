#!/usr/bin/env python3
"""No MPI return code is dropped.

Every call of an MPI function in src/ and tools/ must be the argument of HYGASPI_MPI(...)
(src/mpi_rma/mpi_call.hpp), which checks and logs the code. A call that cannot go through it
carries a comment `mpi-unchecked: <why>` on the same line. Comments and string literals are
ignored. Prints each offending call and exits 1 if there is any.
"""
import pathlib
import re
import sys

CALL = re.compile(r"\b(MPI_[A-Z][a-z_0-9]*)\s*\(")
WRAPPED = re.compile(r"HYGASPI_MPI\s*\(\s*$")


def strip(text):
    """Blanks comments and string/char literals, keeping offsets and line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main(root):
    bad = []
    for path in sorted(p for d in ("src", "tools") for p in (root / d).rglob("*") if p.suffix in (".cpp", ".hpp")):
        raw = path.read_text()
        lines = raw.splitlines()
        code = strip(raw)
        for m in CALL.finditer(code):
            line_no = code.count("\n", 0, m.start())
            if "mpi-unchecked:" in lines[line_no]:
                continue
            if WRAPPED.search(code[: m.start()]):
                continue
            bad.append(f"{path.relative_to(root)}:{line_no + 1}: {m.group(1)} is not checked (HYGASPI_MPI)")
    for b in bad:
        print(b)
    print(f"{len(bad)} unchecked MPI call(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
