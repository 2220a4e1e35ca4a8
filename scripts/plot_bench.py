#!/usr/bin/env python3
"""Draws the figures of scripts/bench.sh beside their raw floors, and writes them as CSV.

Reads the logs that bench.sh keeps in $BUILD_DIR/bench-logs:
  shm.log, atomics.log, passive.log  "figure (median of 5)  HyGASPI  floor  ratio target" tables (shm path)
  internode-*.log           bench_mpi tables: HyGASPI beside raw MPI RMA (MPI path), if present
  gaspi-N.log / mpi-N.log   collectives rows "N | op | count | us/op" (HyGASPI, Open MPI)
and draws one PNG: shm latency, shm bandwidth, MPI-path latency (when there are internode logs)
and collectives, each HyGASPI bar beside the floor it is measured against.

  scripts/plot_bench.py [--logs DIR] [--png FILE] [--csv FILE]
Defaults: --logs build-bench/bench-logs, --png docs/bench.png; --csv writes lines
"path,figure,ours,floor,unit,floor_name" and needs no matplotlib (--png '' skips the picture).
Needs python3-matplotlib (scripts/deps.sh) for the picture.
"""
import argparse
import csv
import os
import re
import sys

UNIT_RE = re.compile(r"^([0-9.]+)\s*(\S+)$")


def value(cell):
    """'1169 ns' -> (1169.0, 'ns'); '-' or 'failed' -> (None, None)."""
    m = UNIT_RE.match(cell.strip())
    if not m:
        return None, None
    return float(m.group(1)), m.group(2)


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def floor_table(lines, path):
    """bench_shm / bench_atomics: figure, HyGASPI, floor, ratio + target '(floor name)'."""
    rows, inside = [], False
    for line in lines:
        if line.startswith("figure (median of 5)"):
            inside = True
            continue
        if not inside or not line.strip() or line.startswith("("):
            continue
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) < 4:
            continue
        ours, unit = value(cols[1])
        floor, _ = value(cols[2])
        name = re.search(r"\(([^)]*)\)\s*$", cols[-1])
        if ours is not None:
            rows.append(dict(path=path, figure=cols[0], ours=ours, floor=floor, unit=unit,
                             floor_name=name.group(1) if name else "floor"))
    return rows


def mpi_table(lines):
    """bench_mpi: figure, HyGASPI, MPI win, ratio, MPI alloc, ratio, target; the floor is MPI win."""
    rows, inside, suffix = [], False, ""
    for line in lines:
        m = re.search(r"HYGASPI_NODE_SIZE=(\d+)", line) if line.startswith("bench_mpi:") else None
        if m and m.group(1) != "1":
            suffix = f" (nodes of {m.group(1)})"
        if line.startswith("figure (median of 5)"):
            inside = True
            continue
        if not inside or not line.strip() or line.startswith("("):
            continue
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) < 3:
            continue
        ours, unit = value(cols[1])
        floor, _ = value(cols[2])
        if ours is not None:
            coll = cols[0].startswith(("barrier", "allreduce"))
            rows.append(dict(path="mpi", figure=cols[0] + suffix, ours=ours, floor=floor, unit=unit,
                             floor_name="MPI_Barrier / MPI_Allreduce" if coll else "raw MPI RMA (a window like ours)"))
    return rows


def collective_rows(lines):
    """{(N, op): us} from rows like '    4 | barrier          |   2000 |    263.803'."""
    out = {}
    for line in lines:
        cols = [c.strip() for c in line.split("|")]
        if len(cols) == 4 and cols[0].isdigit():
            try:
                out[(int(cols[0]), cols[1])] = float(cols[3])
            except ValueError:
                pass
    return out


def collect(logs):
    rows = floor_table(read(os.path.join(logs, "shm.log")), "shm")
    rows += floor_table(read(os.path.join(logs, "atomics.log")), "shm")
    rows += floor_table(read(os.path.join(logs, "passive.log")), "shm")
    internode = sorted(f for f in os.listdir(logs) if f.startswith("internode-") and f.endswith(".log"))
    seen = set()
    for f in internode:
        for r in mpi_table(read(os.path.join(logs, f))):
            if r["figure"] not in seen:  # a figure that two runs print is shown once
                seen.add(r["figure"])
                rows.append(r)
    gaspi, mpi = {}, {}
    for f in os.listdir(logs):
        if re.fullmatch(r"gaspi-\d+\.log", f):
            gaspi.update(collective_rows(read(os.path.join(logs, f))))
        elif re.fullmatch(r"mpi-\d+\.log", f):
            mpi.update(collective_rows(read(os.path.join(logs, f))))
    for (n, op) in sorted(gaspi, key=lambda k: (k[0], list(gaspi).index(k))):
        rows.append(dict(path="collectives", figure=f"{op}, {n} ranks", ours=gaspi[(n, op)], floor=mpi.get((n, op)),
                         unit="us", floor_name="Open MPI"))
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["path", "figure", "ours", "floor", "unit", "floor_name"])
        for r in rows:
            w.writerow([r["path"], r["figure"], r["ours"], "" if r["floor"] is None else r["floor"], r["unit"],
                        r["floor_name"]])


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        # Debian's python3-matplotlib lives in the system interpreter; another python3 (pyenv,
        # a venv) first on PATH does not see it.
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath(
                "/usr/bin/python3") and not os.environ.get("PLOT_BENCH_REEXEC"):
            os.environ["PLOT_BENCH_REEXEC"] = "1"
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("plot_bench.py: no matplotlib: install python3-matplotlib (scripts/deps.sh)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def fmt(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def panel(ax, title, rows, unit, log, floor_label, note=None):
    """Horizontal bar pairs: HyGASPI (dark) over its floor (light), each bar with its value."""
    n = len(rows)
    ys = range(n)
    h = 0.38
    ours = [r["ours"] for r in rows]
    floors = [r["floor"] if r["floor"] is not None else 0 for r in rows]
    ax.barh([y - h / 2 for y in ys], ours, height=h, color="#1f5fa8", label="HyGASPI")
    ax.barh([y + h / 2 for y in ys], floors, height=h, color="#f0a04b", label=floor_label)
    top = max(ours + floors)
    for y, o, fl in zip(ys, ours, floors):
        ax.text(o, y - h / 2, " " + fmt(o), va="center", fontsize=8)
        if fl:
            ax.text(fl, y + h / 2, " " + fmt(fl), va="center", fontsize=8)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([r["figure"] for r in rows], fontsize=8.5)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
        low = min(v for v in ours + floors if v > 0)
        ax.set_xlim(low / 2, top * 12)
    else:
        ax.set_xlim(0, top * 1.22)
    ax.set_xlabel(unit + (" (log scale)" if log else ""), fontsize=9)
    ax.set_title(title, fontsize=10.5, loc="left")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1 - 0.72 / (n + 2)), ncol=2, frameon=False)
    if note:
        ax.text(0.99, 1.01, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=7.5, color="#555")


