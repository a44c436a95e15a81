#!/bin/bash
# H100: every kernel of two plain-loop steps under Nsight Compute, old/ (before the planes'
# factors) against bin/ (with them): which kernels lost the 4%.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do gunzip -f "$f"; done
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
for b in old bin; do
  timeout 200 ncu --csv --cache-control none --clock-control none --print-units base --metrics $m \
    --launch-skip 40 --launch-count 16 $b/plain_loop $big 20 > $o/ncu_$b.csv 2>&1
  echo "== $b"; python3 ncu_launches.py $o/ncu_$b.csv
done
