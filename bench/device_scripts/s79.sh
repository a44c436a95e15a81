#!/bin/bash
# The PML kernels' cell found by multiply-and-shift (compute.hpp PmlDivisors) instead of 32-bit
# divisions, old/ = HEAD before it: test_gpu, the PML kernels of two plain-loop steps under Nsight
# Compute each way, then old/new alternated (plain loop x3, StarPU 1x1 and 4x4 x2).
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__inst_executed.sum
for b in old bin; do
  timeout 100 ncu --csv --cache-control none --clock-control none --print-units base --metrics $m --kernel-name regex:"pml_cells" \
    --launch-skip 20 --launch-count 4 $b/plain_loop $big 20 > $o/ncu_$b.csv 2>&1
  echo "== $b"; python3 ncu_launches.py $o/ncu_$b.csv
done
old_new_ab 1x1 4x4
