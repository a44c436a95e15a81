#!/bin/bash
# L2 sides split by tile rows (not planes): march.hpp's kernels alone on the probe's interior box
# (fused_step_probe, ONDES_PROBE=march), ONDES_CUDA_L2SIDES=off against on, alternated, then both
# under Nsight Compute (time, fabric, DRAM, sectors, instructions).
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*; nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
for rep in 1 2 3; do for x in off on; do
  for m in default 8x2x3 8x4x4; do
    mm=""; [ $m != default ] && mm="ONDES_CUDA_MARCH=$m"
    echo "march $x $m #$rep: $(env $mm ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x bin/fused_step_probe 512 512 256 200 2>&1 | grep -o 'in place.*')"
  done
done; done
met=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,sm__inst_executed.sum
for x in off on; do
  ONDES_PROBE=march ONDES_CUDA_L2SIDES=$x timeout 150 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march" \
    --launch-skip 20 --launch-count 2 --metrics $met bin/fused_step_probe 512 512 256 20 > $o/ncu_$x.txt 2>&1
  echo "== ncu $x"; grep -E "^  [a-z].*\(|  void|  [a-z].*__" $o/ncu_$x.txt | sed -E 's/\(StepParams.*\)x/ x/; s/^ +/  /' |
    awk '/void|fabric|tag_req|sectors_src|inst|duration|dram/' | head -40
done
