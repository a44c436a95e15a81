#!/usr/bin/env python3
"""How many tasks run at once, from an ondes3d --trace CSV: over the run's steady part (from 20% to
90% of its span), the share of the time with 0, 1, 2, ... tasks running, and per codelet (with
--by-block: per codelet and block) the tasks, their median duration and their summed time over the
window (above 1: tasks overlap). --by-device: per GPU (the trace's device column) the share of the
window with at least one of its tasks running, the gaps between, and per step (a block's velocity
updates) the window and the busy time. --gaps (with --by-device): per GPU, its idle gaps by the
task that ended before each (the last to end) and the task that ended it (codelet:block), largest
total first: which dependency a GPU waits on.

  python3 trace_overlap.py [--by-device [--gaps]] [--by-block] TRACE.csv [TRACE.csv ...]
"""
import argparse
import csv
from collections import defaultdict


def clipped(rows, a, b):
    """The rows' [start, end) intervals inside [a, b)."""
    for r in rows:
        s, e = max(float(r["start_s"]), a), min(float(r["end_s"]), b)
        if e > s:
            yield s, e


def running_shares(intervals, a, b):
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    share, running, last = defaultdict(float), 0, a
    for t, d in events:
        share[running] += t - last
        running, last = running + d, t
    share[running] += b - last
    return share


def busy_and_gaps(intervals):
    busy, gaps, cur = 0.0, [], None
    for s, e in sorted(intervals):
        if cur is None:
            cur = [s, e]
        elif s > cur[1]:
            busy += cur[1] - cur[0]
            gaps.append(s - cur[1])
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    if cur:
        busy += cur[1] - cur[0]
    return busy, sorted(gaps)


def gap_causes(rows, a, b):
    """The idle gaps of rows (one GPU's) inside [a, b), keyed by (the task whose end opened the gap,
    the task whose start closed it): [count, total seconds]."""
    causes = defaultdict(lambda: [0, 0.0])
    name = lambda r: r["codelet"] + ":" + r.get("block", "")
    rs = sorted((r for r in rows if a <= float(r["start_s"]) < b), key=lambda r: float(r["start_s"]))
    last = None
    for r in rs:
        s, e = float(r["start_s"]), float(r["end_s"])
        if last is not None and s > float(last["end_s"]):
            c = causes[(name(last), name(r))]
            c[0] += 1
            c[1] += s - float(last["end_s"])
        if last is None or e > float(last["end_s"]):
            last = r
    return causes


def steps_in(rows, dev, a, b):
    """Steps inside [a, b) on GPU dev: the most velocity updates (compute tasks) of one of its blocks
    that lie wholly inside; windows of several steps (chain tasks) are not counted: the trace does not
    say how many steps each ran."""
    count = defaultdict(int)
    for r in rows:
        if r.get("device") == dev and r["codelet"] == "compute_velocity" and \
                float(r["start_s"]) >= a and float(r["end_s"]) <= b:
            count[r.get("block", "")] += 1
    return max(count.values(), default=0)


def report(path, by_device, by_block, gaps_by_cause=False):
    rows = list(csv.DictReader(open(path)))
    t0 = min(float(r["start_s"]) for r in rows)
    t1 = max(float(r["end_s"]) for r in rows)
    a, b = t0 + 0.2 * (t1 - t0), t0 + 0.9 * (t1 - t0)
    window = b - a
    share = running_shares(list(clipped(rows, a, b)), a, b)
    print(f"{path}: window {window:.3f} s, tasks running: " +
          " ".join(f"{k}: {100 * v / window:.1f}%" for k, v in sorted(share.items())))
    if by_device:
        devices = sorted({r.get("device", "") for r in rows if r.get("device", "")}, key=int)
        for dev in devices:
            busy, gaps = busy_and_gaps(list(clipped([r for r in rows if r.get("device") == dev], a, b)))
            median = 1e6 * gaps[len(gaps) // 2] if gaps else 0.0
            steps = steps_in(rows, dev, a, b)
            per_step = (f", a step {1e3 * window / steps:.3f} ms with {1e3 * busy / steps:.3f} ms busy"
                        if steps else "")
            print(f"  GPU {dev}: busy {100 * busy / window:.1f}%, {len(gaps)} gaps, median {median:.1f} us, "
                  f"{100 * sum(gaps) / window:.1f}% of the window{per_step}")
            if gaps_by_cause:
                causes = gap_causes([r for r in rows if r.get("device") == dev], a, b)
                for (before, after), (n, t) in sorted(causes.items(), key=lambda x: -x[1][1])[:6]:
                    print(f"    {before:28s} -> {after:28s} {n:5d} gaps, {1e3 * t:7.2f} ms, mean {1e6 * t / n:6.1f} us")
    durations = defaultdict(list)
    for r in rows:
        s, e = float(r["start_s"]), float(r["end_s"])
        if s > a and e < b:
            key = r["codelet"] + (f" {r['block']}" if by_block and r.get("block") else "")
            durations[key].append(e - s)
    for name, d in sorted(durations.items()):
        d.sort()
        print(f"  {name:26s} {len(d):6d} tasks, median {1e3 * d[len(d) // 2]:.3f} ms, sum / window {sum(d) / window:.2f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--by-device", action="store_true", help="busy share and gaps per GPU (the device column)")
    ap.add_argument("--by-block", action="store_true", help="task durations per codelet and block")
    ap.add_argument("--gaps", action="store_true", help="with --by-device: each GPU's gaps by the tasks around them")
    args = ap.parse_args()
    for p in args.traces:
        report(p, args.by_device, args.by_block, args.gaps)
