#!/usr/bin/env python3
"""Figures and a summary of a sweep folder made by tools/sweep.py (matplotlib, PNG).

  tools/plot_sweep.py /tmp/sweep_cpu
  tools/plot_sweep.py /tmp/sweep_gpu /tmp/sweep_gpu_simulated   # measured and simulated side by side

Rows of a simulated sweep (tools/sweep.py --simulate, column `source`) are another worker
configuration ("cuda:4 simulated:h200x4"); where a point was both measured and simulated,
summary.txt gives simulated / measured. Writes into the first folder:
  throughput.png   cell-updates/s against cells per block, one line per policy (median of the
                   repeats), the cost model's prediction dashed; one panel per worker configuration
  predicted.png    predicted against measured time per iteration, with the +-20% band
  gantt.png        the traced run: one row per worker, one bar per task coloured by codelet
  summary.txt      the best policy per layout and configuration, and the points the model misses
                   by more than 20%
"""
import argparse
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

from pydeps import require

plt = None  # matplotlib.pyplot, imported by main once the arguments are read

COLOURS = {"compute_velocity": "tab:blue", "compute_stress": "tab:orange", "save_edges": "tab:green", "save_boundary": "tab:green",
           "update_source": "tab:red", "record_seismograms": "tab:purple", "sample_stations": "tab:brown",
           "watch_velocity": "tab:gray"}


def load(folder):
    with open(os.path.join(folder, "sweep.csv")) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{folder}/sweep.csv has no rows")
    for r in rows:
        r["block_cells"] = int(r["cells"]) / (int(r["nbx"]) * int(r["nby"]))
        r["measured_as"] = r["workers"]
        if r.get("source", "measured") != "measured":
            r["workers"] = f"{r['workers']} {r['source']}"
    return rows


def number(text):
    return float(text) if text not in (None, "") else float("nan")


