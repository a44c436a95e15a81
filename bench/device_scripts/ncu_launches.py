#!/usr/bin/env python3
"""One line per kernel launch of `ncu --csv --print-units base --metrics ...` logs: its ID, name
and every metric (unit prefixes shortened: smsp__average_warps_issue_stalled_X_per_issue_active
-> st_X). Usage: ncu_launches.py LOG... (s62.sh, s63.sh)"""
import collections, csv, io, sys

for path in sys.argv[1:]:
    lines = [l for l in open(path).read().splitlines() if l.startswith('"')]
    per = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        per.setdefault((r["ID"], r["Kernel Name"][:48]), {})[r["Metric Name"]] = r["Metric Value"]
    for (i, name), m in per.items():
        short = lambda a: (a.replace("smsp__average_warps_issue_stalled_", "st_")
                           .replace("_per_issue_active.ratio", "").split(".")[0].split("__")[-1])
        print(i, name, " ".join(f"{short(a)}={v}" for a, v in m.items()))
