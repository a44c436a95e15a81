#!/bin/bash
# L2 sides: persistent tickets (on, mix, one) against a ticket a thread block (block, blockmix)
# and none (off): march.hpp's kernels alone on the probe's box, alternated, then the velocity
# march of each under Nsight Compute (fabric, DRAM, stalls).
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*; nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
modes="off on mix one block blockmix"
for rep in 1 2; do for x in $modes; do
  echo "march $x #$rep: $(env ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x bin/fused_step_probe 512 512 256 200 2>&1 | grep -o 'in place.*')"
done; done
met=gpu__time_duration.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,sm__warps_active.avg.pct_of_peak_sustained_active
for x in $modes; do
  ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x timeout 100 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march" \
    --launch-skip 10 --launch-count 2 --metrics $met bin/fused_step_probe 512 512 256 20 > $o/ncu_$x.txt 2>&1
  echo "== ncu $x"; grep -E "^  [a-z]|  void" $o/ncu_$x.txt | sed -E 's/\(StepParams.*\)x/ x/; s/^ +/  /' | awk '{print $1, $2, $NF}'
done
