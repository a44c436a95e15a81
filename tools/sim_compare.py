#!/usr/bin/env python3
"""Simulated against measured (issue 46): the table and the policies' ranking of a validation.

Reads lines `POINT POLICY measured|simulated RATE...` (cell-updates/s; several measured runs of a
point give its noise, two simulated runs its determinism), as tools/sim_validate.sh and
tools/sim_validate_gpu.sh write them, and prints for every point and policy the measured median and
range, the first simulation, simulated / median, whether the simulations agree to the last digit;
then, point by point, the policies best first as measured and as simulated, and which pairs of
policies the measurements tell apart (two runs or more each, their ranges apart, and their medians
more than --noise apart: with two or three runs a point, ranges part over differences smaller than
what the same point moves between two sessions, 1-3% on the GPU machines): only those are a ranking
the simulation must reproduce. The simulation orders such a pair only if its two figures differ by
more than --sim-tie (default 0.5%): closer, it calls them even (a tie in all but the sign of a
0.02% difference is no ranking).
Several files pool their runs (measured runs of the same points from other sessions or machines of
the same kind, their header lines naming the same steps): the noise of a point is then what it
moved over all of them.
    tools/sim_compare.py RATES_FILE [MORE_RATES...] [--tolerance 0.10] [--noise 0.02] [--sim-tie 0.005]
"""
import argparse
import itertools
import statistics
import sys


def steps_of(header):
    """The steps a header line names ("..., 300 steps; ..."), or None."""
    words = header.replace(",", " ").replace(";", " ").split()
    return next((words[i - 1] for i, w in enumerate(words) if w == "steps" and i > 0), None)


def read(paths):
    rows = {}  # (point, policy) -> {"measured": [...], "simulated": [...]}
    order = []
    steps = {}
    for path in paths:
        read_one(path, rows, order, steps)
    if len(set(steps.values())) > 1:
        sys.exit("pooled files of different steps: " + ", ".join(f"{p}: {s}" for p, s in steps.items()))
    return rows, order


def read_one(path, rows, order, steps):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if fields and fields[0].startswith("#") and path not in steps and steps_of(line):
                steps[path] = steps_of(line)
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) < 3 or fields[2] not in ("measured", "simulated"):
                sys.exit(f"{path}:{n}: expected POINT POLICY measured|simulated RATE..., got: {line.strip()}")
            key = (fields[0], fields[1])
            if key not in rows:
                rows[key] = {"measured": [], "simulated": []}
                order.append(key)
            for v in fields[3:]:
                try:
                    rows[key][fields[2]].append(float(v))
                except ValueError:
                    pass  # a failed run ("failed") leaves no figure


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rates", nargs="+")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--noise", type=float, default=0.02,
                    help="medians closer than this fraction are not a ranking, even with ranges apart")
    ap.add_argument("--sim-tie", type=float, default=0.005,
                    help="simulated figures closer than this fraction are a tie, not an order")
    a = ap.parse_args()
    rows, order = read(a.rates)
    print(f"{'point':<8} {'policy':<7} {'measured (median)':>17} {'range':>21} {'n':>2} {'simulated':>13} "
          f"{'sim/meas':>8}  simulations")
    within = total = 0
    for key in order:
        m, s = rows[key]["measured"], rows[key]["simulated"]
        med = statistics.median(m) if m else None
        rng = f"{min(m):.4g}-{max(m):.4g}" if m else "-"
        ratio = s[0] / med if m and s and med > 0 else None
        if ratio is not None:
            total += 1
            within += abs(ratio - 1) <= a.tolerance
        same = "identical" if len(s) >= 2 and len(set(s)) == 1 else ("one" if len(s) == 1 else "differ" if s else "failed")
        cells = [f"{med:.4g}" if m else "failed", rng, str(len(m)), f"{s[0]:.7g}" if s else "failed",
                 f"{ratio:.3f}" if ratio is not None else "-"]
        print(f"{key[0]:<8} {key[1]:<7} {cells[0]:>17} {cells[1]:>21} {cells[2]:>2} {cells[3]:>13} {cells[4]:>8}  {same}")
    print(f"# within {a.tolerance:.0%} of the measured median: {within} of {total}")
    print(f"# policies best first, measured (median) | simulated; apart: pairs whose measured ranges do not "
          f"overlap and whose medians differ by more than {a.noise:.0%}, and whether the simulation orders them alike "
          f"(tied: simulated within {a.sim_tie:.1%})")
    points = []
    for p, _ in order:
        if p not in points:
            points.append(p)
    apart_total = apart_kept = apart_tied = within_noise = 0
    for p in points:
        pol = [k[1] for k in order if k[0] == p and rows[k]["measured"] and rows[k]["simulated"]]
        if len(pol) < 2:
            continue
        m = {q: rows[(p, q)]["measured"] for q in pol}
        s = {q: rows[(p, q)]["simulated"][0] for q in pol}
        by_m = sorted(pol, key=lambda q: -statistics.median(m[q]))
        by_s = sorted(pol, key=lambda q: -s[q])
        notes = []
        for x, y in itertools.combinations(pol, 2):
            if min(len(m[x]), len(m[y])) >= 2 and (min(m[x]) > max(m[y]) or min(m[y]) > max(m[x])):
                hi, lo = (x, y) if statistics.median(m[x]) > statistics.median(m[y]) else (y, x)
                if statistics.median(m[hi]) <= (1 + a.noise) * statistics.median(m[lo]):
                    within_noise += 1
                    continue
                tied = abs(s[hi] - s[lo]) <= a.sim_tie * max(s[hi], s[lo])
                kept = not tied and s[hi] > s[lo]
                apart_total += 1
                apart_kept += kept
                apart_tied += tied
                notes.append(f"{hi}>{lo} {'kept' if kept else 'tied' if tied else 'NOT kept'}")
        print(f"{p:<8} {' '.join(by_m):<24} | {' '.join(by_s):<24} apart: {', '.join(notes) if notes else 'none (noise)'}")
    print(f"# pairs the measurements tell apart: {apart_total}; ordered alike by the simulation: {apart_kept}, "
          f"tied: {apart_tied}, reversed: {apart_total - apart_kept - apart_tied} "
          f"(ranges apart but medians within {a.noise:.0%}: {within_noise})")


if __name__ == "__main__":
    main()
