#!/usr/bin/env python3
"""How many tasks run at once, from an ondes3d --trace CSV: over the run's steady part (from 20% to
90% of its span), the share of the time with 0, 1, 2, ... tasks running, and per codelet the tasks,
their median duration and their summed time over the window (above 1: tasks overlap).

  python3 trace_overlap.py TRACE.csv [TRACE.csv ...]
"""
import csv
import sys
from collections import defaultdict


def overlap(path):
    rows = list(csv.DictReader(open(path)))
    t0 = min(float(r["start_s"]) for r in rows)
    t1 = max(float(r["end_s"]) for r in rows)
    a, b = t0 + 0.2 * (t1 - t0), t0 + 0.9 * (t1 - t0)
    events = []
    for r in rows:
        s, e = max(float(r["start_s"]), a), min(float(r["end_s"]), b)
        if e > s:
            events += [(s, 1), (e, -1)]
    events.sort()
    share, running, last = defaultdict(float), 0, a
    for t, d in events:
        share[running] += t - last
        running, last = running + d, t
    share[running] += b - last
    window = b - a
    print(f"{path}: window {window:.3f} s, tasks running: " +
          " ".join(f"{k}: {100 * v / window:.1f}%" for k, v in sorted(share.items())))
    durations = defaultdict(list)
    for r in rows:
        s, e = float(r["start_s"]), float(r["end_s"])
        if s > a and e < b:
            durations[r["codelet"]].append(e - s)
    for name, d in sorted(durations.items()):
        d.sort()
        print(f"  {name:20s} {len(d):6d} tasks, median {1e3 * d[len(d) // 2]:.3f} ms, sum / window {sum(d) / window:.2f}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        overlap(p)
