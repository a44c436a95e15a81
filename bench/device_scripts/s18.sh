#!/bin/bash
# H200: which L2 sub-unit is the march kernels' 97%? breakdown of lts__throughput, KZ 2 vs 4.
cd "$(dirname "$0")"
. ./common.sh "$@"
met=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum
for m in 8x2x4x0 8x4x4x0; do
  ONDES_CUDA_MARCH=$m timeout 250 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march|_pml_cells" --launch-skip 40 --launch-count 4 \
    --metrics $met bin/plain_loop $big 12 > $o/ncu_$m.txt 2>&1
  echo "== ncu $m"; grep -E "^  [a-z].*\(|  void|  [a-z].*__" $o/ncu_$m.txt | sed -E 's/\(StepParams.*\)x/ x/; s/^ +/  /' | awk '$NF+0 > 20 || /void|requests|sectors|inst|duration|conflicts/' | head -90
done