def to_unit(rows, unit):
    scale = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3}
    unit = {"µs": "us"}.get(unit, unit)
    out = []
    for r in rows:
        f = scale.get(r["unit"], 1.0) / scale[unit]
        out.append(dict(r, ours=r["ours"] * f, floor=None if r["floor"] is None else r["floor"] * f))
    return out


def draw(plt, rows, png):
    shm_lat = to_unit([r for r in rows if r["path"] == "shm" and r["unit"] != "GB/s"], "ns")
    shm_bw = [r for r in rows if r["path"] == "shm" and r["unit"] == "GB/s"]
    mpi = [r for r in rows if r["path"] == "mpi"]
    mpi_lat = to_unit([r for r in mpi if r["unit"] != "GB/s"], "us")
    mpi_bw = [r for r in mpi if r["unit"] == "GB/s"]
    coll = [r for r in rows if r["path"] == "collectives"]
    panels = []
    if shm_lat:
        panels.append(("shm path: latency (2 ranks, one node)", shm_lat, "ns", True,
                       "raw floor (shm flag / std::atomic)", None))
    bw = []
    for r in shm_bw:
        name = r["figure"].replace("gaspi_write bandwidth", "shm: gaspi_write")
        m = re.search(r"(\d+) B$", name)
        if m:
            b = int(m.group(1))
            name = name[:m.start()] + (f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB")
        bw.append(dict(r, figure=name))
    bw += [dict(r, figure="MPI: " + r["figure"].replace(" bandwidth", "")) for r in mpi_bw]
    if bw:
        panels.append(("bandwidth", bw, "GB/s", False, "raw floor (memcpy; MPI_Put + flush)", None))
    if mpi_lat:
        panels.append(("MPI path: latency (ranks on one host as separate nodes)", mpi_lat, "µs", True,
                       "raw MPI (RMA, a window like ours; MPI_Barrier / MPI_Allreduce)", None))
    if coll:
        panels.append(("collectives (slowest rank, per op)", coll, "µs", True, "Open MPI",
                       "N > cores is oversubscribed"))
    if not panels:
        sys.exit("plot_bench.py: no figures found in the logs")
    # Panels side by side in two columns, each as tall as its rows need.
    heights = [max(2.4, 0.42 * len(p[1]) + 1.6) for p in panels]
    cols = 2 if len(panels) > 1 else 1
    grid = [panels[i:i + cols] for i in range(0, len(panels), cols)]
    row_h = [max(heights[i:i + cols]) for i in range(0, len(panels), cols)]
    fig = plt.figure(figsize=(7.2 * cols, sum(row_h) + 0.8))
    gs = fig.add_gridspec(len(grid), cols, height_ratios=row_h, hspace=0.75, wspace=0.62)
    for i, line in enumerate(grid):
        for j, p in enumerate(line):
            panel(fig.add_subplot(gs[i, j]), *p)
    fig.suptitle("HyGASPI beside the raw floors measured in the same run (scripts/bench.sh, median of 5)\n"
                 "shorter latency and longer bandwidth bars are better; absolute times swing run to run on a "
                 "shared VM", fontsize=10.5)
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    fig.savefig(png, dpi=110, bbox_inches="tight")
    print(f"plot_bench.py: wrote {png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", default="build-bench/bench-logs")
    ap.add_argument("--png", default="docs/bench.png")
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    if not os.path.isdir(a.logs):
        sys.exit(f"plot_bench.py: no log folder {a.logs}: run scripts/bench.sh first")
    plt = import_pyplot() if a.png else None  # first: it may restart under /usr/bin/python3
    rows = collect(a.logs)
    if a.csv:
        write_csv(rows, a.csv)
        print(f"plot_bench.py: wrote {a.csv} ({len(rows)} figures)")
    if a.png:
        draw(plt, rows, a.png)


if __name__ == "__main__":
    main()
