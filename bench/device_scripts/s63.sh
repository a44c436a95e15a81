#!/bin/bash
# The fused step probe with a 64x8 tile too; Nsight Compute's instruction and stall counts of one
# launch of each fused variant and of the two march kernels.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
bin/fused_step_probe 512 512 256 100 32 2>&1 | tee $o/probe.txt
s=smsp__average_warps_issue_stalled
m=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,${s}_barrier_per_issue_active.ratio,${s}_long_scoreboard_per_issue_active.ratio,${s}_short_scoreboard_per_issue_active.ratio,${s}_mio_throttle_per_issue_active.ratio,${s}_lg_throttle_per_issue_active.ratio,${s}_wait_per_issue_active.ratio,${s}_math_pipe_throttle_per_issue_active.ratio,${s}_not_selected_per_issue_active.ratio,${s}_drain_per_issue_active.ratio,${s}_dispatch_stall_per_issue_active.ratio
for k in fused_step march; do
  timeout 200 ncu --csv --cache-control none --clock-control none --print-units base --metrics $m \
    --kernel-name regex:$k --launch-count 6 bin/fused_step_probe 512 512 256 2 32 > $o/ncu_$k.csv 2>&1
done
python3 ncu_launches.py $o/ncu_fused_step.csv $o/ncu_march.csv
