#!/usr/bin/env python3
"""Where a run's time went, per codelet, from the StarPU profile in its HDF5 output
(/run/profile/codelets): tasks, seconds, share of all task time, and seconds per iteration
against the run's wall time per iteration.

  tools/task_share.py RUN.h5 [--codelet record_seismograms]   # exits 1 if the codelet's share > --max
Needs h5py (Debian's python3-h5py).
"""
import argparse
import sys

from pydeps import require

h5py = require("h5py")


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--codelet", default="record_seismograms", help="codelet to single out (default record_seismograms)")
    ap.add_argument("--max", type=float, default=None, help="fail (exit 1) above this share of the iteration, %%")
    a = ap.parse_args()
    with h5py.File(a.run, "r") as f:
        g = f["/run/profile/codelets"]
        names = [text(x) for x in g["codelet"][...]]
        kinds = [text(x) for x in g["worker_kind"][...]]
        tasks, mean = g["tasks"][...], g["mean_seconds"][...]
        run = f["/run"].attrs
        steps, wall = int(run["steps_completed"]), float(run["wall_seconds"])
    per = {}
    for n, k, t, m in zip(names, kinds, tasks, mean):
        e = per.setdefault(n, {"tasks": 0, "seconds": 0.0, "kinds": set()})
        e["tasks"] += int(t)
        e["seconds"] += float(t) * float(m)
        e["kinds"].add(k)
    total = sum(e["seconds"] for e in per.values())
    print(f"{a.run}: {steps} iterations, {wall:.3f} s wall, {1e3 * wall / steps:.3f} ms per iteration")
    print(f"{'codelet':<20} {'workers':<9} {'tasks':>8} {'seconds':>9} {'share':>7} {'ms/iter':>8}")
    for n, e in sorted(per.items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"{n:<20} {'+'.join(sorted(e['kinds'])):<9} {e['tasks']:>8} {e['seconds']:>9.3f} "
              f"{100 * e['seconds'] / total:>6.2f}% {1e3 * e['seconds'] / steps:>8.4f}")
    c = per.get(a.codelet, {"seconds": 0.0, "tasks": 0})
    share = 100 * c["seconds"] / total if total else 0.0
    print(f"{a.codelet}: {share:.2f}% of the task time, {1e3 * c['seconds'] / steps:.4f} ms per iteration "
          f"({100 * c['seconds'] / wall:.2f}% of the wall time, summed over workers)")
    if a.max is not None and share > a.max:
        sys.exit(1)


if __name__ == "__main__":
    main()
