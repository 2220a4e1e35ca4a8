#!/usr/bin/env python3
"""The front ends reach the transports only through the engine's facade (src/bridge/engine.hpp).

For every source file of a checked front end, the project headers it includes, followed
transitively, must not reach src/shm/, src/mpi_rma/ or bridge/runtime.hpp (the runtime is private
to the bridge), and the file itself must not ask a peer's kind (on_node(), PeerKind) or touch the
runtime (rt()). Which transport reaches a rank is decided inside the bridge, once.

Checked: src/gasnet (GASNet-1 and GASNet-EX). src/gaspi still reaches the runtime through
gaspi/checks.hpp and gaspi/fast_path.hpp: it is listed in PENDING, and the test fails if a file of
it stops needing the entry (so the list only shrinks).

Usage: facade.py <repository root>
"""
import pathlib
import re
import sys

CHECKED = ["src/gasnet"]
PENDING = ["src/gaspi"]
FORBIDDEN_HEADERS = re.compile(r"^(shm/|mpi_rma/|bridge/runtime\.hpp$)")
FORBIDDEN_CODE = re.compile(r"\bon_node\s*\(|\bPeerKind\b|\brt\s*\(\s*\)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def reaches(src, path, seen):
    """The forbidden headers that `path` includes, directly or through project headers."""
    bad = []
    for name in INCLUDE.findall(path.read_text()):
        if FORBIDDEN_HEADERS.match(name):
            bad.append(name)
            continue
        header = src / name
        if header.is_file() and name not in seen:
            seen.add(name)
            bad += [f"{name} -> {b}" for b in reaches(src, header, seen)]
    return bad


def violations(root, directory):
    src = root / "src"
    found = []
    for path in sorted((root / directory).glob("*.[ch]pp")):
        rel = path.relative_to(root)
        for chain in reaches(src, path, set()):
            found.append(f"{rel}: includes {chain}")
        for m in FORBIDDEN_CODE.finditer(strip_comments(path.read_text())):
            found.append(f"{rel}: uses {m.group(0).strip()}")
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    failed = False
    for directory in CHECKED:
        for v in violations(root, directory):
            print(v)
            failed = True
    for directory in PENDING:
        if not violations(root, directory):
            print(f"{directory} passes the facade check now: move it from PENDING to CHECKED")
            failed = True
    if failed:
        sys.exit(1)
    print(f"facade: {', '.join(CHECKED)} reach the transports only through the bridge")


if __name__ == "__main__":
    main()
