#!/usr/bin/env python3
"""The front ends reach the transports only through the engine's facade (src/bridge/engine.hpp).

For every source file of a front end, the project headers it includes, followed transitively, must
not reach src/shm/, src/mpi_rma/ or bridge/runtime.hpp (the runtime is private to the bridge), and
the file itself must not ask a peer's kind (on_node(), PeerKind) or touch the runtime (rt()).
Which transport reaches a rank is decided inside the bridge, once.

Checked: src/gasnet (GASNet-1 and GASNet-EX) and src/gaspi.

Usage: facade.py <repository root>
"""
import pathlib
import re
import sys

FRONT_ENDS = ["src/gasnet", "src/gaspi"]
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
    found = []
    for path in sorted((root / directory).glob("*.[ch]pp")):
        rel = path.relative_to(root)
        found += [f"{rel}: includes {chain}" for chain in reaches(root / "src", path, set())]
        for m in FORBIDDEN_CODE.finditer(strip_comments(path.read_text())):
            found.append(f"{rel}: uses {m.group(0).strip()}")
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    found = [v for directory in FRONT_ENDS for v in violations(root, directory)]
    if found:
        print("\n".join(found))
        sys.exit(1)
    print(f"facade: {', '.join(FRONT_ENDS)} reach the transports only through the bridge")


if __name__ == "__main__":
    main()
