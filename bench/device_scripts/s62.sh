#!/bin/bash
# The fused velocity-stress step probe (bench/fused_step_probe.cu) against march.hpp's kernels:
# correctness and speed, then Nsight Compute (time, DRAM and L2 bytes, occupancy) of one launch
# of each; test_gpu first (CUDA = CPU bitwise after the last session's changes).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
bin/fused_step_probe 512 512 256 100 32 2>&1 | tee $o/probe.txt
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct
for k in fused_step march; do
  timeout 200 ncu --csv --cache-control none --clock-control none --print-units base --metrics $m \
    --kernel-name regex:$k --launch-count 6 bin/fused_step_probe 512 512 256 2 32 > $o/ncu_$k.csv 2>&1
done
python3 ncu_launches.py $o/ncu_fused_step.csv $o/ncu_march.csv
