#!/usr/bin/env python3
"""Sums an `ncu --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,
dram__bytes_write.sum` log by kernel: launches, ms and GB per step (a step = one velocity_march
launch per block: pass the blocks), GB/s. Usage: ncu_sum.py LOG BLOCKS"""
import csv, re, sys
from collections import defaultdict

rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
blocks = int(sys.argv[2])
acc = defaultdict(lambda: defaultdict(float))
ids = defaultdict(set)
for r in csv.DictReader(rows):
    # "void ondes::cuda::march::velocity_march<8, 3, ...>(...)" -> "velocity_march"
    name = re.sub(r"[<(].*", "", r["Kernel Name"]).split("::")[-1].replace("void ", "")
    ids[name].add(r["ID"])
    v = float(r["Metric Value"].replace(",", ""))
    acc[name][r["Metric Name"]] += v
steps = len(ids.get("velocity_march", ids.get("velocity_pml_cells", {0}))) / blocks or 1
total = 0.0
print(f"{'kernel':24s} {'launches/step':>13s} {'ms/step':>9s} {'GB/step':>9s} {'GB/s':>7s}")
for name, m in sorted(acc.items(), key=lambda kv: -kv[1]["gpu__time_duration.sum"]):
    t = m["gpu__time_duration.sum"] * 1e-6 / steps
    gb = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) * 1e-9 / steps
    total += t
    print(f"{name:24s} {len(ids[name]) / steps:13.1f} {t:9.3f} {gb:9.3f} {gb / t * 1e3 if t else 0:7.0f}")
print(f"{'all kernels':24s} {'':13s} {total:9.3f}   ({steps:.1f} steps)")
