#!/usr/bin/env python3
"""Sums an `ncu --csv --print-units base --metrics ...` log by kernel (full name up to its arguments):
launches and each metric summed. Usage: ncu_kernels.py LOG"""
import csv, re, sys
from collections import defaultdict

rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
acc, ids, order = defaultdict(lambda: defaultdict(float)), defaultdict(set), []
for r in csv.DictReader(rows):
    name = re.sub(r"\(.*", "", r["Kernel Name"]).replace("void ", "").replace("probe::", "")
    name = re.sub(r"ondes::cuda::\(anonymous namespace\)::", "", name)
    if name not in order: order.append(name)
    ids[name].add(r["ID"])
    acc[name][r["Metric Name"]] += float(r["Metric Value"].replace(",", ""))
for name in order:
    m = acc[name]
    t = m["gpu__time_duration.sum"] * 1e-3
    gb = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) * 1e-9
    l2 = m.get("lts__t_sectors_srcunit_tex_op_read.sum", 0) * 1e-6
    print(f"{name:40s} x{len(ids[name])}  {t:8.1f} us  DRAM {gb:6.3f} GB ({gb / t * 1e6 if t else 0:5.0f} GB/s)  L2 read sectors {l2:6.1f} M"
          + "".join(f"  {k.split('__')[1][:24]} {v / len(ids[name]):.1f}" for k, v in m.items() if "pct" in k))
