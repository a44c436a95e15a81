#!/bin/bash
# L2 sides: why slower? tickets with the sides ignored (mix) against sides and off, and the
# sided march's warp stalls and per-SM activity under Nsight Compute.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*; nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for rep in 1 2; do for x in off on mix; do
  echo "march $x #$rep: $(env ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x bin/fused_step_probe 512 512 256 200 2>&1 | grep -o 'in place.*')"
done; done
met=gpu__time_duration.sum,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for x in off on mix; do
  ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x timeout 150 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"velocity_march" \
    --launch-skip 10 --launch-count 1 --section WarpStateStats --metrics $met bin/fused_step_probe 512 512 256 20 > $o/ncu_$x.txt 2>&1
  echo "== ncu $x"; grep -E "^    [A-Za-z]|^  [a-z]" $o/ncu_$x.txt | grep -v "^    -" | head -40
done
