#!/usr/bin/env python3
"""The front ends reach the transports only through the engine's facade (src/bridge/engine.hpp).

For every source file of a checked front end, the project headers it includes, followed
transitively, must not reach src/shm/, src/mpi_rma/ or bridge/runtime.hpp (the runtime is private
to the bridge), and the file itself must not ask a peer's kind (on_node(), PeerKind) or touch the
runtime (rt()). Which transport reaches a rank is decided inside the bridge, once.

Checked: src/gasnet (GASNet-1 and GASNet-EX). src/gaspi is being moved over one concern at a
time: PENDING holds, for each of its files, how many violations it still has. The test fails when a
file has more than its entry allows, and also when it has fewer, so that whoever removes some
lowers the entry in the same change: the counts only go down, and a file at 0 leaves the list. A
new file is checked in full.

Usage: facade.py <repository root>
"""
import pathlib
import re
import sys

CHECKED = ["src/gasnet", "src/gaspi"]  # every file of these, less the PENDING ones
PENDING = {
    "src/gaspi/api_atomic.cpp": 1,
    "src/gaspi/api_collective.cpp": 5,
    "src/gaspi/api_group.cpp": 25,
    "src/gaspi/api_info.cpp": 6,
    "src/gaspi/api_passive.cpp": 1,
    "src/gaspi/api_proc.cpp": 14,
    "src/gaspi/api_queue.cpp": 2,
    "src/gaspi/api_rma.cpp": 1,
    "src/gaspi/api_segment.cpp": 2,
    "src/gaspi/api_threads.cpp": 1,
    "src/gaspi/checks.hpp": 1,
}
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


def file_violations(root, path):
    rel = path.relative_to(root)
    found = [f"{rel}: includes {chain}" for chain in reaches(root / "src", path, set())]
    for m in FORBIDDEN_CODE.finditer(strip_comments(path.read_text())):
        found.append(f"{rel}: uses {m.group(0).strip()}")
    return found


def violations(root, directory):
    found = []
    for path in sorted((root / directory).glob("*.[ch]pp")):
        if str(path.relative_to(root)) not in PENDING:
            found += file_violations(root, path)
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    failed = False
    for directory in CHECKED:
        for v in violations(root, directory):
            print(v)
            failed = True
    for name, allowed in PENDING.items():
        path = root / name
        found = file_violations(root, path) if path.is_file() else []
        if len(found) > allowed:
            print("\n".join(found))
            print(f"{name}: {len(found)} violations, PENDING allows {allowed}")
            failed = True
        elif len(found) < allowed:
            print(f"{name}: {len(found)} violations left: lower its PENDING entry from {allowed} to {len(found)}"
                  + (" (remove it)" if not found else ""))
            failed = True
    if failed:
        sys.exit(1)
    left = sum(PENDING.values())
    print(f"facade: {', '.join(CHECKED)} reach the transports only through the bridge; "
          f"{left} violations left in {len(PENDING)} pending files")


if __name__ == "__main__":
    main()
