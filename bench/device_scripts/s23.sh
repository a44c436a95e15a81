#!/bin/bash
# Issue 16: what a cut costs one GPU's kernels. 512 x 1024 (the weak case) on one H200 as 1x1, 1x2
# and 1x2 with edge strips of 16, every kernel under ncu (one worker), summed per step.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
weak=/tmp/weak_2.toml
sed "s/^ny = .*/ny = 1024/" inputs/benchmark.toml > $weak
export STARPU_NCPU=0 STARPU_NCUDA=1
for lc in 1x1:0:1:200:150 1x2:0:2:300:300 1x2:16:4:500:500; do
  IFS=: read l strip nb skip count <<< "$lc"
  STARPU_NWORKER_PER_CUDA=1 timeout 150 ncu --cache-control none --clock-control none --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --csv --launch-skip $skip --launch-count $count bin/ondes3d run $weak --steps 60 --blocks $l --edge-strip $strip --sched dmda --output /tmp/r.h5 > $o/ncu_${l}_$strip.csv 2> $o/ncu_${l}_$strip.err
  python3 - $o/ncu_${l}_$strip.csv "$l+$strip" $nb <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; rows = rows[1:]
ki, mi, vi, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
per = collections.defaultdict(lambda: collections.defaultdict(float)); ids = collections.defaultdict(set)
for r in rows:
    name = r[ki].split("(")[0].split("<")[0].replace("void ", "").split("::")[-1]
    per[name][r[mi]] += float(r[vi].replace(",", "")); ids[name].add(r[ii])
tot = sum(v["gpu__time_duration.sum"] for v in per.values())
steps = len(ids.get("velocity_march", ids.get("step", {1}))) / int(sys.argv[3])
print(f"{sys.argv[2]}: {len(rows)//3} launches, ~{steps:.1f} steps, kernel time {tot/1e6/steps:.3f} ms a step")
for n, v in sorted(per.items(), key=lambda x: -x[1]["gpu__time_duration.sum"]):
    b = v["dram__bytes_read.sum"] + v["dram__bytes_write.sum"]
    print(f"  {n:28s} {len(ids[n])/steps:6.1f}/step {v['gpu__time_duration.sum']/1e6/steps:8.3f} ms/step  {b/1e9/steps:7.3f} GB/step  {b/v['gpu__time_duration.sum']:7.1f} GB/s")
PY
done