def medians(rows):
    """(workers, blocks, scheduler) -> median row values."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workers"], r["blocks"], r["scheduler"])].append(r)
    out = {}
    for key, rs in groups.items():
        out[key] = {
            "block_cells": rs[0]["block_cells"],
            "cups": statistics.median(float(r["cell_updates_per_s"]) for r in rs),
            "s": statistics.median(float(r["seconds_per_iteration"]) for r in rs),
            "pred_s": number(rs[0].get("predicted_s_per_iteration")),
            "pred_cups": number(rs[0].get("predicted_cell_updates_per_s")),
            "measured_as": rs[0]["measured_as"],
            "idle_cpu": statistics.median(float(r["idle_cpu"]) for r in rs),
            "idle_cuda": statistics.median(float(r["idle_cuda"]) for r in rs),
            "cpu_tasks": statistics.median(int(r["compute_tasks_cpu"]) for r in rs),
            "cuda_tasks": statistics.median(int(r["compute_tasks_cuda"]) for r in rs),
            "bytes": statistics.median(float(r["bytes_transferred"]) for r in rs),
            "steps": int(rs[0]["steps"]),
        }
    return out


def plot_throughput(folder, med):
    configs = sorted({k[0] for k in med})
    fig, axes = plt.subplots(1, len(configs), figsize=(6.5 * len(configs), 4.5), squeeze=False)
    for ax, w in zip(axes[0], configs):
        scheds = sorted({k[2] for k in med if k[0] == w})
        for s in scheds:
            pts = sorted((v["block_cells"], v["cups"], k[1]) for k, v in med.items() if k[0] == w and k[2] == s)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s)
        pred = sorted({(v["block_cells"], v["pred_cups"]) for k, v in med.items() if k[0] == w and v["pred_cups"] > 0})
        if pred:
            ax.plot([p[0] for p in pred], [p[1] for p in pred], "k--", label="cost model")
        labels = sorted({(v["block_cells"], k[1]) for k, v in med.items() if k[0] == w})
        ax.set_xscale("log")
        ax.set_xticks([l[0] for l in labels])
        ax.set_xticklabels([f"{l[1]}\n{l[0] / 1e3:.0f}k" for l in labels], fontsize=8)
        ax.minorticks_off()
        ax.set_xlabel("blocks (cells per block)")
        ax.set_ylabel("cell-updates per second")
        ax.set_title(f"workers {w}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "throughput.png"), dpi=110)
    plt.close(fig)


def plot_predicted(folder, med):
    med = {k: v for k, v in med.items() if v["pred_s"] > 0}  # simulated rows have no prediction
    if not med:
        return
    fig, ax = plt.subplots(figsize=(5.5, 5))
    configs = sorted({k[0] for k in med})
    for w in configs:
        xs = [v["s"] * 1e3 for k, v in med.items() if k[0] == w]
        ys = [v["pred_s"] * 1e3 for k, v in med.items() if k[0] == w]
        ax.scatter(xs, ys, label=w, s=18)
    lo = min(min(v["s"], v["pred_s"]) for v in med.values()) * 1e3 * 0.8
    hi = max(max(v["s"], v["pred_s"]) for v in med.values()) * 1e3 * 1.2
    ax.plot([lo, hi], [lo, hi], "k-", lw=1)
    ax.fill_between([lo, hi], [lo * 0.8, hi * 0.8], [lo * 1.2, hi * 1.2], color="k", alpha=0.08, label="+-20%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured ms per iteration (median)")
    ax.set_ylabel("predicted ms per iteration")
    ax.set_title("analytic cost model")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "predicted.png"), dpi=110)
    plt.close(fig)


def plot_gantt(folder):
    traces = sorted(glob.glob(os.path.join(folder, "trace_*.csv")))
    if not traces:
        return None
    path = traces[0]
    with open(path) as f:
        events = list(csv.DictReader(f))
    if not events:
        return None
    end = max(float(e["end_s"]) for e in events)
    # A window of the steady state: the middle fifth of the run, a few iterations.
    t0, t1 = 0.4 * end, 0.6 * end
    workers = sorted({(e["worker_kind"], int(e["worker"])) for e in events}, key=lambda w: (w[0] != "cuda", w[1]))
    row = {w: i for i, w in enumerate(workers)}
    fig, ax = plt.subplots(figsize=(12, max(2.6, 0.45 * len(workers) + 1.6)))
    seen = set()
    busy = defaultdict(float)
    for e in events:
        s, t = float(e["start_s"]), float(e["end_s"])
        if t < t0 or s > t1:
            continue
        s, t = max(s, t0), min(t, t1)
        w = (e["worker_kind"], int(e["worker"]))
        busy[w] += t - s
        c = e["codelet"]
        ax.barh(row[w], (t - s) * 1e3, left=(s - t0) * 1e3, height=0.8, color=COLOURS.get(c, "k"),
                label=None if c in seen else c)
        seen.add(c)
    ax.set_yticks(range(len(workers)))
    ax.set_yticklabels([f"{k.upper()} {i} ({100 * (1 - busy[(k, i)] / (t1 - t0)):.0f}% idle)" for k, i in workers],
                       fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms (window of the run's middle fifth)")
    ax.set_title(os.path.basename(path)[:-4].replace("trace_", "tasks per worker: "))
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "gantt.png"), dpi=110)
    plt.close(fig)
    return path


def summary(folder, med):
    lines = []
    configs = sorted({k[0] for k in med})
    for w in configs:
        lines.append(f"workers {w}: best policy per layout (median cell-updates/s; runner-up)")
        layouts = sorted({(v["block_cells"], k[1]) for k, v in med.items() if k[0] == w}, reverse=True)
        for _, b in layouts:
            ranked = sorted(((v["cups"], k[2], v) for k, v in med.items() if k[0] == w and k[1] == b), reverse=True)
            (c1, s1, v1), (c2, s2, _) = ranked[0], ranked[1] if len(ranked) > 1 else ranked[0]
            worst = ranked[-1]
            lines.append(f"  {b:>5}: {s1:>6} {c1:.3e} (idle cpu {v1['idle_cpu']:.0%} cuda {v1['idle_cuda']:.0%}, "
                         f"compute tasks cpu/cuda {v1['cpu_tasks']:.0f}/{v1['cuda_tasks']:.0f}); "
                         f"{s2} {c2:.3e}; worst {worst[1]} {worst[0]:.3e}")
    lines.append("")
    measured = {(v["measured_as"], k[1], k[2]): v for k, v in med.items() if k[0] == v["measured_as"]}
    pairs = [(k, v, measured[(v["measured_as"], k[1], k[2])]) for k, v in med.items()
             if k[0] != v["measured_as"] and (v["measured_as"], k[1], k[2]) in measured]
    if pairs:
        ratios = [v["cups"] / m["cups"] for _, v, m in pairs]
        lines.append(f"simulated / measured: {sum(abs(r - 1) <= 0.1 for r in ratios)} of {len(pairs)} points "
                     f"within 10% ({min(ratios):.3f}-{max(ratios):.3f})")
        for (k, v, m), r in sorted(zip(pairs, ratios), key=lambda p: p[0][0]):
            lines.append(f"  {k[0]:>28} {k[1]:>5} {k[2]:>6}: {v['cups']:.3e} against {m['cups']:.3e} ({r:.3f})")
        lines.append("")
    errors = sorted(((v["pred_s"] / v["s"] - 1, k) for k, v in med.items() if v["pred_s"] > 0), key=lambda e: -abs(e[0]))
    within = sum(abs(e) <= 0.2 for e, _ in errors)
    lines.append(f"cost model: {within} of {len(errors)} points within 20% of the measured median")
    for e, k in errors:
        if abs(e) > 0.2:
            v = med[k]
            lines.append(f"  {k[0]:>14} {k[1]:>5} {k[2]:>6}: predicted {v['pred_s'] * 1e3:.3f} ms, measured "
                         f"{v['s'] * 1e3:.3f} ms ({e:+.0%}); compute tasks cpu/cuda {v['cpu_tasks']:.0f}/"
                         f"{v['cuda_tasks']:.0f}, idle cpu {v['idle_cpu']:.0%} cuda {v['idle_cuda']:.0%}, "
                         f"{v['bytes'] / max(v['steps'], 1) / 1e6:.1f} MB moved per iteration")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, "summary.txt"), "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", metavar="FOLDER", help="sweep folders (tools/sweep.py --out); "
                    "the figures go into the first")
    folders = ap.parse_args().folders
    for f in folders:
        if not os.path.isfile(os.path.join(f, "sweep.csv")):
            sys.exit(f"plot_sweep.py: {f} holds no sweep.csv (a folder tools/sweep.py --out wrote)")
    global plt
    matplotlib = require("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    folder = folders[0]
    med = medians([r for f in folders for r in load(f)])
    plot_throughput(folder, med)
    plot_predicted(folder, med)
    trace = plot_gantt(folder)
    print(summary(folder, med), end="")
    predicted = " predicted.png" if os.path.exists(os.path.join(folder, "predicted.png")) else ""
    print(f"figures in {folder}: throughput.png{predicted}" + (f" gantt.png (from {trace})" if trace else ""))


if __name__ == "__main__":
    main()
